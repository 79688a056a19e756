/* test_api_basis — basis= on /api/v1/timeseries, /api/v1/tasks and
 * /api/v1/experiments, the experiments' 95 % intervals (uncertainty=true) and the
 * summary's on the completion basis,
 * in process (router_handle) against temporary databases (testdb.h). Expected
 * figures are worked out by hand beside each check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "apitest.h"

/* Across midnight (T0 = Monday 2026-11-02 00:00), every node $3.60/h = 1000 µ$/s,
 * one GPU, busy all its billable time (no idle):
 *   X (fallback, exp-m): on M, Ready T0-3600 .. deleted T0+3600, holds it
 *     T0-3600 .. T0+3600 and succeeds at T0+3600: 3600 s on Sunday, 3600 s on
 *     Monday;
 *   Y (fallback, exp-m): on M2, T0 .. T0+1800, fails at T0+1800: 1.800000;
 *   Z (on-demand, exp-n): on M3, T0+7200 .. T0+9000, succeeds: 1.800000. */
static void across_midnight(const struct testdb *d) {
    const long long t = TESTDB_T0;
    testdb_execf(
        d,
        "INSERT INTO sizes(slug, vcpus, memory_mb, gpu_count, first_seen, last_seen) VALUES"
        " ('gpu-x', 8, 65536, 1, %lld, %lld);"
        "INSERT INTO size_prices VALUES ('gpu-x', %lld, 3600000, 2419200000);"
        "INSERT INTO node_pools(id, cluster_id, name, size, capacity_type, price_hourly_micro,"
        " first_seen, last_seen, deleted_at) VALUES"
        " ('pool-fb', 'c1', 'gpu-fallback', 'gpu-x', 'on-demand', 3600000, %lld, %lld, NULL);",
        t - 7200, t, t - 7200, t - 7200, t);
    const struct {
        const char *node;
        long long ready, gone;
        const char *task, *cfg, *exp, *outcome, *phase;
        int exit_code;
    } r[3] = {
        {"M", t - 3600, t + 3600, "X", "fallback", "exp-m", "succeeded", "Succeeded", 0},
        {"M2", t, t + 1800, "Y", "fallback", "exp-m", "failed", "Failed", 1},
        {"M3", t + 7200, t + 9000, "Z", "on-demand", "exp-n", "succeeded", "Succeeded", 0},
    };
    for (int i = 0; i < 3; i++)
        testdb_execf(
            d,
            "INSERT INTO nodes(name, pool_id, size, capacity_type, price_hourly_micro, created_at,"
            " ready_at, k8s_deleted_at, gpu_allocatable, cpu_allocatable_milli, first_seen,"
            " last_seen) VALUES ('%s', 'pool-fb', 'gpu-x', 'on-demand', 3600000, %lld, %lld,"
            " %lld, 1, 8000, %lld, %lld);"
            "INSERT INTO tasks(uid, job_uid, namespace, name, configuration, experiment,"
            " created_at, started_at, completed_at, outcome, first_seen, last_seen) VALUES"
            " ('%s', '%s', 'batch', 'job-%s', '%s', '%s', %lld, %lld, %lld, '%s', %lld, %lld);"
            "INSERT INTO attempts(uid, task_uid, job_uid, namespace, name, node_name, pool_id,"
            " gpu_request, cpu_request_milli, created_at, scheduled_at, started_at, finished_at,"
            " deleted_at, phase, reason, exit_code, report_status, report_restore_seconds,"
            " first_seen, last_seen) VALUES ('%s-a1', '%s', '%s', 'batch', 'job-%s-p1', '%s',"
            " 'pool-fb', 1, 1000, %lld, %lld, %lld, %lld, NULL, '%s', NULL, %d, 'none', NULL,"
            " %lld, %lld);",
            r[i].node, r[i].ready - 30, r[i].ready, r[i].gone, r[i].ready - 30, r[i].gone,
            r[i].task, r[i].task, r[i].task, r[i].cfg, r[i].exp, r[i].ready - 1, r[i].ready,
            r[i].gone, r[i].outcome, r[i].ready - 1, r[i].gone, r[i].task, r[i].task, r[i].task,
            r[i].task, r[i].node, r[i].ready - 1, r[i].ready, r[i].ready, r[i].gone, r[i].phase,
            r[i].exit_code, r[i].ready - 1, r[i].gone);
}

