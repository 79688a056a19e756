/* api_cost — running the cost engine (calc.h) for an API request, with errors
 * mapped to HTTP responses. Shared by the summary, nodes, pools, reclaims, tasks,
 * timeseries, metrics and export handlers. Thread rule: any thread. */
#ifndef SPOTLEDGER_API_COST_H
#define SPOTLEDGER_API_COST_H

#include <stdbool.h>

#include "http/api.h"
#include "query/calc.h"
#include "engine/cost.h"

/* The settings a computation for q uses: the service's, or with cluster= a
 * copy in *local that reads only those clusters (docs/fleet.md). */
const struct calc_settings *api_calc_settings(struct request *req, const struct api_query *q,
                                              struct calc_settings *local);

/* Loads rows for [load_from, load_to) and computes the window q->w with q's
 * filters. On failure fills resp (500/503) and returns false. */
bool api_calc_run(struct request *req, struct response *resp, const struct api_query *q,
                  int64_t load_from, int64_t load_to, bool want_attempts, struct calc *out);
/* The window q->w with q's filters, composed from its days' partial sums
 * (query/compose.h) when it can be, else as api_calc_run over the window. Only
 * out->res is meant to be read (out->data may hold no tasks). On failure fills
 * resp (500/503) and returns false. */
bool api_calc_window(struct request *req, struct response *resp, const struct api_query *q,
                     struct calc *out);
/* The response cache of closed windows (respcache.h) around a route body:
 * api_cache_lookup returns true (resp filled, 200) on a hit; otherwise it
 * prepares *slot, and api_cache_store keeps resp's body after the handler built
 * it (only for a closed window with a known version). `extra` is appended to the
 * key (route parameters beyond window and filters). */
struct api_cache_slot {
    bool closed;
    bool have_version;
    int64_t version[2];
    char key[512];
};
bool api_cache_lookup(struct request *req, struct response *resp, const struct api_query *q,
                      const char *extra, struct api_cache_slot *slot);
void api_cache_store(struct request *req, struct response *resp, const struct api_cache_slot *slot);

/* api_cache_lookup with the version taken over [vfrom, vto) instead of the
 * window (a figure that reads beyond its window). */
bool api_cache_lookup_span(struct request *req, struct response *resp, const struct api_query *q,
                           const char *extra, int64_t vfrom, int64_t vto,
                           struct api_cache_slot *slot);

/* basis=accrual|completion (absent: accrual) into *completion; on another value
 * fills resp with 400 bad_parameter and returns false. The route lists "basis"
 * among its api_query_parse extras. */
bool api_basis_parse(struct request *req, struct response *resp, bool *completion);
/* api_cache_lookup (extra as there) keyed by the basis too; on the completion basis the version
 * covers every grid window it may read (COST_BASIS_MAX_WINDOWS each side). */
bool api_cache_lookup_basis(struct request *req, struct response *resp, const struct api_query *q,
                            bool completion, const char *extra, struct api_cache_slot *slot);
/* The accrual result of q's window into *out and its completion basis into
 * *comp (calc_completion). On failure fills resp (400 when the tasks span more
 * than COST_BASIS_MAX_WINDOWS windows, 500/503 otherwise) and returns false. */
bool api_calc_completion(struct request *req, struct response *resp, const struct api_query *q,
                         struct calc *out, struct cost_completion *comp);

/* The configuration filter as cost_query.configs bits (0 = all). */
unsigned api_config_bits(const struct api_query *q);

void api_summary(struct request *req, struct response *resp);
void api_nodes(struct request *req, struct response *resp);
void api_pools(struct request *req, struct response *resp);
void api_reclaims(struct request *req, struct response *resp);

#endif
