/* plan/whatif_pool — one replication of the window played on one Spot pool
 * (docs/whatif.md "The pool"): the Spot and fallback configurations' tasks
 * arrive at their measured offsets and queue, first come first served, for the
 * pool's slots (pool_nodes x gpus_node / gpus_task); a reclaim is one event of
 * the pool, a Poisson process of rate reclaims_per_day over its life, that cuts
 * every running attempt at once and takes the pool away for replacement_delay,
 * after which the next reclaim is drawn. As spotsim's scheduler places a pod
 * (a Spot node that fits, else the fallback pool): a Spot task waits for a
 * slot; a fallback task that finds the pool away or full, or is cut, runs the
 * rest on the fallback pool (wi_od_rest). An application failure frees the
 * slot and the task queues again (a fallback task takes the slot it freed).
 * The attempt rules are plan/task.h's, the same as the per-task model's.
 * Pure, deterministic: reclaims draw from the replication's own stream, each
 * task's failures from its own. Thread rule: any thread. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "plan/task.h"
#include "plan/whatif_int.h"

struct ptask {
    int64_t work, saved, arrival;
    int64_t start, end; /* the running attempt: its start, its end (success or failure) */
    bool ok_end;        /* the attempt ends in success (else an application failure) */
    int cfg, k;         /* configuration, attempts made */
    struct plan_rng r;  /* its failures (and fallback start share) */
};

struct pool {
    struct mc *m;
    struct acc *a;
    struct ptask *t;
    size_t n, done;
    size_t *heap, nheap;  /* running attempts, a min-heap on (end, index) */
    size_t *wait, w0, nw; /* Spot tasks waiting for a slot, a ring of n */
    int64_t slots;
};

static bool before(const struct pool *q, size_t x, size_t y) {
    return q->t[x].end < q->t[y].end || (q->t[x].end == q->t[y].end && x < y);
}

static void heap_push(struct pool *q, size_t i) {
    size_t k = q->nheap++;
    q->heap[k] = i;
    while (k > 0 && before(q, q->heap[k], q->heap[(k - 1) / 2])) {
        size_t up = (k - 1) / 2, tmp = q->heap[up];
        q->heap[up] = q->heap[k];
        q->heap[k] = tmp;
        k = up;
    }
}

static size_t heap_pop(struct pool *q) {
    size_t top = q->heap[0];
    q->heap[0] = q->heap[--q->nheap];
    for (size_t k = 0;;) {
        size_t l = 2 * k + 1, s = k;
        if (l < q->nheap && before(q, q->heap[l], q->heap[s]))
            s = l;
        if (l + 1 < q->nheap && before(q, q->heap[l + 1], q->heap[s]))
            s = l + 1;
        if (s == k)
            break;
        size_t tmp = q->heap[s];
        q->heap[s] = q->heap[k];
        q->heap[k] = tmp;
        k = s;
    }
    return top;
}

static int64_t interval_of(const struct whatif_params *p, int cfg) {
    return p->mix[cfg].no_checkpoints ? 0 : p->checkpoint_interval;
}

/* Starts an attempt of task i on a slot at t. */
static enum err start(struct pool *q, size_t i, int64_t t) {
    const struct whatif_params *p = q->m->p;
    struct ptask *x = &q->t[i];
    if (--q->m->budget < 0)
        return ERR_TOOBIG;
    q->a[x->cfg].att++;
    x->k++;
    int64_t run = wi_attempt_len(p, interval_of(p, x->cfg), x->work, x->saved);
    int64_t fail = wi_failure_at(&x->r, p->mix[x->cfg].failure_ppm, run);
    x->start = t;
    x->ok_end = fail >= run;
    x->end = t + (x->ok_end ? run : fail);
    heap_push(q, i);
    return ERR_OK;
}

/* Work task i saved by its attempt cut `elapsed` seconds after its start. */
static int64_t saved_by(const struct pool *q, const struct ptask *x, int64_t elapsed) {
    const struct whatif_params *p = q->m->p;
    int64_t iv = interval_of(p, x->cfg);
    int64_t rest = plan_restore_seconds(x->saved, iv, p->restore_seconds);
    return plan_saved_work(x->work - x->saved, iv, p->checkpoint_seconds, rest,
                           elapsed - p->attempt_overhead);
}

/* Task i needs a slot at t: a free one (pool up), else the queue (Spot) or the
 * fallback pool (fallback, with what it saved). */
