/* store_cost — loads the rows the cost engine needs for a window into a
 * struct cost_input (cost.h), owning every array and string.
 *
 * What is loaded for [from, to): every pool; every node whose billable life may
 * touch the window; every task touched by the window (an attempt overlapping
 * it, or completed in it) with ALL its attempts (so retries, duplicates and
 * restore gaps see the attempts before the window too), a task row read by uid
 * when only its attempts fell in the ranges loaded (so no figure depends on the
 * range a query loaded); attempts whose task row does not exist yet get a task
 * with the default configuration; every NotReady spell of the loaded nodes.
 * Configuration labels are resolved here: NULL or unknown -> opts' default_config;
 * a pool is spot by its capacity_type or by its nodes' labels against opts'
 * spot labels.
 * Thread rule: the thread owning the store. */
#ifndef SPOTLEDGER_STORE_COST_H
#define SPOTLEDGER_STORE_COST_H

#include <stdint.h>

#include "engine/cost.h"
#include "base/err.h"
#include "model/settings.h"
#include "store/store.h"

/* What the loader takes from the service's settings (query/calc fills it from
 * struct calc_settings); the store never reads configuration itself. */
struct store_cost_opts {
    enum cost_config default_config; /* unlabelled Jobs (--default-configuration) */
    /* --spot-label KEY=VALUE pairs: a pool one of whose nodes' Kubernetes labels
     * matches one is spot; NULL/0: the two defaults
     * (doks.digitalocean.com/capacity-type=spot, gpu-pool-type=spot). */
    const struct config_pair *spot_labels;
    size_t n_spot_labels;
    /* the clusters to read (docs/fleet.md), ",a,b,"; NULL: all. Pools, nodes,
     * tasks and attempts of other clusters are not loaded, so every figure is
     * the one a database holding only these clusters would give. */
    const char *clusters;
};

struct store_cost_data {
    struct cost_input in;
    /* owned storage (the const arrays of in point here) */
    struct cost_pool *pools;
    struct cost_node *nodes;
    int64_t *spells; /* NotReady spells, {start, end} pairs; nodes[].spells point here */
    struct cost_task *tasks;
    const char **task_names;    /* [n_tasks]: the Job name (NULL when the task row is unknown) */
    const char **task_clusters; /* [n_tasks]: the fleet name (docs/fleet.md), NULL as names */
    struct cost_attempt *attempts;
    struct cost_od_size *od_sizes; /* On-Demand price of each spot size, from size_prices */
    struct cost_price *prices;     /* the price history (in.prices) */
    size_t n_od_sizes;
    struct store_arena *arena;
};

/* Loads the data for [from, to) (opts NULL: every default). *out is new
 * (store_cost_free). ERR_DB, ERR_NOMEM. */
enum err store_cost_load(struct store *s, int64_t from, int64_t to,
                         const struct store_cost_opts *opts, struct store_cost_data **out);
/* Loads what store_cost_load loads for [from, to) except tasks and attempts:
 * the same pools, nodes (with their spells) and prices (cost_compose's input, so
 * a composed window sees exactly the nodes a direct one would). */
enum err store_cost_load_nodes(struct store *s, int64_t from, int64_t to,
                               const struct store_cost_opts *opts, struct store_cost_data **out);
/* Loads the tasks and attempts store_cost_load loads for [from, to), over the
 * pools, nodes and prices of base (store_cost_load_nodes of a window holding
 * [from, to): a superset of the nodes [from, to) alone needs; node_ix indexes
 * base's nodes by name). out->in borrows base's arrays: base outlives out. */
enum err store_cost_load_tasks(struct store *s, int64_t from, int64_t to,
                               const struct store_cost_opts *opts,
                               const struct store_cost_data *base, const struct cost_index *node_ix,
                               struct store_cost_data **out);
/* The tasks of [edge - 1, edge + 1) plus every task alive at edge (an attempt
 * begun before it, and completed at or after it or still running) with all
 * their attempts: every task whose life reaches across edge (a window's
 * partial flag, cost.h cost_result.partial). Over base's pools, nodes and
 * prices (as store_cost_load_tasks): base is store_cost_load_nodes of a window
 * with this edge, whose nodes are those a direct load of that window prices. */
enum err store_cost_load_edge_tasks(struct store *s, int64_t edge,
                                    const struct store_cost_opts *opts,
                                    const struct store_cost_data *base,
                                    const struct cost_index *node_ix, struct store_cost_data **out);
/* Loads one task (by uid), all its attempts and the nodes they used.
 * The task is absent (n_tasks == 0) when the uid is unknown. */
enum err store_cost_load_task(struct store *s, const char *task_uid,
                              const struct store_cost_opts *opts, struct store_cost_data **out);
void store_cost_free(struct store_cost_data *d);

#endif
