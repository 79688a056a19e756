/* metrics — GET /metrics in Prometheus text format (0.0.4).
 *
 * Names follow OpenCost where they overlap (node_total_hourly_cost with
 * capacity_type); spotledger's own are prefixed spotledger_. Counters are
 * all-time totals recomputed from the raw rows; cost gauges cover the last 7
 * days of the source clock. Readable with the read token, or open with
 * --metrics-open. Thread rule: any thread. */
#ifndef SPOTLEDGER_METRICS_H
#define SPOTLEDGER_METRICS_H

#include "base/request.h"

void metrics_handle(struct request *req, struct response *resp);

#endif
