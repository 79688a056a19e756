/* store_cost_tasks — the task half of the cost loader (store_cost.h): tasks
 * and their attempts, read by time ranges and matched in memory. Internal to
 * the store (store_cost*.c; store_read.c takes the bounds); callers use
 * store_cost.h. */
#ifndef SPOTLEDGER_STORE_COST_TASKS_H
#define SPOTLEDGER_STORE_COST_TASKS_H

#include <stdint.h>

#include "base/err.h"
#include "engine/cost.h"
#include "store/store.h"
#include "store/store_cost.h"

/* The loader's bounds: *span = the longest attempt, *life = the longest task
 * (seconds, 0 when none); both from expression indexes, O(log n). */
enum err store_cost_task_bounds(struct store *s, int64_t *span, int64_t *life);

/* Sets d's tasks and attempts (d->tasks, d->attempts, their counts in d->in;
 * d has none yet) to the tasks that touch [from, to) with every attempt of theirs
 * (span, life: store_cost_task_bounds). A task row absent from the tasks table
 * gets configuration dflt. alive_at != 0 (store_cost_load_edge_tasks): a task begun
 * before alive_at and not finished before it is touched too. node_ix (may be
 * NULL) maps node names to d's nodes. */
enum err store_cost_tasks_window(struct store *s, struct store_cost_data *d, int64_t from,
                                 int64_t to, int64_t span, int64_t life, enum cost_config dflt,
                                 const struct cost_index *node_ix, int64_t alive_at);

/* Sets d's tasks and attempts (as above) to the task `uid` and all its
 * attempts (no such task: none). */
enum err store_cost_tasks_one(struct store *s, struct store_cost_data *d, const char *uid,
                              enum cost_config dflt, const struct cost_index *node_ix);

#endif
