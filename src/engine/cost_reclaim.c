/* cost_reclaim — reclaim timelines, On-Demand rates and checkpoint advice.
 *
 * A reclaim is a spot pool that vanished (deleted_at), or whose nodes all ended
 * and that lost at least one attempt to an interruption around that time. Its
 * timeline: first signal -> pool gone -> first on-demand node Ready -> first
 * interrupted task running again. Contracts and decisions in cost.h. */
#include <stdlib.h>
#include <string.h>

#include "engine/cost.h"
#include "engine/cost_internal.h"
#include "engine/cost_partial.h"
#include "base/money.h"

static bool is_signal(const struct cost_reclaim *rc, int64_t t) {
    return t != 0 && t >= rc->gone_at - COST_RECLAIM_LOOKBACK && t <= rc->gone_at;
}

/* A node's NotReady as reclaim evidence (docs/cost-model.md "Spot pools and
 * reclaims"): the start of the spell it never left (a blip it came back from is
 * not a reclaim), its first NotReady when no spell is known; only after it was
 * Ready (a node still provisioning was never up to be reclaimed); 0 none. */
static int64_t final_not_ready(const struct cost_node *n) {
    int64_t t = !n->n_spells                          ? n->not_ready_at
                : n->spells[2 * n->n_spells - 1] == 0 ? n->spells[2 * n->n_spells - 2]
                                                      : 0;
    return n->ready_at && t > n->ready_at ? t : 0;
}

/* When a spot pool is gone (0: not gone): deleted (at its last node's end if
 * that came first; confirmed), or every node ended within COST_RECLAIM_SPREAD
 * (confirmed only by an interrupted attempt). */
static int64_t gone_of(const struct cost_pool *pool, const struct cost_pool_rt *prt) {
    if (pool->deleted_at) {
        if (prt->nodes && prt->all_ended && prt->max_end && prt->max_end < pool->deleted_at)
            return prt->max_end; /* its last node went before the poll saw it */
        return pool->deleted_at;
    }
    if (prt->nodes && prt->all_ended && prt->max_end &&
        prt->max_end - prt->min_end <= COST_RECLAIM_SPREAD)
        return prt->max_end;
    return 0;
}

bool cost_reclaim_possible(const struct cost_input *in, const struct cost_query *q) {
    for (size_t p = 0; p < in->n_pools; p++) {
        if (in->pools[p].capacity != COST_CAP_SPOT)
            continue;
        struct cost_pool_rt prt = {.all_ended = true}; /* as setup_nodes counts it */
        for (size_t i = 0; i < in->n_nodes; i++) {
            if (in->nodes[i].pool != (int32_t)p)
                continue;
            int64_t end = cost_node_end(&in->nodes[i]);
            prt.nodes++;
            if (end == 0)
                prt.all_ended = false;
            prt.max_end = cost_max64(prt.max_end, end);
            prt.min_end = cost_min_nz(prt.min_end, end);
        }
        int64_t gone = gone_of(&in->pools[p], &prt);
        if (gone && gone >= q->from && gone < q->to)
            return true;
    }
    return false;
}

