/* api_advice — GET /api/v1/advice (api_advice.h).
 *
 * Query: window= / from= / to= (default: the last 7 days) set the window the
 * rows and cost figures come from; namespace= and configuration= narrow the Job
 * findings (pool and cluster findings always show); experiment= narrows the
 * cost figures only; cluster= narrows everything read (docs/fleet.md). On a
 * fleet (a database holding more than one cluster) the advisor runs once per
 * cluster read and the findings are merged, each naming its "cluster": the
 * cluster-wide rules (a system pool, a fallback pool) judge each cluster's own
 * pools, and each fix names its own cluster for doctl. */
#include "http/api_advice.h"

#include <stdlib.h>
#include <string.h>

#include "http/api_cost.h"
#include "query/calc.h"
#include "service/app.h"
#include "service/config.h"
#include "base/log.h"
#include "store/store_advice.h"
#include "http/api_fleet.h"
#include "base/xalloc.h"

static const struct advice_label default_spot_labels[] = {
    {"doks.digitalocean.com/capacity-type", "spot"},
    {"gpu-pool-type", "spot"},
};

/* Jobs outside the namespace / configuration filters are dropped (in place). */
static void filter_jobs(struct store_advice_data *d, const struct api_query *q) {
    enum cost_config want = COST_FALLBACK;
    bool by_config = q->configuration && cost_config_parse(q->configuration, &want) == ERR_OK;
    size_t n = 0;
    for (size_t i = 0; i < d->in.n_jobs; i++) {
        const struct advice_job *j = &d->jobs[i];
        if (q->namespace_ && (!j->ns || strcmp(j->ns, q->namespace_) != 0))
            continue;
        if (by_config && j->config != want)
            continue;
        d->jobs[n++] = *j;
    }
    d->in.n_jobs = n;
}

/* Runs the advisor for q's window. On failure fills resp and returns false. */
static bool advise(struct request *req, struct response *resp, const struct api_query *q,
                   struct advice_result **out) {
    if (!api_db_open(req, resp))
        return false;
    const struct config *cfg = req->app ? req->app->cfg : NULL;
    enum cost_config dflt = calc_default_config(req->app ? &req->app->calc : NULL);
    struct store_advice_data *d = NULL;
    enum err rc = store_advice_load(req->db, q->w.from, q->w.to, dflt, cfg ? cfg->cluster_id : NULL,
                                    q->clusters, &d);
    if (rc != ERR_OK) {
        response_error(resp, rc == ERR_BUSY ? 503 : 500, "database", "cannot read the data: %s",
                       err_str(rc));
        return false;
    }
    if (d->jobs_truncated)
        log_msg(LOG_WARN, "api: advice looked at the %d most recently seen jobs only",
                STORE_ADVICE_MAX_JOBS);
    filter_jobs(d, q);
    struct calc calc;
    if (!api_calc_run(req, resp, q, q->w.from, q->w.to, false, &calc)) {
        store_advice_free(d);
        return false;
    }
    struct advice_input *in = &d->in;
    for (int c = 0; c < COST_NCONFIG; c++) {
        const struct cost_config_result *r = &calc.res->configs[c];
        in->costs[c].known = true;
        in->costs[c].interruptions = r->interruptions;
        in->costs[c].wasted_cost = r->wasted_cost;
        in->costs[c].measured_overhead_bp = r->measured_overhead_bp;
        in->costs[c].break_even_overhead_bp = r->break_even_overhead_bp;
    }
    in->checkpoint = calc.res->advice;
    in->n_checkpoint = calc.res->n_advice;
    in->poll_interval = cfg && cfg->poll_interval > 0 ? cfg->poll_interval : 60;
    struct advice_label *labels = NULL;
    if (cfg && cfg->n_spot_labels > 0) {
        labels = xcalloc((size_t)cfg->n_spot_labels, sizeof *labels);
        for (int i = 0; i < cfg->n_spot_labels; i++) {
            labels[i].key = cfg->spot_labels[i].key;
            labels[i].value = cfg->spot_labels[i].value;
        }
    }
    if (labels) {
        in->spot_labels = labels;
        in->n_spot_labels = (size_t)cfg->n_spot_labels;
    } else {
        in->spot_labels = default_spot_labels;
        in->n_spot_labels = sizeof default_spot_labels / sizeof default_spot_labels[0];
    }
    if (cfg) {
        in->ignore = (const char *const *)cfg->ignore_advice;
        in->n_ignore = (size_t)cfg->n_ignore_advice;
    }
    /* set by the Deployment through the downward API; nothing else writes the
     * environment after start-up, so getenv is safe on any thread */
    in->self_node = getenv("NODE_NAME");
    in->self_pod = getenv("POD_NAME");
    rc = advice_run(in, out);
    free(labels);
    calc_release(&calc);
    store_advice_free(d);
    if (rc != ERR_OK) {
        log_msg(LOG_ERROR, "api: advice failed: %s", err_str(rc));
        response_error(resp, 500, "internal", "the advisor failed: %s", err_str(rc));
        return false;
    }
    return true;
}

/* advise, per cluster on a fleet (the file's comment): the clusters the
 * database holds, narrowed by q's cluster=; with more than one in the
 * database, each finding names its cluster. */
static bool advise_fleet(struct request *req, struct response *resp, const struct api_query *q,
                         struct advice_result **out) {
    size_t n_all = 0, n = 0;
    char(*all)[STORE_CLUSTER_NAME_MAX] = api_fleet_names(req, resp, NULL, &n_all);
    if (!all)
        return false;
    n = n_all;
    if (n_all > 1 && q->clusters[0]) {
        free(all);
        if (!(all = api_fleet_names(req, resp, q->clusters, &n)))
            return false;
    }
    if (n_all <= 1 || n == 0) { /* one cluster, or none of those asked: as asked */
        free(all);
        return advise(req, resp, q, out);
    }
    struct advice_result *res = xcalloc(1, sizeof *res);
    for (size_t i = 0; i < n; i++) {
        struct api_query one = *q;
        snprintf(one.clusters, sizeof one.clusters, ",%s,", all[i]);
        struct advice_result *r = NULL;
        if (!advise(req, resp, &one, &r)) {
            advice_result_free(res);
            free(all);
            return false;
        }
        advice_result_merge(res, r, all[i]);
        advice_result_free(r);
    }
    free(all);
    *out = res;
    return true;
}

void api_advice(struct request *req, struct response *resp) {
    struct api_query q;
    struct advice_result *res = NULL;
    if (!api_query_parse(req, resp, &q, NULL) || !advise_fleet(req, resp, &q, &res))
        return;
    enum err rc = advice_json(res, &resp->body);
    if (rc == ERR_OK)
        rc = buf_putc(&resp->body, '\n');
    advice_result_free(res);
    if (rc != ERR_OK) {
        response_error(resp, 500, "internal", "cannot write the response: %s", err_str(rc));
        return;
    }
    response_json(resp, 200);
}

enum err api_advice_counts(struct request *req, int64_t *counts) {
    struct api_query q;
    memset(&q, 0, sizeof q);
    q.w.to = api_now(req);
    q.w.from = q.w.to - 7 * 86400;
    struct response scratch;
    response_init(&scratch);
    struct advice_result *res = NULL;
    bool ok = advise_fleet(req, &scratch, &q, &res);
    enum err rc = ok ? ERR_OK : scratch.status == 503 ? ERR_BUSY : ERR_DB;
    response_release(&scratch);
    if (!ok)
        return rc;
    for (int s = 0; s < ADVICE_NSEVERITY; s++)
        counts[s] = res->counts[s];
    advice_result_free(res);
    return ERR_OK;
}
