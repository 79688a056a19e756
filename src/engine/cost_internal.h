/* cost_internal — state shared by the cost_*.c files only (not a contract).
 * cost_compute (cost.c) owns a struct cost_ctx for the length of one call. */
#ifndef SPOTLEDGER_COST_INTERNAL_H
#define SPOTLEDGER_COST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/cost.h"
#include "engine/cost_partial.h"

/* Groups: configuration c inside the filters = c, outside = COST_NCONFIG + c. */
#define COST_NGROUP (2 * COST_NCONFIG)
enum { COST_KIND_USEFUL = 0, COST_KIND_RESTORE, COST_KIND_WASTED, COST_KIND_RUNNING };
#define COST_NKIND 4
#define COST_NCLASS (COST_NGROUP * COST_NKIND)

struct cost_node_rt {
    int64_t s, e;      /* billed life [s, e): 60 s minimum applied, open end at now; s 0 unknown */
    int64_t end;       /* real deletion, 0 alive */
    int64_t not_ready; /* first NodeNotReady */
    int64_t rate;      /* µ$/h */
    int64_t gpu, cpu;
    int64_t d;    /* share denominator: gpu (or 1) x cpu (or 1) */
    int32_t pool; /* pool row; n_pools = unknown pool */
};

struct cost_pool_rt {
    int64_t nodes;
    int64_t min_start, min_end, max_end; /* node billable start, deletions */
    bool all_ended;
    int32_t reclaim;             /* index into ctx cand, -1 none */
    int64_t od_rate;             /* On-Demand µ$/h for the counterfactual; 0 unknown */
    int64_t galloc[COST_NGROUP]; /* allocated cost per group */
    int64_t ckpt_sum, ckpt_n;    /* reported checkpoint_seconds */
    int32_t od_lo, od_hi;        /* counterfactual OD size: its rows in prices */
};

/* One winner of a successful spot/fallback task in W, priced after the task pass. */
struct cost_cf_sample {
    int32_t task;  /* the task row; -1 composed from stored days */
    int32_t pool;  /* the winner's node's pool row */
    int32_t group; /* configuration group */
    int64_t at;    /* when it ran: container start, else held start */
    int64_t work;  /* work seconds (a sum when n > 1) */
    int64_t gpus;  /* GPUs requested */
    int64_t wg;    /* work x gpus (a sum when n > 1): what is priced */
    int64_t n;     /* winners this sample stands for (1; more when composed) */
};

struct cost_group_acc {
    bool partial; /* a task of the group is cut in two by W */
    struct cost_counts n;
    int64_t kind_cost[COST_NKIND];
    int64_t idle;
};

struct cost_reclaim_rt {
    struct cost_reclaim rc;
    bool confirmed;
    int32_t last_task;
};

/* What cost_compute_detail also hands back (the completion basis splits these
 * over tasks, cost_basis.c); arrays sized by the caller. */
struct cost_detail {
    int64_t *node_class; /* [n_nodes][COST_NCLASS]: each node's allocated, per class */
    int64_t *pool_idle;  /* [n_pools + 1][COST_NGROUP]: each pool's idle, per group */
    bool *pool_by_alloc; /* [n_pools + 1]: the idle split by allocated cost (else held s) */
};

struct cost_ctx;
/* A step run right after the task pass (cost_partial.c): it reads the pass's
 * additive state (capture) or adds stored state to it (compose). */
struct cost_hook {
    enum err (*after_pass)(struct cost_ctx *x, void *arg);
    void *arg;
    /* reclaim evidence of every interrupted attempt on a spot pool, whether or
     * not its pool is a candidate in this window (cost_reclaim_evidence) */
    enum err (*evidence)(struct cost_ctx *x, int32_t pool, const struct cost_attempt *a,
                         int64_t lost, int64_t resumed, int32_t task, void *arg);
};

struct cost_ctx {
    struct cost_detail *detail;   /* NULL: not wanted */
    const struct cost_hook *hook; /* NULL: a plain cost_compute */
    enum err hook_rc;             /* first error of hook->evidence */
    int64_t open_in_w;            /* attempts held in W with no known end */
    struct buf running;           /* with a hook: the tasks counted running (int32 index) */
    /* successful spot/fallback tasks counted by the counterfactual, per group */
    int64_t cf_tasks[COST_NGROUP];
    const struct cost_input *in;
    const struct cost_query *q;
    struct cost_result *r;
    size_t np; /* n_pools + 1 */
    struct cost_node_rt *nrt;
    struct cost_pool_rt *prt;
    int64_t *w;         /* [node][class] share-seconds x d */
    struct buf cf;      /* counterfactual samples (struct cost_cf_sample) */
    int64_t *pool_secs; /* [pool][group] attempt seconds */
    uint8_t *tgroup;    /* [task] group */
    int32_t *toff;      /* [task + 1] offsets into ord */
    int32_t *ord;       /* attempts grouped by task */
    void *scratch;      /* per-task work space of the largest task (task_pass) */
    struct cost_group_acc gacc[COST_NGROUP];
    struct buf samples[COST_NGROUP]; /* restore samples (int64) */
    int64_t cf_reported[COST_NGROUP], cf_runtime[COST_NGROUP];
    int64_t useful_parts[COST_NGROUP];
    struct cost_reclaim_rt *cand; /* [pool] candidates */
};