static enum err place(struct pool *q, size_t i, int64_t t, bool up) {
    struct ptask *x = &q->t[i];
    if (x->k >= WHATIF_MAX_ATTEMPTS) {
        q->a[x->cfg].fail++;
        q->done++;
        return ERR_OK;
    }
    if (up && q->nw == 0 && (int64_t)q->nheap < q->slots)
        return start(q, i, t);
    if (x->cfg == WHATIF_FALLBACK) {
        q->done++;
        return wi_od_rest(q->m, x->cfg, &x->r, x->work, x->saved, q->m->p->fallback_tail, x->k,
                          &q->a[x->cfg]);
    }
    q->wait[(q->w0 + q->nw++) % q->n] = i;
    return ERR_OK;
}

/* Free slots take the waiting tasks, first come first served. */
static enum err fill(struct pool *q, int64_t t) {
    enum err rc = ERR_OK;
    while (rc == ERR_OK && q->nw > 0 && (int64_t)q->nheap < q->slots) {
        size_t i = q->wait[q->w0];
        q->w0 = (q->w0 + 1) % q->n;
        q->nw--;
        rc = start(q, i, t);
    }
    return rc;
}

/* The attempt at the heap's top ends at its end. */
static enum err finish(struct pool *q) {
    const struct whatif_params *p = q->m->p;
    size_t i = heap_pop(q);
    struct ptask *x = &q->t[i];
    int64_t ran = x->end - x->start;
    q->a[x->cfg].num += (wi_i128)ran * p->spot_price;
    if (x->ok_end) {
        q->a[x->cfg].succ++;
        q->done++;
        return fill(q, x->end);
    }
    x->saved += saved_by(q, x, ran);
    /* its next attempt queues behind the waiting ones, as a new pod does */
    enum err rc = place(q, i, x->end, true);
    return rc == ERR_OK ? fill(q, x->end) : rc;
}

/* A reclaim at t cuts every running attempt (in the order of the heap's
 * array: deterministic). */
static enum err reclaim(struct pool *q, int64_t t) {
    const struct whatif_params *p = q->m->p;
    enum err rc = ERR_OK;
    size_t nrun = q->nheap;
    q->nheap = 0;
    for (size_t h = 0; h < nrun && rc == ERR_OK; h++) {
        size_t i = q->heap[h];
        struct ptask *x = &q->t[i];
        q->a[x->cfg].num += (wi_i128)(t - x->start + p->reclaim_tail) * p->spot_price;
        x->saved += saved_by(q, x, t - x->start);
        rc = place(q, i, t, false);
    }
    return rc;
}

/* Arrival order: key = arrival << KEY_BITS | draw index (arrival <=
 * WHATIF_MAX_SECONDS < 2^25, index < 2 x WHATIF_MAX_TASKS < 2^21), sorted by
 * an 8-bit LSD radix sort: linear, and stable ties by draw order. */
#define KEY_BITS 21
#define KEY_PASSES 6 /* 48 bits */

static void sort_keys(uint64_t *k, uint64_t *tmp, size_t n) {
    for (int pass = 0; pass < KEY_PASSES; pass++) {
        int shift = 8 * pass;
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((k[i] >> shift) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++)
            tmp[count[(k[i] >> shift) & 0xff]++] = k[i];
        memcpy(k, tmp, n * sizeof *k);
    }
}

/* wi_pool_run's buffers for n tasks, kept in m->pool across replications
 * (one allocation a call, not one a replication). */
struct bufs {
    size_t cap;
    struct ptask *drawn, *t;
    uint64_t *key; /* 2 x cap: keys and the sort's scratch */
    size_t *heap, *wait;
};

static struct bufs *buffers(struct mc *m, size_t n) {
    struct bufs *b = m->pool;
    if (b && b->cap >= n)
        return b;
    wi_pool_free(m);
    b = xcalloc(1, sizeof *b);
    b->cap = n;
    b->drawn = xcalloc(n, sizeof *b->drawn);
    b->t = xcalloc(n, sizeof *b->t);
    b->key = xcalloc(2 * n, sizeof *b->key);
    b->heap = xcalloc(n, sizeof *b->heap);
    b->wait = xcalloc(n, sizeof *b->wait);
    m->pool = b;
    return b;
}

void wi_pool_free(struct mc *m) {
    struct bufs *b = m->pool;
    if (!b)
        return;
    free(b->drawn);
    free(b->t);
    free(b->key);
    free(b->heap);
    free(b->wait);
    free(b);
    m->pool = NULL;
}

/* Task `x` of configuration c drawn from rr: its work and arrival (paired
 * when the arrivals match the lengths), then its own stream's seed. */
