#include "store/store_export.h"

#include <string.h>

#include "store/store_internal.h"

static const char SQL_PUT[] =
    "INSERT INTO exports(week, kind, path, bytes, rows, written_at) VALUES (?1,?2,?3,?4,?5,?6) "
    "ON CONFLICT(week, kind) DO UPDATE SET path = excluded.path, bytes = excluded.bytes, "
    "rows = excluded.rows, written_at = excluded.written_at";
static const char SQL_GET[] =
    "SELECT week, kind, path, bytes, rows, written_at FROM exports WHERE week = ?1 AND kind = ?2";
static const char SQL_LIST[] = "SELECT week, kind, path, bytes, rows, written_at FROM exports "
                               "ORDER BY week DESC, kind LIMIT ?1";
static const char SQL_FIRST[] =
    "SELECT min(t) FROM ("
    " SELECT min(coalesce(ready_at, created_at)) AS t FROM nodes"
    " UNION ALL SELECT min(coalesce(scheduled_at, created_at, started_at)) FROM attempts"
    " UNION ALL SELECT min(completed_at) FROM tasks)";

static const char SQL_LAST[] =
    "SELECT max(t) FROM ("
    " SELECT max(completed_at) AS t FROM tasks"
    " UNION ALL SELECT max(coalesce(scheduled_at, created_at, started_at)) FROM attempts)";

enum err store_export_put(struct store *s, const struct store_export_row *row) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_PUT, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, row->week);
    store_bind_text(st, 2, row->kind);
    store_bind_text(st, 3, row->path);
    sqlite3_bind_int64(st, 4, row->bytes);
    sqlite3_bind_int64(st, 5, row->rows);
    sqlite3_bind_int64(st, 6, row->written_at);
    return store_exec_stmt(s, st);
}

static bool read_row(sqlite3_stmt *st, void *rec, void *arg) {
    (void)arg;
    struct store_export_row *r = rec;
    memset(r, 0, sizeof *r);
    store_column_copy(st, 0, r->week, sizeof r->week);
    store_column_copy(st, 1, r->kind, sizeof r->kind);
    store_column_copy(st, 2, r->path, sizeof r->path);
    r->bytes = sqlite3_column_int64(st, 3);
    r->rows = sqlite3_column_int64(st, 4);
    r->written_at = sqlite3_column_int64(st, 5);
    return true;
}

enum err store_export_get(struct store *s, const char *week, const char *kind,
                          struct store_export_row *out) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_GET, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, week);
    store_bind_text(st, 2, kind);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        read_row(st, out, NULL);
    rc = r == SQLITE_ROW    ? ERR_OK
         : r == SQLITE_DONE ? ERR_NOTFOUND
                            : store_fail(s, r, "export get");
    sqlite3_reset(st);
    return rc;
}

enum err store_export_list(struct store *s, struct store_export_row *out, size_t max, size_t *n) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_LIST, &st);
    if (rc != ERR_OK)
        return rc;
    sqlite3_bind_int64(st, 1, (int64_t)max);
    return store_rows_into(s, st, out, sizeof *out, max, read_row, NULL, n, "export list");
}

static enum err one_time(struct store *s, const char *sql, int64_t *out) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, sql, &st);
    if (rc != ERR_OK)
        return rc;
    int r = sqlite3_step(st);
    if (r != SQLITE_ROW) {
        rc = store_fail(s, r, "data time");
    } else if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
        rc = ERR_NOTFOUND;
    } else {
        *out = sqlite3_column_int64(st, 0);
    }
    sqlite3_reset(st);
    return rc;
}

enum err store_first_data_time(struct store *s, int64_t *out) {
    return one_time(s, SQL_FIRST, out);
}

enum err store_last_data_time(struct store *s, int64_t *out) {
    return one_time(s, SQL_LAST, out);
}
