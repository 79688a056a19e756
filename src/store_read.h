/* store_read — the read-side queries the REST API needs (all SQL in store_*.c).
 * Thread rule: call on the thread that owns the (read-only) store. */
#ifndef SPOTLEDGER_STORE_READ_H
#define SPOTLEDGER_STORE_READ_H

#include <stdint.h>

#include "err.h"
#include "store.h"

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

#endif
