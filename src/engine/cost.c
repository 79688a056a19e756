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

static int64_t max64(int64_t a, int64_t b) {
    return a > b ? a : b;
}
static int64_t min64(int64_t a, int64_t b) {
    return a < b ? a : b;
}
static int64_t min_nz(int64_t a, int64_t b) {
    if (a == 0)
        return b;
    if (b == 0)
        return a;
    return a < b ? a : b;
}
static bool in_window(const struct cost_query *q, int64_t t) {
    return t != 0 && t >= q->from && t < q->to;
}

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

static bool add_ok(int64_t *acc, int64_t v) {
    return !__builtin_add_overflow(*acc, v, acc);
}

/* Share of the node (docs/cost-model.md "Share"): on a GPU node the GPU request
 * (a pod asking no GPU has share 0); on a node without GPUs the CPU request; a
 * node with neither allocatable known is the pod's whole; at most 1. */
static void share_of(const struct cost_node_rt *n, const struct cost_attempt *a, int64_t *num,
                     int64_t *den) {
    if (n->gpu > 0) {
        *num = min64(a->gpu_request, n->gpu);
        *den = n->gpu;
    } else if (n->cpu > 0) {
        *num = min64(a->cpu_request_milli, n->cpu);
        *den = n->cpu;
    } else {
        *num = 1; /* nothing allocatable known: the whole node */
        *den = 1;
    }
}

/* cost_attempt_interrupted on the node's runtime row (no cold input access). */
static bool interrupted_rt(const struct cost_attempt *a, const struct cost_node_rt *rt) {
    if (a->phase == COST_PHASE_SUCCEEDED)
        return false;
    int64_t own_end = min_nz(min_nz(a->finished_at, a->deleted_at), a->terminal_at);
    if (rt && rt->end && (own_end == 0 || own_end >= rt->end))
        return true;
    if (own_end == 0 && a->phase != COST_PHASE_FAILED)
        return false;
    return a->disruption_at != 0 || (a->reason && cost_interrupt_reason(a->reason));
}

/* Order of a task's attempts: pod creation (else scheduling, else start). */
static int64_t attempt_order(const struct cost_attempt *a) {
    return a->created_at ? a->created_at : a->scheduled_at ? a->scheduled_at : a->started_at;
}

/* Start of the held interval: PodScheduled; a pod with a node but no known
 * PodScheduled time, its container start (else creation); a pod never
 * scheduled holds nothing (0). */
static int64_t held_start(const struct cost_attempt *a) {
    if (a->scheduled_at)
        return a->scheduled_at;
    if (a->node < 0)
        return 0;
    return a->started_at ? a->started_at : a->created_at;
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
        rt->rate = n->price_hourly ? n->price_hourly
                   : n->pool >= 0  ? in->pools[n->pool].price_hourly
                                   : 0;
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
            pr->min_start = min_nz(pr->min_start, rt->s);
        if (rt->end == 0)
            pr->all_ended = false;
        pr->max_end = max64(pr->max_end, rt->end);
        pr->min_end = min_nz(pr->min_end, rt->end);
    }
}

/* ---- step 3/4: the task pass ------------------------------------------------ */

/* Held interval of attempt a of task t on node rt (rt NULL: no node): to its
 * real end, the earliest of container finish, removal, node deletion, the
 * first sighting in a terminal phase, and (a terminal pod of a finished task
 * whose container finish was never seen) the task's completion; open (to now)
 * while none is known. A known finish is never cut short by the completion: a
 * partitioned original may run past its replacement's success. */
