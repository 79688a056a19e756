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

static int64_t config_cost_per_task_at(struct apitest *t, const char *at, const char *name) {
    char arr[96];
    snprintf(arr, sizeof arr, "%sconfigurations", at);
    for (size_t i = 0; i < jlen(t, arr); i++) {
        char c[160], b[160], p[160];
        snprintf(c, sizeof c, "%s.%zu.configuration", arr, i);
        snprintf(b, sizeof b, "%s.%zu.basis", arr, i);
        snprintf(p, sizeof p, "%s.%zu.cost_per_successful_task", arr, i);
        if (!strcmp(jstr(t, c), name) && !strcmp(jstr(t, b), "measured"))
            return jnull(t, p) ? -1 : jmicro(t, p);
    }
    fail_msg("no measured %s in %.300s", name, apitest_body(t));
    return -1;
}

static int64_t config_cost_per_task(struct apitest *t, const char *name) {
    return config_cost_per_task_at(t, "", name);
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

/* The body of `path` without its last newline (copied; caller frees). */
static char *body_of(struct apitest *t, const char *path) {
    assert_int_equal(apitest_call(t, path), 200);
    char *b = strdup(apitest_body(t));
    size_t n = strlen(b);
    while (n && b[n - 1] == '\n')
        b[--n] = '\0';
    return b;
}

/* The aggregate=cluster answer just received (east, west) holds under `key`
 * exactly the answers of base&cluster=east and base&cluster=west. */
static void entries_are_answers(struct apitest *t, const char *base, const char *key) {
    char *agg = strdup(apitest_body(t));
    char path[256];
    snprintf(path, sizeof path, "%s&cluster=east", base);
    char *east = body_of(t, path);
    snprintf(path, sizeof path, "%s&cluster=west", base);
    char *west = body_of(t, path);
    size_t cap = strlen(east) + strlen(west) + 128;
    char *want = malloc(cap);
    assert_non_null(want);
    snprintf(want, cap,
             "\"clusters\":[{\"cluster\":\"east\",\"%s\":%s},"
             "{\"cluster\":\"west\",\"%s\":%s}]}\n",
             key, east, key, west);
    if (!strstr(agg, want))
        fail_msg("%s: %s is not in %s", base, want, agg);
    free(want);
    free(agg);
    free(east);
    free(west);
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
    /* each entry is the summary cluster=NAME answers, byte for byte (with its
     * own reconciliation: null here, no invoice) */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&aggregate=cluster"), 200);
    assert_true(jnull(t, "clusters.0.summary.reconciliation"));
    entries_are_answers(t, "GET /api/v1/summary?" WEEK, "summary");
    /* with basis=completion: nothing is cut by the week, so the same money on
     * the completion basis (east 14.400 / 3 = 4.800, west 3.600 / 1) */
    assert_int_equal(
        apitest_call(t, "GET /api/v1/summary?" WEEK "&aggregate=cluster&basis=completion"), 200);
    assert_string_equal(jstr(t, "clusters.0.summary.cost_basis"), "completion");
    assert_string_equal(jstr(t, "clusters.1.summary.cost_basis"), "completion");
    assert_int_equal(config_cost_per_task_at(t, "clusters.0.summary.", "fallback"), 4800000);
    assert_int_equal(config_cost_per_task_at(t, "clusters.1.summary.", "on-demand"), 3600000);
    entries_are_answers(t, "GET /api/v1/summary?" WEEK "&basis=completion", "summary");
    /* with uncertainty: each cluster's intervals (3 and 1 successes: fewer than
     * 5, no interval, the reason given) */
    assert_int_equal(
        apitest_call(t, "GET /api/v1/summary?" WEEK "&aggregate=cluster&uncertainty=true"), 200);
    assert_non_null(strstr(apitest_body(t), "fewer than 5"));
    entries_are_answers(t, "GET /api/v1/summary?" WEEK "&uncertainty=true", "summary");
}

/* Each request answers 400 bad_parameter with `word` in its message. */
static void expect_400s(struct apitest *t, const char *const *reqs, size_t n, const char *word) {
    for (size_t i = 0; i < n; i++) {
        if (apitest_call(t, reqs[i]) != 400)
            fail_msg("%s: %d %s", reqs[i], t->resp.status, apitest_body(t));
        assert_string_equal(jerr(t), "bad_parameter");
        assert_non_null(strstr(jstr(t, "error.message"), word));
    }
}

static void test_bad_cluster(void **state) {
    struct apitest *t = *state;
    static const char *const bad[] = {
        "GET /api/v1/summary?" WEEK "&cluster=",
        "GET /api/v1/summary?" WEEK "&cluster=a,,b",
        "GET /api/v1/summary?" WEEK "&cluster=a%20b",
        "GET /api/v1/summary?" WEEK "&cluster=east,",
    };
    expect_400s(t, bad, sizeof bad / sizeof bad[0], "cluster");
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?" WEEK "&kind=summary&cluster=a,,b"),
                     400);
    assert_non_null(strstr(apitest_body(t), "cluster"));
}

/* The series of configuration/basis in a timeseries answer under prefix
 * ("" or "clusters.N.timeseries."): the value of its first (only) point. */
