/* sim_engine — the discrete-event simulation that builds a struct sim_world.
 *
 * A binary heap of future events ordered by (time, insertion order) drives the
 * cluster: Job arrivals, the Job controller (pods, backoff, backoffLimit,
 * activeDeadlineSeconds, TTL), the scheduler (first pool of a workload's
 * preference with a Ready, schedulable node that fits), the cluster autoscaler
 * (scale-up after a delay for pods pending too long; scale-down of empty nodes
 * above min_nodes), Spot reclaims (cordon -> eviction with DisruptionTarget ->
 * shutdown -> Node deletion -> PodGC) and Event expiry. Every visible change is
 * appended to the world's log through emit(); facts remember the seq that made
 * them visible (sim_world.h). One seeded sim_rng is consumed in event order, so
 * a (scenario, seed, horizon) triple always gives the same world. */
#include "sim/sim_world.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_rng.h"
#include "base/xalloc.h"

#define SIM_SEQ_BASE 1000 /* resourceVersions start here; "0" means "any" to clients */
#define SIM_DROPLET_BASE 512340000LL

enum ev_type {
    EV_ARRIVE,
    EV_POD_CREATE,
    EV_SCHEDULE,
    EV_CA,
    EV_NODE_REGISTER,
    EV_NODE_READY,
    EV_CSTART,
    EV_CEXIT,
    EV_RECLAIM,
    EV_EVICT,
    EV_SHUTDOWN,
    EV_NODE_DELETE,
    EV_POD_GC,
    EV_POD_DELETE,
    EV_DEADLINE,
    EV_TTL,
    EV_SCALE_DOWN,
    EV_EVENT_EXPIRE,
    EV_POOL_RECREATE,
};

struct ev {
    int64_t t;
    int64_t ord;
    int type;
    int a, b;
    int64_t tok;
};

struct eng {
    struct sim_world *w;
    const struct sim_scenario *sc;
    struct sim_rng rng;
    struct ev *heap;
    int nheap, capheap;
    int64_t ord;
    int64_t seq;
    int64_t now;
    int *pending; /* pods waiting for a node, creation order */
    int npending, cappending;
    int64_t last_sched_t, last_ca_t;
    int job_counter[SIM_MAX_WORKLOADS];
};

/* --- growable arrays (indexes only: pointers move when arrays grow) --- */

#define GROW(arr, n, cap)                                                                          \
    do {                                                                                           \
        if ((n) >= (cap)) {                                                                        \
            (cap) = (cap) ? (cap)*2 : 64;                                                          \
            (arr) = xrealloc((arr), (size_t)(cap) * sizeof *(arr));                                \
        }                                                                                          \
    } while (0)

static void seqs_add(struct sim_seqs *s, int64_t seq) {
    GROW(s->v, s->n, s->cap);
    s->v[s->n++] = seq;
}

int64_t sim_seqs_at(const struct sim_seqs *s, int64_t asof) {
    for (int i = s->n - 1; i >= 0; i--)
        if (s->v[i] <= asof)
            return s->v[i];
    return 0;
}

/* --- the event heap --- */

static bool ev_less(const struct ev *a, const struct ev *b) {
    return a->t != b->t ? a->t < b->t : a->ord < b->ord;
}

static void push(struct eng *e, int64_t t, int type, int a, int b, int64_t tok) {
    GROW(e->heap, e->nheap, e->capheap);
    struct ev x = {t, e->ord++, type, a, b, tok};
    int i = e->nheap++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!ev_less(&x, &e->heap[p]))
            break;
        e->heap[i] = e->heap[p];
        i = p;
    }
    e->heap[i] = x;
}

static struct ev pop(struct eng *e) {
    struct ev top = e->heap[0];
    struct ev last = e->heap[--e->nheap];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        const struct ev *best = &last;
        if (l < e->nheap && ev_less(&e->heap[l], best)) {
            m = l;
            best = &e->heap[l];
        }
        if (r < e->nheap && ev_less(&e->heap[r], best))
            m = r;
        if (m == i)
            break;
        e->heap[i] = e->heap[m];
        i = m;
    }
    if (e->nheap > 0)
        e->heap[i] = last;
    return top;
}

/* --- the change log --- */

static int64_t emit(struct eng *e, enum sim_kind kind, int idx, enum sim_etype et) {
    struct sim_world *w = e->w;
    GROW(w->log, w->nlog, w->caplog);
    int64_t seq = ++e->seq;
    /* field by field over zeroed bytes: the 2 padding bytes must be defined too, so
     * the log compares byte for byte (test_determinism; valgrind flagged them) */
    struct sim_entry *en = &w->log[w->nlog++];
    memset(en, 0, sizeof *en);
    en->seq = seq;
    en->t = e->now;
    en->kind = (uint8_t)kind;
    en->etype = (uint8_t)et;
    en->idx = idx;
    switch (kind) {
    case SIM_K_POD:
        seqs_add(&w->pods[idx].seqs, seq);
        break;
    case SIM_K_JOB:
        seqs_add(&w->jobs[idx].seqs, seq);
        break;
    case SIM_K_NODE:
        seqs_add(&w->nodes[idx].seqs, seq);
        break;
    default:
        break;
    }
    return seq;
}

static const struct sim_workload *job_wl(struct eng *e, int job) {
    return &e->sc->workloads[e->w->jobs[job].workload];
}

static const struct sim_pool_spec *pool_spec(struct eng *e, int pool) {
    return &e->sc->pools[e->w->pools[pool].spec];
}

