/* sim_engine_reclaim — the handlers of reclaims and deletions (sim_engine.h):
 * Spot reclaim (cordon -> eviction -> shutdown -> Node deletion -> PodGC), pod
 * deletion, TTL, scale-down of empty nodes, Event expiry, pool re-creation. */
#include "sim/sim_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reclaim_new(struct sim_eng *e, int pool) {
    struct sim_world *w = e->w;
    XGROW(w->reclaims, w->nreclaims, w->capreclaims, 64);
    int r = w->nreclaims++;
    w->reclaims[r] = (struct sim_reclaim){pool, e->now, SIM_NEVER, SIM_NEVER, SIM_NEVER, 0};
    for (int i = 0; i < w->nnodes; i++) {
        const struct sim_node *n = &w->nodes[i];
        if (sim_eng_pool_spec(e, n->pool)->role == SIM_ROLE_FALLBACK && n->ready_t != SIM_NEVER &&
            n->deleted_t == SIM_NEVER && n->deleting_t == SIM_NEVER) {
            w->reclaims[r].fallback_ready_t = e->now;
            break;
        }
    }
    return r;
}

void sim_eng_on_reclaim(struct sim_eng *e, int spec) {
    struct sim_world *w = e->w;
    int pool = sim_eng_pool_current(e, spec);
    if (pool < 0)
        return;
    w->pools[pool].reclaimed = true;
    w->pools[pool].cordon_t = e->now;
    int r = reclaim_new(e, pool);
    const struct sim_scenario *sc = e->sc;
    for (int i = 0; i < w->nnodes; i++) {
        struct sim_node *n = &w->nodes[i];
        if (n->pool != pool || n->deleted_t != SIM_NEVER || n->deleting_t != SIM_NEVER)
            continue;
        n->cordon_t = e->now;
        if (n->reg_seq != SIM_NEVER) {
            n->cordon_seq = sim_eng_emit(e, SIM_K_NODE, i, SIM_MODIFIED);
            sim_eng_kevent(e, SIM_K_NODE, i, "NodeNotSchedulable", "Normal", "kubelet", true,
                           "Node %s status is now: NodeNotSchedulable", w->nodes[i].name);
            sim_eng_kevent(
                e, SIM_K_NODE, i, "SpotReclaim", "Warning", "digitalocean-cloud-controller", false,
                "Spot capacity reclaimed: node pool %s is being deleted", w->pools[pool].name);
            sim_eng_push(e, e->now + sc->reclaim_notice, EV_SHUTDOWN, i, 0, 0);
        }
        sim_eng_push(e, e->now + sc->reclaim_notice + sc->node_delete_seconds, EV_NODE_DELETE, i, 0,
                     0);
    }
    sim_eng_push(e, e->now + sc->reclaim_drain_after, EV_EVICT, pool, r, 0);
}

void sim_eng_interrupt(struct sim_eng *e, int pod, int r) {
    struct sim_world *w = e->w;
    struct sim_pod *p = &w->pods[pod];
    if (p->interrupted)
        return;
    p->interrupted = true;
    p->reclaim = r;
    p->outcome = SIM_OUT_INTERRUPTED;
    w->tasks[p->task].interruptions++;
    w->tasks[p->task].last_reclaim = r;
    if (r >= 0)
        w->reclaims[r].interrupted++;
}

void sim_eng_on_evict(struct sim_eng *e, int pool, int r) {
    struct sim_world *w = e->w;
    const struct sim_scenario *sc = e->sc;
    int64_t shutdown = w->reclaims[r].signal_t + sc->reclaim_notice;
    for (int pod = 0; pod < w->npods; pod++) {
        struct sim_pod *p = &w->pods[pod];
        if (!p->holds_node || w->nodes[p->node].pool != pool || p->delreq_seq != SIM_NEVER)
            continue;
        const struct sim_workload *wl = sim_eng_job_wl(e, p->job);
        sim_eng_interrupt(e, pod, r);
        p->disrupt_t = e->now;
        p->disrupt_reason = "EvictionByEvictionAPI";
        p->disrupt_msg = "Eviction API: evicting";
        p->delreq_t = e->now;
        p->delgrace = SIM_POD_GRACE; /* the Eviction API: the pod's own grace period */
        p->delreq_seq = p->disrupt_seq = sim_eng_emit(e, SIM_K_POD, pod, SIM_MODIFIED);
        sim_eng_kevent(e, SIM_K_POD, pod, "Killing", "Normal", "kubelet", true,
                       "Stopping container main");
        p = &w->pods[pod];
        if (p->start_t == SIM_NEVER) {
            /* still pulling its image: the kubelet drops it at once */
            p->token++;
            sim_eng_node_release(e, pod);
            sim_eng_push(e, e->now + 1, EV_POD_DELETE, pod, 0, 0);
        } else {
            int64_t exit_at = e->now + sc->sigterm_seconds;
            if (p->planned_exit_t <= exit_at && p->planned_exit_t < shutdown) {
                /* finishes on its own before SIGTERM takes effect */
            } else if (exit_at < shutdown) {
                p->token++;
                sim_eng_push(e, exit_at, EV_CEXIT, pod, 143, p->token);
            } else {
                p->token++; /* the node dies first: PodGC will collect it */
            }
        }
        if (!wl->pod_failure_policy)
            sim_eng_handle_failure(e, pod, true); /* TerminatingOrFailed: replace at once */
    }
}

