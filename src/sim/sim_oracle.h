/* sim_oracle — an independent, deliberately naive truth for the cost model
 * (docs/cost-model.md, docs/oracle.md): it reads a plain record of what really
 * happened (struct orc_timeline, filled by spotsim from its own simulation, or by
 * a test) and computes every figure of the summary by walking the timeline one
 * second at a time. It shares no code with src/engine, src/store or src/query:
 * only base/ helpers (time, JSON writing). Slow and obvious on purpose; it is the
 * thing the engine is checked against, so it must be easy to check by reading.
 *
 * Conventions (docs/oracle.md lists every decision with its source):
 *  - times are Unix seconds; ORC_NEVER = the event did not happen (by `now`);
 *  - money is micro-dollars; a node's per-second rate is price_hourly / 3600,
 *    kept exact (sums of numerators) and rounded half away from zero once per
 *    node and window, then split over (configuration x kind) by largest remainder;
 *  - a pod's held interval is [scheduled, real end) where real end = earliest of
 *    container finishedAt (when Kubernetes was told it), pod removal from the API,
 *    node deletion; the deletion request (deletionTimestamp) is never an end.
 * Thread rule: any thread; pure (no I/O, no clock, no globals). */
#ifndef SPOTLEDGER_SIM_ORACLE_H
#define SPOTLEDGER_SIM_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define ORC_NEVER INT64_MAX
#define ORC_MAX_SPELLS 8
#define ORC_NCONFIG 3 /* spot, fallback, on-demand */

enum orc_config { ORC_SPOT = 0, ORC_FALLBACK = 1, ORC_ON_DEMAND = 2 };

/* ---- the record of what happened ------------------------------------------ */

struct orc_price { /* a list price in force from `from` on (until the next one) */
    const char *size;
    int64_t from;
    int64_t price_hourly; /* µ$/h */
};

struct orc_size {
    const char *slug;
    int gpus; /* 0: a CPU size */
};

struct orc_pool {
    const char *id, *name, *size;
    const char *labels; /* DO pool labels, "k=v" joined by '\n', NULL none */
    int64_t created_t;
    int64_t signal_t; /* first reclaim signal (cordon), ORC_NEVER */
    int64_t gone_t;   /* vanished from DigitalOcean, ORC_NEVER */
};

struct orc_spell {
    int64_t from, to; /* NotReady (or Unknown) from..to; to = ORC_NEVER: until deleted */
};

struct orc_node {
    const char *name;
    int pool;           /* index into pools */
    const char *labels; /* Kubernetes Node labels, "k=v\n...", NULL none */
    int gpus;           /* allocatable GPUs */
    int cpu_m;          /* allocatable CPU, millicores */
    int64_t created_t;  /* droplet created: the price is locked here */
    int64_t ready_t;    /* first Ready, ORC_NEVER */
    int64_t deleted_t;  /* gone (Kubernetes or DigitalOcean, the earlier), ORC_NEVER */
    struct orc_spell spells[ORC_MAX_SPELLS]; /* NotReady spells after Ready, in order */
    int nspells;
};

struct orc_job {
    const char *uid, *name;
    enum orc_config config;
    int completions;    /* N >= 1 */
    bool indexed;       /* one task per completion index */
    int64_t complete_t; /* Complete condition (all N tasks succeed here), ORC_NEVER */
    int64_t failed_t;   /* Failed condition (every unfinished task fails here), ORC_NEVER */
    /* indexed only, [completions]: when index i was completed, ORC_NEVER */
    const int64_t *index_done_t;
};

struct orc_pod {
    const char *uid;
    int job;     /* index into jobs */
    int index;   /* completion index (indexed Jobs), else -1 */
    int node;    /* -1: never scheduled */
    int gpu_req; /* nvidia.com/gpu requested */
    int cpu_m;   /* CPU requested, millicores */
    int64_t created_t, sched_t, start_t;
    int64_t fin_t;      /* container finishedAt as Kubernetes was told it, ORC_NEVER */
    int exit_code;      /* with fin_t */
    const char *reason; /* pod / container termination reason, NULL none */
    int64_t delreq_t;   /* deletion requested (informational: never an end) */
    int64_t removed_t;  /* gone from the API, ORC_NEVER */
    int64_t disrupt_t;  /* DisruptionTarget, ORC_NEVER */
    int64_t work_s, restore_s, checkpoint_s; /* task report, -1 absent */
};

struct orc_pair {
    const char *a, *b;
};

struct orc_timeline {
    const struct orc_price *prices;
    int nprices;
    const struct orc_size *sizes;
    int nsizes;
    const struct orc_pool *pools;
    int npools;
    const struct orc_node *nodes;
    int nnodes;
    const struct orc_job *jobs;
    int njobs;
    const struct orc_pod *pods;
    int npods;
    /* spotledger's settings that decide figures */
    const struct orc_pair *spot_labels; /* KEY=VALUE */
    int nspot_labels;
    const char *const *spot_pools; /* pool ids */
    int nspot_pools;
    const struct orc_pair *od_sizes; /* SPOT=OD */
    int nod_sizes;
};

/* ---- the figures ----------------------------------------------------------- */

struct orc_config_result {
    bool partial; /* W cuts one of its tasks in two (docs/cost-model.md "Cost bases") */
    int64_t tasks_succeeded, tasks_failed, attempts, retries, interruptions, duplicates;
    int64_t duplicate_seconds;
    int64_t cost, allocated, useful, restore, wasted, running, idle;
    int64_t cost_per_task; /* ORC_NEVER: no success */
    int64_t restore_samples, restore_total;
    int64_t restore_p50, restore_p95; /* nearest rank of the samples, ORC_NEVER: none */
    int64_t tasks_running;            /* not finished by now, held a node in W */
    int64_t cf_tasks, cf_cost;        /* its priced counterfactual winners (spot, fallback) */
    /* basis points, ORC_NEVER: not applicable. overhead = (wasted + restore + idle) /
     * useful; savings = (cf per task - cost per task) / cf per task (not on-demand) */
    int64_t overhead_bp, savings_bp;
};

