/* cost — the cost model: what one successful task costs per configuration.
 *
 * Pure (docs/cost-model.md): no I/O, no clock, no globals, no SQL.
 * Input is plain arrays in memory (filled from SQLite by store, or by spotsim from
 * its own event log); output is integer micro-dollars and counts. Cross references
 * are array indices, never strings, so the hot loops never compare strings;
 * cost_index resolves string ids (pool id, node name, task uid) to indices once.
 * Thread rule: any thread; cost_compute keeps no state between calls.
 *
 * Invariants of every result (tested):
 *  - money is int64 micro-dollars, computed with money_muldiv / 128-bit integers,
 *    never double; ratios are integer basis points (1 % = 100 bp);
 *  - per node: allocated + idle == total, exactly (idle is the residual, >= 0);
 *  - per pool: idle == sum of the idle charged to the configuration groups + the
 *    pool's unattributed idle, exactly (largest-remainder split, cost_split);
 *  - sum of configuration costs + excluded_cost + unattributed_idle == nodes_total.
 *
 * The model, with every decision, is docs/cost-model.md (version 2); the node
 * billed amount is model/billing.h. Engineering notes:
 *  - Windows are additive: the billed seconds of adjacent windows sum to the
 *    node's billed seconds (up to 1 µ$ of rounding per window and node).
 *  - Open intervals (node alive, attempt running) end at `now`.
 *  - Per node, allocated cost is rounded once (Σ share-seconds × rate) and split
 *    over (configuration group × kind) by largest remainder: class totals are
 *    exact; no per-attempt rounding accumulates.
 *  - With an experiment/namespace/configuration filter, the idle split is
 *    computed over all tasks; the part belonging to filtered-out tasks is
 *    excluded_cost.
 *  - node_seconds_by_pool are share-weighted, rounded once per node.
 *  - Percentiles are nearest-rank over the window's samples; null with none.
 *  - Savings vs On-Demand compare cost per successful task with the
 *    counterfactual per task of the same configuration; break-even overhead =
 *    (useful cost at On-Demand rates - useful cost) / useful cost.
 *  - Reclaim (docs/cost-model.md "Spot pools and reclaims"): a spot pool with
 *    deleted_at, or whose nodes all ended within 10 minutes with at least one
 *    interrupted attempt; first signal = earliest DisruptionTarget / cordon /
 *    NotReady spell the node never left (after it was Ready) / caller signal
 *    within the hour before it was gone.
 *  - Checkpoint advice per spot size: M = exposure / reclaims in the window;
 *    δ = mean reported checkpoint_seconds; interval = isqrt(2·δ·M).
 *  - Rounding: round half away from zero (money_muldiv) at each single rounding
 *    point: node total, node allocated, per-task average, ratios. */
#ifndef SPOTLEDGER_COST_H
#define SPOTLEDGER_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* "No value" for int64 result fields that can be unknown (printed as null). */
#define COST_NULL INT64_MIN
/* Reclaim heuristics (see the decisions above). */
#define COST_RECLAIM_SPREAD 600
#define COST_RECLAIM_LOOKBACK 3600

enum cost_config { COST_SPOT = 0, COST_FALLBACK = 1, COST_ON_DEMAND = 2 };
#define COST_NCONFIG 3
enum cost_capacity { COST_CAP_ON_DEMAND = 0, COST_CAP_SPOT = 1 };
enum cost_outcome { COST_TASK_RUNNING = 0, COST_TASK_SUCCEEDED, COST_TASK_FAILED };
enum cost_phase {
    COST_PHASE_UNKNOWN = 0,
    COST_PHASE_PENDING,
    COST_PHASE_RUNNING,
    COST_PHASE_SUCCEEDED,
    COST_PHASE_FAILED,
};

/* Parsers for the schema's text columns; ERR_INVAL on anything else (NULL too).
 * config: "spot" "fallback" "on-demand"; capacity: "spot" "on-demand";
 * outcome: "running" "succeeded" "failed"; phase: Kubernetes pod phases
 * "Pending" "Running" "Succeeded" "Failed" "Unknown". */
enum err cost_config_parse(const char *s, enum cost_config *out);
enum err cost_capacity_parse(const char *s, enum cost_capacity *out);
enum err cost_outcome_parse(const char *s, enum cost_outcome *out);
enum err cost_phase_parse(const char *s, enum cost_phase *out);
/* Static names: "spot" "fallback" "on-demand"; NULL for an invalid value. */
const char *cost_config_name(enum cost_config c);
const char *cost_capacity_name(enum cost_capacity c);

