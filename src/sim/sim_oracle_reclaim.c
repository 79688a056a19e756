/* sim_oracle_reclaim — the oracle's reclaims, naively, from the record
 * (docs/cost-model.md "Spot pools and reclaims", docs/oracle.md). Nothing here
 * is shared with the cost engine: each rule of the cost model is re-derived
 * from the timeline, pool by pool, node by node, pod by pod. */
#include "sim/sim_oracle.h"
#include "sim/sim_oracle_int.h"

#include <stdlib.h>

#define LOOKBACK 3600 /* evidence: the hour before the pool is gone */
#define SPREAD 600    /* "within minutes": ten */

/* When node n ended (deleted by now), ORC_NEVER: alive at now. */
static int64_t node_end(const struct orc_node *n, int64_t now) {
    return n->deleted_t != ORC_NEVER && n->deleted_t <= now ? n->deleted_t : ORC_NEVER;
}

/* t is known and in the hour before gone (gone included). */
static bool in_lookback(int64_t t, int64_t gone) {
    return t != ORC_NEVER && t >= gone - LOOKBACK && t <= gone;
}

/* Pod i, on a node of pool p, was lost in the reclaim gone at `gone`: from an
 * hour before to ten minutes after. */
static bool lost_in(const struct orc_timeline *tl, const struct podx *px, int i, int p,
                    int64_t gone) {
    const struct orc_pod *pd = &tl->pods[i];
    return px[i].interrupted && pd->node >= 0 && tl->nodes[pd->node].pool == p &&
           px[i].lost_at != ORC_NEVER && px[i].lost_at >= gone - LOOKBACK &&
           px[i].lost_at <= gone + SPREAD;
}

/* When spot pool p was gone (ORC_NEVER: not gone), and whether that alone makes
 * it a reclaim (it vanished) or a lost pod must confirm it (its nodes all ended
 * within ten minutes while the pool stayed listed). */
static int64_t gone_of(const struct orc_timeline *tl, int p, int64_t now, bool *vanished) {
    int nodes = 0;
    bool all_ended = true;
    int64_t first = ORC_NEVER, last = ORC_NEVER;
    for (int n = 0; n < tl->nnodes; n++) {
        if (tl->nodes[n].pool != p)
            continue;
        nodes++;
        int64_t e = node_end(&tl->nodes[n], now);
        if (e == ORC_NEVER) {
            all_ended = false;
            continue;
        }
        first = first == ORC_NEVER || e < first ? e : first;
        last = last == ORC_NEVER || e > last ? e : last;
    }
    const struct orc_pool *pool = &tl->pools[p];
    *vanished = pool->gone_t != ORC_NEVER && pool->gone_t <= now;
    if (*vanished) /* its capacity went with its last node, if that was earlier */
        return nodes > 0 && all_ended && last < pool->gone_t ? last : pool->gone_t;
    if (nodes > 0 && all_ended && last - first <= SPREAD)
        return last;
    return ORC_NEVER;
}

/* The first signal in the hour before gone, ORC_NEVER: none. */
static int64_t first_signal(const struct orc_timeline *tl, const struct podx *px, int p,
                            int64_t gone, int64_t now) {
    int64_t sig = ORC_NEVER;
    const struct orc_pool *pool = &tl->pools[p];
    for (int n = 0; n < tl->nnodes; n++) {
        const struct orc_node *node = &tl->nodes[n];
        if (node->pool != p)
            continue;
        int64_t end = node_end(node, now);
        /* the cordon: the pool's signal marks every node it still had */
        if (in_lookback(pool->signal_t, gone) && node->created_t <= pool->signal_t &&
            (end == ORC_NEVER || end > pool->signal_t))
            sig = orc_min64(sig, pool->signal_t);
        /* NotReady: the spell the node never left (a blip it came back from is not one) */
        if (node->nspells > 0 && node->spells[node->nspells - 1].to == ORC_NEVER &&
            in_lookback(node->spells[node->nspells - 1].from, gone))
            sig = orc_min64(sig, node->spells[node->nspells - 1].from);
    }
    /* DisruptionTarget of a pod lost in the reclaim */
    for (int i = 0; i < tl->npods; i++)
        if (lost_in(tl, px, i, p, gone) && in_lookback(tl->pods[i].disrupt_t, gone))
            sig = orc_min64(sig, tl->pods[i].disrupt_t);
    return sig;
}

static int cmp_reclaim(const void *a, const void *b) {
    const struct orc_reclaim *x = a, *y = b;
    if (x->gone_t != y->gone_t)
        return x->gone_t < y->gone_t ? -1 : 1;
    return x->pool - y->pool;
}

void orc_reclaims(const struct orc_timeline *tl, int64_t from, int64_t to, int64_t now,
                  const struct group *g, int ngroups, const struct podx *px, struct orc_result *r) {
    for (int p = 0; p < tl->npools; p++) {
        bool vanished = false;
        int64_t gone = r->pools[p].spot ? gone_of(tl, p, now, &vanished) : ORC_NEVER;
        if (!orc_in_window(gone, from, to, now))
            continue;
        bool lost = false;
        for (int i = 0; i < tl->npods && !lost; i++)
            lost = lost_in(tl, px, i, p, gone);
        if (!vanished && !lost)
            continue; /* a scale-down, not a reclaim */
        struct orc_reclaim *rc = &r->reclaims[r->nreclaims++];
        rc->pool = p;
        rc->gone_t = gone;
        rc->signal_t = first_signal(tl, px, p, gone, now);
        int64_t ref = rc->signal_t != ORC_NEVER ? rc->signal_t : gone;
        rc->signal_to_gone = rc->signal_t != ORC_NEVER ? gone - rc->signal_t : ORC_NEVER;
        rc->replacement_ready_t = ORC_NEVER;
        for (int n = 0; n < tl->nnodes; n++) {
            const struct orc_node *node = &tl->nodes[n];
            if (node->pool == p)
                rc->nodes += node_end(node, now) == ORC_NEVER || node->deleted_t >= gone - LOOKBACK;
            if (r->pools[node->pool].spot || node->gpus <= 0 || node->ready_t == ORC_NEVER ||
                node->ready_t > now)
                continue;
            if (node->ready_t >= ref)
                rc->replacement_ready_t = orc_min64(rc->replacement_ready_t, node->ready_t);
        }
        /* tasks: each counted once, by its first pod lost in the reclaim */
        rc->resumed_t = rc->last_resumed_t = ORC_NEVER;
        for (int k = 0; k < ngroups; k++)
            for (int a = 0; a < g[k].npods; a++) {
                if (!lost_in(tl, px, g[k].pods[a], p, gone))
                    continue;
                rc->tasks_interrupted++;
                const struct orc_pod *next = orc_next_started(tl, &g[k], a, now);
                if (next) {
                    rc->tasks_resumed++;
                    rc->resumed_t = orc_min64(rc->resumed_t, next->start_t);
                    if (rc->last_resumed_t == ORC_NEVER || next->start_t > rc->last_resumed_t)
                        rc->last_resumed_t = next->start_t;
                }
                break;
            }
        rc->replacement_delay =
            rc->replacement_ready_t == ORC_NEVER ? ORC_NEVER : rc->replacement_ready_t - ref;
        rc->return_to_work = rc->resumed_t == ORC_NEVER ? ORC_NEVER : rc->resumed_t - ref;
    }
    qsort(r->reclaims, (size_t)r->nreclaims, sizeof *r->reclaims, cmp_reclaim);
}
