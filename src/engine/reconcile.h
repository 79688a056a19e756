/* reconcile — estimated node cost next to what DigitalOcean billed, per invoice
 * period (a calendar month), per node pool and for the cluster. Pure: no I/O, no
 * clock (`now` is an argument), no globals. store_do_reconcile() loads the input
 * from the database and calls reconcile_compute().
 *
 * Estimate: per node, billable interval [start, end) with start = Ready time
 * (creation, else first sighting) and end = the earliest of the DO and
 * Kubernetes deletions (now while it runs), billed by the one node-billed-amount
 * rule (model/billing.h, docs/cost-model.md: 60 s minimum, 672 h per calendar
 * month, $0.01 floor per node) for the part inside the period. A node without a
 * recorded rate adds its seconds but no cost and is counted in `unpriced_nodes`.
 *
 * Rounding: DigitalOcean shows each node's month as one invoice item in whole
 * cents (half away from zero). `rounding` is what that does to the estimate,
 * node by node; `unexplained` = billed - estimated - rounding is the drift that
 * rounding does not explain (0 when the invoice is exactly DO's rule applied to
 * the nodes we saw).
 *
 * Matching an invoice item, first rule that applies:
 *   1. resource_uuid is a pool id                           -> that pool
 *   2. resource_id is a node's droplet id, resource_uuid a node's DO id, or
 *      description is a node name                           -> that node's pool
 *   3. the item belongs to the cluster (resource_uuid = cluster id, or
 *      group_description = cluster name; for a fleet, one of its clusters)
 *      and its description contains a pool
 *      name (the longest such name wins)                    -> that pool
 *   4. it belongs to the cluster                            -> the cluster line
 *   5. otherwise                                            -> unmatched (other
 *      products: Spaces, load balancers, ...; summed, never dropped silently)
 *
 * Billing insights (DigitalOcean's daily usage points, when the token may read
 * them) are matched by the same rules (a point has only description and
 * group_description) and summed per line as `insights`: what DigitalOcean's
 * daily figures say each pool cost in the period so far, next to the estimate;
 * points of other products are counted in unmatched_insights.
 *
 * Thread rule: any thread. */
#ifndef SPOTLEDGER_RECONCILE_H
#define SPOTLEDGER_RECONCILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct reconcile_pool {
    char *id;
    char *name;
    char *capacity_type; /* "spot" / "on-demand" */
};

struct reconcile_node {
    char *name;
    char *do_id;
    char *droplet_id;
    char *pool_id;
    int64_t price_hourly; /* micro-dollars per hour; < 0 unknown */
    int64_t start;        /* Ready / creation / first sighting */
    int64_t end;          /* earliest deletion; 0 = still running */
};

struct reconcile_item {
    char *product;
    char *resource_uuid;
    char *resource_id;
    char *group_description;
    char *description;
    int64_t amount;
};

/* Everything reconcile_compute reads. Owned strings; release with
 * reconcile_input_release. */
struct reconcile_input {
    char period[8]; /* "2026-11" */
    int64_t period_start, period_end;
    char *cluster_id;   /* NULL: unknown */
    char *cluster_name; /* NULL: unknown */
    /* a fleet's reconciliation (docs/fleet.md): the further clusters whose items
     * are the cluster line as well (rules 3, 4), ids and names, NULL unknown */
    char **fleet_ids, **fleet_names;
    size_t n_fleet;
    char *invoice_uuid; /* NULL: no invoice (nothing billed yet) */
    bool invoice_preview;
    struct reconcile_pool *pools;
    size_t n_pools;
    struct reconcile_node *nodes;
    size_t n_nodes;
    struct reconcile_item *items;
    size_t n_items;
    /* daily billing insights inside the period (product "insights"; amount µ$) */
    struct reconcile_item *insights;
    size_t n_insights;
};

enum reconcile_line_kind {
    RECONCILE_POOL,    /* one node pool */
    RECONCILE_CLUSTER, /* billed to the cluster, not to a known pool */
    RECONCILE_TOTAL,   /* pools + cluster line */
};

/* One row of the comparison. All money in micro-dollars. */
struct reconcile_line {
    enum reconcile_line_kind kind;
    char pool_id[64];       /* "" for CLUSTER and TOTAL */
    char pool_name[128];    /* "" for CLUSTER and TOTAL */
    char capacity_type[16]; /* "" unless POOL */
    int nodes;              /* nodes with billable time in the period */
    int unpriced_nodes;     /* of which without a recorded rate */
    int64_t node_seconds;   /* billable seconds in the period (after min/cap) */
    int64_t estimated;      /* our estimate */
    int items;              /* invoice items matched */
    int64_t billed;         /* their sum */
    int64_t diff;           /* billed - estimated */
    int64_t rounding;       /* the part of diff due to DO's whole cents: per node,
                               round(estimate to cents) - estimate, summed (|.| <= half
                               a cent per node) */
    int64_t unexplained;    /* diff - rounding: the drift rounding does not explain */
    int64_t diff_bp;        /* diff / estimated in basis points (1/100 %), rounded */
    bool diff_bp_valid;     /* false when estimated == 0 */
    int insight_points;     /* daily billing insight points matched */
    int64_t insights;       /* their sum */
};

/* The result: lines[] = one per pool (input order, pools with neither node time
 * nor items omitted), then the CLUSTER line, then the TOTAL line (always the last
 * two). Items of other products are in unmatched_items / unmatched_amount. */
struct reconcile_result {
    char period[8];
    int64_t period_start, period_end;
    bool has_invoice;
    bool invoice_preview;
    struct reconcile_line *lines;
    size_t n_lines;
    int unmatched_items;
    int64_t unmatched_amount;
    int unmatched_insights; /* insight points of other products */
};

/* Computes the comparison. `now` bounds nodes still running. ERR_TOOBIG on money
 * overflow, ERR_INVAL on an empty period. *out written only on ERR_OK; release
 * with reconcile_result_release. */
enum err reconcile_compute(const struct reconcile_input *in, int64_t now,
                           struct reconcile_result *out);
void reconcile_result_release(struct reconcile_result *r);
void reconcile_input_release(struct reconcile_input *in);

/* Billable seconds of [start, end) inside [ps, pe) (billing_node_seconds).
 * end 0 = now. Exposed for tests. */
int64_t reconcile_node_seconds(int64_t start, int64_t end, int64_t now, int64_t ps, int64_t pe);

/* "2026-11" -> [2026-11-01, 2026-12-01). ERR_PARSE otherwise. */
enum err reconcile_period_bounds(const char *period, int64_t *start, int64_t *end);

#endif
