/* compose — a window's cost figures from its days' partial sums
 * (docs/performance.md): each whole UTC day of the window is read from the
 * cost_partials table when stored under the day's current change version, else
 * computed from that day's rows alone (and kept when the day is closed); the
 * window's partial edges are computed directly; the sum is composed
 * (cost_compose) over the window's pools, nodes and prices, without loading the
 * window's tasks or attempts. The result is the direct computation's to the
 * micro-dollar (tests/unit/test_partial.c, test_compose.c).
 * Thread rule: the thread owning db; writer (may be NULL: nothing is kept) is
 * used only under *writer_lock. */
#ifndef SPOTLEDGER_COMPOSE_H
#define SPOTLEDGER_COMPOSE_H

#include <pthread.h>
#include <stdint.h>

#include "engine/cost.h"
#include "query/calc.h"

/* Windows of fewer whole days are computed directly. */
#define COMPOSE_MIN_DAYS 2
/* Windows longer than this are not composed (bounded work per request). */
#define COMPOSE_MAX_DAYS 1200

struct compose_stats {
    int64_t days;     /* whole days in the window */
    int64_t stored;   /* read from the table */
    int64_t computed; /* computed from their rows now */
    int64_t kept;     /* computed and written to the table (closed days) */
};

/* Computes q like calc_run over [q->from, q->to) would. ERR_NOTFOUND when q is
 * not composable (an experiment or namespace filter, per-attempt detail, fewer
 * than COMPOSE_MIN_DAYS whole days or more than COMPOSE_MAX_DAYS): the caller runs
 * calc_run. Otherwise calc_run's errors. stats may be NULL. On error *out is
 * released. */
enum err compose_run(struct store *db, struct store *writer, pthread_mutex_t *writer_lock,
                     const struct calc_settings *cfg, const struct cost_query *q, struct calc *out,
                     struct compose_stats *stats);

#endif
