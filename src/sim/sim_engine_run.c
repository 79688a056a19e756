/* sim_engine_run — the handlers of the life of a Job (sim_engine.h): arrival,
 * the scheduler, the cluster autoscaler's scale-up, node registration and
 * readiness, container start and exit. */
#include "sim/sim_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- event handlers --- */

void sim_eng_on_arrive(struct sim_eng *e, int wl_idx) {
    struct sim_world *w = e->w;
    const struct sim_workload *wl = &e->sc->workloads[wl_idx];
    XGROW(w->jobs, w->njobs, w->capjobs, 64);
    int j = w->njobs++;
    struct sim_job *job = &w->jobs[j];
    memset(job, 0, sizeof *job);
    snprintf(job->name, sizeof job->name, "%s-%04d", wl->name, ++e->job_counter[wl_idx]);
    plan_rng_uuid(&e->rng, job->uid);
    job->workload = wl_idx;
    job->created_t = e->now;
    job->done_t = job->done_seq = SIM_NEVER;
    job->deleted_t = job->deleted_seq = SIM_NEVER;
    job->first_task = w->ntasks;
    job->ntasks = wl->completions;
    for (int k = 0; k < wl->completions; k++) {
        XGROW(w->tasks, w->ntasks, w->captasks, 64);
        struct sim_task *tk = &w->tasks[w->ntasks++];
        memset(tk, 0, sizeof *tk);
        tk->job = j;
        tk->index = wl->indexed ? k : -1;
        tk->work = plan_work_sample(&wl->duration, &e->rng);
        tk->outcome = SIM_OUT_PENDING;
        tk->done_t = SIM_NEVER;
        tk->succeeded_seq = SIM_NEVER;
        tk->current_pod = -1;
        tk->last_reclaim = -1;
    }
    w->jobs[j].created_seq = sim_eng_emit(e, SIM_K_JOB, j, SIM_ADDED);
    for (int k = 0; k < wl->completions; k++)
        sim_eng_push(e, e->now + 1, EV_POD_CREATE, w->jobs[j].first_task + k, 0, 0);
    if (wl->active_deadline > 0)
        sim_eng_push(e, e->now + wl->active_deadline, EV_DEADLINE, j, 0, 0);
}

bool sim_eng_node_unreachable(const struct sim_node *n) {
    return n->nspells > 0 && n->spells[n->nspells - 1].to == SIM_NEVER;
}

static bool node_fits(const struct sim_node *n, const struct sim_workload *wl) {
    return n->ready_t != SIM_NEVER && n->cordon_t == SIM_NEVER && n->deleting_t == SIM_NEVER &&
           !sim_eng_node_unreachable(n) && n->deleted_t == SIM_NEVER &&
           n->gpus - n->used_gpus >= wl->gpus && n->cpu_m - n->used_cpu_m >= wl->cpu_m;
}

static int find_node(struct sim_eng *e, const struct sim_workload *wl) {
    struct sim_world *w = e->w;
    for (int k = 0; k < wl->npools; k++) {
        int pool = sim_eng_pool_current(e, wl->pools[k]);
        if (pool < 0)
            continue;
        for (int i = 0; i < w->nnodes; i++)
            if (w->nodes[i].pool == pool && node_fits(&w->nodes[i], wl))
                return i;
    }
    return -1;
}

