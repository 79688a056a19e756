/* whatif_inputs — see whatif_inputs.h. */
#include "query/whatif_inputs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/money.h"
#include "base/xalloc.h"
#include "store/store_cost.h"

static const char *const field_names[WI_NFIELDS] = {
    "reclaims_per_day",   "replacement_delay", "checkpoint_interval", "restore_seconds",
    "checkpoint_seconds", "task_hours",        "spot_price",          "on_demand_price",
    "fallback",           "attempt_overhead",  "reclaim_tail",        "idle_overhead",
    "task_mix",           "spot_pool_nodes",
};

const char *wi_field_name(enum wi_field f) {
    return (f >= 0 && f < WI_NFIELDS) ? field_names[f] : "?";
}

const char *wi_source_name(enum wi_source s) {
    return s == WI_MEASURED ? "measured" : s == WI_SUPPLIED ? "supplied" : "default";
}

__attribute__((format(printf, 4, 5))) static void mark(struct wi_inputs *in, enum wi_field f,
                                                       enum wi_source s, const char *fmt, ...) {
    in->v[f].source = s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->v[f].detail, sizeof in->v[f].detail, fmt, ap);
    va_end(ap);
}

/* The advice (Spot size) the window's Spot work ran on: the Spot
 * configuration's, else fallback's, else the one with the most exposure. */
static const struct cost_advice *main_advice(const struct cost_result *r) {
    for (int c = COST_SPOT; c <= COST_FALLBACK; c++) {
        int32_t a = r->configs[c].advice;
        if (a >= 0 && (size_t)a < r->n_advice)
            return &r->advice[a];
    }
    const struct cost_advice *best = NULL;
    for (size_t i = 0; i < r->n_advice; i++)
        if (!best || r->advice[i].exposure_seconds > best->exposure_seconds)
            best = &r->advice[i];
    return best;
}

/* List price (µ$/h) and GPUs of size in force at t (the latest change at or
 * before t, else the earliest known); 0 unknown. */
static int64_t price_at(const struct cost_input *in, const char *size, int64_t t, int64_t *gpus) {
    const struct cost_price *best = NULL, *first = NULL;
    for (size_t i = 0; i < in->n_prices; i++) {
        const struct cost_price *p = &in->prices[i];
        if (!p->size || strcmp(p->size, size) != 0)
            continue;
        if (!first || p->at < first->at)
            first = p;
        if (p->at <= t && (!best || p->at >= best->at))
            best = p;
    }
    if (!best)
        best = first;
    if (!best)
        return 0;
    *gpus = best->gpus;
    return best->price_hourly;
}

static void measure_reclaims(const struct cost_result *r, const struct cost_advice *a,
                             struct wi_inputs *in) {
    if (a && a->exposure_seconds > 0) {
        in->p.reclaims_per_day = (double)a->reclaims * 86400.0 / (double)a->exposure_seconds;
        mark(in, WI_RECLAIMS, WI_MEASURED, "%lld reclaims of %s over %.2f days of Spot pool life",
             (long long)a->reclaims, a->size ? a->size : "?",
             (double)a->exposure_seconds / 86400.0);
    } else {
        mark(in, WI_RECLAIMS, WI_DEFAULT, "no Spot pool ran in the window");
    }
    int64_t nd = 0, sd = 0, nw = 0, sw = 0, nt = 0, st = 0;
    for (size_t i = 0; i < r->n_reclaims; i++) {
        const struct cost_reclaim *k = &r->reclaims[i];
        if (k->replacement_delay_seconds != COST_NULL && k->replacement_delay_seconds >= 0)
            nd++, sd += k->replacement_delay_seconds;
        if (k->return_to_useful_work_seconds != COST_NULL && k->return_to_useful_work_seconds >= 0)
            nw++, sw += k->return_to_useful_work_seconds;
        if (k->signal_to_gone_seconds != COST_NULL && k->signal_to_gone_seconds >= 0)
            nt++, st += k->signal_to_gone_seconds;
    }
    if (nd > 0) {
        in->p.replacement_delay = (sd + nd / 2) / nd;
        mark(in, WI_DELAY, WI_MEASURED, "mean of %lld reclaims' replacement delays", (long long)nd);
    } else if (nw > 0) {
        in->p.replacement_delay = (sw + nw / 2) / nw;
        mark(in, WI_DELAY, WI_MEASURED,
             "mean return to useful work of %lld reclaims (no fallback node became Ready)",
             (long long)nw);
    } else {
        mark(in, WI_DELAY, WI_DEFAULT, "no reclaim with a known replacement in the window");
    }
    if (nt > 0) {
        in->p.reclaim_tail = (st + nt / 2) / nt;
        mark(in, WI_TAIL, WI_MEASURED, "mean signal-to-gone of %lld reclaims", (long long)nt);
    } else {
        mark(in, WI_TAIL, WI_DEFAULT, "no reclaim with a known end in the window");
    }
}

