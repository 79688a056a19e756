/* plan/whatif — see whatif.h. */
#include "plan/whatif.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "plan/whatif_int.h"

void whatif_defaults(struct whatif_params *p) {
    memset(p, 0, sizeof *p);
    p->length = (struct plan_duration){PLAN_DIST_FIXED, 3600, 0};
    p->gpus_task = p->gpus_node = 1;
    p->fallback = true;
    p->seed = WHATIF_DEFAULT_SEED;
    p->runs = WHATIF_DEFAULT_RUNS;
    p->tasks = 100;
}

static bool secs_ok(int64_t v, int64_t min) {
    return v >= min && v <= WHATIF_MAX_SECONDS;
}

static bool idle_ok(const struct whatif_params *p) {
    for (int c = 0; c < WHATIF_NCONFIG; c++)
        if (p->idle_ppb[c] < 0 || p->idle_ppb[c] > WHATIF_MAX_IDLE_PPB)
            return false;
    return true;
}

static bool arrivals_ok(const int64_t *a, size_t n) {
    if (n > WHATIF_MAX_LENGTHS || (n > 0 && !a))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!secs_ok(a[i], 0))
            return false;
    return true;
}

/* The field a configuration's mix gets wrong, NULL when none. */
static const char *mix_bad(const struct whatif_params *p) {
    int64_t runs = p->runs ? p->runs : WHATIF_DEFAULT_RUNS;
    for (int c = 0; c < WHATIF_NCONFIG; c++) {
        const struct whatif_mix *x = &p->mix[c];
        if (x->tasks < 0 || x->tasks > WHATIF_MAX_TASKS || x->tasks * runs > WHATIF_MAX_WORK)
            return "tasks";
        if (x->failure_ppm < 0 || x->failure_ppm >= 1000000)
            return "failure_rate";
        if (x->start_od_ppm < 0 || x->start_od_ppm > 1000000)
            return "starts_on_fallback";
        if (x->nlengths > WHATIF_MAX_LENGTHS || (x->nlengths > 0 && !x->lengths))
            return "task_hours";
        for (size_t i = 0; i < x->nlengths; i++)
            if (!secs_ok(x->lengths[i], 1))
                return "task_hours";
        if (!arrivals_ok(x->arrivals, x->narrivals))
            return "arrivals";
    }
    return NULL;
}

/* The first of p's durations (seconds, 0 allowed) out of range, NULL when none. */
static const char *durations_bad(const struct whatif_params *p) {
    const struct {
        int64_t v;
        const char *field;
    } d[] = {
        {p->replacement_delay, "replacement_delay"},
        {p->checkpoint_interval, "checkpoint_interval"},
        {p->checkpoint_seconds, "checkpoint_seconds"},
        {p->restore_seconds, "restore_seconds"},
        {p->attempt_overhead, "attempt_overhead"},
        {p->reclaim_tail, "reclaim_tail"},
        {p->fallback_tail, "fallback_tail"},
    };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (!secs_ok(d[i].v, 0))
            return d[i].field;
    return NULL;
}

