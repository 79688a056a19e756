/* api_whatif — GET /api/v1/whatif (api_whatif.h). */
#include "http/api_whatif.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/money.h"
#include "http/api.h"
#include "http/api_cost.h"
#include "plan/whatif.h"
#include "query/whatif_inputs.h"

static const char *const params[] = {"reclaims_per_day",
                                     "replacement_delay",
                                     "checkpoint_interval",
                                     "checkpoint_seconds",
                                     "restore_seconds",
                                     "spot_price",
                                     "on_demand_price",
                                     "task_hours",
                                     "fallback",
                                     "samples",
                                     NULL};

/* What the request supplied. */
struct supplied {
    bool has[WI_NFIELDS];
    double reclaims, task_hours;
    int64_t delay, ckpt_interval, ckpt_seconds, restore, spot, od;
    bool fallback;
    int samples; /* 0: default */
};

__attribute__((format(printf, 3, 4))) static bool bad(struct response *resp, const char *name,
                                                      const char *fmt, ...) {
    char why[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    response_error(resp, 400, "bad_parameter", "%s: %s", name, why);
    return false;
}

/* A finite decimal in [lo, hi] (lo_open: > lo). */
static bool get_real(struct request *req, struct response *resp, const char *name, double lo,
                     bool lo_open, double hi, double *out, bool *has) {
    const char *s = request_param(req, name);
    if (!s)
        return true;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || (lo_open && v <= lo) || v > hi)
        return bad(resp, name, "expected a number %s %g and <= %g", lo_open ? ">" : ">=", lo, hi);
    *out = v;
    *has = true;
    return true;
}

/* Whole seconds in [lo, WHATIF_MAX_SECONDS]. */
static bool get_secs(struct request *req, struct response *resp, const char *name, int64_t lo,
                     int64_t *out, bool *has) {
    const char *s = request_param(req, name);
    if (!s)
        return true;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > WHATIF_MAX_SECONDS)
        return bad(resp, name, "expected whole seconds %lld..%lld", (long long)lo,
                   (long long)WHATIF_MAX_SECONDS);
    *out = v;
    *has = true;
    return true;
}

/* USD per node-hour as a plain decimal ("2.99"), 0..WHATIF_MAX_PRICE µ$. */
static bool get_price(struct request *req, struct response *resp, const char *name, int64_t *out,
                      bool *has) {
    const char *s = request_param(req, name);
    if (!s)
        return true;
    int64_t v;
    if (money_parse(s, strlen(s), 0, &v) != ERR_OK || v < 0 || v > WHATIF_MAX_PRICE)
        return bad(resp, name, "expected USD per node-hour, a decimal 0..%lld",
                   (long long)(WHATIF_MAX_PRICE / 1000000));
    *out = v;
    *has = true;
    return true;
}

static bool parse_supplied(struct request *req, struct response *resp, struct supplied *s) {
    memset(s, 0, sizeof *s);
    if (!get_real(req, resp, "reclaims_per_day", 0, false, WHATIF_MAX_RECLAIMS_PER_DAY,
                  &s->reclaims, &s->has[WI_RECLAIMS]) ||
        !get_secs(req, resp, "replacement_delay", 0, &s->delay, &s->has[WI_DELAY]) ||
        !get_secs(req, resp, "checkpoint_interval", 0, &s->ckpt_interval,
                  &s->has[WI_CKPT_INTERVAL]) ||
        !get_secs(req, resp, "checkpoint_seconds", 0, &s->ckpt_seconds, &s->has[WI_CKPT_SECONDS]) ||
        !get_secs(req, resp, "restore_seconds", 0, &s->restore, &s->has[WI_RESTORE]) ||
        !get_price(req, resp, "spot_price", &s->spot, &s->has[WI_SPOT_PRICE]) ||
        !get_price(req, resp, "on_demand_price", &s->od, &s->has[WI_OD_PRICE]) ||
        !get_real(req, resp, "task_hours", 0, true, (double)WHATIF_MAX_SECONDS / 3600.0,
                  &s->task_hours, &s->has[WI_TASK]))
        return false;
    if (s->has[WI_TASK] && llround(s->task_hours * 3600.0) < 1)
        return bad(resp, "task_hours", "must be at least one second");
    const char *f = request_param(req, "fallback");
    if (f) {
        if (strcmp(f, "on") != 0 && strcmp(f, "off") != 0)
            return bad(resp, "fallback", "expected on or off");
        s->fallback = strcmp(f, "on") == 0;
        s->has[WI_FALLBACK] = true;
    }
    const char *n = request_param(req, "samples");
    if (n) {
        char *end;
        errno = 0;
        long v = strtol(n, &end, 10);
        if (errno || end == n || *end || v < API_WHATIF_MIN_SAMPLES || v > API_WHATIF_MAX_SAMPLES)
            return bad(resp, "samples", "expected %d..%d", API_WHATIF_MIN_SAMPLES,
                       API_WHATIF_MAX_SAMPLES);
        s->samples = (int)v;
    }
    return true;
}