/* ---- input ----------------------------------------------------------------
 * All strings are borrowed: they must outlive every cost_result computed from
 * them (results point at them). Times are Unix seconds, 0 = unknown; money is
 * µ$. Indices refer to the arrays of the same struct cost_input. */

struct cost_pool {    /* node_pools */
    const char *id;   /* DO pool uuid */
    const char *name; /* may be NULL */
    const char *size; /* size slug, e.g. "gpu-h100x1-80gb-spot" */
    enum cost_capacity capacity;
    int64_t price_hourly; /* µ$/h at first sighting; 0 unknown */
    int64_t deleted_at;   /* first poll no longer listing it; 0 alive */
    int64_t signal_at;    /* earliest reclaim signal the caller knows (reclaims.
                             first_signal_at, a node/pool Event); 0 none */
};

struct cost_node { /* nodes */
    const char *name;
    int32_t pool;         /* index into pools, -1 unknown */
    int64_t price_hourly; /* µ$/h recorded at first sighting; 0: the pool's price */
    int64_t created_at;
    int64_t ready_at; /* first Ready=True; 0: billable from created_at */
    int64_t k8s_deleted_at;
    int64_t do_deleted_at; /* deletion = earliest nonzero of these two */
    int64_t not_ready_at;  /* first NodeNotReady (reclaim signal) */
    int64_t cordoned_at;
    int64_t gpu_allocatable;       /* 0 none / unknown */
    int64_t cpu_allocatable_milli; /* 0 unknown */
    /* Every NotReady spell: n_spells pairs {start, end} (end 0: not Ready
     * again), in time order; NULL/0 when none is known. */
    const int64_t *spells;
    size_t n_spells;
};

struct cost_task { /* tasks */
    const char *uid;
    const char *ns;          /* namespace */
    const char *experiment;  /* NULL none */
    enum cost_config config; /* resolved by the caller (label or default) */
    enum cost_outcome outcome;
    int64_t completed_at; /* Complete/Failed condition time */
    int64_t completions;  /* non-Indexed Job's spec.completions N (N tasks); <= 1: one */
};

struct cost_attempt { /* attempts (one pod) */
    const char *uid;
    int32_t task; /* index into tasks (required) */
    int32_t node; /* index into nodes, -1 never scheduled / unknown */
    int64_t gpu_request;
    int64_t cpu_request_milli;
    int64_t created_at;
    int64_t scheduled_at;        /* PodScheduled */
    int64_t started_at;          /* first container start */
    int64_t finished_at;         /* last container finishedAt */
    int64_t deleted_at;          /* removal from the API (DELETED / relist absence), source time */
    int64_t delete_requested_at; /* deletionTimestamp - grace: a request, never an end */
    int64_t terminal_at;         /* first source time the pod was seen Succeeded/Failed */
    int64_t disruption_at;       /* DisruptionTarget condition time */
    int64_t not_ready_at;        /* pod NodeNotReady evidence (used when the node has no spells) */
    const char *reason;          /* pod/container termination reason, NULL none */
    enum cost_phase phase;
    int64_t work_seconds;       /* task report; -1 absent */
    int64_t restore_seconds;    /* -1 absent */
    int64_t checkpoint_seconds; /* -1 absent */
};

/* A size's list price from a given source time on (size_prices: each observed
 * change); sorted by (size, at). gpus: the size's GPU count (0 none/unknown). */
struct cost_price {
    const char *size;
    int64_t at;
    int64_t price_hourly; /* µ$/h */
    int64_t gpus;
};

struct cost_input {
    const struct cost_pool *pools;
    size_t n_pools;
    const struct cost_node *nodes;
    size_t n_nodes;
    const struct cost_task *tasks;
    size_t n_tasks;
    /* Any order is correct; ordered by task (SQL: ORDER BY task_uid, or grouped
     * as loaded) is fastest, the task pass then reads them sequentially. */
    const struct cost_attempt *attempts;
    size_t n_attempts;
    /* Price history (the counterfactual; the rate of a node without a price of
     * its own); NULL/0: every task is unpriced. */
    const struct cost_price *prices;
    size_t n_prices;
};

/* Counterfactual size mapping (--on-demand-size SPOT=OD, then every listed size
 * as the twin of "<slug>-spot"), with the OD size's latest price. The break-even
 * figure re-prices useful cost at the OD size's price in force at the window's
 * last second from cost_input.prices (this price only when the history has no
 * row for the size); the counterfactual takes the price in force when each
 * winner ran. */
struct cost_od_size {
    const char *spot_size;
    const char *od_size;
    int64_t od_price_hourly; /* µ$/h */
};

