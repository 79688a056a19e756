/* test_api_cost — /api/v1/summary, nodes, pools, reclaims, timeseries and
 * node_counts answered in process (router_handle) from a temporary database
 * holding the docs' worked example (testdb.h). Every expected figure is worked
 * out by hand in the comment beside it; none is asked of the engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "apitest.h"

/* 2026-W45 = [2026-11-02T00:00:00Z, 2026-11-09T00:00:00Z) = [T0, T0 + 7 d) */
#define WEEK "window=2026-W45"

/* The fallback configuration is the only one with tasks: index of it in
 * "configurations" (the order is spot, fallback, on-demand, then the
 * counterfactual). */
static size_t config_index(struct apitest *t, const char *name, const char *basis) {
    size_t n = jlen(t, "configurations");
    for (size_t i = 0; i < n; i++) {
        char p[64], q[64];
        snprintf(p, sizeof p, "configurations.%zu.configuration", i);
        snprintf(q, sizeof q, "configurations.%zu.basis", i);
        if (!strcmp(jstr(t, p), name) && !strcmp(jstr(t, q), basis))
            return i;
    }
    fail_msg("no %s/%s configuration in %.400s", name, basis, apitest_body(t));
    return 0;
}

#define CFG(t, i, key) (snprintf(path, sizeof path, "configurations.%zu.%s", (i), (key)), path)

static void test_summary_worked_example(void **state) {
    struct apitest *t = *state;
    char path[128];
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK), 200);
    assert_string_equal(t->resp.content_type, "application/json");
    assert_string_equal(jstr(t, "window.from"), "2026-11-02T00:00:00Z");
    assert_string_equal(jstr(t, "window.to"), "2026-11-09T00:00:00Z");
    /* nodes S 7200 s x 500 µ$ = 3.600 + F 10800 s x 1000 µ$ = 10.800 */
    assert_int_equal(jmicro(t, "nodes_total_cost"), 14400000);
    /* allocated 1.830 + 1.750 + 1.740 + 3.600 = 8.920; idle 14.400 - 8.920 */
    assert_int_equal(jmicro(t, "allocated_cost"), 8920000);
    assert_int_equal(jmicro(t, "idle_cost"), 5480000);
    assert_int_equal(jmicro(t, "unattributed_idle_cost"), 0);
    size_t fb = config_index(t, "fallback", "measured");
    assert_int_equal(jint(t, CFG(t, fb, "tasks_succeeded")), 3);
    assert_int_equal(jint(t, CFG(t, fb, "tasks_failed")), 0);
    assert_int_equal(jint(t, CFG(t, fb, "attempts")), 4);
    assert_int_equal(jint(t, CFG(t, fb, "retries")), 1);       /* J2#2 */
    assert_int_equal(jint(t, CFG(t, fb, "interruptions")), 1); /* J2#1 */
    assert_int_equal(jint(t, CFG(t, fb, "duplicates")), 0);
    assert_int_equal(jmicro(t, CFG(t, fb, "cost")), 14400000); /* all idle is fallback's */
    /* 14.400 / 3 tasks */
    assert_int_equal(jmicro(t, CFG(t, fb, "cost_per_successful_task")), 4800000);
    assert_int_equal(jmicro(t, CFG(t, fb, "wasted_cost")), 1750000); /* 3500 s x 500 */
    /* restore: J2#2's first 120 s on F x 1000 µ$ = 0.120; useful = 8.920 - 1.750 - 0.120 */
    assert_int_equal(jmicro(t, CFG(t, fb, "restore_cost")), 120000);
    assert_int_equal(jmicro(t, CFG(t, fb, "useful_cost")), 7050000);
    assert_int_equal(jmicro(t, CFG(t, fb, "idle_cost")), 5480000);
    assert_int_equal(jmicro(t, CFG(t, fb, "running_cost")), 0);
    /* J2's restore time: (7320 - 7200) + 120 reported = 240 s, one sample */
    assert_int_equal(jint(t, CFG(t, fb, "restore_seconds.samples")), 1);
    assert_int_equal(jint(t, CFG(t, fb, "restore_seconds.total")), 240);
    /* counterfactual: work J1 3600 + J2 run 9000 - 7320 = 1680 + J3 3600 = 8880 s at
     * gpu-x's 1000 µ$/s = 8.880, / 3 = 2.960 */
    size_t cf = config_index(t, "on-demand", "counterfactual");
    assert_int_equal(jint(t, CFG(t, cf, "tasks_succeeded")), 3);
    assert_int_equal(jint(t, CFG(t, cf, "tasks_priced")), 3);
    assert_int_equal(jint(t, CFG(t, cf, "work_seconds")), 8880);
    assert_int_equal(jmicro(t, CFG(t, cf, "cost")), 8880000);
    assert_int_equal(jmicro(t, CFG(t, cf, "cost_per_successful_task")), 2960000);
    /* the spot configuration ran nothing: no tasks, $0, no cost per task */
    size_t sp = config_index(t, "spot", "measured");
    assert_int_equal(jint(t, CFG(t, sp, "tasks_succeeded")), 0);
    assert_int_equal(jmicro(t, CFG(t, sp, "cost")), 0);
    assert_true(jnull(t, CFG(t, sp, "cost_per_successful_task")));
    /* one reclaim: pool-spot gone with S at T0 + 7200 = 02:00:00 */
    assert_int_equal(jlen(t, "reclaims"), 1);
    assert_string_equal(jstr(t, "reclaims.0.pool_id"), "pool-spot");
    assert_string_equal(jstr(t, "reclaims.0.gone_at"), "2026-11-02T02:00:00Z");
    /* no invoice stored: no reconciliation */
    assert_true(jnull(t, "reconciliation"));
}

