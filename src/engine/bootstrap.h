/* bootstrap — how sure a cost per successful task is: a deterministic block
 * bootstrap over tasks (docs/cost-model.md "Uncertainty").
 *
 * Pure: no I/O, no clock, no globals; the same input, seed and number of
 * resamples give the same output on every machine (integer arithmetic only;
 * the generator is SplitMix64). Thread rule: any thread.
 *
 * The sample is one configuration's tasks in a window. Each item carries the
 * money the task is charged in the window (its share of the configuration's
 * cost, so that the items sum to the reported cost exactly: boot_spread), the
 * successful tasks it counts for (0, 1, or N for an N-completion Job), and a
 * block: tasks hit by the same reclaim share a block and are drawn together, so
 * one reclaim's damage moves as one unit; a task with block < 0 is a block of
 * its own. A resample draws as many blocks as the sample has, with
 * replacement; its statistic is Σ cost / Σ successes (µ$ per task, rounded half
 * away from zero). The interval is the percentile interval: the nearest-rank
 * 2.5th and 97.5th of the sorted statistics. A resample with no success has no
 * statistic and is left out (resamples_used says how many counted).
 *
 * Below min_successes successful tasks (the sample's own Σ successes) there is
 * no interval: `ok` is false and `reason` says why; never a made-up number. */
#ifndef SPOTLEDGER_BOOTSTRAP_H
#define SPOTLEDGER_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define BOOT_DEFAULT_RESAMPLES 2000
#define BOOT_DEFAULT_SEED 20261202u
#define BOOT_DEFAULT_MIN_SUCCESSES 5
#define BOOT_MAX_RESAMPLES 100000
#define BOOT_REASON_MAX 96

struct boot_item {
    int64_t cost;      /* µ$ charged to the task in the window (>= 0) */
    int64_t successes; /* successful tasks it counts for (>= 0) */
    int64_t alt_cost;  /* paired alternative (counterfactual) µ$, 0 none */
    int64_t alt_tasks; /* tasks the alternative priced (0 or successes) */
    int64_t block;     /* reclaim block id; < 0: its own block */
};

struct boot_params {
    uint64_t seed;         /* 0: BOOT_DEFAULT_SEED */
    int resamples;         /* 0: BOOT_DEFAULT_RESAMPLES; at most BOOT_MAX_RESAMPLES */
    int64_t min_successes; /* 0: BOOT_DEFAULT_MIN_SUCCESSES */
};

struct boot_interval {
    bool ok;        /* false: no interval, see reason */
    int64_t point;  /* the full sample's statistic (µ$), valid when ok */
    int64_t lo, hi; /* 95 % percentile interval (µ$), lo <= hi, valid when ok */
    int resamples_used;
    int64_t n;                    /* the sample's successful tasks */
    char reason[BOOT_REASON_MAX]; /* "" when ok */
};

/* The interval of Σ cost / Σ successes over items. ERR_INVAL on a negative
 * cost or success count or out-of-range params; ERR_NOMEM. A too-small sample
 * is not an error: *out says so. */
enum err boot_ratio(const struct boot_item *items, size_t n, const struct boot_params *p,
                    struct boot_interval *out);

/* The paired difference cost per task - alternative per task (Σ cost / Σ
 * successes - Σ alt_cost / Σ alt_tasks) over the same resamples: e.g. Spot's
 * measured cost per task minus the same tasks priced On-Demand. A resample with
 * no success or no priced task is left out. */
enum err boot_paired_diff(const struct boot_item *items, size_t n, const struct boot_params *p,
                          struct boot_interval *out);

/* The difference of two independent samples' ratios (a - b), e.g. Spot's
 * measured cost per task minus pure On-Demand's measured one: each resample
 * draws a's blocks, then b's, from one generator stream. Needs min_successes
 * in each sample. */
enum err boot_diff(const struct boot_item *a, size_t na, const struct boot_item *b, size_t nb,
                   const struct boot_params *p, struct boot_interval *out);

/* Verdict of a difference interval: -1 when hi < 0 (the first is cheaper), +1
 * when lo > 0 (dearer), 0 when the interval holds 0 (not distinguishable), or
 * when !ok. */
int boot_verdict(const struct boot_interval *d);

/* For a difference interval holding 0: about how many more successful tasks
 * (beyond d->n) would narrow it to exclude 0 if the point estimate held, with
 * the half-width shrinking as 1/sqrt(n): n' = ceil(n * (half / |point|)^2),
 * answer n' - n (>= 1). -1 when it cannot be said (no interval, or a point of
 * 0) or when the interval already excludes 0 (then 0). */
int64_t boot_more_needed(const struct boot_interval *d);

/* Splits total (>= 0) over n parts in proportion to weights (>= 0) by largest
 * remainder in O(n log n): the parts sum to total exactly; ties go to the lower
 * index; all weights 0: equal weights. ERR_INVAL on a negative value or n == 0
 * with total != 0; ERR_NOMEM. */
enum err boot_split(int64_t total, const int64_t *weights, size_t n, int64_t *parts);

/* boot_split written to items[i].cost. Splits total (>= 0) over n items in proportion to weights
 * (>= 0) by largest remainder, so the parts sum to total exactly (ties to the lower index), and
 * writes them to items[i].cost. All weights 0 → equal weights. ERR_INVAL on a
 * negative value. Used to charge a configuration's cost (allocated + idle) to
 * its tasks in proportion to their allocated cost. */
enum err boot_spread(int64_t total, const int64_t *weights, size_t n, struct boot_item *items);

#endif
