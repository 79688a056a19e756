/* GET /api/v1/timeseries and /api/v1/node_counts: figures per time bucket. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/api.h"
#include "http/api_cost.h"
#include "http/api_fleet.h"
#include "base/jsonw.h"
#include "query/report.h"
#include "base/timeutil.h"

#define SERIES_MAX_BUCKETS 400
#define COUNTS_MAX_POINTS 2000

enum metric { M_COST_PER_TASK, M_COST, M_TASKS, M_RETRIES, M_RESTORE };

/* Start of the bucket holding t: days at UTC midnight, weeks on ISO Mondays. */
static int64_t bucket_start(int64_t t, int64_t step) {
    if (step == 7 * 86400) /* 1970-01-05 was a Monday */
        return timeutil_floor(t - 4 * 86400, step) + 4 * 86400;
    return timeutil_floor(t, step);
}

static void point(struct jsonw *w, int64_t t, int64_t v, bool money) {
    jsonw_obj(w);
    jsonw_ktime(w, "t", t);
    jsonw_key(w, "value");
    if (v == COST_NULL)
        jsonw_null(w);
    else if (money)
        jsonw_money(w, v);
    else
        jsonw_int(w, v);
    jsonw_obj_end(w);
}

static int64_t config_value(const struct cost_config_result *c, enum metric m) {
    switch (m) {
    case M_COST_PER_TASK:
        return c->cost_per_successful_task;
    case M_COST:
        return c->cost;
    case M_TASKS:
        return c->tasks_succeeded;
    case M_RETRIES:
        return c->retries;
    case M_RESTORE:
        return c->restore.total;
    }
    return COST_NULL;
}

/* The same on the completion basis: the money and the successes of the tasks
 * that succeeded in the bucket; retries and restore seconds are events of the
 * bucket, the same on both bases (as the summary's counts). */
static int64_t basis_value(const struct cost_config_result *c, const struct cost_basis_config *bc,
                           enum metric m) {
    switch (m) {
    case M_COST_PER_TASK:
        return bc->cost_per_successful_task;
    case M_COST:
        return bc->cost;
    case M_TASKS:
        return bc->tasks_succeeded;
    default:
        return config_value(c, m);
    }
}

static int64_t cf_value(const struct cost_counterfactual *c, enum metric m) {
    return m == M_COST_PER_TASK ? c->cost_per_successful_task
           : m == M_COST        ? c->cost
                                : c->tasks_priced;
}

