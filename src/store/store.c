/* store — connection lifecycle, migrations, transactions, statement cache and
 * poll runs. Invariant: every statement handed out by store_stmt is finalized in
 * store_free, so sqlite3_close never returns SQLITE_BUSY. */
#include "store/store.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "store/schema.h"
#include "store/store_internal.h"
#include "base/xalloc.h"

#define STORE_BUSY_MS 5000
#define STORE_MAX_STMTS 128

struct store_cached {
    const char *sql; /* key: address of a static string */
    sqlite3_stmt *st;
};

struct store {
    sqlite3 *db;
    enum store_mode mode;
    struct store_cached stmts[STORE_MAX_STMTS];
    int nstmts;
    struct store_memo memo;
    char cluster[STORE_CLUSTER_MAX]; /* store_set_cluster */
    char *read_clusters;             /* store_set_read_clusters; NULL all */
};

void store_set_read_clusters(struct store *s, const char *clusters) {
    free(s->read_clusters);
    s->read_clusters = clusters ? xstrdup(clusters) : NULL;
}

enum err store_set_cluster(struct store *s, const char *name) {
    if (!name || !*name)
        name = STORE_DEFAULT_CLUSTER;
    size_t n = strlen(name);
    if (n >= sizeof s->cluster)
        return ERR_INVAL;
    memcpy(s->cluster, name, n + 1);
    return ERR_OK;
}

const char *store_cluster(const struct store *s) {
    return s->cluster;
}

sqlite3 *store_db(struct store *s) {
    return s->db;
}

struct store_memo *store_memo(struct store *s) {
    return &s->memo;
}

enum err store_fail(struct store *s, int rc, const char *what) {
    log_msg(LOG_ERROR, "store: %s failed: %s (%d)", what, s ? sqlite3_errmsg(s->db) : "", rc);
    if (rc == SQLITE_BUSY || (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
        return ERR_BUSY;
    if (rc == SQLITE_NOMEM)
        return ERR_NOMEM;
    return ERR_DB;
}

/* A statement naming :cluster gets the cluster of the writes (store_set_cluster),
 * one naming :clusters the clusters of the reads (store_set_read_clusters). */
static void bind_cluster(struct store *s, sqlite3_stmt *st) {
    int i = sqlite3_bind_parameter_index(st, ":cluster");
    if (i > 0)
        sqlite3_bind_text(st, i, s->cluster, -1, SQLITE_TRANSIENT);
    i = sqlite3_bind_parameter_index(st, ":clusters");
    if (i > 0)
        store_bind_text(st, i, s->read_clusters);
}

enum err store_stmt(struct store *s, const char *sql, sqlite3_stmt **out) {
    for (int i = 0; i < s->nstmts; i++) {
        if (s->stmts[i].sql == sql) {
            sqlite3_reset(s->stmts[i].st);
            sqlite3_clear_bindings(s->stmts[i].st);
            bind_cluster(s, s->stmts[i].st);
            *out = s->stmts[i].st;
            return ERR_OK;
        }
    }
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
    if (rc != SQLITE_OK)
        return store_fail(s, rc, "prepare");
    if (s->nstmts < STORE_MAX_STMTS) {
        s->stmts[s->nstmts].sql = sql;
        s->stmts[s->nstmts].st = st;
        s->nstmts++;
    } else {
        /* cache full: a programming error (too many distinct statements) */
        log_msg(LOG_ERROR, "store: statement cache full");
        sqlite3_finalize(st);
        return ERR_DB;
    }
    bind_cluster(s, st);
    *out = st;
    return ERR_OK;
}

enum err store_exec_stmt(struct store *s, sqlite3_stmt *st) {
    int rc = sqlite3_step(st);
    enum err e = ERR_OK;
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        e = store_fail(s, rc, "step");
    sqlite3_reset(st);
    return e;
}

int store_bind_text(sqlite3_stmt *st, int idx, const char *v) {
    if (!v)
        return sqlite3_bind_null(st, idx);
    return sqlite3_bind_text(st, idx, v, -1, SQLITE_TRANSIENT);
}

int store_bind_time(sqlite3_stmt *st, int idx, int64_t t) {
    if (t == 0)
        return sqlite3_bind_null(st, idx);
    return sqlite3_bind_int64(st, idx, t);
}

int store_bind_opt_int(sqlite3_stmt *st, int idx, int64_t v) {
    if (v < 0)
        return sqlite3_bind_null(st, idx);
    return sqlite3_bind_int64(st, idx, v);
}

void store_column_copy(sqlite3_stmt *st, int col, char *out, size_t cap) {
    const unsigned char *t = sqlite3_column_text(st, col);
    if (!t) {
        out[0] = '\0';
        return;
    }
    size_t n = (size_t)sqlite3_column_bytes(st, col);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, t, n);
    out[n] = '\0';
}

char *store_column_dup(sqlite3_stmt *st, int col) {
    const unsigned char *t = sqlite3_column_text(st, col);
    if (!t)
        return NULL;
    return xstrndup((const char *)t, (size_t)sqlite3_column_bytes(st, col));
}

int64_t store_col_or(sqlite3_stmt *st, int col, int64_t dflt) {
    return sqlite3_column_type(st, col) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, col);
}