enum err cost_reclaim_candidates(struct cost_ctx *x) {
    const struct cost_input *in = x->in;
    x->cand = calloc(in->n_pools ? in->n_pools : 1, sizeof *x->cand);
    if (!x->cand)
        return ERR_NOMEM;
    for (size_t p = 0; p < in->n_pools; p++) {
        const struct cost_pool *pool = &in->pools[p];
        const struct cost_pool_rt *prt = &x->prt[p];
        struct cost_reclaim_rt *c = &x->cand[p];
        if (pool->capacity != COST_CAP_SPOT)
            continue;
        int64_t gone = gone_of(pool, prt);
        c->confirmed = pool->deleted_at != 0;
        if (!gone || gone < x->q->from || gone >= x->q->to)
            continue;
        c->rc.pool = (int32_t)p;
        c->rc.pool_id = pool->id;
        c->rc.pool_name = pool->name;
        c->rc.size = pool->size;
        c->rc.gone_at = gone;
        if (is_signal(&c->rc, pool->signal_at))
            c->rc.first_signal_at = pool->signal_at;
        c->last_task = -1;
        x->prt[p].reclaim = (int32_t)p;
    }
    for (size_t i = 0; i < in->n_nodes; i++) {
        const struct cost_node *n = &in->nodes[i];
        if (n->pool < 0 || x->prt[n->pool].reclaim < 0)
            continue;
        struct cost_reclaim *rc = &x->cand[n->pool].rc;
        int64_t end = x->nrt[i].end;
        if (end == 0 || end >= rc->gone_at - COST_RECLAIM_LOOKBACK)
            rc->nodes++;
        if (is_signal(rc, n->cordoned_at))
            rc->first_signal_at = cost_min_nz(rc->first_signal_at, n->cordoned_at);
        int64_t nr = final_not_ready(n);
        if (is_signal(rc, nr))
            rc->first_signal_at = cost_min_nz(rc->first_signal_at, nr);
    }
    return ERR_OK;
}

int64_t cost_reclaim_pod_not_ready(const struct cost_input *in, const struct cost_attempt *a) {
    bool spells = a->node >= 0 && (size_t)a->node < in->n_nodes && in->nodes[a->node].n_spells > 0;
    return spells ? 0 : a->not_ready_at;
}

void cost_reclaim_evidence(struct cost_ctx *x, int32_t pool, const struct cost_attempt *a,
                           int64_t lost, int64_t resumed, int32_t task) {
    if (x->hook && x->hook->evidence && (size_t)pool < x->in->n_pools &&
        x->in->pools[pool].capacity == COST_CAP_SPOT && x->hook_rc == ERR_OK)
        x->hook_rc = x->hook->evidence(x, pool, a, lost, resumed, task, x->hook->arg);
    if ((size_t)pool >= x->in->n_pools || x->prt[pool].reclaim < 0)
        return;
    struct cost_reclaim_rt *c = &x->cand[pool];
    struct cost_reclaim *rc = &c->rc;
    if (lost < rc->gone_at - COST_RECLAIM_LOOKBACK || lost > rc->gone_at + COST_RECLAIM_SPREAD)
        return;
    c->confirmed = true;
    if (is_signal(rc, a->disruption_at))
        rc->first_signal_at = cost_min_nz(rc->first_signal_at, a->disruption_at);
    int64_t nr = cost_reclaim_pod_not_ready(x->in, a);
    if (is_signal(rc, nr))
        rc->first_signal_at = cost_min_nz(rc->first_signal_at, nr);
    if (c->last_task == task)
        return;
    c->last_task = task;
    rc->tasks_interrupted++;
    if (resumed) {
        rc->tasks_resumed++;
        rc->first_resumed_at = cost_min_nz(rc->first_resumed_at, resumed);
        if (resumed > rc->last_resumed_at)
            rc->last_resumed_at = resumed;
    }
}

/* ---- On-Demand rates -------------------------------------------------------- */

static bool is_od_of(const char *od, const char *spot) {
    /* od == spot without its "-spot" suffix */
    size_t n = strlen(spot), k = strlen("-spot");
    return n > k && strcmp(spot + n - k, "-spot") == 0 && strlen(od) == n - k &&
           strncmp(od, spot, n - k) == 0;
}