static void measure_checkpoints(const struct cost_input *ci, const struct cost_advice *a,
                                struct wi_inputs *in) {
    if (a && a->mean_checkpoint_seconds != COST_NULL && a->checkpoint_samples > 0) {
        in->p.checkpoint_seconds = a->mean_checkpoint_seconds;
        mark(in, WI_CKPT_SECONDS, WI_MEASURED, "mean of %lld task reports",
             (long long)a->checkpoint_samples);
    } else {
        mark(in, WI_CKPT_SECONDS, WI_DEFAULT, "no task report gave checkpoint_seconds");
    }
    if (a && a->interval_seconds != COST_NULL && a->interval_seconds > 0) {
        in->p.checkpoint_interval = a->interval_seconds;
        mark(in, WI_CKPT_INTERVAL, WI_DEFAULT,
             "task reports carry no interval: Young/Daly of the measured MTBR and checkpoint cost");
    } else {
        mark(in, WI_CKPT_INTERVAL, WI_DEFAULT, "task reports carry no interval: no checkpoints");
    }
    int64_t n = 0, sum = 0;
    for (size_t i = 0; i < ci->n_attempts; i++) {
        int64_t v = ci->attempts[i].restore_seconds;
        if (v > 0 && v <= WHATIF_MAX_SECONDS)
            n++, sum += v;
    }
    if (n > 0) {
        in->p.restore_seconds = (sum + n / 2) / n;
        mark(in, WI_RESTORE, WI_MEASURED, "mean of %lld task reports of a restore", (long long)n);
    } else {
        mark(in, WI_RESTORE, WI_DEFAULT, "no task report of a restore in the window");
    }
}

/* Each task's arrival: its first attempt's creation (else scheduling, else
 * start), in seconds after the window's start (0 before it or unknown). */
static int64_t *task_arrivals(const struct cost_input *ci, const struct cost_result *r) {
    int64_t *came = xcalloc(ci->n_tasks ? ci->n_tasks : 1, sizeof *came);
    for (size_t i = 0; i < ci->n_attempts; i++) {
        const struct cost_attempt *a = &ci->attempts[i];
        if (a->task < 0 || (size_t)a->task >= ci->n_tasks)
            continue;
        int64_t at = a->created_at > 0     ? a->created_at
                     : a->scheduled_at > 0 ? a->scheduled_at
                                           : a->started_at;
        if (at > 0 && (came[a->task] == 0 || at < came[a->task]))
            came[a->task] = at;
    }
    for (size_t t = 0; t < ci->n_tasks; t++) {
        int64_t off = came[t] > r->from ? came[t] - r->from : 0;
        came[t] = off > WHATIF_MAX_SECONDS ? WHATIF_MAX_SECONDS : off;
    }
    return came;
}

/* Task lengths, overhead and GPU request from the successful attempts; each
 * length also goes to its configuration's own mix. */