enum err store_stmt_window(struct store *s, const char *sql, int64_t from, int64_t to,
                           sqlite3_stmt **out) {
    enum err rc = store_stmt(s, sql, out);
    if (rc != ERR_OK)
        return rc;
    sqlite3_bind_int64(*out, 1, from);
    sqlite3_bind_int64(*out, 2, to);
    return ERR_OK;
}

enum err store_lookup(struct store *s, const char *sql, const char *key, const char *what,
                      sqlite3_stmt **st) {
    enum err rc = store_stmt(s, sql, st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(*st, 1, key);
    int r = sqlite3_step(*st);
    if (r == SQLITE_ROW)
        return ERR_OK;
    rc = r == SQLITE_DONE ? ERR_NOTFOUND : store_fail(s, r, what);
    sqlite3_reset(*st);
    return rc;
}

enum err store_exists(struct store *s, const char *sql, const char *key, const char *what,
                      bool *out) {
    sqlite3_stmt *st;
    enum err rc = store_lookup(s, sql, key, what, &st);
    if (rc == ERR_OK)
        sqlite3_reset(st);
    if (rc != ERR_OK && rc != ERR_NOTFOUND)
        return rc;
    *out = rc == ERR_OK;
    return ERR_OK;
}

void *store_rows(struct store *s, sqlite3_stmt *st, size_t elem, store_row_fn *row, void *arg,
                 size_t *n, const char *what, enum err *rc) {
    char *v = NULL;
    size_t cap = 0;
    *n = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            v = xrealloc(v, cap * elem);
        }
        void *rec = v + *n * elem;
        memset(rec, 0, elem);
        if (row(st, rec, arg))
            (*n)++;
    }
    *rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, what);
    sqlite3_reset(st);
    return v;
}

enum err store_rows_into(struct store *s, sqlite3_stmt *st, void *out, size_t elem, size_t max,
                         store_row_fn *row, void *arg, size_t *n, const char *what) {
    size_t k = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW && k < max) {
        void *rec = (char *)out + k * elem;
        memset(rec, 0, elem);
        if (row(st, rec, arg))
            k++;
    }
    enum err rc = r == SQLITE_ROW || r == SQLITE_DONE ? ERR_OK : store_fail(s, r, what);
    sqlite3_reset(st);
    if (rc == ERR_OK)
        *n = k;
    return rc;
}

enum err store_one_int(struct store *s, const char *sql, int64_t dflt, const char *what,
                       int64_t *out) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, sql, &st);
    if (rc != ERR_OK)
        return rc;
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        *out = store_col_or(st, 0, dflt);
    else
        rc = store_fail(s, r, what);
    sqlite3_reset(st);
    return rc;
}

struct store_arena {
    struct store_arena *next;
    size_t used, cap;
    char data[];
};

const char *store_arena_dup(struct store_arena **a, const char *s, size_t n) {
    if (!*a || (*a)->cap - (*a)->used < n + 1) {
        size_t cap = n + 1 > 65536 ? n + 1 : 65536;
        struct store_arena *b = xmalloc(sizeof *b + cap);
        b->next = *a;
        b->used = 0;
        b->cap = cap;
        *a = b;
    }
    char *p = (*a)->data + (*a)->used;
    memcpy(p, s, n);
    p[n] = '\0';
    (*a)->used += n + 1;
    return p;
}

const char *store_arena_col(struct store_arena **a, sqlite3_stmt *st, int col) {
    const unsigned char *t = sqlite3_column_text(st, col);
    if (!t)
        return NULL;
    return store_arena_dup(a, (const char *)t, (size_t)sqlite3_column_bytes(st, col));
}

void store_arena_free(struct store_arena *a) {
    while (a) {
        struct store_arena *n = a->next;
        free(a);
        a = n;
    }
}

static enum err exec(struct store *s, const char *sql, const char *what) {
    char *msg = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        log_msg(LOG_ERROR, "store: %s failed: %s", what, msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        return (rc & 0xff) == SQLITE_BUSY ? ERR_BUSY : ERR_DB;
    }
    return ERR_OK;
}