enum err whatif_check(const struct whatif_params *p, const char **field) {
    const char *bad = NULL;
    if (!(p->reclaims_per_day >= 0.0 && p->reclaims_per_day <= WHATIF_MAX_RECLAIMS_PER_DAY))
        bad = "reclaims_per_day"; /* also NaN */
    else if ((bad = durations_bad(p)) != NULL) {
        /* durations_bad named the field */
    } else if (p->spot_price < 0 || p->spot_price > WHATIF_MAX_PRICE)
        bad = "spot_price";
    else if (p->on_demand_price < 0 || p->on_demand_price > WHATIF_MAX_PRICE)
        bad = "on_demand_price";
    else if (p->gpus_node < 1 || p->gpus_node > 64 || p->gpus_task < 1 ||
             p->gpus_task > p->gpus_node)
        bad = "gpus";
    else if (!idle_ok(p))
        bad = "idle";
    else if (p->runs < 0 || p->runs > WHATIF_MAX_RUNS)
        bad = "samples";
    else if (p->tasks < 1 || p->tasks > WHATIF_MAX_TASKS ||
             p->tasks * (p->runs ? p->runs : WHATIF_DEFAULT_RUNS) > WHATIF_MAX_WORK)
        bad = "tasks";
    else if (p->nlengths > WHATIF_MAX_LENGTHS || (p->nlengths > 0 && !p->lengths))
        bad = "task_hours";
    else if (!arrivals_ok(p->arrivals, p->narrivals))
        bad = "arrivals";
    else if (p->pool_nodes < 0 || p->pool_nodes > WHATIF_MAX_POOL_NODES)
        bad = "pool_nodes";
    if (!bad && p->nlengths == 0) {
        const struct plan_duration *d = &p->length;
        if (!secs_ok(d->a, 1) || (d->dist == PLAN_DIST_UNIFORM && !secs_ok(d->b, d->a)) ||
            (d->dist != PLAN_DIST_FIXED && d->dist != PLAN_DIST_UNIFORM &&
             d->dist != PLAN_DIST_EXPONENTIAL))
            bad = "task_hours";
    }
    for (size_t i = 0; !bad && i < p->nlengths; i++)
        if (!secs_ok(p->lengths[i], 1))
            bad = "task_hours";
    if (!bad)
        bad = mix_bad(p);
    if (field)
        *field = bad;
    return bad ? ERR_INVAL : ERR_OK;
}

int64_t wi_draw_work(const struct whatif_params *p, int c, struct plan_rng *r) {
    const struct whatif_mix *x = &p->mix[c];
    if (x->nlengths > 0)
        return x->lengths[plan_rng_below(r, x->nlengths)];
    if (p->nlengths > 0)
        return p->lengths[plan_rng_below(r, p->nlengths)];
    return plan_work_sample(&p->length, r);
}

/* Seconds of one uninterrupted attempt with `saved` work already checkpointed,
 * checkpointing every `iv` seconds (0: none). */
int64_t wi_attempt_len(const struct whatif_params *p, int64_t iv, int64_t work, int64_t saved) {
    int64_t rest = plan_restore_seconds(saved, iv, p->restore_seconds);
    return p->attempt_overhead +
           plan_attempt_seconds(work - saved, iv, p->checkpoint_seconds, rest);
}

/* The second an attempt of `run` seconds fails of itself (an application
 * failure, chance ppm), uniform in [1, run - 1] as spotsim draws it; INT64_MAX
 * when it does not. No draw at all when ppm is 0. */
int64_t wi_failure_at(struct plan_rng *r, int64_t ppm, int64_t run) {
    if (ppm <= 0 || !plan_rng_chance_ppm(r, ppm))
        return INT64_MAX;
    return run > 2 ? plan_rng_range(r, 1, run - 1) : 1;
}

/* The rest of a task (`saved` seconds done) on On-Demand capacity, never
 * reclaimed: attempts until one succeeds; an application failure bills its
 * seconds, keeps the checkpointed work and retries on the same node. `tail`
 * seconds are billed after the success. k: attempts the task made before. */
enum err wi_od_rest(struct mc *m, int c, struct plan_rng *r, int64_t work, int64_t saved,
                    int64_t tail, int k, struct acc *a) {
    const struct whatif_params *p = m->p;
    int64_t iv = p->mix[c].no_checkpoints ? 0 : p->checkpoint_interval;
    for (; k < WHATIF_MAX_ATTEMPTS; k++) {
        if (--m->budget < 0)
            return ERR_TOOBIG;
        a->att++;
        int64_t run = wi_attempt_len(p, iv, work, saved);
        int64_t fail = wi_failure_at(r, p->mix[c].failure_ppm, run);
        if (fail >= run) {
            a->succ++;
            a->num += (wi_i128)(run + tail) * p->on_demand_price;
            return ERR_OK;
        }
        a->num += (wi_i128)fail * p->on_demand_price;
        int64_t rest = plan_restore_seconds(saved, iv, p->restore_seconds);
        saved += plan_saved_work(work - saved, iv, p->checkpoint_seconds, rest,
                                 fail - p->attempt_overhead);
    }
    a->fail++;
    return ERR_OK;
}