/* The response cache key's part for the parameters ("-" where not supplied). */
static void cache_key(const struct supplied *s, char *out, size_t n) {
    snprintf(out, n, "wi|%.17g|%lld|%lld|%lld|%lld|%lld|%lld|%.17g|%d|%d",
             s->has[WI_RECLAIMS] ? s->reclaims : -1.0,
             (long long)(s->has[WI_DELAY] ? s->delay : -1),
             (long long)(s->has[WI_CKPT_INTERVAL] ? s->ckpt_interval : -1),
             (long long)(s->has[WI_CKPT_SECONDS] ? s->ckpt_seconds : -1),
             (long long)(s->has[WI_RESTORE] ? s->restore : -1),
             (long long)(s->has[WI_SPOT_PRICE] ? s->spot : -1),
             (long long)(s->has[WI_OD_PRICE] ? s->od : -1), s->has[WI_TASK] ? s->task_hours : -1.0,
             s->has[WI_FALLBACK] ? (int)s->fallback : -1, s->samples);
}

/* The replications when samples is not supplied (docs/whatif.md "The Monte
 * Carlo"): as many as API_WHATIF_MAX_WORK allows for the window's tasks per
 * replication, within WHATIF_DEFAULT_RUNS..API_WHATIF_MAX_SAMPLES. A small
 * window gets 2,000 (its interval's edges placed closely, at the cost a large
 * window's 200 already take); a window of 10,000 tasks or more keeps 200. */
static int default_runs(int64_t tasks) {
    int64_t r = API_WHATIF_MAX_WORK / (tasks > 1 ? tasks : 1);
    if (r < WHATIF_DEFAULT_RUNS)
        r = WHATIF_DEFAULT_RUNS;
    if (r > API_WHATIF_MAX_SAMPLES)
        r = API_WHATIF_MAX_SAMPLES;
    return (int)r;
}

static void apply_supplied(const struct supplied *s, struct wi_inputs *in) {
    struct whatif_params *p = &in->p;
    if (s->has[WI_RECLAIMS])
        p->reclaims_per_day = s->reclaims;
    if (s->has[WI_DELAY])
        p->replacement_delay = s->delay;
    if (s->has[WI_CKPT_INTERVAL]) {
        p->checkpoint_interval = s->ckpt_interval; /* for every configuration */
        for (int c = 0; c < WHATIF_NCONFIG; c++)
            p->mix[c].no_checkpoints = false;
    }
    if (s->has[WI_CKPT_SECONDS])
        p->checkpoint_seconds = s->ckpt_seconds;
    if (s->has[WI_RESTORE])
        p->restore_seconds = s->restore;
    if (s->has[WI_SPOT_PRICE])
        p->spot_price = s->spot;
    if (s->has[WI_OD_PRICE])
        p->on_demand_price = s->od;
    if (s->has[WI_TASK]) {
        p->length = (struct plan_duration){PLAN_DIST_FIXED, llround(s->task_hours * 3600.0), 0};
        p->lengths = NULL;
        p->nlengths = 0;
        for (int c = 0; c < WHATIF_NCONFIG; c++) { /* one length for every configuration */
            p->mix[c].lengths = NULL;
            p->mix[c].nlengths = 0;
        }
    }
    if (s->has[WI_FALLBACK])
        p->fallback = s->fallback;
    for (int f = 0; f < WI_NFIELDS; f++)
        if (s->has[f]) {
            in->v[f].source = WI_SUPPLIED;
            in->v[f].detail[0] = '\0';
        }
    if (s->samples)
        p->runs = s->samples;
    else
        p->runs = default_runs(p->tasks);
}

