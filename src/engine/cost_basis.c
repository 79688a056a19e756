/* cost_basis — the completion basis (cost.h, docs/cost-model.md "Cost bases").
 *
 * For the tasks that succeeded in W: every grid window V (windows of W's length
 * aligned on W) one of their attempts held a node in is computed as the accrual
 * basis computes it (cost_compute_detail: each node's allocated cost per class,
 * each pool's idle per group), then
 *  1. each node's allocated cost of a class (group x kind) is split over the
 *     group's tasks on that node by their share-seconds there in V;
 *  2. each pool's idle of a group is split over the group's tasks by their
 *     allocated cost in the pool (step 1), or by their held seconds where the
 *     accrual basis split that pool's idle by held seconds;
 * both by largest remainder (cost_split) with the tasks in uid order, so a tie
 * goes to the smaller uid. The parts of the tasks succeeding in W are summed per
 * configuration. Exact in micro-dollars: over all tasks the parts of V sum to
 * V's accrual figures. */
#include "engine/cost.h"

#include <stdlib.h>
#include <string.h>

#include "engine/cost_internal.h"
#include "base/money.h"
#include "model/billing.h"

static int64_t max64(int64_t a, int64_t b) {
    return a > b ? a : b;
}
static int64_t min64(int64_t a, int64_t b) {
    return a < b ? a : b;
}
/* floor(a / b), b > 0 */
static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static bool succeeded_in(const struct cost_query *q, const struct cost_task *t) {
    return t->outcome == COST_TASK_SUCCEEDED && t->completed_at != 0 &&
           t->completed_at >= q->from && t->completed_at < q->to && cost_task_selected(q, t);
}

/* The held intervals of every attempt (window independent): q with want_attempts. */
static enum err held_of(const struct cost_input *in, const struct cost_query *q,
                        struct cost_result **out) {
    struct cost_query ql = *q;
    ql.want_attempts = true;
    return cost_compute(in, &ql, out);
}

/* Grid indices [*k0, *k1] of the windows the attempts of the tasks succeeding in
 * W held nodes in (W itself is k = 0 and always included). */
static enum err grid_of(const struct cost_input *in, const struct cost_query *q,
                        const struct cost_result *life, int64_t *k0, int64_t *k1) {
    int64_t len = q->to - q->from;
    *k0 = 0;
    *k1 = 0;
    for (size_t i = 0; i < in->n_attempts; i++) {
        const struct cost_attempt_result *ar = &life->attempts[i];
        if (!succeeded_in(q, &in->tasks[in->attempts[i].task]) || ar->start == 0 ||
            ar->end <= ar->start)
            continue;
        *k0 = min64(*k0, floor_div(ar->start - q->from, len));
        *k1 = max64(*k1, floor_div(ar->end - 1 - q->from, len));
    }
    if (*k1 - *k0 + 1 > COST_BASIS_MAX_WINDOWS)
        return ERR_TOOBIG;
    return ERR_OK;
}

enum err cost_completion_span(const struct cost_input *in, const struct cost_query *q,
                              int64_t *from, int64_t *to) {
    struct cost_result *life = NULL;
    enum err rc = held_of(in, q, &life);
    int64_t k0 = 0, k1 = 0;
    if (rc == ERR_OK)
        rc = grid_of(in, q, life, &k0, &k1);
    cost_result_free(life);
    if (rc != ERR_OK)
        return rc;
    *from = q->from + k0 * (q->to - q->from);
    *to = q->from + (k1 + 1) * (q->to - q->from);
    return ERR_OK;
}

/* One weight of one task: on a node in a class (step 1) or in a pool for a
 * group (step 2). */
struct entry {
    int32_t at;   /* node (step 1) or pool row (step 2) */
    int32_t cls;  /* class (step 1) or group (step 2) */
    int32_t rank; /* the task's place in uid order */
    int32_t task;
    int64_t w;    /* share-seconds (step 1) or allocated µ$ (step 2) */
    int64_t held; /* held seconds (the idle split's second tier) */
};

