/* test_stability — cost model v2 "Stability" (docs/cost-model.md): a figure for a
 * window depends only on the raw rows, never on the range a query loaded.
 *
 * Rows (W0 = 2026-03-02T00:00Z, a Monday; day D = W0 + 1 d): one on-demand GPU
 * node n1 (1 GPU, $3.60/h = 1000 µ$/s) Ready W0, deleted W0 + 7 d.
 *  - task A (spot): attempt a1 on n1 D -> D + 1 h, succeeded; A completes D + 1 h.
 *  - task B (spot, its Job's creation time unknown): attempt b1 on n1
 *    D + 2 h -> D + 3 h, failed; b2 on n1 D + 5 d - 1 h -> D + 5 d, succeeded; B
 *    completes D + 5 d.
 * Day D: n1 bills 86400 s x 1000 = 86.400; a1 useful 3.600, b1 wasted 3.600, idle
 * 79.200, all spot's (the only configuration that used the pool): spot = 86.400.
 * Loaded alone, day D sees b1 but not B's row (B completes outside the ranges
 * the day loads); v1 gave b1 a placeholder task (default configuration
 * fallback, running): spot 43.200, fallback 43.200. Loaded as part of its week,
 * B's row is there. Both must say spot 86.400. */
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
#include "query/calc.h"
#include "store/store.h"
#include "store/store_internal.h"

#define W0 INT64_C(1772409600) /* 2026-03-02T00:00:00Z */
#define H 3600
#define DAY 86400
#define D (W0 + DAY)

static void exec_ok(struct store *s, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(store_db(s), sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("%s: %s", sql, err);
}

static void rows(struct store *s) {
    char sql[4096];
    snprintf(sql, sizeof sql,
             "INSERT INTO node_pools(id, name, size, capacity_type, price_hourly_micro, first_seen,"
             " last_seen) VALUES ('p-od', 'od', 'gpu-x', 'on-demand', 3600000, 1, 1);"
             "INSERT INTO nodes(name, pool_id, price_hourly_micro, created_at, ready_at,"
             " k8s_deleted_at, gpu_allocatable, cpu_allocatable_milli, first_seen, last_seen)"
             " VALUES ('n1', 'p-od', 3600000, %lld, %lld, %lld, 1, 8000, 1, 1);"
             "INSERT INTO tasks(uid, job_uid, namespace, name, configuration, created_at,"
             " completed_at, outcome, first_seen, last_seen) VALUES"
             " ('A', 'A', 'ns', 'a', 'spot', %lld, %lld, 'succeeded', 1, 1),"
             " ('B', 'B', 'ns', 'b', 'spot', NULL, %lld, 'succeeded', 1, 1);"
             "INSERT INTO attempts(uid, task_uid, namespace, name, node_name, gpu_request,"
             " cpu_request_milli, created_at, scheduled_at, started_at, finished_at, phase,"
             " first_seen, last_seen) VALUES"
             " ('a1', 'A', 'ns', 'a1', 'n1', 1, 1000, %lld, %lld, %lld, %lld, 'Succeeded', 1, 1),"
             " ('b1', 'B', 'ns', 'b1', 'n1', 1, 1000, %lld, %lld, %lld, %lld, 'Failed', 1, 1),"
             " ('b2', 'B', 'ns', 'b2', 'n1', 1, 1000, %lld, %lld, %lld, %lld, 'Succeeded', 1, 1);",
             (long long)W0, (long long)W0, (long long)(W0 + 7 * DAY), (long long)D,
             (long long)(D + H), (long long)(D + 5 * DAY), (long long)D, (long long)D, (long long)D,
             (long long)(D + H), (long long)(D + 2 * H), (long long)(D + 2 * H),
             (long long)(D + 2 * H), (long long)(D + 3 * H), (long long)(D + 5 * DAY - H),
             (long long)(D + 5 * DAY - H), (long long)(D + 5 * DAY - H), (long long)(D + 5 * DAY));
    exec_ok(s, sql);
}

static void check_day(const struct cost_result *r) {
    assert_int_equal(r->nodes_total, 86400000);
    assert_int_equal(r->configs[COST_SPOT].cost, 86400000);
    assert_int_equal(r->configs[COST_SPOT].useful_cost, 3600000);
    assert_int_equal(r->configs[COST_SPOT].wasted_cost, 3600000);
    assert_int_equal(r->configs[COST_SPOT].tasks_succeeded, 1);
    assert_int_equal(r->configs[COST_FALLBACK].cost, 0);
    assert_int_equal(r->configs[COST_FALLBACK].tasks_running, 0);
}

static void test_day_alone_equals_day_in_week(void **state) {
    (void)state;
    log_set_level(LOG_OFF);
    char path[] = "/tmp/spotledger-stab-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct store *s = NULL;
    assert_int_equal(store_open(path, STORE_WRITER, &s, NULL), ERR_OK);
    rows(s);
    struct cost_query q = {.from = D, .to = D + DAY, .now = W0 + 8 * DAY};
    struct calc alone, week;
    assert_int_equal(calc_run(s, NULL, D, D + DAY, &q, &alone), ERR_OK);
    check_day(alone.res);
    struct cost_query wq = {.from = W0, .to = W0 + 7 * DAY, .now = W0 + 8 * DAY};
    assert_int_equal(calc_run(s, NULL, W0, W0 + 7 * DAY, &wq, &week), ERR_OK);
    assert_int_equal(calc_recompute(&week, &q), ERR_OK);
    check_day(week.res);
    calc_release(&alone);
    calc_release(&week);
    store_free(s);
    unlink(path);
    char p2[64];
    snprintf(p2, sizeof p2, "%s-wal", path);
    unlink(p2);
    snprintf(p2, sizeof p2, "%s-shm", path);
    unlink(p2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_day_alone_equals_day_in_week),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