void sim_eng_on_schedule(struct sim_eng *e) {
    struct sim_world *w = e->w;
    for (int i = 0; i < e->npending;) {
        int pod = e->pending[i];
        struct sim_pod *p = &w->pods[pod];
        if (p->delreq_seq != SIM_NEVER || p->deleted_t != SIM_NEVER ||
            w->jobs[p->job].done_t != SIM_NEVER) {
            sim_eng_pending_remove(e, pod);
            continue;
        }
        if (p->created_t + 1 > e->now) {
            i++;
            continue;
        }
        const struct sim_workload *wl = sim_eng_job_wl(e, p->job);
        int n = find_node(e, wl);
        if (n >= 0) {
            struct sim_node *nd = &w->nodes[n];
            nd->used_gpus += wl->gpus;
            nd->used_cpu_m += wl->cpu_m;
            nd->npods++;
            nd->empty_since = SIM_NEVER;
            p->node = n;
            p->holds_node = true;
            p->sched_t = e->now;
            p->sched_seq = sim_eng_emit(e, SIM_K_POD, pod, SIM_MODIFIED);
            sim_eng_kevent(e, SIM_K_POD, pod, "Scheduled", "Normal", "default-scheduler", false,
                           "Successfully assigned %s/%s to %s", e->sc->namespace_, p->name,
                           nd->name);
            sim_eng_push(e, e->now + e->sc->pod_start_seconds, EV_CSTART, pod, 0, p->token);
            sim_eng_pending_remove(e, pod);
            continue;
        }
        if (p->unsched_seq == SIM_NEVER) {
            p->unsched_t = e->now;
            p->unsched_seq = sim_eng_emit(e, SIM_K_POD, pod, SIM_MODIFIED);
            sim_eng_kevent(
                e, SIM_K_POD, pod, "FailedScheduling", "Warning", "default-scheduler", false,
                "0/%d nodes are available: no schedulable node with %d nvidia.com/gpu free "
                "in the preferred pools.",
                w->nnodes, wl->gpus);
            int64_t at = e->now + e->sc->scale_up_delay;
            if (e->last_ca_t != at) {
                e->last_ca_t = at;
                sim_eng_push(e, at, EV_CA, 0, 0, 0);
            }
        }
        i++;
    }
}

void sim_eng_on_autoscale(struct sim_eng *e) {
    struct sim_world *w = e->w;
    int cap = w->nnodes + e->npending + 1;
    int *vgpu = xcalloc((size_t)cap, sizeof *vgpu);
    int *vcpu = xcalloc((size_t)cap, sizeof *vcpu);
    for (int i = 0; i < w->nnodes; i++) {
        const struct sim_node *n = &w->nodes[i];
        if (n->ready_t == SIM_NEVER && n->deleted_t == SIM_NEVER && n->deleting_t == SIM_NEVER) {
            vgpu[i] = n->gpus;
            vcpu[i] = n->cpu_m;
        }
    }
    for (int k = 0; k < e->npending; k++) {
        int pod = e->pending[k];
        const struct sim_pod *p = &w->pods[pod];
        if (p->unsched_t == SIM_NEVER || p->unsched_t + e->sc->scale_up_delay > e->now ||
            p->delreq_seq != SIM_NEVER)
            continue;
        const struct sim_workload *wl = sim_eng_job_wl(e, p->job);
        bool placed = false;
        for (int q = 0; q < wl->npools && !placed; q++) {
            int pool = sim_eng_pool_current(e, wl->pools[q]);
            if (pool < 0)
                continue;
            for (int i = 0; i < w->nnodes && !placed; i++) {
                const struct sim_node *n = &w->nodes[i];
                if (n->pool != pool)
                    continue;
                if (node_fits(n, wl))
                    placed = true; /* the scheduler will take it */
                else if (i < cap && vgpu[i] >= wl->gpus && vcpu[i] >= wl->cpu_m) {
                    vgpu[i] -= wl->gpus;
                    vcpu[i] -= wl->cpu_m;
                    placed = true;
                }
            }
            const struct sim_pool_spec *ps = sim_eng_pool_spec(e, pool);
            if (!placed && ps->auto_scale && sim_eng_pool_active_nodes(e, pool) < ps->max_nodes) {
                int before = sim_eng_pool_active_nodes(e, pool);
                int n = sim_eng_node_new(e, pool, e->now);
                if (n < cap) {
                    vgpu[n] = w->nodes[n].gpus - wl->gpus;
                    vcpu[n] = w->nodes[n].cpu_m - wl->cpu_m;
                }
                sim_eng_kevent(e, SIM_K_POD, pod, "TriggeredScaleUp", "Normal",
                               "cluster-autoscaler", false,
                               "pod triggered scale-up: [{%s %d->%d (max: %d)}]",
                               w->pools[pool].name, before, before + 1, ps->max_nodes);
                placed = true;
            }
        }
    }
    free(vgpu);
    free(vcpu);
    /* keep scanning while pods wait: capacity planned above may still vanish */
    bool waiting = false;
    for (int k = 0; k < e->npending; k++)
        if (w->pods[e->pending[k]].unsched_t != SIM_NEVER)
            waiting = true;
    int64_t at = e->now + (e->sc->scale_up_delay > 10 ? e->sc->scale_up_delay : 10);
    if (waiting && e->last_ca_t < at) {
        e->last_ca_t = at;
        sim_eng_push(e, at, EV_CA, 0, 0, 0);
    }
}

