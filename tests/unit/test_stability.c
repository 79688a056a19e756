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
#include "base/buf.h"
#include "query/calc.h"
#include "query/report.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "testdb.h"

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
    struct testdb_fx *f = *state;
    struct store *s = f->s;
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
}

/* A closed week before and after a list-price change, and a day of it alone and
 * inside the week, through the real store (docs/cost-model.md "Stability").
 * Sizes (listed from W0 - 1 d): gpu-x (On-Demand, 1 GPU) $3.60/h; gpu-x-spot
 * $1.80/h, dropping to $0.72/h at W0 + 2 d. Spot pool p-spot (gpu-x-spot, first
 * seen at $1.80/h).
 *  - node s1, its own price $1.80/h (500 µ$/s), Ready W0, deleted W0 + 1 d:
 *    86400 s x 500 = 43.200000.
 *  - node s2, no price of its own (only Kubernetes saw it), created and Ready
 *    D3 = W0 + 3 d, deleted D3 + 2 h: the price in force at its creation,
 *    $0.72/h = 200 µ$/s: 7200 x 200 = 1.440000 (the pool's first-seen price
 *    would give 3.600000).
 *  - task A (spot): a1 on s1 W0 + 1 h -> W0 + 2 h: useful 3600 x 500 = 1.800000.
 *  - task B (spot): b1 on s2 D3 -> D3 + 1 h: useful 3600 x 200 = 0.720000.
 * Week: nodes 44.640000, all spot's (the only configuration using the pool):
 * spot cost 44.640000, 22.320000 per task. Counterfactual: the "-spot" twin
 * gpu-x at the price in force when each ran, 2 x 3600 s x 1000 µ$/s = 7.200000;
 * useful re-priced at the On-Demand rate in force at the week's end ($3.60/h):
 * 1.8 x 3600000 / 1800000 + 0.72 x 3600000 / 720000 = 7.200000.
 * Then, after the week (W0 + 9 d), gpu-x rises to $7.20/h and gpu-x-spot to
 * $0.90/h: the week's summary, nodes and pools are byte-identical (v1 re-priced
 * the break-even at the latest list price: 14.400000, On-Demand rate 7.2 $/h).
 * Day D3 alone and as part of the week: s2's 1.440000, B's 0.720000, spot cost
 * 1.440000, identical bytes. */
static void prices_rows(struct store *s) {
    char sql[4096];
    long long w = (long long)W0, d3 = (long long)(W0 + 3 * DAY);
    snprintf(sql, sizeof sql,
             "INSERT INTO sizes(slug, gpu_count, first_seen, last_seen) VALUES"
             " ('gpu-x', 1, %lld, %lld), ('gpu-x-spot', 1, %lld, %lld);"
             "INSERT INTO size_prices(slug, observed_at, price_hourly_micro, price_monthly_micro)"
             " VALUES ('gpu-x', %lld, 3600000, 0), ('gpu-x-spot', %lld, 1800000, 0),"
             " ('gpu-x-spot', %lld, 720000, 0);"
             "INSERT INTO node_pools(id, name, size, capacity_type, price_hourly_micro, first_seen,"
             " last_seen) VALUES ('p-spot', 'spot', 'gpu-x-spot', 'spot', 1800000, %lld, %lld);"
             "INSERT INTO nodes(name, pool_id, price_hourly_micro, created_at, ready_at,"
             " k8s_deleted_at, gpu_allocatable, cpu_allocatable_milli, first_seen, last_seen)"
             " VALUES ('s1', 'p-spot', 1800000, %lld, %lld, %lld, 1, 8000, 1, 1),"
             " ('s2', 'p-spot', NULL, %lld, %lld, %lld, 1, 8000, 1, 1);"
             "INSERT INTO tasks(uid, job_uid, namespace, name, configuration, created_at,"
             " completed_at, outcome, first_seen, last_seen) VALUES"
             " ('A', 'A', 'ns', 'a', 'spot', %lld, %lld, 'succeeded', 1, 1),"
             " ('B', 'B', 'ns', 'b', 'spot', %lld, %lld, 'succeeded', 1, 1);"
             "INSERT INTO attempts(uid, task_uid, namespace, name, node_name, gpu_request,"
             " cpu_request_milli, created_at, scheduled_at, started_at, finished_at, phase,"
             " first_seen, last_seen) VALUES"
             " ('a1', 'A', 'ns', 'a1', 's1', 1, 1000, %lld, %lld, %lld, %lld, 'Succeeded', 1, 1),"
             " ('b1', 'B', 'ns', 'b1', 's2', 1, 1000, %lld, %lld, %lld, %lld, 'Succeeded', 1, 1);",
             w - DAY, w - DAY, w - DAY, w - DAY, w - DAY, w - DAY, w + 2 * DAY, w - DAY, w - DAY, w,
             w, w + DAY, d3, d3, d3 + 2 * H, w + H, w + 2 * H, d3, d3 + H, w + H, w + H, w + H,
             w + 2 * H, d3, d3, d3, d3 + H);
    exec_ok(s, sql);
}