static void draw_task(const struct whatif_params *p, int c, struct plan_rng *rr, struct ptask *x) {
    *x = (struct ptask){0}; /* the buffers are reused across replications */
    const struct whatif_mix *m = &p->mix[c];
    const int64_t *len = m->nlengths ? m->lengths : p->lengths;
    size_t nlen = m->nlengths ? m->nlengths : p->nlengths;
    const int64_t *arr = m->narrivals ? m->arrivals : p->arrivals;
    size_t narr = m->narrivals ? m->narrivals : p->narrivals;
    if (narr > 0 && narr == nlen) {
        size_t k = (size_t)plan_rng_below(rr, nlen);
        x->work = len[k];
        x->arrival = arr[k];
    } else {
        x->work = wi_draw_work(p, c, rr);
        x->arrival = narr > 0 ? arr[plan_rng_below(rr, narr)] : 0;
    }
    plan_rng_seed(&x->r, plan_rng_next(rr));
    x->cfg = c;
}

/* Does fallback task x start on the fallback pool by the measured share (only
 * when arrivals are not measured: with them, the pool's state decides)? */
static bool starts_on_fallback(const struct whatif_params *p, const struct ptask *x) {
    const struct whatif_mix *m = &p->mix[WHATIF_FALLBACK];
    if (x->cfg != WHATIF_FALLBACK || m->start_od_ppm <= 0 || m->narrivals > 0 || p->narrivals > 0)
        return false;
    struct plan_rng s = x->r;
    plan_rng_seed(&s, plan_rng_next(&s) ^ 0x5eed0fa11bac4ULL);
    return plan_rng_chance_ppm(&s, m->start_od_ppm);
}

enum err wi_pool_run(struct mc *m, unsigned mask, uint64_t rseed, struct acc a[WHATIF_NCONFIG]) {
    const struct whatif_params *p = m->p;
    int64_t ntask[WHATIF_NCONFIG] = {0};
    size_t n = 0;
    for (int c = WHATIF_SPOT; c <= WHATIF_FALLBACK; c++)
        if (mask & (1u << c)) {
            ntask[c] = p->mix[c].tasks ? p->mix[c].tasks : p->tasks;
            n += (size_t)ntask[c];
        }
    if (n == 0)
        return ERR_OK;
    struct bufs *b = buffers(m, n);
    struct pool q = {.m = m, .a = a, .n = n, .t = b->t, .heap = b->heap, .wait = b->wait};
    int64_t per_node = p->gpus_node / p->gpus_task;
    q.slots = (int64_t)p->pool_nodes * (per_node < 1 ? 1 : per_node);
    size_t k = 0;
    for (int c = WHATIF_SPOT; c <= WHATIF_FALLBACK; c++) {
        struct plan_rng rr; /* the per-task model's draws: common across configurations */
        plan_rng_seed(&rr, rseed);
        for (int64_t j = 0; j < ntask[c]; j++, k++) {
            draw_task(p, c, &rr, &b->drawn[k]);
            b->key[k] = (uint64_t)b->drawn[k].arrival << KEY_BITS | (uint64_t)k;
        }
    }
    sort_keys(b->key, b->key + n, n);
    /* the tasks in arrival order: arrivals are then read in sequence */
    for (size_t i = 0; i < n; i++)
        q.t[i] = b->drawn[b->key[i] & ((1u << KEY_BITS) - 1)];
    struct plan_rng rs; /* the pool's reclaims */
    plan_rng_seed(&rs, rseed ^ 0x7ec1a1b5c0ffee11ULL);
    bool up = true;
    int64_t next_rc = m->mean > 0 ? plan_poisson_next(&rs, 0, m->mean) : INT64_MAX;
    int64_t back = 0;
    size_t next_arr = 0;
    enum err rc = ERR_OK;
    while (rc == ERR_OK && q.done < n) {
        int64_t t_end = q.nheap ? q.t[q.heap[0]].end : INT64_MAX;
        int64_t t_arr = next_arr < n ? q.t[next_arr].arrival : INT64_MAX;
        int64_t t_pool = up ? next_rc : back;
        if (t_end == INT64_MAX && t_arr == INT64_MAX && q.nw == 0)
            break; /* every task placed for good */
        if (t_end <= t_pool && t_end <= t_arr) {
            rc = finish(&q);
        } else if (t_pool <= t_arr) {
            if (up) {
                up = false;
                back = t_pool + p->replacement_delay;
                rc = reclaim(&q, t_pool);
            } else {
                up = true;
                next_rc = m->mean > 0 ? plan_poisson_next(&rs, back, m->mean) : INT64_MAX;
                rc = fill(&q, back);
            }
        } else {
            struct ptask *x = &q.t[next_arr];
            if (starts_on_fallback(p, x)) {
                q.done++;
                rc = wi_od_rest(m, WHATIF_FALLBACK, &x->r, x->work, 0, p->fallback_tail, 0,
                                &a[WHATIF_FALLBACK]);
            } else {
                rc = place(&q, next_arr, t_arr, up);
            }
            next_arr++;
        }
    }
    return rc;
}