/* A closed window is answered from the cache the second time, byte for byte. */
static void test_summary_cache_hit(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK), 200);
    char *first = strdup(apitest_body(t));
    for (int i = 0; i < t->resp.nheaders; i++)
        assert_string_not_equal(t->resp.headers[i][0], "X-Spotledger-Cache");
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK), 200);
    assert_string_equal(apitest_body(t), first);
    bool hit = false;
    for (int i = 0; i < t->resp.nheaders; i++)
        hit |= !strcmp(t->resp.headers[i][0], "X-Spotledger-Cache") &&
               !strcmp(t->resp.headers[i][1], "hit");
    assert_true(hit);
    free(first);
}

/* configuration=spot: only spot and the counterfactual of spot's (zero) tasks. */
static void test_summary_filter(void **state) {
    struct apitest *t = *state;
    char path[128];
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&configuration=spot"), 200);
    assert_int_equal(jlen(t, "configurations"), 2);
    assert_string_equal(jstr(t, "configurations.0.configuration"), "spot");
    assert_int_equal(jmicro(t, "configurations.0.cost"), 0);
    size_t cf = config_index(t, "on-demand", "counterfactual");
    assert_int_equal(jint(t, CFG(t, cf, "tasks_succeeded")), 0);
    /* the nodes still cost what they cost: 14.400, none of it spot's */
    assert_int_equal(jmicro(t, "nodes_total_cost"), 14400000);
    /* experiment=exp-a: J1 and J2 only */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&experiment=exp-a"), 200);
    size_t fb = config_index(t, "fallback", "measured");
    assert_int_equal(jint(t, CFG(t, fb, "tasks_succeeded")), 2);
    assert_int_equal(jint(t, CFG(t, fb, "attempts")), 3);
}

/* A window that starts at 00:30 cuts J1 (S, 0 -> 3660) and J3 (F, 60 -> 3660):
 * only their seconds from 1800 on count. */