/* Plays one task of `work` seconds in configuration cfg; its interruptions
 * come from the stream seeded with tseed (the same for every configuration). */
static enum err one_task(struct mc *m, int cfg, uint64_t tseed, int64_t work, struct acc *a) {
    const struct whatif_params *p = m->p;
    const struct whatif_mix *x = &p->mix[cfg];
    struct plan_rng r;
    plan_rng_seed(&r, tseed);
    if (cfg == WHATIF_ON_DEMAND)
        return wi_od_rest(m, cfg, &r, work, 0, 0, 0, a);
    if (cfg == WHATIF_FALLBACK && x->start_od_ppm > 0) {
        /* the Spot pool away or full when the task comes: the fallback pool
         * takes it (its own stream: the Spot draws stay common) */
        struct plan_rng s;
        plan_rng_seed(&s, tseed ^ 0x5eed0fa11bac4ULL);
        if (plan_rng_chance_ppm(&s, x->start_od_ppm))
            return wi_od_rest(m, cfg, &r, work, 0, p->fallback_tail, 0, a);
    }
    int64_t iv = x->no_checkpoints ? 0 : p->checkpoint_interval;
    int64_t saved = 0;
    for (int k = 0; k < WHATIF_MAX_ATTEMPTS; k++) {
        if (--m->budget < 0)
            return ERR_TOOBIG;
        a->att++;
        int64_t rest = plan_restore_seconds(saved, iv, p->restore_seconds);
        int64_t run = wi_attempt_len(p, iv, work, saved);
        int64_t cut = m->mean > 0 ? plan_poisson_next(&r, 0, m->mean) : INT64_MAX;
        int64_t fail = wi_failure_at(&r, x->failure_ppm, run);
        if (cut >= run && fail >= run) {
            a->num += (wi_i128)run * p->spot_price;
            a->succ++;
            return ERR_OK;
        }
        if (fail < cut) {
            /* the application failed first: retry on the same pool */
            a->num += (wi_i128)fail * p->spot_price;
            saved += plan_saved_work(work - saved, iv, p->checkpoint_seconds, rest,
                                     fail - p->attempt_overhead);
            continue;
        }
        a->num += (wi_i128)(cut + p->reclaim_tail) * p->spot_price;
        saved += plan_saved_work(work - saved, iv, p->checkpoint_seconds, rest,
                                 cut - p->attempt_overhead);
        if (cfg == WHATIF_FALLBACK) /* the rest on an On-Demand node, never reclaimed */
            return wi_od_rest(m, cfg, &r, work, saved, p->fallback_tail, k + 1, a);
        /* Spot only: wait for the pool (replacement_delay, unbilled), try again */
    }
    a->fail++;
    return ERR_OK;
}

/* µ$ per success of num (µ$/h x s) at the task's GPU share, with
 * configuration c's idle, half away from zero. */
static int64_t per_task(const struct whatif_params *p, int c, wi_i128 num, int64_t succ) {
    wi_i128 n = num * p->gpus_task * (WHATIF_PPB + p->idle_ppb[c]);
    wi_i128 d = (wi_i128)3600 * p->gpus_node * succ * WHATIF_PPB;
    return (int64_t)((2 * n + d) / (2 * d));
}

