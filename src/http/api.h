/* api — the REST routes under /api/v1/ (JSON), one handler per route, spread over
 * api_*.c by subject. This file holds what they share: query parsing (window and
 * filters, 400 naming the parameter) and the source clock.
 *
 * Handlers read only through req->db (this thread's read-only connection).
 * Thread rule: any thread. */
#ifndef SPOTLEDGER_API_H
#define SPOTLEDGER_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/request.h"
#include "query/window.h"

#define API_NAME_MAX 254

#define API_CLUSTERS_MAX 2200 /* 32 names of up to 63 bytes, with commas */

struct api_query {
    struct window w;
    const char *configuration; /* NULL: all; else spot|fallback|on-demand (loan from req) */
    const char *experiment;    /* NULL: all */
    const char *namespace_;    /* NULL: all */
    /* cluster=a[,b...] (docs/fleet.md): the clusters read, as ",a,b,"; "" all */
    char clusters[API_CLUSTERS_MAX];
};

/* The source clock: the latest Date a successful poll saw, else the wall clock
 * (req->now). Windows like 7d end here. */
int64_t api_now(struct request *req);

/* Parses window=/from=/to= and the filters. On a bad value fills resp with 400
 * {"error":{"code":"bad_parameter","message":"<param>: <why>"}} and returns false.
 * Unknown parameters are refused as well (a typo must not silently widen a query):
 * `extra` lists the route's own parameters (NULL-terminated), if any. */
bool api_query_parse(struct request *req, struct response *resp, struct api_query *q,
                     const char *const *extra);

/* The end of a JSON answer whose writer ended with rc: ERR_OK marks resp JSON with
 * 200 and returns true; else 500 "cannot write the response", false. */
bool api_json_done(struct response *resp, enum err rc);

/* Whether this thread's database connection is open; when not, fills resp with 503
 * {"error":{"code":"unavailable","message":"the database is not open"}}. */
bool api_db_open(struct request *req, struct response *resp);

/* A route that takes no parameter: on any, fills resp with 400 naming the first
 * ("unknown parameter '<key>'") and returns false. */
bool api_no_params(struct request *req, struct response *resp);

/* cluster=a[,b...] alone into out as ",a,b," ("" when absent); on a bad list
 * fills resp with 400 naming cluster and returns false (docs/fleet.md). */
bool api_clusters_parse(struct request *req, struct response *resp, char *out, size_t cap);
/* aggregate= (absent: false; cluster: true); any other value: 400 naming
 * aggregate, false. The route lists "aggregate" among its extras. */
bool api_aggregate_parse(struct request *req, struct response *resp, bool *by_cluster);

/* Writes {"from":..,"to":..} under key "window". */
struct jsonw;
void api_write_window(struct jsonw *w, const struct window *win);

/* Route handlers. */
void api_status(struct request *req, struct response *resp);
void api_poll_now(struct request *req, struct response *resp); /* POST, admin */
void api_tasks(struct request *req, struct response *resp);
void api_task(struct request *req, struct response *resp); /* /api/v1/tasks/{uid} */
void api_experiments(struct request *req, struct response *resp);
void api_timeseries(struct request *req, struct response *resp);
void api_node_counts(struct request *req, struct response *resp);
void api_exports(struct request *req, struct response *resp);
void api_export_csv(struct request *req, struct response *resp);
void api_export_run(struct request *req, struct response *resp); /* POST, admin */
void api_reconciliation(struct request *req, struct response *resp);
/* Writes the reconciliation of the invoice periods (months) [from, to) touches
 * that an invoice covers, newest first, as a JSON array, or null; of the
 * clusters ",a,b," (docs/fleet.md; "" or NULL: as api_reconcile_period). */
void api_reconcile_window(struct request *req, struct jsonw *w, int64_t from, int64_t to,
                          const char *clusters);
/* The reconciliation of one period: of the clusters ",a,b," when given, else
 * of every cluster when the service watches several, else of the one cluster
 * (--cluster-id or the latest seen) as before the fleet (docs/fleet.md). */
struct reconcile_result;
enum err api_reconcile_period(struct request *req, const char *period, const char *clusters,
                              int64_t now, struct reconcile_result *r);
void api_advice(struct request *req, struct response *resp); /* api_advice.c */

#endif
