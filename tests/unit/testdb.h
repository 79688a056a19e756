/* testdb — a temporary spotledger database with known rows (header only).
 *
 * testdb_create() makes a fresh directory under /tmp, opens the database as the
 * writer (so every migration runs), then inserts rows with plain SQL through its
 * own sqlite3 connection: the rows are what the test says, not what an ingest
 * path would make of them. struct testdb_fx is the cmocka fixture of the tests
 * that work through the store on such a database (testdb_fx_setup/_teardown).
 * testdb_worked_example() stores the README/docs cost model's worked example (docs: "Worked
 * example" of the cost model) with the figures every test derives by hand:
 *
 *   spot node S $1.80/h (500 µ$/s) Ready 0..7200 s, fallback node F $3.60/h
 *   (1000 µ$/s) Ready 0..10800 s, one GPU each; tasks J1, J2, J3 (fallback):
 *   J1#1 on S 0 -> 3660 (start 60), J2#1 on S 3700 -> 7200 (gone with S),
 *   J2#2 on F 7260 -> 9000 (start 7320, reports restore_seconds 120),
 *   J3#1 on F 60 -> 3660 (start 60). Times are TESTDB_T0 + seconds;
 *   TESTDB_T0 = 2026-11-02T00:00:00Z (Monday of ISO week 2026-W45) =
 *   (56 y x 365 + 14 leap days + 304 + 1) d x 86400 = 1793577600.
 */
#ifndef SPOTLEDGER_TEST_TESTDB_H
#define SPOTLEDGER_TEST_TESTDB_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/store.h"
#include "tmpdir.h"

#define TESTDB_T0 1793577600LL

struct testdb {
    char dir[64];
    char path[96];
};

