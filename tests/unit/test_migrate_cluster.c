/* test_migrate_cluster — schema/009_cluster.sql on a database made by the
 * previous release (schema 008): every row of every table is kept byte for
 * byte, every cluster-scoped row lands under the default cluster, and the
 * figures the routes answer are the ones worked out by hand for the docs'
 * worked example (testdb.h) and the ones a database built at 009 from the same
 * rows answers (a regression check, not the source of the expected figures).
 *
 * The 008 database is built as that release built it: the compiled migrations
 * 001..008 (migrations are append-only, so these are the previous release's
 * files) run in order through plain SQLite, user_version = 8, then rows are
 * inserted with plain SQL naming the 008 columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "apitest.h"
#include "base/buf.h"
#include "store/schema.h"
#include "store/store_k8s.h"

#define PREV_VERSION 8
#define WEEK "window=2026-W45"

/* Builds dir/t.db at schema 008 (no row). */
static void build_previous(struct testdb *d) {
    memset(d, 0, sizeof *d);
    snprintf(d->dir, sizeof d->dir, "/tmp/spotledger-mig009-XXXXXX");
    assert_non_null(mkdtemp(d->dir));
    snprintf(d->path, sizeof d->path, "%s/t.db", d->dir);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(d->path, &db), SQLITE_OK);
    int applied = 0;
    for (int i = 0; i < schema_migrations_count; i++) {
        if (schema_migrations[i].version > PREV_VERSION)
            break;
        char *msg = NULL;
        if (sqlite3_exec(db, schema_migrations[i].sql, NULL, NULL, &msg) != SQLITE_OK)
            fail_msg("%s: %s", schema_migrations[i].name, msg ? msg : "?");
        applied++;
    }
    assert_int_equal(applied, PREV_VERSION);
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 8", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* Rows of the tables the worked example leaves empty (none of them changes a
 * figure of the example): the cluster record, Ready transitions, events, a PDB,
 * poll runs of a per-cluster and an account source, watch resume points. */
static void extra_rows(const struct testdb *d) {
    const long long t = TESTDB_T0;
    testdb_execf(
        d,
        "INSERT INTO clusters(id, name, region, version, first_seen, last_seen)"
        " VALUES ('c1', 'lab', 'tor1', '1.33', %lld, %lld);"
        "INSERT INTO node_conditions(node_name, status, at, origin, first_seen)"
        " VALUES ('S', 'True', %lld, 'condition', %lld), ('F', 'True', %lld, 'condition', %lld);"
        "INSERT INTO events(uid, namespace, object_kind, object_name, object_uid, source, reason,"
        " message, type, first_at, last_at, count, first_seen) VALUES ('ev-1', 'default', 'Node',"
        " 'S', 'uid-S', 'node-controller', 'NodeReady', 'Node S is ready', 'Normal', %lld, %lld,"
        " 1, %lld);"
        "INSERT INTO pdbs(uid, namespace, name, min_available, selector_json, first_seen,"
        " last_seen) VALUES ('pdb-1', 'batch', 'keep-one', 1, '{}', %lld, %lld);"
        "INSERT INTO poll_runs(source, started_at, finished_at, source_time, status, requests,"
        " items) VALUES ('k8s', %lld, %lld, %lld, 'ok', 4, 9), ('do', %lld, %lld, %lld, 'ok', 3, "
        "2),"
        " ('do_billing', %lld, %lld, %lld, 'error', 1, 0);"
        "INSERT INTO watch_state(resource, resource_version, updated_at)"
        " VALUES ('pods', '42', %lld), ('jobs', '17', %lld);",
        t, t, t, t, t, t, t, t, t, t, t, t + 5, t + 10, t + 10, t + 5, t + 9, t + 9, t + 5, t + 6,
        t + 6, t, t);
}

/* Every row of table as text ("quote(c1)|quote(c2)|..." lines, sorted), reading
 * only the columns given (the 008 ones). */
static void dump_table(sqlite3 *db, const char *table, const char *cols, struct buf *out) {
    char sql[2048];
    snprintf(sql, sizeof sql, "SELECT %s FROM %s ORDER BY 1", cols, table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    while (sqlite3_step(st) == SQLITE_ROW) {
        buf_puts(out, (const char *)sqlite3_column_text(st, 0));
        buf_puts(out, "\n");
    }
    sqlite3_finalize(st);
}

#define MAX_TABLES 40

struct snapshot {
    int n;
    char table[MAX_TABLES][64];
    char cols[MAX_TABLES][1024]; /* "quote(a)||'|'||quote(b)..." over the 008 columns */
    struct buf rows[MAX_TABLES];
    int64_t count[MAX_TABLES];
};

/* The 008 tables, their columns and their rows. */
static void snapshot_take(const char *path, struct snapshot *s) {
    memset(s, 0, sizeof *s);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT name FROM sqlite_master WHERE type = 'table' AND"
                                        " name NOT LIKE 'sqlite_%' ORDER BY name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        assert_true(s->n < MAX_TABLES);
        snprintf(s->table[s->n], sizeof s->table[0], "%s", sqlite3_column_text(st, 0));
        s->n++;
    }
    sqlite3_finalize(st);
    for (int i = 0; i < s->n; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", s->table[i]);
        assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
        size_t len = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            int w = snprintf(s->cols[i] + len, sizeof s->cols[0] - len, "%squote(%s)",
                             len ? "||'|'||" : "", sqlite3_column_text(st, 1));
            assert_true(w > 0 && (size_t)w < sizeof s->cols[0] - len);
            len += (size_t)w;
        }
        sqlite3_finalize(st);
        buf_init(&s->rows[i], 0);
        dump_table(db, s->table[i], s->cols[i], &s->rows[i]);
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", s->table[i]);
        assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        s->count[i] = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
}