/* A Kubernetes Event (core/v1) about a pod, job or node; expires after event_ttl. */
static void kevent(struct eng *e, enum sim_kind kind, int obj, const char *reason, const char *type,
                   const char *component, bool host, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
static void kevent(struct eng *e, enum sim_kind kind, int obj, const char *reason, const char *type,
                   const char *component, bool host, const char *fmt, ...) {
    struct sim_world *w = e->w;
    if (kind == SIM_K_NODE && w->nodes[obj].reg_seq == SIM_NEVER)
        return; /* no Node object yet: nothing to attach the event to */
    GROW(w->events, w->nevents, w->capevents);
    int i = w->nevents++;
    struct sim_kevent *ev = &w->events[i];
    memset(ev, 0, sizeof *ev);
    const char *objname = kind == SIM_K_POD   ? w->pods[obj].name
                          : kind == SIM_K_JOB ? w->jobs[obj].name
                                              : w->nodes[obj].name;
    snprintf(ev->name, sizeof ev->name, "%s.%016llx", objname,
             (unsigned long long)sim_rng_next(&e->rng));
    sim_rng_uuid(&e->rng, ev->uid);
    ev->ns = kind == SIM_K_NODE ? "default" : e->sc->namespace_;
    ev->obj_kind = (uint8_t)kind;
    ev->obj = obj;
    ev->reason = reason;
    ev->type = type;
    ev->component = component;
    ev->host = host;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ev->message = xstrdup(msg);
    ev->t = e->now;
    ev->deleted_t = SIM_NEVER;
    ev->deleted_seq = SIM_NEVER;
    ev->seq = emit(e, SIM_K_EVENT, i, SIM_ADDED);
    push(e, e->now + e->sc->event_ttl, EV_EVENT_EXPIRE, i, 0, 0);
}

/* --- pools and nodes --- */

static int pool_current(struct eng *e, int spec) {
    struct sim_world *w = e->w;
    for (int i = w->npools - 1; i >= 0; i--)
        if (w->pools[i].spec == spec)
            return (w->pools[i].reclaimed || w->pools[i].created_t > e->now) ? -1 : i;
    return -1;
}

static int pool_active_nodes(struct eng *e, int pool) {
    int n = 0;
    for (int i = 0; i < e->w->nnodes; i++) {
        const struct sim_node *nd = &e->w->nodes[i];
        if (nd->pool == pool && nd->deleted_t == SIM_NEVER && nd->deleting_t == SIM_NEVER)
            n++;
    }
    return n;
}

static int pool_new(struct eng *e, int spec, int generation, int64_t t) {
    struct sim_world *w = e->w;
    GROW(w->pools, w->npools, w->cappools);
    int i = w->npools++;
    struct sim_pool *p = &w->pools[i];
    memset(p, 0, sizeof *p);
    p->spec = spec;
    p->generation = generation;
    const struct sim_pool_spec *ps = &e->sc->pools[spec];
    if (ps->id && generation == 0)
        snprintf(p->id, sizeof p->id, "%s", ps->id);
    else
        sim_rng_uuid(&e->rng, p->id);
    snprintf(p->name, sizeof p->name, "%s", ps->name);
    p->created_t = t;
    p->cordon_t = SIM_NEVER;
    p->gone_t = SIM_NEVER;
    return i;
}

static int node_new(struct eng *e, int pool, int64_t created_t) {
    struct sim_world *w = e->w;
    GROW(w->nodes, w->nnodes, w->capnodes);
    int i = w->nnodes++;
    struct sim_node *n = &w->nodes[i];
    memset(n, 0, sizeof *n);
    char suffix[8];
    sim_rng_suffix(&e->rng, suffix, 5);
    snprintf(n->name, sizeof n->name, "%s-%s", w->pools[pool].name, suffix);
    sim_rng_uuid(&e->rng, n->uid);
    sim_rng_uuid(&e->rng, n->do_id);
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
    push(e, ready - e->sc->register_seconds, EV_NODE_REGISTER, i, 0, 0);
    push(e, ready, EV_NODE_READY, i, 0, 0);
    return i;
}

static void request_schedule(struct eng *e, int64_t t) {
    if (e->last_sched_t == t)
        return;
    e->last_sched_t = t;
    push(e, t, EV_SCHEDULE, 0, 0, 0);
}

static void node_release(struct eng *e, int pod) {
    struct sim_pod *p = &e->w->pods[pod];
    if (!p->holds_node)
        return;
    p->holds_node = false;
    const struct sim_workload *wl = job_wl(e, p->job);
    struct sim_node *n = &e->w->nodes[p->node];
    n->used_gpus -= wl->gpus;
    n->used_cpu_m -= wl->cpu_m;
    n->npods--;
    if (n->npods == 0 && n->deleted_t == SIM_NEVER) {
        n->empty_since = e->now;
        if (pool_spec(e, n->pool)->auto_scale)
            push(e, e->now + e->sc->scale_down_unneeded, EV_SCALE_DOWN, p->node, 0, e->now);
    }
    request_schedule(e, e->now);
}

/* --- tasks, jobs and pods --- */

static void job_modified(struct eng *e, int job) {
    emit(e, SIM_K_JOB, job, SIM_MODIFIED);
}

static int64_t sample_work(struct eng *e, const struct sim_workload *wl) {
    switch (wl->duration.dist) {
    case SIM_DIST_FIXED:
        return wl->duration.a;
    case SIM_DIST_UNIFORM:
        return sim_rng_range(&e->rng, wl->duration.a, wl->duration.b);
    case SIM_DIST_EXPONENTIAL:
        return sim_rng_exp(&e->rng, wl->duration.a);
    }
    return wl->duration.a;
}

/* Work checkpointed by an attempt that ran from its container start until t. */
static int64_t work_saved_until(struct eng *e, int pod, int64_t t) {
    struct sim_pod *p = &e->w->pods[pod];
    if (p->start_t == SIM_NEVER)
        return 0;
    const struct sim_workload *wl = job_wl(e, p->job);
    const struct sim_task *tk = &e->w->tasks[p->task];
    int64_t c = wl->checkpoint_interval, d = wl->checkpoint_seconds;
    if (c <= 0)
        return 0;
    int64_t remaining = tk->work - tk->saved;
    int64_t nck = remaining > 0 ? (remaining - 1) / c : 0;
    int64_t elapsed = t - p->start_t - p->restore_s;
    if (elapsed <= 0)
        return 0;
    int64_t k = elapsed / (c + d);
    if (k > nck)
        k = nck;
    return k * c;
}

static void task_save(struct eng *e, int pod, int64_t t) {
    struct sim_pod *p = &e->w->pods[pod];
    int64_t add = work_saved_until(e, pod, t);
    e->w->tasks[p->task].saved += add;
}

static void pending_remove(struct eng *e, int pod) {
    for (int i = 0; i < e->npending; i++)
        if (e->pending[i] == pod) {
            memmove(&e->pending[i], &e->pending[i + 1],
                    (size_t)(e->npending - i - 1) * sizeof *e->pending);
            e->npending--;
            return;
        }
}

static void pod_create(struct eng *e, int task) {
    struct sim_world *w = e->w;
    struct sim_task *tk = &w->tasks[task];
    struct sim_job *j = &w->jobs[tk->job];
    if (j->done_t != SIM_NEVER || j->deleted_t != SIM_NEVER || tk->outcome == SIM_OUT_SUCCEEDED ||
        tk->current_pod >= 0)
        return;
    GROW(w->pods, w->npods, w->cappods);
    int i = w->npods++;
    struct sim_pod *p = &w->pods[i];
    memset(p, 0, sizeof *p);
    char suffix[8];
    sim_rng_suffix(&e->rng, suffix, 5);
    if (tk->index >= 0)
        snprintf(p->name, sizeof p->name, "%s-%d-%s", j->name, tk->index, suffix);
    else
        snprintf(p->name, sizeof p->name, "%s-%s", j->name, suffix);
    sim_rng_uuid(&e->rng, p->uid);
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
    p->reclaim = -1;
    p->outcome = SIM_OUT_PENDING;
    p->created_t = e->now;
    p->created_seq = emit(e, SIM_K_POD, i, SIM_ADDED);
    tk->current_pod = i;
    GROW(j->pods, j->npods, j->cappods);
    j->pods[j->npods++] = i;
    GROW(e->pending, e->npending, e->cappending);
    e->pending[e->npending++] = i;
    kevent(e, SIM_K_JOB, tk->job, "SuccessfulCreate", "Normal", "job-controller", false,
           "Created pod: %s", w->pods[i].name);
    job_modified(e, tk->job);
    request_schedule(e, e->now + 1);
}

static void pod_kill_for_job(struct eng *e, int pod);

static void job_finish(struct eng *e, int job, bool failed, const char *reason) {
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
    j->done_seq = emit(e, SIM_K_JOB, job, SIM_MODIFIED);
    if (failed)
        kevent(e, SIM_K_JOB, job, reason, "Warning", "job-controller", false,
               strcmp(reason, "DeadlineExceeded") == 0
                   ? "Job was active longer than specified deadline"
                   : "Job has reached the specified backoff limit");
    else
        kevent(e, SIM_K_JOB, job, "Completed", "Normal", "job-controller", false, "Job completed");
    push(e, e->now + job_wl(e, job)->ttl_after_finished, EV_TTL, job, 0, 0);
}

/* The Job controller sees an attempt fail. counted: it counts towards backoffLimit
 * (not when a podFailurePolicy Ignores its DisruptionTarget). */
static void handle_failure(struct eng *e, int pod, bool counted) {
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
    const struct sim_workload *wl = job_wl(e, p->job);
    if (counted) {
        j->failures++;
        p->counted_seq = emit(e, SIM_K_JOB, p->job, SIM_MODIFIED);
        if (j->failures > wl->backoff_limit) {
            job_finish(e, p->job, true, "BackoffLimitExceeded");
            return;
        }
        int shift = j->failures - 1 < 6 ? j->failures - 1 : 6;
        int64_t delay = 10LL << shift;
        push(e, e->now + (delay > 360 ? 360 : delay), EV_POD_CREATE, p->task, 0, 0);
    } else {
        push(e, e->now + 1, EV_POD_CREATE, p->task, 0, 0);
    }
}

static void pod_delete_at(struct eng *e, int pod, int64_t t) {
    struct sim_pod *p = &e->w->pods[pod];
    if (p->delreq_seq == SIM_NEVER) {
        p->delreq_t = e->now;
        p->delgrace = SIM_POD_GRACE;
        p->delreq_seq = emit(e, SIM_K_POD, pod, SIM_MODIFIED);
    }
    push(e, t, EV_POD_DELETE, pod, 0, 0);
}

/* Stops an active attempt because its Job failed (backoffLimit / deadline). */
static void pod_kill_for_job(struct eng *e, int pod) {
    struct sim_pod *p = &e->w->pods[pod];
    if (p->deleted_t != SIM_NEVER || p->delreq_seq != SIM_NEVER || p->fin_t != SIM_NEVER ||
        p->gcfail_t != SIM_NEVER)
        return;
    p->token++;
    pending_remove(e, pod);
    if (p->start_t != SIM_NEVER) {
        task_save(e, pod, e->now);
        p->fin_t = e->now;
        p->exit_code = 143;
        p->fin_reason = "Error";
        p->fin_seq = emit(e, SIM_K_POD, pod, SIM_MODIFIED);
    }
    if (p->outcome == SIM_OUT_PENDING || p->outcome == SIM_OUT_RUNNING)
        p->outcome = SIM_OUT_KILLED;
    node_release(e, pod);
    p->failure_handled = true;
    pod_delete_at(e, pod, e->now + 1);
}

/* --- event handlers --- */

static void on_arrive(struct eng *e, int wl_idx) {
    struct sim_world *w = e->w;
    const struct sim_workload *wl = &e->sc->workloads[wl_idx];
    GROW(w->jobs, w->njobs, w->capjobs);
    int j = w->njobs++;
    struct sim_job *job = &w->jobs[j];
    memset(job, 0, sizeof *job);
    snprintf(job->name, sizeof job->name, "%s-%04d", wl->name, ++e->job_counter[wl_idx]);
    sim_rng_uuid(&e->rng, job->uid);
    job->workload = wl_idx;
    job->created_t = e->now;
    job->done_t = job->done_seq = SIM_NEVER;
    job->deleted_t = job->deleted_seq = SIM_NEVER;
    job->first_task = w->ntasks;
    job->ntasks = wl->completions;
    for (int k = 0; k < wl->completions; k++) {
        GROW(w->tasks, w->ntasks, w->captasks);
        struct sim_task *tk = &w->tasks[w->ntasks++];
        memset(tk, 0, sizeof *tk);
        tk->job = j;
        tk->index = wl->indexed ? k : -1;
        tk->work = sample_work(e, wl);
        tk->outcome = SIM_OUT_PENDING;
        tk->done_t = SIM_NEVER;
        tk->succeeded_seq = SIM_NEVER;
        tk->current_pod = -1;
        tk->last_reclaim = -1;
    }
    w->jobs[j].created_seq = emit(e, SIM_K_JOB, j, SIM_ADDED);
    for (int k = 0; k < wl->completions; k++)
        push(e, e->now + 1, EV_POD_CREATE, w->jobs[j].first_task + k, 0, 0);
    if (wl->active_deadline > 0)
        push(e, e->now + wl->active_deadline, EV_DEADLINE, j, 0, 0);
}

static bool node_fits(const struct sim_node *n, const struct sim_workload *wl) {
    return n->ready_t != SIM_NEVER && n->cordon_t == SIM_NEVER && n->deleting_t == SIM_NEVER &&
           n->deleted_t == SIM_NEVER && n->gpus - n->used_gpus >= wl->gpus &&
           n->cpu_m - n->used_cpu_m >= wl->cpu_m;
}

static int find_node(struct eng *e, const struct sim_workload *wl) {
    struct sim_world *w = e->w;
    for (int k = 0; k < wl->npools; k++) {
        int pool = pool_current(e, wl->pools[k]);
        if (pool < 0)
            continue;
        for (int i = 0; i < w->nnodes; i++)
            if (w->nodes[i].pool == pool && node_fits(&w->nodes[i], wl))
                return i;
    }
    return -1;
}

static void on_schedule(struct eng *e) {
    struct sim_world *w = e->w;
    for (int i = 0; i < e->npending;) {
        int pod = e->pending[i];
        struct sim_pod *p = &w->pods[pod];
        if (p->delreq_seq != SIM_NEVER || p->deleted_t != SIM_NEVER ||
            w->jobs[p->job].done_t != SIM_NEVER) {
            pending_remove(e, pod);
            continue;
        }
        if (p->created_t + 1 > e->now) {
            i++;
            continue;
        }
        const struct sim_workload *wl = job_wl(e, p->job);
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
            p->sched_seq = emit(e, SIM_K_POD, pod, SIM_MODIFIED);
            kevent(e, SIM_K_POD, pod, "Scheduled", "Normal", "default-scheduler", false,
                   "Successfully assigned %s/%s to %s", e->sc->namespace_, p->name, nd->name);
            push(e, e->now + e->sc->pod_start_seconds, EV_CSTART, pod, 0, p->token);
            pending_remove(e, pod);
            continue;
        }
        if (p->unsched_seq == SIM_NEVER) {
            p->unsched_t = e->now;
            p->unsched_seq = emit(e, SIM_K_POD, pod, SIM_MODIFIED);
            kevent(e, SIM_K_POD, pod, "FailedScheduling", "Warning", "default-scheduler", false,
                   "0/%d nodes are available: no schedulable node with %d nvidia.com/gpu free "
                   "in the preferred pools.",
                   w->nnodes, wl->gpus);
            int64_t at = e->now + e->sc->scale_up_delay;
            if (e->last_ca_t != at) {
                e->last_ca_t = at;
                push(e, at, EV_CA, 0, 0, 0);
            }
        }
        i++;
    }
}

