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

static const char SQL_POLL_STATS[] =
    "SELECT coalesce(sum(status = 'ok'), 0), coalesce(sum(status = 'error'), 0), "
    "coalesce(max(CASE WHEN status = 'ok' THEN finished_at END), 0), "
    "coalesce(sum(requests), 0), "
    "(SELECT finished_at - started_at FROM poll_runs WHERE source = ?1 AND status != 'running' "
    " ORDER BY id DESC LIMIT 1) "
    "FROM poll_runs WHERE source = ?1";

enum err store_poll_stats(struct store *s, const char *source, struct store_poll_stats *out) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_POLL_STATS, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, source);
    int r = sqlite3_step(st);
    if (r != SQLITE_ROW) {
        rc = store_fail(s, r, "poll_stats");
        sqlite3_reset(st);
        return rc;
    }
    out->ok = sqlite3_column_int64(st, 0);
    out->errors = sqlite3_column_int64(st, 1);
    out->last_success = sqlite3_column_int64(st, 2);
    out->requests = sqlite3_column_int64(st, 3);
    out->last_duration = sqlite3_column_int64(st, 4);
    sqlite3_reset(st);
    return ERR_OK;
}
