/* GET /api/v1/experiments: the experiment labels, and on request each
 * experiment's figures per configuration, on either cost basis, with their 95 %
 * intervals (api.h, README "REST API", docs/uncertainty.md).
 *
 * Without parameters: {"experiments":[names]} (every label ever seen, sorted).
 * cluster= narrows the names to those of the clusters' tasks (docs/fleet.md);
 * alone it asks for the names only (the dashboard's experiment picker).
 * With any other window, filter, basis= or uncertainty= parameter, beside it:
 *   "window":{...}, "cost_basis":"accrual"|"completion",
 *   "by_experiment":[{"experiment":S, "configurations":[{"configuration":S,
 *       "tasks_succeeded":N, "tasks_failed":N, "cost":$,
 *       "cost_per_successful_task":$|null, "savings_vs_on_demand_percent":P|null,
 *       "partial":B}, ...],          selected configurations, spot, fallback, on-demand
 *     "uncertainty":UNC|null}],     only with uncertainty=true (query/uncertainty.h)
 *   "truncated":B,                  more than API_EXP_MAX experiments in the window
 *   "uncertainty_reason":S|null     why the intervals are null
 * The experiments of by_experiment: those with a task in the window (or the one
 * asked for with experiment=), sorted by name. The window is loaded once; each
 * experiment is a recomputation of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/xalloc.h"
#include "http/api.h"
#include "http/api_cost.h"
#include "http/api_fleet.h"
#include "http/api_uncertainty.h"
#include "query/calc.h"
#include "query/uncertainty.h"
#include "service/app.h"
#include "store/store_read.h"

#define API_EXP_NAMES_MAX 1000
/* experiments with figures in one answer */
#define API_EXP_MAX 50
/* experiments x resamples drawn in one answer (each resample draws every task of
 * an experiment's window once per configuration): 50 experiments at the default
 * 2,000, or 1,000 at the minimum of 100 */
#define API_EXP_MAX_DRAWS 100000