static int i64_cmp(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Runs the replications for the configurations in mask (bit per whatif_config). */
static enum err run_mc(const struct whatif_params *p, unsigned mask, struct whatif_result *out) {
    memset(out, 0, sizeof *out);
    int runs = p->runs ? p->runs : WHATIF_DEFAULT_RUNS;
    uint64_t seed = p->seed ? p->seed : WHATIF_DEFAULT_SEED;
    struct mc m = {p, 0, WHATIF_MAX_ATTEMPTS_TOTAL, NULL};
    if (p->reclaims_per_day > 0) {
        double mean = 86400.0 / p->reclaims_per_day;
        m.mean = mean < 1.0 ? 1 : (int64_t)llround(mean);
    }
    int64_t *stats = xcalloc((size_t)runs * WHATIF_NCONFIG, sizeof *stats);
    int nstat[WHATIF_NCONFIG] = {0};
    wi_i128 total[WHATIF_NCONFIG] = {0};
    enum err rc = ERR_OK;
    for (int r = 0; r < runs && rc == ERR_OK; r++) {
        struct acc a[WHATIF_NCONFIG];
        memset(a, 0, sizeof a);
        /* every configuration replays replication r's stream from its start:
         * with the same mix they draw the same tasks (common random numbers) */
        uint64_t rseed = seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(r + 1));
        unsigned on_pool = p->pool_nodes > 0 ? mask & ~(1u << WHATIF_ON_DEMAND) : 0;
        if (on_pool)
            rc = wi_pool_run(&m, on_pool, rseed, a);
        for (int c = 0; c < WHATIF_NCONFIG && rc == ERR_OK; c++) {
            if (!(mask & (1u << c)) || (on_pool & (1u << c)))
                continue;
            struct plan_rng rr;
            plan_rng_seed(&rr, rseed);
            int64_t tasks = p->mix[c].tasks ? p->mix[c].tasks : p->tasks;
            for (int64_t t = 0; t < tasks && rc == ERR_OK; t++) {
                int64_t work = wi_draw_work(p, c, &rr);
                uint64_t tseed = plan_rng_next(&rr);
                rc = one_task(&m, c, tseed, work, &a[c]);
            }
        }
        for (int c = 0; c < WHATIF_NCONFIG; c++) {
            struct whatif_estimate *e = &out->cfg[c];
            e->successes += a[c].succ;
            e->failures += a[c].fail;
            e->attempts += a[c].att;
            total[c] += a[c].num;
            if (a[c].succ > 0)
                stats[(size_t)c * (size_t)runs + (size_t)nstat[c]++] =
                    per_task(p, c, a[c].num, a[c].succ);
        }
    }
    wi_pool_free(&m);
    out->attempts_simulated = WHATIF_MAX_ATTEMPTS_TOTAL - m.budget;
    for (int c = 0; c < WHATIF_NCONFIG && rc == ERR_OK; c++) {
        struct whatif_estimate *e = &out->cfg[c];
        if (!(mask & (1u << c))) {
            snprintf(e->reason, sizeof e->reason, "not asked (fallback=off)");
            continue;
        }
        if (e->successes == 0) {
            snprintf(e->reason, sizeof e->reason, "no task succeeded within %d attempts",
                     WHATIF_MAX_ATTEMPTS);
            continue;
        }
        e->ok = true;
        e->point = per_task(p, c, total[c], e->successes);
        int n = nstat[c];
        if (n < WHATIF_MIN_RUNS_INTERVAL) {
            snprintf(e->reason, sizeof e->reason, "%d replications with a success (fewer than %d)",
                     n, WHATIF_MIN_RUNS_INTERVAL);
            continue;
        }
        int64_t *s = stats + (size_t)c * (size_t)runs;
        qsort(s, (size_t)n, sizeof *s, i64_cmp);
        e->interval = true;
        e->lo = s[(25 * n + 999) / 1000 - 1];
        e->hi = s[(975 * n + 999) / 1000 - 1];
    }
    free(stats);
    return rc;
}

enum err whatif_run(const struct whatif_params *p, struct whatif_result *out) {
    if (whatif_check(p, NULL) != ERR_OK)
        return ERR_INVAL;
    unsigned mask = (1u << WHATIF_SPOT) | (1u << WHATIF_ON_DEMAND);
    if (p->fallback)
        mask |= 1u << WHATIF_FALLBACK;
    return run_mc(p, mask, out);
}