static void test_summary_window_cut(void **state) {
    struct apitest *t = *state;
    char path[128];
    assert_int_equal(
        apitest_call(t, "GET /api/v1/summary?from=2026-11-02T00:30:00Z&to=2026-11-09T00:00:00Z"),
        200);
    /* nodes in the window: S 1800 -> 7200 = 5400 s x 500 = 2.700, F 1800 -> 10800 =
     * 9000 s x 1000 = 9.000 */
    assert_int_equal(jmicro(t, "nodes_total_cost"), 11700000);
    /* allocated: J1 1860 s x 500 = 0.930, J2#1 1.750, J2#2 1.740, J3 1860 s x 1000 =
     * 1.860: 6.280; idle 11.700 - 6.280 = 5.420 */
    assert_int_equal(jmicro(t, "allocated_cost"), 6280000);
    assert_int_equal(jmicro(t, "idle_cost"), 5420000);
    size_t fb = config_index(t, "fallback", "measured");
    /* all three completed in the window: 11.700 / 3 */
    assert_int_equal(jint(t, CFG(t, fb, "tasks_succeeded")), 3);
    assert_int_equal(jmicro(t, CFG(t, fb, "cost")), 11700000);
    assert_int_equal(jmicro(t, CFG(t, fb, "cost_per_successful_task")), 3900000);
}

static bool jbool(struct apitest *t, const char *path) {
    return json_object_get_boolean(jmust(t, path));
}

/* The same cut window on the completion basis: J1 and J3 also ran before 00:30,
 * in the grid window [00:30 - L, 00:30) (L = the window's length). There J1
 * holds S 0 -> 1800: 1800 s x 500 = 0.900; J3 holds F 60 -> 1800: 1740 s x 1000
 * = 1.740; F's idle 0 -> 60 = 0.060 goes to J3, the only task on F; S has no
 * idle there. All three tasks succeeded in the window, so their completion cost
 * is the window's 11.700 + 2.700 = 14.400 (the whole week's money), 4.800 each. */
static void test_summary_completion_basis(void **state) {
    struct apitest *t = *state;
    char path[128];
    const char *cut = "GET /api/v1/summary?from=2026-11-02T00:30:00Z&to=2026-11-09T00:00:00Z";
    char line[200];
    snprintf(line, sizeof line, "%s&basis=completion", cut);
    assert_int_equal(apitest_call(t, line), 200);
    assert_string_equal(jstr(t, "cost_basis"), "completion");
    assert_true(jbool(t, "partial")); /* J1 and J3 run across 00:30 */
    assert_string_equal(jstr(t, "completion_span.from"), "2026-10-26T01:00:00Z");
    assert_int_equal(jint(t, "completion_span.windows"), 2);
    size_t fb = config_index(t, "fallback", "measured");
    assert_int_equal(jint(t, CFG(t, fb, "tasks_succeeded")), 3);
    assert_int_equal(jmicro(t, CFG(t, fb, "cost")), 14400000);
    assert_int_equal(jmicro(t, CFG(t, fb, "cost_per_successful_task")), 4800000);
    assert_true(jbool(t, CFG(t, fb, "partial")));
    /* totals stay on the accrual basis (they reconcile to invoices) */
    assert_int_equal(jmicro(t, "nodes_total_cost"), 11700000);
    char *completion = strdup(apitest_body(t));
    /* the accrual basis of the same window (cached separately: another body) */
    snprintf(line, sizeof line, "%s&basis=accrual", cut);
    assert_int_equal(apitest_call(t, line), 200);
    assert_string_equal(jstr(t, "cost_basis"), "accrual");
    assert_true(jbool(t, "partial"));
    assert_int_equal(jmicro(t, CFG(t, fb, "cost")), 11700000);
    assert_int_equal(apitest_call(t, line + 0), 200); /* a cache hit now */
    assert_string_equal(jstr(t, "cost_basis"), "accrual");
    snprintf(line, sizeof line, "%s&basis=completion", cut);
    assert_int_equal(apitest_call(t, line), 200);
    assert_string_equal(apitest_body(t), completion);
    free(completion);
    /* the whole week cuts nothing: partial false and both bases agree */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK), 200);
    assert_false(jbool(t, "partial"));
    assert_string_equal(jstr(t, "cost_basis"), "accrual"); /* the default */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&basis=completion"), 200);
    assert_false(jbool(t, "partial"));
    assert_int_equal(jmicro(t, CFG(t, fb, "cost")), 14400000);
    /* J1 and J3 complete at 01:01:00 after holding nodes from 00:00: a 5 s window
     * would read 733 grid windows (> 400): 400 */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?from=2026-11-02T00:59:50Z"
                                     "&to=2026-11-02T01:00:00Z&basis=completion"),
                     200); /* nothing completes in it: nothing to read */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?from=2026-11-02T01:00:58Z"
                                     "&to=2026-11-02T01:01:03Z&basis=completion"),
                     400);
    assert_string_equal(jerr(t), "bad_parameter");
    assert_non_null(strstr(jstr(t, "error.message"), "basis"));
}