static int cmp_name(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct experiments of the loaded tasks, sorted (borrowed strings). */
static size_t distinct_experiments(const struct cost_input *in, const char **out, size_t max,
                                   bool *truncated) {
    const char **all = xcalloc(in->n_tasks + 1, sizeof *all);
    size_t n = 0, k = 0;
    for (size_t i = 0; i < in->n_tasks; i++)
        if (in->tasks[i].experiment)
            all[n++] = in->tasks[i].experiment;
    if (n > 1)
        qsort(all, n, sizeof *all, cmp_name);
    for (size_t i = 0; i < n; i++) {
        if (k && !strcmp(out[k - 1], all[i]))
            continue;
        if (k == max) {
            *truncated = true;
            break;
        }
        out[k++] = all[i];
    }
    free(all);
    return k;
}

static void write_config(struct jsonw *w, const struct cost_config_result *c,
                         const struct cost_basis_config *bc) {
    jsonw_obj(w);
    jsonw_kstr(w, "configuration", cost_config_name(c->config));
    jsonw_kint(w, "tasks_succeeded", bc ? bc->tasks_succeeded : c->tasks_succeeded);
    jsonw_kint(w, "tasks_failed", c->tasks_failed);
    jsonw_kmoney(w, "cost", bc ? bc->cost : c->cost);
    int64_t per = bc ? bc->cost_per_successful_task : c->cost_per_successful_task;
    jsonw_key(w, "cost_per_successful_task");
    if (per == COST_NULL)
        jsonw_null(w);
    else
        jsonw_money(w, per);
    int64_t sav = bc ? bc->savings_vs_on_demand_bp : c->savings_vs_on_demand_bp;
    jsonw_key(w, "savings_vs_on_demand_percent");
    if (sav == COST_NULL)
        jsonw_null(w);
    else
        jsonw_fixed(w, sav, 2);
    jsonw_kbool(w, "partial", c->partial);
    jsonw_obj_end(w);
}

/* One experiment's entry: its recomputation of the loaded window. */
static enum err write_experiment(struct jsonw *w, struct calc *c, struct cost_query *cq,
                                 bool completion, const struct api_unc *u, bool unc_ok) {
    struct cost_completion comp;
    enum err rc = completion ? calc_completion_loaded(c, cq, &comp) : calc_recompute(c, cq);
    if (rc != ERR_OK)
        return rc;
    jsonw_obj(w);
    jsonw_kstr(w, "experiment", cq->experiment);
    jsonw_key(w, "configurations");
    jsonw_arr(w);
    for (int k = 0; k < COST_NCONFIG; k++)
        if (c->res->configs[k].selected)
            write_config(w, &c->res->configs[k], completion ? &comp.configs[k] : NULL);
    jsonw_arr_end(w);
    if (u->on) {
        jsonw_key(w, "uncertainty");
        if (unc_ok) {
            struct boot_params p = {.resamples = u->resamples};
            struct unc_result r;
            rc = unc_compute(&c->data->in, cq, c->res, &p, &r);
            if (rc != ERR_OK)
                return rc;
            unc_write_json(&r, w);
        } else {
            jsonw_null(w);
        }
    }
    jsonw_obj_end(w);
    return ERR_OK;
}

/* The figures' keys into w (the answer's object). On failure fills resp (which
 * resets the body) and returns false. */
static bool experiment_figures(struct request *req, struct response *resp, struct jsonw *w,
                               const struct api_query *q, const struct api_unc *u,
                               bool completion) {
    /* every experiment is a recomputation of one load of the window, unfiltered
     * by experiment: on the completion basis that load covers every
     * experiment's span (calc_completion_loaded) */
    struct api_query any = *q;
    any.experiment = NULL;
    bool unc_on = u->on && !completion && q->w.to - q->w.from <= (int64_t)API_UNC_MAX_DAYS * 86400;
    struct calc c;
    struct cost_completion comp;
    if (completion ? !api_calc_completion(req, resp, &any, &c, &comp)
                   : !api_calc_run(req, resp, &any, q->w.from, q->w.to, unc_on, &c))
        return false;
    const char **names = xcalloc(API_EXP_MAX + 1, sizeof *names);
    bool truncated = false;
    size_t n = 1;
    if (q->experiment)
        names[0] = q->experiment;
    else
        n = distinct_experiments(&c.data->in, names, API_EXP_MAX, &truncated);
    char why[200] = "";
    if (u->on && completion) {
        snprintf(why, sizeof why, "%s", UNC_REASON_COMPLETION);
    } else if (u->on && !unc_on) {
        snprintf(why, sizeof why, UNC_REASON_LONG_FMT, API_UNC_MAX_DAYS);
    } else if (u->on && (int64_t)n * u->resamples > API_EXP_MAX_DRAWS) {
        snprintf(why, sizeof why,
                 "%zu experiments x %d resamples is over %d: ask for one experiment "
                 "(experiment=NAME) or fewer resamples",
                 n, u->resamples, API_EXP_MAX_DRAWS);
        unc_on = false;
    }
    api_write_window(w, &q->w);
    jsonw_kstr(w, "cost_basis", completion ? "completion" : "accrual");
    jsonw_key(w, "by_experiment");
    jsonw_arr(w);
    struct cost_query cq;
    memset(&cq, 0, sizeof cq);
    cq.from = q->w.from;
    cq.to = q->w.to;
    cq.now = api_now(req);
    if (cq.now > cq.to) /* as the summary: a window that is over, as of its end */
        cq.now = cq.to;
    cq.configs = api_config_bits(q);
    cq.ns = q->namespace_;
    cq.want_attempts = unc_on;
    enum err rc = ERR_OK;
    for (size_t i = 0; i < n && rc == ERR_OK; i++) {
        cq.experiment = names[i];
        rc = write_experiment(w, &c, &cq, completion, u, unc_on);
    }
    jsonw_arr_end(w);
    jsonw_kbool(w, "truncated", truncated);
    jsonw_kstr(w, "uncertainty_reason", why[0] ? why : NULL);
    free(names);
    calc_release(&c);
    if (rc == ERR_TOOBIG)
        response_error(resp, 400, "bad_parameter",
                       "basis: an experiment's tasks ran over more than %d windows of this "
                       "window's length; ask for a longer window",
                       COST_BASIS_MAX_WINDOWS);
    else if (rc != ERR_OK)
        response_error(resp, 500, "internal", "cannot compute the experiments: %s", err_str(rc));
    return rc == ERR_OK;
}

/* {"experiments":[every label of the clusters ",a,b," ("": all)]} into out,
 * open (no closing brace). */
static enum err write_names(struct request *req, const char *clusters, struct buf *out) {
    char(*all)[256] = xcalloc(API_EXP_NAMES_MAX, sizeof *all);
    size_t n = 0;
    enum err rc = store_experiments(req->db, clusters, all, API_EXP_NAMES_MAX, &n);
    struct jsonw w;
    jsonw_init(&w, out);
    jsonw_obj(&w);
    jsonw_key(&w, "experiments");
    jsonw_arr(&w);
    for (size_t i = 0; rc == ERR_OK && i < n; i++)
        jsonw_str(&w, all[i]);
    jsonw_arr_end(&w);
    free(all);
    return rc != ERR_OK ? rc : w.rc;
}

/* The figures as an object of their own into resp->body (what the response
 * cache keeps: the labels are read afresh, they are not the window's). */
static bool figures_object(struct request *req, struct response *resp, const struct api_query *q,
                           const struct api_unc *u, bool completion) {
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    jsonw_obj(&w);
    if (!experiment_figures(req, resp, &w, q, u, completion))
        return false;
    jsonw_obj_end(&w);
    return api_json_done(resp, w.rc);
}

/* The labels, and with any parameter the figures (the top of this file). */
void api_experiments(struct request *req, struct response *resp) {
    static const char *const params[] = {"basis", "uncertainty", "resamples", "aggregate", NULL};
    struct api_query q;
    struct api_unc u;
    bool names_only = req->nparams == 1 && !strcmp(req->params[0].key, "cluster");
    bool completion = false, by_cluster = false, figures = req->nparams > 0 && !names_only;
    char clusters[API_CLUSTERS_MAX] = "";
    memset(&u, 0, sizeof u);
    buf_init(&u.body, 0);
    if (names_only && !api_clusters_parse(req, resp, clusters, sizeof clusters))
        goto out;
    if (figures &&
        (!api_query_parse(req, resp, &q, params) || !api_aggregate_parse(req, resp, &by_cluster) ||
         !api_unc_parse(req, resp, &u) || !api_basis_parse(req, resp, &completion)))
        goto out;
    if (by_cluster) { /* docs/fleet.md */
        api_route_by_cluster(req, resp, &q, api_experiments, "experiments");
        goto out;
    }
    if (!api_db_open(req, resp))
        goto out;
    if (figures) {
        char key[64];
        struct api_cache_slot slot;
        snprintf(key, sizeof key, "exp|%s", u.key);
        if (!api_cache_lookup_basis(req, resp, &q, completion, key, &slot)) {
            if (!figures_object(req, resp, &q, &u, completion))
                goto out;
            api_cache_store(req, resp, &slot);
        }
    }
    /* the labels, then the figures' keys (the cached object without its '{') */
    struct buf body;
    buf_init(&body, resp->body.max);
    enum err rc = write_names(req, figures ? q.clusters : clusters, &body);
    if (rc == ERR_OK && figures && resp->body.len > 2) {
        buf_putc(&body, ',');
        buf_append(&body, resp->body.data + 1, resp->body.len - 1);
    } else if (rc == ERR_OK) {
        buf_puts(&body, "}");
    }
    buf_putc(&body, '\n');
    if (rc != ERR_OK) {
        buf_release(&body);
        response_error(resp, 500, "database", "cannot read experiments: %s", err_str(rc));
        goto out;
    }
    buf_release(&resp->body);
    resp->body = body;
    response_json(resp, 200);
out:
    api_unc_release(&u);
}