void cost_resolve_od_rates(struct cost_ctx *x) {
    const struct cost_input *in = x->in;
    const struct cost_query *q = x->q;
    /* every on-demand pool prices itself (its price, else one of its nodes') */
    for (size_t p = 0; p < in->n_pools; p++)
        if (in->pools[p].capacity == COST_CAP_ON_DEMAND)
            x->prt[p].od_rate = in->pools[p].price_hourly;
    for (size_t i = 0; i < in->n_nodes; i++) {
        int32_t p = x->nrt[i].pool;
        if ((size_t)p < in->n_pools && in->pools[p].capacity == COST_CAP_ON_DEMAND &&
            !x->prt[p].od_rate)
            x->prt[p].od_rate = x->nrt[i].rate;
    }
    int64_t last = q->now < q->to ? q->now : q->to - 1;
    /* the on-demand pool fallback tasks used most */
    int64_t fb_best = 0, fb_rate = 0;
    for (size_t p = 0; p < in->n_pools; p++) {
        if (in->pools[p].capacity != COST_CAP_ON_DEMAND)
            continue;
        int64_t s = x->pool_secs[p * COST_NGROUP + COST_FALLBACK] +
                    x->pool_secs[p * COST_NGROUP + COST_NCONFIG + COST_FALLBACK];
        if (s > fb_best && x->prt[p].od_rate) {
            fb_best = s;
            fb_rate = x->prt[p].od_rate;
        }
    }
    for (size_t p = 0; p < in->n_pools; p++) {
        const struct cost_pool *pool = &in->pools[p];
        if (pool->capacity != COST_CAP_SPOT)
            continue;
        int64_t rate = 0;
        for (size_t k = 0; pool->size && k < q->n_od_sizes && !rate; k++)
            if (q->od_sizes[k].spot_size && strcmp(q->od_sizes[k].spot_size, pool->size) == 0) {
                /* the price in force at the window's last second (stability: a
                 * later list price never re-prices a closed window), else the
                 * mapping's own */
                rate = cost_price_in_force(in, q->od_sizes[k].od_size, last, true);
                if (!rate)
                    rate = q->od_sizes[k].od_price_hourly;
            }
        for (size_t o = 0; pool->size && o < in->n_pools && !rate; o++)
            if (in->pools[o].capacity == COST_CAP_ON_DEMAND && in->pools[o].size &&
                is_od_of(in->pools[o].size, pool->size))
                rate = x->prt[o].od_rate;
        if (!rate)
            rate = fb_rate;
        x->prt[p].od_rate = rate;
    }
}

/* ---- the counterfactual (docs/cost-model.md "Pure On-Demand") ---------------- */

__extension__ typedef __int128 i128;

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The rows [*lo, *hi) of size in the sorted price history; -1 when absent. */
static void price_rows(const struct cost_input *in, const char *size, int32_t *lo, int32_t *hi) {
    *lo = *hi = -1;
    for (size_t k = 0; size && k < in->n_prices; k++) {
        bool same = in->prices[k].size && strcmp(in->prices[k].size, size) == 0;
        if (!same && *lo >= 0)
            break; /* sorted by size: its rows are one run */
        if (!same)
            continue;
        if (*lo < 0)
            *lo = (int32_t)k;
        *hi = (int32_t)k + 1;
    }
}

/* The On-Demand size of each pool: its own when not spot; for a spot pool the
 * --on-demand-size mapping (then the "-spot" twin), else the size of the non-spot
 * GPU pool fallback tasks held longest in the window. */
