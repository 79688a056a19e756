/* store_export — the exports table and the first week with data.
 * Thread rule: the thread owning the store (writer for puts). */
#ifndef SPOTLEDGER_STORE_EXPORT_H
#define SPOTLEDGER_STORE_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "store/store.h"

struct store_export_row {
    char week[12];
    char kind[8];
    char path[512];
    int64_t bytes;
    int64_t rows;
    int64_t written_at;
};

enum err store_export_put(struct store *s, const struct store_export_row *row);
/* ERR_NOTFOUND when the week/kind was never exported. */
enum err store_export_get(struct store *s, const char *week, const char *kind,
                          struct store_export_row *out);
/* Newest first, up to max. */
enum err store_export_list(struct store *s, struct store_export_row *out, size_t max, size_t *n);
/* Earliest time any data refers to (node Ready/creation, attempt start, task
 * completion). ERR_NOTFOUND on an empty database. */
enum err store_first_data_time(struct store *s, int64_t *out);
/* Latest time a task or an attempt refers to (task completion, attempt start):
 * where the dashboard's "latest window with data" ends. ERR_NOTFOUND when there
 * is no task and no attempt. Both index-backed (tasks_completed, attempts_start). */
enum err store_last_data_time(struct store *s, int64_t *out);

#endif
