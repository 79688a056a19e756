/* api_advice — GET /api/v1/advice: the setup advisor (advice.h) over what the
 * database holds, and its finding counts for /metrics.
 *
 * Input: store_advice rows for the window, the cost figures of the same window
 * (api_cost), the configuration snapshot (--ignore-advice, --spot-label,
 * --poll-interval, --default-configuration, --cluster-id), and spotledger's own
 * node and pod from the environment (NODE_NAME, POD_NAME: set them with the
 * downward API; unknown means the self-on-spot rule stays silent).
 * Thread rule: any thread (request's own read-only connection). */
#ifndef SPOTLEDGER_API_ADVICE_H
#define SPOTLEDGER_API_ADVICE_H

#include <stdint.h>

#include "engine/advice.h"
#include "http/api.h"
#include "base/err.h"

/* Findings per severity over the last 7 days of the source clock, into
 * counts[ADVICE_NSEVERITY] (written only on ERR_OK). ERR_BUSY when the
 * database is unavailable or busy, ERR_DB for any other failure (logged). */
enum err api_advice_counts(struct request *req, int64_t *counts);

#endif