static void measure_tasks(const struct cost_input *ci, const struct cost_result *r,
                          struct wi_inputs *in) {
    size_t cap = ci->n_attempts < WHATIF_MAX_LENGTHS ? ci->n_attempts : WHATIF_MAX_LENGTHS;
    in->lengths = xcalloc(cap ? cap : 1, sizeof *in->lengths);
    in->arrivals = xcalloc(cap ? cap : 1, sizeof *in->arrivals);
    for (int c = 0; c < WHATIF_NCONFIG; c++) {
        in->mix_lengths[c] = xcalloc(cap ? cap : 1, sizeof *in->mix_lengths[c]);
        in->mix_arrivals[c] = xcalloc(cap ? cap : 1, sizeof *in->mix_arrivals[c]);
    }
    int64_t *came = task_arrivals(ci, r);
    int64_t n_over = 0, s_over = 0, gpu_counts[9] = {0};
    for (size_t i = 0; i < ci->n_attempts && in->nlengths < cap; i++) {
        const struct cost_attempt *a = &ci->attempts[i];
        if (a->task < 0 || (size_t)a->task >= ci->n_tasks || a->phase != COST_PHASE_SUCCEEDED)
            continue;
        const struct cost_task *t = &ci->tasks[a->task];
        if (t->outcome != COST_TASK_SUCCEEDED || t->completed_at < r->from ||
            t->completed_at >= r->to)
            continue;
        int64_t work = a->work_seconds;
        if (work <= 0 && a->started_at > 0 && a->finished_at > a->started_at)
            work = a->finished_at - a->started_at;
        if (work <= 0 || work > WHATIF_MAX_SECONDS)
            continue;
        in->arrivals[in->nlengths] = came[a->task];
        in->lengths[in->nlengths++] = work;
        if ((int)t->config >= 0 && (int)t->config < (int)WHATIF_NCONFIG) {
            struct whatif_mix *x = &in->p.mix[t->config];
            in->mix_arrivals[t->config][x->nlengths] = came[a->task];
            in->mix_lengths[t->config][x->nlengths++] = work;
            x->lengths = in->mix_lengths[t->config];
            x->arrivals = in->mix_arrivals[t->config];
            x->narrivals = x->nlengths;
        }
        if (a->scheduled_at > 0 && a->started_at >= a->scheduled_at)
            n_over++, s_over += a->started_at - a->scheduled_at;
        if (a->gpu_request >= 1 && a->gpu_request <= 8)
            gpu_counts[a->gpu_request]++;
    }
    free(came);
    if (in->nlengths > 0) {
        in->p.lengths = in->lengths;
        in->p.nlengths = in->nlengths;
        in->p.arrivals = in->arrivals;
        in->p.narrivals = in->nlengths;
        mark(in, WI_TASK, WI_MEASURED, "work of %zu successful tasks in the window", in->nlengths);
    } else {
        mark(in, WI_TASK, WI_DEFAULT, "no successful task in the window: 1 hour");
    }
    if (n_over > 0) {
        in->p.attempt_overhead = (s_over + n_over / 2) / n_over;
        mark(in, WI_OVERHEAD, WI_MEASURED, "mean scheduled-to-started of %lld attempts",
             (long long)n_over);
    } else {
        mark(in, WI_OVERHEAD, WI_DEFAULT, "no successful attempt with a known start");
    }
    int best = 0;
    for (int g = 1; g <= 8; g++)
        if (gpu_counts[g] > gpu_counts[best])
            best = g;
    in->p.gpus_task = best > 0 ? best : 1;
}

static bool in_window_success(const struct cost_input *ci, const struct cost_result *r,
                              int32_t task) {
    if (task < 0 || (size_t)task >= ci->n_tasks)
        return false;
    const struct cost_task *t = &ci->tasks[task];
    return t->outcome == COST_TASK_SUCCEEDED && t->completed_at >= r->from &&
           t->completed_at < r->to && (int)t->config >= 0 && (int)t->config < (int)WHATIF_NCONFIG;
}

/* Is attempt a's node in a Spot pool? -1 unknown. */
static int on_spot(const struct cost_input *ci, const struct cost_attempt *a) {
    if (a->node < 0 || (size_t)a->node >= ci->n_nodes)
        return -1;
    int32_t pool = ci->nodes[a->node].pool;
    if (pool < 0 || (size_t)pool >= ci->n_pools)
        return -1;
    return ci->pools[pool].capacity == COST_CAP_SPOT;
}

/* Each configuration's own mix beyond its lengths (measure_tasks): tasks per
 * replication, application failure rate, checkpointing, and for fallback the
 * share of its tasks whose first attempt ran On-Demand. */