/* Whether a PRAGMA's first row reads `want` (*is); the prepare's result code. */
static int pragma_is(sqlite3 *db, const char *pragma, const char *want, bool *is) {
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, pragma, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
    *is = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) &&
          strcmp((const char *)sqlite3_column_text(st, 0), want) == 0;
    sqlite3_finalize(st);
    return SQLITE_OK;
}

static bool is_wal(sqlite3 *db) {
    bool wal = false;
    return pragma_is(db, "PRAGMA journal_mode", "wal", &wal) == SQLITE_OK && wal;
}

int store_latest_version(void) {
    return schema_migrations_count ? schema_migrations[schema_migrations_count - 1].version : 0;
}

enum err store_schema_version(struct store *s, int *out) {
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_fail(s, rc, "user_version");
    rc = sqlite3_step(st);
    int v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    if (v < 0)
        return store_fail(s, rc, "user_version");
    *out = v;
    return ERR_OK;
}

static enum err migrate(struct store *s, int *applied) {
    int cur, n = 0;
    enum err rc = store_schema_version(s, &cur);
    if (rc != ERR_OK)
        return rc;
    if (cur > store_latest_version()) {
        log_msg(LOG_ERROR, "store: database schema version %d is newer than this binary's %d", cur,
                store_latest_version());
        return ERR_DB;
    }
    for (int i = 0; i < schema_migrations_count; i++) {
        const struct schema_migration *m = &schema_migrations[i];
        if (m->version <= cur)
            continue;
        if ((rc = store_begin(s)) != ERR_OK)
            return rc;
        /* re-check inside the write lock: another process may have migrated */
        int now;
        if ((rc = store_schema_version(s, &now)) != ERR_OK) {
            store_rollback(s);
            return rc;
        }
        if (now >= m->version) {
            store_rollback(s);
            continue;
        }
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", m->version);
        if ((rc = exec(s, m->sql, m->name)) != ERR_OK ||
            (rc = exec(s, pragma, m->name)) != ERR_OK) {
            store_rollback(s);
            return rc;
        }
        if ((rc = store_commit(s)) != ERR_OK)
            return rc;
        log_msg(LOG_INFO, "store: applied migration '%s'", m->name);
        n++;
    }
    *applied = n;
    return ERR_OK;
}

/* Creates a missing database file 0640 (less with a stricter umask): finance
 * data. SQLite would create it 0644, and gives the -wal and -shm files the
 * database file's mode (findCreateFileMode in os_unix.c), so this covers them. */
static void create_private(const char *path) {
    /* ":memory:", "" (a temporary database) and "file:" URIs are SQLite's own */
    if (!*path || path[0] == ':' || strncmp(path, "file:", 5) == 0)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
    if (fd >= 0)
        close(fd);
}

