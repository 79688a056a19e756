#include "store_read.h"

#include "store_internal.h"

static const char SQL_SOURCE_NOW[] =
    "SELECT max(source_time) FROM poll_runs WHERE status = 'ok' AND source_time IS NOT NULL";

enum err store_source_now(struct store *s, int64_t *out) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_SOURCE_NOW, &st);
    if (rc != ERR_OK)
        return rc;
    int r = sqlite3_step(st);
    if (r != SQLITE_ROW) {
        rc = store_fail(s, r, "source_now");
        sqlite3_reset(st);
        return rc;
    }
    if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
        sqlite3_reset(st);
        return ERR_NOTFOUND;
    }
    *out = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return ERR_OK;
}
