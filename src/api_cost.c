#include "api_cost.h"

#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "jsonw.h"
#include "config.h"
#include "log.h"
#include "report.h"

unsigned api_config_bits(const struct api_query *q) {
    enum cost_config c;
    if (!q->configuration || cost_config_parse(q->configuration, &c) != ERR_OK)
        return 0;
    return 1u << c;
}

static void fill_query(struct request *req, const struct api_query *q, int64_t from, int64_t to,
                       bool want_attempts, struct cost_query *cq) {
    memset(cq, 0, sizeof *cq);
    cq->from = from;
    cq->to = to;
    cq->now = api_now(req);
    cq->configs = api_config_bits(q);
    cq->experiment = q->experiment;
    cq->ns = q->namespace_;
    cq->want_attempts = want_attempts;
}

static bool failed(struct response *resp, enum err rc) {
    log_msg(LOG_ERROR, "api: cost computation failed: %s", err_str(rc));
    if (rc == ERR_BUSY || rc == ERR_DB)
        response_error(resp, 503, "database", "cannot read the data: %s", err_str(rc));
    else
        response_error(resp, 500, "internal", "the cost computation failed: %s", err_str(rc));
    return false;
}

bool api_calc_run(struct request *req, struct response *resp, const struct api_query *q,
                  int64_t load_from, int64_t load_to, bool want_attempts, struct calc *out) {
    memset(out, 0, sizeof *out);
    if (!req->db) {
        response_error(resp, 503, "unavailable", "the database is not open");
        return false;
    }
    struct cost_query cq;
    fill_query(req, q, q->w.from, q->w.to, want_attempts, &cq);
    enum err rc = calc_run(req->db, req->app ? req->app->cfg : NULL, load_from, load_to, &cq, out);
    return rc == ERR_OK ? true : failed(resp, rc);
}

typedef enum err (*report_fn)(const struct cost_result *r, struct buf *out);

/* A route whose body is one report_* value (wrapped in an object when key). */
static void report_route(struct request *req, struct response *resp, report_fn fn,
                         const char *key) {
    struct api_query q;
    struct calc c;
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
    calc_release(&c);
    if (rc != ERR_OK) {
        response_error(resp, 500, "internal", "cannot write the response: %s", err_str(rc));
        return;
    }
    response_json(resp, 200);
}

void api_summary(struct request *req, struct response *resp) {
    struct api_query q;
    struct calc c;
    if (!api_query_parse(req, resp, &q, NULL))
        return;
    if (!api_calc_run(req, resp, &q, q.w.from, q.w.to, false, &c))
        return;
    enum err rc = report_summary_json(c.res, &resp->body);
    calc_release(&c);
    if (rc != ERR_OK || resp->body.len == 0 || resp->body.data[resp->body.len - 1] != '}') {
        response_error(resp, 500, "internal", "cannot write the summary");
        return;
    }
    /* add the window's reconciliation to the summary object */
    resp->body.len--;
    buf_puts(&resp->body, ",\"reconciliation\":");
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    api_reconcile_window(req, &w, q.w.from, q.w.to);
    buf_puts(&resp->body, "}\n");
    response_json(resp, w.rc == ERR_OK ? 200 : 500);
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