static int64_t series_point(struct apitest *t, const char *prefix, const char *conf,
                            const char *basis) {
    char p[160], c[160], b[160];
    snprintf(p, sizeof p, "%sseries", prefix);
    for (size_t i = 0; i < jlen(t, p); i++) {
        snprintf(c, sizeof c, "%sseries.%zu.configuration", prefix, i);
        snprintf(b, sizeof b, "%sseries.%zu.basis", prefix, i);
        if (!strcmp(jstr(t, c), conf) && !strcmp(jstr(t, b), basis)) {
            snprintf(p, sizeof p, "%sseries.%zu.points.0.value", prefix, i);
            return jnull(t, p) ? -1 : jmicro(t, p);
        }
    }
    fail_msg("no %s/%s series under '%s' in %.400s", conf, basis, prefix, apitest_body(t));
    return -1;
}

/* aggregate=cluster on timeseries and experiments: each cluster's entry is the
 * answer of cluster=NAME, byte for byte; other routes answer a 400 naming
 * aggregate (docs/fleet.md). */
static void test_aggregate_routes(void **state) {
    struct apitest *t = *state;
    const char *ts = "GET /api/v1/timeseries?" WEEK "&metric=cost&step=1w";
    char path[256];
    snprintf(path, sizeof path, "%s&aggregate=cluster", ts);
    assert_int_equal(apitest_call(t, path), 200);
    assert_string_equal(jstr(t, "aggregate"), "cluster");
    assert_int_equal(jlen(t, "clusters"), 2);
    assert_string_equal(jstr(t, "clusters.0.cluster"), "east");
    assert_string_equal(jstr(t, "clusters.1.cluster"), "west");
    /* one weekly bucket = the week: east's fallback 14.400 and its
     * counterfactual 8.880 (8880 s x 1000 µ$, test_api_tasks), west's
     * on-demand 3.600 and no counterfactual work (0) */
    assert_int_equal(series_point(t, "clusters.0.timeseries.", "fallback", "measured"), 14400000);
    assert_int_equal(series_point(t, "clusters.0.timeseries.", "on-demand", "counterfactual"),
                     8880000);
    assert_int_equal(series_point(t, "clusters.0.timeseries.", "on-demand", "measured"), 0);
    assert_int_equal(series_point(t, "clusters.1.timeseries.", "on-demand", "measured"), 3600000);
    assert_int_equal(series_point(t, "clusters.1.timeseries.", "fallback", "measured"), 0);
    assert_int_equal(series_point(t, "clusters.1.timeseries.", "on-demand", "counterfactual"), 0);
    entries_are_answers(t, ts, "timeseries");
    /* the fleet's point is the sum: 14.400 + 0 fallback, 0 + 3.600 on-demand */
    assert_int_equal(apitest_call(t, ts), 200);
    assert_int_equal(series_point(t, "", "fallback", "measured"), 14400000);
    assert_int_equal(series_point(t, "", "on-demand", "measured"), 3600000);
    /* with the completion basis (nothing cut by the week: the same money) and
     * narrowed by cluster= */
    snprintf(path, sizeof path, "%s&aggregate=cluster&basis=completion&cluster=west", ts);
    assert_int_equal(apitest_call(t, path), 200);
    assert_int_equal(jlen(t, "clusters"), 1);
    assert_string_equal(jstr(t, "clusters.0.timeseries.cost_basis"), "completion");
    assert_int_equal(series_point(t, "clusters.0.timeseries.", "on-demand", "measured"), 3600000);
    /* a route error is the answer */
    snprintf(path, sizeof path, "%s&aggregate=cluster&basis=cash", ts);
    assert_int_equal(apitest_call(t, path), 400);
    assert_non_null(strstr(apitest_body(t), "basis"));

    /* experiments: east has exp-a (J1, J2: 2 fallback successes), west none */
    const char *ex = "GET /api/v1/experiments?" WEEK;
    snprintf(path, sizeof path, "%s&aggregate=cluster", ex);
    assert_int_equal(apitest_call(t, path), 200);
    assert_int_equal(jlen(t, "clusters"), 2);
    assert_string_equal(jstr(t, "clusters.0.experiments.by_experiment.0.experiment"), "exp-a");
    assert_int_equal(jlen(t, "clusters.1.experiments.by_experiment"), 0);
    size_t fb = 99;
    for (size_t i = 0; i < jlen(t, "clusters.0.experiments.by_experiment.0.configurations"); i++) {
        char c[128];
        snprintf(c, sizeof c,
                 "clusters.0.experiments.by_experiment.0.configurations.%zu.configuration", i);
        if (!strcmp(jstr(t, c), "fallback"))
            fb = i;
    }
    snprintf(path, sizeof path,
             "clusters.0.experiments.by_experiment.0.configurations.%zu.tasks_succeeded", fb);
    assert_int_equal(jint(t, path), 2);
    entries_are_answers(t, ex, "experiments");

    /* the other routes: a 400 that says where aggregate applies */
    static const char *const no[] = {
        "GET /api/v1/tasks?" WEEK "&aggregate=cluster",
        "GET /api/v1/nodes?" WEEK "&aggregate=cluster",
        "GET /api/v1/pools?" WEEK "&aggregate=cluster",
        "GET /api/v1/reclaims?" WEEK "&aggregate=cluster",
        "GET /api/v1/node_counts?" WEEK "&aggregate=cluster",
        "GET /api/v1/timeseries?" WEEK "&aggregate=pool",
        "GET /api/v1/experiments?" WEEK "&aggregate=",
    };
    expect_400s(t, no, sizeof no / sizeof no[0], "aggregate");
    /* each task names its cluster */
    assert_int_equal(apitest_call(t, "GET /api/v1/tasks?" WEEK "&cluster=west"), 200);
    assert_string_equal(jstr(t, "tasks.0.cluster"), "west");
    assert_int_equal(apitest_call(t, "GET /api/v1/tasks/J2"), 200);
    assert_string_equal(jstr(t, "task.cluster"), "east");
}