static void test_bad_parameters(void **state) {
    struct apitest *t = *state;
    const char *bad[] = {
        "GET /api/v1/summary?window=tomorrowish",
        "GET /api/v1/summary?window=7d&from=2026-11-01T00:00:00Z",
        "GET /api/v1/summary?configuration=cheap",
        "GET /api/v1/summary?experiment=a%20b",
        "GET /api/v1/summary?namespace=x%2Fy",
        "GET /api/v1/summary?windw=7d",
        "GET /api/v1/summary?window=7d&window=1d",
        "GET /api/v1/summary?basis=cash",
        "GET /api/v1/summary?basis=",
        "GET /api/v1/nodes?basis=completion",
        "GET /api/v1/nodes?bogus=1",
        "GET /api/v1/timeseries?" WEEK "&step=2d",
        "GET /api/v1/timeseries?" WEEK "&metric=joy",
        "GET /api/v1/timeseries?from=2020-01-01T00:00:00Z&to=2026-11-01T00:00:00Z&step=1d",
        "GET /api/v1/node_counts?" WEEK "&step=7m",
        "GET /api/v1/node_counts?from=2020-01-01T00:00:00Z&to=2026-11-01T00:00:00Z&step=1m",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (apitest_call(t, bad[i]) != 400)
            fail_msg("%s: %d %s", bad[i], t->resp.status, apitest_body(t));
        assert_string_equal(jerr(t), "bad_parameter");
    }
    /* the message names the parameter */
    apitest_call(t, "GET /api/v1/summary?configuration=cheap");
    assert_non_null(strstr(jstr(t, "error.message"), "configuration"));
    apitest_call(t, "GET /api/v1/timeseries?" WEEK "&step=2d");
    assert_non_null(strstr(jstr(t, "error.message"), "step"));
}

/* uncertainty=true adds the bootstrap's object (docs/uncertainty.md). The worked
 * example has 3 successful fallback tasks, below the minimum sample of 5, and no
 * Spot or On-Demand task: every interval is null with the reason, never a number. */
static void test_summary_uncertainty(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK), 200);
    assert_null(strstr(apitest_body(t), "\"uncertainty\"")); /* not asked for: absent */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&uncertainty=true"), 200);
    assert_string_equal(jstr(t, "uncertainty.method"), "block bootstrap over tasks");
    assert_int_equal(jint(t, "uncertainty.resamples"), 2000);
    assert_int_equal(jint(t, "uncertainty.min_successful_tasks"), 5);
    assert_true(jnull(t, "uncertainty.cost_per_successful_task.fallback.lo"));
    assert_int_equal(jint(t, "uncertainty.cost_per_successful_task.fallback.successful_tasks"), 3);
    assert_string_equal(jstr(t, "uncertainty.cost_per_successful_task.fallback.reason"),
                        "3 successful tasks, fewer than 5");
    assert_string_equal(jstr(t, "uncertainty.comparisons.1.name"), "fallback_vs_on_demand");
    assert_true(jnull(t, "uncertainty.comparisons.1.verdict"));
    assert_string_equal(jstr(t, "uncertainty.comparisons.3.text"),
                        "Fallback vs the same tasks at On-Demand rates: no interval (3 "
                        "successful tasks, fewer than 5)");
    /* the rest of the summary is unchanged: 14.400 / 3 */
    assert_int_equal(jmicro(t, "configurations.1.cost_per_successful_task"), 4800000);
    /* resamples= is part of the cache key: another size is computed, not served */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK "&uncertainty=true&resamples=100"),
                     200);
    assert_int_equal(jint(t, "uncertainty.resamples"), 100);
    /* longer than 35 days: not resampled, and said so */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?from=2026-09-01T00:00:00Z&"
                                     "to=2026-11-09T00:00:00Z&uncertainty=true"),
                     200);
    assert_true(jnull(t, "uncertainty.cost_per_successful_task"));
    assert_non_null(strstr(jstr(t, "uncertainty.reason"), "longer than 35 days"));
    const char *bad[] = {"uncertainty=yes", "uncertainty=true&resamples=99",
                         "uncertainty=true&resamples=10001", "uncertainty=true&resamples=2k"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char req[160];
        snprintf(req, sizeof req, "GET /api/v1/summary?" WEEK "&%s", bad[i]);
        if (apitest_call(t, req) != 400)
            fail_msg("%s: %d %s", req, t->resp.status, apitest_body(t));
        assert_string_equal(jerr(t), "bad_parameter");
    }
}

