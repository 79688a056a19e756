/* store_partial — the cost_partials table and per-day change versions
 * (contract in store_partial.h). */
#include "store/store_partial.h"

#include "store/store_internal.h"

/* ?5: the whole day (events, when it has any) rather than its sums only (body) */
static const char SQL_READ[] =
    "SELECT day, version_n, version_c, CASE WHEN ?5 AND events IS NOT NULL THEN events "
    "ELSE body END FROM cost_partials "
    "WHERE day >= ?1 AND day < ?2 AND engine = ?3 AND default_config = ?4 ORDER BY day";
/* the same rows without their bodies (not read from the pages) */
static const char SQL_READ_VERSIONS[] =
    "SELECT day, version_n, version_c FROM cost_partials "
    "WHERE day >= ?1 AND day < ?2 AND engine = ?3 AND default_config = ?4 ORDER BY day";

static enum err read_rows(struct store *s, bool body, bool events, int64_t d0, int64_t d1,
                          const char *engine, const char *dflt,
                          void (*fn)(void *arg, const struct store_partial_row *row), void *arg) {
    sqlite3_stmt *st;
    enum err rc = store_stmt_window(s, body ? SQL_READ : SQL_READ_VERSIONS, d0, d1, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 3, engine);
    store_bind_text(st, 4, dflt);
    if (body)
        sqlite3_bind_int(st, 5, events);
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct store_partial_row row = {
            .day = sqlite3_column_int64(st, 0),
            .version = {sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)},
        };
        if (body) {
            row.body = sqlite3_column_blob(st, 3);
            row.len = (size_t)sqlite3_column_bytes(st, 3);
        }
        fn(arg, &row);
    }
    rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, "read partials");
    sqlite3_reset(st);
    return rc;
}

enum err store_partials_read(struct store *s, int64_t d0, int64_t d1, const char *engine,
                             const char *dflt, bool events,
                             void (*fn)(void *arg, const struct store_partial_row *row),
                             void *arg) {
    return read_rows(s, true, events, d0, d1, engine, dflt, fn, arg);
}

enum err store_partials_read_versions(struct store *s, int64_t d0, int64_t d1, const char *engine,
                                      const char *dflt,
                                      void (*fn)(void *arg, const struct store_partial_row *row),
                                      void *arg) {
    return read_rows(s, false, false, d0, d1, engine, dflt, fn, arg);
}

static const char SQL_PUT[] =
    "INSERT INTO cost_partials(day, engine, default_config, version_n, version_c, body, events) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(day) DO UPDATE SET engine = excluded.engine, "
    "default_config = excluded.default_config, version_n = excluded.version_n, "
    "version_c = excluded.version_c, body = excluded.body, events = excluded.events";

enum err store_partials_put(struct store *s, const struct store_partial_row *rows, size_t n,
                            const char *engine, const char *dflt) {
    if (n == 0)
        return ERR_OK;
    enum err rc = store_begin(s);
    if (rc != ERR_OK)
        return rc;
    sqlite3_stmt *st;
    rc = store_stmt(s, SQL_PUT, &st);
    for (size_t i = 0; rc == ERR_OK && i < n; i++) {
        sqlite3_bind_int64(st, 1, rows[i].day);
        store_bind_text(st, 2, engine);
        store_bind_text(st, 3, dflt);
        sqlite3_bind_int64(st, 4, rows[i].version[0]);
        sqlite3_bind_int64(st, 5, rows[i].version[1]);
        sqlite3_bind_blob(st, 6, rows[i].body, (int)rows[i].len, SQLITE_STATIC);
        if (rows[i].events)
            sqlite3_bind_blob(st, 7, rows[i].events, (int)rows[i].events_len, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 7);
        rc = store_exec_stmt(s, st);
    }
    if (rc == ERR_OK)
        rc = store_commit(s);
    else
        store_rollback(s);
    return rc;
}
