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
 * them visible (sim_world.h). One seeded plan_rng is consumed in event order, so
 * a (scenario, seed, horizon) triple always gives the same world. */
#include "sim/sim_world.h"
#include "sim/sim_engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/rng.h"
#include "base/xalloc.h"

static void seqs_add(struct sim_seqs *s, int64_t seq) {
    XGROW(s->v, s->n, s->cap, 64);
    s->v[s->n++] = seq;
}

int64_t sim_seqs_at(const struct sim_seqs *s, int64_t asof) {
    for (int i = s->n - 1; i >= 0; i--)
        if (s->v[i] <= asof)
            return s->v[i];
    return 0;
}

/* --- the event heap --- */

static bool ev_less(const struct sim_ev *a, const struct sim_ev *b) {
    return a->t != b->t ? a->t < b->t : a->ord < b->ord;
}

void sim_eng_push(struct sim_eng *e, int64_t t, int type, int a, int b, int64_t tok) {
    XGROW(e->heap, e->nheap, e->capheap, 64);
    struct sim_ev x = {t, e->ord++, type, a, b, tok};
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

static struct sim_ev pop(struct sim_eng *e) {
    struct sim_ev top = e->heap[0];
    struct sim_ev last = e->heap[--e->nheap];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        const struct sim_ev *best = &last;
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

int64_t sim_eng_emit(struct sim_eng *e, enum sim_kind kind, int idx, enum sim_etype et) {
    struct sim_world *w = e->w;
    XGROW(w->log, w->nlog, w->caplog, 64);
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

const struct sim_workload *sim_eng_job_wl(struct sim_eng *e, int job) {
    return &e->sc->workloads[e->w->jobs[job].workload];
}

const struct sim_pool_spec *sim_eng_pool_spec(struct sim_eng *e, int pool) {
    return &e->sc->pools[e->w->pools[pool].spec];
}

/* A Kubernetes Event (core/v1) about a pod, job or node; expires after event_ttl. */
void sim_eng_kevent(struct sim_eng *e, enum sim_kind kind, int obj, const char *reason,
                    const char *type, const char *component, bool host, const char *fmt, ...) {
    struct sim_world *w = e->w;
    if (kind == SIM_K_NODE && w->nodes[obj].reg_seq == SIM_NEVER)
        return; /* no Node object yet: nothing to attach the event to */
    XGROW(w->events, w->nevents, w->capevents, 64);
    int i = w->nevents++;
    struct sim_kevent *ev = &w->events[i];
    memset(ev, 0, sizeof *ev);
    const char *objname = kind == SIM_K_POD   ? w->pods[obj].name
                          : kind == SIM_K_JOB ? w->jobs[obj].name
                                              : w->nodes[obj].name;
    snprintf(ev->name, sizeof ev->name, "%s.%016llx", objname,
             (unsigned long long)plan_rng_next(&e->rng));
    plan_rng_uuid(&e->rng, ev->uid);
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
    ev->seq = sim_eng_emit(e, SIM_K_EVENT, i, SIM_ADDED);
    sim_eng_push(e, e->now + e->sc->event_ttl, EV_EVENT_EXPIRE, i, 0, 0);
}

/* --- set-up and the main loop --- */

/* Poisson arrivals and reclaims draw from their own stream per workload / reclaim
 * (not from e->rng): how many are planned depends on the horizon, and the main
 * stream must not, so that names and UIDs are the same for every --until
 * (src/sim/README.md, "Determinism"). */
static void stream_for(const struct sim_eng *e, uint64_t salt, int i, struct plan_rng *out) {
    plan_rng_seed(out, e->w->seed ^ (salt + 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1)));
}

static void plan_arrivals(struct sim_eng *e, int64_t horizon) {
    const struct sim_scenario *sc = e->sc;
    struct plan_rng rs;
    for (int i = 0; i < sc->nworkloads; i++) {
        const struct sim_workload *wl = &sc->workloads[i];
        int64_t t0 = sc->start + wl->start_offset;
        if (wl->count > 0) {
            for (int k = 0; k < wl->count; k++) {
                int64_t t = t0 + (int64_t)k * wl->interval;
                if (t > horizon)
                    break;
                sim_eng_push(e, t, EV_ARRIVE, i, 0, 0);
            }
        } else {
            int64_t end = sc->start + wl->end_offset;
            stream_for(e, 0xa77e1fa1ULL, i, &rs);
            for (int64_t t = plan_poisson_next(&rs, t0, wl->mean_gap); t <= end && t <= horizon;
                 t = plan_poisson_next(&rs, t, wl->mean_gap))
                sim_eng_push(e, t, EV_ARRIVE, i, 0, 0);
        }
    }
    for (int i = 0; i < sc->npools; i++)
        for (int k = 0; k < sc->pools[i].nnotready; k++)
            if (sc->pools[i].notready[k].at <= horizon)
                sim_eng_push(e, sc->pools[i].notready[k].at, EV_SPELL, i, k, 0);
    for (int i = 0; i < sc->nreclaims; i++) {
        const struct sim_reclaim_spec *r = &sc->reclaims[i];
        if (r->at) {
            sim_eng_push(e, r->at, EV_RECLAIM, r->pool, 0, 0);
        } else {
            stream_for(e, 0x7ec1a13ULL, i, &rs);
            for (int64_t t = plan_poisson_next(&rs, sc->start, r->mean_interval); t <= horizon;
                 t = plan_poisson_next(&rs, t, r->mean_interval))
                sim_eng_push(e, t, EV_RECLAIM, r->pool, 0, 0);
        }
    }
}

static void dispatch(struct sim_eng *e, const struct sim_ev *x) {
    switch (x->type) {
    case EV_ARRIVE:
        sim_eng_on_arrive(e, x->a);
        break;
    case EV_POD_CREATE:
        sim_eng_pod_create(e, x->a);
        break;
    case EV_SCHEDULE:
        sim_eng_on_schedule(e);
        break;
    case EV_CA:
        sim_eng_on_autoscale(e);
        break;
    case EV_NODE_REGISTER:
        sim_eng_on_node_register(e, x->a);
        break;
    case EV_NODE_READY:
        sim_eng_on_node_ready(e, x->a);
        break;
    case EV_CSTART:
        sim_eng_on_cstart(e, x->a, x->tok);
        break;
    case EV_CEXIT:
        sim_eng_on_cexit(e, x->a, x->b, x->tok);
        break;
    case EV_RECLAIM:
        sim_eng_on_reclaim(e, x->a);
        break;
    case EV_EVICT:
        sim_eng_on_evict(e, x->a, x->b);
        break;
    case EV_SHUTDOWN:
        sim_eng_on_shutdown(e, x->a);
        break;
    case EV_NODE_DELETE:
        sim_eng_on_node_delete(e, x->a);
        break;
    case EV_POD_GC:
        sim_eng_on_pod_gc(e, x->a);
        break;
    case EV_POD_DELETE:
        sim_eng_on_pod_delete(e, x->a);
        break;
    case EV_DEADLINE:
        if (e->w->jobs[x->a].done_t == SIM_NEVER)
            sim_eng_job_finish(e, x->a, true, "DeadlineExceeded");
        break;
    case EV_TTL:
        sim_eng_on_ttl(e, x->a);
        break;
    case EV_SCALE_DOWN:
        sim_eng_on_scale_down(e, x->a, x->tok);
        break;
    case EV_EVENT_EXPIRE:
        sim_eng_on_event_expire(e, x->a);
        break;
    case EV_POOL_RECREATE:
        sim_eng_on_pool_recreate(e, x->a, x->b);
        break;
    case EV_SPELL:
        sim_eng_on_spell(e, x->a, x->b);
        break;
    case EV_SPELL_END:
        sim_eng_on_spell_end(e, x->a, x->b);
        break;
    case EV_TAINT_EVICT:
        sim_eng_on_taint_evict(e, x->a, x->b);
        break;
    }
}

struct sim_world *sim_world_build(const struct sim_scenario *sc, uint64_t seed, int64_t horizon) {
    struct sim_world *w = xcalloc(1, sizeof *w);
    w->sc = sc;
    w->seed = seed;
    w->horizon = horizon;
    struct sim_eng e;
    memset(&e, 0, sizeof e);
    e.w = w;
    e.sc = sc;
    e.seq = SIM_SEQ_BASE;
    e.last_sched_t = e.last_ca_t = -1;
    plan_rng_seed(&e.rng, seed);
    if (sc->cluster_id)
        snprintf(w->cluster_id, sizeof w->cluster_id, "%s", sc->cluster_id);
    else
        plan_rng_uuid(&e.rng, w->cluster_id);
    /* the initial pools: their nodes become Ready exactly at the start */
    int64_t created = sc->start - sc->provisioning_seconds;
    e.now = created;
    for (int i = 0; i < sc->npools; i++) {
        int pool = sim_eng_pool_new(&e, i, 0, created - 60);
        for (int k = 0; k < sc->pools[i].count; k++)
            sim_eng_node_new(&e, pool, created);
    }
    plan_arrivals(&e, horizon);
    while (e.nheap > 0 && e.heap[0].t <= horizon) {
        struct sim_ev x = pop(&e);
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

/* The index of the first log entry whose time (by_seq: seq) is above v; the log
 * ascends in both. */
static int log_first_above(const struct sim_world *w, int64_t v, bool by_seq) {
    int lo = 0, hi = w->nlog;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if ((by_seq ? w->log[mid].seq : w->log[mid].t) <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t sim_world_seq_at(const struct sim_world *w, int64_t t) {
    int lo = log_first_above(w, t, false);
    return lo == 0 ? 0 : w->log[lo - 1].seq;
}

int sim_world_log_after(const struct sim_world *w, int64_t after) {
    return log_first_above(w, after, true);
}

void sim_node_private_ip(int idx, char out[32]) {
    snprintf(out, 32, "10.116.%d.%d", (idx / 250) % 250, idx % 250 + 2);
}