/* Runs sql (several statements) on the database; fails the test on error. */
static inline void testdb_exec(const struct testdb *d, const char *sql) {
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(d->path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fail_msg("testdb: %s", msg ? msg : sqlite3_errstr(rc));
    sqlite3_close(db);
}

/* printf-style testdb_exec. */
static inline void testdb_execf(const struct testdb *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void testdb_execf(const struct testdb *d, const char *fmt, ...) {
    char sql[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof sql);
    testdb_exec(d, sql);
}

/* Column 0 of the first row of sql (?1 bound to arg when not NULL) as an integer, read on the
 * open connection db; -1 when there is no row or it is NULL. */
static inline int64_t testdb_q_int(sqlite3 *db, const char *sql, const char *arg) {
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    if (arg)
        sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
    int64_t v = -1;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The same as text, a copy the caller frees; NULL when there is no row or it is NULL. */
static inline char *testdb_q_text(sqlite3 *db, const char *sql, const char *arg) {
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    if (arg)
        sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
    char *v = NULL;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
}

/* Asserts that testdb_q_text(db, sql, arg) is want. */
static inline void testdb_q_text_is(sqlite3 *db, const char *sql, const char *arg,
                                    const char *want) {
    char *v = testdb_q_text(db, sql, arg);
    assert_string_equal(v, want);
    free(v);
}

/* testdb_q_int through a read-only connection of its own. */
static inline int64_t testdb_int(const struct testdb *d, const char *sql, const char *arg) {
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(d->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    int64_t v = testdb_q_int(db, sql, arg);
    sqlite3_close(db);
    return v;
}

/* A new empty directory for the database; d->path names the file, which is not made. */
static inline void testdb_mkdir(struct testdb *d) {
    memset(d, 0, sizeof *d);
    snprintf(d->dir, sizeof d->dir, "/tmp/spotledger-testdb-XXXXXX");
    assert_non_null(mkdtemp(d->dir));
    snprintf(d->path, sizeof d->path, "%s/t.db", d->dir);
}

/* A new empty, migrated database. */
static inline void testdb_create(struct testdb *d) {
    testdb_mkdir(d);
    struct store *w = NULL;
    assert_int_equal(store_open(d->path, STORE_WRITER, &w, NULL), ERR_OK);
    store_free(w);
}

/* Removes the database and every file the test left in its directory. */
static inline void testdb_remove(struct testdb *d) {
    if (!d->dir[0])
        return;
    assert_int_equal(tmpdir_remove(d->dir), 0);
    d->dir[0] = '\0';
}

/* The fixture (cmocka state) of a test that works through the store on a database of its own:
 * the database, the store opened on it, and, when the test opens one, a second read-only
 * connection to read rows back as a reader would see them. */
struct testdb_fx {
    struct testdb db;
    struct store *s;
    sqlite3 *ro;
};

/* A new fixture on a new empty, migrated database; nothing is open yet. */
static inline struct testdb_fx *testdb_fx_new(void) {
    struct testdb_fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    testdb_create(&f->db);
    return f;
}

/* cmocka setup: a new fixture with the store opened as the writer. */
static inline int testdb_fx_setup(void **state) {
    struct testdb_fx *f = testdb_fx_new();
    assert_int_equal(store_open(f->db.path, STORE_WRITER, &f->s, NULL), ERR_OK);
    *state = f;
    return 0;
}

/* cmocka teardown: closes what is open, removes the database, frees the fixture. */
static inline int testdb_fx_teardown(void **state) {
    struct testdb_fx *f = *state;
    sqlite3_close(f->ro);
    store_free(f->s);
    testdb_remove(&f->db);
    free(f);
    return 0;
}

/* The sizes of both row sets below, first seen and priced at TESTDB_T0 - 3600: gpu-x
 * ($3.60/h, 1 GPU) last seen at TESTDB_T0 and its Spot twin gpu-x-spot ($1.80/h) last
 * seen at spot_last_seen. */
static inline void testdb_gpu_x_sizes(const struct testdb *d, long long spot_last_seen) {
    const long long t = TESTDB_T0;
    testdb_execf(
        d,
        "INSERT INTO sizes(slug, vcpus, memory_mb, gpu_count, first_seen, last_seen) VALUES"
        " ('gpu-x', 8, 65536, 1, %lld, %lld), ('gpu-x-spot', 8, 65536, 1, %lld, %lld);"
        "INSERT INTO size_prices VALUES ('gpu-x', %lld, 3600000, 2419200000),"
        " ('gpu-x-spot', %lld, 1800000, 1209600000);",
        t - 3600, t, t - 3600, spot_last_seen, t - 3600, t - 3600);
}

/* The worked example (see the top of this file), all times TESTDB_T0 + s. */
static inline void testdb_worked_example(const struct testdb *d) {
    const long long t = TESTDB_T0;
    testdb_gpu_x_sizes(d, t - 3600);
    testdb_execf(
        d,
        "INSERT INTO node_pools(id, cluster_id, name, size, capacity_type, price_hourly_micro,"
        " first_seen, last_seen, deleted_at) VALUES"
        " ('pool-spot', 'c1', 'gpu-spot', 'gpu-x-spot', 'spot', 1800000, %lld, %lld, %lld),"
        " ('pool-fb', 'c1', 'gpu-fallback', 'gpu-x', 'on-demand', 3600000, %lld, %lld, NULL);"
        "INSERT INTO nodes(name, pool_id, size, capacity_type, price_hourly_micro, created_at,"
        " ready_at, k8s_deleted_at, gpu_allocatable, cpu_allocatable_milli, first_seen, last_seen)"
        " VALUES ('S', 'pool-spot', 'gpu-x-spot', 'spot', 1800000, %lld, %lld, %lld, 1, 8000,"
        " %lld, %lld),"
        " ('F', 'pool-fb', 'gpu-x', 'on-demand', 3600000, %lld, %lld, %lld, 1, 8000, %lld, %lld);",
        t - 3600, t + 7230, t + 7230, t - 3600, t + 7230, t - 30, t, t + 7200, t - 30, t + 7200,
        t - 30, t, t + 10800, t - 30, t + 10800);
    testdb_execf(
        d,
        "INSERT INTO tasks(uid, job_uid, namespace, name, configuration, experiment, created_at,"
        " started_at, completed_at, outcome, first_seen, last_seen) VALUES"
        " ('J1', 'J1', 'batch', 'job-one', 'fallback', 'exp-a', %lld, %lld, %lld, 'succeeded',"
        " %lld, %lld),"
        " ('J2', 'J2', 'batch', 'job-two', 'fallback', 'exp-a', %lld, %lld, %lld, 'succeeded',"
        " %lld, %lld),"
        " ('J3', 'J3', 'batch', 'job-three', 'fallback', NULL, %lld, %lld, %lld, 'succeeded',"
        " %lld, %lld);",
        t - 1, t + 60, t + 3660, t, t + 3660, t + 3699, t + 3760, t + 9000, t + 3699, t + 9000,
        t + 59, t + 60, t + 3660, t + 59, t + 3660);
    testdb_execf(
        d,
        "INSERT INTO attempts(uid, task_uid, job_uid, namespace, name, node_name, pool_id,"
        " gpu_request, cpu_request_milli, created_at, scheduled_at, started_at, finished_at,"
        " deleted_at, phase, reason, exit_code, report_status, report_restore_seconds,"
        " first_seen, last_seen) VALUES"
        " ('J1-a1', 'J1', 'J1', 'batch', 'job-one-p1', 'S', 'pool-spot', 1, 1000, %lld, %lld,"
        " %lld, %lld, NULL, 'Succeeded', NULL, 0, 'none', NULL, %lld, %lld),"
        " ('J2-a1', 'J2', 'J2', 'batch', 'job-two-p1', 'S', 'pool-spot', 1, 1000, %lld, %lld,"
        " %lld, NULL, %lld, 'Failed', NULL, NULL, 'none', NULL, %lld, %lld),"
        " ('J2-a2', 'J2', 'J2', 'batch', 'job-two-p2', 'F', 'pool-fb', 1, 1000, %lld, %lld,"
        " %lld, %lld, NULL, 'Succeeded', NULL, 0, 'ok', 120, %lld, %lld),"
        " ('J3-a1', 'J3', 'J3', 'batch', 'job-three-p1', 'F', 'pool-fb', 1, 1000, %lld, %lld,"
        " %lld, %lld, NULL, 'Succeeded', NULL, 0, 'none', NULL, %lld, %lld);",
        t - 1, t, t + 60, t + 3660, t - 1, t + 3660, t + 3699, t + 3700, t + 3760, t + 7200,
        t + 3699, t + 7200, t + 7259, t + 7260, t + 7320, t + 9000, t + 7259, t + 9000, t + 59,
        t + 60, t + 60, t + 3660, t + 59, t + 3660);
}

/* testdb_identical_tasks: five Spot tasks K0..K4 on node N (gpu-x-spot, $1.80/h = 500 µ$/s, 1 GPU,
 * Ready T0 .. T0+5000) and five On-Demand tasks O0..O4 on node O (gpu-x, $3.60/h = 1000 µ$/s, Ready
 * T0 .. T0+5000): task k is scheduled and started at T0+1000k and finishes at T0+1000(k+1), one
 * GPU. So every node is busy all its billable 5000 s (idle 0), every Spot task costs 1000 s x 500 =
 * 0.500000, every On-Demand task 1000 s x 1000 = 1.000000, and a Spot task priced On-Demand (its
 * run time 1000 s x the twin gpu-x's 1000 µ$/s) 1.000000. */
static inline void testdb_identical_tasks(const struct testdb *d) {
    const long long t = TESTDB_T0;
    testdb_gpu_x_sizes(d, t);
    testdb_execf(
        d,
        "INSERT INTO node_pools(id, cluster_id, name, size, capacity_type, price_hourly_micro,"
        " first_seen, last_seen, deleted_at) VALUES"
        " ('pool-spot', 'c1', 'gpu-spot', 'gpu-x-spot', 'spot', 1800000, %lld, %lld, NULL),"
        " ('pool-od', 'c1', 'gpu-od', 'gpu-x', 'on-demand', 3600000, %lld, %lld, NULL);"
        "INSERT INTO nodes(name, pool_id, size, capacity_type, price_hourly_micro, created_at,"
        " ready_at, k8s_deleted_at, gpu_allocatable, cpu_allocatable_milli, first_seen, last_seen)"
        " VALUES ('N', 'pool-spot', 'gpu-x-spot', 'spot', 1800000, %lld, %lld, %lld, 1, 8000,"
        " %lld, %lld),"
        " ('O', 'pool-od', 'gpu-x', 'on-demand', 3600000, %lld, %lld, %lld, 1, 8000, %lld, %lld);",
        t - 3600, t + 5000, t - 3600, t + 5000, t - 30, t, t + 5000, t - 30, t + 5000, t - 30, t,
        t + 5000, t - 30, t + 5000);
    for (int k = 0; k < 5; k++) {
        long long a = t + 1000LL * k, z = a + 1000;
        const char *cfg[2] = {"spot", "on-demand"}, *node[2] = {"N", "O"},
                   *pool[2] = {"pool-spot", "pool-od"}, *pre[2] = {"K", "O"};
        for (int j = 0; j < 2; j++)
            testdb_execf(
                d,
                "INSERT INTO tasks(uid, job_uid, namespace, name, configuration, experiment,"
                " created_at, started_at, completed_at, outcome, first_seen, last_seen) VALUES"
                " ('%s%d', '%s%d', 'batch', 'job-%s%d', '%s', 'exp-b', %lld, %lld, %lld,"
                " 'succeeded', %lld, %lld);"
                "INSERT INTO attempts(uid, task_uid, job_uid, namespace, name, node_name, pool_id,"
                " gpu_request, cpu_request_milli, created_at, scheduled_at, started_at,"
                " finished_at, deleted_at, phase, reason, exit_code, report_status,"
                " report_restore_seconds, first_seen, last_seen) VALUES"
                " ('%s%d-a1', '%s%d', '%s%d', 'batch', 'job-%s%d-p1', '%s', '%s', 1, 1000, %lld,"
                " %lld, %lld, %lld, NULL, 'Succeeded', NULL, 0, 'none', NULL, %lld, %lld);",
                pre[j], k, pre[j], k, pre[j], k, cfg[j], a - 1, a, z, a - 1, z, pre[j], k, pre[j],
                k, pre[j], k, pre[j], k, node[j], pool[j], a - 1, a, a, z, a - 1, z);
    }
}

#endif