static void measure_mix(const struct cost_input *ci, const struct cost_result *r,
                        struct wi_inputs *in) {
    bool ckpt[WHATIF_NCONFIG] = {false, false, false};
    int64_t *first = xcalloc(ci->n_tasks ? ci->n_tasks : 1, sizeof *first);
    signed char *first_spot = xcalloc(ci->n_tasks ? ci->n_tasks : 1, 1);
    for (size_t i = 0; i < ci->n_attempts; i++) {
        const struct cost_attempt *a = &ci->attempts[i];
        if (!in_window_success(ci, r, a->task))
            continue;
        if (a->phase == COST_PHASE_SUCCEEDED && a->checkpoint_seconds > 0)
            ckpt[ci->tasks[a->task].config] = true;
        int64_t at = a->scheduled_at > 0 ? a->scheduled_at : a->started_at;
        int spot = on_spot(ci, a);
        if (at > 0 && spot >= 0 && (first[a->task] == 0 || at < first[a->task])) {
            first[a->task] = at;
            first_spot[a->task] = (signed char)spot;
        }
    }
    int64_t nfb = 0, nfb_od = 0;
    for (size_t t = 0; t < ci->n_tasks; t++)
        if (first[t] > 0 && in_window_success(ci, r, (int32_t)t) &&
            ci->tasks[t].config == COST_FALLBACK)
            nfb++, nfb_od += first_spot[t] == 0;
    free(first);
    free(first_spot);
    char line[160] = "";
    size_t used = 0;
    for (int c = 0; c < WHATIF_NCONFIG; c++) {
        const struct cost_config_result *cr = &r->configs[c];
        struct whatif_mix *x = &in->p.mix[c];
        if (cr->tasks_succeeded <= 0 || x->nlengths == 0)
            continue;
        x->tasks = cr->tasks_succeeded;
        x->no_checkpoints = !ckpt[c];
        int64_t fails = cr->retries - cr->interruptions + cr->tasks_failed;
        int64_t ended = cr->attempts - cr->interruptions;
        if (fails > 0 && ended > 0) {
            int64_t ppm = 0;
            if (money_muldiv(fails, 1000000, ended, &ppm) == ERR_OK)
                x->failure_ppm = ppm > 999999 ? 999999 : ppm;
        }
        if (c == WHATIF_FALLBACK && nfb > 0 &&
            money_muldiv(nfb_od, 1000000, nfb, &x->start_od_ppm) != ERR_OK)
            x->start_od_ppm = 0;
        int n = snprintf(line + used, sizeof line - used, "%s%s: %lld tasks", used ? "; " : "",
                         cost_config_name((enum cost_config)c), (long long)x->tasks);
        if (n > 0 && (size_t)n < sizeof line - used)
            used += (size_t)n;
    }
    if (used > 0)
        mark(in, WI_MIX, WI_MEASURED, "each configuration's own successful tasks (%s)", line);
    else
        mark(in, WI_MIX, WI_DEFAULT, "no successful task in the window: one shared mix");
}

static void measure_prices(const struct calc *c, const struct cost_advice *a,
                           struct wi_inputs *in) {
    const struct cost_input *ci = &c->data->in;
    const struct cost_result *r = c->res;
    in->spot_size = a ? a->size : NULL;
    int64_t gpus = 0;
    if (in->spot_size) {
        in->p.spot_price = price_at(ci, in->spot_size, r->to - 1, &gpus);
        if (in->p.spot_price > 0)
            mark(in, WI_SPOT_PRICE, WI_MEASURED, "list price of %s", in->spot_size);
        for (size_t i = 0; i < c->n_od; i++)
            if (c->od[i].spot_size && strcmp(c->od[i].spot_size, in->spot_size) == 0 &&
                c->od[i].od_price_hourly > 0) {
                in->p.on_demand_price = c->od[i].od_price_hourly;
                mark(in, WI_OD_PRICE, WI_MEASURED, "list price of %s",
                     c->od[i].od_size ? c->od[i].od_size : "?");
                break;
            }
    }
    if (in->v[WI_SPOT_PRICE].source != WI_MEASURED)
        mark(in, WI_SPOT_PRICE, WI_DEFAULT, "no Spot size priced in the window: 0");
    if (in->v[WI_OD_PRICE].source != WI_MEASURED)
        mark(in, WI_OD_PRICE, WI_DEFAULT, "no On-Demand twin priced for the Spot size: 0");
    in->p.gpus_node = gpus >= 1 && gpus <= 64 ? (int)gpus : in->p.gpus_task;
    if (in->p.gpus_task > in->p.gpus_node)
        in->p.gpus_task = in->p.gpus_node;
}

struct edge {
    int64_t t;
    int d; /* +1 a node comes, -1 it goes */
};

static int edge_cmp(const void *a, const void *b) {
    const struct edge *x = a, *y = b;
    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    return x->d - y->d; /* a node going at t before one coming at t */
}

