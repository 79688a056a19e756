/* cost_task — step 3/4 of cost_compute (cost.c): the task pass. Per task, its
 * attempts in creation order, their held intervals, the winners (the first N
 * attempts to finish successfully), the counts, duplicate seconds; per attempt
 * its kind and share-seconds (accumulated per node and class), restore samples
 * and reclaim evidence; per successful Spot/fallback task the counterfactual
 * On-Demand samples. Contract in cost_internal.h. */
#include <stdlib.h>

#include "engine/cost_internal.h"
#include "base/money.h"
#include "model/billing.h"

/* Held interval of attempt a of task t on node rt (rt NULL: no node): to its
 * real end, the earliest of container finish, removal, node deletion, the
 * first sighting in a terminal phase, and (a terminal pod of a finished task
 * whose container finish was never seen) the task's completion; open (to now)
 * while none is known. A known finish is never cut short by the completion: a
 * partitioned original may run past its replacement's success. */
static void held(const struct cost_ctx *x, const struct cost_attempt *a, const struct cost_task *t,
                 const struct cost_node_rt *rt, int64_t *start, int64_t *end, bool *open) {
    int64_t s = cost_held_start(a);
    int64_t e = cost_min_nz(cost_min_nz(a->finished_at, a->deleted_at), rt ? rt->end : 0);
    e = cost_min_nz(e, a->terminal_at);
    if (t->outcome != COST_TASK_RUNNING && a->finished_at == 0 &&
        (a->phase == COST_PHASE_SUCCEEDED || a->phase == COST_PHASE_FAILED))
        e = cost_min_nz(e, t->completed_at);
    *open = e == 0;
    if (e == 0)
        e = x->q->now;
    if (e < s)
        e = s;
    *start = s;
    *end = e;
}

static enum err add_sample(struct buf *b, int64_t v) {
    return buf_append(b, &v, sizeof v);
}

/* Per-attempt state of the task being passed. */
struct held_rt {
    int64_t s, e; /* held interval; s 0 = holds nothing */
    int64_t fin;  /* finish key of a succeeded attempt */
    int32_t i;    /* position in the task's creation order */
    bool open, win;
};

/* The start of the NotReady spell of node n in which an attempt held
 * [s, e) was lost: the spell holding e that started inside the attempt; 0 none. */
static int64_t spell_at(const struct cost_node *n, int64_t s, int64_t e) {
    for (size_t k = 0; k < n->n_spells; k++) {
        int64_t a = n->spells[2 * k], b = n->spells[2 * k + 1];
        if (a >= s && a <= e && (b == 0 || b >= e))
            return a;
    }
    return 0;
}