/* The value of the /metrics sample line beginning with `series ` (NULL: none). */
static const char *sample(struct apitest *t, const char *series) {
    static char v[64];
    size_t n = strlen(series);
    for (const char *p = apitest_body(t); p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, series, n) && p[n] == ' ') {
            size_t k = strcspn(p + n + 1, "\n");
            snprintf(v, sizeof v, "%.*s", (int)k, p + n + 1);
            return v;
        }
    return NULL;
}

static void expect_sample(struct apitest *t, const char *series, const char *want) {
    const char *got = sample(t, series);
    if (!got || strcmp(got, want))
        fail_msg("%s: %s, want %s", series, got ? got : "absent", want);
}

/* /metrics: every cost series carries its cluster (docs/fleet.md), one series
 * per cluster x configuration; the figures are each cluster's own. */
static void test_metrics_cluster(void **state) {
    struct apitest *t = *state;
    /* the source clock at T0 + 3 h: the last 7 days hold both clusters' week */
    testdb_execf(&t->db,
                 "INSERT INTO poll_runs(source, started_at, finished_at, source_time, status,"
                 " error, requests, items) VALUES ('do', %lld, %lld, %lld, 'ok', NULL, 1, 1);",
                 TESTDB_T0 + 10800, TESTDB_T0 + 10800, TESTDB_T0 + 10800);
    apitest_open(t);
    assert_int_equal(apitest_call(t, "GET /metrics"), 200);
    /* counters: east's J1, J2, J3 (fallback, 4 attempts: J2 twice, 1 retry, 1
     * interruption); west's JW (on-demand, 1 attempt) */
    expect_sample(t,
                  "spotledger_tasks_total{cluster=\"east\",configuration=\"fallback\","
                  "outcome=\"succeeded\"}",
                  "3");
    expect_sample(t,
                  "spotledger_tasks_total{cluster=\"west\",configuration=\"on-demand\","
                  "outcome=\"succeeded\"}",
                  "1");
    expect_sample(t,
                  "spotledger_tasks_total{cluster=\"west\",configuration=\"fallback\","
                  "outcome=\"succeeded\"}",
                  "0");
    expect_sample(t, "spotledger_attempts_total{cluster=\"east\",configuration=\"fallback\"}", "4");
    expect_sample(t, "spotledger_attempts_total{cluster=\"west\",configuration=\"on-demand\"}",
                  "1");
    expect_sample(t, "spotledger_retries_total{cluster=\"east\",configuration=\"fallback\"}", "1");
    expect_sample(t, "spotledger_interruptions_total{cluster=\"west\",configuration=\"on-demand\"}",
                  "0");
    /* J2#2's restore: 240 s (test_api_tasks), in the le=300 bucket */
    expect_sample(t,
                  "spotledger_restore_seconds_bucket{cluster=\"east\",configuration=\"fallback\","
                  "le=\"300\"}",
                  "1");
    /* gauges of the last 7 days: east fallback 14.400 / 3 = 4.800, its
     * counterfactual 8.880 / 3 = 2.960; west on-demand 3.600 / 1 */
    expect_sample(t, "spotledger_cost_usd{cluster=\"east\",configuration=\"fallback\"}", "14.4");
    expect_sample(t, "spotledger_cost_usd{cluster=\"west\",configuration=\"on-demand\"}", "3.6");
    expect_sample(t, "spotledger_cost_usd{cluster=\"west\",configuration=\"fallback\"}", "0");
    expect_sample(
        t,
        "spotledger_cost_per_successful_task_usd{cluster=\"east\",configuration=\"fallback\","
        "basis=\"measured\"}",
        "4.8");
    expect_sample(
        t,
        "spotledger_cost_per_successful_task_usd{cluster=\"east\",configuration=\"on-demand\","
        "basis=\"counterfactual\"}",
        "2.96");
    expect_sample(
        t,
        "spotledger_cost_per_successful_task_usd{cluster=\"west\",configuration=\"on-demand\","
        "basis=\"measured\"}",
        "3.6");
    /* east's spot pool is reclaimed once (test_summary_per_cluster), west's never */
    expect_sample(t, "spotledger_reclaims{cluster=\"east\"}", "1");
    expect_sample(t, "spotledger_reclaims{cluster=\"west\"}", "0");
    /* no cost series without its cluster */
    assert_null(strstr(apitest_body(t), "spotledger_cost_usd{configuration"));
    assert_null(strstr(apitest_body(t), "\nspotledger_reclaims "));
}

