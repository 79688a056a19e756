/* metrics_cost — the cost figures of /metrics.
 *
 * Counters (all time, recomputed from the raw rows): tasks by configuration and
 * outcome, attempts, retries, interruptions, and a histogram of restore times.
 * They are summed over ISO weeks, since the cost engine's windows are additive
 * (each count lands in the window holding its moment); a week closed for more
 * than a day is computed once and kept (struct metrics_cache), so a scrape
 * costs the current week, not the whole history, and memory stays at one
 * week's rows. Gauges: cost per successful task over the last 7 days (measured
 * and counterfactual), and node_total_hourly_cost of the live nodes (OpenCost's
 * name, with capacity_type). Thread rule: any thread (the cache has its lock). */
#ifndef SPOTLEDGER_METRICS_COST_H
#define SPOTLEDGER_METRICS_COST_H

#include <pthread.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/cost.h"

struct request;

#define METRICS_RESTORE_BUCKETS 8

struct metrics_week {
    int64_t start; /* Monday 00:00 UTC */
    int64_t succeeded[COST_NCONFIG], failed[COST_NCONFIG];
    int64_t attempts[COST_NCONFIG], retries[COST_NCONFIG], interruptions[COST_NCONFIG];
    int64_t restore_bucket[COST_NCONFIG][METRICS_RESTORE_BUCKETS]; /* non-cumulative */
    int64_t restore_count[COST_NCONFIG], restore_sum[COST_NCONFIG];
};

struct metrics_cache {
    pthread_mutex_t lock;
    struct metrics_week *weeks; /* closed weeks, by start */
    size_t n_weeks, cap;
};

void metrics_cache_init(struct metrics_cache *c);
void metrics_cache_release(struct metrics_cache *c);

/* Appends the cost metric families to b. Errors leave what was written valid
 * (families already complete) and are logged. */
void metrics_cost_write(struct request *req, struct metrics_cache *cache, struct buf *b);

#endif