struct cost_query {
    int64_t from, to;       /* window [from, to); from < to */
    int64_t now;            /* end of open intervals (source time of the data) */
    unsigned configs;       /* bit (1u << enum cost_config); 0 = all */
    const char *experiment; /* NULL = any */
    const char *ns;         /* NULL = any */
    /* The On-Demand rate of a spot pool: an entry here for its size, else an
     * on-demand pool in the input whose size is the slug without "-spot", else
     * the size of the on-demand pool fallback tasks used most. May be NULL. */
    const struct cost_od_size *od_sizes;
    size_t n_od_sizes;
    /* Also fill cost_result.attempts (per-attempt detail, for task views). */
    bool want_attempts;
};

/* ---- output --------------------------------------------------------------- */

struct cost_restore {
    int64_t samples;
    int64_t total; /* seconds */
    int64_t p50;   /* COST_NULL without samples */
    int64_t p95;
};

/* Checkpoint advice (Young/Daly) for one spot size. */
struct cost_advice {
    const char *size;
    int64_t reclaims;                /* in the window */
    int64_t exposure_seconds;        /* union of the size's spot pool lifetimes in W */
    int64_t mtbr_seconds;            /* M = exposure / reclaims; COST_NULL if none */
    int64_t checkpoint_samples;      /* attempts reporting checkpoint_seconds */
    int64_t mean_checkpoint_seconds; /* δ (rounded); COST_NULL if none */
    int64_t interval_seconds;        /* isqrt(2 δ M); COST_NULL if M or δ unknown */
};

struct cost_config_result {
    enum cost_config config;
    bool selected;           /* in the query's configuration filter */
    int64_t tasks_succeeded; /* completed_at in W */
    int64_t tasks_failed;
    int64_t tasks_running; /* not finished, held a node in W */
    int64_t attempts;
    int64_t retries;
    int64_t interruptions;
    int64_t duplicates;
    int64_t duplicate_seconds; /* overlap of duplicates with earlier-scheduled attempts, in W */
    int64_t cost;              /* allocated + idle */
    int64_t allocated_cost;    /* useful + restore + wasted + running */
    int64_t useful_cost;
    int64_t restore_cost;
    int64_t wasted_cost;
    int64_t running_cost;
    int64_t idle_cost;
    int64_t cost_per_successful_task; /* COST_NULL with no success */
    struct cost_restore restore;
    int64_t *pool_seconds;        /* [n_pools + 1]: share-weighted node-seconds per pool
                                     (last = unknown pool) */
    int64_t useful_at_on_demand;  /* useful cost re-priced at On-Demand rates */
    int64_t counterfactual_tasks; /* successful tasks priced by the counterfactual */
    int64_t counterfactual_cost;
    int64_t savings_vs_on_demand_bp; /* COST_NULL when not applicable */
    int64_t break_even_overhead_bp;  /* COST_NULL when useful cost is 0 */
    int64_t measured_overhead_bp;    /* COST_NULL when useful cost is 0 */
    int32_t advice;                  /* index into advice (main spot size), -1 none */
    bool partial; /* W cuts one of the configuration's tasks in two (cost_result.partial) */
};

struct cost_counterfactual {
    int64_t tasks; /* successful selected spot/fallback tasks in W */
    int64_t tasks_priced;
    int64_t tasks_unpriced;      /* no On-Demand rate for their size */
    int64_t tasks_reported_work; /* work_seconds from the task report */
    int64_t tasks_run_time;      /* work_seconds = run time */
    int64_t work_seconds;        /* Σ work_seconds of priced tasks */
    int64_t cost;
    int64_t cost_per_successful_task; /* cost / tasks_priced; COST_NULL if none */
};

struct cost_pool_result {
    int32_t pool; /* input index; -1 for the "unknown pool" row */
    const char *id, *name, *size;
    enum cost_capacity capacity;
    int64_t od_price_hourly; /* On-Demand rate used for it; 0 unknown */
    int64_t nodes;           /* nodes with billable seconds in W */
    int64_t seconds;         /* billable node-seconds in W */
    int64_t total, allocated, idle;
    int64_t unattributed_idle; /* idle when no attempt used the pool, else 0 */
};

struct cost_node_result {
    int32_t node; /* input index */
    const char *name;
    int32_t pool;           /* input index, -1 unknown */
    int64_t rate_hourly;    /* µ$/h used */
    int64_t billable_start; /* Ready, else creation; 0 unknown */
    int64_t deleted_at;     /* earliest deletion; 0 alive */
    int64_t seconds;        /* billable seconds in W (minimum and cap applied) */
    int64_t total, allocated, idle;
};

