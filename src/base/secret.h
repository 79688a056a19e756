/* secret — secret files (API tokens): the service's config keeps only their
 * paths (service/config.h); whoever needs a token reads it here when needed.
 * Thread rule: any thread. */
#ifndef SPOTLEDGER_SECRET_H
#define SPOTLEDGER_SECRET_H

#include "base/err.h"

/* Reads a secret file: contents with surrounding whitespace trimmed. Caller frees
 * (and should zero). ERR_IO (unreadable), ERR_INVAL (empty), ERR_TOOBIG (>4 KiB).
 * The path may be logged; the content never is. */
enum err secret_read(const char *path, char **out);

#endif
