/* api_fleet — the summary by cluster (GET /api/v1/summary?aggregate=cluster,
 * docs/fleet.md). Thread rule: the request's thread. */
#ifndef SPOTLEDGER_API_FLEET_H
#define SPOTLEDGER_API_FLEET_H

#include "http/api.h"
#include "base/request.h"

/* {"aggregate":"cluster","window":{..},"clusters":[{"cluster":NAME,
 * "summary":SUMMARY}, ...]}: one summary (the accrual figures of
 * /api/v1/summary, without reconciliation) per cluster that holds pools,
 * nodes or tasks, sorted by name, narrowed by q's cluster=; each computed as
 * cluster=NAME. The fleet's figures are the sums (docs/fleet.md). */
void api_summary_by_cluster(struct request *req, struct response *resp, const struct api_query *q);

/* aggregate=cluster on another route (docs/fleet.md): {"aggregate":"cluster",
 * "window":{..},"clusters":[{"cluster":NAME,KEY:BODY}, ...]}, BODY the answer
 * h gives to req's parameters with cluster=NAME instead of cluster= and
 * aggregate (basis=, uncertainty= and the route's own parameters pass through),
 * for each cluster of q's selection as api_summary_by_cluster. The first
 * cluster whose answer is not a 200 makes that answer the response. */
typedef void (*api_route_fn)(struct request *req, struct response *resp);
void api_route_by_cluster(struct request *req, struct response *resp, const struct api_query *q,
                          api_route_fn h, const char *key);

#endif
