#include "http/api_cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/app.h"
#include "base/jsonw.h"
#include "service/config.h"
#include "base/log.h"
#include "query/compose.h"
#include "query/report.h"
#include "http/api_fleet.h"
#include "http/api_uncertainty.h"
#include "store/store_read.h"

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
    /* a window that is over is computed as of its end: its figures then depend
     * only on the stored facts (and can be cached) */
    if (cq->now > to)
        cq->now = to;
    cq->configs = api_config_bits(q);
    cq->experiment = q->experiment;
    cq->ns = q->namespace_;
    cq->want_attempts = want_attempts;
}

const struct calc_settings *api_calc_settings(struct request *req, const struct api_query *q,
                                              struct calc_settings *local) {
    const struct calc_settings *cfg = req->app ? &req->app->calc : NULL;
    if (!q->clusters[0])
        return cfg;
    if (cfg)
        *local = *cfg;
    else
        memset(local, 0, sizeof *local);
    local->clusters = q->clusters;
    return local;
}

static bool failed(struct response *resp, enum err rc) {
    log_msg(LOG_ERROR, "api: cost computation failed: %s", err_str(rc));
    if (rc == ERR_BUSY || rc == ERR_DB)
        response_error(resp, 503, "database", "cannot read the data: %s", err_str(rc));
    else
        response_error(resp, 500, "internal", "the cost computation failed: %s", err_str(rc));
    return false;
}

/* Clears *out; false (resp 503) without a database. */
static bool db_ready(struct request *req, struct response *resp, struct calc *out) {
    memset(out, 0, sizeof *out);
    if (!api_db_open(req, resp))
        return false;
    return true;
}

bool api_calc_run(struct request *req, struct response *resp, const struct api_query *q,
                  int64_t load_from, int64_t load_to, bool want_attempts, struct calc *out) {
    if (!db_ready(req, resp, out))
        return false;
    struct cost_query cq;
    fill_query(req, q, q->w.from, q->w.to, want_attempts, &cq);
    struct calc_settings local;
    enum err rc =
        calc_run(req->db, api_calc_settings(req, q, &local), load_from, load_to, &cq, out);
    return rc == ERR_OK ? true : failed(resp, rc);
}

bool api_calc_window(struct request *req, struct response *resp, const struct api_query *q,
                     struct calc *out) {
    if (!db_ready(req, resp, out))
        return false;
    struct cost_query cq;
    fill_query(req, q, q->w.from, q->w.to, false, &cq);
    struct app *app = req->app;
    struct calc_settings local;
    const struct calc_settings *cfg = api_calc_settings(req, q, &local);
    struct compose_stats st;
    /* Composition is the default (off: --no-compose-days): the background pass
     * (service/daykeeper.h) keeps closed days; a window reads them and computes
     * only the days not kept yet, one load per run of them, and is computed
     * directly when none is kept (docs/performance.md "Kept off the request path"). */
    enum err rc = ERR_NOTFOUND;
    /* stored days are the fleet's: a cluster= window is always computed */
    if (app && app->cfg && app->cfg->compose_days && !q->clusters[0])
        rc = compose_stored(req->db, cfg, &cq, out, &st);
    if (rc == ERR_OK) {
        log_msg(
            LOG_DEBUG, "api: window composed: %lld days (%lld stored, %lld computed, %lld kept)",
            (long long)st.days, (long long)st.stored, (long long)st.computed, (long long)st.kept);
        return true;
    }
    if (rc == ERR_INVAL) /* a stored day that does not fit the rows: compute directly */
        log_msg(LOG_WARN, "api: cannot compose the window from its days; computing it directly");
    if (rc == ERR_NOTFOUND || rc == ERR_INVAL)
        rc = calc_run(req->db, cfg, q->w.from, q->w.to, &cq, out);
    return rc == ERR_OK ? true : failed(resp, rc);
}

bool api_cache_lookup(struct request *req, struct response *resp, const struct api_query *q,
                      const char *extra, struct api_cache_slot *slot) {
    return api_cache_lookup_span(req, resp, q, extra, q->w.from, q->w.to, slot);
}

bool api_cache_lookup_span(struct request *req, struct response *resp, const struct api_query *q,
                           const char *extra, int64_t vfrom, int64_t vto,
                           struct api_cache_slot *slot) {
    memset(slot, 0, sizeof *slot);
    slot->closed = req->app && req->db && q->w.to <= api_now(req);
    if (!slot->closed)
        return false;
    int kn = snprintf(slot->key, sizeof slot->key, "%s|%lld|%lld|%s|%s|%s|%s|%s", req->path,
                      (long long)q->w.from, (long long)q->w.to,
                      q->configuration ? q->configuration : "", q->experiment ? q->experiment : "",
                      q->namespace_ ? q->namespace_ : "", q->clusters, extra ? extra : "");
    if (kn < 0 || (size_t)kn >= sizeof slot->key) /* a cut key could name another query */
        return false;
    slot->have_version = store_window_version(req->db, vfrom, vto, slot->version) == ERR_OK;
    if (!slot->have_version)
        return false;
    if (!respcache_get(&req->app->responses, slot->key, slot->version, &resp->body))
        return false;
    response_header(resp, "X-Spotledger-Cache", "hit");
    response_json(resp, 200);
    return true;
}

