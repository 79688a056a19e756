/* api_cost — running the cost engine (calc.h) for an API request, with errors
 * mapped to HTTP responses. Shared by the summary, nodes, pools, reclaims, tasks,
 * timeseries, metrics and export handlers. Thread rule: any thread. */
#ifndef SPOTLEDGER_API_COST_H
#define SPOTLEDGER_API_COST_H

#include <stdbool.h>

#include "api.h"
#include "calc.h"
#include "cost.h"

/* Loads rows for [load_from, load_to) and computes the window q->w with q's
 * filters. On failure fills resp (500/503) and returns false. */
bool api_calc_run(struct request *req, struct response *resp, const struct api_query *q,
                  int64_t load_from, int64_t load_to, bool want_attempts, struct calc *out);
/* The configuration filter as cost_query.configs bits (0 = all). */
unsigned api_config_bits(const struct api_query *q);

void api_summary(struct request *req, struct response *resp);
void api_nodes(struct request *req, struct response *resp);
void api_pools(struct request *req, struct response *resp);
void api_reclaims(struct request *req, struct response *resp);

#endif
