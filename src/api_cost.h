/* api_cost — running the cost engine for an API request: load the window's rows
 * (store_cost), resolve On-Demand sizes (--on-demand-size, then the price list),
 * compute (cost_compute). Shared by the summary, nodes, pools, reclaims, tasks,
 * timeseries, metrics and export handlers. Thread rule: any thread. */
#ifndef SPOTLEDGER_API_COST_H
#define SPOTLEDGER_API_COST_H

#include <stdbool.h>

#include "api.h"
#include "cost.h"
#include "store_cost.h"

struct api_calc {
    struct store_cost_data *data;
    struct cost_result *res;
    struct cost_od_size *od; /* owned; strings borrowed from data and config */
    size_t n_od;
};

/* Loads rows for [load_from, load_to) and computes the window q->w with q's
 * filters. On failure fills resp (500/503) and returns false. */
bool api_calc_run(struct request *req, struct response *resp, const struct api_query *q,
                  int64_t load_from, int64_t load_to, bool want_attempts, struct api_calc *out);
/* Recomputes an already loaded api_calc for another window (timeseries buckets). */
bool api_calc_window(struct request *req, struct response *resp, const struct api_query *q,
                     int64_t from, int64_t to, struct api_calc *c);
void api_calc_release(struct api_calc *c);

/* The configuration filter as cost_query.configs bits (0 = all). */
unsigned api_config_bits(const struct api_query *q);

void api_summary(struct request *req, struct response *resp);
void api_nodes(struct request *req, struct response *resp);
void api_pools(struct request *req, struct response *resp);
void api_reclaims(struct request *req, struct response *resp);

#endif
