/* sim_engine_pods — the objects the simulation's handlers create and release
 * (sim_engine.h): pools and nodes, Jobs, tasks and their pods, the Job
 * controller's failure handling. */
#include "sim/sim_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- pools and nodes --- */

int sim_eng_pool_current(struct sim_eng *e, int spec) {
    struct sim_world *w = e->w;
    for (int i = w->npools - 1; i >= 0; i--)
        if (w->pools[i].spec == spec)
            return (w->pools[i].reclaimed || w->pools[i].created_t > e->now) ? -1 : i;
    return -1;
}

int sim_eng_pool_active_nodes(struct sim_eng *e, int pool) {
    int n = 0;
    for (int i = 0; i < e->w->nnodes; i++) {
        const struct sim_node *nd = &e->w->nodes[i];
        if (nd->pool == pool && nd->deleted_t == SIM_NEVER && nd->deleting_t == SIM_NEVER)
            n++;
    }
    return n;
}

int sim_eng_pool_new(struct sim_eng *e, int spec, int generation, int64_t t) {
    struct sim_world *w = e->w;
    XGROW(w->pools, w->npools, w->cappools, 64);
    int i = w->npools++;
    struct sim_pool *p = &w->pools[i];
    memset(p, 0, sizeof *p);
    p->spec = spec;
    p->generation = generation;
    const struct sim_pool_spec *ps = &e->sc->pools[spec];
    if (ps->id && generation == 0)
        snprintf(p->id, sizeof p->id, "%s", ps->id);
    else
        plan_rng_uuid(&e->rng, p->id);
    snprintf(p->name, sizeof p->name, "%s", ps->name);
    p->created_t = t;
    p->cordon_t = SIM_NEVER;
    p->gone_t = SIM_NEVER;
    return i;
}

int sim_eng_node_new(struct sim_eng *e, int pool, int64_t created_t) {
    struct sim_world *w = e->w;
    XGROW(w->nodes, w->nnodes, w->capnodes, 64);
    int i = w->nnodes++;
    struct sim_node *n = &w->nodes[i];
    memset(n, 0, sizeof *n);
    char suffix[8];
    plan_rng_suffix(&e->rng, suffix, 5);
    snprintf(n->name, sizeof n->name, "%s-%s", w->pools[pool].name, suffix);
    plan_rng_uuid(&e->rng, n->uid);
    plan_rng_uuid(&e->rng, n->do_id);
    snprintf(n->droplet_id, sizeof n->droplet_id, "%lld", SIM_DROPLET_BASE + i);
    n->pool = pool;
    const struct sim_size *sz = &e->sc->sizes[e->sc->pools[w->pools[pool].spec].size_idx];
    n->gpus = sz->gpus;
    n->cpu_m = sz->vcpus * 1000 - 100;
    n->created_t = created_t;
    n->reg_t = n->reg_seq = SIM_NEVER;
    n->ready_t = n->ready_seq = SIM_NEVER;
    n->cordon_t = n->cordon_seq = SIM_NEVER;
    n->notready_t = n->notready_seq = SIM_NEVER;
    n->deleting_t = SIM_NEVER;
    n->deleted_t = n->deleted_seq = SIM_NEVER;
    n->empty_since = SIM_NEVER;
    int64_t ready = created_t + e->sc->provisioning_seconds;
    sim_eng_push(e, ready - e->sc->register_seconds, EV_NODE_REGISTER, i, 0, 0);
    sim_eng_push(e, ready, EV_NODE_READY, i, 0, 0);
    return i;
}

void sim_eng_request_schedule(struct sim_eng *e, int64_t t) {
    if (e->last_sched_t == t)
        return;
    e->last_sched_t = t;
    sim_eng_push(e, t, EV_SCHEDULE, 0, 0, 0);
}

void sim_eng_node_release(struct sim_eng *e, int pod) {
    struct sim_pod *p = &e->w->pods[pod];
    if (!p->holds_node)
        return;
    p->holds_node = false;
    const struct sim_workload *wl = sim_eng_job_wl(e, p->job);
    struct sim_node *n = &e->w->nodes[p->node];
    n->used_gpus -= wl->gpus;
    n->used_cpu_m -= wl->cpu_m;
    n->npods--;
    if (n->npods == 0 && n->deleted_t == SIM_NEVER) {
        n->empty_since = e->now;
        if (sim_eng_pool_spec(e, n->pool)->auto_scale)
            sim_eng_push(e, e->now + e->sc->scale_down_unneeded, EV_SCALE_DOWN, p->node, 0, e->now);
    }
    sim_eng_request_schedule(e, e->now);
}