/* The invoice of 2026-11 for the two clusters (DigitalOcean cluster c1 is
 * east's, c2 west's): a node pool item per pool, west's control plane billed to
 * its cluster (resource_uuid c2), and a Spaces bucket of neither. */
static void invoice_rows(struct apitest *t) {
    testdb_execf(&t->db,
                 "INSERT INTO clusters(id, name, region, first_seen, last_seen, cluster) VALUES"
                 " ('c1', 'east-doks', 'tor1', %lld, %lld, 'east'),"
                 " ('c2', 'west-doks', 'ams3', %lld, %lld, 'west');"
                 "INSERT INTO invoices(uuid, period, amount_micro, is_preview, first_seen,"
                 " last_seen) VALUES ('inv-1', '2026-11', 18600000, 0, %lld, %lld);"
                 "INSERT INTO invoice_items(invoice_uuid, ordinal, product, resource_uuid,"
                 " amount_micro) VALUES ('inv-1', 0, 'Kubernetes Node Pool', 'pool-spot', 3600000),"
                 " ('inv-1', 1, 'Kubernetes Node Pool', 'pool-fb', 10800000),"
                 " ('inv-1', 2, 'Kubernetes Node Pool', 'pool-w', 3600000),"
                 " ('inv-1', 3, 'Kubernetes Clusters', 'c2', 100000),"
                 " ('inv-1', 4, 'Spaces', 'bucket-9', 500000);",
                 TESTDB_T0, TESTDB_T0 + 1, TESTDB_T0, TESTDB_T0 + 2, TESTDB_T0, TESTDB_T0);
    apitest_open(t);
}

/* The reconciliation line of kind `kind` ("total", "cluster") or of pool `pool`
 * under prefix ("" or "reconciliation.0."): its field. */
static int64_t rc_line(struct apitest *t, const char *prefix, const char *kind, const char *pool,
                       const char *field) {
    char p[160];
    snprintf(p, sizeof p, "%slines", prefix);
    for (size_t i = 0; i < jlen(t, p); i++) {
        char k[160], id[160];
        snprintf(k, sizeof k, "%slines.%zu.kind", prefix, i);
        snprintf(id, sizeof id, "%slines.%zu.pool_id", prefix, i);
        if (strcmp(jstr(t, k), kind) || (pool && (jnull(t, id) || strcmp(jstr(t, id), pool))))
            continue;
        snprintf(p, sizeof p, "%slines.%zu.%s", prefix, i, field);
        return !strcmp(field, "items") ? jint(t, p) : jmicro(t, p);
    }
    fail_msg("no %s line %s under '%s' in %.600s", kind, pool ? pool : "", prefix, apitest_body(t));
    return -1;
}

/* The reconciliation narrowed by cluster= (docs/fleet.md): a cluster's pools
 * and nodes against the items of its pools and of its DigitalOcean cluster;
 * the other clusters' items are unmatched. Estimates by hand (60 s minimum,
 * per-second, whole hours here): S 7200 s x $1.80/h = 3.600, F 10800 s x
 * $3.60/h = 10.800, W1 3600 s x $3.60/h = 3.600. */
static void test_reconcile_cluster(void **state) {
    struct apitest *t = *state;
    invoice_rows(t);
    const char *rq = "GET /api/v1/reconciliation?period=2026-11";
    char path[160];
    snprintf(path, sizeof path, "%s&cluster=west", rq);
    assert_int_equal(apitest_call(t, path), 200);
    assert_int_equal(rc_line(t, "", "pool", "pool-w", "estimated"), 3600000);
    assert_int_equal(rc_line(t, "", "pool", "pool-w", "billed"), 3600000);
    assert_int_equal(rc_line(t, "", "cluster", NULL, "billed"), 100000); /* c2's item */
    assert_int_equal(rc_line(t, "", "total", NULL, "estimated"), 3600000);
    assert_int_equal(rc_line(t, "", "total", NULL, "billed"), 3700000); /* 3.600 + 0.100 */
    assert_int_equal(jint(t, "unmatched_items"), 3);           /* pool-spot, pool-fb, Spaces */
    assert_int_equal(jmicro(t, "unmatched_amount"), 14900000); /* 3.6 + 10.8 + 0.5 */

    snprintf(path, sizeof path, "%s&cluster=east", rq);
    assert_int_equal(apitest_call(t, path), 200);
    assert_int_equal(rc_line(t, "", "pool", "pool-spot", "estimated"), 3600000);
    assert_int_equal(rc_line(t, "", "pool", "pool-fb", "estimated"), 10800000);
    assert_int_equal(rc_line(t, "", "total", NULL, "estimated"), 14400000); /* = east's nodes */
    assert_int_equal(rc_line(t, "", "total", NULL, "billed"), 14400000);
    assert_int_equal(jint(t, "unmatched_items"), 3);          /* pool-w, c2's, Spaces */
    assert_int_equal(jmicro(t, "unmatched_amount"), 4200000); /* 3.6 + 0.1 + 0.5 */

    /* both: the fleet, 3.6 + 10.8 + 3.6 = 18.0 estimated, 18.1 billed */
    snprintf(path, sizeof path, "%s&cluster=east,west", rq);
    assert_int_equal(apitest_call(t, path), 200);
    assert_int_equal(rc_line(t, "", "total", NULL, "estimated"), 18000000);
    assert_int_equal(rc_line(t, "", "total", NULL, "billed"), 18100000);
    assert_int_equal(jint(t, "unmatched_items"), 1);
    /* a service watching both with no cluster=: the same fleet */
    t->app.n_clusters = 2;
    snprintf(t->app.clusters[0].name, sizeof t->app.clusters[0].name, "east");
    snprintf(t->app.clusters[1].name, sizeof t->app.clusters[1].name, "west");
    assert_int_equal(apitest_call(t, rq), 200);
    assert_int_equal(rc_line(t, "", "total", NULL, "estimated"), 18000000);
    assert_int_equal(rc_line(t, "", "total", NULL, "billed"), 18100000);
    t->app.n_clusters = 0;

    /* the summary's reconciliation follows its cluster= */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&cluster=west"), 200);
    assert_int_equal(rc_line(t, "reconciliation.0.", "total", NULL, "estimated"), 3600000);
    assert_int_equal(rc_line(t, "reconciliation.0.", "total", NULL, "billed"), 3700000);

    snprintf(path, sizeof path, "%s&cluster=a,,b", rq);
    assert_int_equal(apitest_call(t, path), 400);
    snprintf(path, sizeof path, "%s&cluster=east&cluster=west", rq);
    assert_int_equal(apitest_call(t, path), 400);
    assert_non_null(strstr(apitest_body(t), "cluster"));
}

