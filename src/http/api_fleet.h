/* api_fleet — aggregate=cluster: a route's answer once per cluster
 * (docs/fleet.md). Thread rule: the request's thread. */
#ifndef SPOTLEDGER_API_FLEET_H
#define SPOTLEDGER_API_FLEET_H

#include <stddef.h>

#include "http/api.h"
#include "base/request.h"
#include "store/store_read.h"

/* The clusters of the selection clusters (",a,b,"; NULL or "" every one) that
 * hold pools, nodes or tasks, sorted by name, at most API_FLEET_MAX_CLUSTERS
 * (malloc'd, *n set); NULL with resp filled (503) on failure. */
#define API_FLEET_MAX_CLUSTERS 64
char (*api_fleet_names(struct request *req, struct response *resp, const char *clusters,
                       size_t *n))[STORE_CLUSTER_NAME_MAX];

/* aggregate=cluster on a route (summary, timeseries, experiments; docs/fleet.md):
 * {"aggregate":"cluster","window":{..},"clusters":[{"cluster":NAME,KEY:BODY}, ...]},
 * BODY the answer h gives to req's parameters with cluster=NAME instead of
 * cluster= and aggregate (basis=, uncertainty= and the route's own parameters
 * pass through), for each cluster of q's selection that holds pools, nodes or
 * tasks, sorted by name. The first cluster whose answer is not a 200 makes that
 * answer the response. The fleet's figures are the sums. */
typedef void (*api_route_fn)(struct request *req, struct response *resp);
void api_route_by_cluster(struct request *req, struct response *resp, const struct api_query *q,
                          api_route_fn h, const char *key);

#endif