static void test_no_database(void **state) {
    struct apitest *t = *state;
    struct store *keep = t->reader;
    t->reader = NULL;
    const char *routes[] = {"GET /api/v1/summary?" WEEK, "GET /api/v1/nodes?" WEEK,
                            "GET /api/v1/timeseries?" WEEK, "GET /api/v1/node_counts?" WEEK,
                            "GET /api/v1/status"};
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        assert_int_equal(apitest_call(t, routes[i]), 503);
        assert_string_equal(jerr(t), "unavailable");
    }
    t->reader = keep;
}

static void test_nodes(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/nodes?" WEEK), 200);
    assert_int_equal(jlen(t, "nodes"), 2);
    /* nodes are listed by cost, highest first: F (10.800) then S (3.600) */
    assert_string_equal(jstr(t, "nodes.0.name"), "F");
    assert_string_equal(jstr(t, "nodes.0.pool_id"), "pool-fb");
    assert_int_equal(jint(t, "nodes.0.billable_seconds"), 10800);
    assert_int_equal(jmicro(t, "nodes.0.price_hourly"), 3600000);
    assert_int_equal(jmicro(t, "nodes.0.cost"), 10800000);
    /* F: J2#2 1740 s + J3 3600 s = 5340 s x 1000 = 5.340; idle 10.800 - 5.340 */
    assert_int_equal(jmicro(t, "nodes.0.allocated_cost"), 5340000);
    assert_int_equal(jmicro(t, "nodes.0.idle_cost"), 5460000);
    assert_string_equal(jstr(t, "nodes.0.deleted_at"), "2026-11-02T03:00:00Z");
    assert_string_equal(jstr(t, "nodes.1.name"), "S");
    assert_int_equal(jint(t, "nodes.1.billable_seconds"), 7200);
    /* S: J1 3660 s + J2#1 3500 s = 7160 s x 500 = 3.580; idle 40 s = 0.020 */
    assert_int_equal(jmicro(t, "nodes.1.cost"), 3600000);
    assert_int_equal(jmicro(t, "nodes.1.allocated_cost"), 3580000);
    assert_int_equal(jmicro(t, "nodes.1.idle_cost"), 20000);
    assert_string_equal(jstr(t, "nodes.1.billable_start"), "2026-11-02T00:00:00Z");
}

static size_t pool_index(struct apitest *t, const char *id) {
    size_t n = jlen(t, "pools");
    for (size_t i = 0; i < n; i++) {
        char p[64];
        snprintf(p, sizeof p, "pools.%zu.pool_id", i);
        if (!strcmp(jstr(t, p), id))
            return i;
    }
    fail_msg("no pool %s in %.400s", id, apitest_body(t));
    return 0;
}

#define POOL(i, key) (snprintf(path, sizeof path, "pools.%zu.%s", (i), (key)), path)