struct cost_reclaim {
    int32_t pool;
    const char *pool_id, *pool_name, *size;
    int64_t nodes;             /* nodes of the pool */
    int64_t first_signal_at;   /* 0 unknown */
    int64_t gone_at;           /* pool deleted (or its last node) */
    int64_t fallback_ready_at; /* first on-demand node Ready at/after the signal */
    int64_t first_resumed_at;  /* first interrupted task running again */
    int64_t last_resumed_at;   /* last of them */
    int64_t tasks_interrupted;
    int64_t tasks_resumed;
    /* From first_signal_at (else gone_at; signal_to_gone then COST_NULL);
     * COST_NULL when an end is unknown. */
    int64_t signal_to_gone_seconds;
    int64_t replacement_delay_seconds;
    int64_t return_to_useful_work_seconds;
};

enum cost_attempt_outcome {
    COST_ATTEMPT_RUNNING = 0, /* still holds its node at now */
    COST_ATTEMPT_SUCCEEDED,   /* the attempt that completed its task */
    COST_ATTEMPT_FAILED,      /* ended without success, not interrupted */
    COST_ATTEMPT_INTERRUPTED, /* ended by a disruption (docs/cost-model.md "Interruptions") */
};

/* Per-attempt detail. Display figures: `allocated` is rounded per attempt
 * (half away from zero) and is not scaled down on an over-subscribed node, so
 * the sum over attempts can differ from the configuration totals (which are
 * rounded once per node) by a few micro-dollars. */
struct cost_attempt_result {
    int64_t start, end; /* held interval; start 0 unknown */
    enum cost_attempt_outcome outcome;
    int64_t lost_at;         /* interrupted: when it stopped being useful; else 0 */
    int64_t restore_seconds; /* the attempt that resumed its task after an interruption:
                                the restore time (gap + reported); else COST_NULL */
    int64_t allocated;       /* µ$ of its node-seconds in the window */
};

/* Per-task figures (with cost_query.want_attempts), for the uncertainty of the
 * cost per successful task (query/uncertainty.h). */
struct cost_task_result {
    bool selected;     /* in the query's filters (configuration, experiment, namespace) */
    int64_t succeeded; /* successes it counts for in W (N for an N-completion Job) */
    /* Counterfactual: the exact numerator of its priced winners' On-Demand cost
     * in units of 1 / cf_den µ$ (cost_result.cf_den), and how many winners were
     * priced; the configuration's counterfactual_cost is their sum over cf_den,
     * rounded once. */
    int64_t cf_num;
    int64_t cf_priced;
};

struct cost_result {
    int64_t from, to, now;
    struct cost_config_result configs[COST_NCONFIG]; /* indexed by enum cost_config */
    struct cost_counterfactual counterfactual;
    int64_t nodes_total; /* Σ node totals in W */
    int64_t allocated_total;
    int64_t idle_total;
    int64_t unattributed_idle; /* idle of pools no attempt used */
    int64_t excluded_cost;     /* cost of tasks the filters left out */
    size_t n_pools;            /* input pools + 1 ("unknown pool", last) */
    struct cost_pool_result *pools;
    size_t n_nodes; /* every input node, in input order */
    struct cost_node_result *nodes;
    size_t n_reclaims; /* gone in W, by gone_at */
    struct cost_reclaim *reclaims;
    size_t n_advice; /* one per spot size seen */
    struct cost_advice *advice;
    int64_t attempts_unscheduled; /* attempts in W with no node (no cost) */
    /* W cuts a task of the selected configurations in two (docs/cost-model.md
     * "Cost bases"): the task held a node in W, or finished in W, and held one
     * outside W too; or it held a node in W and had not finished by W's end. */
    bool partial;
    /* With cost_query.want_attempts: one row per input attempt, in input order;
     * otherwise NULL. */
    struct cost_attempt_result *attempts;
    /* With cost_query.want_attempts: one row per input task, in input order;
     * otherwise NULL. cf_den: the denominator of their cf_num (>= 1). */
    struct cost_task_result *tasks;
    int64_t cf_den;
};

/* Computes the window. On ERR_OK *out is a new result (cost_result_free); it
 * borrows the input's strings. Errors: ERR_INVAL (from >= to, an index out of
 * range, a negative request/allocatable/price), ERR_TOOBIG (an amount beyond
 * int64), ERR_NOMEM. *out is untouched on error. */
enum err cost_compute(const struct cost_input *in, const struct cost_query *q,
                      struct cost_result **out);
