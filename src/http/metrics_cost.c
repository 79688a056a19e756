#include "http/metrics_cost.h"

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

/* The counters of one week, from the rows. */
static enum err compute_week(struct request *req, int64_t start, int64_t now,
                             struct metrics_week *out) {
    struct calc c;
    struct cost_query q;
    memset(&q, 0, sizeof q);
    q.from = start;
    q.to = start + WEEK;
    q.now = now;
    q.want_attempts = true;
    enum err rc = calc_run(req->db, req->app ? &req->app->calc : NULL, start, start + WEEK, &q, &c);
    if (rc != ERR_OK)
        return rc;
    memset(out, 0, sizeof *out);
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

static const struct metrics_week *cached(struct metrics_cache *mc, int64_t start) {
    for (size_t i = 0; i < mc->n_weeks; i++)
        if (mc->weeks[i].start == start)
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

static enum err totals(struct request *req, struct metrics_cache *mc, int64_t now,
                       struct metrics_week *acc) {
    memset(acc, 0, sizeof *acc);
    int64_t first;
    enum err rc = store_first_data_time(req->db, &first);
    if (rc == ERR_NOTFOUND)
        return ERR_OK;
    if (rc != ERR_OK)
        return rc;
    pthread_mutex_lock(&mc->lock);
    for (int64_t ws = week_start(first); ws <= now && rc == ERR_OK; ws += WEEK) {
        const struct metrics_week *w = cached(mc, ws);
        struct metrics_week fresh;
        if (!w) {
            rc = compute_week(req, ws, now, &fresh);
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

static void counter(struct buf *b, const char *name, const char *help, const int64_t *v) {
    promw_family(b, name, "counter", help);
    for (int k = 0; k < COST_NCONFIG; k++) {
        const char *l[] = {"configuration", cost_config_name((enum cost_config)k), NULL};
        promw_sample_int(b, name, l, v[k]);
    }
}

static void write_totals(struct buf *b, const struct metrics_week *t) {
    promw_family(b, "spotledger_tasks_total", "counter",
                 "Tasks that finished, by configuration and outcome (all time).");
    for (int k = 0; k < COST_NCONFIG; k++) {
        const char *cn = cost_config_name((enum cost_config)k);
        const char *ok[] = {"configuration", cn, "outcome", "succeeded", NULL};
        const char *bad[] = {"configuration", cn, "outcome", "failed", NULL};
        promw_sample_int(b, "spotledger_tasks_total", ok, t->succeeded[k]);
        promw_sample_int(b, "spotledger_tasks_total", bad, t->failed[k]);
    }
    counter(b, "spotledger_attempts_total", "Attempts (pods) started, all time.", t->attempts);
    counter(b, "spotledger_retries_total", "Attempts after a task's first, all time.", t->retries);
    counter(b, "spotledger_interruptions_total",
            "Attempts interrupted by a disruption (e.g. a Spot reclaim), all time.",
            t->interruptions);
    promw_family(b, "spotledger_restore_seconds", "histogram",
                 "Restore time after an interruption: gap to the next start plus the "
                 "reported restore_seconds.");
    for (int k = 0; k < COST_NCONFIG; k++) {
        const char *cn = cost_config_name((enum cost_config)k);
        int64_t cum = 0;
        for (int bk = 0; bk < METRICS_RESTORE_BUCKETS; bk++) {
            cum += t->restore_bucket[k][bk];
            char le[24];
            if (bk < METRICS_RESTORE_BUCKETS - 1)
                snprintf(le, sizeof le, "%lld", (long long)restore_le[bk]);
            else
                snprintf(le, sizeof le, "+Inf");
            const char *l[] = {"configuration", cn, "le", le, NULL};
            promw_sample_int(b, "spotledger_restore_seconds_bucket", l, cum);
        }
        const char *l[] = {"configuration", cn, NULL};
        promw_sample_int(b, "spotledger_restore_seconds_sum", l, t->restore_sum[k]);
        promw_sample_int(b, "spotledger_restore_seconds_count", l, t->restore_count[k]);
    }
}

/* Spot pools gone (reclaimed) over the window, and the longest replacement
 * delay among them (absent when no reclaim has a known delay). */
static void write_reclaims(struct buf *b, const struct cost_result *r) {
    int64_t worst = COST_NULL;
    for (size_t i = 0; i < r->n_reclaims; i++) {
        int64_t d = r->reclaims[i].replacement_delay_seconds;
        if (d != COST_NULL && (worst == COST_NULL || d > worst))
            worst = d;
    }
    promw_family(b, "spotledger_reclaims", "gauge",
                 "Spot pools reclaimed (gone) over the last 7 days.");
    promw_sample_int(b, "spotledger_reclaims", NULL, (int64_t)r->n_reclaims);
    promw_family(b, "spotledger_reclaim_replacement_delay_seconds", "gauge",
                 "Longest replacement delay (reclaim signal to the first On-Demand node Ready) "
                 "of the reclaims of the last 7 days (absent when none is known).");
    if (worst != COST_NULL)
        promw_sample_int(b, "spotledger_reclaim_replacement_delay_seconds", NULL, worst);
}

/* The 95 % intervals of the last 7 days (docs/uncertainty.md): absent below the
 * minimum sample, never a made-up bound. */
static void write_intervals(struct buf *b, const struct calc *c, const struct cost_query *q) {
    struct unc_result u;
    enum err rc = unc_compute(&c->data->in, q, c->res, NULL, &u);
    if (rc != ERR_OK) {
        log_msg(LOG_WARN, "metrics: 7-day intervals failed: %s", err_str(rc));
        return;
    }
    promw_family(b, "spotledger_cost_per_successful_task_interval_usd", "gauge",
                 "Bounds of the 95% interval of the cost per successful task over the last 7 "
                 "days (block bootstrap over tasks; absent below 5 successful tasks).");
    for (int k = 0; k < COST_NCONFIG; k++) {
        const struct boot_interval *iv = &u.per_task[k];
        if (!iv->ok)
            continue;
        const char *cfg = cost_config_name((enum cost_config)k);
        const char *lo[] = {"configuration", cfg, "bound", "lo", NULL};
        const char *hi[] = {"configuration", cfg, "bound", "hi", NULL};
        promw_sample_micro(b, "spotledger_cost_per_successful_task_interval_usd", lo, iv->lo);
        promw_sample_micro(b, "spotledger_cost_per_successful_task_interval_usd", hi, iv->hi);
    }
    promw_family(b, "spotledger_cost_difference_per_task_usd", "gauge",
                 "Difference in cost per successful task over the last 7 days (negative: the "
                 "first is cheaper), its point and the bounds of its 95% interval (absent "
                 "below 5 successful tasks on either side).");
    for (int k = 0; k < UNC_NDIFF; k++) {
        const struct boot_interval *d = &u.diff[k];
        if (!d->ok)
            continue;
        const char *name = unc_diff_name((enum unc_diff)k);
        const char *pt[] = {"comparison", name, "bound", "point", NULL};
        const char *lo[] = {"comparison", name, "bound", "lo", NULL};
        const char *hi[] = {"comparison", name, "bound", "hi", NULL};
        promw_sample_micro(b, "spotledger_cost_difference_per_task_usd", pt, d->point);
        promw_sample_micro(b, "spotledger_cost_difference_per_task_usd", lo, d->lo);
        promw_sample_micro(b, "spotledger_cost_difference_per_task_usd", hi, d->hi);
    }
}

static void write_gauges(struct request *req, struct buf *b, int64_t now) {
    struct calc c;
    struct cost_query q;
    memset(&q, 0, sizeof q);
    q.from = now - WEEK;
    q.to = now + 1;
    q.now = now;
    q.want_attempts = true; /* the bootstrap's samples (write_intervals) */
    enum err rc = calc_run(req->db, req->app ? &req->app->calc : NULL, q.from, q.to, &q, &c);
    if (rc != ERR_OK) {
        log_msg(LOG_WARN, "metrics: 7-day figures failed: %s", err_str(rc));
        return;
    }
    promw_family(b, "spotledger_cost_per_successful_task_usd", "gauge",
                 "Cost per successful task over the last 7 days (absent without a success).");
    for (int k = 0; k < COST_NCONFIG; k++) {
        int64_t v = c.res->configs[k].cost_per_successful_task;
        const char *l[] = {"configuration", cost_config_name((enum cost_config)k), "basis",
                           "measured", NULL};
        if (v != COST_NULL)
            promw_sample_micro(b, "spotledger_cost_per_successful_task_usd", l, v);
    }
    if (c.res->counterfactual.cost_per_successful_task != COST_NULL) {
        const char *l[] = {"configuration", "on-demand", "basis", "counterfactual", NULL};
        promw_sample_micro(b, "spotledger_cost_per_successful_task_usd", l,
                           c.res->counterfactual.cost_per_successful_task);
    }
    promw_family(b, "spotledger_cost_usd", "gauge",
                 "Cost of each configuration over the last 7 days, idle share included.");
    for (int k = 0; k < COST_NCONFIG; k++) {
        const char *l[] = {"configuration", cost_config_name((enum cost_config)k), NULL};
        promw_sample_micro(b, "spotledger_cost_usd", l, c.res->configs[k].cost);
    }
    write_reclaims(b, c.res);
    write_intervals(b, &c, &q);
    promw_family(b, "node_total_hourly_cost", "gauge",
                 "Hourly price of each live node, USD (OpenCost's name), recorded at first "
                 "sighting.");
    const struct cost_input *in = &c.data->in;
    for (size_t i = 0; i < in->n_nodes; i++) {
        const struct cost_node *n = &in->nodes[i];
        int64_t s = cost_node_start(n), e = cost_node_end(n);
        if (!s || s > now || (e && e <= now))
            continue;
        const struct cost_pool *p = n->pool >= 0 ? &in->pools[n->pool] : NULL;
        int64_t rate = n->price_hourly ? n->price_hourly : p ? p->price_hourly : 0;
        const char *l[] = {"node",
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
    calc_release(&c);
}

void metrics_cost_write(struct request *req, struct metrics_cache *cache, struct buf *b) {
    int64_t now = api_now(req);
    struct metrics_week t;
    enum err rc = totals(req, cache, now, &t);
    if (rc != ERR_OK) {
        log_msg(LOG_WARN, "metrics: counters failed: %s", err_str(rc));
        memset(&t, 0, sizeof t);
    }
    write_totals(b, &t);
    write_gauges(req, b, now);
}