/* Lines of the CSV body, and the line starting with prefix (NULL: none). */
static size_t csv_lines(struct apitest *t) {
    size_t n = 0;
    for (const char *p = apitest_body(t); *p; p++)
        n += *p == '\n';
    return n;
}
static bool csv_has_line(struct apitest *t, const char *line) {
    const char *body = apitest_body(t);
    size_t n = strlen(line);
    for (const char *p = body; p && *p; p = strstr(p, "\r\n") ? strstr(p, "\r\n") + 2 : NULL)
        if (!strncmp(p, line, n) && !strncmp(p + n, "\r\n", 2))
            return true;
    return false;
}
static bool disposition(struct apitest *t, const char *file) {
    for (int i = 0; i < t->resp.nheaders; i++)
        if (!strcmp(t->resp.headers[i][0], "Content-Disposition") &&
            strstr(t->resp.headers[i][1], file))
            return true;
    return false;
}

#define CSV_W45 "2026-W45,2026-11-02 00:00:00,2026-11-09 00:00:00,"
/* east's fallback row (test_api_tasks test_export_csv, by hand: cost 14.400 /
 * 3 = 4.800, useful 7.050, restore 0.120, wasted 1.750, idle 5.480, ...) */
#define CSV_EAST_FALLBACK                                                                          \
    CSV_W45 "fallback,measured,3,0,0,4,1,1,0,14.400000,4.800000,7.050000,0.120000,1.750000,"       \
            "0.000000,5.480000,240,240,240,-62.16,25.96,104.26,accrual,,,\"3 successful tasks, "   \
            "fewer than 5\",,,\"Fallback vs the same tasks at On-Demand rates: no interval (3 "    \
            "successful tasks, fewer than 5)\",,,\"Fallback vs pure On-Demand: no interval "       \
            "(first sample: 3 successful tasks, fewer than 5)\","
/* west's on-demand row, by hand (west_rows): 1 succeeded, 1 attempt, cost
 * 3.600 / 1 = 3.600, useful 1.800 (JW-a1 1800 s x 1000), restore, wasted,
 * running 0, idle 3.600 - 1.800 = 1.800; no restore sample (empty p50, p95 and
 * total 0); savings: no counterfactual of on-demand (empty); break-even
 * (3.600 - 1.800) / 1.800 = 100.00 %... */
#define CSV_WEST_OD_HEAD                                                                           \
    CSV_W45 "on-demand,measured,1,0,0,1,0,0,0,3.600000,3.600000,1.800000,0.000000,0.000000,"       \
            "0.000000,1.800000,"

/* The summary CSV by cluster (docs/fleet.md): the cluster column (last), the
 * cluster= rows, aggregate=cluster's rows per cluster under one header. */