static void snapshot_release(struct snapshot *s) {
    for (int i = 0; i < s->n; i++)
        buf_release(&s->rows[i]);
}

/* Every 008 table still holds the same rows in its 008 columns. */
static void snapshot_same(const char *path, const struct snapshot *before) {
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    for (int i = 0; i < before->n; i++) {
        struct buf now;
        buf_init(&now, 0);
        dump_table(db, before->table[i], before->cols[i], &now);
        if (strcmp(buf_str(&now), buf_str(&before->rows[i])) != 0)
            fail_msg("%s changed:\nbefore:\n%s\nafter:\n%s", before->table[i],
                     buf_str(&before->rows[i]), buf_str(&now));
        buf_release(&now);
    }
    sqlite3_close(db);
}

/* The migrated database: rows kept, clusters filled, user_version 9. */
static void test_rows_kept(void **state) {
    (void)state;
    log_set_level(LOG_OFF);
    struct testdb d;
    build_previous(&d);
    testdb_worked_example(&d);
    extra_rows(&d);
    struct snapshot before;
    snapshot_take(d.path, &before);
    /* the example's rows are there: 2 sizes, 2 pools, 2 nodes, 3 tasks, 4 attempts */
    int64_t rows = 0;
    for (int i = 0; i < before.n; i++)
        rows += before.count[i];
    assert_true(rows >= 2 + 2 + 2 + 2 + 3 + 4);

    struct store *w = NULL;
    int migrated = -1, v = -1;
    assert_int_equal(store_open(d.path, STORE_WRITER, &w, &migrated), ERR_OK);
    assert_int_equal(migrated, store_latest_version() - PREV_VERSION);
    assert_int_equal(store_schema_version(w, &v), ERR_OK);
    assert_int_equal(v, store_latest_version());
    store_free(w);

    snapshot_same(d.path, &before);
    /* every cluster-scoped row is the default cluster's (2 pools, 2 nodes, 3
     * tasks, 4 attempts, 1 event, 1 PDB, 1 cluster record) */
    static const struct {
        const char *table;
        int64_t rows;
    } scoped[] = {{"node_pools", 2}, {"nodes", 2}, {"tasks", 3},    {"attempts", 4},
                  {"events", 1},     {"pdbs", 1},  {"clusters", 1}, {"reclaims", 0}};
    for (size_t i = 0; i < sizeof scoped / sizeof scoped[0]; i++) {
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE cluster = 'default'",
                 scoped[i].table);
        if (testdb_int(&d, sql, NULL) != scoped[i].rows)
            fail_msg("%s: %lld rows under 'default', want %lld", scoped[i].table,
                     (long long)testdb_int(&d, sql, NULL), (long long)scoped[i].rows);
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE cluster IS NOT 'default'",
                 scoped[i].table);
        assert_int_equal(testdb_int(&d, sql, NULL), 0);
    }
    /* poll runs: the per-cluster sources are the default cluster's, billing none */
    assert_int_equal(testdb_int(&d,
                                "SELECT count(*) FROM poll_runs WHERE cluster = 'default'"
                                " AND source IN ('k8s', 'do')",
                                NULL),
                     2);
    assert_int_equal(testdb_int(&d,
                                "SELECT count(*) FROM poll_runs WHERE cluster IS NULL"
                                " AND source = 'do_billing'",
                                NULL),
                     1);
    /* the resume points are the default cluster's, keyed by (cluster, resource) */
    assert_int_equal(testdb_int(&d,
                                "SELECT resource_version FROM watch_state"
                                " WHERE cluster = 'default' AND resource = ?1",
                                "pods"),
                     42);

    /* the writer reads its resume point back under the default cluster */
    assert_int_equal(store_open(d.path, STORE_WRITER, &w, &migrated), ERR_OK);
    assert_int_equal(migrated, 0);
    char rv[32];
    assert_int_equal(store_k8s_watch_get(w, "jobs", rv, sizeof rv), ERR_OK);
    assert_string_equal(rv, "17");
    /* another cluster has none of its own, and writes its own */
    assert_int_equal(store_set_cluster(w, "east"), ERR_OK);
    assert_int_equal(store_k8s_watch_get(w, "jobs", rv, sizeof rv), ERR_NOTFOUND);
    assert_int_equal(store_k8s_watch_set(w, "jobs", "99", TESTDB_T0), ERR_OK);
    assert_int_equal(store_set_cluster(w, NULL), ERR_OK);
    assert_int_equal(store_k8s_watch_get(w, "jobs", rv, sizeof rv), ERR_OK);
    assert_string_equal(rv, "17");
    store_free(w);
    assert_int_equal(testdb_int(&d,
                                "SELECT resource_version FROM watch_state"
                                " WHERE cluster = 'east' AND resource = ?1",
                                "jobs"),
                     99);
    snapshot_release(&before);
    testdb_remove(&d);
}

