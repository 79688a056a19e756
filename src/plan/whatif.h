/* plan/whatif — the what-if planner: a seeded Monte Carlo over the scheduling
 * model spotsim plays (plan/task.h), answering what one successful task would
 * cost on a Spot pool, on Spot with On-Demand fallback and on pure On-Demand
 * under given reclaim rate, checkpointing, task lengths and prices
 * (docs/whatif.md).
 *
 * The model, per task: the task needs `work` seconds (drawn from the measured
 * lengths, or the fixed/uniform/exponential distribution). Each attempt is
 * billed its overhead (image pull), its restore, its work and its checkpoints
 * (plan_attempt_seconds). The Spot pool is reclaimed as a whole by a Poisson
 * process of rate reclaims_per_day while it runs; a reclaim cuts the running
 * attempt (the node stays billed `reclaim_tail` seconds more: notice, drain,
 * deletion) and keeps only the checkpointed work (plan_saved_work). Spot only:
 * the task waits `replacement_delay` unbilled (the pool comes back) and tries
 * again on Spot. With fallback: the task goes on to an On-Demand node, billed
 * from its Ready, never reclaimed, that stays `fallback_tail` seconds after the
 * task (scale-down). Pure On-Demand: one uninterrupted attempt.
 * A task that needs more than WHATIF_MAX_ATTEMPTS attempts fails (its money
 * counts, it counts for no success: a Job past its backoffLimit).
 * That is the per-task model (pool_nodes 0). With pool_nodes >= 1 the Spot and
 * fallback configurations play each replication on one pool of that many
 * nodes (whatif_pool.c, docs/whatif.md "The pool"): tasks arrive at their
 * offsets and queue for its slots, a reclaim cuts every running attempt at
 * once and takes the pool away for replacement_delay, and a fallback task
 * finding it away or full runs on the fallback pool.
 *
 * The Monte Carlo: `runs` replications of `tasks` tasks each; replication r
 * draws from its own stream (seed and r through splitmix64, plan/rng.h), and
 * each configuration replays the same draws (common random numbers), so
 * comparisons and scans are smooth. A replication's statistic is its Σ cost /
 * Σ successes in µ$ (rounded half away from zero); the point is the same over
 * all replications pooled; the interval is the nearest-rank 2.5th and 97.5th
 * of the replications' statistics (none below WHATIF_MIN_RUNS_INTERVAL runs).
 * Money is integer µ$; a task is charged gpus_task / gpus_node of its node's
 * hourly price, plus idle_ppb[configuration] / 10^9 of that for the idle node
 * time its pools carry (measured on a window: idle cost / allocated cost).
 *
 * Each configuration plays its own task mix (struct whatif_mix: its lengths,
 * its tasks per replication, its application failure rate, whether its tasks
 * checkpoint, and for fallback the share of tasks that start on the fallback
 * pool because the Spot pool is away or full); a mix field left 0 takes the
 * shared value. An application failure (chance failure_ppm per attempt, as
 * spotsim's failure_rate) ends the attempt at a uniform second of it, keeps the
 * checkpointed work and retries on the same capacity (the node stays: no tail).
 *
 * Bounded: runs x tasks <= WHATIF_MAX_WORK, every loop is bounded, and a call
 * stops with ERR_TOOBIG once it has simulated WHATIF_MAX_ATTEMPTS_TOTAL
 * attempts. Pure (no I/O, no clock, no globals): the same parameters give the
 * same bytes on every machine. Thread rule: any thread. */
#ifndef SPOTLEDGER_PLAN_WHATIF_H
#define SPOTLEDGER_PLAN_WHATIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "plan/task.h"

#define WHATIF_DEFAULT_SEED 20261202u
#define WHATIF_DEFAULT_RUNS 200
#define WHATIF_MAX_RUNS 10000
#define WHATIF_MAX_TASKS 1000000             /* tasks per replication */
#define WHATIF_MAX_WORK 20000000LL           /* runs x tasks */
#define WHATIF_MAX_ATTEMPTS 1000             /* per task */
#define WHATIF_MAX_ATTEMPTS_TOTAL 80000000LL /* per call, all configurations */
#define WHATIF_MAX_LENGTHS 1000000           /* measured task lengths */
#define WHATIF_MAX_POOL_NODES 100000
#define WHATIF_MAX_RECLAIMS_PER_DAY 1000.0
#define WHATIF_MAX_SECONDS (366LL * 86400) /* any duration parameter */
#define WHATIF_MAX_PRICE 1000000000LL      /* µ$/h: $1,000 per node-hour */
#define WHATIF_MIN_RUNS_INTERVAL 20
#define WHATIF_MAX_IDLE_PPB 100000000000LL /* idle 100 x the billed time */
#define WHATIF_PPB 1000000000LL
#define WHATIF_REASON_MAX 96

enum whatif_config { WHATIF_SPOT = 0, WHATIF_FALLBACK = 1, WHATIF_ON_DEMAND = 2, WHATIF_NCONFIG };