void sim_eng_on_shutdown(struct sim_eng *e, int node) {
    struct sim_world *w = e->w;
    struct sim_node *n = &w->nodes[node];
    if (n->deleted_t != SIM_NEVER)
        return;
    n->deleting_t = e->now;
    if (n->reg_seq == SIM_NEVER)
        return;
    n->notready_t = e->now;
    n->notready_seq = sim_eng_emit(e, SIM_K_NODE, node, SIM_MODIFIED);
    sim_eng_kevent(e, SIM_K_NODE, node, "NodeNotReady", "Normal", "node-controller", false,
                   "Node %s status is now: NodeNotReady", w->nodes[node].name);
    for (int pod = 0; pod < w->npods; pod++) {
        struct sim_pod *p = &w->pods[pod];
        if (p->holds_node && p->node == node && p->start_t != SIM_NEVER && p->fin_t == SIM_NEVER)
            sim_eng_kevent(e, SIM_K_POD, pod, "NodeNotReady", "Warning", "node-controller", false,
                           "Node is not ready");
    }
}

void sim_eng_on_node_delete(struct sim_eng *e, int node) {
    struct sim_world *w = e->w;
    struct sim_node *n = &w->nodes[node];
    if (n->deleted_t != SIM_NEVER)
        return;
    if (n->deleting_t == SIM_NEVER)
        n->deleting_t = e->now;
    n->deleted_t = e->now;
    if (n->reg_seq != SIM_NEVER) {
        n->deleted_seq = sim_eng_emit(e, SIM_K_NODE, node, SIM_DELETED);
        sim_eng_kevent(e, SIM_K_NODE, node, "RemovingNode", "Normal", "node-controller", false,
                       "Node %s event: Removing Node %s from Controller", w->nodes[node].name,
                       w->nodes[node].name);
    }
    n = &w->nodes[node];
    int pool = n->pool;
    int64_t lost = n->notready_t != SIM_NEVER ? n->notready_t : e->now;
    if (sim_eng_node_unreachable(n) && n->spells[n->nspells - 1].from < lost)
        lost = n->spells[n->nspells - 1].from;
    int reclaim = -1;
    for (int r = 0; r < w->nreclaims; r++)
        if (w->reclaims[r].pool == pool)
            reclaim = r;
    for (int pod = 0; pod < w->npods; pod++) {
        struct sim_pod *p = &w->pods[pod];
        if (p->node != node || p->deleted_t != SIM_NEVER || !p->holds_node)
            continue;
        if (p->start_t != SIM_NEVER && p->fin_t == SIM_NEVER) {
            sim_eng_task_save(e, pod, lost);
            p->token++;
            p->hidden_exit_t = SIM_NEVER; /* an exit Kubernetes never learns */
        }
        if (p->fin_t == SIM_NEVER)
            sim_eng_interrupt(e, pod, reclaim);
        sim_eng_node_release(e, pod);
        sim_eng_push(e, e->now + e->sc->pod_gc_seconds, EV_POD_GC, pod, 0, 0);
    }
    bool any = false;
    for (int i = 0; i < w->nnodes; i++)
        if (w->nodes[i].pool == pool && w->nodes[i].deleted_t == SIM_NEVER)
            any = true;
    if (!any && w->pools[pool].reclaimed && w->pools[pool].gone_t == SIM_NEVER) {
        w->pools[pool].gone_t = e->now;
        for (int r = 0; r < w->nreclaims; r++)
            if (w->reclaims[r].pool == pool && w->reclaims[r].gone_t == SIM_NEVER)
                w->reclaims[r].gone_t = e->now;
        int64_t again = e->sc->pools[w->pools[pool].spec].recreate_after;
        if (again > 0)
            sim_eng_push(e, e->now + again, EV_POOL_RECREATE, w->pools[pool].spec,
                         w->pools[pool].generation + 1, 0);
    }
}