static void test_csv_summary(void **state) {
    struct apitest *t = *state;
    /* the fleet: the cluster cell is empty (every cluster); the fallback row is
     * east's (west has no fallback pool), the on-demand row west's */
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?week=2026-W45&kind=summary"), 200);
    assert_non_null(strstr(apitest_body(t), ",verdict_vs_on_demand,cluster\r\n"));
    assert_true(csv_has_line(t, CSV_EAST_FALLBACK));
    assert_non_null(strstr(apitest_body(t), CSV_WEST_OD_HEAD));
    assert_int_equal(csv_lines(t), 1 + 4);
    char *fleet = strdup(apitest_body(t));

    assert_int_equal(
        apitest_call(t, "GET /api/v1/export.csv?week=2026-W45&kind=summary&cluster=east"), 200);
    assert_true(csv_has_line(t, CSV_EAST_FALLBACK "east"));
    /* east has no on-demand work: 0 tasks, 0 cost, no cost per task */
    assert_non_null(strstr(apitest_body(t), CSV_W45 "on-demand,measured,0,0,0,0,0,0,0,0.000000,,"));
    assert_true(disposition(t, "spotledger-2026-W45-summary-east.csv"));
    assert_int_equal(csv_lines(t), 1 + 4);

    assert_int_equal(
        apitest_call(t, "GET /api/v1/export.csv?week=2026-W45&kind=summary&cluster=west"), 200);
    assert_non_null(strstr(apitest_body(t), CSV_WEST_OD_HEAD));
    /* the counterfactual prices spot and fallback winners: west has none */
    assert_non_null(strstr(apitest_body(t), CSV_W45 "on-demand,counterfactual,0,,,,,,,0.000000,,"));
    assert_non_null(strstr(apitest_body(t), ",west\r\n"));
    assert_null(strstr(apitest_body(t), ",east\r\n"));
    assert_null(strstr(apitest_body(t), "14.400000"));

    /* both named: the fleet's rows, the cell naming both (quoted: a comma) */
    assert_int_equal(
        apitest_call(t, "GET /api/v1/export.csv?week=2026-W45&kind=summary&cluster=east,west"),
        200);
    assert_true(csv_has_line(t, CSV_EAST_FALLBACK "\"east,west\""));
    assert_true(disposition(t, "spotledger-2026-W45-summary-east+west.csv"));
    /* the fleet's file is unchanged by the cluster= calls (cache keyed apart) */
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?week=2026-W45&kind=summary"), 200);
    assert_string_equal(apitest_body(t), fleet);
    free(fleet);

    /* aggregate=cluster: one header, east's 4 rows then west's 4 */
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?" WEEK "&kind=summary"
                                     "&aggregate=cluster"),
                     200);
    assert_int_equal(csv_lines(t), 1 + 4 + 4);
    const char *b = apitest_body(t);
    assert_non_null(strstr(b, ",verdict_vs_on_demand,cluster\r\n"));
    assert_null(strstr(strstr(b, "\r\n") + 2, "period,")); /* one header */
    const char *east = strstr(b, "fallback,measured,3,0,0,4,1,1,0,14.400000,");
    const char *west = strstr(b, "on-demand,measured,1,0,0,1,0,0,0,3.600000,3.600000,");
    assert_non_null(east);
    assert_non_null(west);
    assert_true(east < west);
    assert_true(disposition(t, "spotledger-summary-by-cluster.csv"));
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?" WEEK "&kind=summary"
                                     "&aggregate=cluster&cluster=west"),
                     200);
    assert_int_equal(csv_lines(t), 1 + 4);
    assert_null(strstr(apitest_body(t), ",east\r\n"));
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?" WEEK "&kind=summary"
                                     "&aggregate=cluster&cluster=north"),
                     200);
    assert_int_equal(csv_lines(t), 1); /* the header alone */
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?" WEEK "&kind=tasks"
                                     "&aggregate=cluster"),
                     400);
    assert_non_null(strstr(apitest_body(t), "aggregate"));
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?" WEEK "&kind=summary&aggregate=pool"),
                     400);
    assert_non_null(strstr(apitest_body(t), "aggregate"));
}

/* The tasks CSV: each task names its cluster (last column); cluster= narrows. */
static void test_csv_tasks(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?week=2026-W45&kind=tasks"), 200);
    assert_non_null(strstr(apitest_body(t), ",completed_at,cluster\r\n"));
    assert_int_equal(csv_lines(t), 1 + 4); /* J1, J2, J3 (east), JW (west) */
    /* JW by hand: 1 attempt, no retry or interruption (restore 0 s), 1800 s x
     * 1000 µ$/s = 1.800, nothing wasted, done at T0 + 1800 = 00:30 */
    const char *jw = "JW,batch,job-west,on-demand,,succeeded,1,0,0,0,1.800000,0.000000,"
                     "2026-11-02 00:30:00,west";
    if (!csv_has_line(t, jw))
        fail_msg("no line %s in %s", jw, apitest_body(t));
    /* J2: 1.750 (S 3700..7200 x 500) + 1.740 (F 7260..9000 x 1000) = 3.490,
     * its first attempt's 1.750 wasted, done at 02:30 */
    assert_non_null(strstr(apitest_body(t), ",3.490000,1.750000,2026-11-02 02:30:00,east\r\n"));
    assert_int_equal(
        apitest_call(t, "GET /api/v1/export.csv?week=2026-W45&kind=tasks&cluster=west"), 200);
    assert_int_equal(csv_lines(t), 1 + 1);
    assert_true(csv_has_line(t, jw));
    assert_true(disposition(t, "spotledger-2026-W45-tasks-west.csv"));
    assert_int_equal(
        apitest_call(t, "GET /api/v1/export.csv?week=2026-W45&kind=tasks&cluster=east"), 200);
    assert_int_equal(csv_lines(t), 1 + 3);
    assert_null(strstr(apitest_body(t), ",west\r\n"));
}

/* The finding ids of the advice just received, as " id id ... " (static). */
static const char *finding_ids(struct apitest *t) {
    static char ids[4096];
    size_t n = 0;
    ids[n++] = ' ';
    for (size_t i = 0; i < jlen(t, "findings") && n < sizeof ids - 1; i++) {
        char p[64];
        snprintf(p, sizeof p, "findings.%zu.id", i);
        n += (size_t)snprintf(ids + n, sizeof ids - n, "%s ", jstr(t, p));
        if (n >= sizeof ids)
            n = sizeof ids - 1;
    }
    ids[n] = '\0';
    return ids;
}

