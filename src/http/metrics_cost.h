/* metrics_cost — the cost figures of /metrics, one series per cluster x
 * configuration (label `cluster`, docs/fleet.md): each cluster's figures are
 * computed as cluster=NAME would. The clusters: those the service watches and
 * those the database holds rows of, at most 64 (a bounded label).
 *
 * Counters (all time, recomputed from the raw rows): tasks by configuration and
 * outcome, attempts, retries, interruptions, and a histogram of restore times.
 * They are summed over ISO weeks, since the cost engine's windows are additive
 * (each count lands in the window holding its moment); a week closed for more
 * than a day is computed once per cluster and kept (struct metrics_cache), so a scrape
 * costs the current week, not the whole history, and memory stays at one
 * week's rows. Gauges: cost per successful task over the last 7 days (measured
 * and counterfactual), and node_total_hourly_cost of the live nodes (OpenCost's
 * name, with capacity_type), the reclaims of the last 7 days and their longest
 * replacement delay. The cache is query/metrics_cache.h.
 * Thread rule: any thread (the cache has its lock). */
#ifndef SPOTLEDGER_METRICS_COST_H
#define SPOTLEDGER_METRICS_COST_H

#include "base/buf.h"
#include "query/metrics_cache.h"

struct request;

/* Appends the cost metric families to b. Errors leave what was written valid
 * (families already complete) and are logged. */
void metrics_cost_write(struct request *req, struct metrics_cache *cache, struct buf *b);

#endif