static int setup_midnight(void **state) {
    return apitest_setup_rows(state, across_midnight);
}

static int setup_identical(void **state) {
    return apitest_setup_rows(state, testdb_identical_tasks);
}

/* Each request answers 400 bad_parameter with a message naming basis. */
static void bad_basis(struct apitest *t, const char *const *bad, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (apitest_call(t, bad[i]) != 400)
            fail_msg("%s: %d %s", bad[i], t->resp.status, apitest_body(t));
        assert_string_equal(jerr(t), "bad_parameter");
        assert_non_null(strstr(jstr(t, "error.message"), "basis"));
    }
}

#define SUNMON "from=2026-11-01T00:00:00Z&to=2026-11-03T00:00:00Z"
#define MONDAY "from=2026-11-02T00:00:00Z&to=2026-11-03T00:00:00Z"
#define PT(s, i) (snprintf(path, sizeof path, "series.%d.points.%d.value", (s), (i)), path)

/* Daily cost of fallback (series 1):
 *   accrual: Sunday X 3600 s x 1000 = 3.600000; Monday X 3.600000 + Y 1.800000 =
 *     5.400000; per task: Sunday none succeeded (null), Monday 5.400000 / 1;
 *   completion: Sunday no task succeeded: 0 (null per task); Monday X's whole
 *     7200 s = 7.200000 (Y failed: its cost is on the accrual basis only),
 *     7.200000 per task; successes 0 and 1 on both bases. */
static void test_timeseries_basis(void **state) {
    struct apitest *t = *state;
    char path[96];
    assert_int_equal(apitest_call(t, "GET /api/v1/timeseries?" SUNMON "&step=1d&metric=cost"), 200);
    assert_string_equal(jstr(t, "cost_basis"), "accrual");
    assert_string_equal(jstr(t, "series.1.configuration"), "fallback");
    assert_int_equal(jmicro(t, PT(1, 0)), 3600000);
    assert_int_equal(jmicro(t, PT(1, 1)), 5400000);
    assert_int_equal(
        apitest_call(t, "GET /api/v1/timeseries?" SUNMON "&step=1d&metric=cost&basis=completion"),
        200);
    assert_string_equal(jstr(t, "cost_basis"), "completion");
    assert_int_equal(jmicro(t, PT(1, 0)), 0);
    assert_int_equal(jmicro(t, PT(1, 1)), 7200000);
    /* Z on Monday: on-demand (series 2) 1.800000 on both bases */
    assert_int_equal(jmicro(t, PT(2, 1)), 1800000);
    assert_int_equal(apitest_call(t, "GET /api/v1/timeseries?" SUNMON "&step=1d&basis=completion"),
                     200);
    assert_true(jnull(t, PT(1, 0)));
    assert_int_equal(jmicro(t, PT(1, 1)), 7200000);
    assert_int_equal(apitest_call(t, "GET /api/v1/timeseries?" SUNMON "&step=1d"), 200);
    assert_true(jnull(t, PT(1, 0)));
    assert_int_equal(jmicro(t, PT(1, 1)), 5400000);
    assert_int_equal(
        apitest_call(t, "GET /api/v1/timeseries?" SUNMON "&step=1d&metric=tasks&basis=completion"),
        200);
    assert_int_equal(jint(t, PT(1, 0)), 0);
    assert_int_equal(jint(t, PT(1, 1)), 1);
    /* the cache keeps the bases apart: accrual again after completion */
    assert_int_equal(apitest_call(t, "GET /api/v1/timeseries?" SUNMON "&step=1d&metric=cost"), 200);
    assert_string_equal(jstr(t, "cost_basis"), "accrual");
    assert_int_equal(jmicro(t, PT(1, 1)), 5400000);
    assert_int_equal(
        apitest_call(t, "GET /api/v1/timeseries?" SUNMON "&step=1d&metric=cost&basis=completion"),
        200);
    assert_int_equal(jmicro(t, PT(1, 1)), 7200000);
    const char *bad[] = {"GET /api/v1/timeseries?" SUNMON "&basis=cash",
                         "GET /api/v1/timeseries?" SUNMON "&basis="};
    bad_basis(t, bad, sizeof bad / sizeof bad[0]);
}

