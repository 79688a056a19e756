/* sim_world — the simulated cluster's complete history, computed once at start-up
 * by the discrete-event engine (sim_engine.c) and read-only afterwards.
 *
 * Invariants:
 *  - log[] is the ordered change log: seq strictly increasing (it is the
 *    Kubernetes resourceVersion), t non-decreasing. Every Kubernetes object
 *    change (ADDED / MODIFIED / DELETED of a Pod, Job, Node or Event) is one entry.
 *  - Every fact on an object is stored with the seq of the entry that made it
 *    visible (field *_seq; SIM_NEVER if it never happened), so the object "as of
 *    seq S" is obtained by ignoring facts with *_seq > S. Serving at simulated
 *    time `now` is then only a filter: S = the last seq with t <= now.
 *  - A deleted object's deletionTimestamp is its deletion time (deleted_t),
 *    shown from the moment deletion was requested (delreq_seq) until it is gone;
 *    with kube_deletion, a pod's is set once at the request, delreq_t + delgrace
 *    (the grace period), as Kubernetes does, whatever its removal time.
 *  - Times are Unix seconds of simulated time.
 * Thread rule: built on one thread; afterwards any number of threads may read. */
#ifndef SPOTLEDGER_SIM_WORLD_H
#define SPOTLEDGER_SIM_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim_scenario.h"

#define SIM_NEVER INT64_MAX
/* terminationGracePeriodSeconds of every simulated pod */
#define SIM_POD_GRACE 30

/* SIM_K_PDB: policy/v1 PodDisruptionBudgets, static objects from the scenario
 * (sim_k8s_pdb.c); no log entry ever changes one. */
enum sim_kind { SIM_K_POD, SIM_K_JOB, SIM_K_NODE, SIM_K_EVENT, SIM_K_PDB, SIM_K_COUNT };
enum sim_etype { SIM_ADDED, SIM_MODIFIED, SIM_DELETED };

struct sim_entry {
    int64_t seq;
    int64_t t;
    uint8_t kind;  /* enum sim_kind */
    uint8_t etype; /* enum sim_etype */
    int32_t idx;   /* index in the kind's array */
};

/* The seqs of one object's changes, ascending (its resourceVersion history). */
struct sim_seqs {
    int64_t *v;
    int n, cap;
};

struct sim_pool {
    int spec;       /* index into scenario pools */
    int generation; /* 0, then 1.. for pools recreated after a reclaim */
    char id[40];
    char name[48];
    int64_t created_t;
    int64_t cordon_t; /* reclaim first signal, or SIM_NEVER */
    int64_t gone_t;   /* last node deleted after a reclaim, or SIM_NEVER */
    /* engine state */
    int live; /* nodes created and not yet deleted */
    bool reclaimed;
};

enum sim_do_state { SIM_DO_PROVISIONING, SIM_DO_RUNNING, SIM_DO_DRAINING, SIM_DO_DELETING };

struct sim_spell {
    int64_t from, from_seq; /* Ready=Unknown from here */
    int64_t to, to_seq;     /* Ready=True again; SIM_NEVER: not (yet) */
};

struct sim_node {
    char name[64];
    char uid[37];
    char do_id[37]; /* DigitalOcean node id (doks.digitalocean.com/node-id) */
    char droplet_id[16];
    int pool;                         /* index into world pools */
    int64_t created_t;                /* droplet created (DO created_at) */
    int64_t reg_t, reg_seq;           /* Node object registered (NotReady) */
    int64_t ready_t, ready_seq;       /* Ready=True */
    int64_t cordon_t, cordon_seq;     /* spec.unschedulable */
    bool cordon_by_ca;                /* cordoned for scale-down, not a reclaim */
    int64_t notready_t, notready_seq; /* Ready=Unknown (shut down) */
    int64_t deleting_t;               /* DO status "deleting" from here */
    int64_t deleted_t, deleted_seq;
    /* NotReady spells from the scenario (pools[].notready), in order; to = SIM_NEVER
     * while the node is still unreachable. The shutdown above is not one of them. */
    struct sim_spell spells[SIM_MAX_SPELLS];
    int nspells;
    int gpus, cpu_m;
    struct sim_seqs seqs;
    /* engine state */
    int used_gpus, used_cpu_m, npods;
    int64_t empty_since;
};

enum sim_outcome {
    SIM_OUT_PENDING,     /* never started */
    SIM_OUT_RUNNING,     /* still running at the end of the simulation */
    SIM_OUT_SUCCEEDED,   /* exit 0 */
    SIM_OUT_FAILED,      /* application failure (exit 1) */
    SIM_OUT_INTERRUPTED, /* lost to a reclaim */
    SIM_OUT_KILLED,      /* stopped because its Job failed or hit activeDeadlineSeconds */
};

struct sim_pod {
    char name[96];
    char uid[37];
    int job, task, attempt; /* attempt: 1-based within the task */
    int node;               /* -1 until scheduled */
    int64_t created_t, created_seq;
    int64_t unsched_t, unsched_seq; /* PodScheduled=False (Unschedulable) */
    int64_t sched_t, sched_seq;
    int64_t start_t, start_seq;
    int64_t fin_t, fin_seq; /* container terminated */
    int exit_code;
    const char *fin_reason; /* static: Completed | Error */
    char *message;          /* termination message (task report), or NULL */
    int64_t disrupt_t, disrupt_seq;
    const char *disrupt_reason, *disrupt_msg; /* static */
    int64_t gcfail_t, gcfail_seq; /* phase Failed set by PodGC (container never terminated) */
    int64_t delreq_t, delreq_seq;
    int64_t delgrace; /* grace period of the deletion request (deletionGracePeriodSeconds) */
    int64_t deleted_t, deleted_seq;
    struct sim_seqs seqs;
    enum sim_outcome outcome;
    bool interrupted;
    int reclaim; /* index of the reclaim that interrupted it, -1 */
    bool failure_handled;
    int64_t counted_seq; /* counted in the Job's status.failed from this seq */
    /* engine state */
    int64_t token; /* invalidates stale container events */
    int64_t restore_s;
    int64_t planned_exit_t; /* natural container exit while running */
    /* the container exited while its node was unreachable: Kubernetes learns it (with
     * this finishedAt) when the node is Ready again, never if the node is deleted first */
    int64_t hidden_exit_t;
    int hidden_code;
    bool holds_node;
};