static void test_pools(void **state) {
    struct apitest *t = *state;
    char path[128];
    assert_int_equal(apitest_call(t, "GET /api/v1/pools?" WEEK), 200);
    assert_int_equal(jlen(t, "pools"), 2);
    size_t s = pool_index(t, "pool-spot"), f = pool_index(t, "pool-fb");
    assert_string_equal(jstr(t, POOL(s, "capacity_type")), "spot");
    assert_string_equal(jstr(t, POOL(s, "size")), "gpu-x-spot");
    assert_int_equal(jint(t, POOL(s, "nodes")), 1);
    assert_int_equal(jint(t, POOL(s, "node_seconds")), 7200);
    assert_int_equal(jmicro(t, POOL(s, "cost")), 3600000);
    assert_int_equal(jmicro(t, POOL(s, "allocated_cost")), 3580000);
    assert_int_equal(jmicro(t, POOL(s, "idle_cost")), 20000);
    assert_int_equal(jmicro(t, POOL(s, "unattributed_idle_cost")), 0);
    assert_string_equal(jstr(t, POOL(f, "capacity_type")), "on-demand");
    assert_int_equal(jint(t, POOL(f, "node_seconds")), 10800);
    assert_int_equal(jmicro(t, POOL(f, "cost")), 10800000);
    assert_int_equal(jmicro(t, POOL(f, "idle_cost")), 5460000);
}

static void test_reclaims(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/reclaims?" WEEK), 200);
    assert_int_equal(jlen(t, "reclaims"), 1);
    assert_string_equal(jstr(t, "reclaims.0.pool_id"), "pool-spot");
    assert_string_equal(jstr(t, "reclaims.0.pool"), "gpu-spot");
    assert_int_equal(jint(t, "reclaims.0.nodes"), 1);
    assert_int_equal(jint(t, "reclaims.0.tasks_interrupted"), 1); /* J2 */
    assert_int_equal(jint(t, "reclaims.0.tasks_resumed"), 1);
    /* J2#2's container start T0 + 7320 = 02:02:00 */
    assert_string_equal(jstr(t, "reclaims.0.first_resumed_at"), "2026-11-02T02:02:00Z");
    assert_true(jnull(t, "reclaims.0.first_signal_at")); /* no DisruptionTarget, no event */
    /* a window after the reclaim has none */
    assert_int_equal(apitest_call(t, "GET /api/v1/reclaims?window=2026-W46"), 200);
    assert_int_equal(jlen(t, "reclaims"), 0);
}

/* --spot-label reaches the window loader (docs/cost-model.md "Spot pools and
 * reclaims"): pool-pre (size gpu-y, no "-spot", on-demand as DigitalOcean lists
 * it) has a node P labelled cloud.example/capacity=preemptible. Spot task J4 runs
 * on P 3600 s (T0 + 20000 -> T0 + 23600); P bills 3600 s x 500 µ$/s = 1.800000,
 * all J4's. With the flag pool-pre is spot, so J4's counterfactual is priced at
 * the fallback pool's size gpu-x: 3600 s x 1 GPU x 1000 µ$/s = 3.600000; without
 * it the pool is on-demand and J4 prices at its own size gpu-y: 3600 x 500 =
 * 1.800000. Failed before: the loader knew only the two default labels. */