void sim_eng_on_node_register(struct sim_eng *e, int node) {
    struct sim_node *n = &e->w->nodes[node];
    if (n->deleting_t != SIM_NEVER || n->deleted_t != SIM_NEVER || n->cordon_t != SIM_NEVER)
        return;
    n->reg_t = e->now;
    n->reg_seq = sim_eng_emit(e, SIM_K_NODE, node, SIM_ADDED);
    sim_eng_kevent(e, SIM_K_NODE, node, "RegisteredNode", "Normal", "node-controller", false,
                   "Node %s event: Registered Node %s in Controller", n->name, n->name);
}

void sim_eng_on_node_ready(struct sim_eng *e, int node) {
    struct sim_world *w = e->w;
    struct sim_node *n = &w->nodes[node];
    if (n->reg_seq == SIM_NEVER || n->deleting_t != SIM_NEVER || n->cordon_t != SIM_NEVER)
        return;
    n->ready_t = e->now;
    n->ready_seq = sim_eng_emit(e, SIM_K_NODE, node, SIM_MODIFIED);
    sim_eng_kevent(e, SIM_K_NODE, node, "NodeReady", "Normal", "kubelet", true,
                   "Node %s status is now: NodeReady", w->nodes[node].name);
    n = &w->nodes[node];
    n->empty_since = e->now;
    if (sim_eng_pool_spec(e, n->pool)->auto_scale)
        sim_eng_push(e, e->now + e->sc->scale_down_unneeded, EV_SCALE_DOWN, node, 0, e->now);
    if (sim_eng_pool_spec(e, n->pool)->role == SIM_ROLE_FALLBACK)
        for (int r = 0; r < w->nreclaims; r++)
            if (w->reclaims[r].fallback_ready_t == SIM_NEVER)
                w->reclaims[r].fallback_ready_t = e->now;
    sim_eng_request_schedule(e, e->now);
}

static void task_report(struct sim_eng *e, int pod) {
    struct sim_pod *p = &e->w->pods[pod];
    const struct sim_workload *wl = sim_eng_job_wl(e, p->job);
    if (wl->checkpoint_interval <= 0)
        return;
    char msg[160];
    snprintf(msg, sizeof msg,
             "{\"work_seconds\":%lld,\"restore_seconds\":%lld,\"checkpoint_seconds\":%lld}",
             (long long)e->w->tasks[p->task].work, (long long)p->restore_s,
             (long long)wl->checkpoint_seconds);
    p->message = xstrdup(msg);
}

void sim_eng_on_cstart(struct sim_eng *e, int pod, int64_t tok) {
    struct sim_world *w = e->w;
    struct sim_pod *p = &w->pods[pod];
    if (p->token != tok || p->delreq_seq != SIM_NEVER || p->deleted_t != SIM_NEVER ||
        !p->holds_node)
        return;
    const struct sim_workload *wl = sim_eng_job_wl(e, p->job);
    struct sim_task *tk = &w->tasks[p->task];
    p->start_t = e->now;
    p->start_seq = sim_eng_emit(e, SIM_K_POD, pod, SIM_MODIFIED);
    p->outcome = SIM_OUT_RUNNING;
    sim_eng_kevent(e, SIM_K_POD, pod, "Started", "Normal", "kubelet", true,
                   "Started container main");
    sim_eng_job_modified(e, p->job);
    if (tk->last_reclaim >= 0) {
        struct sim_reclaim *r = &w->reclaims[tk->last_reclaim];
        if (r->resumed_t == SIM_NEVER)
            r->resumed_t = e->now;
        tk->last_reclaim = -1;
    }
    p->restore_s = plan_restore_seconds(tk->saved, wl->checkpoint_interval, wl->restore_seconds);
    int64_t run = plan_attempt_seconds(tk->work - tk->saved, wl->checkpoint_interval,
                                       wl->checkpoint_seconds, p->restore_s);
    int code = 0;
    if (plan_rng_chance_ppm(&e->rng, wl->failure_ppm)) {
        code = 1;
        run = run > 2 ? plan_rng_range(&e->rng, 1, run - 1) : 1;
    }
    p->planned_exit_t = e->now + run;
    sim_eng_push(e, e->now + run, EV_CEXIT, pod, code, p->token);
}

