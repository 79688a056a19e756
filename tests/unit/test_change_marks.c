/* Precise change marks (schema/010, docs/performance.md "Closed, kept,
 * invalidated"): a raw row about a day moves the change version of the days it
 * can reach and of no other day, and re-storing rows that did not change moves
 * nothing. The versions are read with store_day_versions over 40 days around
 * the rows, the way query/compose.c decides whether a kept day is still valid.
 *
 * Reach of a mark (store_read.c): day d's version counts the marks of days
 * [d - 1 - (span + life) / day, d + 1 + life / day] rounded out, where span is
 * the longest attempt (3,000 s here) and life the longest task (3,600 s): with
 * the one task of the fixture a mark on day D reaches days D-2 .. D+2. So "day D
 * only" is checked as: D moves, days <= D-3 and >= D+3 stay. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "base/log.h"
#include "model/do.h"
#include "store/store.h"
#include "store/store_do.h"
#include "store/store_internal.h"
#include "store/store_read.h"
#include "testdb.h"

#define DAY 86400
/* 2026-11-12 (TESTDB_T0 is 2026-11-02 = day 20759; + 10 days) */
#define B 20769
#define D0 (B - 20)
#define ND 40

static void vexec_ok(struct store *s, const char *fmt, va_list ap) {
    char sql[2048];
    vsnprintf(sql, sizeof sql, fmt, ap);
    char *err = NULL;
    if (sqlite3_exec(store_db(s), sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("%s: %s", sql, err);
}

static void exec_ok(struct store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void exec_ok(struct store *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vexec_ok(s, fmt, ap);
    va_end(ap);
}

static int setup(void **state) {
    log_set_level(LOG_OFF);
    testdb_fx_setup(state);
    struct testdb_fx *f = *state;
    /* one task of 3,600 s with an attempt of 3,000 s on day B: span and life */
    exec_ok(f->s,
            "INSERT INTO tasks(uid, job_uid, namespace, name, created_at, completed_at, outcome,"
            " first_seen, last_seen) VALUES ('t1','j1','ns','job',%lld,%lld,'succeeded',1,1);"
            "INSERT INTO attempts(uid, task_uid, namespace, name, node_name, scheduled_at, "
            " finished_at, phase, first_seen, last_seen) "
            "VALUES ('a1','t1','ns','pod','n-old',%lld,%lld,'Succeeded',1,1);",
            (long long)B * DAY, (long long)B * DAY + 3600, (long long)B * DAY,
            (long long)B * DAY + 3000);
    /* a node alive since 50 days before B, its pool and its size's first price */
    exec_ok(f->s,
            "INSERT INTO node_pools(id, cluster_id, name, size, capacity_type, first_seen, "
            " last_seen) VALUES ('p1','c1','gpu','g1','on-demand',%lld,%lld);"
            "INSERT INTO size_prices(slug, observed_at, price_hourly_micro, price_monthly_micro)"
            " VALUES ('g1', %lld, 3600000, 2000000000);"
            "INSERT INTO nodes(name, pool_id, size, created_at, ready_at, first_seen, last_seen)"
            " VALUES ('n-old','p1','g1',%lld,%lld,%lld,%lld);",
            (long long)(B - 50) * DAY, (long long)(B - 50) * DAY, (long long)(B - 50) * DAY,
            (long long)(B - 50) * DAY, (long long)(B - 50) * DAY + 60, (long long)(B - 50) * DAY,
            (long long)(B - 50) * DAY);
    return 0;
}

static void versions(struct testdb_fx *f, int64_t (*v)[2]) {
    assert_int_equal(store_day_versions(f->s, D0, D0 + ND, v), ERR_OK);
}

/* The response cache's version of each day (store_window_version: billing too). */
static void wversions(struct testdb_fx *f, int64_t (*v)[2]) {
    for (int i = 0; i < ND; i++)
        assert_int_equal(
            store_window_version(f->s, (D0 + i) * (int64_t)DAY, (D0 + i + 1) * (int64_t)DAY, v[i]),
            ERR_OK);
}

/* Days of [D0, D0 + ND) whose version moved between a and b: bit i of the
 * returned mask for day D0 + i. */
static uint64_t moved(int64_t (*a)[2], int64_t (*b)[2]) {
    uint64_t m = 0;
    for (int i = 0; i < ND; i++)
        if (a[i][0] != b[i][0] || a[i][1] != b[i][1])
            m |= (uint64_t)1 << i;
    return m;
}

static bool day_moved(uint64_t m, int64_t d) {
    return (m >> (d - D0)) & 1;
}

/* The days [lo, hi] moved and no other day of the 40. */
static void assert_moved_exactly(uint64_t m, int64_t lo, int64_t hi) {
    for (int64_t d = D0; d < D0 + ND; d++) {
        bool want = d >= lo && d <= hi;
        if (day_moved(m, d) != want)
            fail_msg("day B%+lld: %s", (long long)(d - B), want ? "kept its version" : "moved");
    }
}

/* Runs the SQL (printf-style, on the store's connection) and asserts that it moved the
 * versions of the days [lo, hi] and of no other day of the 40. */
static void assert_sql_moves(struct testdb_fx *f, int64_t lo, int64_t hi, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void assert_sql_moves(struct testdb_fx *f, int64_t lo, int64_t hi, const char *fmt, ...) {
    int64_t a[ND][2], b[ND][2];
    versions(f, a);
    va_list ap;
    va_start(ap, fmt);
    vexec_ok(f->s, fmt, ap);
    va_end(ap);
    versions(f, b);
    assert_moved_exactly(moved(a, b), lo, hi);
}

/* A node that lived a few hours of day B, seen late (inserted after the fact):
 * day B and the days its marks reach move; days before and after stay. Before
 * schema/010 a node insert bumped day 0 and moved every day. */
static void test_late_node(void **state) {
    struct testdb_fx *f = *state;
    assert_sql_moves(f, B - 2, B + 2,
                     "INSERT INTO nodes(name, pool_id, size, created_at, ready_at, k8s_deleted_at, "
                     " first_seen, last_seen) VALUES ('n-late','p1','g1',%lld,%lld,%lld,%lld,%lld)",
                     (long long)B * DAY + 3600, (long long)B * DAY + 3700,
                     (long long)B * DAY + 5 * 3600, (long long)(B + 15) * DAY,
                     (long long)(B + 15) * DAY);
    /* its NotReady time: the same days; a window far from it keeps its version too */
    int64_t w0[2], w1[2];
    assert_int_equal(store_window_version(f->s, (B + 8) * DAY, (B + 15) * DAY, w0), ERR_OK);
    assert_sql_moves(f, B - 2, B + 2, "UPDATE nodes SET not_ready_at = %lld WHERE name = 'n-late'",
                     (long long)B * DAY + 4 * 3600);
    assert_int_equal(store_window_version(f->s, (B + 8) * DAY, (B + 15) * DAY, w1), ERR_OK);
    assert_int_equal(w1[0], w0[0]);
    assert_int_equal(w1[1], w0[1]);
}

/* A late pod (attempt) on day B + 5: that day's reach moves, nothing else. */
static void test_late_attempt(void **state) {
    assert_sql_moves(
        *state, B + 3, B + 7,
        "INSERT INTO attempts(uid, task_uid, namespace, name, node_name, scheduled_at, "
        " finished_at, phase, first_seen, last_seen) "
        "VALUES ('a-late','t1','ns','pod2','n-old',%lld,%lld,'Failed',1,1)",
        (long long)(B + 5) * DAY + 600, (long long)(B + 5) * DAY + 900);
}

/* A task created on day B + 5 and not finished (what the watcher stores for a
 * new Job), then completing 2 h later: the days of its reach move, nothing else.
 * Before schema/011 an unfinished task marked day 0: every day moved. */
static void test_new_task(void **state) {
    struct testdb_fx *f = *state;
    assert_sql_moves(f, B + 3, B + 7,
                     "INSERT INTO tasks(uid, job_uid, namespace, name, created_at, first_seen,"
                     " last_seen) VALUES ('t-new','j2','ns','job2',%lld,1,1)",
                     (long long)(B + 5) * DAY + 600);
    assert_sql_moves(
        f, B + 3, B + 7,
        "UPDATE tasks SET completed_at = %lld, outcome = 'succeeded' WHERE uid = 't-new'",
        (long long)(B + 5) * DAY + 7800);
}

/* A node deleted on day B after 50 days of life: the days from B on move (they
 * were computed with the node alive), the days before stay. */
static void test_node_deleted(void **state) {
    assert_sql_moves(*state, B - 2, D0 + ND - 1,
                     "UPDATE nodes SET k8s_deleted_at = %lld WHERE name = 'n-old'",
                     (long long)B * DAY + 7200);
}

/* A price change at B + 2 h: from its day on (minus the reach), not before. The
 * size's first price moved every day (it prices what came before it). */
static void test_price_change(void **state) {
    struct testdb_fx *f = *state;
    int64_t a[ND][2], b[ND][2];
    versions(f, a);
    struct do_size z = {.slug = (char[]){"g1"},
                        .vcpus = 8,
                        .memory_mb = 1024,
                        .gpu_count = 1,
                        .gpu_vram_gb = 80,
                        .price_hourly = 3600000,
                        .price_monthly = 2000000000};
    bool changed = true;
    /* the same price again: nothing */
    assert_int_equal(store_do_upsert_size(f->s, &z, (int64_t)B * DAY, &changed), ERR_OK);
    assert_false(changed);
    versions(f, b);
    assert_int_equal(moved(a, b), 0);
    z.price_hourly = 4000000;
    assert_int_equal(store_do_upsert_size(f->s, &z, (int64_t)B * DAY + 7200, &changed), ERR_OK);
    assert_true(changed);
    versions(f, b);
    assert_moved_exactly(moved(a, b), B - 2, D0 + ND - 1);
    /* a new size's first price: every day */
    z.slug = (char[]){"g2"};
    assert_int_equal(store_do_upsert_size(f->s, &z, (int64_t)B * DAY, &changed), ERR_OK);
    versions(f, a);
    assert_moved_exactly(moved(b, a), D0, D0 + ND - 1);
}

/* What the pollers do every few seconds: re-store the same cluster, pool, node,
 * invoice and items, and the watcher's no-op node and pod updates. Nothing moves. */
static void test_restore_unchanged(void **state) {
    struct testdb_fx *f = *state;
    struct do_node n = {.id = (char[]){"do-1"},
                        .name = (char[]){"n-do"},
                        .state = (char[]){"running"},
                        .droplet_id = (char[]){"77"},
                        .created_at = (int64_t)(B - 3) * DAY};
    struct do_pool p = {.id = (char[]){"p1"},
                        .name = (char[]){"gpu"},
                        .size = (char[]){"g1"},
                        .count = 1,
                        .min_nodes = 1,
                        .max_nodes = 2,
                        .nodes = &n,
                        .n_nodes = 1};
    struct do_invoice inv = {.uuid = (char[]){"inv-prev"},
                             .period = (char[]){"2026-11"},
                             .amount = 1234,
                             .updated_at = (char[]){"x"},
                             .preview = true};
    struct do_invoice_item items[2] = {
        {.product = (char[]){"Kubernetes"},
         .resource_uuid = (char[]){"do-1"},
         .description = (char[]){"node"},
         .amount = 1000,
         .start_time = (int64_t)(B - 3) * DAY},
        {.product = (char[]){"Droplets"}, .description = (char[]){"other"}, .amount = 234}};
    int64_t seen = (int64_t)(B + 19) * DAY;
    assert_int_equal(store_do_upsert_pool(f->s, "c1", &p, "on-demand", "slug", 3600000, seen),
                     ERR_OK);
    assert_int_equal(store_do_upsert_node(f->s, &p, &n, "on-demand", 3600000, seen), ERR_OK);
    assert_int_equal(store_do_upsert_invoice(f->s, &inv, seen), ERR_OK);
    assert_int_equal(store_do_replace_invoice_items(f->s, inv.uuid, items, 2), ERR_OK);
    int64_t a[ND][2], b[ND][2], wa[ND][2], wb[ND][2];
    versions(f, a);
    wversions(f, wa);
    for (int k = 0; k < 3; k++) {
        seen += 60;
        assert_int_equal(store_do_upsert_pool(f->s, "c1", &p, "on-demand", "slug", 3600000, seen),
                         ERR_OK);
        assert_int_equal(store_do_upsert_node(f->s, &p, &n, "on-demand", 3600000, seen), ERR_OK);
        assert_int_equal(store_do_upsert_invoice(f->s, &inv, seen), ERR_OK);
        assert_int_equal(store_do_replace_invoice_items(f->s, inv.uuid, items, 2), ERR_OK);
        exec_ok(f->s,
                "UPDATE nodes SET last_seen = %lld, ready_status = 'True' WHERE name = 'n-old';"
                "UPDATE attempts SET last_seen = %lld, phase = 'Succeeded' WHERE uid = 'a1';",
                (long long)seen, (long long)seen);
    }
    versions(f, b);
    wversions(f, wb);
    assert_int_equal(moved(a, b), 0);
    assert_int_equal(moved(wa, wb), 0);
    /* the preview's items do change: the cached responses of its month move (Nov
     * 2026 = days 20758 .. 20787, B = 20769; with the reach 20756 .. 20789),
     * October's stay; no day's partial sums move (they read no billing row) */
    items[1].amount = 250;
    assert_int_equal(store_do_replace_invoice_items(f->s, inv.uuid, items, 2), ERR_OK);
    versions(f, a);
    wversions(f, wa);
    assert_moved_exactly(moved(wb, wa), 20758 - 2, 20787 + 2);
    assert_int_equal(moved(b, a), 0);
    /* one item fewer is a change too */
    assert_int_equal(store_do_replace_invoice_items(f->s, inv.uuid, items, 1), ERR_OK);
    wversions(f, wb);
    assert_true(day_moved(moved(wa, wb), B));
    assert_false(day_moved(moved(wa, wb), 20787 + 3));
}

/* The per-day versions stay store_window_version's, day by day. */
static void test_day_equals_window(void **state) {
    struct testdb_fx *f = *state;
    exec_ok(f->s,
            "INSERT INTO nodes(name, pool_id, created_at, k8s_deleted_at, first_seen, last_seen)"
            " VALUES ('n-x','p1',%lld,%lld,1,1);"
            "INSERT INTO reclaims(pool_id, detected_at, first_signal_at) VALUES ('p1',%lld,%lld)",
            (long long)(B - 9) * DAY, (long long)(B - 6) * DAY, (long long)(B + 4) * DAY,
            (long long)(B + 4) * DAY - 300);
    int64_t v[ND][2];
    versions(f, v);
    for (int i = 0; i < ND; i++) {
        int64_t one[2];
        assert_int_equal(
            store_window_version(f->s, (D0 + i) * (int64_t)DAY, (D0 + i + 1) * (int64_t)DAY, one),
            ERR_OK);
        assert_int_equal(one[0], v[i][0]);
        assert_int_equal(one[1], v[i][1]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_late_node, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_late_attempt, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_new_task, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_node_deleted, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_price_change, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_restore_unchanged, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_day_equals_window, setup, testdb_fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
