/* metrics_cache — the per-ISO-week cost counters behind /metrics
 * (http/metrics_cost.h computes and writes them), and the cache of the weeks
 * closed for more than a day, kept by the app for the process's life so a
 * scrape costs the current week only.
 * Thread rule: any thread, under the cache's lock. */
#ifndef SPOTLEDGER_METRICS_CACHE_H
#define SPOTLEDGER_METRICS_CACHE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/cost.h"

#define METRICS_RESTORE_BUCKETS 8

#define METRICS_CLUSTER_MAX 64 /* a fleet name's bytes with its NUL (docs/fleet.md) */

struct metrics_week {
    char cluster[METRICS_CLUSTER_MAX]; /* the cluster the week's counters are of */
    int64_t start;                     /* Monday 00:00 UTC */
    int64_t succeeded[COST_NCONFIG], failed[COST_NCONFIG];
    int64_t attempts[COST_NCONFIG], retries[COST_NCONFIG], interruptions[COST_NCONFIG];
    int64_t restore_bucket[COST_NCONFIG][METRICS_RESTORE_BUCKETS]; /* non-cumulative */
    int64_t restore_count[COST_NCONFIG], restore_sum[COST_NCONFIG];
};

struct metrics_cache {
    pthread_mutex_t lock;
    struct metrics_week *weeks; /* closed weeks, by cluster and start */
    size_t n_weeks, cap;
};

void metrics_cache_init(struct metrics_cache *c);
void metrics_cache_release(struct metrics_cache *c);

#endif