/* Monday lists X (succeeded), Y (failed) and Z (succeeded) on the accrual basis;
 * the completion basis lists the tasks it sums: X and Z. */
static void test_tasks_basis(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/tasks?" MONDAY), 200);
    assert_string_equal(jstr(t, "cost_basis"), "accrual");
    assert_int_equal(jint(t, "total"), 3);
    assert_int_equal(apitest_call(t, "GET /api/v1/tasks?" MONDAY "&basis=completion&sort=cost"),
                     200);
    assert_string_equal(jstr(t, "cost_basis"), "completion");
    assert_int_equal(jint(t, "total"), 2);
    /* each task's cost is its whole life: X 7200 s x 1000, Z 1800 s x 1000 */
    assert_string_equal(jstr(t, "tasks.0.uid"), "X");
    assert_int_equal(jmicro(t, "tasks.0.cost"), 7200000);
    assert_string_equal(jstr(t, "tasks.1.uid"), "Z");
    assert_int_equal(jmicro(t, "tasks.1.cost"), 1800000);
    assert_int_equal(
        apitest_call(t, "GET /api/v1/tasks?" MONDAY "&basis=completion&configuration=fallback"),
        200);
    assert_int_equal(jint(t, "total"), 1);
    assert_int_equal(
        apitest_call(t, "GET /api/v1/tasks?" MONDAY "&basis=completion&outcome=succeeded"), 200);
    assert_int_equal(jint(t, "total"), 2);
    const char *bad[] = {"GET /api/v1/tasks?" MONDAY "&basis=completion&outcome=failed",
                         "GET /api/v1/tasks?" MONDAY "&basis=paid"};
    bad_basis(t, bad, sizeof bad / sizeof bad[0]);
}

#define EXP(i, key) (snprintf(path, sizeof path, "by_experiment.%d.%s", (i), (key)), path)

/* Monday per experiment (configurations spot, fallback, on-demand in order):
 *   exp-m fallback: accrual X 3.600000 + Y 1.800000 = 5.400000, 1 success, 1
 *     failure; completion X's whole 7.200000 / 1;
 *   exp-n on-demand: Z 1.800000 / 1 on both bases; spot: no task, null. */
