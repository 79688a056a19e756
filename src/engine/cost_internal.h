/* cost_internal — state shared by the cost_*.c files only (not a contract).
 * cost_compute (cost.c) owns a struct cost_ctx for the length of one call. */
#ifndef SPOTLEDGER_COST_INTERNAL_H
#define SPOTLEDGER_COST_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/cost.h"

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
    int32_t pool;  /* the winner's node's pool row */
    int32_t group; /* configuration group */
    int64_t at;    /* when it ran: container start, else held start */
    int64_t work;  /* work seconds */
    int64_t gpus;  /* GPUs requested */
};

struct cost_group_acc {
    int64_t succeeded, failed, running, attempts, retries, interruptions, duplicates, dup_secs;
    int64_t kind_cost[COST_NKIND];
    int64_t idle;
};

struct cost_reclaim_rt {
    struct cost_reclaim rc;
    bool confirmed;
    int32_t last_task;
};

struct cost_ctx {
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

/* Reason Evicted / NodeLost / Shutdown / NodeShutdown / Terminated (r not NULL). */
bool cost_interrupt_reason(const char *r);

/* cost_reclaim.c */
enum err cost_reclaim_candidates(struct cost_ctx *x);
void cost_reclaim_evidence(struct cost_ctx *x, int32_t pool, const struct cost_attempt *a,
                           int64_t lost, int64_t resumed, int32_t task);
void cost_resolve_od_rates(struct cost_ctx *x);
/* Prices the counterfactual samples (after the task pass): configs[].
 * counterfactual_cost/_tasks and result.counterfactual's cost, priced, work. */
enum err cost_counterfactual(struct cost_ctx *x);
enum err cost_reclaim_finish(struct cost_ctx *x);
enum err cost_advice_build(struct cost_ctx *x);

#endif