static void spot_label_rows(struct apitest *t) {
    const long long t0 = TESTDB_T0;
    testdb_execf(
        &t->db,
        "INSERT INTO sizes(slug, vcpus, memory_mb, gpu_count, first_seen, last_seen) VALUES"
        " ('gpu-y', 8, 65536, 1, %lld, %lld);"
        "INSERT INTO size_prices VALUES ('gpu-y', %lld, 1800000, 1209600000);"
        "INSERT INTO node_pools(id, cluster_id, name, size, capacity_type, price_hourly_micro,"
        " first_seen, last_seen) VALUES ('pool-pre', 'c1', 'gpu-pre', 'gpu-y', 'on-demand',"
        " 1800000, %lld, %lld);"
        "INSERT INTO nodes(name, pool_id, size, price_hourly_micro, created_at, ready_at,"
        " k8s_deleted_at, gpu_allocatable, cpu_allocatable_milli, labels_json, first_seen,"
        " last_seen) VALUES ('P', 'pool-pre', 'gpu-y', 1800000, %lld, %lld, %lld, 1, 8000,"
        " '{\"cloud.example/capacity\":\"preemptible\"}', %lld, %lld);"
        "INSERT INTO tasks(uid, job_uid, namespace, name, configuration, created_at,"
        " completed_at, outcome, first_seen, last_seen) VALUES ('J4', 'J4', 'batch', 'job-four',"
        " 'spot', %lld, %lld, 'succeeded', %lld, %lld);"
        "INSERT INTO attempts(uid, task_uid, job_uid, namespace, name, node_name, pool_id,"
        " gpu_request, cpu_request_milli, created_at, scheduled_at, started_at, finished_at,"
        " phase, exit_code, report_status, first_seen, last_seen) VALUES ('J4-a1', 'J4', 'J4',"
        " 'batch', 'job-four-p1', 'P', 'pool-pre', 1, 1000, %lld, %lld, %lld, %lld, 'Succeeded',"
        " 0, 'none', %lld, %lld);",
        t0 - 3600, t0 - 3600, t0 - 3600, t0 - 3600, t0 - 3600, t0 + 20000, t0 + 20000, t0 + 23600,
        t0 + 20000, t0 + 23600, t0 + 19999, t0 + 23600, t0 + 19999, t0 + 23600, t0 + 19999,
        t0 + 20000, t0 + 20000, t0 + 23600, t0 + 19999, t0 + 23600);
}

/* The capacity_type /api/v1/pools gives pool-pre. */
static const char *pre_capacity(struct apitest *t) {
    assert_int_equal(apitest_call(t, "GET /api/v1/pools?" WEEK), 200);
    char p[64];
    for (size_t i = 0; i < jlen(t, "pools"); i++) {
        snprintf(p, sizeof p, "pools.%zu.pool_id", i);
        if (!strcmp(jstr(t, p), "pool-pre")) {
            snprintf(p, sizeof p, "pools.%zu.capacity_type", i);
            return jstr(t, p);
        }
    }
    fail_msg("no pool-pre in %.400s", apitest_body(t));
    return NULL;
}

static void test_spot_label_flag(void **state) {
    (void)state;
    char path[96];
    for (int flag = 0; flag < 2; flag++) {
        struct apitest t;
        const char *flags[] = {"--spot-label", "cloud.example/capacity=preemptible", NULL};
        apitest_setup(&t, flag ? flags : NULL);
        testdb_worked_example(&t.db);
        spot_label_rows(&t);
        apitest_open(&t);
        assert_string_equal(pre_capacity(&t), flag ? "spot" : "on-demand");
        assert_int_equal(apitest_call(&t, "GET /api/v1/summary?" WEEK), 200);
        size_t sp = config_index(&t, "spot", "measured");
        assert_int_equal(jint(&t, CFG(&t, sp, "tasks_succeeded")), 1);
        assert_int_equal(jmicro(&t, CFG(&t, sp, "cost")), 1800000);
        assert_int_equal(jmicro(&t, CFG(&t, sp, "counterfactual_cost")), flag ? 3600000 : 1800000);
        apitest_teardown(&t);
    }
}

#define PT(k, b, key)                                                                              \
    (snprintf(path, sizeof path, "series.%zu.points.%d.%s", (k), (b), (key)), path)