static void test_experiments_basis(void **state) {
    struct apitest *t = *state;
    char path[96];
    /* no parameter: the labels only, as before */
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments"), 200);
    assert_int_equal(jlen(t, "experiments"), 2);
    assert_string_equal(jstr(t, "experiments.0"), "exp-m");
    assert_null(strstr(apitest_body(t), "by_experiment"));
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?" MONDAY), 200);
    assert_int_equal(jlen(t, "experiments"), 2);
    assert_string_equal(jstr(t, "cost_basis"), "accrual");
    assert_int_equal(jlen(t, "by_experiment"), 2);
    assert_string_equal(jstr(t, EXP(0, "experiment")), "exp-m");
    assert_string_equal(jstr(t, EXP(0, "configurations.1.configuration")), "fallback");
    assert_int_equal(jint(t, EXP(0, "configurations.1.tasks_succeeded")), 1);
    assert_int_equal(jint(t, EXP(0, "configurations.1.tasks_failed")), 1);
    assert_int_equal(jmicro(t, EXP(0, "configurations.1.cost")), 5400000);
    assert_int_equal(jmicro(t, EXP(0, "configurations.1.cost_per_successful_task")), 5400000);
    assert_true(jnull(t, EXP(0, "configurations.0.cost_per_successful_task")));
    assert_string_equal(jstr(t, EXP(1, "experiment")), "exp-n");
    assert_int_equal(jmicro(t, EXP(1, "configurations.2.cost_per_successful_task")), 1800000);
    assert_false(json_object_get_boolean(jval(t, "truncated")));
    assert_true(jnull(t, "uncertainty_reason"));
    assert_null(strstr(apitest_body(t), "\"uncertainty\"")); /* not asked for */
    char *first = strdup(apitest_body(t));
    /* a label first seen outside the window: the cached figures, the labels read
     * afresh (a task of exp-z completed in 2026-W47) */
    testdb_execf(&t->db,
                 "INSERT INTO tasks(uid, job_uid, namespace, name, configuration, experiment,"
                 " created_at, started_at, completed_at, outcome, first_seen, last_seen) VALUES"
                 " ('W', 'W', 'batch', 'w', 'spot', 'exp-z', %lld, %lld, %lld, 'failed', %lld,"
                 " %lld);",
                 TESTDB_T0 + 14 * 86400, TESTDB_T0 + 14 * 86400, TESTDB_T0 + 14 * 86400 + 60,
                 TESTDB_T0 + 14 * 86400, TESTDB_T0 + 14 * 86400 + 60);
    t->now = TESTDB_T0 + 22 * 86400;
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?" MONDAY), 200);
    bool hit = false;
    for (int i = 0; i < t->resp.nheaders; i++)
        hit |= !strcmp(t->resp.headers[i][0], "X-Spotledger-Cache");
    assert_true(hit);
    assert_int_equal(jlen(t, "experiments"), 3);
    assert_string_equal(jstr(t, "experiments.2"), "exp-z");
    const char *figs = strstr(first, "\"window\"");
    assert_non_null(figs);
    assert_non_null(strstr(apitest_body(t), figs)); /* the same figures */
    free(first);
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?" MONDAY "&basis=completion"), 200);
    assert_string_equal(jstr(t, "cost_basis"), "completion");
    assert_int_equal(jmicro(t, EXP(0, "configurations.1.cost")), 7200000);
    assert_int_equal(jmicro(t, EXP(0, "configurations.1.cost_per_successful_task")), 7200000);
    assert_int_equal(jmicro(t, EXP(1, "configurations.2.cost")), 1800000);
    /* one experiment, one configuration */
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?" MONDAY
                                     "&experiment=exp-m&configuration=fallback"),
                     200);
    assert_int_equal(jlen(t, "by_experiment"), 1);
    assert_int_equal(jlen(t, EXP(0, "configurations")), 1);
    assert_int_equal(jmicro(t, EXP(0, "configurations.0.cost")), 5400000);
    const char *bad[] = {"GET /api/v1/experiments?" MONDAY "&basis=cash",
                         "GET /api/v1/experiments?" MONDAY "&uncertainty=maybe",
                         "GET /api/v1/experiments?" MONDAY "&uncertainty=true&resamples=5",
                         "GET /api/v1/experiments?x=1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (apitest_call(t, bad[i]) != 400)
            fail_msg("%s: %d %s", bad[i], t->resp.status, apitest_body(t));
        assert_string_equal(jerr(t), "bad_parameter");
    }
    apitest_call(t, "GET /api/v1/experiments?" MONDAY "&basis=cash");
    assert_non_null(strstr(jstr(t, "error.message"), "basis"));
}

/* exp-b's intervals (testdb_identical_tasks): identical tasks give zero width,
 * so each bound is the point: spot 0.500000, on-demand 1.000000, spot - pure
 * On-Demand 0.500000 - 1.000000 = -0.500000 (cheaper); fallback has no task. */
