#include "api_cost.h"

#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "config.h"
#include "log.h"
#include "report.h"
#include "xalloc.h"

unsigned api_config_bits(const struct api_query *q) {
    enum cost_config c;
    if (!q->configuration || cost_config_parse(q->configuration, &c) != ERR_OK)
        return 0;
    return 1u << c;
}

static enum cost_config default_config(const struct request *req) {
    enum cost_config c = COST_FALLBACK;
    if (req->app && req->app->cfg)
        cost_config_parse(req->app->cfg->default_configuration, &c);
    return c;
}

/* --on-demand-size pairs first (priced from the list), then every listed size
 * as the On-Demand twin of "<slug>-spot". */
static void build_od(const struct request *req, struct api_calc *c) {
    const struct config *cfg = req->app ? req->app->cfg : NULL;
    size_t extra = cfg ? (size_t)cfg->n_on_demand_sizes : 0;
    c->od = xcalloc(extra + c->data->n_od_sizes + 1, sizeof *c->od);
    for (size_t i = 0; i < extra; i++) {
        const struct config_pair *p = &cfg->on_demand_sizes[i];
        for (size_t j = 0; j < c->data->n_od_sizes; j++) {
            if (strcmp(c->data->od_sizes[j].od_size, p->value) == 0) {
                c->od[c->n_od].spot_size = p->key;
                c->od[c->n_od].od_size = p->value;
                c->od[c->n_od].od_price_hourly = c->data->od_sizes[j].od_price_hourly;
                c->n_od++;
                break;
            }
        }
    }
    for (size_t j = 0; j < c->data->n_od_sizes; j++)
        c->od[c->n_od++] = c->data->od_sizes[j];
}

bool api_calc_window(struct request *req, struct response *resp, const struct api_query *q,
                     int64_t from, int64_t to, struct api_calc *c) {
    struct cost_query cq;
    memset(&cq, 0, sizeof cq);
    cq.from = from;
    cq.to = to;
    cq.now = api_now(req);
    if (cq.now < from)
        cq.now = from;
    cq.configs = api_config_bits(q);
    cq.experiment = q->experiment;
    cq.ns = q->namespace_;
    cq.od_sizes = c->od;
    cq.n_od_sizes = c->n_od;
    cq.want_attempts = c->res ? c->res->attempts != NULL : false;
    cost_result_free(c->res);
    c->res = NULL;
    enum err rc = cost_compute(&c->data->in, &cq, &c->res);
    if (rc != ERR_OK) {
        log_msg(LOG_ERROR, "api: cost computation failed: %s", err_str(rc));
        response_error(resp, 500, "internal", "the cost computation failed: %s", err_str(rc));
        return false;
    }
    return true;
}

bool api_calc_run(struct request *req, struct response *resp, const struct api_query *q,
                  int64_t load_from, int64_t load_to, bool want_attempts, struct api_calc *out) {
    memset(out, 0, sizeof *out);
    if (!req->db) {
        response_error(resp, 503, "unavailable", "the database is not open");
        return false;
    }
    enum err rc = store_cost_load(req->db, load_from, load_to, default_config(req), &out->data);
    if (rc != ERR_OK) {
        response_error(resp, rc == ERR_BUSY ? 503 : 500, "database", "cannot read the data: %s",
                       err_str(rc));
        return false;
    }
    build_od(req, out);
    struct cost_query cq;
    memset(&cq, 0, sizeof cq);
    cq.from = q->w.from;
    cq.to = q->w.to;
    cq.now = api_now(req);
    if (cq.now < cq.from)
        cq.now = cq.from;
    cq.configs = api_config_bits(q);
    cq.experiment = q->experiment;
    cq.ns = q->namespace_;
    cq.od_sizes = out->od;
    cq.n_od_sizes = out->n_od;
    cq.want_attempts = want_attempts;
    rc = cost_compute(&out->data->in, &cq, &out->res);
    if (rc != ERR_OK) {
        log_msg(LOG_ERROR, "api: cost computation failed: %s", err_str(rc));
        response_error(resp, 500, "internal", "the cost computation failed: %s", err_str(rc));
        api_calc_release(out);
        return false;
    }
    return true;
}

void api_calc_release(struct api_calc *c) {
    cost_result_free(c->res);
    free(c->od);
    store_cost_free(c->data);
    memset(c, 0, sizeof *c);
}

typedef enum err (*report_fn)(const struct cost_result *r, struct buf *out);

/* A route whose body is one report_* value (wrapped in an object when key). */
static void report_route(struct request *req, struct response *resp, report_fn fn,
                         const char *key) {
    struct api_query q;
    struct api_calc c;
    if (!api_query_parse(req, resp, &q, NULL))
        return;
    if (!api_calc_run(req, resp, &q, q.w.from, q.w.to, false, &c))
        return;
    enum err rc = ERR_OK;
    if (key) {
        rc = buf_printf(&resp->body, "{\"%s\":", key);
    }
    if (rc == ERR_OK)
        rc = fn(c.res, &resp->body);
    if (rc == ERR_OK && key)
        rc = buf_putc(&resp->body, '}');
    if (rc == ERR_OK)
        rc = buf_putc(&resp->body, '\n');
    api_calc_release(&c);
    if (rc != ERR_OK) {
        response_error(resp, 500, "internal", "cannot write the response: %s", err_str(rc));
        return;
    }
    response_json(resp, 200);
}

void api_summary(struct request *req, struct response *resp) {
    report_route(req, resp, report_summary_json, NULL);
}

void api_nodes(struct request *req, struct response *resp) {
    report_route(req, resp, report_nodes_json, "nodes");
}

void api_pools(struct request *req, struct response *resp) {
    report_route(req, resp, report_pools_json, "pools");
}

void api_reclaims(struct request *req, struct response *resp) {
    report_route(req, resp, report_reclaims_json, "reclaims");
}