struct sim_job {
    char name[64];
    char uid[37];
    int workload;
    int first_task, ntasks;
    int64_t created_t, created_seq;
    int64_t done_t, done_seq; /* Complete or Failed condition */
    bool failed;
    const char *fail_reason; /* BackoffLimitExceeded | DeadlineExceeded */
    int64_t deleted_t, deleted_seq;
    struct sim_seqs seqs;
    int *pods; /* all attempts, creation order */
    int npods, cappods;
    int failures; /* counted towards backoffLimit */
    int done_tasks;
};

struct sim_task {
    int job;
    int index;     /* completion index (Indexed Jobs), else -1 */
    int64_t work;  /* seconds of useful work the task needs */
    int64_t saved; /* work saved by checkpoints so far */
    int attempts, interruptions;
    enum sim_outcome outcome; /* SUCCEEDED, FAILED (job failed), RUNNING/PENDING if unfinished */
    int64_t done_t;
    int64_t succeeded_seq; /* for completedIndexes */
    int current_pod;       /* -1 when none active */
    int last_reclaim;      /* reclaim that interrupted the previous attempt, -1 */
};

struct sim_kevent {
    char name[128];
    char uid[37];
    const char *ns;   /* static or scenario-owned */
    uint8_t obj_kind; /* SIM_K_POD / SIM_K_JOB / SIM_K_NODE */
    int obj;
    const char *reason, *type, *component; /* static */
    char *message;
    bool host; /* source.host = the node */
    int64_t t, seq;
    int64_t deleted_t, deleted_seq;
};

struct sim_reclaim {
    int pool;                 /* world pool */
    int64_t signal_t;         /* first signal: cordon */
    int64_t gone_t;           /* last node deleted */
    int64_t fallback_ready_t; /* first fallback-pool node Ready at or after the signal */
    int64_t resumed_t;        /* first interrupted task's next container start */
    int interrupted;          /* attempts interrupted */
};

struct sim_world {
    const struct sim_scenario *sc; /* borrowed */
    uint64_t seed;
    int64_t horizon; /* the simulation stops here (--until) */
    char cluster_id[40];
    struct sim_pool *pools;
    int npools, cappools;
    struct sim_node *nodes;
    int nnodes, capnodes;
    struct sim_pod *pods;
    int npods, cappods;
    struct sim_job *jobs;
    int njobs, capjobs;
    struct sim_task *tasks;
    int ntasks, captasks;
    struct sim_kevent *events;
    int nevents, capevents;
    struct sim_reclaim *reclaims;
    int nreclaims, capreclaims;
    struct sim_entry *log;
    int nlog, caplog;
    /* pods' deletionTimestamp as Kubernetes sets it (delreq_t + delgrace) instead of
     * the removal time (--kube-deletion-timestamps) */
    bool kube_deletion;
};

/* Runs the whole simulation from sc->start to `horizon` with `seed`.
 * Returns the world (caller frees with sim_world_free). Never fails on valid
 * scenarios (allocation failure aborts, docs/style.md 14). */
struct sim_world *sim_world_build(const struct sim_scenario *sc, uint64_t seed, int64_t horizon);
void sim_world_free(struct sim_world *w);

/* The last seq visible at simulated time t (0 when nothing is). */
int64_t sim_world_seq_at(const struct sim_world *w, int64_t t);
/* Index of the first log entry with seq > after (nlog if none). */
int sim_world_log_after(const struct sim_world *w, int64_t after);
/* An object's resourceVersion as of `asof`: its last change seq <= asof (0 if none). */
int64_t sim_seqs_at(const struct sim_seqs *s, int64_t asof);

/* Node idx's private IPv4 address ("10.116.x.y"), the same in DigitalOcean's
 * droplet and in Kubernetes' Node. */
void sim_node_private_ip(int idx, char out[32]);

/* Whether a fact with this seq is visible as of `asof`. */
static inline bool sim_vis(int64_t fact_seq, int64_t asof) {
    return fact_seq <= asof;
}

/* The start of the NotReady spell node n is in as of `asof` (a scenario spell or
 * its shutdown, the earlier when both), SIM_NEVER when it is not in one. */
static inline int64_t sim_node_lost_since(const struct sim_node *n, int64_t asof) {
    int64_t since = SIM_NEVER;
    for (int k = 0; k < n->nspells; k++)
        if (sim_vis(n->spells[k].from_seq, asof) && !sim_vis(n->spells[k].to_seq, asof))
            since = n->spells[k].from;
    if (sim_vis(n->notready_seq, asof) && n->notready_t < since)
        since = n->notready_t;
    return since;
}

/* When node n last became Ready as of `asof` (the end of its last spell, else its
 * first Ready). */
static inline int64_t sim_node_ready_since(const struct sim_node *n, int64_t asof) {
    int64_t t = n->ready_t;
    for (int k = 0; k < n->nspells; k++)
        if (sim_vis(n->spells[k].to_seq, asof))
            t = n->spells[k].to;
    return t;
}

#endif