static void resolve_od_sizes(struct cost_ctx *x) {
    const struct cost_input *in = x->in;
    const struct cost_query *q = x->q;
    bool *gpu = calloc(in->n_pools + 1, sizeof *gpu);
    for (size_t i = 0; gpu && i < in->n_nodes; i++)
        if ((size_t)x->nrt[i].pool < in->n_pools && x->nrt[i].gpu > 0)
            gpu[x->nrt[i].pool] = true;
    int64_t fb_best = -1;
    const char *fb_size = NULL;
    for (size_t p = 0; p < in->n_pools; p++) {
        if (in->pools[p].capacity != COST_CAP_ON_DEMAND || !gpu || !gpu[p])
            continue;
        int64_t s = x->pool_secs[p * COST_NGROUP + COST_FALLBACK] +
                    x->pool_secs[p * COST_NGROUP + COST_NCONFIG + COST_FALLBACK];
        if (s > fb_best) {
            fb_best = s;
            fb_size = in->pools[p].size;
        }
    }
    free(gpu);
    for (size_t p = 0; p < x->np; p++) {
        x->prt[p].od_lo = x->prt[p].od_hi = -1;
        if (p == in->n_pools)
            continue;
        const struct cost_pool *pool = &in->pools[p];
        const char *od = NULL;
        if (pool->capacity != COST_CAP_SPOT) {
            od = pool->size;
        } else {
            for (size_t k = 0; pool->size && k < q->n_od_sizes && !od; k++)
                if (q->od_sizes[k].spot_size && !strcmp(q->od_sizes[k].spot_size, pool->size))
                    od = q->od_sizes[k].od_size;
            size_t n = pool->size ? strlen(pool->size) : 0, ks = strlen("-spot");
            if (!od && n > ks && !strcmp(pool->size + n - ks, "-spot")) {
                char twin[256]; /* the slug without "-spot", if it is listed */
                if (n - ks < sizeof twin) {
                    memcpy(twin, pool->size, n - ks);
                    twin[n - ks] = '\0';
                    price_rows(in, twin, &x->prt[p].od_lo, &x->prt[p].od_hi);
                    if (x->prt[p].od_lo >= 0)
                        continue;
                }
            }
            if (!od)
                od = fb_size;
        }
        price_rows(in, od, &x->prt[p].od_lo, &x->prt[p].od_hi);
    }
}

enum err cost_counterfactual(struct cost_ctx *x) {
    const struct cost_input *in = x->in;
    struct cost_result *r = x->r;
    resolve_od_sizes(x);
    int64_t l = 1; /* lcm of the GPU counts: one exact denominator */
    for (size_t k = 0; k < in->n_prices; k++) {
        int64_t g = in->prices[k].gpus;
        if (g > 0 && l < (INT64_C(1) << 20))
            l = l / gcd64(l, g) * g;
    }
    i128 num[COST_NCONFIG] = {0};
    int64_t priced[COST_NCONFIG] = {0}, work[COST_NCONFIG] = {0};
    size_t n = x->cf.len / sizeof(struct cost_cf_sample);
    const struct cost_cf_sample *v = (const struct cost_cf_sample *)(const void *)x->cf.data;
    for (size_t i = 0; i < n; i++) {
        const struct cost_cf_sample *smp = &v[i];
        const struct cost_pool_rt *pr = &x->prt[smp->pool];
        if (pr->od_lo < 0 || smp->group >= COST_NCONFIG)
            continue;          /* unpriced */
        int32_t k = pr->od_lo; /* the price in force when it ran (else the first known) */
        for (int32_t j = pr->od_lo; j < pr->od_hi && in->prices[j].at <= smp->at; j++)
            k = j;
        const struct cost_price *pp = &in->prices[k];
        if (pp->gpus <= 0 || pp->price_hourly <= 0 || l % pp->gpus != 0)
            continue;
        i128 one = (i128)smp->wg * pp->price_hourly * (l / pp->gpus);
        num[smp->group] += one;
        priced[smp->group] += smp->n;
        if (r->tasks && smp->task >= 0) { /* one winner of a task of this computation */
            struct cost_task_result *tr = &r->tasks[smp->task];
            if (one > INT64_MAX - tr->cf_num)
                return ERR_TOOBIG;
            tr->cf_num += (int64_t)one;
            tr->cf_priced += smp->n;
        }
        work[smp->group] += smp->work;
    }
    i128 sel = 0;
    i128 den = (i128)l * 3600;
    r->cf_den = l * 3600;
    for (int c = 0; c < 2; c++) {
        struct cost_config_result *cr = &r->configs[c];
        i128 q = (num[c] + den / 2) / den; /* >= 0: half away from zero */
        if (q > INT64_MAX)
            return ERR_TOOBIG;
        cr->counterfactual_cost = (int64_t)q;
        cr->counterfactual_tasks = priced[c];
        if (!(x->q->configs == 0 || (x->q->configs & (1u << c))))
            continue;
        sel += num[c];
        r->counterfactual.tasks_priced += priced[c];
        r->counterfactual.work_seconds += work[c];
    }
    i128 q = (sel + den / 2) / den;
    if (q > INT64_MAX)
        return ERR_TOOBIG;
    r->counterfactual.cost = (int64_t)q;
    return ERR_OK;
}

