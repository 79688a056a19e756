/* cost — cost_compute: the window pass over nodes, tasks and attempts.
 *
 * Shape of the computation (each step linear, no string compare in hot loops):
 *  1. nodes: billable life, rate, share denominator; pool statistics;
 *  2. reclaim candidates per spot pool (cost_reclaim.c);
 *  3. attempts grouped by task with one counting sort (stable), each task's
 *     attempts ordered by start with an insertion sort (groups are tiny); input
 *     already grouped by task in start order is used as is;
 *  4. the task pass: per attempt its held interval, kind and share-seconds
 *     (accumulated per node and class = group x kind), counts, restore samples,
 *     counterfactual share-seconds, reclaim evidence;
 *  5. per node: total rounded once, allocated rounded once and split over the
 *     classes by largest remainder, idle = total - allocated;
 *  6. per pool: idle split over the groups by largest remainder;
 *  7. derived ratios, reclaim timelines, checkpoint advice.
 * A group is a configuration inside the query's filters (0..2) or outside (3..5). */
#include "engine/cost.h"

#include <stdlib.h>
#include <string.h>

#include "engine/cost_internal.h"
#include "base/money.h"
#include "model/billing.h"

__extension__ typedef __int128 i128;

/* round(num / den) for a 128-bit numerator, half away from zero; den > 0. */
static enum err div_round(i128 num, i128 den, int64_t *out) {
    bool neg = num < 0;
    i128 a = neg ? -num : num;
    i128 qt = a / den, rm = a % den;
    if (rm * 2 >= den)
        qt++;
    if (neg)
        qt = -qt;
    if (qt > INT64_MAX || qt < INT64_MIN)
        return ERR_TOOBIG;
    *out = (int64_t)qt;
    return ERR_OK;
}

static enum err check_input(const struct cost_input *in, const struct cost_query *q) {
    if (q->from >= q->to)
        return ERR_INVAL;
    if (in->n_attempts > INT32_MAX || in->n_tasks > INT32_MAX || in->n_nodes > INT32_MAX ||
        in->n_pools > INT32_MAX - 1)
        return ERR_TOOBIG;
    if ((in->n_pools && !in->pools) || (in->n_nodes && !in->nodes) || (in->n_tasks && !in->tasks) ||
        (in->n_attempts && !in->attempts))
        return ERR_INVAL;
    for (size_t i = 0; i < in->n_pools; i++)
        if (in->pools[i].price_hourly < 0 ||
            (in->pools[i].capacity != COST_CAP_SPOT && in->pools[i].capacity != COST_CAP_ON_DEMAND))
            return ERR_INVAL;
    for (size_t i = 0; i < in->n_nodes; i++) {
        const struct cost_node *n = &in->nodes[i];
        if (n->pool < -1 || (n->pool >= 0 && (size_t)n->pool >= in->n_pools) ||
            n->price_hourly < 0 || n->gpu_allocatable < 0 || n->cpu_allocatable_milli < 0)
            return ERR_INVAL;
    }
    for (size_t i = 0; i < in->n_tasks; i++)
        if ((unsigned)in->tasks[i].config >= COST_NCONFIG)
            return ERR_INVAL;
    return ERR_OK; /* attempts are checked in the grouping pass */
}

static void *zalloc(size_t n, size_t size, enum err *rc) {
    void *p = calloc(n ? n : 1, size);
    if (!p)
        *rc = ERR_NOMEM;
    return p;
}

void cost_result_free(struct cost_result *r) {
    if (!r)
        return;
    for (int c = 0; c < COST_NCONFIG; c++)
        free(r->configs[c].pool_seconds);
    free(r->pools);
    free(r->nodes);
    free(r->reclaims);
    free(r->advice);
    free(r->attempts);
    free(r->tasks);
    free(r);
}

/* The k-th smallest of v[0..n) (0-based), reordering v: Hoare quickselect with a
 * median-of-three pivot, O(n) expected; no full sort of a million samples. */