/* --- tasks, jobs and pods --- */

void sim_eng_job_modified(struct sim_eng *e, int job) {
    sim_eng_emit(e, SIM_K_JOB, job, SIM_MODIFIED);
}

/* Work checkpointed by an attempt that ran from its container start until t. */
static int64_t work_saved_until(struct sim_eng *e, int pod, int64_t t) {
    struct sim_pod *p = &e->w->pods[pod];
    if (p->start_t == SIM_NEVER)
        return 0;
    const struct sim_workload *wl = sim_eng_job_wl(e, p->job);
    const struct sim_task *tk = &e->w->tasks[p->task];
    return plan_saved_work(tk->work - tk->saved, wl->checkpoint_interval, wl->checkpoint_seconds,
                           p->restore_s, t - p->start_t);
}

void sim_eng_task_save(struct sim_eng *e, int pod, int64_t t) {
    struct sim_pod *p = &e->w->pods[pod];
    int64_t add = work_saved_until(e, pod, t);
    e->w->tasks[p->task].saved += add;
}

void sim_eng_pending_remove(struct sim_eng *e, int pod) {
    for (int i = 0; i < e->npending; i++)
        if (e->pending[i] == pod) {
            memmove(&e->pending[i], &e->pending[i + 1],
                    (size_t)(e->npending - i - 1) * sizeof *e->pending);
            e->npending--;
            return;
        }
}

void sim_eng_pod_create(struct sim_eng *e, int task) {
    struct sim_world *w = e->w;
    struct sim_task *tk = &w->tasks[task];
    struct sim_job *j = &w->jobs[tk->job];
    if (j->done_t != SIM_NEVER || j->deleted_t != SIM_NEVER || tk->outcome == SIM_OUT_SUCCEEDED ||
        tk->current_pod >= 0)
        return;
    XGROW(w->pods, w->npods, w->cappods, 64);
    int i = w->npods++;
    struct sim_pod *p = &w->pods[i];
    memset(p, 0, sizeof *p);
    char suffix[8];
    plan_rng_suffix(&e->rng, suffix, 5);
    if (tk->index >= 0)
        snprintf(p->name, sizeof p->name, "%s-%d-%s", j->name, tk->index, suffix);
    else
        snprintf(p->name, sizeof p->name, "%s-%s", j->name, suffix);
    plan_rng_uuid(&e->rng, p->uid);
    p->job = tk->job;
    p->task = task;
    p->attempt = ++tk->attempts;
    p->node = -1;
    p->unsched_t = p->unsched_seq = SIM_NEVER;
    p->sched_t = p->sched_seq = SIM_NEVER;
    p->start_t = p->start_seq = SIM_NEVER;
    p->fin_t = p->fin_seq = SIM_NEVER;
    p->disrupt_t = p->disrupt_seq = SIM_NEVER;
    p->gcfail_t = p->gcfail_seq = SIM_NEVER;
    p->delreq_t = p->delreq_seq = SIM_NEVER;
    p->deleted_t = p->deleted_seq = SIM_NEVER;
    p->counted_seq = SIM_NEVER;
    p->planned_exit_t = SIM_NEVER;
    p->hidden_exit_t = SIM_NEVER;
    p->reclaim = -1;
    p->outcome = SIM_OUT_PENDING;
    p->created_t = e->now;
    p->created_seq = sim_eng_emit(e, SIM_K_POD, i, SIM_ADDED);
    tk->current_pod = i;
    XGROW(j->pods, j->npods, j->cappods, 64);
    j->pods[j->npods++] = i;
    XGROW(e->pending, e->npending, e->cappending, 64);
    e->pending[e->npending++] = i;
    sim_eng_kevent(e, SIM_K_JOB, tk->job, "SuccessfulCreate", "Normal", "job-controller", false,
                   "Created pod: %s", w->pods[i].name);
    sim_eng_job_modified(e, tk->job);
    sim_eng_request_schedule(e, e->now + 1);
}

static void pod_kill_for_job(struct sim_eng *e, int pod);

