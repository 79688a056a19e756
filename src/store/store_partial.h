/* store_partial — the cost_partials table (schema/006): closed days' partial
 * sums as opaque blobs (engine/cost_partial.h encodes them), each with the
 * change version of its day (store_day_versions, store_read.h) when computed.
 * Thread rule: the thread owning the store; writes need the writer connection
 * (the caller holds the writer lock). */
#ifndef SPOTLEDGER_STORE_PARTIAL_H
#define SPOTLEDGER_STORE_PARTIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "store/store.h"

#define STORE_DAY 86400

/* One stored day. body and events are borrowed (valid during the callback only
 * on read). On write: body is the day without its reclaim evidence, events the
 * whole day (NULL: the day has none; schema/012). On read: body is the one
 * asked for (store_partials_read's `events`), events unused. */
struct store_partial_row {
    int64_t day; /* Unix day number */
    int64_t version[2];
    const void *body;
    size_t len;
    const void *events;
    size_t events_len;
};

/* Calls fn for each stored day in [d0, d1) computed by engine revision `engine`
 * with default configuration `dflt`, in day order (the caller compares the
 * versions): row.body is the whole day when `events` and it has evidence, else
 * the day without it (its evidence pages are not read). ERR_DB. */
enum err store_partials_read(struct store *s, int64_t d0, int64_t d1, const char *engine,
                             const char *dflt, bool events,
                             void (*fn)(void *arg, const struct store_partial_row *row), void *arg);

/* store_partials_read without the bodies (row.body NULL, len 0): which days are
 * stored, and under which versions. ERR_DB. */
enum err store_partials_read_versions(struct store *s, int64_t d0, int64_t d1, const char *engine,
                                      const char *dflt,
                                      void (*fn)(void *arg, const struct store_partial_row *row),
                                      void *arg);

/* Stores (replaces) n days in one transaction on the writer. ERR_DB, ERR_BUSY. */
enum err store_partials_put(struct store *s, const struct store_partial_row *rows, size_t n,
                            const char *engine, const char *dflt);

#endif