/* The routes answer the same on the migrated database as on one built at 009
 * from the same rows, and the summary's figures are the hand-worked ones. */
static void test_figures_unchanged(void **state) {
    (void)state;
    /* reference: a database created at the latest schema with the same rows */
    struct apitest ref;
    apitest_setup(&ref, NULL);
    testdb_worked_example(&ref.db);
    extra_rows(&ref.db);
    apitest_open(&ref);
    /* migrated: the 008 database, opened by the writer once (the service start) */
    struct apitest mig;
    apitest_setup(&mig, NULL);
    testdb_remove(&mig.db);
    build_previous(&mig.db);
    testdb_worked_example(&mig.db);
    extra_rows(&mig.db);
    struct store *w = NULL;
    assert_int_equal(store_open(mig.db.path, STORE_WRITER, &w, NULL), ERR_OK);
    store_free(w);
    apitest_open(&mig);

    assert_int_equal(apitest_call(&mig, "GET /api/v1/summary?" WEEK), 200);
    /* hand-worked (testdb.h, test_api_cost): nodes S 7200 s x 500 µ$ = 3.600 +
     * F 10800 s x 1000 µ$ = 10.800 = 14.400; allocated 1.830 + 1.750 + 1.740 +
     * 3.600 = 8.920; idle 14.400 - 8.920 = 5.480 */
    assert_int_equal(jmicro(&mig, "nodes_total_cost"), 14400000);
    assert_int_equal(jmicro(&mig, "allocated_cost"), 8920000);
    assert_int_equal(jmicro(&mig, "idle_cost"), 5480000);
    bool seen_fb = false, seen_cf = false;
    for (size_t i = 0; i < jlen(&mig, "configurations"); i++) {
        char c[64], b[64], p[64];
        snprintf(c, sizeof c, "configurations.%zu.configuration", i);
        snprintf(b, sizeof b, "configurations.%zu.basis", i);
        snprintf(p, sizeof p, "configurations.%zu.cost_per_successful_task", i);
        if (!strcmp(jstr(&mig, c), "fallback") && !strcmp(jstr(&mig, b), "measured")) {
            assert_int_equal(jmicro(&mig, p), 4800000); /* 14.400 / 3 tasks */
            seen_fb = true;
        }
        if (!strcmp(jstr(&mig, c), "on-demand") && !strcmp(jstr(&mig, b), "counterfactual")) {
            assert_int_equal(jmicro(&mig, p), 2960000); /* 8880 s x 1000 µ$ / 3 */
            seen_cf = true;
        }
    }
    assert_true(seen_fb && seen_cf);

    static const char *const routes[] = {
        "GET /api/v1/summary?" WEEK,
        "GET /api/v1/nodes?" WEEK,
        "GET /api/v1/pools?" WEEK,
        "GET /api/v1/reclaims?" WEEK,
        "GET /api/v1/tasks?" WEEK,
        "GET /api/v1/experiments",
        "GET /api/v1/timeseries?" WEEK "&step=1d",
        "GET /api/v1/export.csv?" WEEK "&kind=summary",
        "GET /api/v1/export.csv?" WEEK "&kind=tasks",
        "GET /api/v1/advice?" WEEK,
    };
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        int st = apitest_call(&ref, routes[i]);
        if (st != 200)
            fail_msg("%s: %d %.300s", routes[i], st, apitest_body(&ref));
        assert_true(ref.resp.body.len > 0); /* compared in memory, never an empty body */
        char *want = strdup(apitest_body(&ref));
        assert_int_equal(apitest_call(&mig, routes[i]), st);
        if (strcmp(apitest_body(&mig), want) != 0)
            fail_msg("%s differs after the migration:\nfresh:    %.600s\nmigrated: %.600s",
                     routes[i], want, apitest_body(&mig));
        free(want);
    }
    apitest_teardown(&mig);
    apitest_teardown(&ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_kept),
        cmocka_unit_test(test_figures_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