static void held(const struct cost_ctx *x, const struct cost_attempt *a, const struct cost_task *t,
                 const struct cost_node_rt *rt, int64_t *start, int64_t *end, bool *open) {
    int64_t s = held_start(a);
    int64_t e = min_nz(min_nz(a->finished_at, a->deleted_at), rt ? rt->end : 0);
    e = min_nz(e, a->terminal_at);
    if (t->outcome != COST_TASK_RUNNING && a->finished_at == 0 &&
        (a->phase == COST_PHASE_SUCCEEDED || a->phase == COST_PHASE_FAILED))
        e = min_nz(e, t->completed_at);
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

static int cmp_fin(const void *pa, const void *pb) {
    const struct held_rt *a = *(const struct held_rt *const *)pa;
    const struct held_rt *b = *(const struct held_rt *const *)pb;
    if (a->fin != b->fin)
        return a->fin < b->fin ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static int cmp_sched(const void *pa, const void *pb) {
    const struct held_rt *a = *(const struct held_rt *const *)pa;
    const struct held_rt *b = *(const struct held_rt *const *)pb;
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
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
static enum err cf_winner(struct cost_ctx *x, int g, const struct cost_attempt *a,
                          const struct held_rt *h) {
    const struct cost_node_rt *rt = &x->nrt[a->node];
    struct cost_cf_sample smp = {.pool = rt->pool,
                                 .group = g,
                                 .at = a->started_at ? a->started_at : h->s,
                                 .gpus = a->gpu_request};
    if (a->work_seconds >= 0) {
        smp.work = a->work_seconds;
        x->cf_reported[g]++;
    } else {
        int64_t run0 = a->started_at ? a->started_at : h->s;
        int64_t run1 = a->finished_at ? a->finished_at : h->e;
        smp.work = max64(0, run1 - run0);
        x->cf_runtime[g]++;
    }
    return buf_append(&x->cf, &smp, sizeof smp);
}

static enum err task_pass(struct cost_ctx *x) {
    const struct cost_input *in = x->in;
    const struct cost_query *q = x->q;
    enum err rc = ERR_OK;
    int32_t *ord = x->ord; /* NULL: the input is already in task/creation order */
#define AT(i) (&in->attempts[ord ? ord[i] : (i)])
    for (size_t t = 0; t < in->n_tasks; t++) {
        const struct cost_task *task = &in->tasks[t];
        int g = x->tgroup[t];
        int32_t lo = x->toff[t], hi = x->toff[t + 1];
        int64_t nwin = task->completions > 1 ? task->completions : 1;
        /* order this task's attempts by creation, then input order */
        for (int32_t i = lo + 1; ord && i < hi; i++) {
            int32_t v = ord[i];
            int64_t key = attempt_order(&in->attempts[v]);
            int32_t j = i - 1;
            while (j >= lo && attempt_order(&in->attempts[ord[j]]) > key) {
                ord[j + 1] = ord[j];
                j--;
            }
            ord[j + 1] = v;
        }
        size_t k = (size_t)(hi - lo);
        struct held_rt *hr = x->scratch; /* sized for the largest task */
        struct held_rt **pv = (struct held_rt **)(void *)(hr + k);
        int64_t *ends = (int64_t *)(void *)(pv + k);
        size_t nsucc = 0;
        for (size_t i = 0; i < k; i++) {
            const struct cost_attempt *a = AT(lo + (int32_t)i);
            const struct cost_node_rt *rt = a->node >= 0 ? &x->nrt[a->node] : NULL;
            struct held_rt *h = &hr[i];
            held(x, a, task, rt, &h->s, &h->e, &h->open);
            h->i = (int32_t)i;
            h->win = false;
            h->fin = a->finished_at ? a->finished_at : h->e;
            if (a->phase == COST_PHASE_SUCCEEDED)
                pv[nsucc++] = h;
        }
        /* winners: the first N attempts to finish successfully; with none seen
         * succeeding, a succeeded task's last attempt unless it failed or was
         * interrupted */
        if (nsucc > 1)
            qsort(pv, nsucc, sizeof *pv, cmp_fin);
        int64_t nwon = 0;
        for (size_t i = 0; i < nsucc && nwon < nwin; i++, nwon++)
            pv[i]->win = true;
        if (nwon == 0 && task->outcome == COST_TASK_SUCCEEDED && k > 0) {
            const struct cost_attempt *la = AT(hi - 1);
            const struct cost_node_rt *ln = la->node >= 0 ? &x->nrt[la->node] : NULL;
            if (la->phase != COST_PHASE_FAILED && !interrupted_rt(la, ln)) {
                struct held_rt *h = &hr[k - 1];
                h->win = true;
                nwon = 1;
                if (task->completed_at && !la->finished_at && h->e > task->completed_at) {
                    h->e = max64(h->s, task->completed_at); /* done by the completion */
                    h->open = false;
                }
            }
        }
        struct cost_group_acc *ga = &x->gacc[g];
        if (task->outcome == COST_TASK_SUCCEEDED && in_window(q, task->completed_at)) {
            ga->succeeded += nwin;
        } else if (task->outcome == COST_TASK_FAILED && in_window(q, task->completed_at)) {
            int64_t ok = nwin > 1 ? min64((int64_t)nsucc, nwin) : 0;
            ga->succeeded += ok;
            ga->failed += nwin - ok;
        }
        /* duplicates: held seconds while N earlier-scheduled attempts are held */
        size_t nh = 0;
        for (size_t i = 0; i < k; i++)
            if (hr[i].s != 0)
                pv[nh++] = &hr[i];
        if (nh > 1)
            qsort(pv, nh, sizeof *pv, cmp_sched);
        for (size_t i = 1; i < nh; i++) {
            const struct held_rt *h = pv[i];
            for (size_t j = 0; j < i; j++)
                ends[j] = pv[j]->e;
            int64_t until = min64(h->e, nth_largest(ends, i, nwin));
            if (until <= h->s)
                continue;
            if (in_window(q, h->s))
                ga->duplicates++;
            ga->dup_secs += max64(0, min64(until, q->to) - max64(h->s, q->from));
        }
        bool held_in_w = false;
        for (int32_t i = lo; i < hi; i++) {
            const struct cost_attempt *a = AT(i);
            const struct cost_node_rt *rt = a->node >= 0 ? &x->nrt[a->node] : NULL;
            const struct held_rt *h = &hr[i - lo];
            int64_t s = h->s, e = h->e;
            bool open = h->open, win = h->win;
            int64_t created = attempt_order(a);
            if (in_window(q, s ? s : created)) {
                ga->attempts++;
                if (i - lo >= nwin)
                    ga->retries++;
                if (!rt)
                    x->r->attempts_unscheduled++;
            }
            bool interrupted = !win && interrupted_rt(a, rt);
            struct cost_attempt_result *ar =
                x->r->attempts ? &x->r->attempts[ord ? ord[i] : i] : NULL;
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
                int64_t h0 = max64(max64(s, q->from), rt->s), h1 = min64(min64(e, q->to), rt->e);
                if (h1 > h0)
                    x->pool_secs[(size_t)rt->pool * COST_NGROUP + (size_t)g] += h1 - h0;
                int64_t secs = billing_overlap(rt->s, rt->e, max64(s, q->from), min64(e, q->to));
                int kind = win ? COST_KIND_USEFUL
                           : open && a->phase != COST_PHASE_FAILED && !interrupted
                               ? COST_KIND_RUNNING
                               : COST_KIND_WASTED;
                if (h1 > h0)
                    held_in_w = true;
                if (secs > 0) {
                    int64_t num, den;
                    share_of(rt, a, &num, &den);
                    int64_t unit = num * (rt->d / den), w, wr = 0;
                    if (__builtin_mul_overflow(secs, unit, &w))
                        return ERR_TOOBIG;
                    if (kind == COST_KIND_USEFUL && a->restore_seconds > 0 && a->started_at) {
                        int64_t r0 = max64(max64(a->started_at, s), q->from);
                        int64_t r1 = min64(min64(a->started_at + a->restore_seconds, e), q->to);
                        if (r1 > r0)
                            wr = billing_overlap(rt->s, rt->e, r0, r1) * unit;
                    }
                    int64_t *wn = &x->w[(size_t)a->node * COST_NCLASS + (size_t)g * COST_NKIND];
                    if (!add_ok(&wn[kind], w - wr) || !add_ok(&wn[COST_KIND_RESTORE], wr))
                        return ERR_TOOBIG;
                    if (ar &&
                        (rc = money_muldiv(w, rt->rate, rt->d * 3600, &ar->allocated)) != ERR_OK)
                        return rc;
                }
                if (a->checkpoint_seconds >= 0 && in_window(q, s)) {
                    x->prt[rt->pool].ckpt_sum += a->checkpoint_seconds;
                    x->prt[rt->pool].ckpt_n++;
                }
            }
            if (!interrupted)
                continue;
            /* lost at: the earliest evidence inside the held interval */
            int64_t lost = e;
            const struct cost_node *nd = a->node >= 0 ? &in->nodes[a->node] : NULL;
            int64_t spell = 0;
            if (nd && nd->n_spells)
                spell = spell_at(nd, s, e);
            else if (nd)
                spell = min_nz(a->not_ready_at, nd->not_ready_at);
            int64_t ev[6] = {a->disruption_at, a->delete_requested_at, spell,
                             a->finished_at,   a->deleted_at,          rt ? rt->end : 0};
            for (int v = 0; v < 6; v++)
                if (ev[v] && ev[v] >= s && ev[v] < lost)
                    lost = ev[v];
            if (in_window(q, lost))
                ga->interruptions++;
            int32_t next = i + 1;
            while (next < hi && AT(next)->started_at == 0)
                next++;
            int64_t resumed = next < hi ? AT(next)->started_at : 0;
            if (ar) {
                ar->lost_at = lost;
                if (resumed)
                    x->r->attempts[ord ? ord[next] : next].restore_seconds =
                        max64(0, resumed - lost) + max64(0, AT(next)->restore_seconds);
            }
            if (resumed && in_window(q, resumed)) {
                const struct cost_attempt *na = AT(next);
                /* 0 when the next attempt started before the loss (a sibling of an
                 * N-completion Job, a duplicate): a restore time is never negative */
                int64_t sample = max64(0, resumed - lost) + max64(0, na->restore_seconds);
                rc = add_sample(&x->samples[g], sample);
                if (rc != ERR_OK)
                    return rc;
            }
            if (rt)
                cost_reclaim_evidence(x, rt->pool, a, lost, resumed, (int32_t)t);
        }
        if (task->outcome == COST_TASK_RUNNING && held_in_w)
            ga->running++;
        /* counterfactual On-Demand: the winners of successful spot/fallback tasks */
        if (task->outcome == COST_TASK_SUCCEEDED && in_window(q, task->completed_at) &&
            g < COST_NCONFIG && task->config != COST_ON_DEMAND) {
            x->r->counterfactual.tasks += nwin;
            for (int32_t i = lo; i < hi; i++) {
                const struct cost_attempt *a = AT(i);
                if (!hr[i - lo].win || a->node < 0)
                    continue; /* unpriced */
                if ((rc = cf_winner(x, g, a, &hr[i - lo])) != ERR_OK)
                    return rc;
            }
        }
    }
    return ERR_OK;
#undef AT
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
        cr->tasks_succeeded = ga->succeeded;
        cr->tasks_failed = ga->failed;
        cr->tasks_running = ga->running;
        cr->attempts = ga->attempts;
        cr->retries = ga->retries;
        cr->interruptions = ga->interruptions;
        cr->duplicates = ga->duplicates;
        cr->duplicate_seconds = ga->dup_secs;
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

static bool task_selected(const struct cost_query *q, const struct cost_task *t) {
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
    free(x->pool_secs);
    free(x->tgroup);
    free(x->toff);
    free(x->ord);
    for (int g = 0; g < COST_NGROUP; g++)
        buf_release(&x->samples[g]);
    free(x->scratch);
    free(x->cand);
}

enum err cost_compute(const struct cost_input *in, const struct cost_query *q,
                      struct cost_result **out) {
    enum err rc = check_input(in, q);
    if (rc != ERR_OK)
        return rc;
    struct cost_ctx x;
    memset(&x, 0, sizeof x);
    for (int g = 0; g < COST_NGROUP; g++)
        buf_init(&x.samples[g], 0);
    buf_init(&x.cf, 0);
    x.in = in;
    x.q = q;
    x.np = in->n_pools + 1;
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
        x.tgroup[t] = (uint8_t)(task->config + (task_selected(q, task) ? 0 : COST_NCONFIG));
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
        int64_t key = attempt_order(a);
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
    x.scratch =
        zalloc(maxk, sizeof(struct held_rt) + sizeof(struct held_rt *) + sizeof(int64_t), &rc);
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

    rc = task_pass(&x);
    if (rc != ERR_OK)
        goto out;
    cost_resolve_od_rates(&x);
    rc = price_nodes(&x);
    if (rc == ERR_OK)
        rc = cost_counterfactual(&x);
    if (rc != ERR_OK)
        goto out;
    rc = finish_configs(&x);
    if (rc != ERR_OK)
        goto out;
    rc = cost_reclaim_finish(&x);
    if (rc != ERR_OK)
        goto out;
    rc = cost_advice_build(&x);
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
