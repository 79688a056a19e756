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

/* The request path's composition: like compose_run, but days not stored under
 * their current version are not computed one by one nor kept: each run of them
 * is captured in one load (as a direct computation of that run would be), the
 * background pass (compose_keep_days) keeps days. ERR_NOTFOUND also when no
 * whole day of the window is stored (the caller's calc_run is the same work).
 * Reads only db. */
enum err compose_stored(struct store *db, const struct calc_settings *cfg,
                        const struct cost_query *q, struct calc *out, struct compose_stats *stats);

/* The background pass's state (days found not closed, skipped until their
 * version moves). */
struct compose_keeper;
struct compose_keeper *compose_keeper_new(void);
void compose_keeper_free(struct compose_keeper *kp);

/* Computes and keeps (on writer, under *writer_lock, only for each batch's
 * write) up to max_days closed days of [d0, d1) not stored under their current
 * version, newest first; days not closed at `now` are remembered in kp and not
 * computed again until their version moves. A day is computed only when its
 * current version has been seen by kp's passes for settle_ms or more (mono_ms:
 * a monotonic clock; 0 computes at once): a day whose rows are still coming
 * would be replaced at once. Only days ended by `now`, at most the
 * COMPOSE_MAX_DAYS last. stats: days in the range, stored before the pass,
 * computed, kept (computed == max_days: more may be left). The work of one call
 * is bounded by max_days days' loads. */
enum err compose_keep_days(struct compose_keeper *kp, struct store *db, struct store *writer,
                           pthread_mutex_t *writer_lock, const struct calc_settings *cfg,
                           int64_t d0, int64_t d1, int64_t now, int64_t max_days, int64_t mono_ms,
                           int64_t settle_ms, struct compose_stats *stats);

#endif
