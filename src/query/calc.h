/* calc — the cost engine over stored rows: load a window (store_cost), resolve
 * On-Demand sizes (--on-demand-size pairs first, priced from the size list, then
 * every listed size as the twin of "<slug>-spot"), compute (cost_compute).
 * Used by the REST API, the CSV exporter and the metrics.
 * Thread rule: the thread owning the store. */
#ifndef SPOTLEDGER_CALC_H
#define SPOTLEDGER_CALC_H

#include <stdint.h>

#include "engine/cost.h"
#include "base/err.h"
#include "store/store_cost.h"

struct calc_settings;
struct cost_partial;
struct store;

struct calc {
    struct store_cost_data *data;
    struct cost_result *res;
    struct cost_od_size *od; /* owned; strings borrowed from data and settings */
    size_t n_od;
    const struct calc_settings *cfg; /* NULL: every default */
};

/* The configuration of unlabelled Jobs (--default-configuration). */
enum cost_config calc_default_config(const struct calc_settings *cfg);
/* What the window loader takes from cfg (NULL: every default): the default
 * configuration and the --spot-label pairs (borrowed from cfg). */
struct store_cost_opts calc_store_opts(const struct calc_settings *cfg);

/* Loads rows for [load_from, load_to) and computes q (q->od_sizes is filled in).
 * On error *out is released. ERR_DB, ERR_BUSY, ERR_NOMEM, cost_compute's errors. */
enum err calc_run(struct store *db, const struct calc_settings *cfg, int64_t load_from,
                  int64_t load_to, const struct cost_query *q, struct calc *out);
/* Recomputes loaded data for another query (a sub-window, other filters). */
enum err calc_recompute(struct calc *c, const struct cost_query *q);

/* The whole-life window of the loaded tasks in `in`: *a = the earliest start
 * (scheduled, else created, else started) of their attempts, or `from` when
 * earlier; *b = max(to, now) + 1. */
void calc_life_window(const struct cost_input *in, int64_t from, int64_t to, int64_t now,
                      int64_t *a, int64_t *b);
/* Per-attempt figures over the whole life of every task touched by [from, to):
 * loads the window, widens the load to the earliest attempt of those tasks,
 * and computes with want_attempts over [earliest, max(to, now) + 1) without
 * filters (taskview applies them). */
enum err calc_task_life(struct store *db, const struct calc_settings *cfg, int64_t from, int64_t to,
                        int64_t now, struct calc *out);

/* Composes q from sum, the normalized partials of q's parts (cost_compose),
 * over data (store_cost_load_nodes of q's window; taken: out owns it, released
 * on error too).
 * The partial flag (no task is loaded for the sum) comes from the tasks at q's
 * two edges (store_cost_load_edge_tasks over data; node_ix indexes data's nodes
 * by name, NULL when there are none) passed over q.
 * On error *out is released. */
enum err calc_compose(struct store *db, struct store_cost_data *data,
                      const struct cost_index *node_ix, const struct calc_settings *cfg,
                      const struct cost_query *q, const struct cost_partial *sum, struct calc *out);
/* The completion basis of q (cost.h cost_completion): loads [load_from,
 * load_to) as calc_run does, widens the load to the grid windows the tasks
 * succeeding in q's window held nodes in (cost_completion_span), computes q's
 * accrual result into *out (as calc_run) and the completion figures into *comp.
 * Errors: calc_run's; ERR_TOOBIG when the tasks span more than
 * COST_BASIS_MAX_WINDOWS windows of q's length. */
enum err calc_completion(struct store *db, const struct calc_settings *cfg, int64_t load_from,
                         int64_t load_to, const struct cost_query *q, struct calc *out,
                         struct cost_completion *comp);

/* Recomputes q on c's loaded data (calc_recompute: c->res becomes q's accrual
 * result) and its completion basis into *comp. The data must cover q's
 * completion span: loaded by calc_completion of q or of a query selecting more
 * tasks (another filter narrows the tasks, never widens the span). Errors:
 * calc_recompute's, ERR_TOOBIG as calc_completion. */
enum err calc_completion_loaded(struct calc *c, const struct cost_query *q,
                                struct cost_completion *comp);

void calc_release(struct calc *c);

#endif
