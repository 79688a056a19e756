/* fileutil — crash-safe file writes.
 *
 * fileutil_write_atomic writes to a temporary file in the same directory
 * (".<name>.tmp-<pid>"), fsyncs it, renames it over <name> and fsyncs the
 * directory, so a reader (or a crash at any instant) sees either the old
 * complete file or the new complete file, never a partial one under <name>.
 * Thread rule: any thread (distinct names). */
#ifndef SPOTLEDGER_FILEUTIL_H
#define SPOTLEDGER_FILEUTIL_H

#include <stddef.h>

#include "base/err.h"

/* name must be a plain file name (no '/'). ERR_INVAL for a bad name, ERR_IO
 * (logged with errno) otherwise; no temporary file is left behind on failure. */
enum err fileutil_write_atomic(const char *dir, const char *name, const void *data, size_t len);

/* Removes leftover temporaries (".*.tmp-*") of interrupted writes in dir.
 * Returns how many were removed (0 when dir does not exist). */
int fileutil_clean_temporaries(const char *dir);

/* mkdir -p for one level; ERR_OK when it exists already. */
enum err fileutil_ensure_dir(const char *dir);

#endif
