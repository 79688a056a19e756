/* test_api_cluster — cluster= on the routes (docs/fleet.md): the docs' worked
 * example (testdb.h) is cluster "east"; cluster "west" is one On-Demand node and
 * one task, worked out by hand below. Each cluster's figures are its own, the
 * fleet's (no cluster=, or both named) are the sums, an unknown cluster has
 * none, and a cached answer of one selection is never served for another. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "apitest.h"

#define WEEK "window=2026-W45"

/* west: pool-w (gpu-x On-Demand, $3.60/h = 1000 µ$/s), node W1 Ready T0 ..
 * T0 + 3600 (1 GPU): 3600 s x 1000 = 3.600. Task JW (on-demand) succeeded: one
 * attempt on W1 scheduled and started at T0, finished at T0 + 1800: allocated
 * 1800 s x 1000 = 1.800, idle 3.600 - 1.800 = 1.800, all of it on-demand's:
 * cost 3.600 for 1 task. */
static void west_rows(const struct testdb *d) {
    const long long t = TESTDB_T0;
    testdb_exec(d, "UPDATE node_pools SET cluster = 'east'; UPDATE nodes SET cluster = 'east';"
                   " UPDATE tasks SET cluster = 'east'; UPDATE attempts SET cluster = 'east';");
    testdb_execf(
        d,
        "INSERT INTO node_pools(id, cluster_id, name, size, capacity_type, price_hourly_micro,"
        " first_seen, last_seen, cluster) VALUES ('pool-w', 'c2', 'gpu-od', 'gpu-x', 'on-demand',"
        " 3600000, %lld, %lld, 'west');"
        "INSERT INTO nodes(name, pool_id, size, capacity_type, price_hourly_micro, created_at,"
        " ready_at, k8s_deleted_at, gpu_allocatable, cpu_allocatable_milli, first_seen, last_seen,"
        " cluster) VALUES ('W1', 'pool-w', 'gpu-x', 'on-demand', 3600000, %lld, %lld, %lld, 1,"
        " 8000, %lld, %lld, 'west');"
        "INSERT INTO tasks(uid, job_uid, namespace, name, configuration, created_at, started_at,"
        " completed_at, outcome, first_seen, last_seen, cluster) VALUES ('JW', 'JW', 'batch',"
        " 'job-west', 'on-demand', %lld, %lld, %lld, 'succeeded', %lld, %lld, 'west');"
        "INSERT INTO attempts(uid, task_uid, job_uid, namespace, name, node_name, pool_id,"
        " gpu_request, cpu_request_milli, created_at, scheduled_at, started_at, finished_at,"
        " phase, exit_code, report_status, first_seen, last_seen, cluster) VALUES ('JW-a1', 'JW',"
        " 'JW', 'batch', 'job-west-p1', 'W1', 'pool-w', 1, 1000, %lld, %lld, %lld, %lld,"
        " 'Succeeded', 0, 'none', %lld, %lld, 'west');",
        t - 600, t + 3600, t - 600, t, t + 3600, t - 600, t + 3600, t - 1, t, t + 1800, t - 1,
        t + 1800, t - 1, t, t, t + 1800, t - 1, t + 1800);
}

static int setup(void **state) {
    struct apitest *t = calloc(1, sizeof *t);
    assert_non_null(t);
    apitest_setup(t, NULL);
    testdb_worked_example(&t->db);
    west_rows(&t->db);
    apitest_open(t);
    *state = t;
    return 0;
}

static int64_t config_cost_per_task(struct apitest *t, const char *name) {
    for (size_t i = 0; i < jlen(t, "configurations"); i++) {
        char c[64], b[64], p[64];
        snprintf(c, sizeof c, "configurations.%zu.configuration", i);
        snprintf(b, sizeof b, "configurations.%zu.basis", i);
        snprintf(p, sizeof p, "configurations.%zu.cost_per_successful_task", i);
        if (!strcmp(jstr(t, c), name) && !strcmp(jstr(t, b), "measured"))
            return jnull(t, p) ? -1 : jmicro(t, p);
    }
    fail_msg("no measured %s in %.300s", name, apitest_body(t));
    return -1;
}