static void on_autoscale(struct eng *e) {
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
        const struct sim_workload *wl = job_wl(e, p->job);
        bool placed = false;
        for (int q = 0; q < wl->npools && !placed; q++) {
            int pool = pool_current(e, wl->pools[q]);
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
            const struct sim_pool_spec *ps = pool_spec(e, pool);
            if (!placed && ps->auto_scale && pool_active_nodes(e, pool) < ps->max_nodes) {
                int before = pool_active_nodes(e, pool);
                int n = node_new(e, pool, e->now);
                if (n < cap) {
                    vgpu[n] = w->nodes[n].gpus - wl->gpus;
                    vcpu[n] = w->nodes[n].cpu_m - wl->cpu_m;
                }
                kevent(e, SIM_K_POD, pod, "TriggeredScaleUp", "Normal", "cluster-autoscaler", false,
                       "pod triggered scale-up: [{%s %d->%d (max: %d)}]", w->pools[pool].name,
                       before, before + 1, ps->max_nodes);
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
        push(e, at, EV_CA, 0, 0, 0);
    }
}

static void on_node_register(struct eng *e, int node) {
    struct sim_node *n = &e->w->nodes[node];
    if (n->deleting_t != SIM_NEVER || n->deleted_t != SIM_NEVER || n->cordon_t != SIM_NEVER)
        return;
    n->reg_t = e->now;
    n->reg_seq = emit(e, SIM_K_NODE, node, SIM_ADDED);
    kevent(e, SIM_K_NODE, node, "RegisteredNode", "Normal", "node-controller", false,
           "Node %s event: Registered Node %s in Controller", n->name, n->name);
}

static void on_node_ready(struct eng *e, int node) {
    struct sim_world *w = e->w;
    struct sim_node *n = &w->nodes[node];
    if (n->reg_seq == SIM_NEVER || n->deleting_t != SIM_NEVER || n->cordon_t != SIM_NEVER)
        return;
    n->ready_t = e->now;
    n->ready_seq = emit(e, SIM_K_NODE, node, SIM_MODIFIED);
    kevent(e, SIM_K_NODE, node, "NodeReady", "Normal", "kubelet", true,
           "Node %s status is now: NodeReady", w->nodes[node].name);
    n = &w->nodes[node];
    n->empty_since = e->now;
    if (pool_spec(e, n->pool)->auto_scale)
        push(e, e->now + e->sc->scale_down_unneeded, EV_SCALE_DOWN, node, 0, e->now);
    if (pool_spec(e, n->pool)->role == SIM_ROLE_FALLBACK)
        for (int r = 0; r < w->nreclaims; r++)
            if (w->reclaims[r].fallback_ready_t == SIM_NEVER)
                w->reclaims[r].fallback_ready_t = e->now;
    request_schedule(e, e->now);
}

static void task_report(struct eng *e, int pod) {
    struct sim_pod *p = &e->w->pods[pod];
    const struct sim_workload *wl = job_wl(e, p->job);
    if (wl->checkpoint_interval <= 0)
        return;
    char msg[160];
    snprintf(msg, sizeof msg,
             "{\"work_seconds\":%lld,\"restore_seconds\":%lld,\"checkpoint_seconds\":%lld}",
             (long long)e->w->tasks[p->task].work, (long long)p->restore_s,
             (long long)wl->checkpoint_seconds);
    p->message = xstrdup(msg);
}

static void on_cstart(struct eng *e, int pod, int64_t tok) {
    struct sim_world *w = e->w;
    struct sim_pod *p = &w->pods[pod];
    if (p->token != tok || p->delreq_seq != SIM_NEVER || p->deleted_t != SIM_NEVER ||
        !p->holds_node)
        return;
    const struct sim_workload *wl = job_wl(e, p->job);
    struct sim_task *tk = &w->tasks[p->task];
    p->start_t = e->now;
    p->start_seq = emit(e, SIM_K_POD, pod, SIM_MODIFIED);
    p->outcome = SIM_OUT_RUNNING;
    kevent(e, SIM_K_POD, pod, "Started", "Normal", "kubelet", true, "Started container main");
    job_modified(e, p->job);
    if (tk->last_reclaim >= 0) {
        struct sim_reclaim *r = &w->reclaims[tk->last_reclaim];
        if (r->resumed_t == SIM_NEVER)
            r->resumed_t = e->now;
        tk->last_reclaim = -1;
    }
    int64_t restore = (tk->saved > 0 && wl->checkpoint_interval > 0) ? wl->restore_seconds : 0;
    p->restore_s = restore;
    int64_t remaining = tk->work - tk->saved;
    int64_t c = wl->checkpoint_interval;
    int64_t nck = (c > 0 && remaining > 0) ? (remaining - 1) / c : 0;
    int64_t run = restore + remaining + nck * wl->checkpoint_seconds;
    if (run < 1)
        run = 1;
    int code = 0;
    if (sim_rng_chance_ppm(&e->rng, wl->failure_ppm)) {
        code = 1;
        run = run > 2 ? sim_rng_range(&e->rng, 1, run - 1) : 1;
    }
    p->planned_exit_t = e->now + run;
    push(e, e->now + run, EV_CEXIT, pod, code, p->token);
}

static void on_cexit(struct eng *e, int pod, int code, int64_t tok) {
    struct sim_world *w = e->w;
    struct sim_pod *p = &w->pods[pod];
    if (p->token != tok || p->fin_t != SIM_NEVER || p->deleted_t != SIM_NEVER ||
        p->gcfail_t != SIM_NEVER || p->start_t == SIM_NEVER)
        return;
    struct sim_task *tk = &w->tasks[p->task];
    struct sim_job *j = &w->jobs[p->job];
    const struct sim_workload *wl = job_wl(e, p->job);
    p->fin_t = e->now;
    p->exit_code = code;
    p->fin_reason = code == 0 ? "Completed" : "Error";
    if (code == 0)
        task_report(e, pod);
    else
        task_save(e, pod, e->now);
    p->fin_seq = emit(e, SIM_K_POD, pod, SIM_MODIFIED);
    node_release(e, pod);
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
                job_finish(e, p->job, false, NULL);
            else
                job_modified(e, p->job);
        }
        if (p->delreq_seq != SIM_NEVER)
            push(e, e->now + 1, EV_POD_DELETE, pod, 0, 0);
        return;
    }
    if (p->interrupted) {
        /* SIGTERM after an eviction: the kubelet removes the pod right after */
        handle_failure(e, pod, !wl->pod_failure_policy);
        push(e, e->now + 1, EV_POD_DELETE, pod, 0, 0);
        return;
    }
    p->outcome = SIM_OUT_FAILED;
    job_modified(e, p->job);
    handle_failure(e, pod, true);
}