/* One configuration's own task mix (all 0: the shared values of whatif_params). */
struct whatif_mix {
    const int64_t *lengths; /* its measured work seconds (each > 0); NULL: the shared ones */
    size_t nlengths;
    int64_t tasks;        /* tasks per replication; 0: whatif_params.tasks */
    int64_t failure_ppm;  /* application failure chance per attempt, 0..1,000,000 */
    int64_t start_od_ppm; /* fallback: share of tasks starting on the fallback pool */
    bool no_checkpoints;  /* its tasks do not checkpoint (checkpoint_interval ignored) */
    /* its tasks' arrivals, s after the window's start (pool_nodes > 0 only):
     * paired with lengths when narrivals == nlengths, else drawn apart; none:
     * all at 0 (and start_od_ppm applies) */
    const int64_t *arrivals;
    size_t narrivals;
};

struct whatif_params {
    double reclaims_per_day;     /* >= 0: whole-pool reclaims per day of Spot running time */
    int64_t replacement_delay;   /* s from a reclaim to the work resuming (unbilled wait) */
    int64_t checkpoint_interval; /* s of work between checkpoints; 0: none */
    int64_t checkpoint_seconds;  /* s one checkpoint costs */
    int64_t restore_seconds;     /* s a restore costs at an attempt's start (after a save) */
    int64_t attempt_overhead;    /* s billed at each attempt's start before work (image pull) */
    int64_t reclaim_tail;        /* s a reclaimed node stays billed after the cut */
    int64_t fallback_tail;       /* s a fallback node stays billed after its task */
    struct plan_duration length; /* task work when nlengths == 0 */
    const int64_t *lengths;      /* measured work seconds (each > 0), drawn uniformly */
    size_t nlengths;
    const int64_t *arrivals; /* as whatif_mix.arrivals, for the shared lengths */
    size_t narrivals;
    /* the Spot pool's nodes: 0 every task on a pool of its own (independent
     * reclaims); >= 1 the window played on one pool of that many nodes
     * (whatif_pool.c: queueing, shared reclaims, the pool away while replaced) */
    int pool_nodes;
    int64_t spot_price, on_demand_price; /* µ$ per node-hour */
    int gpus_task, gpus_node;            /* a task holds gpus_task / gpus_node of a node */
    /* idle node time per configuration, in parts per 10^9 of the tasks' billed
     * time (0..WHATIF_MAX_IDLE_PPB): what the pools cost beyond the attempts
     * (nodes waiting for work), added pro rata to each figure */
    int64_t idle_ppb[WHATIF_NCONFIG];
    struct whatif_mix mix[WHATIF_NCONFIG];
    bool fallback; /* false: the fallback figure is not computed */
    uint64_t seed; /* 0: WHATIF_DEFAULT_SEED */
    int runs;      /* 0: WHATIF_DEFAULT_RUNS */
    int64_t tasks; /* tasks per replication, >= 1 */
};

struct whatif_estimate {
    bool ok;                     /* false: no figure (reason) */
    int64_t point;               /* µ$ per successful task */
    bool interval;               /* lo/hi valid */
    int64_t lo, hi;              /* 95 % percentile interval over replications (µ$) */
    int64_t successes, failures; /* over all replications */
    int64_t attempts;            /* over all replications */
    char reason[WHATIF_REASON_MAX];
};

struct whatif_result {
    struct whatif_estimate cfg[WHATIF_NCONFIG];
    int64_t attempts_simulated; /* all configurations */
};

/* Fills p with the defaults of every field (no reclaims, no checkpoints,
 * one-hour fixed tasks, prices 0, 1/1 GPU, fallback on, default seed and runs,
 * 100 tasks per replication). */
void whatif_defaults(struct whatif_params *p);

/* Checks every field; on a bad one returns ERR_INVAL and writes its name
 * ("reclaims_per_day", "task_hours" for the lengths, "samples" for runs, ...) to
 * *field. */
enum err whatif_check(const struct whatif_params *p, const char **field);

/* Runs the Monte Carlo. ERR_INVAL (whatif_check), ERR_TOOBIG past
 * WHATIF_MAX_ATTEMPTS_TOTAL, ERR_NOMEM. */
enum err whatif_run(const struct whatif_params *p, struct whatif_result *out);

/* The reclaim rate (per day) at which Spot with fallback costs as much per
 * successful task as pure On-Demand, by bisection over [0,
 * WHATIF_MAX_RECLAIMS_PER_DAY] on the seeded model (at most `iterations`
 * steps, each a whatif_run of p with that rate; p->runs may be lowered by the
 * caller to bound the time). *found false when fallback is dearer already
 * without reclaims or still cheaper at the top of the range. */
enum err whatif_break_even(const struct whatif_params *p, int iterations, double *rate,
                           bool *found);

/* Young/Daly's first-order best checkpoint interval sqrt(2 x C x MTBF) in
 * seconds (rounded), MTBF = 86400 / reclaims_per_day; 0 when there are no
 * reclaims or checkpoints are free (C = 0). */
int64_t whatif_young_daly(int64_t checkpoint_seconds, double reclaims_per_day);

/* The checkpoint interval with the lowest simulated Spot cost per successful
 * task among `n` candidates spread geometrically over [lo, hi] (lo >= 1,
 * n in [2, 64]); same seed for every candidate. *best_cost: its µ$ figure. */
enum err whatif_scan_interval(const struct whatif_params *p, int64_t lo, int64_t hi, int n,
                              int64_t *best, int64_t *best_cost);

#endif