static void expect_ids(struct apitest *t, const char *const *has, const char *const *hasnt) {
    const char *ids = finding_ids(t);
    char want[160];
    for (; has && *has; has++) {
        snprintf(want, sizeof want, " %s ", *has);
        if (!strstr(ids, want))
            fail_msg("no finding %s in%s", *has, ids);
    }
    for (; hasnt && *hasnt; hasnt++)
        if (strstr(apitest_body(t), *hasnt))
            fail_msg("%s cited in %.800s", *hasnt, apitest_body(t));
}

/* /api/v1/advice with cluster= (docs/fleet.md): the Jobs, PDBs, pools, nodes
 * and reclaims read are those of the clusters named, and a PDB selects only
 * the pods of its own cluster. Both clusters get a PDB in namespace batch that
 * allows no disruption (selector {}: every pod), and every Job a
 * ttlSecondsAfterFinished of 10 s (under the 60 s poll interval: the
 * ttl-too-short rule fires for each). East's J1-a1 and J2-a1 ran on its Spot
 * node S in the week, so east's PDB blocks a drain; west has no Spot node, so
 * its PDB blocks nothing (before: it matched east's pods by namespace). */
static void test_advice_cluster(void **state) {
    struct apitest *t = *state;
    testdb_execf(&t->db,
                 "UPDATE tasks SET ttl_after_finished = 10;"
                 "INSERT INTO pdbs(uid, namespace, name, max_unavailable, selector_json,"
                 " created_at, first_seen, last_seen, cluster) VALUES"
                 " ('pdb-e', 'batch', 'pdb-east', 0, '{}', %lld, %lld, %lld, 'east'),"
                 " ('pdb-w', 'batch', 'pdb-west', 0, '{}', %lld, %lld, %lld, 'west');",
                 TESTDB_T0 - 600, TESTDB_T0 - 600, TESTDB_T0 + 9000, TESTDB_T0 - 600,
                 TESTDB_T0 - 600, TESTDB_T0 + 9000);
    apitest_open(t);
    static const char *const east_has[] = {"ttl-too-short:batch/job-one",
                                           "ttl-too-short:batch/job-three",
                                           "pdb-blocks-drain:batch/pdb-east", NULL};
    static const char *const west_has[] = {"ttl-too-short:batch/job-west", NULL};
    static const char *const not_west[] = {"job-west", "pdb-west", "pool-w", "gpu-od", NULL};
    static const char *const not_east[] = {"job-one",      "job-two",   "job-three", "pdb-east",
                                           "pdb-west",     "pool-spot", "gpu-spot",  "pool-fb",
                                           "gpu-fallback", NULL};
    assert_int_equal(apitest_call(t, "GET /api/v1/advice?" WEEK "&cluster=east"), 200);
    expect_ids(t, east_has, not_west);
    assert_int_equal(apitest_call(t, "GET /api/v1/advice?" WEEK "&cluster=west"), 200);
    expect_ids(t, west_has, not_east);
    /* the fleet: both clusters' Jobs; west's PDB still selects no Spot pod */
    static const char *const fleet_has[] = {"ttl-too-short:batch/job-one",
                                            "ttl-too-short:batch/job-west",
                                            "pdb-blocks-drain:batch/pdb-east", NULL};
    static const char *const fleet_not[] = {"pdb-west", NULL};
    assert_int_equal(apitest_call(t, "GET /api/v1/advice?" WEEK), 200);
    expect_ids(t, fleet_has, fleet_not);
    assert_int_equal(apitest_call(t, "GET /api/v1/advice?" WEEK "&cluster=east,west"), 200);
    expect_ids(t, fleet_has, fleet_not);
    /* a cluster with no rows: no Job, PDB or pool finding of another */
    static const char *const north_not[] = {"job-", "pdb-", "pool-", NULL};
    assert_int_equal(apitest_call(t, "GET /api/v1/advice?" WEEK "&cluster=north"), 200);
    expect_ids(t, NULL, north_not);
}

/* The index of the finding with this id and cluster in the advice just
 * received, -1 when there is none. */
static int finding_at(struct apitest *t, const char *id, const char *cluster) {
    for (size_t i = 0; i < jlen(t, "findings"); i++) {
        char pi[64], pc[64];
        snprintf(pi, sizeof pi, "findings.%zu.id", i);
        snprintf(pc, sizeof pc, "findings.%zu.cluster", i);
        if (!strcmp(jstr(t, pi), id) && !strcmp(jstr(t, pc), cluster))
            return (int)i;
    }
    return -1;
}

/* /api/v1/advice on a fleet runs the advisor per cluster (docs/fleet.md). East
 * gets a small On-Demand CPU pool without taints (pool-sys-e, s-2vcpu-4gb);
 * west's only pool is its GPU pool gpu-od. The system-pool rule asks each
 * cluster for such a pool: east has one, west has none, so the fleet's advice
 * has system-pool:cluster for west only, and its fix names west's DigitalOcean
 * cluster (west-doks). Before, the fleet's pools were judged as one cluster's:
 * east's pool hid west's missing one (no system-pool finding at all). Every
 * finding names its cluster, and the counts are the findings listed. */
