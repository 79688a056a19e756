/* cost_partial — a window's exact additive numerators, so a long window is
 * composed from stored parts instead of loading every attempt it holds
 * (docs/performance.md).
 *
 * A partial is what cost_compute's task pass accumulates for a window [from, to),
 * before anything is rounded, keyed by ids (node name, pool id) so parts computed
 * from different loads add up:
 *  - per node: share-seconds x the node's share denominator, per configuration x
 *    kind (allocated cost is then rounded once per node over the whole window);
 *  - per pool: held seconds per configuration (the idle split's second tier, the
 *    counterfactual's fallback pool), reported checkpoint seconds;
 *  - per configuration: the counts (successes, failures, attempts, retries,
 *    interruptions, duplicates, duplicate seconds, counterfactual counts);
 *  - the running tasks that held a node in the window, by uid (a task running
 *    across two parts counts once: merged as a set);
 *  - restore samples as counts per exact value (percentiles stay exact);
 *  - counterfactual work as Σ work x GPUs per (pool, configuration, price
 *    segment): a segment starts at a price change of any size, so the price in
 *    force is the same for the whole segment and is looked up when composing;
 *  - reclaim evidence: every interrupted attempt on a spot pool lost within
 *    [from - COST_RECLAIM_LOOKBACK, to + COST_RECLAIM_SPREAD), by attempt uid
 *    (merging drops the copies two parts hold).
 * Everything rounded, split or chosen (node totals, allocated, idle and its
 * split, pool rows, ratios, percentiles, the On-Demand size, reclaim timelines,
 * checkpoint advice) is computed when composing, from the summed partial and the
 * nodes, pools and prices of the whole window, by the same code as cost_compute:
 * the composed result equals cost_compute over the window to the micro-dollar
 * (tests/unit/test_partial.c), for any query without an experiment or namespace
 * filter (configurations may be filtered).
 * A part is closed (may be kept and reused) when it ends at or before `now`, has
 * no running task and no attempt held in it without a known end: then it does
 * not depend on `now`, only on the stored rows.
 * Pure: no I/O. Thread rule: any thread; a partial belongs to one thread. */
#ifndef SPOTLEDGER_COST_PARTIAL_H
#define SPOTLEDGER_COST_PARTIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "engine/cost.h"

#define COST_PART_NW (COST_NCONFIG * 4) /* configuration x kind (useful restore wasted running) */

struct cost_part_node {
    char *name;
    int64_t w[COST_PART_NW];
};

struct cost_part_pool {
    char *id; /* "" for the unknown pool */
    int64_t held[COST_NCONFIG];
    int64_t ckpt_sum, ckpt_n;
};

/* The counts of one configuration group, as the task pass counts them (cost_internal.h)
 * and a part keeps them. */
struct cost_counts {
    int64_t succeeded, failed, running, attempts, retries, interruptions, duplicates, dup_secs;
};

struct cost_part_config {
    struct cost_counts n;
    int64_t cf_tasks, cf_reported, cf_runtime;
};

struct cost_part_cf {
    char *pool;
    int32_t config;
    int64_t seg; /* start of the price segment (0: before every known price) */
    int64_t work, wg, n;
};

struct cost_part_restore {
    int32_t config;
    int64_t value, n;
};

struct cost_part_event {
    char *pool, *task, *attempt;
    int64_t order; /* the attempt's creation order key */
    int64_t lost, resumed, disruption_at, not_ready_at;
};

struct cost_part_task {
    char *uid;
    int32_t config;
};

struct cost_partial {
    int64_t from, to;
    int64_t open_attempts; /* attempts held in the window with no known end */
    int64_t unscheduled;
    struct cost_part_config cfg[COST_NCONFIG];
    struct cost_part_node *nodes;
    size_t n_nodes, cap_nodes;
    struct cost_part_pool *pools;
    size_t n_pools, cap_pools;
    struct cost_part_cf *cf;
    size_t n_cf, cap_cf;
    struct cost_part_restore *restore;
    size_t n_restore, cap_restore;
    struct cost_part_event *events;
    size_t n_events, cap_events;
    struct cost_part_task *running; /* tasks counted running (a set: merged by uid) */
    size_t n_running, cap_running;
};

/* Computes q over in (q without experiment/namespace/configuration filters) and
 * keeps its partial in *out (new, cost_partial_free). ERR_INVAL on a filtered
 * query, cost_compute's errors. */
enum err cost_partial_capture(const struct cost_input *in, const struct cost_query *q,
                              struct cost_partial **out);

/* True when p may be kept: it ends at or before now, nothing runs or is open. */
bool cost_partial_closed(const struct cost_partial *p, int64_t now);
/* Running tasks counted in p (all configurations). */
int64_t cost_partial_running(const struct cost_partial *p);

/* A new empty partial for [from, to). */
struct cost_partial *cost_partial_new(int64_t from, int64_t to);
/* Adds p to acc (acc's range grows to cover both; ranges should not overlap).
 * Entries are combined by key afterwards (cost_partial_normalize). */
void cost_partial_add(struct cost_partial *acc, const struct cost_partial *p);
/* The same as cost_partial_add, moving p's entries (p is left empty). */
void cost_partial_take(struct cost_partial *acc, struct cost_partial *p);
/* Sorts and combines equal keys (node, pool, cf, restore value, running task).
 * Reclaim evidence is left as it is: cost_compose keeps the events near its
 * reclaims, one per attempt uid. */
void cost_partial_normalize(struct cost_partial *p);
void cost_partial_free(struct cost_partial *p);

/* The window q from the normalized sum of its parts: in holds pools, nodes and
 * prices only (n_tasks and n_attempts 0), loaded as cost_compute's input for q
 * would be. ERR_INVAL with an experiment or namespace filter, tasks in the
 * input, or a part's node or pool missing from in; cost_compute's errors.
 * The partial flags (cost_result.partial) stay false: they need the tasks at
 * the window's edges, which calc_compose loads. */
enum err cost_compose(const struct cost_input *in, const struct cost_query *q,
                      const struct cost_partial *sum, struct cost_result **out);

/* The revision of the code that computes a partial: a hash of its sources,
 * generated at build time (Makefile ENGINE_REV_SRC). A stored partial of another
 * revision is computed again. */
extern const char cost_engine_rev[];

/* Serialization (a versioned little-endian blob). decode: ERR_INVAL on any
 * malformed or truncated input, never reads past len; events false skips the
 * reclaim evidence (stored last), for a window in which no pool can be a
 * reclaim (cost_reclaim_possible). */
enum err cost_partial_encode(const struct cost_partial *p, struct buf *out);
enum err cost_partial_decode(const void *data, size_t len, bool events, struct cost_partial **out);

/* Whether some spot pool of in is a reclaim candidate in q's window (the
 * candidate rule of cost.h over in's nodes): without one, no reclaim evidence
 * is used. */
bool cost_reclaim_possible(const struct cost_input *in, const struct cost_query *q);

#endif