static int cmp_entry(const void *pa, const void *pb) {
    const struct entry *a = pa, *b = pb;
    if (a->at != b->at)
        return a->at < b->at ? -1 : 1;
    if (a->cls != b->cls)
        return a->cls < b->cls ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static _Thread_local const struct cost_task *rank_tasks;
static int cmp_uid(const void *pa, const void *pb) {
    const char *a = rank_tasks[*(const int32_t *)pa].uid, *b = rank_tasks[*(const int32_t *)pb].uid;
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

/* Work space of the pass over the grid. */
struct basis_ws {
    const struct cost_input *in;
    const struct cost_query *q;
    const struct cost_result *life;
    const bool *succ;    /* [task] succeeded in W (selected) */
    const uint8_t *grp;  /* [task] group */
    const int32_t *rank; /* [task] place in uid order */
    struct cost_detail det;
    struct entry *e1, *e2;
    int64_t *wts, *parts; /* [n_attempts * 2 + 1] */
    int64_t kind[COST_NCONFIG][COST_NKIND], idle[COST_NCONFIG];
};

/* Sorts e[0..n) and merges the entries of one task at one (at, cls). */
static size_t sort_merge(struct entry *e, size_t n) {
    if (n > 1)
        qsort(e, n, sizeof *e, cmp_entry);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && cmp_entry(&e[m - 1], &e[i]) == 0) {
            e[m - 1].w += e[i].w;
            e[m - 1].held += e[i].held;
        } else {
            e[m++] = e[i];
        }
    }
    return m;
}

/* Splits amount_of(run) over each run of equal (at, cls) by weight (step 1) or
 * by tier (step 2); calls back per task part. */
static enum err split_runs(struct basis_ws *ws, struct entry *e, size_t n, bool step1,
                           struct entry *e2, size_t *n2) {
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && e[j].at == e[i].at && e[j].cls == e[i].cls)
            j++;
        int64_t amount;
        bool by_alloc = true;
        if (step1) {
            amount = ws->det.node_class[(size_t)e[i].at * COST_NCLASS + (size_t)e[i].cls];
        } else {
            amount = ws->det.pool_idle[(size_t)e[i].at * COST_NGROUP + (size_t)e[i].cls];
            by_alloc = ws->det.pool_by_alloc[e[i].at];
        }
        if (amount != 0) {
            for (size_t k = i; k < j; k++)
                ws->wts[k - i] = by_alloc ? e[k].w : e[k].held;
            enum err rc = cost_split(amount, ws->wts, j - i, ws->parts);
            if (rc != ERR_OK)
                return rc;
        } else {
            memset(ws->parts, 0, (j - i) * sizeof *ws->parts);
        }
        for (size_t k = i; k < j; k++) {
            int32_t t = e[k].task;
            int64_t part = ws->parts[k - i];
            int c = ws->in->tasks[t].config;
            if (step1) {
                const struct cost_node *nd = &ws->in->nodes[e[k].at];
                int32_t pool = nd->pool >= 0 ? nd->pool : (int32_t)ws->in->n_pools;
                if (ws->succ[t])
                    ws->kind[c][e[k].cls % COST_NKIND] += part;
                e2[(*n2)++] = (struct entry){.at = pool,
                                             .cls = e[k].cls / COST_NKIND,
                                             .rank = e[k].rank,
                                             .task = t,
                                             .w = part,
                                             .held = e[k].held};
            } else if (ws->succ[t]) {
                ws->idle[c] += part;
            }
        }
        i = j;
    }
    return ERR_OK;
}

/* The share numerator and the node's unit (docs/cost-model.md "Share"), as the
 * accrual pass weighs an attempt: share-seconds x (d / den). */
static int64_t unit_of(const struct cost_node *n, const struct cost_attempt *a) {
    int64_t gpu = n->gpu_allocatable, cpu = n->cpu_allocatable_milli;
    int64_t d = (gpu > 0 ? gpu : 1) * (cpu > 0 ? cpu : 1);
    if (gpu > 0)
        return min64(a->gpu_request, gpu) * (d / gpu);
    if (cpu > 0)
        return min64(a->cpu_request_milli, cpu) * (d / cpu);
    return d;
}

