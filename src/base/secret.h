/* secret — secret files (API tokens): the service's config keeps only their
 * paths (service/config.h); whoever needs a token reads it here when needed.
 * Thread rule: any thread. */
#ifndef SPOTLEDGER_SECRET_H
#define SPOTLEDGER_SECRET_H

#include <stddef.h>

#include "base/err.h"

/* Reads a secret file: contents with surrounding whitespace trimmed. Caller frees
 * (and should zero). ERR_IO (unreadable), ERR_INVAL (empty), ERR_TOOBIG (>4 KiB).
 * The path may be logged; the content never is. */
enum err secret_read(const char *path, char **out);

/* Zeroes then frees a secret string: len bytes, or strlen(s) when len is 0.
 * NULL is a no-op. */
void secret_free(char *s, size_t len);

/* Writes data to path readable by its owner only (0600): a new file beside it,
 * then rename(2), so a reader sees the old or the new content, never a mix.
 * ERR_IO (with errno kept) on failure; no temporary is left behind. */
enum err secret_write_private(const char *path, const void *data, size_t len);

#endif