void cost_result_free(struct cost_result *r);

/* ---- the completion basis (docs/cost-model.md "Cost bases") -----------------
 * For the selected tasks that succeeded in W, the whole cost of all their
 * attempts: on the grid of windows of W's length aligned on W (..., [from - L,
 * from), W, [to, to + L), ...), each grid window V an attempt held a node in
 * gives the task, exactly as the accrual basis computes V, its part of every
 * node's allocated cost per (configuration group x kind) in V (split over the
 * group's tasks on that node by share-seconds, largest remainder, ties to the
 * smaller task uid) and its part of its group's idle of each pool in V (split
 * by those allocated parts in the pool, or by held seconds where the accrual
 * basis split that pool's idle by held seconds). Summed over every task and
 * task of V this is the accrual cost of V to the micro-dollar: the two bases
 * move the same money between windows. */
#define COST_BASIS_MAX_WINDOWS 400

struct cost_basis_config {
    int64_t tasks_succeeded; /* selected tasks of the configuration that succeeded in W */
    int64_t cost;            /* allocated + idle */
    int64_t allocated_cost, useful_cost, restore_cost, wasted_cost, running_cost, idle_cost;
    int64_t cost_per_successful_task; /* COST_NULL with no success */
    int64_t savings_vs_on_demand_bp;  /* against the counterfactual per task; COST_NULL */
    int64_t measured_overhead_bp;     /* (wasted + restore + idle) / useful; COST_NULL */
};

struct cost_completion {
    int64_t span_from, span_to; /* the grid windows read: [span_from, span_to); 0 none */
    int64_t windows;            /* how many */
    struct cost_basis_config configs[COST_NCONFIG];
};

/* The range [*from, *to) the input must cover (every task holding a node in it
 * loaded, with all its attempts) for cost_completion of q: the grid windows the
 * attempts of the tasks succeeding in W held nodes in, W included. ERR_TOOBIG
 * beyond COST_BASIS_MAX_WINDOWS windows; cost_compute's errors. */
enum err cost_completion_span(const struct cost_input *in, const struct cost_query *q,
                              int64_t *from, int64_t *to);
/* The completion basis of q. acc is q's accrual result (cost_compute of the same
 * input and query; its counterfactual prices the savings). ERR_TOOBIG beyond
 * COST_BASIS_MAX_WINDOWS windows, cost_compute's errors; *out untouched then. */
enum err cost_completion(const struct cost_input *in, const struct cost_query *q,
                         const struct cost_result *acc, struct cost_completion *out);

/* ---- building blocks (used by cost_compute, exported for callers/tests) ---- */

/* Splits amount (>= 0) into n parts proportional to weights (>= 0) by largest
 * remainder: parts sum to amount exactly; ties go to the lower index.
 * ERR_INVAL if a weight is negative, or all weights are 0 and amount != 0. */
enum err cost_split(int64_t amount, const int64_t *weights, size_t n, int64_t *parts);

/* The node's billable interval start (Ready else creation; 0 unknown) and end
 * (earliest deletion; 0 alive). */
int64_t cost_node_start(const struct cost_node *n);
int64_t cost_node_end(const struct cost_node *n);
/* Billable seconds of the node within [a, b): 60 s minimum, 672 h monthly cap,
 * open end clipped at now. */
int64_t cost_node_billable(const struct cost_node *n, int64_t now, int64_t a, int64_t b);
/* The node's rate (µ$/h): its own price recorded at first sight; else the
 * price of its pool's size in force at its creation (Ready when creation is
 * unknown) from in->prices (sorted by size, then time); else its pool's price;
 * 0 unknown (docs/cost-model.md "Node rate"). */
int64_t cost_node_rate(const struct cost_input *in, const struct cost_node *n);

/* The interrupted-attempt test of docs/cost-model.md (node may be NULL). */
bool cost_attempt_interrupted(const struct cost_attempt *a, const struct cost_node *node);

/* String id -> index, built once (sort-free open-addressing hash). Keys are
 * borrowed and must outlive the index; duplicate keys keep the first index. */
struct cost_index;
/* keys[i] for i < n, read with stride `stride` bytes from `base` (so it can index
 * a field of an array of structs: base = &arr[0].name, stride = sizeof arr[0]).
 * NULL keys are skipped. ERR_NOMEM. */
enum err cost_index_new(const void *base, size_t stride, size_t n, struct cost_index **out);
/* Index of key, -1 if absent (or key NULL). */
int32_t cost_index_find(const struct cost_index *ix, const char *key);
void cost_index_free(struct cost_index *ix);

#endif
