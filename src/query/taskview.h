/* taskview — per-task figures for the tasks table, the task page and the tasks
 * CSV, folded from the cost engine's per-attempt detail (cost_query.want_attempts).
 *
 * A task's figures cover its whole life (every attempt, whatever the window):
 * the caller computes with a window that spans all its attempts. Which tasks are
 * listed is the window's business: those completed in it, or still running and
 * holding a node in it. Pure; thread rule: any thread. */
#ifndef SPOTLEDGER_TASKVIEW_H
#define SPOTLEDGER_TASKVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/cost.h"
#include "base/err.h"

struct taskview_row {
    int32_t task; /* index into the cost input's tasks */
    int64_t attempts;
    int64_t retries; /* attempts - 1 */
    int64_t interruptions;
    int64_t restore_seconds; /* Σ restore times of its resumptions */
    int64_t cost;            /* Σ allocated cost of its attempts (µ$) */
    int64_t wasted_cost;     /* Σ allocated cost of attempts that did not succeed */
    int64_t first_start;     /* earliest attempt start; 0 none */
    int64_t last_end;        /* latest attempt end; 0 none */
};

struct taskview_filter {
    int64_t from, to;       /* listed: completed in [from, to), or running and held a node there */
    unsigned configs;       /* bit (1u << enum cost_config); 0 = all */
    const char *experiment; /* NULL = any */
    const char *ns;         /* NULL = any */
    int outcome;            /* -1 any, else enum cost_outcome */
};

/* Builds one row per listed task, in input order. r must carry attempts
 * (want_attempts). *rows is new (free()); *n its length. ERR_INVAL without
 * attempt detail; ERR_TOOBIG on overflow. */
enum err taskview_build(const struct cost_input *in, const struct cost_result *r,
                        const struct taskview_filter *f, struct taskview_row **rows, size_t *n);

enum taskview_sort { TASKVIEW_BY_COMPLETED, TASKVIEW_BY_COST, TASKVIEW_BY_ATTEMPTS };

/* Sorts rows by key then task uid (a total order, so cursors are stable). */
void taskview_sort(const struct cost_input *in, struct taskview_row *rows, size_t n,
                   enum taskview_sort key, bool descending);
/* The sort key value of a row. */
int64_t taskview_key(const struct cost_input *in, const struct taskview_row *row,
                     enum taskview_sort key);

#endif