/* ---- timelines ---------------------------------------------------------------- */

static int cmp_reclaim(const void *a, const void *b) {
    const struct cost_reclaim *x = a, *y = b;
    if (x->gone_at != y->gone_at)
        return (x->gone_at > y->gone_at) - (x->gone_at < y->gone_at);
    return (x->pool > y->pool) - (x->pool < y->pool);
}

static int64_t since(int64_t from, int64_t t) {
    return from && t ? t - from : COST_NULL;
}

enum err cost_reclaim_finish(struct cost_ctx *x) {
    const struct cost_input *in = x->in;
    struct cost_result *r = x->r;
    size_t n = 0;
    for (size_t p = 0; p < in->n_pools; p++)
        if (x->prt[p].reclaim >= 0 && x->cand[p].confirmed)
            n++;
    r->reclaims = calloc(n ? n : 1, sizeof *r->reclaims);
    if (!r->reclaims)
        return ERR_NOMEM;
    for (size_t p = 0; p < in->n_pools; p++) {
        if (x->prt[p].reclaim < 0)
            continue;
        if (!x->cand[p].confirmed) {
            x->prt[p].reclaim = -1; /* a scale-down, not a reclaim */
            continue;
        }
        struct cost_reclaim *rc = &r->reclaims[r->n_reclaims++];
        *rc = x->cand[p].rc;
        int64_t ref = rc->first_signal_at ? rc->first_signal_at : rc->gone_at;
        for (size_t i = 0; i < in->n_nodes; i++) {
            const struct cost_node_rt *nt = &x->nrt[i];
            /* replacement: a non-spot node with GPUs (a CPU node cannot run the task) */
            if ((size_t)nt->pool < in->n_pools &&
                in->pools[nt->pool].capacity == COST_CAP_ON_DEMAND && nt->gpu > 0 && nt->s >= ref)
                rc->fallback_ready_at = cost_min_nz(rc->fallback_ready_at, nt->s);
        }
        rc->signal_to_gone_seconds = since(rc->first_signal_at, rc->gone_at);
        rc->replacement_delay_seconds = since(ref, rc->fallback_ready_at);
        rc->return_to_useful_work_seconds = since(ref, rc->first_resumed_at);
    }
    qsort(r->reclaims, r->n_reclaims, sizeof *r->reclaims, cmp_reclaim);
    return ERR_OK;
}

/* ---- checkpoint advice ------------------------------------------------------- */

static int64_t isqrt64(int64_t v) {
    if (v <= 0)
        return 0;
    uint64_t lo = 0, hi = 3037000500u; /* > sqrt(INT64_MAX) */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (mid * mid <= (uint64_t)v)
            lo = mid;
        else
            hi = mid - 1;
    }
    return (int64_t)lo;
}

struct span {
    int64_t a, b;
};

static int cmp_span(const void *a, const void *b) {
    const struct span *x = a, *y = b;
    return (x->a > y->a) - (x->a < y->a);
}