/* One grid window V: accrual detail, then the two splits. */
static enum err one_window(struct basis_ws *ws, int64_t vfrom, int64_t vto) {
    const struct cost_input *in = ws->in;
    struct cost_query qv = *ws->q;
    qv.from = vfrom;
    qv.to = vto;
    qv.want_attempts = false;
    size_t np = in->n_pools + 1;
    memset(ws->det.node_class, 0, (in->n_nodes * COST_NCLASS + 1) * sizeof(int64_t));
    memset(ws->det.pool_idle, 0, (np * COST_NGROUP) * sizeof(int64_t));
    memset(ws->det.pool_by_alloc, 0, np * sizeof(bool));
    struct cost_result *rv = NULL;
    enum err rc = cost_compute_detail(in, &qv, &rv, &ws->det);
    cost_result_free(rv);
    if (rc != ERR_OK)
        return rc;
    size_t n1 = 0;
    for (size_t i = 0; i < in->n_attempts; i++) {
        const struct cost_attempt *a = &in->attempts[i];
        const struct cost_attempt_result *ar = &ws->life->attempts[i];
        if (a->node < 0 || ar->start == 0)
            continue;
        const struct cost_node *nd = &in->nodes[a->node];
        int64_t bs, be;
        billing_life(cost_node_start(nd), cost_node_end(nd), ws->q->now, &bs, &be);
        if (bs == 0)
            continue;
        int64_t s = ar->start, e = ar->end;
        int64_t h0 = max64(max64(s, vfrom), bs), h1 = min64(min64(e, vto), be);
        int64_t held = h1 > h0 ? h1 - h0 : 0;
        int64_t secs = billing_overlap(bs, be, max64(s, vfrom), min64(e, vto));
        if (held == 0 && secs == 0)
            continue;
        int64_t unit = unit_of(nd, a), w, wr = 0;
        if (__builtin_mul_overflow(secs, unit, &w))
            return ERR_TOOBIG;
        int kind = ar->outcome == COST_ATTEMPT_SUCCEEDED ? COST_KIND_USEFUL
                   : ar->outcome == COST_ATTEMPT_RUNNING ? COST_KIND_RUNNING
                                                         : COST_KIND_WASTED;
        if (kind == COST_KIND_USEFUL && secs > 0 && a->restore_seconds > 0 && a->started_at) {
            int64_t r0 = max64(max64(a->started_at, s), vfrom);
            int64_t r1 = min64(min64(a->started_at + a->restore_seconds, e), vto);
            if (r1 > r0)
                wr = billing_overlap(bs, be, r0, r1) * unit;
        }
        int g = ws->grp[a->task];
        struct entry base = {.at = a->node, .rank = ws->rank[a->task], .task = a->task};
        ws->e1[n1] = base;
        ws->e1[n1].cls = g * COST_NKIND + kind;
        ws->e1[n1].w = w - wr;
        ws->e1[n1++].held = held;
        if (wr) {
            ws->e1[n1] = base;
            ws->e1[n1].cls = g * COST_NKIND + COST_KIND_RESTORE;
            ws->e1[n1++].w = wr;
        }
    }
    n1 = sort_merge(ws->e1, n1);
    size_t n2 = 0;
    rc = split_runs(ws, ws->e1, n1, true, ws->e2, &n2);
    if (rc != ERR_OK)
        return rc;
    n2 = sort_merge(ws->e2, n2);
    return split_runs(ws, ws->e2, n2, false, NULL, NULL);
}

static enum err ratio_bp(int64_t num, int64_t den, int64_t *out) {
    if (den == 0) {
        *out = COST_NULL;
        return ERR_OK;
    }
    return money_muldiv(num, 10000, den, out);
}

/* Per configuration: totals, per task, savings, overhead. */
static enum err finish(const struct basis_ws *ws, const struct cost_result *acc,
                       struct cost_completion *out) {
    for (int c = 0; c < COST_NCONFIG; c++) {
        struct cost_basis_config *bc = &out->configs[c];
        bc->useful_cost = ws->kind[c][COST_KIND_USEFUL];
        bc->restore_cost = ws->kind[c][COST_KIND_RESTORE];
        bc->wasted_cost = ws->kind[c][COST_KIND_WASTED];
        bc->running_cost = ws->kind[c][COST_KIND_RUNNING];
        bc->allocated_cost =
            bc->useful_cost + bc->restore_cost + bc->wasted_cost + bc->running_cost;
        bc->idle_cost = ws->idle[c];
        bc->cost = bc->allocated_cost + bc->idle_cost;
        bc->cost_per_successful_task = COST_NULL;
        bc->savings_vs_on_demand_bp = COST_NULL;
        enum err rc = ERR_OK;
        if (bc->tasks_succeeded)
            rc = money_muldiv(bc->cost, 1, bc->tasks_succeeded, &bc->cost_per_successful_task);
        if (rc == ERR_OK)
            rc = bc->useful_cost ? ratio_bp(bc->wasted_cost + bc->restore_cost + bc->idle_cost,
                                            bc->useful_cost, &bc->measured_overhead_bp)
                                 : (bc->measured_overhead_bp = COST_NULL, ERR_OK);
        const struct cost_config_result *ac = acc ? &acc->configs[c] : NULL;
        if (rc == ERR_OK && c != COST_ON_DEMAND && ac && ac->counterfactual_tasks &&
            bc->tasks_succeeded && ac->counterfactual_cost) {
            int64_t cf_pt;
            rc = money_muldiv(ac->counterfactual_cost, 1, ac->counterfactual_tasks, &cf_pt);
            if (rc == ERR_OK && cf_pt)
                rc = ratio_bp(cf_pt - bc->cost_per_successful_task, cf_pt,
                              &bc->savings_vs_on_demand_bp);
        }
        if (rc != ERR_OK)
            return rc;
    }
    return ERR_OK;
}