static void test_summary_per_cluster(void **state) {
    struct apitest *t = *state;
    /* the fleet first: a cached fleet answer must not be served for a cluster */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK), 200);
    /* nodes 14.400 (east, test_api_cost) + 3.600 (west) = 18.000; allocated
     * 8.920 + 1.800 = 10.720 */
    assert_int_equal(jmicro(t, "nodes_total_cost"), 18000000);
    assert_int_equal(jmicro(t, "allocated_cost"), 10720000);
    assert_int_equal(config_cost_per_task(t, "fallback"), 4800000);  /* east's 14.400 / 3 */
    assert_int_equal(config_cost_per_task(t, "on-demand"), 3600000); /* west's 3.600 / 1 */
    char *fleet = strdup(apitest_body(t));

    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&cluster=east"), 200);
    assert_int_equal(jmicro(t, "nodes_total_cost"), 14400000);
    assert_int_equal(jmicro(t, "allocated_cost"), 8920000);
    assert_int_equal(jmicro(t, "idle_cost"), 5480000);
    assert_int_equal(config_cost_per_task(t, "fallback"), 4800000);
    assert_int_equal(config_cost_per_task(t, "on-demand"), -1); /* no task of east */

    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&cluster=west"), 200);
    assert_int_equal(jmicro(t, "nodes_total_cost"), 3600000);
    assert_int_equal(jmicro(t, "allocated_cost"), 1800000);
    assert_int_equal(jmicro(t, "idle_cost"), 1800000);
    assert_int_equal(config_cost_per_task(t, "on-demand"), 3600000);
    assert_int_equal(config_cost_per_task(t, "fallback"), -1);
    assert_int_equal(jlen(t, "reclaims"), 0); /* east's reclaim is east's */

    /* both named: the fleet, byte for byte but for the echo of nothing else */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&cluster=east,west"), 200);
    assert_int_equal(jmicro(t, "nodes_total_cost"), 18000000);
    assert_string_equal(apitest_body(t), fleet);
    free(fleet);

    /* a cluster with no rows: nothing */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&cluster=north"), 200);
    assert_int_equal(jmicro(t, "nodes_total_cost"), 0);
}

static void test_other_routes(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/nodes?" WEEK "&cluster=west"), 200);
    assert_int_equal(jlen(t, "nodes"), 1);
    assert_string_equal(jstr(t, "nodes.0.name"), "W1");
    assert_int_equal(apitest_call(t, "GET /api/v1/nodes?" WEEK), 200);
    assert_int_equal(jlen(t, "nodes"), 3); /* S, F, W1 */
    assert_int_equal(apitest_call(t, "GET /api/v1/pools?" WEEK "&cluster=east"), 200);
    assert_int_equal(jlen(t, "pools"), 2);
    assert_int_equal(apitest_call(t, "GET /api/v1/tasks?" WEEK "&cluster=west"), 200);
    assert_int_equal(jint(t, "total"), 1);
    assert_int_equal(apitest_call(t, "GET /api/v1/tasks?" WEEK "&cluster=east"), 200);
    assert_int_equal(jint(t, "total"), 3);
}

/* aggregate=cluster: one summary per cluster, sorted; their sums are the fleet's */
static void test_aggregate(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&aggregate=cluster"), 200);
    assert_string_equal(jstr(t, "aggregate"), "cluster");
    assert_string_equal(jstr(t, "window.from"), "2026-11-02T00:00:00Z");
    assert_int_equal(jlen(t, "clusters"), 2);
    assert_string_equal(jstr(t, "clusters.0.cluster"), "east");
    assert_string_equal(jstr(t, "clusters.1.cluster"), "west");
    /* east 14.400 + west 3.600 = the fleet's 18.000 (test_summary_per_cluster) */
    assert_int_equal(jmicro(t, "clusters.0.summary.nodes_total_cost"), 14400000);
    assert_int_equal(jmicro(t, "clusters.1.summary.nodes_total_cost"), 3600000);
    assert_int_equal(jmicro(t, "clusters.0.summary.allocated_cost"), 8920000);
    assert_int_equal(jmicro(t, "clusters.1.summary.allocated_cost"), 1800000);
    /* narrowed by cluster= */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&aggregate=cluster&cluster=west"),
                     200);
    assert_int_equal(jlen(t, "clusters"), 1);
    assert_string_equal(jstr(t, "clusters.0.cluster"), "west");
    assert_int_equal(
        apitest_call(t, "GET /api/v1/summary?" WEEK "&aggregate=cluster&cluster=north"), 200);
    assert_int_equal(jlen(t, "clusters"), 0);
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&aggregate=pool"), 400);
    assert_non_null(strstr(apitest_body(t), "aggregate"));
    assert_int_equal(
        apitest_call(t, "GET /api/v1/summary?" WEEK "&aggregate=cluster&basis=completion"), 400);
    assert_int_equal(
        apitest_call(t, "GET /api/v1/summary?" WEEK "&aggregate=cluster&uncertainty=true"), 400);
}

static void test_bad_cluster(void **state) {
    struct apitest *t = *state;
    static const char *const bad[] = {
        "GET /api/v1/summary?" WEEK "&cluster=",
        "GET /api/v1/summary?" WEEK "&cluster=a,,b",
        "GET /api/v1/summary?" WEEK "&cluster=a%20b",
        "GET /api/v1/summary?" WEEK "&cluster=east,",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (apitest_call(t, bad[i]) != 400)
            fail_msg("%s: %d %s", bad[i], t->resp.status, apitest_body(t));
        assert_non_null(strstr(apitest_body(t), "cluster"));
    }
    /* the CSV covers the fleet (a cluster column is not there yet) */
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?" WEEK "&kind=summary&cluster=east"),
                     400);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_summary_per_cluster, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_other_routes, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_bad_cluster, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_aggregate, setup, apitest_teardown_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