struct orc_pool_result {
    bool spot;
    int64_t nodes, seconds, total, allocated, idle, unattributed;
};

struct orc_node_result {
    int64_t rate;    /* µ$/h locked at creation */
    int64_t seconds; /* billable seconds in W (cap applied, before the minimum) */
    int64_t total, allocated, idle;
};

struct orc_reclaim {
    int pool;
    int64_t signal_t, gone_t;
    int64_t replacement_ready_t; /* first non-spot GPU node Ready at/after the signal */
    int64_t resumed_t;           /* first interrupted task's next container start */
    int64_t replacement_delay;   /* ORC_NEVER unknown */
    int64_t return_to_work;      /* ORC_NEVER unknown */
    int64_t nodes;               /* the pool's nodes Ready by now, alive in its last hour */
    int64_t tasks_interrupted;   /* tasks with a pod of the pool lost at/after the signal */
    int64_t tasks_resumed;       /* ... whose next pod started by now */
    int64_t last_resumed_t;      /* the last such start, ORC_NEVER */
    int64_t signal_to_gone;      /* gone - signal, ORC_NEVER: no signal */
};

/* Kinds of allocated cost, in this order (the w[] index below). */
enum orc_kind { ORC_K_USEFUL, ORC_K_RESTORE, ORC_K_WASTED, ORC_K_RUNNING, ORC_NKIND };

/* A task unit: an Indexed Job's index (1 task) or a whole non-Indexed Job
 * (`ntasks` tasks). Its uid: the Job's, or "<job uid>/<index>". */
struct orc_group_result {
    int job, index, ntasks;
    int64_t success_t, fail_t; /* ORC_NEVER: not (by now) */
};

struct orc_pod_result {
    int group;                   /* index into groups; -1 created after now */
    bool held;                   /* held a node (scheduled by now) */
    int64_t hold_from, hold_end; /* held [from, end) (end now while held at now) */
    int64_t w[ORC_NKIND];        /* charged seconds in W x share numerator, per kind */
    int64_t held_s;              /* held seconds in W (the idle split's second tier) */
};

struct orc_result {
    int64_t from, to, now;
    int ngroups;
    struct orc_group_result *groups;
    struct orc_pod_result *pods; /* [npods] */
    int64_t *node_cls;           /* [nnodes][ORC_NCONFIG * ORC_NKIND] allocated, per class */
    int64_t *pool_cfg_idle;      /* [npools][ORC_NCONFIG] idle given to each configuration */
    /* [npools][ORC_NCONFIG] share-weighted charged seconds in W of each configuration's
     * pods, per node rounded once (the summary's node_seconds_by_pool) */
    int64_t *pool_cfg_secs;
    bool *pool_by_alloc; /* [npools] idle split by allocated (else held seconds) */
    struct orc_config_result cfg[ORC_NCONFIG];
    int64_t cf_tasks, cf_priced, cf_unpriced, cf_work_seconds, cf_cost, cf_per_task;
    int64_t cf_reported, cf_runtime; /* winners by reported work_seconds / by run time */
    int64_t attempts_unscheduled;    /* pods created in W never scheduled by now */
    int64_t excluded;                /* nodes - configurations - unattributed (0 here) */
    int64_t nodes_total, allocated_total, idle_total, unattributed_total;
    struct orc_pool_result *pools; /* [npools] */
    struct orc_node_result *nodes; /* [nnodes] */
    struct orc_reclaim *reclaims;
    int nreclaims;
};

/* Computes the figures of window [from, to) as known at `now` (events after now
 * must already be ORC_NEVER in the timeline). ERR_INVAL on an inconsistent
 * record (index out of range, from >= to). *out is filled; orc_result_release. */
enum err orc_compute(const struct orc_timeline *tl, int64_t from, int64_t to, int64_t now,
                     struct orc_result *out);
void orc_result_release(struct orc_result *r);

/* The completion basis (docs/cost-model.md "Cost bases"), per configuration:
 * for the tasks that succeeded in [from, to), the whole cost of all their pods,
 * on the grid of windows of W's length aligned on W (sim_oracle_basis.c). */
struct orc_completion {
    int64_t tasks, cost, allocated, useful, restore, wasted, running, idle;
    int64_t cost_per_task; /* ORC_NEVER: no success */
};
enum err orc_completion(const struct orc_timeline *tl, int64_t from, int64_t to, int64_t now,
                        struct orc_completion out[ORC_NCONFIG]);

/* Largest remainder, the oracle's one split: parts of `amount` proportional to
 * w[0..n) (their sum > 0), one µ$ at a time to the largest remainder, the first
 * on a tie. */
__extension__ typedef __int128 orc_i128;
void orc_split(int64_t amount, const orc_i128 *w, int n, int64_t *parts);

/* Whether pool p is Spot by the project's rule (slug "-spot", a --spot-label on
 * the pool or on one of its nodes, or --spot-pool). */
bool orc_pool_is_spot(const struct orc_timeline *tl, int p);

/* The figures as JSON (docs/oracle.md "Output"), keys named as in the REST API's
 * summary where the figure is the same. Appends one object to out. */
enum err orc_render_json(const struct orc_timeline *tl, const struct orc_result *r,
                         struct buf *out);

#endif
