/* sim_engine_spell — NotReady spells (pools[].notready, src/sim/README.md): a
 * kubelet that stops posting status while its node and containers go on; see
 * sim_engine.h. */
#include <stdbool.h>
#include <stdint.h>

#include "sim/sim_engine.h"

void sim_eng_on_spell(struct sim_eng *e, int spec, int k) {
    struct sim_world *w = e->w;
    const struct sim_spell_spec *ss = &e->sc->pools[spec].notready[k];
    for (int i = 0; i < w->nnodes; i++) {
        struct sim_node *n = &w->nodes[i];
        if (w->pools[n->pool].spec != spec || n->ready_t > e->now || n->reg_seq == SIM_NEVER ||
            n->deleting_t != SIM_NEVER || n->deleted_t != SIM_NEVER ||
            sim_eng_node_unreachable(n) || n->nspells >= SIM_MAX_SPELLS)
            continue;
        int s = n->nspells++;
        n->spells[s] = (struct sim_spell){e->now, SIM_NEVER, SIM_NEVER, SIM_NEVER};
        int64_t seq = sim_eng_emit(e, SIM_K_NODE, i, SIM_MODIFIED);
        w->nodes[i].spells[s].from_seq = seq;
        sim_eng_kevent(e, SIM_K_NODE, i, "NodeNotReady", "Normal", "node-controller", false,
                       "Node %s status is now: NodeNotReady", w->nodes[i].name);
        for (int pod = 0; pod < w->npods; pod++) {
            const struct sim_pod *p = &w->pods[pod];
            if (p->holds_node && p->node == i && p->start_t != SIM_NEVER && p->fin_t == SIM_NEVER)
                sim_eng_kevent(e, SIM_K_POD, pod, "NodeNotReady", "Warning", "node-controller",
                               false, "Node is not ready");
        }
        if (ss->dur > 0)
            sim_eng_push(e, e->now + ss->dur, EV_SPELL_END, i, s, 0);
        if (ss->dur == 0 || ss->dur > e->sc->eviction_timeout)
            sim_eng_push(e, e->now + e->sc->eviction_timeout, EV_TAINT_EVICT, i, s, 0);
    }
}

/* The unreachable node's NoExecute taint outlived the pods' toleration: the taint
 * manager deletes them (DisruptionTarget). The kubelet cannot hear it, so their
 * containers go on until the node is back. */
void sim_eng_on_taint_evict(struct sim_eng *e, int node, int s) {
    struct sim_world *w = e->w;
    const struct sim_node *n = &w->nodes[node];
    if (n->spells[s].to != SIM_NEVER || n->deleted_t != SIM_NEVER)
        return;
    for (int pod = 0; pod < w->npods; pod++) {
        struct sim_pod *p = &w->pods[pod];
        if (!p->holds_node || p->node != node || p->delreq_seq != SIM_NEVER ||
            p->fin_t != SIM_NEVER)
            continue;
        sim_eng_interrupt(e, pod, -1);
        p->disrupt_t = p->delreq_t = e->now;
        p->disrupt_reason = "DeletionByTaintManager";
        p->disrupt_msg = "Taint manager: deleting due to NoExecute taint";
        p->delgrace = SIM_POD_GRACE;
        p->delreq_seq = p->disrupt_seq = sim_eng_emit(e, SIM_K_POD, pod, SIM_MODIFIED);
        sim_eng_kevent(e, SIM_K_POD, pod, "TaintManagerEviction", "Normal",
                       "taint-eviction-controller", false, "Marking for deletion Pod %s/%s",
                       e->sc->namespace_, w->pods[pod].name);
        if (!sim_eng_job_wl(e, w->pods[pod].job)->pod_failure_policy)
            sim_eng_handle_failure(e, pod, true); /* TerminatingOrFailed: replace at once */
    }
}

/* The node posts status again: what its pods did meanwhile becomes known. */
void sim_eng_on_spell_end(struct sim_eng *e, int node, int s) {
    struct sim_world *w = e->w;
    if (w->nodes[node].deleted_t != SIM_NEVER || w->nodes[node].spells[s].to != SIM_NEVER)
        return;
    w->nodes[node].spells[s].to = e->now;
    w->nodes[node].spells[s].to_seq = sim_eng_emit(e, SIM_K_NODE, node, SIM_MODIFIED);
    sim_eng_kevent(e, SIM_K_NODE, node, "NodeReady", "Normal", "kubelet", true,
                   "Node %s status is now: NodeReady", w->nodes[node].name);
    for (int pod = 0; pod < w->npods; pod++) {
        struct sim_pod *p = &w->pods[pod];
        if (!p->holds_node || p->node != node)
            continue;
        if (p->hidden_exit_t != SIM_NEVER) {
            int64_t t = p->hidden_exit_t;
            p->hidden_exit_t = SIM_NEVER;
            sim_eng_container_exit(e, pod, p->hidden_code, t);
        } else if (p->delreq_seq != SIM_NEVER && p->start_t == SIM_NEVER) {
            p->token++; /* deleted before its container started */
            sim_eng_node_release(e, pod);
            sim_eng_push(e, e->now + 1, EV_POD_DELETE, pod, 0, 0);
        } else if (p->delreq_seq != SIM_NEVER && p->fin_t == SIM_NEVER) {
            p->token++; /* the kubelet sees the deletion: SIGTERM */
            sim_eng_push(e, e->now + e->sc->sigterm_seconds, EV_CEXIT, pod, 143, p->token);
        }
    }
    sim_eng_request_schedule(e, e->now);
}