/* Fallback minus On-Demand (µ$ per task) at rate; *ok false without a figure. */
static enum err gap_at(const struct whatif_params *p, double rate, int64_t *gap, bool *ok) {
    struct whatif_params q = *p;
    q.reclaims_per_day = rate;
    struct whatif_result r;
    enum err rc = run_mc(&q, (1u << WHATIF_FALLBACK) | (1u << WHATIF_ON_DEMAND), &r);
    if (rc != ERR_OK)
        return rc;
    *ok = r.cfg[WHATIF_FALLBACK].ok && r.cfg[WHATIF_ON_DEMAND].ok;
    *gap = r.cfg[WHATIF_FALLBACK].point - r.cfg[WHATIF_ON_DEMAND].point;
    return ERR_OK;
}

enum err whatif_break_even(const struct whatif_params *p, int iterations, double *rate,
                           bool *found) {
    *found = false;
    *rate = 0;
    if (whatif_check(p, NULL) != ERR_OK || iterations < 1 || iterations > 60)
        return ERR_INVAL;
    double lo = 0, hi = WHATIF_MAX_RECLAIMS_PER_DAY;
    int64_t g_lo, g_hi;
    bool ok_lo, ok_hi;
    enum err rc = gap_at(p, lo, &g_lo, &ok_lo);
    if (rc == ERR_OK)
        rc = gap_at(p, hi, &g_hi, &ok_hi);
    if (rc == ERR_TOOBIG) {
        /* the top of the range is past what can be simulated: narrow it first */
        for (int k = 0; k < 30 && rc == ERR_TOOBIG; k++) {
            hi /= 2;
            rc = gap_at(p, hi, &g_hi, &ok_hi);
        }
    }
    if (rc != ERR_OK)
        return rc;
    if (!ok_lo || !ok_hi || g_lo >= 0 || g_hi < 0)
        return ERR_OK; /* dearer already without reclaims, or cheaper at any rate tried */
    for (int k = 0; k < iterations; k++) {
        double mid = (lo + hi) / 2;
        int64_t g;
        bool ok;
        rc = gap_at(p, mid, &g, &ok);
        if (rc != ERR_OK)
            return rc;
        if (ok && g < 0)
            lo = mid;
        else
            hi = mid;
    }
    *rate = (lo + hi) / 2;
    *found = true;
    return ERR_OK;
}

int64_t whatif_young_daly(int64_t checkpoint_seconds, double reclaims_per_day) {
    if (checkpoint_seconds <= 0 || !(reclaims_per_day > 0))
        return 0;
    double mtbf = 86400.0 / reclaims_per_day;
    return (int64_t)llround(sqrt(2.0 * (double)checkpoint_seconds * mtbf));
}

enum err whatif_scan_interval(const struct whatif_params *p, int64_t lo, int64_t hi, int n,
                              int64_t *best, int64_t *best_cost) {
    *best = 0;
    *best_cost = 0;
    if (whatif_check(p, NULL) != ERR_OK || lo < 1 || hi < lo || hi > WHATIF_MAX_SECONDS || n < 2 ||
        n > 64)
        return ERR_INVAL;
    bool any = false;
    int64_t prev = 0;
    for (int i = 0; i < n; i++) {
        double x = (double)lo * pow((double)hi / (double)lo, (double)i / (double)(n - 1));
        int64_t c = (int64_t)llround(x);
        if (c == prev)
            continue;
        prev = c;
        struct whatif_params q = *p;
        q.checkpoint_interval = c;
        struct whatif_result r;
        enum err rc = run_mc(&q, 1u << WHATIF_SPOT, &r);
        if (rc != ERR_OK)
            return rc;
        if (r.cfg[WHATIF_SPOT].ok && (!any || r.cfg[WHATIF_SPOT].point < *best_cost)) {
            any = true;
            *best = c;
            *best_cost = r.cfg[WHATIF_SPOT].point;
        }
    }
    return ERR_OK;
}