static int64_t select_kth(int64_t *v, size_t n, size_t k) {
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t a = v[lo], b = v[mid], c = v[hi];
        int64_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                int64_t t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* Nearest rank: the smallest sample with at least p % of samples <= it. */
static int64_t nearest_rank(int64_t *v, size_t n, int p) {
    size_t rank = ((size_t)p * n + 99) / 100;
    if (rank < 1)
        rank = 1;
    return select_kth(v, n, rank - 1);
}

/* ---- step 1: nodes and pools ---------------------------------------------- */

static void setup_nodes(struct cost_ctx *x) {
    const struct cost_input *in = x->in;
    const struct cost_query *q = x->q;
    for (size_t i = 0; i < in->n_pools; i++) {
        struct cost_pool_result *p = &x->r->pools[i];
        p->pool = (int32_t)i;
        p->id = in->pools[i].id;
        p->name = in->pools[i].name;
        p->size = in->pools[i].size;
        p->capacity = in->pools[i].capacity;
    }
    struct cost_pool_result *unk = &x->r->pools[in->n_pools];
    unk->pool = -1;
    unk->name = "unknown";
    unk->capacity = COST_CAP_ON_DEMAND;
    for (size_t p = 0; p < x->np; p++) {
        x->prt[p].min_start = 0;
        x->prt[p].all_ended = true;
        x->prt[p].reclaim = -1;
    }
    for (size_t i = 0; i < in->n_nodes; i++) {
        const struct cost_node *n = &in->nodes[i];
        struct cost_node_rt *rt = &x->nrt[i];
        struct cost_node_result *nr = &x->r->nodes[i];
        rt->pool = n->pool >= 0 ? n->pool : (int32_t)in->n_pools;
        rt->rate = cost_node_rate(in, n);
        rt->gpu = n->gpu_allocatable;
        rt->cpu = n->cpu_allocatable_milli;
        rt->d = (rt->gpu > 0 ? rt->gpu : 1) * (rt->cpu > 0 ? rt->cpu : 1);
        rt->end = cost_node_end(n);
        rt->not_ready = n->not_ready_at;
        billing_life(cost_node_start(n), rt->end, q->now, &rt->s, &rt->e);
        nr->node = (int32_t)i;
        nr->name = n->name;
        nr->pool = n->pool;
        nr->rate_hourly = rt->rate;
        nr->billable_start = rt->s;
        nr->deleted_at = rt->end;
        nr->seconds = rt->s ? billing_overlap(rt->s, rt->e, q->from, q->to) : 0;

        struct cost_pool_rt *pr = &x->prt[rt->pool];
        pr->nodes++;
        if (rt->s)
            pr->min_start = cost_min_nz(pr->min_start, rt->s);
        if (rt->end == 0)
            pr->all_ended = false;
        pr->max_end = cost_max64(pr->max_end, rt->end);
        pr->min_end = cost_min_nz(pr->min_end, rt->end);
    }
}

/* ---- step 5/6: money --------------------------------------------------------- */

static enum err price_nodes(struct cost_ctx *x) {
    const struct cost_input *in = x->in;
    struct cost_result *r = x->r;
    enum err rc;
    for (size_t i = 0; i < in->n_nodes; i++) {
        const struct cost_node_rt *rt = &x->nrt[i];
        struct cost_node_result *nr = &r->nodes[i];
        int64_t *wn = &x->w[i * COST_NCLASS];
        rc = billing_node_amount(rt->rate, rt->s, rt->end, x->q->now, x->q->from, x->q->to,
                                 &nr->total);
        if (rc != ERR_OK)
            return rc;
        i128 wsum = 0;
        for (int c = 0; c < COST_NCLASS; c++)
            wsum += wn[c];
        int64_t alloc = 0;
        if (wsum > 0) {
            rc = div_round(wsum * rt->rate, (i128)3600 * rt->d, &alloc);
            if (rc != ERR_OK)
                return rc;
        }
        if (alloc > nr->total)
            alloc = nr->total; /* overcommitted shares: scale down to the node */
        int64_t parts[COST_NCLASS];
        rc = cost_split(alloc, wn, COST_NCLASS, parts);
        if (rc != ERR_OK)
            return rc;
        nr->allocated = alloc;
        nr->idle = nr->total - alloc;
        if (x->detail)
            memcpy(&x->detail->node_class[i * COST_NCLASS], parts, sizeof parts);
        struct cost_pool_result *pr = &r->pools[rt->pool];
        struct cost_pool_rt *prt = &x->prt[rt->pool];
        if (nr->seconds > 0)
            pr->nodes++;
        pr->seconds += nr->seconds;
        pr->total += nr->total;
        pr->allocated += alloc;
        pr->idle += nr->idle;
        for (int g = 0; g < COST_NGROUP; g++) {
            int64_t gw = 0;
            for (int k = 0; k < COST_NKIND; k++) {
                x->gacc[g].kind_cost[k] += parts[g * COST_NKIND + k];
                prt->galloc[g] += parts[g * COST_NKIND + k];
                gw += wn[g * COST_NKIND + k];
            }
            if (g < COST_NCONFIG && gw > 0) {
                int64_t secs;
                rc = div_round(gw, rt->d, &secs);
                if (rc != ERR_OK)
                    return rc;
                r->configs[g].pool_seconds[rt->pool] += secs;
            }
            x->useful_parts[g] = parts[g * COST_NKIND + COST_KIND_USEFUL];
        }
        /* useful cost re-priced at the pool's On-Demand rate (break-even) */
        int64_t od = x->prt[rt->pool].od_rate;
        for (int g = 0; g < COST_NCONFIG; g++) {
            int64_t v = x->useful_parts[g];
            if (v && od && rt->rate) {
                int64_t re;
                rc = money_muldiv(v, od, rt->rate, &re);
                if (rc != ERR_OK)
                    return rc;
                r->configs[g].useful_at_on_demand += re;
            }
        }
        r->nodes_total += nr->total;
        r->allocated_total += alloc;
        r->idle_total += nr->idle;
    }
    /* pool idle over the groups */
    for (size_t p = 0; p < x->np; p++) {
        struct cost_pool_result *pr = &r->pools[p];
        struct cost_pool_rt *prt = &x->prt[p];
        const int64_t *wts = prt->galloc;
        int64_t any = 0;
        for (int g = 0; g < COST_NGROUP; g++)
            any += wts[g];
        if (any == 0) {
            wts = &x->pool_secs[p * COST_NGROUP];
            for (int g = 0; g < COST_NGROUP; g++)
                any += wts[g];
        }
        if (any == 0) {
            pr->unattributed_idle = pr->idle;
            r->unattributed_idle += pr->idle;
            continue;
        }
        int64_t parts[COST_NGROUP];
        rc = cost_split(pr->idle, wts, COST_NGROUP, parts);
        if (rc != ERR_OK)
            return rc;
        for (int g = 0; g < COST_NGROUP; g++)
            x->gacc[g].idle += parts[g];
        if (x->detail) {
            memcpy(&x->detail->pool_idle[p * COST_NGROUP], parts, sizeof parts);
            x->detail->pool_by_alloc[p] = wts == prt->galloc;
        }
    }
    return ERR_OK;
}

/* ---- step 7: per configuration ---------------------------------------------- */

static enum err ratio_bp(int64_t num, int64_t den, int64_t *out) {
    if (den == 0) {
        *out = COST_NULL;
        return ERR_OK;
    }
    return money_muldiv(num, 10000, den, out);
}

static enum err finish_configs(struct cost_ctx *x) {
    struct cost_result *r = x->r;
    enum err rc;
    for (int g = COST_NCONFIG; g < COST_NGROUP; g++) {
        const struct cost_group_acc *ga = &x->gacc[g];
        r->excluded_cost += ga->idle;
        for (int k = 0; k < COST_NKIND; k++)
            r->excluded_cost += ga->kind_cost[k];
    }
    struct cost_counterfactual *cf = &r->counterfactual;
    for (int c = 0; c < COST_NCONFIG; c++) {
        struct cost_config_result *cr = &r->configs[c];
        const struct cost_group_acc *ga = &x->gacc[c];
        cr->config = (enum cost_config)c;
        cr->selected = x->q->configs == 0 || (x->q->configs & (1u << c));
        cr->tasks_succeeded = ga->n.succeeded;
        cr->tasks_failed = ga->n.failed;
        cr->tasks_running = ga->n.running;
        cr->attempts = ga->n.attempts;
        cr->retries = ga->n.retries;
        cr->interruptions = ga->n.interruptions;
        cr->duplicates = ga->n.duplicates;
        cr->duplicate_seconds = ga->n.dup_secs;
        cr->partial = ga->partial;
        if (cr->selected && ga->partial)
            r->partial = true;
        cr->useful_cost = ga->kind_cost[COST_KIND_USEFUL];
        cr->restore_cost = ga->kind_cost[COST_KIND_RESTORE];
        cr->wasted_cost = ga->kind_cost[COST_KIND_WASTED];
        cr->running_cost = ga->kind_cost[COST_KIND_RUNNING];
        cr->allocated_cost =
            cr->useful_cost + cr->restore_cost + cr->wasted_cost + cr->running_cost;
        cr->idle_cost = ga->idle;
        cr->cost = cr->allocated_cost + cr->idle_cost;
        cr->cost_per_successful_task = COST_NULL;
        if (cr->tasks_succeeded) {
            rc = money_muldiv(cr->cost, 1, cr->tasks_succeeded, &cr->cost_per_successful_task);
            if (rc != ERR_OK)
                return rc;
        }
        /* restore percentiles */
        size_t n = x->samples[c].len / sizeof(int64_t);
        cr->restore.samples = (int64_t)n;
        cr->restore.p50 = cr->restore.p95 = COST_NULL;
        if (n) {
            int64_t *v = (int64_t *)(void *)x->samples[c].data;
            for (size_t i = 0; i < n; i++)
                cr->restore.total += v[i];
            cr->restore.p50 = nearest_rank(v, n, 50);
            cr->restore.p95 = nearest_rank(v, n, 95);
        }
        int64_t extra = cr->wasted_cost + cr->restore_cost + cr->idle_cost;
        if (cr->useful_cost) {
            rc = ratio_bp(extra, cr->useful_cost, &cr->measured_overhead_bp);
            if (rc == ERR_OK)
                rc = ratio_bp(cr->useful_at_on_demand - cr->useful_cost, cr->useful_cost,
                              &cr->break_even_overhead_bp);
            if (rc != ERR_OK)
                return rc;
        } else {
            cr->measured_overhead_bp = cr->break_even_overhead_bp = COST_NULL;
        }
        cr->savings_vs_on_demand_bp = COST_NULL;
        cr->advice = -1;
        if (c == COST_ON_DEMAND) {
            cr->counterfactual_cost = 0;
            continue;
        }
        if (cr->counterfactual_tasks && cr->tasks_succeeded && cr->counterfactual_cost) {
            int64_t cf_pt, pt;
            rc = money_muldiv(cr->counterfactual_cost, 1, cr->counterfactual_tasks, &cf_pt);
            if (rc == ERR_OK)
                rc = money_muldiv(cr->cost, 1, cr->tasks_succeeded, &pt);
            if (rc == ERR_OK && cf_pt)
                rc = ratio_bp(cf_pt - pt, cf_pt, &cr->savings_vs_on_demand_bp);
            if (rc != ERR_OK)
                return rc;
        }
    }
    for (int c = 0; c < 2; c++) {
        if (!r->configs[c].selected)
            continue;
        cf->tasks_reported_work += x->cf_reported[c];
        cf->tasks_run_time += x->cf_runtime[c];
    }
    /* cf->tasks counted every selected successful spot/fallback task */
    cf->tasks_unpriced = cf->tasks - cf->tasks_priced;
    cf->cost_per_successful_task = COST_NULL;
    if (cf->tasks_priced) {
        rc = money_muldiv(cf->cost, 1, cf->tasks_priced, &cf->cost_per_successful_task);
        if (rc != ERR_OK)
            return rc;
    }
    return ERR_OK;
}

/* ---- orchestration ---------------------------------------------------------- */

bool cost_task_selected(const struct cost_query *q, const struct cost_task *t) {
    if (q->configs && !(q->configs & (1u << t->config)))
        return false;
    if (q->experiment && (!t->experiment || strcmp(q->experiment, t->experiment) != 0))
        return false;
    if (q->ns && (!t->ns || strcmp(q->ns, t->ns) != 0))
        return false;
    return true;
}

static void ctx_release(struct cost_ctx *x) {
    free(x->nrt);
    free(x->prt);
    free(x->w);
    buf_release(&x->cf);
    buf_release(&x->running);
    free(x->pool_secs);
    free(x->tgroup);
    free(x->toff);
    free(x->ord);
    for (int g = 0; g < COST_NGROUP; g++)
        buf_release(&x->samples[g]);
    free(x->scratch);
    free(x->cand);
}

static enum err compute_all(const struct cost_input *in, const struct cost_query *q,
                            const struct cost_hook *hook, struct cost_detail *detail,
                            struct cost_result **out);

enum err cost_compute(const struct cost_input *in, const struct cost_query *q,
                      struct cost_result **out) {
    return cost_compute_hooked(in, q, NULL, out);
}

enum err cost_compute_hooked(const struct cost_input *in, const struct cost_query *q,
                             const struct cost_hook *hook, struct cost_result **out) {
    return compute_all(in, q, hook, NULL, out);
}

enum err cost_compute_detail(const struct cost_input *in, const struct cost_query *q,
                             struct cost_result **out, struct cost_detail *detail) {
    return compute_all(in, q, NULL, detail, out);
}

static enum err compute_all(const struct cost_input *in, const struct cost_query *q,
                            const struct cost_hook *hook, struct cost_detail *detail,
                            struct cost_result **out) {
    enum err rc = check_input(in, q);
    if (rc != ERR_OK)
        return rc;
    struct cost_ctx x;
    memset(&x, 0, sizeof x);
    for (int g = 0; g < COST_NGROUP; g++)
        buf_init(&x.samples[g], 0);
    buf_init(&x.cf, 0);
    buf_init(&x.running, 0);
    x.in = in;
    x.q = q;
    x.detail = detail;
    x.np = in->n_pools + 1;
    x.hook = hook;
    struct cost_result *r = zalloc(1, sizeof *r, &rc);
    if (!r)
        goto out;
    x.r = r;
    r->from = q->from;
    r->to = q->to;
    r->now = q->now;
    r->n_pools = x.np;
    r->n_nodes = in->n_nodes;
    r->pools = zalloc(x.np, sizeof *r->pools, &rc);
    r->nodes = zalloc(in->n_nodes, sizeof *r->nodes, &rc);
    if (q->want_attempts) {
        r->attempts = zalloc(in->n_attempts, sizeof *r->attempts, &rc);
        if (r->attempts)
            r->tasks = zalloc(in->n_tasks ? in->n_tasks : 1, sizeof *r->tasks, &rc);
        for (size_t i = 0; r->attempts && i < in->n_attempts; i++)
            r->attempts[i].restore_seconds = COST_NULL;
    }
    for (int c = 0; c < COST_NCONFIG; c++)
        r->configs[c].pool_seconds = zalloc(x.np, sizeof(int64_t), &rc);
    x.nrt = zalloc(in->n_nodes, sizeof *x.nrt, &rc);
    x.prt = zalloc(x.np, sizeof *x.prt, &rc);
    x.w = zalloc(in->n_nodes * COST_NCLASS, sizeof *x.w, &rc);
    x.pool_secs = zalloc(x.np * COST_NGROUP, sizeof *x.pool_secs, &rc);
    x.tgroup = zalloc(in->n_tasks, sizeof *x.tgroup, &rc);
    x.toff = zalloc(in->n_tasks + 1, sizeof *x.toff, &rc);
    if (rc != ERR_OK)
        goto out;

    setup_nodes(&x);
    rc = cost_reclaim_candidates(&x);
    if (rc != ERR_OK)
        goto out;

    /* attempts grouped by task: counting sort, stable */
    for (size_t t = 0; t < in->n_tasks; t++) {
        const struct cost_task *task = &in->tasks[t];
        x.tgroup[t] = (uint8_t)(task->config + (cost_task_selected(q, task) ? 0 : COST_NCONFIG));
    }
    /* one pass: check every attempt, count per task, and see whether the input
     * is already grouped by task in start order (then no permutation at all) */
    bool grouped = true;
    int32_t prev_task = -1;
    int64_t prev_key = INT64_MIN;
    for (size_t i = 0; i < in->n_attempts; i++) {
        const struct cost_attempt *a = &in->attempts[i];
        if (a->task < 0 || (size_t)a->task >= in->n_tasks || a->node < -1 ||
            (a->node >= 0 && (size_t)a->node >= in->n_nodes) || a->gpu_request < 0 ||
            a->cpu_request_milli < 0) {
            rc = ERR_INVAL;
            goto out;
        }
        x.toff[a->task + 1]++;
        int64_t key = cost_attempt_order(a);
        if (a->task < prev_task || (a->task == prev_task && key < prev_key))
            grouped = false;
        prev_task = a->task;
        prev_key = key;
    }
    size_t maxk = 0;
    for (size_t t = 0; t < in->n_tasks; t++) {
        if ((size_t)x.toff[t + 1] > maxk)
            maxk = (size_t)x.toff[t + 1];
        x.toff[t + 1] += x.toff[t];
    }
    x.scratch = zalloc(maxk, cost_task_scratch_bytes(), &rc);
    if (rc != ERR_OK)
        goto out;
    if (!grouped) { /* counting sort by task, stable */
        x.ord = zalloc(in->n_attempts, sizeof *x.ord, &rc);
        int32_t *fill = zalloc(in->n_tasks, sizeof *fill, &rc);
        if (rc != ERR_OK) {
            free(fill);
            goto out;
        }
        memcpy(fill, x.toff, in->n_tasks * sizeof *fill);
        for (size_t i = 0; i < in->n_attempts; i++)
            x.ord[fill[in->attempts[i].task]++] = (int32_t)i;
        free(fill);
    }

    rc = cost_task_pass(&x);
    if (rc == ERR_OK && hook)
        rc = hook->after_pass(&x, hook->arg);
    if (rc != ERR_OK)
        goto out;
    cost_resolve_od_rates(&x);
    /* the passes after the task pass, in order; the first error stops them */
    static enum err (*const finish[])(struct cost_ctx *) = {
        price_nodes, cost_counterfactual, finish_configs, cost_reclaim_finish, cost_advice_build};
    for (size_t k = 0; k < sizeof finish / sizeof finish[0] && rc == ERR_OK; k++)
        rc = finish[k](&x);
    if (rc != ERR_OK)
        goto out;
    r->pools[in->n_pools].od_price_hourly = 0;
    for (size_t p = 0; p < in->n_pools; p++)
        r->pools[p].od_price_hourly = x.prt[p].od_rate;
out:
    ctx_release(&x);
    if (rc != ERR_OK) {
        cost_result_free(r);
        return rc;
    }
    *out = r;
    return ERR_OK;
}