void sim_eng_job_finish(struct sim_eng *e, int job, bool failed, const char *reason) {
    struct sim_world *w = e->w;
    struct sim_job *j = &w->jobs[job];
    if (j->done_t != SIM_NEVER)
        return;
    j->done_t = e->now;
    j->failed = failed;
    j->fail_reason = reason;
    if (failed) {
        for (int k = 0; k < j->ntasks; k++) {
            struct sim_task *tk = &w->tasks[j->first_task + k];
            if (tk->outcome != SIM_OUT_SUCCEEDED) {
                tk->outcome = SIM_OUT_FAILED;
                tk->done_t = e->now;
            }
        }
    }
    /* a finished Job stops whatever it still runs (rare for a complete one) */
    for (int k = 0; k < w->jobs[job].npods; k++)
        pod_kill_for_job(e, w->jobs[job].pods[k]);
    j = &w->jobs[job];
    j->done_seq = sim_eng_emit(e, SIM_K_JOB, job, SIM_MODIFIED);
    if (failed)
        sim_eng_kevent(e, SIM_K_JOB, job, reason, "Warning", "job-controller", false,
                       strcmp(reason, "DeadlineExceeded") == 0
                           ? "Job was active longer than specified deadline"
                           : "Job has reached the specified backoff limit");
    else
        sim_eng_kevent(e, SIM_K_JOB, job, "Completed", "Normal", "job-controller", false,
                       "Job completed");
    sim_eng_push(e, e->now + sim_eng_job_wl(e, job)->ttl_after_finished, EV_TTL, job, 0, 0);
}

/* The Job controller sees an attempt fail. counted: it counts towards backoffLimit
 * (not when a podFailurePolicy Ignores its DisruptionTarget). */
void sim_eng_handle_failure(struct sim_eng *e, int pod, bool counted) {
    struct sim_world *w = e->w;
    struct sim_pod *p = &w->pods[pod];
    if (p->failure_handled)
        return;
    p->failure_handled = true;
    struct sim_job *j = &w->jobs[p->job];
    struct sim_task *tk = &w->tasks[p->task];
    if (tk->current_pod == pod)
        tk->current_pod = -1;
    if (j->done_t != SIM_NEVER)
        return;
    const struct sim_workload *wl = sim_eng_job_wl(e, p->job);
    if (counted) {
        j->failures++;
        p->counted_seq = sim_eng_emit(e, SIM_K_JOB, p->job, SIM_MODIFIED);
        if (j->failures > wl->backoff_limit) {
            sim_eng_job_finish(e, p->job, true, "BackoffLimitExceeded");
            return;
        }
        int shift = j->failures - 1 < 6 ? j->failures - 1 : 6;
        int64_t delay = 10LL << shift;
        sim_eng_push(e, e->now + (delay > 360 ? 360 : delay), EV_POD_CREATE, p->task, 0, 0);
    } else {
        sim_eng_push(e, e->now + 1, EV_POD_CREATE, p->task, 0, 0);
    }
}

static void pod_delete_at(struct sim_eng *e, int pod, int64_t t) {
    struct sim_pod *p = &e->w->pods[pod];
    if (p->delreq_seq == SIM_NEVER) {
        p->delreq_t = e->now;
        p->delgrace = SIM_POD_GRACE;
        p->delreq_seq = sim_eng_emit(e, SIM_K_POD, pod, SIM_MODIFIED);
    }
    sim_eng_push(e, t, EV_POD_DELETE, pod, 0, 0);
}

/* Stops an active attempt because its Job failed (backoffLimit / deadline). */
static void pod_kill_for_job(struct sim_eng *e, int pod) {
    struct sim_pod *p = &e->w->pods[pod];
    if (p->deleted_t != SIM_NEVER || p->delreq_seq != SIM_NEVER || p->fin_t != SIM_NEVER ||
        p->gcfail_t != SIM_NEVER)
        return;
    if (p->holds_node && p->start_t != SIM_NEVER &&
        sim_eng_node_unreachable(&e->w->nodes[p->node])) {
        /* the kubelet cannot hear it: the container stops when the node is back */
        p->outcome = SIM_OUT_KILLED;
        p->failure_handled = true;
        p->delreq_t = e->now;
        p->delgrace = SIM_POD_GRACE;
        p->delreq_seq = sim_eng_emit(e, SIM_K_POD, pod, SIM_MODIFIED);
        return;
    }
    p->token++;
    sim_eng_pending_remove(e, pod);
    if (p->start_t != SIM_NEVER) {
        sim_eng_task_save(e, pod, e->now);
        p->fin_t = e->now;
        p->exit_code = 143;
        p->fin_reason = "Error";
        p->fin_seq = sim_eng_emit(e, SIM_K_POD, pod, SIM_MODIFIED);
    }
    if (p->outcome == SIM_OUT_PENDING || p->outcome == SIM_OUT_RUNNING)
        p->outcome = SIM_OUT_KILLED;
    sim_eng_node_release(e, pod);
    p->failure_handled = true;
    pod_delete_at(e, pod, e->now + 1);
}