static int reclaim_new(struct eng *e, int pool) {
    struct sim_world *w = e->w;
    GROW(w->reclaims, w->nreclaims, w->capreclaims);
    int r = w->nreclaims++;
    w->reclaims[r] = (struct sim_reclaim){pool, e->now, SIM_NEVER, SIM_NEVER, SIM_NEVER, 0};
    for (int i = 0; i < w->nnodes; i++) {
        const struct sim_node *n = &w->nodes[i];
        if (pool_spec(e, n->pool)->role == SIM_ROLE_FALLBACK && n->ready_t != SIM_NEVER &&
            n->deleted_t == SIM_NEVER && n->deleting_t == SIM_NEVER) {
            w->reclaims[r].fallback_ready_t = e->now;
            break;
        }
    }
    return r;
}

static void on_reclaim(struct eng *e, int spec) {
    struct sim_world *w = e->w;
    int pool = pool_current(e, spec);
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
            n->cordon_seq = emit(e, SIM_K_NODE, i, SIM_MODIFIED);
            kevent(e, SIM_K_NODE, i, "NodeNotSchedulable", "Normal", "kubelet", true,
                   "Node %s status is now: NodeNotSchedulable", w->nodes[i].name);
            kevent(e, SIM_K_NODE, i, "SpotReclaim", "Warning", "digitalocean-cloud-controller",
                   false, "Spot capacity reclaimed: node pool %s is being deleted",
                   w->pools[pool].name);
            push(e, e->now + sc->reclaim_notice, EV_SHUTDOWN, i, 0, 0);
        }
        push(e, e->now + sc->reclaim_notice + sc->node_delete_seconds, EV_NODE_DELETE, i, 0, 0);
    }
    push(e, e->now + sc->reclaim_drain_after, EV_EVICT, pool, r, 0);
}