/* cost_compute with a hook after the task pass (cost_partial.c); hook NULL is
 * cost_compute itself. */
enum err cost_compute_hooked(const struct cost_input *in, const struct cost_query *q,
                             const struct cost_hook *hook, struct cost_result **out);
/* cost_compute, also filling *detail (NULL: as cost_compute); detail's arrays
 * zeroed by the caller. */
enum err cost_compute_detail(const struct cost_input *in, const struct cost_query *q,
                             struct cost_result **out, struct cost_detail *detail);
/* The task is inside the query's filters (configurations, experiment, namespace). */
bool cost_task_selected(const struct cost_query *q, const struct cost_task *t);

/* Reason Evicted / NodeLost / Shutdown / NodeShutdown / Terminated (r not NULL). */
bool cost_interrupt_reason(const char *r);

/* --- small pure helpers of the cost_*.c files (inline: they sit in hot loops) --- */

static inline int64_t cost_max64(int64_t a, int64_t b) {
    return a > b ? a : b;
}
static inline int64_t cost_min64(int64_t a, int64_t b) {
    return a < b ? a : b;
}
static inline int64_t cost_min_nz(int64_t a, int64_t b) {
    if (a == 0)
        return b;
    if (b == 0)
        return a;
    return a < b ? a : b;
}
static inline bool cost_in_window(const struct cost_query *q, int64_t t) {
    return t != 0 && t >= q->from && t < q->to;
}

static inline bool cost_add_ok(int64_t *acc, int64_t v) {
    return !__builtin_add_overflow(*acc, v, acc);
}

/* Share of the node (docs/cost-model.md "Share"): on a GPU node the GPU request
 * (a pod asking no GPU has share 0); on a node without GPUs the CPU request; a
 * node with neither allocatable known is the pod's whole; at most 1. */
static inline void cost_share_of(const struct cost_node_rt *n, const struct cost_attempt *a,
                                 int64_t *num, int64_t *den) {
    if (n->gpu > 0) {
        *num = cost_min64(a->gpu_request, n->gpu);
        *den = n->gpu;
    } else if (n->cpu > 0) {
        *num = cost_min64(a->cpu_request_milli, n->cpu);
        *den = n->cpu;
    } else {
        *num = 1; /* nothing allocatable known: the whole node */
        *den = 1;
    }
}

/* cost_attempt_interrupted on the node's runtime row (no cold input access). */
static inline bool cost_interrupted_rt(const struct cost_attempt *a,
                                       const struct cost_node_rt *rt) {
    if (a->phase == COST_PHASE_SUCCEEDED)
        return false;
    int64_t own_end = cost_min_nz(cost_min_nz(a->finished_at, a->deleted_at), a->terminal_at);
    if (rt && rt->end && (own_end == 0 || own_end >= rt->end))
        return true;
    if (own_end == 0 && a->phase != COST_PHASE_FAILED)
        return false;
    return a->disruption_at != 0 || (a->reason && cost_interrupt_reason(a->reason));
}

/* Order of a task's attempts: pod creation (else scheduling, else start). */
static inline int64_t cost_attempt_order(const struct cost_attempt *a) {
    return a->created_at ? a->created_at : a->scheduled_at ? a->scheduled_at : a->started_at;
}

/* Start of the held interval: PodScheduled; a pod with a node but no known
 * PodScheduled time, its container start (else creation); a pod never
 * scheduled holds nothing (0). */
static inline int64_t cost_held_start(const struct cost_attempt *a) {
    if (a->scheduled_at)
        return a->scheduled_at;
    if (a->node < 0)
        return 0;
    return a->started_at ? a->started_at : a->created_at;
}

/* cost_task.c: step 3/4, the task pass over x->toff/x->ord (cost.c). ERR_TOOBIG
 * on an overflow of the share-seconds, ERR_NOMEM. */
enum err cost_task_pass(struct cost_ctx *x);
/* Bytes of x->scratch the task pass needs per attempt of the largest task. */
size_t cost_task_scratch_bytes(void);

/* The list price (µ$/h) of size in force at `at`: the last row of the sorted
 * history observed at or before it; none: the first row after it when or_first,
 * else 0. 0 also when the size has no row or a row's price is not positive. */
int64_t cost_price_in_force(const struct cost_input *in, const char *size, int64_t at,
                            bool or_first);

/* cost_reclaim.c */
enum err cost_reclaim_candidates(struct cost_ctx *x);
/* An attempt's NodeNotReady as reclaim evidence: only when its node's NotReady
 * spells are unknown (else the node's own spell decides); 0 none. */
int64_t cost_reclaim_pod_not_ready(const struct cost_input *in, const struct cost_attempt *a);
void cost_reclaim_evidence(struct cost_ctx *x, int32_t pool, const struct cost_attempt *a,
                           int64_t lost, int64_t resumed, int32_t task);
void cost_resolve_od_rates(struct cost_ctx *x);
/* Prices the counterfactual samples (after the task pass): configs[].
 * counterfactual_cost/_tasks and result.counterfactual's cost, priced, work. */
enum err cost_counterfactual(struct cost_ctx *x);
enum err cost_reclaim_finish(struct cost_ctx *x);
enum err cost_advice_build(struct cost_ctx *x);

#endif