void api_timeseries(struct request *req, struct response *resp) {
    static const char *const extra[] = {"step", "metric", "basis", "aggregate", NULL};
    static const char *const metrics[] = {"cost_per_task", "cost", "tasks", "retries",
                                          "restore_seconds"};
    struct api_query q;
    bool by_cluster;
    if (!api_query_parse(req, resp, &q, extra) || !api_aggregate_parse(req, resp, &by_cluster))
        return;
    if (by_cluster) { /* docs/fleet.md */
        api_route_by_cluster(req, resp, &q, api_timeseries, "timeseries");
        return;
    }
    const char *st = request_param(req, "step");
    int64_t step = 7 * 86400;
    if (st && !strcmp(st, "1d"))
        step = 86400;
    else if (st && strcmp(st, "1w")) {
        response_error(resp, 400, "bad_parameter", "step: expected 1d or 1w");
        return;
    }
    const char *ms = request_param(req, "metric");
    enum metric m = M_COST_PER_TASK;
    if (ms) {
        int found = -1;
        for (int i = 0; i < 5; i++)
            if (!strcmp(ms, metrics[i]))
                found = i;
        if (found < 0) {
            response_error(
                resp, 400, "bad_parameter",
                "metric: expected cost_per_task, cost, tasks, retries or restore_seconds");
            return;
        }
        m = (enum metric)found;
    }
    int64_t first = bucket_start(q.w.from, step);
    int64_t nb = (q.w.to - first + step - 1) / step;
    if (nb > SERIES_MAX_BUCKETS) {
        response_error(resp, 400, "bad_parameter",
                       "step: %lld buckets is more than %d; use a wider step or a shorter window",
                       (long long)nb, SERIES_MAX_BUCKETS);
        return;
    }
    bool completion;
    if (!api_basis_parse(req, resp, &completion))
        return;
    char keyx[48];
    snprintf(keyx, sizeof keyx, "%lld|%d", (long long)step, (int)m);
    struct api_cache_slot slot;
    if (api_cache_lookup_basis(req, resp, &q, completion, keyx, &slot))
        return;
    bool money = m == M_COST_PER_TASK || m == M_COST;
    bool with_cf = m == M_COST_PER_TASK || m == M_COST || m == M_TASKS;
    int64_t(*vals)[COST_NCONFIG + 1] = calloc((size_t)nb, sizeof *vals);
    if (!vals) {
        response_error(resp, 503, "unavailable", "out of memory");
        return;
    }
    for (int64_t b = 0; b < nb; b++) {
        int64_t a = first + b * step, z = a + step;
        if (a < q.w.from)
            a = q.w.from;
        if (z > q.w.to)
            z = q.w.to;
        struct api_query bq = q;
        bq.w.from = a;
        bq.w.to = z;
        struct calc c;
        struct cost_completion comp;
        /* each bucket is a window of its own: on the completion basis its grid
         * is of the bucket's length (docs/cost-model.md "Cost bases") */
        if (completion ? !api_calc_completion(req, resp, &bq, &c, &comp)
                       : !api_calc_window(req, resp, &bq, &c)) {
            free(vals);
            return;
        }
        for (int k = 0; k < COST_NCONFIG; k++)
            vals[b][k] = completion ? basis_value(&c.res->configs[k], &comp.configs[k], m)
                                    : config_value(&c.res->configs[k], m);
        vals[b][COST_NCONFIG] = cf_value(&c.res->counterfactual, m);
        calc_release(&c);
    }
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    jsonw_obj(&w);
    api_write_window(&w, &q.w);
    jsonw_kstr(&w, "step", step == 86400 ? "1d" : "1w");
    jsonw_kstr(&w, "metric", metrics[m]);
    jsonw_kstr(&w, "unit", money ? "usd" : m == M_RESTORE ? "seconds" : "count");
    jsonw_kstr(&w, "cost_basis", completion ? "completion" : "accrual");
    jsonw_key(&w, "series");
    jsonw_arr(&w);
    unsigned bits = api_config_bits(&q);
    for (int k = 0; k <= COST_NCONFIG; k++) {
        if (k < COST_NCONFIG && bits && !(bits & (1u << k)))
            continue;
        if (k == COST_NCONFIG && !with_cf)
            continue;
        jsonw_obj(&w);
        jsonw_kstr(&w, "configuration",
                   k < COST_NCONFIG ? cost_config_name((enum cost_config)k) : "on-demand");
        jsonw_kstr(&w, "basis", k < COST_NCONFIG ? "measured" : "counterfactual");
        jsonw_key(&w, "points");
        jsonw_arr(&w);
        for (int64_t b = 0; b < nb; b++)
            point(&w, first + b * step, vals[b][k], money);
        jsonw_arr_end(&w);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    buf_putc(&resp->body, '\n');
    free(vals);
    response_json(resp, w.rc == ERR_OK ? 200 : 500);
    api_cache_store(req, resp, &slot);
}

static bool parse_step(const char *s, int64_t *out) {
    static const struct {
        const char *name;
        int64_t secs;
    } steps[] = {{"1m", 60}, {"5m", 300}, {"15m", 900}, {"1h", 3600}, {"6h", 21600}, {"1d", 86400}};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (!strcmp(s, steps[i].name)) {
            *out = steps[i].secs;
            return true;
        }
    return false;
}

void api_node_counts(struct request *req, struct response *resp) {
    static const char *const extra[] = {"step", NULL};
    struct api_query q;
    if (!api_query_parse(req, resp, &q, extra))
        return;
    int64_t step = 3600;
    const char *st = request_param(req, "step");
    if (st && !parse_step(st, &step)) {
        response_error(resp, 400, "bad_parameter", "step: expected 1m, 5m, 15m, 1h, 6h or 1d");
        return;
    }
    int64_t first = timeutil_floor(q.w.from, step);
    int64_t np = (q.w.to - first + step - 1) / step;
    if (np > COUNTS_MAX_POINTS) {
        response_error(resp, 400, "bad_parameter", "step: more than %d points; use a wider step",
                       COUNTS_MAX_POINTS);
        return;
    }
    struct calc c;
    if (!api_calc_run(req, resp, &q, q.w.from, q.w.to, false, &c))
        return;
    const struct cost_input *in = &c.data->in;
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    jsonw_obj(&w);
    api_write_window(&w, &q.w);
    jsonw_key(&w, "pools");
    jsonw_arr(&w);
    for (size_t p = 0; p < in->n_pools; p++) {
        jsonw_obj(&w);
        jsonw_kstr(&w, "id", in->pools[p].id);
        jsonw_kstr(&w, "name", in->pools[p].name);
        jsonw_kstr(&w, "capacity_type", cost_capacity_name(in->pools[p].capacity));
        jsonw_key(&w, "points");
        jsonw_arr(&w);
        for (int64_t i = 0; i < np; i++) {
            int64_t t = first + i * step, count = 0;
            for (size_t n = 0; n < in->n_nodes; n++) {
                const struct cost_node *node = &in->nodes[n];
                if (node->pool != (int32_t)p)
                    continue;
                int64_t s = cost_node_start(node), e = cost_node_end(node);
                if (s && s <= t && (!e || t < e))
                    count++;
            }
            jsonw_obj(&w);
            jsonw_ktime(&w, "t", t);
            jsonw_kint(&w, "nodes", count);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_key(&w, "reclaims");
    report_reclaims_json(c.res, &resp->body); /* appends a JSON array */
    w.after_key = false;
    w.first[w.depth] = false;
    jsonw_obj_end(&w);
    buf_putc(&resp->body, '\n');
    calc_release(&c);
    response_json(resp, w.rc == ERR_OK ? 200 : 500);
}