static void param_open(struct jsonw *w, enum wi_field f) {
    jsonw_key(w, wi_field_name(f));
    jsonw_obj(w);
    jsonw_key(w, "value");
}

static void param_close(struct jsonw *w, const struct wi_inputs *in, enum wi_field f) {
    jsonw_kstr(w, "source", wi_source_name(in->v[f].source));
    jsonw_kstr(w, "detail", in->v[f].detail[0] ? in->v[f].detail : NULL);
    jsonw_obj_end(w);
}

static const char *const config_names[WHATIF_NCONFIG] = {"spot", "fallback", "on-demand"};

/* Mean work hours x 1000 of n lengths (rounded). */
static int64_t milli_hours(const int64_t *lengths, size_t n) {
    int64_t sum = 0, out; /* <= WHATIF_MAX_LENGTHS x WHATIF_MAX_SECONDS: fits */
    for (size_t i = 0; i < n; i++)
        sum += lengths[i];
    return money_muldiv(sum, 1000, (int64_t)n * 3600, &out) == ERR_OK ? out : 0;
}

/* Each configuration's mix: its tasks per replication, mean hours (null: the
 * shared lengths), failure rate, checkpointing, fallback's start on the
 * fallback pool. */
static void write_mix(struct jsonw *w, const struct whatif_params *p) {
    jsonw_obj(w);
    for (int c = 0; c < WHATIF_NCONFIG; c++) {
        const struct whatif_mix *x = &p->mix[c];
        jsonw_key(w, config_names[c]);
        jsonw_obj(w);
        jsonw_kint(w, "tasks", x->tasks ? x->tasks : p->tasks);
        jsonw_key(w, "task_hours");
        if (x->nlengths)
            jsonw_fixed(w, milli_hours(x->lengths, x->nlengths), 3);
        else
            jsonw_null(w);
        jsonw_key(w, "failure_rate");
        jsonw_fixed(w, x->failure_ppm, 6);
        jsonw_kbool(w, "checkpoints", !x->no_checkpoints && p->checkpoint_interval > 0);
        if (c == WHATIF_FALLBACK) {
            jsonw_key(w, "starts_on_fallback");
            jsonw_fixed(w, x->start_od_ppm, 6);
        }
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
}

static void write_parameters(struct jsonw *w, const struct wi_inputs *in) {
    const struct whatif_params *p = &in->p;
    jsonw_key(w, "parameters");
    jsonw_obj(w);
    for (int f = 0; f < WI_NFIELDS; f++) {
        param_open(w, (enum wi_field)f);
        switch ((enum wi_field)f) {
        case WI_RECLAIMS:
            jsonw_fixed(w, llround(p->reclaims_per_day * 1000.0), 3);
            break;
        case WI_DELAY:
            jsonw_int(w, p->replacement_delay);
            break;
        case WI_CKPT_INTERVAL:
            jsonw_int(w, p->checkpoint_interval);
            break;
        case WI_RESTORE:
            jsonw_int(w, p->restore_seconds);
            break;
        case WI_CKPT_SECONDS:
            jsonw_int(w, p->checkpoint_seconds);
            break;
        case WI_TASK:
            jsonw_fixed(w,
                        p->nlengths ? milli_hours(p->lengths, p->nlengths)
                                    : (p->length.a * 1000 + 1800) / 3600,
                        3);
            jsonw_kstr(w, "distribution", p->nlengths ? "measured" : "fixed");
            jsonw_kint(w, "samples", (int64_t)(p->nlengths ? p->nlengths : 1));
            break;
        case WI_SPOT_PRICE:
            jsonw_money(w, p->spot_price);
            break;
        case WI_OD_PRICE:
            jsonw_money(w, p->on_demand_price);
            break;
        case WI_FALLBACK:
            jsonw_bool(w, p->fallback);
            break;
        case WI_OVERHEAD:
            jsonw_int(w, p->attempt_overhead);
            break;
        case WI_TAIL:
            jsonw_int(w, p->reclaim_tail);
            break;
        case WI_IDLE:
            jsonw_obj(w);
            for (int c = 0; c < WHATIF_NCONFIG; c++) {
                jsonw_key(w, config_names[c]);
                jsonw_fixed(w, (p->idle_ppb[c] + 50000) / 100000, 4);
            }
            jsonw_obj_end(w);
            break;
        case WI_MIX:
            write_mix(w, p);
            break;
        case WI_POOL:
            jsonw_int(w, p->pool_nodes);
            break;
        case WI_NFIELDS:
            break;
        }
        param_close(w, in, (enum wi_field)f);
    }
    jsonw_obj_end(w);
}

static void write_configs(struct jsonw *w, const struct wi_inputs *in,
                          const struct whatif_result *r) {
    jsonw_key(w, "configurations");
    jsonw_arr(w);
    for (int c = 0; c < WHATIF_NCONFIG; c++) {
        const struct whatif_estimate *e = &r->cfg[c];
        jsonw_obj(w);
        jsonw_kstr(w, "configuration", config_names[c]);
        jsonw_key(w, "cost_per_successful_task");
        if (e->ok)
            jsonw_money(w, e->point);
        else
            jsonw_null(w);
        jsonw_key(w, "interval");
        if (e->ok && e->interval) {
            jsonw_obj(w);
            jsonw_kmoney(w, "low", e->lo);
            jsonw_kmoney(w, "high", e->hi);
            jsonw_obj_end(w);
        } else {
            jsonw_null(w);
        }
        jsonw_kstr(w, "interval_reason", e->reason[0] ? e->reason : NULL);
        jsonw_key(w, "measured_cost_per_successful_task");
        if (in->measured[c] != COST_NULL)
            jsonw_money(w, in->measured[c]);
        else
            jsonw_null(w);
        jsonw_kint(w, "successes", e->successes);
        jsonw_kint(w, "failures", e->failures);
        jsonw_kint(w, "attempts", e->attempts);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

/* Break-even and checkpoint interval on a smaller model (API_WHATIF_AUX_*). */
static void write_aux(struct jsonw *w, const struct whatif_params *p) {
    struct whatif_params a = *p;
    /* one workload on the three configurations: the window's pooled tasks */
    memset(a.mix, 0, sizeof a.mix);
    /* per task (docs/whatif.md "Break-even"): a capped sample of the window's
     * arrivals would misstate the pool's load */
    a.pool_nodes = 0;
    a.runs = API_WHATIF_AUX_RUNS;
    if (a.tasks > API_WHATIF_AUX_TASKS)
        a.tasks = API_WHATIF_AUX_TASKS;
    a.fallback = true;
    double rate = 0;
    bool found = false;
    enum err rc = whatif_break_even(&a, API_WHATIF_BISECT_STEPS, &rate, &found);
    jsonw_key(w, "break_even_reclaims_per_day");
    if (rc == ERR_OK && found)
        jsonw_fixed(w, llround(rate * 1000.0), 3);
    else
        jsonw_null(w);
    int64_t yd = whatif_young_daly(p->checkpoint_seconds, p->reclaims_per_day);
    int64_t best = 0, best_cost = 0;
    if (yd > 0) {
        int64_t hi = yd * 4 > WHATIF_MAX_SECONDS ? WHATIF_MAX_SECONDS : yd * 4;
        int64_t lo = yd / 4 < 1 ? 1 : yd / 4;
        if (whatif_scan_interval(&a, lo, hi, API_WHATIF_SCAN_POINTS, &best, &best_cost) != ERR_OK)
            best = 0;
    }
    jsonw_key(w, "best_checkpoint_interval");
    jsonw_obj(w);
    jsonw_key(w, "young_daly_seconds");
    if (yd > 0)
        jsonw_int(w, yd);
    else
        jsonw_null(w);
    jsonw_key(w, "simulated_seconds");
    if (best > 0)
        jsonw_int(w, best);
    else
        jsonw_null(w);
    jsonw_obj_end(w);
}

static void write_model(struct jsonw *w, const struct whatif_params *p, int64_t window_tasks) {
    jsonw_key(w, "model");
    jsonw_obj(w);
    jsonw_kint(w, "seed", (int64_t)p->seed);
    jsonw_kint(w, "runs", p->runs);
    jsonw_kint(w, "tasks_per_run", p->tasks);
    jsonw_kbool(w, "tasks_per_run_capped", p->tasks < window_tasks);
    jsonw_kstr(w, "description",
               p->pool_nodes > 0
                   ? "seeded Monte Carlo over spotsim's task model on the window's Spot pool: "
                     "tasks queue for its nodes, whole-pool Poisson reclaims cut every running "
                     "attempt at once, checkpointed work survives; interval: 2.5th-97.5th "
                     "percentile of the runs' cost per successful task (docs/whatif.md)"
                   : "seeded Monte Carlo over spotsim's task model, per task: whole-pool "
                     "Poisson reclaims cut the running attempt, checkpointed work survives; "
                     "interval: 2.5th-97.5th percentile of the runs' cost per successful task "
                     "(docs/whatif.md)");
    jsonw_obj_end(w);
}

void api_whatif(struct request *req, struct response *resp) {
    struct api_query q;
    struct supplied s;
    struct api_cache_slot slot;
    char key[256];
    if (!api_query_parse(req, resp, &q, params) || !parse_supplied(req, resp, &s))
        return;
    cache_key(&s, key, sizeof key);
    if (api_cache_lookup(req, resp, &q, key, &slot))
        return;
    struct calc c;
    if (!api_calc_run(req, resp, &q, q.w.from, q.w.to, false, &c))
        return;
    struct wi_inputs in;
    wi_measure(&c, &in);
    apply_supplied(&s, &in);
    struct whatif_params *p = &in.p;
    int64_t window_tasks = p->tasks;
    int runs = p->runs ? p->runs : WHATIF_DEFAULT_RUNS;
    if (p->tasks * runs > API_WHATIF_MAX_WORK)
        p->tasks = API_WHATIF_MAX_WORK / runs;
    for (int k = 0; k < WHATIF_NCONFIG; k++)
        if (p->mix[k].tasks > p->tasks)
            p->mix[k].tasks = p->tasks;
    const char *field = NULL;
    struct whatif_result r;
    enum err rc = whatif_check(p, &field);
    if (rc != ERR_OK) {
        bad(resp, field ? field : "?", "the value (supplied or measured) is out of range");
    } else if ((rc = whatif_run(p, &r)) == ERR_TOOBIG) {
        response_error(resp, 422, "model_too_large",
                       "the model needs more than %lld simulated attempts: fewer samples, "
                       "checkpoints or a lower reclaim rate",
                       (long long)WHATIF_MAX_ATTEMPTS_TOTAL);
    } else if (rc != ERR_OK) {
        response_error(resp, 500, "internal", "the planner failed: %s", err_str(rc));
    } else {
        struct jsonw w;
        jsonw_init(&w, &resp->body);
        jsonw_obj(&w);
        api_write_window(&w, &q.w);
        write_parameters(&w, &in);
        write_configs(&w, &in, &r);
        write_aux(&w, p);
        write_model(&w, p, window_tasks);
        jsonw_obj_end(&w);
        buf_putc(&resp->body, '\n');
        response_json(resp, w.rc == ERR_OK ? 200 : 500);
        api_cache_store(req, resp, &slot);
    }
    wi_release(&in);
    calc_release(&c);
}