void api_cache_store(struct request *req, struct response *resp,
                     const struct api_cache_slot *slot) {
    if (slot->closed && slot->have_version && resp->status == 200 && resp->fd < 0)
        respcache_put(&req->app->responses, slot->key, slot->version, resp->body.data,
                      resp->body.len);
}

bool api_basis_parse(struct request *req, struct response *resp, bool *completion) {
    const char *b = request_param(req, "basis");
    *completion = b && strcmp(b, "completion") == 0;
    if (b && !*completion && strcmp(b, "accrual") != 0) {
        response_error(resp, 400, "bad_parameter", "basis: expected accrual or completion");
        return false;
    }
    return true;
}

bool api_cache_lookup_basis(struct request *req, struct response *resp, const struct api_query *q,
                            bool completion, const char *extra, struct api_cache_slot *slot) {
    if (!completion)
        return api_cache_lookup(req, resp, q, extra, slot);
    char key[256];
    snprintf(key, sizeof key, "%s|basis=completion", extra ? extra : "");
    /* the completion basis reads up to COST_BASIS_MAX_WINDOWS windows of the
     * window's length on either side: its version covers them all */
    int64_t len = q->w.to - q->w.from, reach;
    if (__builtin_mul_overflow(len, (int64_t)COST_BASIS_MAX_WINDOWS, &reach))
        reach = INT64_MAX / 4;
    int64_t vfrom = q->w.from > reach ? q->w.from - reach : 0;
    int64_t vto = q->w.to < INT64_MAX / 2 - reach ? q->w.to + reach : INT64_MAX / 2;
    return api_cache_lookup_span(req, resp, q, key, vfrom, vto, slot);
}

bool api_calc_completion(struct request *req, struct response *resp, const struct api_query *q,
                         struct calc *out, struct cost_completion *comp) {
    if (!db_ready(req, resp, out))
        return false;
    struct cost_query cq;
    fill_query(req, q, q->w.from, q->w.to, false, &cq);
    struct calc_settings local;
    enum err rc = calc_completion(req->db, api_calc_settings(req, q, &local), q->w.from, q->w.to,
                                  &cq, out, comp);
    if (rc == ERR_TOOBIG) {
        response_error(resp, 400, "bad_parameter",
                       "basis: the tasks completed in this window ran over more than %d windows "
                       "of its length; ask for a longer window",
                       COST_BASIS_MAX_WINDOWS);
        return false;
    }
    return rc == ERR_OK ? true : failed(resp, rc);
}

typedef enum err (*report_fn)(const struct cost_result *r, struct buf *out);

/* A route whose body is one report_* value (wrapped in an object when key). */
static void report_route(struct request *req, struct response *resp, report_fn fn,
                         const char *key) {
    struct api_query q;
    struct calc c;
    struct api_cache_slot slot;
    if (!api_query_parse(req, resp, &q, NULL))
        return;
    if (api_cache_lookup(req, resp, &q, NULL, &slot))
        return;
    if (!api_calc_window(req, resp, &q, &c))
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
    api_cache_store(req, resp, &slot);
}

void api_summary(struct request *req, struct response *resp) {
    struct api_query q;
    struct calc c;
    struct api_cache_slot slot;
    static const char *const params[] = {"uncertainty", "resamples", "basis", "aggregate", NULL};
    struct api_unc unc;
    struct cost_completion comp;
    bool completion;
    if (!api_query_parse(req, resp, &q, params))
        return;
    bool by_cluster;
    if (!api_aggregate_parse(req, resp, &by_cluster))
        return;
    if (by_cluster) { /* each cluster's summary, as cluster=NAME answers it (docs/fleet.md) */
        api_route_by_cluster(req, resp, &q, api_summary, "summary");
        return;
    }
    if (!api_unc_parse(req, resp, &unc))
        return;
    if (!api_basis_parse(req, resp, &completion) ||
        api_cache_lookup_basis(req, resp, &q, completion, unc.key, &slot) ||
        !api_unc_compute(req, resp, &q, completion, &unc) ||
        (completion ? !api_calc_completion(req, resp, &q, &c, &comp)
                    : !api_calc_window(req, resp, &q, &c))) {
        api_unc_release(&unc);
        return;
    }
    enum err rc = report_summary_basis_json(c.res, completion ? &comp : NULL, &resp->body);
    calc_release(&c);
    if (rc != ERR_OK || resp->body.len == 0 || resp->body.data[resp->body.len - 1] != '}') {
        api_unc_release(&unc);
        response_error(resp, 500, "internal", "cannot write the summary");
        return;
    }
    if (unc.on) { /* the uncertainty object joins the summary object */
        resp->body.len--;
        buf_puts(&resp->body, ",\"uncertainty\":");
        buf_append(&resp->body, unc.body.data, unc.body.len);
        buf_putc(&resp->body, '}');
    }
    api_unc_release(&unc);
    /* add the window's reconciliation to the summary object */
    resp->body.len--;
    buf_puts(&resp->body, ",\"reconciliation\":");
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    api_reconcile_window(req, &w, q.w.from, q.w.to, q.clusters);
    buf_puts(&resp->body, "}\n");
    response_json(resp, w.rc == ERR_OK ? 200 : 500);
    api_cache_store(req, resp, &slot);
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
