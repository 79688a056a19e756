/* store_read — the read-side queries the REST API needs (all SQL in store_*.c).
 * Thread rule: call on the thread that owns the (read-only) store. */
#ifndef SPOTLEDGER_STORE_READ_H
#define SPOTLEDGER_STORE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "store/store.h"

/* The source clock: the latest source Date of a successful poll.
 * ERR_NOTFOUND when no poll has succeeded yet. */
enum err store_source_now(struct store *s, int64_t *out);

struct store_poll_stats {
    int64_t ok;            /* successful polls, all time */
    int64_t errors;        /* failed polls, all time */
    int64_t last_success;  /* finished_at of the latest successful poll, 0 if none */
    int64_t last_duration; /* seconds the latest finished poll took */
    int64_t requests;      /* HTTP requests, all time */
};

/* Aggregates poll_runs for one source (zeros when it never ran). */
enum err store_poll_stats(struct store *s, const char *source, struct store_poll_stats *out);

/* The fleet names that hold pools, nodes or tasks (docs/fleet.md), sorted,
 * narrowed to `clusters` (",a,b,"; NULL all); at most max (64 bytes each, a
 * longer name is skipped), *n set. */
#define STORE_CLUSTER_NAME_MAX 64
enum err store_cluster_names(struct store *s, const char *clusters,
                             char (*out)[STORE_CLUSTER_NAME_MAX], size_t max, size_t *n);

/* Pod-level facts of one attempt, for the task page. */
struct store_attempt_info {
    char uid[64];
    char name[254];
    char node[254];
    char pool_id[64];
    char pool[128];
    char capacity_type[16];
    char reason[128];
    char phase[16];
    bool has_exit_code;
    int64_t exit_code;
};

/* The attempts of task_uid (up to max, ordered by start). *n receives the
 * count. ERR_DB. */
enum err store_task_attempts(struct store *s, const char *task_uid, struct store_attempt_info *out,
                             size_t max, size_t *n);

/* Distinct experiment labels, sorted, up to max; each copied into out[i]
 * (API_NAME_MAX + 1 bytes each). clusters: the labels of those clusters' tasks
 * only, as ",a,b," (docs/fleet.md "cluster="); NULL or "" every cluster. */
enum err store_experiments(struct store *s, const char *clusters, char (*out)[256], size_t max,
                           size_t *n);

/* The change version of window [from, to): the change marks (schema/004) of the
 * days whose facts can reach the window and of day 0 (global facts), the spans
 * of facts that meet those days (schema/010), and the billing facts' spans
 * (schema/011: a summary carries its months' reconciliation). Two equal
 * versions mean no fact the window's responses depend on changed in between. */
enum err store_window_version(struct store *s, int64_t from, int64_t to, int64_t out[2]);

/* The cost facts' change version of each day d in [d0, d1) into out[d - d0]:
 * store_window_version(d * 86400, (d + 1) * 86400) without the billing facts
 * (a day's partial sums read no billing row), computed with one read of the
 * change marks for all of them. ERR_INVAL when d1 - d0 is not
 * in 1..4000; ERR_DB. */
enum err store_day_versions(struct store *s, int64_t d0, int64_t d1, int64_t (*out)[2]);

#endif