void sim_eng_on_pod_gc(struct sim_eng *e, int pod) {
    struct sim_world *w = e->w;
    struct sim_pod *p = &w->pods[pod];
    if (p->deleted_t != SIM_NEVER)
        return;
    const struct sim_workload *wl = sim_eng_job_wl(e, p->job);
    bool had_disruption = p->disrupt_seq != SIM_NEVER;
    int64_t seq = sim_eng_emit(e, SIM_K_POD, pod, SIM_MODIFIED);
    p = &w->pods[pod];
    if (p->fin_t == SIM_NEVER) {
        p->gcfail_t = e->now;
        p->gcfail_seq = seq;
    }
    if (!had_disruption) {
        p->disrupt_t = e->now;
        p->disrupt_seq = seq;
        p->disrupt_reason = "DeletionByPodGC";
        p->disrupt_msg = "PodGC: node no longer exists";
    }
    if (p->delreq_seq == SIM_NEVER) { /* PodGC force-deletes: grace 0 */
        p->delreq_t = e->now;
        p->delgrace = 0;
        p->delreq_seq = seq;
    }
    p->deleted_t = e->now;
    p->deleted_seq = sim_eng_emit(e, SIM_K_POD, pod, SIM_DELETED);
    if (w->pods[pod].outcome != SIM_OUT_SUCCEEDED)
        sim_eng_handle_failure(e, pod, !wl->pod_failure_policy);
}

void sim_eng_on_pod_delete(struct sim_eng *e, int pod) {
    struct sim_world *w = e->w;
    struct sim_pod *p = &w->pods[pod];
    if (p->deleted_t != SIM_NEVER)
        return;
    if (p->fin_t == SIM_NEVER && p->start_t != SIM_NEVER && p->holds_node)
        sim_eng_task_save(e, pod, e->now);
    p->token++;
    sim_eng_node_release(e, pod);
    sim_eng_pending_remove(e, pod);
    p = &w->pods[pod];
    p->deleted_t = e->now;
    p->deleted_seq = sim_eng_emit(e, SIM_K_POD, pod, SIM_DELETED);
    p = &w->pods[pod];
    if (p->delreq_seq == SIM_NEVER) { /* deleted at once: grace 0 */
        p->delreq_t = e->now;
        p->delgrace = 0;
        p->delreq_seq = p->deleted_seq;
    }
    if (p->outcome != SIM_OUT_SUCCEEDED && !p->failure_handled)
        sim_eng_handle_failure(e, pod,
                               !(p->interrupted && sim_eng_job_wl(e, p->job)->pod_failure_policy));
}

void sim_eng_on_ttl(struct sim_eng *e, int job) {
    struct sim_world *w = e->w;
    struct sim_job *j = &w->jobs[job];
    if (j->deleted_t != SIM_NEVER)
        return;
    j->deleted_t = e->now;
    j->deleted_seq = sim_eng_emit(e, SIM_K_JOB, job, SIM_DELETED);
    j = &w->jobs[job];
    for (int k = 0; k < j->npods; k++)
        if (w->pods[j->pods[k]].deleted_t == SIM_NEVER)
            sim_eng_push(e, e->now + 1, EV_POD_DELETE, j->pods[k], 0, 0);
}

void sim_eng_on_scale_down(struct sim_eng *e, int node, int64_t tok) {
    struct sim_world *w = e->w;
    struct sim_node *n = &w->nodes[node];
    int pool = n->pool;
    const struct sim_pool_spec *ps = sim_eng_pool_spec(e, pool);
    if (n->empty_since != tok || n->npods != 0 || n->ready_t == SIM_NEVER ||
        n->cordon_t != SIM_NEVER || n->deleting_t != SIM_NEVER || n->deleted_t != SIM_NEVER ||
        w->pools[pool].reclaimed || !ps->auto_scale ||
        sim_eng_pool_active_nodes(e, pool) <= ps->min_nodes)
        return;
    n->cordon_t = e->now;
    n->cordon_by_ca = true;
    n->deleting_t = e->now;
    n->cordon_seq = sim_eng_emit(e, SIM_K_NODE, node, SIM_MODIFIED);
    sim_eng_kevent(e, SIM_K_NODE, node, "ScaleDown", "Normal", "cluster-autoscaler", false,
                   "marked the node as toBeDeleted/unschedulable");
    sim_eng_push(e, e->now + e->sc->node_delete_seconds, EV_NODE_DELETE, node, 0, 0);
}

void sim_eng_on_event_expire(struct sim_eng *e, int ev) {
    struct sim_kevent *k = &e->w->events[ev];
    k->deleted_t = e->now;
    k->deleted_seq = sim_eng_emit(e, SIM_K_EVENT, ev, SIM_DELETED);
}

void sim_eng_on_pool_recreate(struct sim_eng *e, int spec, int generation) {
    int pool = sim_eng_pool_new(e, spec, generation, e->now);
    for (int k = 0; k < e->sc->pools[spec].count; k++)
        sim_eng_node_new(e, pool, e->now);
}