static void interrupt(struct eng *e, int pod, int r) {
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

static void on_evict(struct eng *e, int pool, int r) {
    struct sim_world *w = e->w;
    const struct sim_scenario *sc = e->sc;
    int64_t shutdown = w->reclaims[r].signal_t + sc->reclaim_notice;
    for (int pod = 0; pod < w->npods; pod++) {
        struct sim_pod *p = &w->pods[pod];
        if (!p->holds_node || w->nodes[p->node].pool != pool || p->delreq_seq != SIM_NEVER)
            continue;
        const struct sim_workload *wl = job_wl(e, p->job);
        interrupt(e, pod, r);
        p->disrupt_t = e->now;
        p->disrupt_reason = "EvictionByEvictionAPI";
        p->disrupt_msg = "Eviction API: evicting";
        p->delreq_t = e->now;
        p->delgrace = SIM_POD_GRACE; /* the Eviction API: the pod's own grace period */
        p->delreq_seq = p->disrupt_seq = emit(e, SIM_K_POD, pod, SIM_MODIFIED);
        kevent(e, SIM_K_POD, pod, "Killing", "Normal", "kubelet", true, "Stopping container main");
        p = &w->pods[pod];
        if (p->start_t == SIM_NEVER) {
            /* still pulling its image: the kubelet drops it at once */
            p->token++;
            node_release(e, pod);
            push(e, e->now + 1, EV_POD_DELETE, pod, 0, 0);
        } else {
            int64_t exit_at = e->now + sc->sigterm_seconds;
            if (p->planned_exit_t <= exit_at && p->planned_exit_t < shutdown) {
                /* finishes on its own before SIGTERM takes effect */
            } else if (exit_at < shutdown) {
                p->token++;
                push(e, exit_at, EV_CEXIT, pod, 143, p->token);
            } else {
                p->token++; /* the node dies first: PodGC will collect it */
            }
        }
        if (!wl->pod_failure_policy)
            handle_failure(e, pod, true); /* TerminatingOrFailed: replace at once */
    }
}

static void on_shutdown(struct eng *e, int node) {
    struct sim_world *w = e->w;
    struct sim_node *n = &w->nodes[node];
    if (n->deleted_t != SIM_NEVER)
        return;
    n->deleting_t = e->now;
    if (n->reg_seq == SIM_NEVER)
        return;
    n->notready_t = e->now;
    n->notready_seq = emit(e, SIM_K_NODE, node, SIM_MODIFIED);
    kevent(e, SIM_K_NODE, node, "NodeNotReady", "Normal", "node-controller", false,
           "Node %s status is now: NodeNotReady", w->nodes[node].name);
    for (int pod = 0; pod < w->npods; pod++) {
        struct sim_pod *p = &w->pods[pod];
        if (p->holds_node && p->node == node && p->start_t != SIM_NEVER && p->fin_t == SIM_NEVER)
            kevent(e, SIM_K_POD, pod, "NodeNotReady", "Warning", "node-controller", false,
                   "Node is not ready");
    }
}

static void on_node_delete(struct eng *e, int node) {
    struct sim_world *w = e->w;
    struct sim_node *n = &w->nodes[node];
    if (n->deleted_t != SIM_NEVER)
        return;
    if (n->deleting_t == SIM_NEVER)
        n->deleting_t = e->now;
    n->deleted_t = e->now;
    if (n->reg_seq != SIM_NEVER) {
        n->deleted_seq = emit(e, SIM_K_NODE, node, SIM_DELETED);
        kevent(e, SIM_K_NODE, node, "RemovingNode", "Normal", "node-controller", false,
               "Node %s event: Removing Node %s from Controller", w->nodes[node].name,
               w->nodes[node].name);
    }
    n = &w->nodes[node];
    int pool = n->pool;
    int64_t lost = n->notready_t != SIM_NEVER ? n->notready_t : e->now;
    int reclaim = -1;
    for (int r = 0; r < w->nreclaims; r++)
        if (w->reclaims[r].pool == pool)
            reclaim = r;
    for (int pod = 0; pod < w->npods; pod++) {
        struct sim_pod *p = &w->pods[pod];
        if (p->node != node || p->deleted_t != SIM_NEVER || !p->holds_node)
            continue;
        if (p->start_t != SIM_NEVER && p->fin_t == SIM_NEVER) {
            task_save(e, pod, lost);
            p->token++;
        }
        if (p->fin_t == SIM_NEVER)
            interrupt(e, pod, reclaim);
        node_release(e, pod);
        push(e, e->now + e->sc->pod_gc_seconds, EV_POD_GC, pod, 0, 0);
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
            push(e, e->now + again, EV_POOL_RECREATE, w->pools[pool].spec,
                 w->pools[pool].generation + 1, 0);
    }
}

static void on_pod_gc(struct eng *e, int pod) {
    struct sim_world *w = e->w;
    struct sim_pod *p = &w->pods[pod];
    if (p->deleted_t != SIM_NEVER)
        return;
    const struct sim_workload *wl = job_wl(e, p->job);
    bool had_disruption = p->disrupt_seq != SIM_NEVER;
    int64_t seq = emit(e, SIM_K_POD, pod, SIM_MODIFIED);
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
    p->deleted_seq = emit(e, SIM_K_POD, pod, SIM_DELETED);
    if (w->pods[pod].outcome != SIM_OUT_SUCCEEDED)
        handle_failure(e, pod, !wl->pod_failure_policy);
}

static void on_pod_delete(struct eng *e, int pod) {
    struct sim_world *w = e->w;
    struct sim_pod *p = &w->pods[pod];
    if (p->deleted_t != SIM_NEVER)
        return;
    if (p->fin_t == SIM_NEVER && p->start_t != SIM_NEVER && p->holds_node)
        task_save(e, pod, e->now);
    p->token++;
    node_release(e, pod);
    pending_remove(e, pod);
    p = &w->pods[pod];
    p->deleted_t = e->now;
    p->deleted_seq = emit(e, SIM_K_POD, pod, SIM_DELETED);
    p = &w->pods[pod];
    if (p->delreq_seq == SIM_NEVER) { /* deleted at once: grace 0 */
        p->delreq_t = e->now;
        p->delgrace = 0;
        p->delreq_seq = p->deleted_seq;
    }
    if (p->outcome != SIM_OUT_SUCCEEDED && !p->failure_handled)
        handle_failure(e, pod, !(p->interrupted && job_wl(e, p->job)->pod_failure_policy));
}

static void on_ttl(struct eng *e, int job) {
    struct sim_world *w = e->w;
    struct sim_job *j = &w->jobs[job];
    if (j->deleted_t != SIM_NEVER)
        return;
    j->deleted_t = e->now;
    j->deleted_seq = emit(e, SIM_K_JOB, job, SIM_DELETED);
    j = &w->jobs[job];
    for (int k = 0; k < j->npods; k++)
        if (w->pods[j->pods[k]].deleted_t == SIM_NEVER)
            push(e, e->now + 1, EV_POD_DELETE, j->pods[k], 0, 0);
}

static void on_scale_down(struct eng *e, int node, int64_t tok) {
    struct sim_world *w = e->w;
    struct sim_node *n = &w->nodes[node];
    int pool = n->pool;
    const struct sim_pool_spec *ps = pool_spec(e, pool);
    if (n->empty_since != tok || n->npods != 0 || n->ready_t == SIM_NEVER ||
        n->cordon_t != SIM_NEVER || n->deleting_t != SIM_NEVER || n->deleted_t != SIM_NEVER ||
        w->pools[pool].reclaimed || !ps->auto_scale || pool_active_nodes(e, pool) <= ps->min_nodes)
        return;
    n->cordon_t = e->now;
    n->cordon_by_ca = true;
    n->deleting_t = e->now;
    n->cordon_seq = emit(e, SIM_K_NODE, node, SIM_MODIFIED);
    kevent(e, SIM_K_NODE, node, "ScaleDown", "Normal", "cluster-autoscaler", false,
           "marked the node as toBeDeleted/unschedulable");
    push(e, e->now + e->sc->node_delete_seconds, EV_NODE_DELETE, node, 0, 0);
}

static void on_event_expire(struct eng *e, int ev) {
    struct sim_kevent *k = &e->w->events[ev];
    k->deleted_t = e->now;
    k->deleted_seq = emit(e, SIM_K_EVENT, ev, SIM_DELETED);
}

static void on_pool_recreate(struct eng *e, int spec, int generation) {
    int pool = pool_new(e, spec, generation, e->now);
    for (int k = 0; k < e->sc->pools[spec].count; k++)
        node_new(e, pool, e->now);
}

/* --- set-up and the main loop --- */

/* Poisson arrivals and reclaims draw from their own stream per workload / reclaim
 * (not from e->rng): how many are planned depends on the horizon, and the main
 * stream must not, so that names and UIDs are the same for every --until
 * (src/sim/README.md, "Determinism"). */
static void stream_for(const struct eng *e, uint64_t salt, int i, struct sim_rng *out) {
    sim_rng_seed(out, e->w->seed ^ (salt + 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1)));
}

