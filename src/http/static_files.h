/* static_files — the dashboard's files from --web-dir, and Debian-packaged
 * JavaScript (Chart.js) from --vendor-dir under /vendor/.
 *
 * Safety: the decoded path must be clean (no "..", ".", empty segments, NUL or
 * backslash) and its realpath must lie inside the root, so neither "../" nor a
 * symlink escapes it. Thread rule: any thread. */
#ifndef SPOTLEDGER_STATIC_FILES_H
#define SPOTLEDGER_STATIC_FILES_H

#include <stdbool.h>

#include "base/request.h"

/* Serves rel (path below the root, no leading '/') from root into resp:
 * 200 with an open fd, 400 for an unsafe path, 404 when absent. */
void static_serve(const char *root, const char *rel, struct response *resp);

/* True when every segment of rel is a normal name. Exposed for tests. */
bool static_path_is_safe(const char *rel);

/* MIME type for a file name by extension (static string). */
const char *static_mime_type(const char *name);

#endif