enum err cost_completion(const struct cost_input *in, const struct cost_query *q,
                         const struct cost_result *acc, struct cost_completion *out) {
    struct cost_result *life = NULL;
    enum err rc = held_of(in, q, &life);
    int64_t k0 = 0, k1 = 0;
    if (rc == ERR_OK)
        rc = grid_of(in, q, life, &k0, &k1);
    if (rc != ERR_OK) {
        cost_result_free(life);
        return rc;
    }
    struct cost_completion res;
    memset(&res, 0, sizeof res);
    struct basis_ws ws;
    memset(&ws, 0, sizeof ws);
    ws.in = in;
    ws.q = q;
    ws.life = life;
    size_t nt = in->n_tasks, np = in->n_pools + 1, ne = in->n_attempts * 2 + 1;
    bool *succ = calloc(nt + 1, sizeof *succ);
    uint8_t *grp = calloc(nt + 1, sizeof *grp);
    int32_t *rank = calloc(nt + 1, sizeof *rank), *ord = calloc(nt + 1, sizeof *ord);
    ws.det.node_class = calloc(in->n_nodes * COST_NCLASS + 1, sizeof(int64_t));
    ws.det.pool_idle = calloc(np * COST_NGROUP, sizeof(int64_t));
    ws.det.pool_by_alloc = calloc(np, sizeof(bool));
    ws.e1 = calloc(ne, sizeof *ws.e1);
    ws.e2 = calloc(ne, sizeof *ws.e2);
    ws.wts = calloc(ne, sizeof *ws.wts);
    ws.parts = calloc(ne, sizeof *ws.parts);
    if (!succ || !grp || !rank || !ord || !ws.det.node_class || !ws.det.pool_idle ||
        !ws.det.pool_by_alloc || !ws.e1 || !ws.e2 || !ws.wts || !ws.parts) {
        rc = ERR_NOMEM;
        goto out;
    }
    for (size_t t = 0; t < nt; t++) {
        const struct cost_task *task = &in->tasks[t];
        ord[t] = (int32_t)t;
        grp[t] = (uint8_t)(task->config + (cost_task_selected(q, task) ? 0 : COST_NCONFIG));
        succ[t] = succeeded_in(q, task);
        if (succ[t])
            res.configs[task->config].tasks_succeeded +=
                task->completions > 1 ? task->completions : 1;
    }
    rank_tasks = in->tasks;
    if (nt > 1)
        qsort(ord, nt, sizeof *ord, cmp_uid);
    rank_tasks = NULL;
    for (size_t r = 0; r < nt; r++)
        rank[ord[r]] = (int32_t)r;
    ws.succ = succ;
    ws.grp = grp;
    ws.rank = rank;
    int64_t len = q->to - q->from;
    for (int64_t k = k0; k <= k1 && rc == ERR_OK; k++)
        rc = one_window(&ws, q->from + k * len, q->from + (k + 1) * len);
    if (rc == ERR_OK)
        rc = finish(&ws, acc, &res);
    if (rc == ERR_OK) {
        res.span_from = q->from + k0 * len;
        res.span_to = q->from + (k1 + 1) * len;
        res.windows = k1 - k0 + 1;
        *out = res;
    }
out:
    cost_result_free(life);
    free(succ);
    free(grp);
    free(rank);
    free(ord);
    free(ws.det.node_class);
    free(ws.det.pool_idle);
    free(ws.det.pool_by_alloc);
    free(ws.e1);
    free(ws.e2);
    free(ws.wts);
    free(ws.parts);
    return rc;
}
