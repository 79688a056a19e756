/* api_whatif — GET /api/v1/whatif: the what-if planner (plan/whatif.h,
 * docs/whatif.md) over a window. Every planner parameter defaults to the value
 * measured on the window (query/whatif_inputs.h); a request may supply
 * reclaims_per_day, replacement_delay, checkpoint_interval, checkpoint_seconds,
 * restore_seconds, spot_price, on_demand_price, task_hours (a fixed length),
 * fallback=on|off and samples (replications, API_WHATIF_MIN_SAMPLES..
 * API_WHATIF_MAX_SAMPLES). A bad value is a 400 naming the parameter.
 *
 * Bounded time: samples x tasks per replication <= API_WHATIF_MAX_WORK (the
 * tasks per replication, the window's successful tasks, are lowered to fit and
 * the response says so); the break-even bisection and the checkpoint scan run
 * API_WHATIF_AUX_RUNS replications of at most API_WHATIF_AUX_TASKS tasks. A
 * model past the planner's attempt budget answers 422. Closed windows' answers
 * are cached under a key holding every parameter. Thread rule: any thread. */
#ifndef SPOTLEDGER_API_WHATIF_H
#define SPOTLEDGER_API_WHATIF_H

#include "base/request.h"

#define API_WHATIF_MIN_SAMPLES 20
#define API_WHATIF_MAX_SAMPLES 2000
#define API_WHATIF_MAX_WORK 2000000LL
#define API_WHATIF_AUX_RUNS 40
#define API_WHATIF_AUX_TASKS 500
#define API_WHATIF_BISECT_STEPS 20
#define API_WHATIF_SCAN_POINTS 13

void api_whatif(struct request *req, struct response *resp);

#endif
