/* sim_oracle_pod — the oracle's task groups and what it derives per pod: held
 * interval, winner, loss, share; and the partial-task figures (sim_oracle_int.h). */
#include "sim/sim_oracle_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/timeutil.h"
#include "base/xalloc.h"

/* ---- tasks ---------------------------------------------------------------- */

int orc_cmp_created(const struct orc_timeline *tl, int a, int b) {
    const struct orc_pod *x = &tl->pods[a], *y = &tl->pods[b];
    if (x->created_t != y->created_t)
        return x->created_t < y->created_t ? -1 : 1;
    return strcmp(x->uid, y->uid);
}

/* Insertion sort by creation: small lists, obvious. */
void orc_sort_by_created(const struct orc_timeline *tl, int *v, int n) {
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && orc_cmp_created(tl, v[k - 1], v[k]) > 0; k--) {
            int t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
}

/* The first pod of the group created after its a-th that started by now. */
const struct orc_pod *orc_next_started(const struct orc_timeline *tl, const struct group *gr, int a,
                                       int64_t now) {
    for (int b = a + 1; b < gr->npods; b++) {
        const struct orc_pod *p = &tl->pods[gr->pods[b]];
        if (p->start_t != ORC_NEVER && p->start_t <= now)
            return p;
    }
    return NULL;
}

bool orc_succeeded(const struct orc_pod *p, int64_t now) {
    return p->fin_t != ORC_NEVER && p->fin_t <= now && p->exit_code == 0;
}

static bool disruption_reason(const char *r) {
    static const char *const set[] = {"Evicted", "NodeLost", "Shutdown", "NodeShutdown",
                                      "Terminated"};
    if (!r)
        return false;
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
        if (strcmp(r, set[i]) == 0)
            return true;
    return false;
}

void orc_derive_pod(const struct orc_timeline *tl, int i, int64_t now, struct podx *x) {
    const struct orc_pod *p = &tl->pods[i];
    x->held = p->node >= 0 && p->sched_t != ORC_NEVER && p->sched_t <= now;
    x->hold_from = p->sched_t;
    int64_t end = ORC_NEVER;
    if (x->held) {
        end = orc_min64(end, p->fin_t);
        end = orc_min64(end, p->removed_t);
        end = orc_min64(end, tl->nodes[p->node].deleted_t);
        if (end > now)
            end = ORC_NEVER;
    }
    x->hold_to = end;
    x->lost_at = ORC_NEVER;
    x->interrupted = false;
    if (x->held && end != ORC_NEVER && !orc_succeeded(p, now)) {
        const struct orc_node *n = &tl->nodes[p->node];
        bool node_gone = end == n->deleted_t;
        if (p->disrupt_t <= now || disruption_reason(p->reason) || node_gone) {
            x->interrupted = true;
            /* the earliest evidence: DisruptionTarget, the deletion request (the pod's
             * deletion, decisions board), the NotReady spell it ended in, its end */
            int64_t lost = end;
            if (p->disrupt_t >= p->sched_t)
                lost = orc_min64(lost, p->disrupt_t);
            if (p->delreq_t >= p->sched_t)
                lost = orc_min64(lost, p->delreq_t);
            for (int s = 0; s < n->nspells; s++) {
                const struct orc_spell *sp = &n->spells[s];
                if (sp->from >= p->sched_t && sp->from <= end && sp->to >= end)
                    lost = orc_min64(lost, sp->from);
            }
            x->lost_at = lost;
        }
    }
}

/* The Kubernetes share numerator and the node denominator (docs/cost-model.md "share"). */
void orc_share_of(const struct orc_pod *p, const struct orc_node *n, int64_t *num, int64_t *den) {
    if (n->gpus > 0) {
        *den = n->gpus;
        *num = p->gpu_req > n->gpus ? n->gpus : p->gpu_req;
    } else {
        *den = n->cpu_m > 0 ? n->cpu_m : 1;
        *num = p->cpu_m > *den ? *den : p->cpu_m;
    }
}

int64_t orc_lcm64(int64_t a, int64_t b) {
    int64_t x = a, y = b;
    while (y) {
        int64_t t = x % y;
        x = y;
        y = t;
    }
    return a / x * b;
}

/* partial: a task holding a node in W, or finished in W, that also held one
 * outside W; or one holding a node in W not finished by W's end. */
void orc_partial_of(const struct orc_timeline *tl, const struct group *g, int ngroups,
                    const struct podx *px, struct orc_result *r) {
    for (int k = 0; k < ngroups; k++) {
        bool in_w = false, out_w = false;
        for (int a = 0; a < g[k].npods; a++) {
            const struct podx *x = &px[g[k].pods[a]];
            int64_t e = x->hold_to == ORC_NEVER ? r->now : x->hold_to;
            if (!x->held || e <= x->hold_from)
                continue;
            if (e > r->from && x->hold_from < r->to)
                in_w = true;
            if (x->hold_from < r->from || e > r->to)
                out_w = true;
        }
        int64_t done = orc_min64(g[k].success_t, g[k].fail_t);
        bool done_by_end = done != ORC_NEVER && done < r->to;
        bool done_in_w = orc_in_window(done, r->from, r->to, r->now);
        if ((in_w && (out_w || !done_by_end)) || (done_in_w && out_w))
            r->cfg[tl->jobs[g[k].job].config].partial = true;
    }
}
