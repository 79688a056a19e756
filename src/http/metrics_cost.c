#include "http/metrics_cost.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/api.h"
#include "service/app.h"
#include "query/calc.h"
#include "query/uncertainty.h"
#include "base/log.h"
#include "base/promw.h"
#include "base/request.h"
#include "store/store_export.h"
#include "store/store_read.h"
#include "base/timeutil.h"
#include "base/xalloc.h"

#define WEEK (7 * 86400)
/* a week is final one day after it ends (late polls, deletions) */
#define SETTLE 86400

static const int64_t restore_le[METRICS_RESTORE_BUCKETS - 1] = {60,   300,  900,  1800,
                                                                3600, 7200, 14400};

static int64_t week_start(int64_t t) {
    int y, w;
    int64_t s = 0;
    timeutil_iso_week(t, &y, &w);
    timeutil_iso_week_start(y, w, &s);
    return s;
}

/* The clusters the cost series are labelled with (docs/fleet.md): those the
 * service watches and those the database holds rows of, sorted, at most
 * METRICS_MAX_CLUSTERS (a bounded label). */
#define METRICS_MAX_CLUSTERS 64
struct mclusters {
    char (*name)[STORE_CLUSTER_NAME_MAX];
    size_t n;
};

static int cmp_cluster(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

static enum err list_clusters(struct request *req, struct mclusters *cl) {
    cl->name = xcalloc(METRICS_MAX_CLUSTERS, sizeof *cl->name);
    enum err rc = store_cluster_names(req->db, NULL, cl->name, METRICS_MAX_CLUSTERS, &cl->n);
    if (rc != ERR_OK)
        cl->n = 0;
    for (int i = 0; req->app && i < req->app->n_clusters; i++) {
        const char *nm = req->app->clusters[i].name;
        bool have = false;
        for (size_t j = 0; j < cl->n && !have; j++)
            have = !strcmp(cl->name[j], nm);
        if (!have && cl->n < METRICS_MAX_CLUSTERS && strlen(nm) < STORE_CLUSTER_NAME_MAX)
            snprintf(cl->name[cl->n++], STORE_CLUSTER_NAME_MAX, "%s", nm);
    }
    if (cl->n > 1)
        qsort(cl->name, cl->n, sizeof *cl->name, cmp_cluster);
    return rc;
}

/* calc_run of [from, to) reading one cluster only (sel: ",NAME,"). */
static enum err calc_cluster(struct request *req, const char *sel, struct cost_query *q,
                             struct calc *c) {
    struct calc_settings cs;
    if (req->app)
        cs = req->app->calc;
    else
        memset(&cs, 0, sizeof cs);
    cs.clusters = sel;
    return calc_run(req->db, &cs, q->from, q->to, q, c);
}

/* The counters of one week of one cluster, from the rows. */
static enum err compute_week(struct request *req, const char *cluster, int64_t start, int64_t now,
                             struct metrics_week *out) {
    struct calc c;
    struct cost_query q;
    memset(&q, 0, sizeof q);
    q.from = start;
    q.to = start + WEEK;
    q.now = now;
    q.want_attempts = true;
    char sel[METRICS_CLUSTER_MAX + 2];
    snprintf(sel, sizeof sel, ",%s,", cluster);
    enum err rc = calc_cluster(req, sel, &q, &c);
    if (rc != ERR_OK)
        return rc;
    memset(out, 0, sizeof *out);
    snprintf(out->cluster, sizeof out->cluster, "%s", cluster);
    out->start = start;
    for (int k = 0; k < COST_NCONFIG; k++) {
        const struct cost_config_result *cr = &c.res->configs[k];
        out->succeeded[k] = cr->tasks_succeeded;
        out->failed[k] = cr->tasks_failed;
        out->attempts[k] = cr->attempts;
        out->retries[k] = cr->retries;
        out->interruptions[k] = cr->interruptions;
    }
    /* restore samples: the engine's rule, a sample lands where the resuming
     * attempt's first container started */
    const struct cost_input *in = &c.data->in;
    for (size_t i = 0; i < in->n_attempts; i++) {
        const struct cost_attempt_result *ar = &c.res->attempts[i];
        const struct cost_attempt *a = &in->attempts[i];
        if (ar->restore_seconds == COST_NULL || a->started_at < q.from || a->started_at >= q.to)
            continue;
        int k = in->tasks[a->task].config;
        int b = 0;
        while (b < METRICS_RESTORE_BUCKETS - 1 && ar->restore_seconds > restore_le[b])
            b++;
        out->restore_bucket[k][b]++;
        out->restore_count[k]++;
        out->restore_sum[k] += ar->restore_seconds;
    }
    calc_release(&c);
    return ERR_OK;
}

static const struct metrics_week *cached(struct metrics_cache *mc, const char *cluster,
                                         int64_t start) {
    for (size_t i = 0; i < mc->n_weeks; i++)
        if (mc->weeks[i].start == start && !strcmp(mc->weeks[i].cluster, cluster))
            return &mc->weeks[i];
    return NULL;
}

static void add_week(struct metrics_week *acc, const struct metrics_week *w) {
    for (int k = 0; k < COST_NCONFIG; k++) {
        acc->succeeded[k] += w->succeeded[k];
        acc->failed[k] += w->failed[k];
        acc->attempts[k] += w->attempts[k];
        acc->retries[k] += w->retries[k];
        acc->interruptions[k] += w->interruptions[k];
        acc->restore_count[k] += w->restore_count[k];
        acc->restore_sum[k] += w->restore_sum[k];
        for (int b = 0; b < METRICS_RESTORE_BUCKETS; b++)
            acc->restore_bucket[k][b] += w->restore_bucket[k][b];
    }
}

/* The all-time counters of one cluster into *acc. */
static enum err totals(struct request *req, struct metrics_cache *mc, const char *cluster,
                       int64_t now, struct metrics_week *acc) {
    memset(acc, 0, sizeof *acc);
    int64_t first;
    enum err rc = store_first_data_time(req->db, &first);
    if (rc == ERR_NOTFOUND)
        return ERR_OK;
    if (rc != ERR_OK)
        return rc;
    pthread_mutex_lock(&mc->lock);
    for (int64_t ws = week_start(first); ws <= now && rc == ERR_OK; ws += WEEK) {
        const struct metrics_week *w = cached(mc, cluster, ws);
        struct metrics_week fresh;
        if (!w) {
            rc = compute_week(req, cluster, ws, now, &fresh);
            if (rc != ERR_OK)
                break;
            if (ws + WEEK + SETTLE <= now) { /* final: keep it */
                if (mc->n_weeks == mc->cap) {
                    mc->cap = mc->cap ? mc->cap * 2 : 64;
                    mc->weeks = xrealloc(mc->weeks, mc->cap * sizeof *mc->weeks);
                }
                mc->weeks[mc->n_weeks++] = fresh;
            }
            w = &fresh;
        }
        add_week(acc, w);
    }
    pthread_mutex_unlock(&mc->lock);
    return rc;
}

/* One sample per cluster x configuration of a counter family; v(t, k) the value. */
static void counter(struct buf *b, const struct mclusters *cl, const struct metrics_week *t,
                    const char *name, const char *help, size_t field) {
    promw_family(b, name, "counter", help);
    for (size_t i = 0; i < cl->n; i++) {
        const int64_t *v = (const int64_t *)((const char *)&t[i] + field);
        for (int k = 0; k < COST_NCONFIG; k++) {
            const char *l[] = {"cluster", cl->name[i], "configuration",
                               cost_config_name((enum cost_config)k), NULL};
            promw_sample_int(b, name, l, v[k]);
        }
    }
}

static void write_totals(struct buf *b, const struct mclusters *cl, const struct metrics_week *t) {
    promw_family(b, "spotledger_tasks_total", "counter",
                 "Tasks that finished, by cluster, configuration and outcome (all time).");
    for (size_t i = 0; i < cl->n; i++)
        for (int k = 0; k < COST_NCONFIG; k++) {
            const char *cn = cost_config_name((enum cost_config)k);
            const char *ok[] = {"cluster",   cl->name[i], "configuration", cn, "outcome",
                                "succeeded", NULL};
            const char *bad[] = {"cluster", cl->name[i], "configuration", cn, "outcome",
                                 "failed",  NULL};
            promw_sample_int(b, "spotledger_tasks_total", ok, t[i].succeeded[k]);
            promw_sample_int(b, "spotledger_tasks_total", bad, t[i].failed[k]);
        }
    counter(b, cl, t, "spotledger_attempts_total", "Attempts (pods) started, all time.",
            offsetof(struct metrics_week, attempts));
    counter(b, cl, t, "spotledger_retries_total", "Attempts after a task's first, all time.",
            offsetof(struct metrics_week, retries));
    counter(b, cl, t, "spotledger_interruptions_total",
            "Attempts interrupted by a disruption (e.g. a Spot reclaim), all time.",
            offsetof(struct metrics_week, interruptions));
    promw_family(b, "spotledger_restore_seconds", "histogram",
                 "Restore time after an interruption: gap to the next start plus the "
                 "reported restore_seconds.");
    for (size_t i = 0; i < cl->n; i++)
        for (int k = 0; k < COST_NCONFIG; k++) {
            const char *cn = cost_config_name((enum cost_config)k);
            int64_t cum = 0;
            for (int bk = 0; bk < METRICS_RESTORE_BUCKETS; bk++) {
                cum += t[i].restore_bucket[k][bk];
                char le[24];
                if (bk < METRICS_RESTORE_BUCKETS - 1)
                    snprintf(le, sizeof le, "%lld", (long long)restore_le[bk]);
                else
                    snprintf(le, sizeof le, "+Inf");
                const char *l[] = {"cluster", cl->name[i], "configuration", cn, "le", le, NULL};
                promw_sample_int(b, "spotledger_restore_seconds_bucket", l, cum);
            }
            const char *l[] = {"cluster", cl->name[i], "configuration", cn, NULL};
            promw_sample_int(b, "spotledger_restore_seconds_sum", l, t[i].restore_sum[k]);
            promw_sample_int(b, "spotledger_restore_seconds_count", l, t[i].restore_count[k]);
        }
}

/* The last 7 days of one cluster: its figures and their 95 % intervals. */
struct mgauge {
    struct calc c;
    struct cost_query q;
    bool ok, unc_ok;
    struct unc_result u;
};

/* Spot pools gone (reclaimed) over the window, and the longest replacement
 * delay among them (absent when no reclaim has a known delay), per cluster. */
static void write_reclaims(struct buf *b, const struct mclusters *cl, const struct mgauge *g) {
    promw_family(b, "spotledger_reclaims", "gauge",
                 "Spot pools reclaimed (gone) over the last 7 days.");
    for (size_t i = 0; i < cl->n; i++) {
        const char *l[] = {"cluster", cl->name[i], NULL};
        if (g[i].ok)
            promw_sample_int(b, "spotledger_reclaims", l, (int64_t)g[i].c.res->n_reclaims);
    }
    promw_family(b, "spotledger_reclaim_replacement_delay_seconds", "gauge",
                 "Longest replacement delay (reclaim signal to the first On-Demand node Ready) "
                 "of the reclaims of the last 7 days (absent when none is known).");
    for (size_t i = 0; i < cl->n; i++) {
        if (!g[i].ok)
            continue;
        const struct cost_result *r = g[i].c.res;
        int64_t worst = COST_NULL;
        for (size_t k = 0; k < r->n_reclaims; k++) {
            int64_t d = r->reclaims[k].replacement_delay_seconds;
            if (d != COST_NULL && (worst == COST_NULL || d > worst))
                worst = d;
        }
        const char *l[] = {"cluster", cl->name[i], NULL};
        if (worst != COST_NULL)
            promw_sample_int(b, "spotledger_reclaim_replacement_delay_seconds", l, worst);
    }
}

/* The samples of family for iv, labelled cluster, dim=name and bound: point (when
 * with_point), lo and hi. */
static void bound_samples(struct buf *b, const char *family, const char *cluster, const char *dim,
                          const char *name, const struct boot_interval *iv, bool with_point) {
    static const char *const bounds[] = {"point", "lo", "hi"};
    const int64_t v[] = {iv->point, iv->lo, iv->hi};
    for (int k = with_point ? 0 : 1; k < 3; k++) {
        const char *l[] = {"cluster", cluster, dim, name, "bound", bounds[k], NULL};
        promw_sample_micro(b, family, l, v[k]);
    }
}

/* The 95 % intervals of the last 7 days (docs/uncertainty.md): absent below the
 * minimum sample, never a made-up bound. */
static void write_intervals(struct buf *b, const struct mclusters *cl, const struct mgauge *g) {
    promw_family(b, "spotledger_cost_per_successful_task_interval_usd", "gauge",
                 "Bounds of the 95% interval of the cost per successful task over the last 7 "
                 "days (block bootstrap over tasks; absent below 5 successful tasks).");
    for (size_t i = 0; i < cl->n; i++)
        for (int k = 0; g[i].unc_ok && k < COST_NCONFIG; k++) {
            const struct boot_interval *iv = &g[i].u.per_task[k];
            if (!iv->ok)
                continue;
            bound_samples(b, "spotledger_cost_per_successful_task_interval_usd", cl->name[i],
                          "configuration", cost_config_name((enum cost_config)k), iv, false);
        }
    promw_family(b, "spotledger_cost_difference_per_task_usd", "gauge",
                 "Difference in cost per successful task over the last 7 days (negative: the "
                 "first is cheaper), its point and the bounds of its 95% interval (absent "
                 "below 5 successful tasks on either side).");
    for (size_t i = 0; i < cl->n; i++)
        for (int k = 0; g[i].unc_ok && k < UNC_NDIFF; k++) {
            const struct boot_interval *d = &g[i].u.diff[k];
            if (!d->ok)
                continue;
            bound_samples(b, "spotledger_cost_difference_per_task_usd", cl->name[i], "comparison",
                          unc_diff_name((enum unc_diff)k), d, true);
        }
}

/* node_total_hourly_cost of one cluster's live nodes. */
static void write_nodes(struct buf *b, const char *cluster, const struct cost_input *in,
                        int64_t now) {
    for (size_t i = 0; i < in->n_nodes; i++) {
        const struct cost_node *n = &in->nodes[i];
        int64_t s = cost_node_start(n), e = cost_node_end(n);
        if (!s || s > now || (e && e <= now))
            continue;
        const struct cost_pool *p = n->pool >= 0 ? &in->pools[n->pool] : NULL;
        int64_t rate = n->price_hourly ? n->price_hourly : p ? p->price_hourly : 0;
        const char *l[] = {"cluster",
                           cluster,
                           "node",
                           n->name,
                           "node_pool",
                           p && p->name ? p->name : "",
                           "instance_type",
                           p && p->size ? p->size : "",
                           "capacity_type",
                           p ? cost_capacity_name(p->capacity) : "unknown",
                           NULL};
        promw_sample_micro(b, "node_total_hourly_cost", l, rate);
    }
}

static void write_gauges(struct request *req, struct buf *b, const struct mclusters *cl,
                         int64_t now) {
    struct mgauge *g = xcalloc(cl->n + 1, sizeof *g);
    for (size_t i = 0; i < cl->n; i++) {
        struct cost_query *q = &g[i].q;
        q->from = now - WEEK;
        q->to = now + 1;
        q->now = now;
        q->want_attempts = true; /* the bootstrap's samples (write_intervals) */
        char sel[STORE_CLUSTER_NAME_MAX + 2];
        snprintf(sel, sizeof sel, ",%s,", cl->name[i]);
        enum err rc = calc_cluster(req, sel, q, &g[i].c);
        g[i].ok = rc == ERR_OK;
        if (rc == ERR_OK)
            rc = unc_compute(&g[i].c.data->in, q, g[i].c.res, NULL, &g[i].u);
        g[i].unc_ok = g[i].ok && rc == ERR_OK;
        if (rc != ERR_OK)
            log_msg(LOG_WARN, "metrics: 7-day figures of cluster %s failed: %s", cl->name[i],
                    err_str(rc));
    }
    promw_family(b, "spotledger_cost_per_successful_task_usd", "gauge",
                 "Cost per successful task over the last 7 days (absent without a success).");
    for (size_t i = 0; i < cl->n; i++) {
        if (!g[i].ok)
            continue;
        const struct cost_result *r = g[i].c.res;
        for (int k = 0; k < COST_NCONFIG; k++) {
            int64_t v = r->configs[k].cost_per_successful_task;
            const char *l[] = {"cluster",
                               cl->name[i],
                               "configuration",
                               cost_config_name((enum cost_config)k),
                               "basis",
                               "measured",
                               NULL};
            if (v != COST_NULL)
                promw_sample_micro(b, "spotledger_cost_per_successful_task_usd", l, v);
        }
        if (r->counterfactual.cost_per_successful_task != COST_NULL) {
            const char *l[] = {"cluster",        cl->name[i], "configuration", "on-demand", "basis",
                               "counterfactual", NULL};
            promw_sample_micro(b, "spotledger_cost_per_successful_task_usd", l,
                               r->counterfactual.cost_per_successful_task);
        }
    }
    promw_family(b, "spotledger_cost_usd", "gauge",
                 "Cost of each configuration over the last 7 days, idle share included.");
    for (size_t i = 0; i < cl->n; i++)
        for (int k = 0; g[i].ok && k < COST_NCONFIG; k++) {
            const char *l[] = {"cluster", cl->name[i], "configuration",
                               cost_config_name((enum cost_config)k), NULL};
            promw_sample_micro(b, "spotledger_cost_usd", l, g[i].c.res->configs[k].cost);
        }
    write_reclaims(b, cl, g);
    write_intervals(b, cl, g);
    promw_family(b, "node_total_hourly_cost", "gauge",
                 "Hourly price of each live node, USD (OpenCost's name), recorded at first "
                 "sighting.");
    for (size_t i = 0; i < cl->n; i++)
        if (g[i].ok)
            write_nodes(b, cl->name[i], &g[i].c.data->in, now);
    for (size_t i = 0; i < cl->n; i++)
        if (g[i].ok)
            calc_release(&g[i].c);
    free(g);
}

void metrics_cost_write(struct request *req, struct metrics_cache *cache, struct buf *b) {
    int64_t now = api_now(req);
    struct mclusters cl;
    enum err rc = list_clusters(req, &cl);
    if (rc != ERR_OK)
        log_msg(LOG_WARN, "metrics: cannot list the clusters: %s", err_str(rc));
    struct metrics_week *t = xcalloc(cl.n + 1, sizeof *t);
    for (size_t i = 0; i < cl.n; i++) {
        rc = totals(req, cache, cl.name[i], now, &t[i]);
        if (rc != ERR_OK) {
            log_msg(LOG_WARN, "metrics: counters of cluster %s failed: %s", cl.name[i],
                    err_str(rc));
            memset(&t[i], 0, sizeof t[i]);
        }
    }
    write_totals(b, &cl, t);
    write_gauges(req, b, &cl, now);
    free(t);
    free(cl.name);
}