enum err store_open(const char *path, enum store_mode mode, struct store **out, int *migrated) {
    struct store *s = xcalloc(1, sizeof *s);
    s->mode = mode;
    store_set_cluster(s, NULL);
    if (mode == STORE_WRITER)
        create_private(path);
    int flags =
        SQLITE_OPEN_NOMUTEX |
        (mode == STORE_WRITER ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY);
    int rc = sqlite3_open_v2(path, &s->db, flags, NULL);
    enum err e = ERR_OK;
    int applied = 0;
    if (rc != SQLITE_OK) {
        log_msg(LOG_ERROR, "store: cannot open '%s': %s", path,
                s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        e = rc == SQLITE_NOMEM ? ERR_NOMEM : ERR_DB;
        goto out;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
    if (mode == STORE_WRITER) {
        if ((e = exec(s, "PRAGMA journal_mode=WAL", "journal_mode")) != ERR_OK ||
            (e = exec(s, "PRAGMA synchronous=NORMAL", "synchronous")) != ERR_OK ||
            (e = exec(s, "PRAGMA foreign_keys=ON", "foreign_keys")) != ERR_OK)
            goto out;
        if ((e = migrate(s, &applied)) != ERR_OK)
            goto out;
        store_gen_watch(s->db, is_wal(s->db));
    } else {
        if ((e = exec(s, "PRAGMA foreign_keys=ON", "foreign_keys")) != ERR_OK ||
            (e = exec(s, "PRAGMA query_only=ON", "query_only")) != ERR_OK)
            goto out;
        int v;
        if ((e = store_schema_version(s, &v)) != ERR_OK)
            goto out;
        if (v != store_latest_version()) {
            log_msg(LOG_ERROR, "store: '%s' has schema version %d, expected %d", path, v,
                    store_latest_version());
            e = ERR_DB;
            goto out;
        }
    }
out:
    if (e != ERR_OK) {
        store_free(s);
        return e;
    }
    if (migrated)
        *migrated = applied;
    *out = s;
    return ERR_OK;
}

void store_free(struct store *s) {
    if (!s)
        return;
    for (int i = 0; i < s->nstmts; i++)
        sqlite3_finalize(s->stmts[i].st);
    free(s->read_clusters);
    if (s->db) {
        int rc = sqlite3_close(s->db);
        if (rc != SQLITE_OK)
            log_msg(LOG_ERROR, "store: close failed: %s", sqlite3_errstr(rc));
    }
    free(s);
}

enum err store_begin(struct store *s) {
    return exec(s, "BEGIN IMMEDIATE", "begin");
}

enum err store_commit(struct store *s) {
    return exec(s, "COMMIT", "commit");
}

void store_rollback(struct store *s) {
    if (!sqlite3_get_autocommit(s->db))
        exec(s, "ROLLBACK", "rollback");
}

enum err store_integrity_ok(struct store *s, bool *ok) {
    int rc = pragma_is(s->db, "PRAGMA integrity_check", "ok", ok);
    return rc == SQLITE_OK ? ERR_OK : store_fail(s, rc, "integrity_check");
}

static const char SQL_POLL_BEGIN[] = "INSERT INTO poll_runs(source, started_at, status, cluster) "
                                     "VALUES (?1, ?2, 'running', CASE WHEN ?3 THEN :cluster END)";
static const char SQL_POLL_END[] =
    "UPDATE poll_runs SET finished_at = ?2, source_time = ?3, status = ?4, error = ?5, "
    "requests = ?6, items = ?7 WHERE id = ?1";
static const char SQL_POLL_LAST[] =
    "SELECT id, source, started_at, finished_at, source_time, status, error, requests, items "
    "FROM poll_runs WHERE source = ?1 AND status != 'running' AND (?2 = 0 OR status = 'ok') "
    "AND (?3 IS NULL OR cluster = ?3) ORDER BY id DESC LIMIT 1";

enum err store_poll_begin(struct store *s, const char *source, int64_t started_at, int64_t *id) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_POLL_BEGIN, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, source);
    sqlite3_bind_int64(st, 2, started_at);
    /* the cluster's own sources (schema/009): Kubernetes and the node pools */
    sqlite3_bind_int(st, 3, !strcmp(source, "k8s") || !strcmp(source, "do"));
    if ((rc = store_exec_stmt(s, st)) != ERR_OK)
        return rc;
    *id = sqlite3_last_insert_rowid(s->db);
    return ERR_OK;
}

enum err store_poll_end(struct store *s, int64_t id, int64_t finished_at, int64_t source_time,
                        const char *error, int64_t requests, int64_t items) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_POLL_END, &st);
    if (rc != ERR_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, finished_at);
    store_bind_time(st, 3, source_time);
    store_bind_text(st, 4, error ? "error" : "ok");
    store_bind_text(st, 5, error);
    sqlite3_bind_int64(st, 6, requests);
    sqlite3_bind_int64(st, 7, items);
    return store_exec_stmt(s, st);
}

enum err store_poll_last(struct store *s, const char *source, bool ok_only,
                         struct store_poll *out) {
    return store_poll_last_cluster(s, source, NULL, ok_only, out);
}

enum err store_poll_last_cluster(struct store *s, const char *source, const char *cluster,
                                 bool ok_only, struct store_poll *out) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_POLL_LAST, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, source);
    sqlite3_bind_int(st, 2, ok_only ? 1 : 0);
    store_bind_text(st, 3, cluster);
    int r = sqlite3_step(st);
    if (r == SQLITE_DONE) {
        sqlite3_reset(st);
        return ERR_NOTFOUND;
    }
    if (r != SQLITE_ROW) {
        rc = store_fail(s, r, "poll_last");
        sqlite3_reset(st);
        return rc;
    }
    struct store_poll p;
    memset(&p, 0, sizeof p);
    p.id = sqlite3_column_int64(st, 0);
    store_column_copy(st, 1, p.source, sizeof p.source);
    p.started_at = sqlite3_column_int64(st, 2);
    p.finished_at = sqlite3_column_int64(st, 3);
    p.source_time = sqlite3_column_int64(st, 4);
    store_column_copy(st, 5, p.status, sizeof p.status);
    store_column_copy(st, 6, p.error, sizeof p.error);
    p.requests = sqlite3_column_int64(st, 7);
    p.items = sqlite3_column_int64(st, 8);
    sqlite3_reset(st);
    *out = p;
    return ERR_OK;
}