static void test_experiments_uncertainty(void **state) {
    struct apitest *t = *state;
    char path[128];
    assert_int_equal(
        apitest_call(t, "GET /api/v1/experiments?window=2026-W45&uncertainty=true&resamples=500"),
        200);
    assert_int_equal(jlen(t, "by_experiment"), 1);
    assert_string_equal(jstr(t, EXP(0, "experiment")), "exp-b");
    assert_int_equal(jint(t, EXP(0, "uncertainty.resamples")), 500);
    assert_int_equal(jmicro(t, EXP(0, "uncertainty.cost_per_successful_task.spot.lo")), 500000);
    assert_int_equal(jmicro(t, EXP(0, "uncertainty.cost_per_successful_task.spot.hi")), 500000);
    assert_int_equal(jmicro(t, EXP(0, "uncertainty.cost_per_successful_task.on-demand.lo")),
                     1000000);
    assert_true(jnull(t, EXP(0, "uncertainty.cost_per_successful_task.fallback.lo")));
    assert_string_equal(jstr(t, EXP(0, "uncertainty.comparisons.0.name")), "spot_vs_on_demand");
    assert_int_equal(jmicro(t, EXP(0, "uncertainty.comparisons.0.difference.lo")), -500000);
    assert_int_equal(jmicro(t, EXP(0, "uncertainty.comparisons.0.difference.hi")), -500000);
    assert_string_equal(jstr(t, EXP(0, "uncertainty.comparisons.0.verdict")), "cheaper");
    assert_true(jnull(t, "uncertainty_reason"));
    char *first = strdup(apitest_body(t));
    /* deterministic: computed again with the response cache emptied (else the
     * second answer would be the first one's bytes from the cache) */
    apitest_clear(t);
    respcache_release(&t->app.responses);
    respcache_init(&t->app.responses);
    assert_int_equal(
        apitest_call(t, "GET /api/v1/experiments?window=2026-W45&uncertainty=true&resamples=500"),
        200);
    assert_string_equal(apitest_body(t), first);
    free(first);
    /* on the completion basis the intervals are null and say why */
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?window=2026-W45&uncertainty=true"
                                     "&basis=completion"),
                     200);
    assert_true(jnull(t, EXP(0, "uncertainty")));
    assert_string_equal(jstr(t, "uncertainty_reason"),
                        "95% intervals are drawn on the accrual basis only");
    /* the cap: 11 experiments x 10000 resamples = 110000 > 100000 */
    for (int i = 0; i < 10; i++)
        testdb_execf(&t->db,
                     "INSERT INTO tasks(uid, job_uid, namespace, name, configuration, experiment,"
                     " created_at, started_at, completed_at, outcome, first_seen, last_seen)"
                     " VALUES ('C%d', 'C%d', 'batch', 'c', 'spot', 'exp-c%d', %lld, %lld, %lld,"
                     " 'failed', %lld, %lld);",
                     i, i, i, TESTDB_T0 + 100, TESTDB_T0 + 100, TESTDB_T0 + 200, TESTDB_T0 + 100,
                     TESTDB_T0 + 200);
    apitest_open(t);
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?window=2026-W45&uncertainty=true"
                                     "&resamples=10000"),
                     200);
    assert_int_equal(jlen(t, "by_experiment"), 11);
    assert_true(jnull(t, EXP(0, "uncertainty")));
    assert_non_null(strstr(jstr(t, "uncertainty_reason"), "11 experiments x 10000 resamples"));
    /* 11 x 9000 = 99000: under the cap */
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?window=2026-W45&uncertainty=true"
                                     "&resamples=9000"),
                     200);
    assert_true(jnull(t, "uncertainty_reason"));
    assert_int_equal(jmicro(t, EXP(0, "uncertainty.cost_per_successful_task.spot.lo")), 500000);
}

/* The summary's intervals are drawn on the accrual basis only (docs/uncertainty.md),
 * as the experiments route and the CSV say: on the completion basis its
 * "uncertainty" object has null intervals and the reason, not the accrual
 * intervals under completion figures. On the accrual basis the same window's
 * Spot interval is the point (testdb_identical_tasks: every Spot task 0.500000). */
static void test_summary_uncertainty_basis(void **state) {
    struct apitest *t = *state;
    assert_int_equal(
        apitest_call(t, "GET /api/v1/summary?window=2026-W45&uncertainty=true&resamples=500"), 200);
    assert_string_equal(jstr(t, "cost_basis"), "accrual");
    assert_int_equal(jmicro(t, "uncertainty.cost_per_successful_task.spot.lo"), 500000);
    assert_int_equal(jmicro(t, "uncertainty.cost_per_successful_task.spot.hi"), 500000);
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?window=2026-W45&uncertainty=true"
                                     "&resamples=500&basis=completion"),
                     200);
    assert_string_equal(jstr(t, "cost_basis"), "completion");
    assert_true(jnull(t, "uncertainty.cost_per_successful_task"));
    assert_true(jnull(t, "uncertainty.comparisons"));
    assert_string_equal(jstr(t, "uncertainty.reason"),
                        "95% intervals are drawn on the accrual basis only");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_timeseries_basis, setup_midnight,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_tasks_basis, setup_midnight, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_experiments_basis, setup_midnight,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_experiments_uncertainty, setup_identical,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_summary_uncertainty_basis, setup_identical,
                                        apitest_teardown_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