/* Orders attempts a and b by their keys ka and kb, then by creation order. */
static int by_key_then_order(const struct held_rt *a, const struct held_rt *b, int64_t ka,
                             int64_t kb) {
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static int cmp_fin(const void *pa, const void *pb) {
    const struct held_rt *a = *(const struct held_rt *const *)pa;
    const struct held_rt *b = *(const struct held_rt *const *)pb;
    return by_key_then_order(a, b, a->fin, b->fin);
}

static int cmp_sched(const void *pa, const void *pb) {
    const struct held_rt *a = *(const struct held_rt *const *)pa;
    const struct held_rt *b = *(const struct held_rt *const *)pb;
    return by_key_then_order(a, b, a->s, b->s);
}

/* The n-th largest (1-based) of v[0..k); 0 when k < n. Reorders v. */
static int64_t nth_largest(int64_t *v, size_t k, int64_t n) {
    if ((int64_t)k < n || n < 1)
        return 0;
    for (int64_t r = 0; r < n; r++) /* n is small (completions) */
        for (size_t j = (size_t)r + 1; j < k; j++)
            if (v[j] > v[r]) {
                int64_t t = v[r];
                v[r] = v[j];
                v[j] = t;
            }
    return v[n - 1];
}

/* Counterfactual On-Demand work of one winning attempt (cost.h), priced later. */
static enum err cf_winner(struct cost_ctx *x, int32_t t, int g, const struct cost_attempt *a,
                          const struct held_rt *h) {
    const struct cost_node_rt *rt = &x->nrt[a->node];
    struct cost_cf_sample smp = {.task = t,
                                 .pool = rt->pool,
                                 .group = g,
                                 .at = a->started_at ? a->started_at : h->s,
                                 .gpus = a->gpu_request,
                                 .n = 1};
    if (a->work_seconds >= 0) {
        smp.work = a->work_seconds;
        x->cf_reported[g]++;
    } else {
        int64_t run0 = a->started_at ? a->started_at : h->s;
        int64_t run1 = a->finished_at ? a->finished_at : h->e;
        smp.work = cost_max64(0, run1 - run0);
        x->cf_runtime[g]++;
    }
    smp.wg = smp.work * smp.gpus;
    return buf_append(&x->cf, &smp, sizeof smp);
}

/* The task being passed: its attempts are [lo, hi) of the task order, their
 * held state hr[0..k) in the scratch space; pv and ends are work arrays of k. */
struct task_st {
    const struct cost_task *task;
    int32_t t; /* task row */
    int g;     /* its group */
    int32_t lo, hi;
    int64_t nwin; /* completions that make it succeed */
    size_t k;     /* attempts */
    size_t nsucc; /* attempts seen succeeding */
    struct held_rt *hr;
    struct held_rt **pv;
    int64_t *ends;
    struct cost_group_acc *ga;
};

/* Row of the i-th attempt in task order (x->ord NULL: the input order). */
static size_t row(const struct cost_ctx *x, int32_t i) {
    return x->ord ? (size_t)x->ord[i] : (size_t)i;
}

static const struct cost_attempt *at(const struct cost_ctx *x, int32_t i) {
    return &x->in->attempts[row(x, i)];
}

/* Orders the task's attempts [lo, hi) by creation, then input order (an
 * insertion sort: groups are tiny); nothing to do on input already in order. */
static void order_attempts(struct cost_ctx *x, int32_t lo, int32_t hi) {
    int32_t *ord = x->ord;
    for (int32_t i = lo + 1; ord && i < hi; i++) {
        int32_t v = ord[i];
        int64_t key = cost_attempt_order(&x->in->attempts[v]);
        int32_t j = i - 1;
        while (j >= lo && cost_attempt_order(&x->in->attempts[ord[j]]) > key) {
            ord[j + 1] = ord[j];
            j--;
        }
        ord[j + 1] = v;
    }
}

/* The held interval of every attempt; the ones seen succeeding into pv[0..nsucc). */
static void hold_attempts(const struct cost_ctx *x, struct task_st *ts) {
    ts->nsucc = 0;
    for (size_t i = 0; i < ts->k; i++) {
        const struct cost_attempt *a = at(x, ts->lo + (int32_t)i);
        const struct cost_node_rt *rt = a->node >= 0 ? &x->nrt[a->node] : NULL;
        struct held_rt *h = &ts->hr[i];
        held(x, a, ts->task, rt, &h->s, &h->e, &h->open);
        h->i = (int32_t)i;
        h->win = false;
        h->fin = a->finished_at ? a->finished_at : h->e;
        if (a->phase == COST_PHASE_SUCCEEDED)
            ts->pv[ts->nsucc++] = h;
    }
}

/* Winners: the first N attempts to finish successfully; with none seen
 * succeeding, a succeeded task's last attempt unless it failed or was
 * interrupted. */
static void pick_winners(const struct cost_ctx *x, struct task_st *ts) {
    const struct cost_task *task = ts->task;
    struct held_rt **pv = ts->pv;
    if (ts->nsucc > 1)
        qsort(pv, ts->nsucc, sizeof *pv, cmp_fin);
    int64_t nwon = 0;
    for (size_t i = 0; i < ts->nsucc && nwon < ts->nwin; i++, nwon++)
        pv[i]->win = true;
    if (nwon == 0 && task->outcome == COST_TASK_SUCCEEDED && ts->k > 0) {
        const struct cost_attempt *la = at(x, ts->hi - 1);
        const struct cost_node_rt *ln = la->node >= 0 ? &x->nrt[la->node] : NULL;
        if (la->phase != COST_PHASE_FAILED && !cost_interrupted_rt(la, ln)) {
            struct held_rt *h = &ts->hr[ts->k - 1];
            h->win = true;
            if (task->completed_at && !la->finished_at && h->e > task->completed_at) {
                h->e = cost_max64(h->s, task->completed_at); /* done by the completion */
                h->open = false;
            }
        }
    }
}

/* Whether the window cuts the task in two (docs/cost-model.md "Cost per
 * successful task: two bases", partial): the task held its nodes in W, or
 * finished in W, and it held them outside W too (before W, or past W's end, an
 * open attempt to now), or it held them in W and was not finished by W's end. */
static bool task_cut(const struct cost_ctx *x, const struct task_st *ts) {
    const struct cost_query *q = x->q;
    const struct cost_task *task = ts->task;
    bool in_w = false, out_w = false;
    for (size_t i = 0; i < ts->k; i++) {
        const struct held_rt *h = &ts->hr[i];
        if (h->s == 0 || h->e <= h->s)
            continue;
        if (h->e > q->from && h->s < q->to)
            in_w = true;
        if (h->s < q->from || h->e > q->to)
            out_w = true;
    }
    bool done = task->outcome != COST_TASK_RUNNING && task->completed_at != 0;
    bool done_by_end = done && task->completed_at < q->to;
    bool done_in_w = done && cost_in_window(q, task->completed_at);
    return (in_w && (out_w || !done_by_end)) || (done_in_w && out_w);
}

/* Tasks that succeeded or failed in the window (N-completion Jobs count N). */
static void count_outcome(const struct cost_ctx *x, const struct task_st *ts) {
    const struct cost_task *task = ts->task;
    struct cost_group_acc *ga = ts->ga;
    int64_t ok = 0;
    if (task->outcome == COST_TASK_SUCCEEDED && cost_in_window(x->q, task->completed_at)) {
        ok = ts->nwin;
    } else if (task->outcome == COST_TASK_FAILED && cost_in_window(x->q, task->completed_at)) {
        ok = ts->nwin > 1 ? cost_min64((int64_t)ts->nsucc, ts->nwin) : 0;
        ga->n.failed += ts->nwin - ok;
    }
    ga->n.succeeded += ok;
    if (x->r->tasks) {
        x->r->tasks[ts->t].selected = ts->g < COST_NCONFIG;
        x->r->tasks[ts->t].succeeded = ok;
    }
}

/* Duplicates: held seconds while N earlier-scheduled attempts are held. */
static void count_duplicates(const struct cost_ctx *x, struct task_st *ts) {
    const struct cost_query *q = x->q;
    struct held_rt **pv = ts->pv;
    size_t nh = 0;
    for (size_t i = 0; i < ts->k; i++)
        if (ts->hr[i].s != 0)
            pv[nh++] = &ts->hr[i];
    if (nh > 1)
        qsort(pv, nh, sizeof *pv, cmp_sched);
    for (size_t i = 1; i < nh; i++) {
        const struct held_rt *h = pv[i];
        for (size_t j = 0; j < i; j++)
            ts->ends[j] = pv[j]->e;
        int64_t until = cost_min64(h->e, nth_largest(ts->ends, i, ts->nwin));
        if (until <= h->s)
            continue;
        if (cost_in_window(q, h->s))
            ts->ga->n.duplicates++;
        ts->ga->n.dup_secs += cost_max64(0, cost_min64(until, q->to) - cost_max64(h->s, q->from));
    }
}

/* An interrupted attempt i held [s, e): when it was lost (the earliest evidence
 * inside the held interval), the restore time of the next started attempt, the
 * restore sample and the reclaim evidence. */
static enum err account_loss(struct cost_ctx *x, const struct task_st *ts, int32_t i,
                             const struct cost_node_rt *rt, struct cost_attempt_result *ar) {
    const struct cost_query *q = x->q;
    const struct cost_attempt *a = at(x, i);
    int64_t s = ts->hr[i - ts->lo].s, e = ts->hr[i - ts->lo].e;
    int64_t lost = e;
    const struct cost_node *nd = a->node >= 0 ? &x->in->nodes[a->node] : NULL;
    int64_t spell = 0;
    if (nd && nd->n_spells)
        spell = spell_at(nd, s, e);
    else if (nd)
        spell = cost_min_nz(a->not_ready_at, nd->not_ready_at);
    int64_t ev[6] = {a->disruption_at, a->delete_requested_at, spell,
                     a->finished_at,   a->deleted_at,          rt ? rt->end : 0};
    for (int v = 0; v < 6; v++)
        if (ev[v] && ev[v] >= s && ev[v] < lost)
            lost = ev[v];
    if (cost_in_window(q, lost))
        ts->ga->n.interruptions++;
    int32_t next = i + 1;
    while (next < ts->hi && at(x, next)->started_at == 0)
        next++;
    int64_t resumed = next < ts->hi ? at(x, next)->started_at : 0;
    if (ar) {
        ar->lost_at = lost;
        if (resumed)
            x->r->attempts[row(x, next)].restore_seconds =
                cost_max64(0, resumed - lost) + cost_max64(0, at(x, next)->restore_seconds);
    }
    if (resumed && cost_in_window(q, resumed)) {
        const struct cost_attempt *na = at(x, next);
        /* 0 when the next attempt started before the loss (a sibling of an
         * N-completion Job, a duplicate): a restore time is never negative */
        int64_t sample = cost_max64(0, resumed - lost) + cost_max64(0, na->restore_seconds);
        enum err rc = add_sample(&x->samples[ts->g], sample);
        if (rc != ERR_OK)
            return rc;
    }
    if (rt)
        cost_reclaim_evidence(x, rt->pool, a, lost, resumed, ts->t);
    return ERR_OK;
}

/* Attempt i of the task: counts, its result row, its kind and share-seconds on
 * its node (held_in_w set when it held a node in the window), checkpoint
 * reports; then its loss when it was interrupted. */
static enum err account_attempt(struct cost_ctx *x, const struct task_st *ts, int32_t i,
                                bool *held_in_w) {
    const struct cost_query *q = x->q;
    struct cost_group_acc *ga = ts->ga;
    int g = ts->g;
    enum err rc;
    const struct cost_attempt *a = at(x, i);
    const struct cost_node_rt *rt = a->node >= 0 ? &x->nrt[a->node] : NULL;
    const struct held_rt *h = &ts->hr[i - ts->lo];
    int64_t s = h->s, e = h->e;
    bool open = h->open, win = h->win;
    int64_t created = cost_attempt_order(a);
    if (cost_in_window(q, s ? s : created)) {
        ga->n.attempts++;
        if (i - ts->lo >= ts->nwin)
            ga->n.retries++;
        if (!rt)
            x->r->attempts_unscheduled++;
    }
    bool interrupted = !win && cost_interrupted_rt(a, rt);
    struct cost_attempt_result *ar = x->r->attempts ? &x->r->attempts[row(x, i)] : NULL;
    if (ar) {
        ar->start = s;
        ar->end = s ? e : 0;
        ar->outcome = win                                     ? COST_ATTEMPT_SUCCEEDED
                      : interrupted                           ? COST_ATTEMPT_INTERRUPTED
                      : open && a->phase != COST_PHASE_FAILED ? COST_ATTEMPT_RUNNING
                                                              : COST_ATTEMPT_FAILED;
    }
    if (rt && s != 0 && rt->s != 0) {
        /* held seconds in W (cap ignored): the idle split's second tier */
        int64_t h0 = cost_max64(cost_max64(s, q->from), rt->s);
        int64_t h1 = cost_min64(cost_min64(e, q->to), rt->e);
        if (h1 > h0)
            x->pool_secs[(size_t)rt->pool * COST_NGROUP + (size_t)g] += h1 - h0;
        int64_t secs = billing_overlap(rt->s, rt->e, cost_max64(s, q->from), cost_min64(e, q->to));
        int kind = win                                                     ? COST_KIND_USEFUL
                   : open && a->phase != COST_PHASE_FAILED && !interrupted ? COST_KIND_RUNNING
                                                                           : COST_KIND_WASTED;
        if (h1 > h0)
            *held_in_w = true;
        if (h1 > h0 && open)
            x->open_in_w++;
        if (secs > 0) {
            int64_t num, den;
            cost_share_of(rt, a, &num, &den);
            int64_t unit = num * (rt->d / den), w, wr = 0;
            if (__builtin_mul_overflow(secs, unit, &w))
                return ERR_TOOBIG;
            if (kind == COST_KIND_USEFUL && a->restore_seconds > 0 && a->started_at) {
                int64_t r0 = cost_max64(cost_max64(a->started_at, s), q->from);
                int64_t r1 = cost_min64(cost_min64(a->started_at + a->restore_seconds, e), q->to);
                if (r1 > r0)
                    wr = billing_overlap(rt->s, rt->e, r0, r1) * unit;
            }
            int64_t *wn = &x->w[(size_t)a->node * COST_NCLASS + (size_t)g * COST_NKIND];
            if (!cost_add_ok(&wn[kind], w - wr) || !cost_add_ok(&wn[COST_KIND_RESTORE], wr))
                return ERR_TOOBIG;
            if (ar && (rc = money_muldiv(w, rt->rate, rt->d * 3600, &ar->allocated)) != ERR_OK)
                return rc;
        }
        if (a->checkpoint_seconds >= 0 && cost_in_window(q, s)) {
            x->prt[rt->pool].ckpt_sum += a->checkpoint_seconds;
            x->prt[rt->pool].ckpt_n++;
        }
    }
    if (!interrupted)
        return ERR_OK;
    return account_loss(x, ts, i, rt, ar);
}

/* Counterfactual On-Demand: the winners of a successful spot/fallback task. */
static enum err counterfactual(struct cost_ctx *x, const struct task_st *ts) {
    const struct cost_task *task = ts->task;
    if (task->outcome != COST_TASK_SUCCEEDED || !cost_in_window(x->q, task->completed_at) ||
        ts->g >= COST_NCONFIG || task->config == COST_ON_DEMAND)
        return ERR_OK;
    x->r->counterfactual.tasks += ts->nwin;
    x->cf_tasks[ts->g] += ts->nwin;
    for (int32_t i = ts->lo; i < ts->hi; i++) {
        const struct cost_attempt *a = at(x, i);
        if (!ts->hr[i - ts->lo].win || a->node < 0)
            continue; /* unpriced */
        enum err rc = cf_winner(x, ts->t, ts->g, a, &ts->hr[i - ts->lo]);
        if (rc != ERR_OK)
            return rc;
    }
    return ERR_OK;
}

size_t cost_task_scratch_bytes(void) {
    return sizeof(struct held_rt) + sizeof(struct held_rt *) + sizeof(int64_t);
}

enum err cost_task_pass(struct cost_ctx *x) {
    enum err rc;
    for (size_t t = 0; t < x->in->n_tasks; t++) {
        struct task_st ts = {.task = &x->in->tasks[t],
                             .t = (int32_t)t,
                             .g = x->tgroup[t],
                             .lo = x->toff[t],
                             .hi = x->toff[t + 1]};
        ts.nwin = ts.task->completions > 1 ? ts.task->completions : 1;
        order_attempts(x, ts.lo, ts.hi);
        ts.k = (size_t)(ts.hi - ts.lo);
        ts.hr = x->scratch; /* sized for the largest task */
        ts.pv = (struct held_rt **)(void *)(ts.hr + ts.k);
        ts.ends = (int64_t *)(void *)(ts.pv + ts.k);
        ts.ga = &x->gacc[ts.g];
        hold_attempts(x, &ts);
        pick_winners(x, &ts);
        if (task_cut(x, &ts))
            ts.ga->partial = true;
        count_outcome(x, &ts);
        count_duplicates(x, &ts);
        bool held_in_w = false;
        for (int32_t i = ts.lo; i < ts.hi; i++)
            if ((rc = account_attempt(x, &ts, i, &held_in_w)) != ERR_OK)
                return rc;
        if (ts.task->outcome == COST_TASK_RUNNING && held_in_w) {
            ts.ga->n.running++;
            if (x->hook && (rc = buf_append(&x->running, &ts.t, sizeof ts.t)) != ERR_OK)
                return rc;
        }
        if ((rc = counterfactual(x, &ts)) != ERR_OK)
            return rc;
    }
    return ERR_OK;
}