/* The summary, nodes and pools of r, as the API writes them, in one buffer. */
static void render(const struct cost_result *r, struct buf *b) {
    buf_init(b, 0);
    assert_int_equal(report_summary_json(r, b), ERR_OK);
    assert_int_equal(report_nodes_json(r, b), ERR_OK);
    assert_int_equal(report_pools_json(r, b), ERR_OK);
}

/* Two renderings are the same bytes; both are released. */
static void assert_same_bytes(struct buf *a, struct buf *b) {
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->data, b->data, a->len);
    buf_release(a);
    buf_release(b);
}

static void check_week(const struct cost_result *r) {
    assert_int_equal(r->nodes_total, 44640000);
    assert_int_equal(r->configs[COST_SPOT].cost, 44640000);
    assert_int_equal(r->configs[COST_SPOT].useful_cost, 2520000);
    assert_int_equal(r->configs[COST_SPOT].tasks_succeeded, 2);
    assert_int_equal(r->configs[COST_SPOT].cost_per_successful_task, 22320000);
    assert_int_equal(r->counterfactual.cost, 7200000);
    assert_int_equal(r->configs[COST_SPOT].useful_at_on_demand, 7200000);
    assert_int_equal(r->pools[0].od_price_hourly, 3600000);
}

static void check_d3(const struct cost_result *r) {
    assert_int_equal(r->nodes_total, 1440000);
    assert_int_equal(r->configs[COST_SPOT].cost, 1440000);
    assert_int_equal(r->configs[COST_SPOT].useful_cost, 720000);
    assert_int_equal(r->configs[COST_SPOT].tasks_succeeded, 1);
}

static void test_closed_week_across_price_change(void **state) {
    struct testdb_fx *f = *state;
    struct store *s = f->s;
    prices_rows(s);
    const int64_t now = W0 + 10 * DAY, d3 = W0 + 3 * DAY;
    struct cost_query wq = {.from = W0, .to = W0 + 7 * DAY, .now = now};
    struct cost_query dq = {.from = d3, .to = d3 + DAY, .now = now};
    struct calc before, after, day;
    struct buf b1, b2, b3;
    assert_int_equal(calc_run(s, NULL, W0, W0 + 7 * DAY, &wq, &before), ERR_OK);
    check_week(before.res);
    render(before.res, &b1);
    /* the day alone, then as part of the week */
    assert_int_equal(calc_run(s, NULL, d3, d3 + DAY, &dq, &day), ERR_OK);
    check_d3(day.res);
    render(day.res, &b2);
    assert_int_equal(calc_recompute(&before, &dq), ERR_OK);
    check_d3(before.res);
    render(before.res, &b3);
    assert_same_bytes(&b2, &b3);
    /* a list-price change observed after the week */
    char sql[256];
    snprintf(sql, sizeof sql,
             "INSERT INTO size_prices(slug, observed_at, price_hourly_micro, price_monthly_micro)"
             " VALUES ('gpu-x', %lld, 7200000, 0), ('gpu-x-spot', %lld, 900000, 0)",
             (long long)(W0 + 9 * DAY), (long long)(W0 + 9 * DAY));
    exec_ok(s, sql);
    assert_int_equal(calc_run(s, NULL, W0, W0 + 7 * DAY, &wq, &after), ERR_OK);
    check_week(after.res);
    render(after.res, &b2);
    assert_same_bytes(&b1, &b2);
    calc_release(&before);
    calc_release(&after);
    calc_release(&day);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_day_alone_equals_day_in_week, testdb_fx_setup,
                                        testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_closed_week_across_price_change, testdb_fx_setup,
                                        testdb_fx_teardown),
    };
    log_set_level(LOG_OFF);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