static void test_timeseries(void **state) {
    struct apitest *t = *state;
    char path[128];
    assert_int_equal(apitest_call(t, "GET /api/v1/timeseries?" WEEK "&step=1d&metric=cost"), 200);
    assert_string_equal(jstr(t, "step"), "1d");
    assert_string_equal(jstr(t, "metric"), "cost");
    assert_string_equal(jstr(t, "unit"), "usd");
    /* spot, fallback, on-demand measured + the counterfactual */
    assert_int_equal(jlen(t, "series"), 4);
    assert_string_equal(jstr(t, "series.1.configuration"), "fallback");
    assert_int_equal(jlen(t, "series.1.points"), 7); /* Mon..Sun */
    assert_string_equal(jstr(t, PT((size_t)1, 0, "t")), "2026-11-02T00:00:00Z");
    assert_string_equal(jstr(t, PT((size_t)1, 6, "t")), "2026-11-08T00:00:00Z");
    /* everything happened on Monday: 14.400 then nothing */
    assert_int_equal(jmicro(t, PT((size_t)1, 0, "value")), 14400000);
    assert_int_equal(jmicro(t, PT((size_t)1, 1, "value")), 0);
    assert_string_equal(jstr(t, "series.3.basis"), "counterfactual");
    assert_int_equal(jmicro(t, PT((size_t)3, 0, "value")), 8880000);

    assert_int_equal(apitest_call(t, "GET /api/v1/timeseries?" WEEK "&metric=tasks"), 200);
    assert_string_equal(jstr(t, "step"), "1w");
    assert_string_equal(jstr(t, "unit"), "count");
    assert_int_equal(jlen(t, "series.1.points"), 1);
    assert_int_equal(jint(t, PT((size_t)1, 0, "value")), 3);

    assert_int_equal(apitest_call(t, "GET /api/v1/timeseries?" WEEK
                                     "&metric=restore_seconds&configuration="
                                     "fallback"),
                     200);
    assert_string_equal(jstr(t, "unit"), "seconds");
    assert_int_equal(jlen(t, "series"), 1); /* no counterfactual for seconds */
    assert_int_equal(jint(t, "series.0.points.0.value"), 240);

    assert_int_equal(apitest_call(t, "GET /api/v1/timeseries?" WEEK "&metric=retries"), 200);
    assert_int_equal(jint(t, PT((size_t)1, 0, "value")), 1);

    /* cost per task by day: Monday 4.800, Tuesday no task succeeded: null */
    assert_int_equal(apitest_call(t, "GET /api/v1/timeseries?" WEEK "&step=1d"), 200);
    assert_string_equal(jstr(t, "metric"), "cost_per_task");
    assert_int_equal(jmicro(t, PT((size_t)1, 0, "value")), 4800000);
    assert_true(jnull(t, PT((size_t)1, 1, "value")));
}

static void test_node_counts(void **state) {
    struct apitest *t = *state;
    char path[128];
    /* hours 00, 01, 02, 03 of Monday: S is Ready [0, 7200), F [0, 10800) */
    assert_int_equal(apitest_call(t, "GET /api/v1/node_counts?from=2026-11-02T00:00:00Z&to="
                                     "2026-11-02T04:00:00Z&step=1h"),
                     200);
    assert_int_equal(jlen(t, "pools"), 2);
    for (size_t p = 0; p < 2; p++) {
        snprintf(path, sizeof path, "pools.%zu.id", p);
        bool spot = !strcmp(jstr(t, path), "pool-spot");
        const int want_spot[4] = {1, 1, 0, 0}, want_fb[4] = {1, 1, 1, 0};
        snprintf(path, sizeof path, "pools.%zu.points", p);
        assert_int_equal(jlen(t, path), 4);
        for (int h = 0; h < 4; h++) {
            snprintf(path, sizeof path, "pools.%zu.points.%d.nodes", p, h);
            assert_int_equal(jint(t, path), spot ? want_spot[h] : want_fb[h]);
        }
    }
    assert_string_equal(jstr(t, "pools.0.points.2.t"), "2026-11-02T02:00:00Z");
    assert_int_equal(jlen(t, "reclaims"), 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_summary_worked_example, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_summary_cache_hit, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_summary_filter, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_summary_completion_basis, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_summary_window_cut, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_summary_uncertainty, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_bad_parameters, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_no_database, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_nodes, apitest_setup_worked, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_pools, apitest_setup_worked, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_reclaims, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_timeseries, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test(test_spot_label_flag),
        cmocka_unit_test_setup_teardown(test_node_counts, apitest_setup_worked,
                                        apitest_teardown_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