static void plan_arrivals(struct eng *e, int64_t horizon) {
    const struct sim_scenario *sc = e->sc;
    struct sim_rng rs;
    for (int i = 0; i < sc->nworkloads; i++) {
        const struct sim_workload *wl = &sc->workloads[i];
        int64_t t0 = sc->start + wl->start_offset;
        if (wl->count > 0) {
            for (int k = 0; k < wl->count; k++) {
                int64_t t = t0 + (int64_t)k * wl->interval;
                if (t > horizon)
                    break;
                push(e, t, EV_ARRIVE, i, 0, 0);
            }
        } else {
            int64_t end = sc->start + wl->end_offset;
            stream_for(e, 0xa77e1fa1ULL, i, &rs);
            for (int64_t t = t0 + sim_rng_exp(&rs, wl->mean_gap); t <= end && t <= horizon;
                 t += sim_rng_exp(&rs, wl->mean_gap))
                push(e, t, EV_ARRIVE, i, 0, 0);
        }
    }
    for (int i = 0; i < sc->nreclaims; i++) {
        const struct sim_reclaim_spec *r = &sc->reclaims[i];
        if (r->at) {
            push(e, r->at, EV_RECLAIM, r->pool, 0, 0);
        } else {
            stream_for(e, 0x7ec1a13ULL, i, &rs);
            for (int64_t t = sc->start + sim_rng_exp(&rs, r->mean_interval); t <= horizon;
                 t += sim_rng_exp(&rs, r->mean_interval))
                push(e, t, EV_RECLAIM, r->pool, 0, 0);
        }
    }
}