enum err cost_advice_build(struct cost_ctx *x) {
    const struct cost_input *in = x->in;
    const struct cost_query *q = x->q;
    struct cost_result *r = x->r;
    enum err rc = ERR_OK;
    r->advice = calloc(in->n_pools ? in->n_pools : 1, sizeof *r->advice);
    int32_t *size_of = calloc(in->n_pools ? in->n_pools : 1, sizeof *size_of);
    struct span *spans = calloc(in->n_pools ? in->n_pools : 1, sizeof *spans);
    if (!r->advice || !size_of || !spans) {
        rc = ERR_NOMEM;
        goto out;
    }
    for (size_t p = 0; p < in->n_pools; p++) {
        const struct cost_pool *pool = &in->pools[p];
        size_of[p] = -1;
        if (pool->capacity != COST_CAP_SPOT || !pool->size)
            continue;
        size_t k = 0;
        while (k < r->n_advice && strcmp(r->advice[k].size, pool->size) != 0)
            k++;
        if (k == r->n_advice)
            r->advice[r->n_advice++].size = pool->size;
        size_of[p] = (int32_t)k;
    }
    for (size_t k = 0; k < r->n_advice; k++) {
        struct cost_advice *ad = &r->advice[k];
        size_t ns = 0;
        int64_t ck_sum = 0, ck_n = 0;
        for (size_t p = 0; p < in->n_pools; p++) {
            if (size_of[p] != (int32_t)k)
                continue;
            const struct cost_pool_rt *prt = &x->prt[p];
            ck_sum += prt->ckpt_sum;
            ck_n += prt->ckpt_n;
            if (!prt->min_start)
                continue;
            int64_t end = prt->reclaim >= 0         ? x->cand[p].rc.gone_at
                          : in->pools[p].deleted_at ? in->pools[p].deleted_at
                          : prt->all_ended          ? prt->max_end
                                                    : q->now;
            struct span s = {prt->min_start > q->from ? prt->min_start : q->from,
                             end < q->to ? end : q->to};
            if (s.b > s.a)
                spans[ns++] = s;
        }
        for (size_t i = 0; i < r->n_reclaims; i++)
            if (r->reclaims[i].size && strcmp(r->reclaims[i].size, ad->size) == 0)
                ad->reclaims++;
        qsort(spans, ns, sizeof *spans, cmp_span);
        int64_t cur_a = 0, cur_b = 0;
        for (size_t i = 0; i < ns; i++) {
            if (i == 0 || spans[i].a > cur_b) {
                ad->exposure_seconds += cur_b - cur_a;
                cur_a = spans[i].a;
                cur_b = spans[i].b;
            } else if (spans[i].b > cur_b) {
                cur_b = spans[i].b;
            }
        }
        ad->exposure_seconds += cur_b - cur_a;
        ad->checkpoint_samples = ck_n;
        ad->mtbr_seconds = ad->mean_checkpoint_seconds = ad->interval_seconds = COST_NULL;
        if (ad->reclaims) {
            rc = money_muldiv(ad->exposure_seconds, 1, ad->reclaims, &ad->mtbr_seconds);
            if (rc != ERR_OK)
                goto out;
        }
        if (ck_n) {
            rc = money_muldiv(ck_sum, 1, ck_n, &ad->mean_checkpoint_seconds);
            if (rc != ERR_OK)
                goto out;
        }
        if (ck_n && ad->reclaims) {
            int64_t v; /* 2 δ M with δ = ck_sum / ck_n, one rounding */
            rc = money_muldiv(2 * ck_sum, ad->mtbr_seconds, ck_n, &v);
            if (rc != ERR_OK)
                goto out;
            ad->interval_seconds = isqrt64(v);
        }
    }
    /* each configuration's main spot size: the most allocated cost */
    for (int c = 0; c < COST_NCONFIG; c++) {
        int64_t best = 0;
        for (size_t k = 0; k < r->n_advice; k++) {
            int64_t sum = 0;
            for (size_t p = 0; p < in->n_pools; p++)
                if (size_of[p] == (int32_t)k)
                    sum += x->prt[p].galloc[c];
            if (sum > best) {
                best = sum;
                r->configs[c].advice = (int32_t)k;
            }
        }
    }
out:
    free(size_of);
    free(spans);
    return rc;
}