static void test_advice_fleet_per_cluster(void **state) {
    struct apitest *t = *state;
    const long long t0 = TESTDB_T0;
    testdb_execf(
        &t->db,
        "INSERT INTO node_pools(id, cluster_id, name, size, capacity_type,"
        " price_hourly_micro, first_seen, last_seen, cluster) VALUES ('pool-sys-e', 'c1',"
        " 'system', 's-2vcpu-4gb', 'on-demand', 36000, %lld, %lld, 'east');"
        "INSERT INTO clusters(id, name, first_seen, last_seen, cluster) VALUES"
        " ('c1', 'east-doks', %lld, %lld, 'east'), ('c2', 'west-doks', %lld, %lld, 'west');",
        t0 - 600, t0 + 9000, t0 - 600, t0 + 9000, t0 - 600, t0 + 9000);
    apitest_open(t);
    assert_int_equal(apitest_call(t, "GET /api/v1/advice?" WEEK), 200);
    int w = finding_at(t, "system-pool:cluster", "west");
    assert_true(w >= 0);
    assert_int_equal(finding_at(t, "system-pool:cluster", "east"), -1);
    char p[64];
    snprintf(p, sizeof p, "findings.%d.fix", w);
    assert_non_null(strstr(jstr(t, p), "node-pool create west-doks "));
    int64_t listed[3] = {0, 0, 0};
    static const char *const sev[3] = {"critical", "warning", "info"};
    for (size_t i = 0; i < jlen(t, "findings"); i++) {
        char pc[64], ps[64];
        snprintf(pc, sizeof pc, "findings.%zu.cluster", i);
        snprintf(ps, sizeof ps, "findings.%zu.severity", i);
        const char *c = jstr(t, pc);
        assert_true(!strcmp(c, "east") || !strcmp(c, "west"));
        for (int k = 0; k < 3; k++)
            listed[k] += !strcmp(jstr(t, ps), sev[k]);
    }
    for (int k = 0; k < 3; k++) {
        char pk[32];
        snprintf(pk, sizeof pk, "counts.%s", sev[k]);
        assert_int_equal(jint(t, pk), listed[k]);
    }
    /* west alone, on the fleet: the same finding, named */
    assert_int_equal(apitest_call(t, "GET /api/v1/advice?" WEEK "&cluster=west"), 200);
    assert_true(finding_at(t, "system-pool:cluster", "west") >= 0);
    /* east alone: its system pool is there */
    assert_int_equal(apitest_call(t, "GET /api/v1/advice?" WEEK "&cluster=east"), 200);
    assert_null(strstr(apitest_body(t), "system-pool:"));
}

/* The experiment names just received, as "a,b," (static). */
static const char *experiment_names(struct apitest *t) {
    static char names[512];
    size_t n = 0;
    names[0] = '\0';
    for (size_t i = 0; i < jlen(t, "experiments") && n < sizeof names; i++) {
        char p[64];
        snprintf(p, sizeof p, "experiments.%zu", i);
        n += (size_t)snprintf(names + n, sizeof names - n, "%s,", jstr(t, p));
    }
    return names;
}

/* The experiment names (the dashboard's picker) narrowed by cluster=
 * (docs/fleet.md): east's exp-a (J1, J2), west's exp-w (JW, labelled here). */
static void test_experiment_names(void **state) {
    struct apitest *t = *state;
    testdb_exec(&t->db, "UPDATE tasks SET experiment = 'exp-w' WHERE uid = 'JW';");
    apitest_open(t);
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments"), 200);
    assert_string_equal(experiment_names(t), "exp-a,exp-w,");
    /* cluster= alone: the names only (the dashboard's picker) */
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?cluster=west"), 200);
    assert_string_equal(experiment_names(t), "exp-w,");
    assert_null(strstr(apitest_body(t), "by_experiment"));
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?cluster=a,,b"), 400);
    assert_non_null(strstr(apitest_body(t), "cluster"));
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?" WEEK "&cluster=east"), 200);
    assert_string_equal(experiment_names(t), "exp-a,");
    assert_string_equal(jstr(t, "by_experiment.0.experiment"), "exp-a");
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?cluster=east,west"), 200);
    assert_string_equal(experiment_names(t), "exp-a,exp-w,");
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?cluster=north"), 200);
    assert_string_equal(experiment_names(t), "");
    /* each aggregate=cluster entry is the cluster= answer, names included */
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments?" WEEK "&aggregate=cluster"), 200);
    assert_non_null(strstr(apitest_body(t), "{\"cluster\":\"west\",\"experiments\":"
                                            "{\"experiments\":[\"exp-w\"]"));
    entries_are_answers(t, "GET /api/v1/experiments?" WEEK, "experiments");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_summary_per_cluster, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_other_routes, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_bad_cluster, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_aggregate, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_csv_summary, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_aggregate_routes, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_metrics_cluster, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_reconcile_cluster, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_csv_tasks, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_advice_cluster, setup, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_advice_fleet_per_cluster, setup,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_experiment_names, setup, apitest_teardown_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