static void dispatch(struct eng *e, const struct ev *x) {
    switch (x->type) {
    case EV_ARRIVE:
        on_arrive(e, x->a);
        break;
    case EV_POD_CREATE:
        pod_create(e, x->a);
        break;
    case EV_SCHEDULE:
        on_schedule(e);
        break;
    case EV_CA:
        on_autoscale(e);
        break;
    case EV_NODE_REGISTER:
        on_node_register(e, x->a);
        break;
    case EV_NODE_READY:
        on_node_ready(e, x->a);
        break;
    case EV_CSTART:
        on_cstart(e, x->a, x->tok);
        break;
    case EV_CEXIT:
        on_cexit(e, x->a, x->b, x->tok);
        break;
    case EV_RECLAIM:
        on_reclaim(e, x->a);
        break;
    case EV_EVICT:
        on_evict(e, x->a, x->b);
        break;
    case EV_SHUTDOWN:
        on_shutdown(e, x->a);
        break;
    case EV_NODE_DELETE:
        on_node_delete(e, x->a);
        break;
    case EV_POD_GC:
        on_pod_gc(e, x->a);
        break;
    case EV_POD_DELETE:
        on_pod_delete(e, x->a);
        break;
    case EV_DEADLINE:
        if (e->w->jobs[x->a].done_t == SIM_NEVER)
            job_finish(e, x->a, true, "DeadlineExceeded");
        break;
    case EV_TTL:
        on_ttl(e, x->a);
        break;
    case EV_SCALE_DOWN:
        on_scale_down(e, x->a, x->tok);
        break;
    case EV_EVENT_EXPIRE:
        on_event_expire(e, x->a);
        break;
    case EV_POOL_RECREATE:
        on_pool_recreate(e, x->a, x->b);
        break;
    }
}

