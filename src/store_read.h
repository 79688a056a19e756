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

#endif
