/* sim_engine — the parts of the discrete-event simulation (sim_world.h builds
 * the world; internal to src/sim/sim_engine*.c). sim_engine.c holds the event
 * heap, the change log and the main loop; sim_engine_pods.c the pools, nodes,
 * Jobs and pods the handlers create and release; sim_engine_run.c the handlers
 * of the life of a Job (arrival, scheduling, autoscaling, containers);
 * sim_engine_reclaim.c the handlers of reclaims and deletions; sim_engine_spell.c
 * NotReady spells (blips and partitions).
 *
 * Every handler runs at e->now, appends what it makes visible through
 * sim_eng_emit() and schedules what follows with sim_eng_push(). Thread rule:
 * one engine per thread, no globals. */
#ifndef SPOTSIM_SIM_ENGINE_H
#define SPOTSIM_SIM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/xalloc.h"
#include "plan/rng.h"
#include "plan/task.h"
#include "sim/sim_world.h"

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
    EV_SPELL,       /* a: pool spec, b: its notready[] index */
    EV_SPELL_END,   /* a: node, b: its spell */
    EV_TAINT_EVICT, /* a: node, b: its spell */
};

/* One future event of the heap, ordered by (t, ord); a, b, tok: its arguments. */
struct sim_ev {
    int64_t t;
    int64_t ord;
    int type;
    int a, b;
    int64_t tok;
};

/* The engine state of one sim_world_build. */
struct sim_eng {
    struct sim_world *w;
    const struct sim_scenario *sc;
    struct plan_rng rng;
    struct sim_ev *heap;
    int nheap, capheap;
    int64_t ord;
    int64_t seq;
    int64_t now;
    int *pending; /* pods waiting for a node, creation order */
    int npending, cappending;
    int64_t last_sched_t, last_ca_t;
    int job_counter[SIM_MAX_WORKLOADS];
};

/* --- sim_engine.c: the heap and the change log --- */

/* Schedules an event of type at t with its arguments (tok: a token a handler
 * compares to ignore a stale event). */
void sim_eng_push(struct sim_eng *e, int64_t t, int type, int a, int b, int64_t tok);
/* Appends one change of object idx of kind to the log; returns its seq. */
int64_t sim_eng_emit(struct sim_eng *e, enum sim_kind kind, int idx, enum sim_etype et);
/* The workload of a Job; the spec of a pool. */
const struct sim_workload *sim_eng_job_wl(struct sim_eng *e, int job);
const struct sim_pool_spec *sim_eng_pool_spec(struct sim_eng *e, int pool);
/* Records a Kubernetes Event about obj (message printf-style). */
void sim_eng_kevent(struct sim_eng *e, enum sim_kind kind, int obj, const char *reason,
                    const char *type, const char *component, bool host, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* --- sim_engine_pods.c: pools, nodes, Jobs and pods --- */

/* The live pool of spec (-1 none); its nodes not deleted. */
int sim_eng_pool_current(struct sim_eng *e, int spec);
int sim_eng_pool_active_nodes(struct sim_eng *e, int pool);
/* Creates a pool of spec (generation-th incarnation) at t; returns its index. */
int sim_eng_pool_new(struct sim_eng *e, int spec, int generation, int64_t t);
/* Creates a node of pool at created_t; returns its index. */
int sim_eng_node_new(struct sim_eng *e, int pool, int64_t created_t);
/* Schedules a scheduler pass at t (once per instant). */
void sim_eng_request_schedule(struct sim_eng *e, int64_t t);
/* The pod leaves its node (its resources return). */
void sim_eng_node_release(struct sim_eng *e, int pod);
/* Logs a change of the Job. */
void sim_eng_job_modified(struct sim_eng *e, int job);
/* Records the work the pod's task has saved (checkpoints) by t. */
void sim_eng_task_save(struct sim_eng *e, int pod, int64_t t);
/* Takes the pod off the pending list. */
void sim_eng_pending_remove(struct sim_eng *e, int pod);
/* Creates the next pod of task. */
void sim_eng_pod_create(struct sim_eng *e, int task);
/* Ends the Job (failed with reason, or complete) and kills its running pods. */
void sim_eng_job_finish(struct sim_eng *e, int job, bool failed, const char *reason);
/* The Job controller after a pod failed (counted against backoffLimit or not). */
void sim_eng_handle_failure(struct sim_eng *e, int pod, bool counted);

/* Whether node n is in an open NotReady spell (unreachable: no status from its
 * kubelet, which hears nothing either). */
bool sim_eng_node_unreachable(const struct sim_node *n);

/* --- sim_engine_run.c: the life of a Job --- */

void sim_eng_on_arrive(struct sim_eng *e, int wl_idx);
void sim_eng_on_schedule(struct sim_eng *e);
void sim_eng_on_autoscale(struct sim_eng *e);
void sim_eng_on_node_register(struct sim_eng *e, int node);
void sim_eng_on_node_ready(struct sim_eng *e, int node);
void sim_eng_on_cstart(struct sim_eng *e, int pod, int64_t tok);
void sim_eng_on_cexit(struct sim_eng *e, int pod, int code, int64_t tok);
/* The container exited at fin_at (<= now; earlier when its node was unreachable
 * then) and Kubernetes learns it now. */
void sim_eng_container_exit(struct sim_eng *e, int pod, int code, int64_t fin_at);

/* --- sim_engine_reclaim.c: reclaims and deletions --- */

void sim_eng_on_reclaim(struct sim_eng *e, int spec);
void sim_eng_on_evict(struct sim_eng *e, int pool, int r);
void sim_eng_on_shutdown(struct sim_eng *e, int node);
void sim_eng_on_node_delete(struct sim_eng *e, int node);
void sim_eng_on_pod_gc(struct sim_eng *e, int pod);
void sim_eng_on_pod_delete(struct sim_eng *e, int pod);
void sim_eng_on_ttl(struct sim_eng *e, int job);
void sim_eng_on_scale_down(struct sim_eng *e, int node, int64_t tok);
void sim_eng_on_event_expire(struct sim_eng *e, int ev);
void sim_eng_on_pool_recreate(struct sim_eng *e, int spec, int generation);
/* Marks an attempt interrupted (reclaim r, or -1: another cause). */
void sim_eng_interrupt(struct sim_eng *e, int pod, int r);

/* --- sim_engine_spell.c: NotReady spells (pools[].notready) --- */

void sim_eng_on_spell(struct sim_eng *e, int spec, int k);
void sim_eng_on_taint_evict(struct sim_eng *e, int node, int s);
void sim_eng_on_spell_end(struct sim_eng *e, int node, int s);

#endif