void sim_eng_container_exit(struct sim_eng *e, int pod, int code, int64_t fin_at) {
    struct sim_world *w = e->w;
    struct sim_pod *p = &w->pods[pod];
    struct sim_task *tk = &w->tasks[p->task];
    struct sim_job *j = &w->jobs[p->job];
    const struct sim_workload *wl = sim_eng_job_wl(e, p->job);
    p->fin_t = fin_at;
    p->exit_code = code;
    p->fin_reason = code == 0 ? "Completed" : "Error";
    if (code == 0)
        task_report(e, pod);
    else
        sim_eng_task_save(e, pod, fin_at);
    p->fin_seq = sim_eng_emit(e, SIM_K_POD, pod, SIM_MODIFIED);
    sim_eng_node_release(e, pod);
    if (code == 0) {
        if (p->interrupted) {
            /* finished on its own right after the eviction: a success, not a loss */
            p->interrupted = false;
            tk->interruptions--;
            if (p->reclaim >= 0)
                w->reclaims[p->reclaim].interrupted--;
            p->reclaim = -1;
            tk->last_reclaim = -1;
        }
        p->outcome = SIM_OUT_SUCCEEDED;
        if (j->done_t == SIM_NEVER && tk->outcome != SIM_OUT_SUCCEEDED) {
            tk->outcome = SIM_OUT_SUCCEEDED;
            tk->done_t = e->now;
            tk->succeeded_seq = p->fin_seq;
            tk->current_pod = -1;
            j->done_tasks++;
            p->failure_handled = true;
            if (j->done_tasks == j->ntasks)
                sim_eng_job_finish(e, p->job, false, NULL);
            else
                sim_eng_job_modified(e, p->job);
        }
        if (p->delreq_seq != SIM_NEVER)
            sim_eng_push(e, e->now + 1, EV_POD_DELETE, pod, 0, 0);
        return;
    }
    if (p->interrupted) {
        /* SIGTERM after an eviction: the kubelet removes the pod right after */
        sim_eng_handle_failure(e, pod, !wl->pod_failure_policy);
        sim_eng_push(e, e->now + 1, EV_POD_DELETE, pod, 0, 0);
        return;
    }
    if (p->outcome != SIM_OUT_KILLED)
        p->outcome = SIM_OUT_FAILED;
    sim_eng_job_modified(e, p->job);
    sim_eng_handle_failure(e, pod, true);
    if (p->delreq_seq != SIM_NEVER) /* stopped for its Job on an unreachable node */
        sim_eng_push(e, e->now + 1, EV_POD_DELETE, pod, 0, 0);
}

void sim_eng_on_cexit(struct sim_eng *e, int pod, int code, int64_t tok) {
    struct sim_world *w = e->w;
    struct sim_pod *p = &w->pods[pod];
    if (p->token != tok || p->fin_t != SIM_NEVER || p->deleted_t != SIM_NEVER ||
        p->gcfail_t != SIM_NEVER || p->start_t == SIM_NEVER || p->hidden_exit_t != SIM_NEVER)
        return;
    if (p->holds_node && sim_eng_node_unreachable(&w->nodes[p->node])) {
        p->hidden_exit_t = e->now; /* told when the node is back (spell end) */
        p->hidden_code = code;
        return;
    }
    sim_eng_container_exit(e, pod, code, e->now);
}