struct sim_world *sim_world_build(const struct sim_scenario *sc, uint64_t seed, int64_t horizon) {
    struct sim_world *w = xcalloc(1, sizeof *w);
    w->sc = sc;
    w->seed = seed;
    w->horizon = horizon;
    struct eng e;
    memset(&e, 0, sizeof e);
    e.w = w;
    e.sc = sc;
    e.seq = SIM_SEQ_BASE;
    e.last_sched_t = e.last_ca_t = -1;
    sim_rng_seed(&e.rng, seed);
    if (sc->cluster_id)
        snprintf(w->cluster_id, sizeof w->cluster_id, "%s", sc->cluster_id);
    else
        sim_rng_uuid(&e.rng, w->cluster_id);
    /* the initial pools: their nodes become Ready exactly at the start */
    int64_t created = sc->start - sc->provisioning_seconds;
    e.now = created;
    for (int i = 0; i < sc->npools; i++) {
        int pool = pool_new(&e, i, 0, created - 60);
        for (int k = 0; k < sc->pools[i].count; k++)
            node_new(&e, pool, created);
    }
    plan_arrivals(&e, horizon);
    while (e.nheap > 0 && e.heap[0].t <= horizon) {
        struct ev x = pop(&e);
        e.now = x.t;
        dispatch(&e, &x);
    }
    /* what is still going on at the horizon */
    for (int i = 0; i < w->npods; i++) {
        struct sim_pod *p = &w->pods[i];
        if (p->outcome == SIM_OUT_RUNNING && p->fin_t != SIM_NEVER && !p->interrupted)
            p->outcome = p->exit_code == 0 ? SIM_OUT_SUCCEEDED : SIM_OUT_FAILED;
    }
    for (int i = 0; i < w->ntasks; i++) {
        struct sim_task *tk = &w->tasks[i];
        if (tk->outcome == SIM_OUT_PENDING && tk->current_pod >= 0 &&
            w->pods[tk->current_pod].start_t != SIM_NEVER)
            tk->outcome = SIM_OUT_RUNNING;
    }
    free(e.heap);
    free(e.pending);
    return w;
}

void sim_world_free(struct sim_world *w) {
    if (!w)
        return;
    for (int i = 0; i < w->nnodes; i++)
        free(w->nodes[i].seqs.v);
    for (int i = 0; i < w->npods; i++) {
        free(w->pods[i].seqs.v);
        free(w->pods[i].message);
    }
    for (int i = 0; i < w->njobs; i++) {
        free(w->jobs[i].seqs.v);
        free(w->jobs[i].pods);
    }
    for (int i = 0; i < w->nevents; i++)
        free(w->events[i].message);
    free(w->pools);
    free(w->nodes);
    free(w->pods);
    free(w->jobs);
    free(w->tasks);
    free(w->events);
    free(w->reclaims);
    free(w->log);
    free(w);
}

int64_t sim_world_seq_at(const struct sim_world *w, int64_t t) {
    int lo = 0, hi = w->nlog; /* first entry with time > t */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (w->log[mid].t <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? 0 : w->log[lo - 1].seq;
}

int sim_world_log_after(const struct sim_world *w, int64_t after) {
    int lo = 0, hi = w->nlog;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (w->log[mid].seq <= after)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