/* The Spot pool's nodes: the most nodes of Spot pools of the main Spot size
 * alive at once in the window (Ready, else created, to their deletion). */
static void measure_pool(const struct cost_input *ci, const struct cost_result *r,
                         const struct cost_advice *a, struct wi_inputs *in) {
    struct edge *e = xcalloc(2 * ci->n_nodes + 1, sizeof *e);
    size_t ne = 0;
    for (size_t i = 0; i < ci->n_nodes; i++) {
        const struct cost_node *n = &ci->nodes[i];
        if (n->pool < 0 || (size_t)n->pool >= ci->n_pools)
            continue;
        const struct cost_pool *pl = &ci->pools[n->pool];
        if (pl->capacity != COST_CAP_SPOT ||
            (a && a->size && (!pl->size || strcmp(pl->size, a->size) != 0)))
            continue;
        int64_t from = n->ready_at > 0 ? n->ready_at : n->created_at;
        int64_t to = n->k8s_deleted_at;
        if (n->do_deleted_at > 0 && (to == 0 || n->do_deleted_at < to))
            to = n->do_deleted_at;
        if (to == 0 || to > r->to)
            to = r->to;
        if (from < r->from)
            from = r->from;
        if (from <= 0 || from >= to)
            continue;
        e[ne++] = (struct edge){from, 1};
        e[ne++] = (struct edge){to, -1};
    }
    qsort(e, ne, sizeof *e, edge_cmp);
    int64_t now = 0, peak = 0;
    for (size_t i = 0; i < ne; i++) {
        now += e[i].d;
        if (now > peak)
            peak = now;
    }
    free(e);
    if (peak > 0) {
        in->p.pool_nodes = peak > WHATIF_MAX_POOL_NODES ? WHATIF_MAX_POOL_NODES : (int)peak;
        mark(in, WI_POOL, WI_MEASURED, "the most Spot nodes alive at once in the window");
    } else {
        mark(in, WI_POOL, WI_DEFAULT,
             "no Spot node in the window: every task on a pool of its own");
    }
}

enum err wi_measure(const struct calc *c, struct wi_inputs *out) {
    memset(out, 0, sizeof *out);
    whatif_defaults(&out->p);
    const struct cost_result *r = c->res;
    const struct cost_advice *a = main_advice(r);
    measure_reclaims(r, a, out);
    measure_checkpoints(&c->data->in, a, out);
    measure_tasks(&c->data->in, r, out);
    measure_mix(&c->data->in, r, out);
    measure_prices(c, a, out);
    measure_pool(&c->data->in, r, a, out);
    int64_t tasks = 0;
    for (int k = 0; k < COST_NCONFIG; k++) {
        tasks += r->configs[k].tasks_succeeded;
        out->measured[k] = r->configs[k].cost_per_successful_task;
    }
    out->p.tasks = tasks > 0 ? tasks : 100;
    bool idle = false;
    for (int k = 0; k < COST_NCONFIG; k++) {
        const struct cost_config_result *cr = &r->configs[k];
        int64_t ppb = 0;
        if (cr->allocated_cost > 0 && cr->idle_cost > 0 &&
            money_muldiv(cr->idle_cost, WHATIF_PPB, cr->allocated_cost, &ppb) == ERR_OK) {
            out->p.idle_ppb[k] = ppb > WHATIF_MAX_IDLE_PPB ? WHATIF_MAX_IDLE_PPB : ppb;
            idle = true;
        }
    }
    if (idle)
        mark(out, WI_IDLE, WI_MEASURED, "idle cost / allocated cost per configuration");
    else
        mark(out, WI_IDLE, WI_DEFAULT, "no idle cost in the window");
    if (r->configs[COST_FALLBACK].tasks_succeeded > 0) {
        mark(out, WI_FALLBACK, WI_MEASURED, "%lld fallback tasks succeeded in the window",
             (long long)r->configs[COST_FALLBACK].tasks_succeeded);
    } else {
        mark(out, WI_FALLBACK, WI_DEFAULT, "no fallback task in the window");
    }
    return ERR_OK;
}

void wi_release(struct wi_inputs *in) {
    free(in->lengths);
    free(in->arrivals);
    for (int c = 0; c < WHATIF_NCONFIG; c++) {
        free(in->mix_lengths[c]);
        free(in->mix_arrivals[c]);
    }
    memset(in, 0, sizeof *in);
}
