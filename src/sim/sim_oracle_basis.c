/* sim_oracle_basis — the completion basis, naively (sim_oracle.h, docs/cost-model.md
 * "Cost bases"). Each grid window is computed by orc_compute (second by second);
 * its per-node allocated cost per (configuration x kind) is split over the task
 * units that held the node, by the share-seconds orc_compute counted for their
 * pods; each pool's idle per configuration over the units, by those parts (or by
 * held seconds where orc_compute split that pool's idle so). Largest remainder,
 * units in uid order (a tie goes to the smaller uid). Shares no code with the
 * cost engine. */
#include "sim/sim_oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define NCLS (ORC_NCONFIG * ORC_NKIND)

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static void uid_of(const struct orc_timeline *tl, const struct orc_group_result *g, char *buf,
                   size_t n) {
    if (g->index >= 0)
        snprintf(buf, n, "%s/%d", tl->jobs[g->job].uid, g->index);
    else
        snprintf(buf, n, "%s", tl->jobs[g->job].uid);
}

static bool done_in(int64_t t, int64_t from, int64_t to, int64_t now) {
    return t != ORC_NEVER && t >= from && t < to && t <= now;
}

enum err orc_completion(const struct orc_timeline *tl, int64_t from, int64_t to, int64_t now,
                        struct orc_completion out[ORC_NCONFIG]) {
    memset(out, 0, ORC_NCONFIG * sizeof *out);
    struct orc_result base;
    enum err rc = orc_compute(tl, from, to, now, &base);
    if (rc != ERR_OK)
        return rc;
    int ng = base.ngroups;
    int64_t len = to - from;
    bool *succ = xcalloc((size_t)ng + 1, sizeof *succ);
    for (int k = 0; k < ng; k++) {
        succ[k] = done_in(base.groups[k].success_t, from, to, now);
        if (succ[k])
            out[tl->jobs[base.groups[k].job].config].tasks += base.groups[k].ntasks;
    }
    int64_t k0 = 0, k1 = 0;
    for (int i = 0; i < tl->npods; i++) {
        const struct orc_pod_result *p = &base.pods[i];
        if (p->group < 0 || !succ[p->group] || !p->held || p->hold_end <= p->hold_from)
            continue;
        int64_t a = floor_div(p->hold_from - from, len), b = floor_div(p->hold_end - 1 - from, len);
        k0 = a < k0 ? a : k0;
        k1 = b > k1 ? b : k1;
    }
    /* the units in uid order */
    char(*uid)[96] = xcalloc((size_t)ng + 1, sizeof *uid);
    int *ord = xcalloc((size_t)ng + 1, sizeof *ord);
    for (int k = 0; k < ng; k++) {
        uid_of(tl, &base.groups[k], uid[k], sizeof uid[k]);
        ord[k] = k;
    }
    for (int i = 1; i < ng; i++)
        for (int j = i; j > 0 && strcmp(uid[ord[j - 1]], uid[ord[j]]) > 0; j--) {
            int t = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = t;
        }
    orc_i128 *w = xcalloc((size_t)ng + 1, sizeof *w);
    int64_t *parts = xcalloc((size_t)ng + 1, sizeof *parts);
    /* [pool][unit]: the unit's allocated cost and held seconds in the pool */
    int64_t *alloc = xcalloc((size_t)tl->npools * (size_t)ng + 1, sizeof *alloc);
    int64_t *held = xcalloc((size_t)tl->npools * (size_t)ng + 1, sizeof *held);
    for (int64_t k = k0; k <= k1 && rc == ERR_OK; k++) {
        struct orc_result v;
        rc = orc_compute(tl, from + k * len, from + (k + 1) * len, now, &v);
        if (rc != ERR_OK)
            break;
        memset(alloc, 0, (size_t)tl->npools * (size_t)ng * sizeof *alloc);
        memset(held, 0, (size_t)tl->npools * (size_t)ng * sizeof *held);
        for (int i = 0; i < tl->npods; i++) {
            const struct orc_pod_result *p = &v.pods[i];
            if (p->group >= 0 && tl->pods[i].node >= 0)
                held[tl->nodes[tl->pods[i].node].pool * ng + p->group] += p->held_s;
        }
        for (int n = 0; n < tl->nnodes; n++) {
            int pool = tl->nodes[n].pool;
            for (int cls = 0; cls < NCLS; cls++) {
                int64_t amount = v.node_cls[(size_t)n * NCLS + (size_t)cls];
                if (amount == 0)
                    continue;
                int c = cls / ORC_NKIND, kind = cls % ORC_NKIND;
                orc_i128 sum = 0;
                for (int r = 0; r < ng; r++) {
                    int u = ord[r];
                    w[r] = 0;
                    if ((int)tl->jobs[v.groups[u].job].config != c)
                        continue;
                    for (int i = 0; i < tl->npods; i++)
                        if (v.pods[i].group == u && tl->pods[i].node == n)
                            w[r] += v.pods[i].w[kind];
                    sum += w[r];
                }
                if (sum == 0) {
                    rc = ERR_INVAL; /* money on a node nobody held: inconsistent */
                    break;
                }
                orc_split(amount, w, ng, parts);
                for (int r = 0; r < ng; r++) {
                    int u = ord[r];
                    alloc[pool * ng + u] += parts[r];
                    if (!succ[u])
                        continue;
                    struct orc_completion *o = &out[c];
                    int64_t *dst = kind == ORC_K_USEFUL    ? &o->useful
                                   : kind == ORC_K_RESTORE ? &o->restore
                                   : kind == ORC_K_WASTED  ? &o->wasted
                                                           : &o->running;
                    *dst += parts[r];
                }
            }
        }
        for (int p = 0; p < tl->npools && rc == ERR_OK; p++)
            for (int c = 0; c < ORC_NCONFIG; c++) {
                int64_t amount = v.pool_cfg_idle[p * ORC_NCONFIG + c];
                if (amount == 0)
                    continue;
                orc_i128 sum = 0;
                for (int r = 0; r < ng; r++) {
                    int u = ord[r];
                    bool mine = (int)tl->jobs[v.groups[u].job].config == c;
                    w[r] = !mine ? 0 : v.pool_by_alloc[p] ? alloc[p * ng + u] : held[p * ng + u];
                    sum += w[r];
                }
                if (sum == 0) {
                    rc = ERR_INVAL;
                    break;
                }
                orc_split(amount, w, ng, parts);
                for (int r = 0; r < ng; r++)
                    if (succ[ord[r]])
                        out[c].idle += parts[r];
            }
        orc_result_release(&v);
    }
    for (int c = 0; c < ORC_NCONFIG; c++) {
        struct orc_completion *o = &out[c];
        o->allocated = o->useful + o->restore + o->wasted + o->running;
        o->cost = o->allocated + o->idle;
        o->cost_per_task = ORC_NEVER;
        if (o->tasks > 0) /* half away from zero; cost >= 0 */
            o->cost_per_task = (o->cost + o->tasks / 2) / o->tasks;
    }
    orc_result_release(&base);
    free(succ);
    free(uid);
    free(ord);
    free(w);
    free(parts);
    free(alloc);
    free(held);
    return rc;
}
