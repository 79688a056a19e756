/* test_api_export — the summary CSV's cost basis and 95 % interval columns
 * (README "CSV exports", docs/uncertainty.md) through GET /api/v1/export.csv, in
 * process (router_handle) against temporary databases (testdb.h). Expected
 * cells are worked out by hand beside each check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "apitest.h"

#define WEEK_Q "week=2026-W45&kind=summary"

static int setup_identical(void **state) {
    return apitest_setup_rows(state, testdb_identical_tasks);
}

/* The line of the CSV body beginning with prefix (copied; caller frees). */
static char *csv_line(struct apitest *t, const char *prefix) {
    const char *body = apitest_body(t);
    for (const char *p = body; p && *p;) {
        const char *e = strstr(p, "\r\n");
        if (!e)
            break;
        if (!strncmp(p, prefix, strlen(prefix)))
            return strndup(p, (size_t)(e - p));
        p = e + 2;
    }
    fail_msg("no line %s in %s", prefix, body);
    return NULL;
}

/* Identical tasks give zero-width intervals (every resample draws equal items),
 * so each bound is the point, by hand:
 *   spot: 5 x 0.500000 / 5 = 0.500000; on-demand: 5 x 1.000000 / 5 = 1.000000;
 *   spot - the same tasks On-Demand: 0.500000 - 1.000000 = -0.500000;
 *   spot - pure On-Demand: 0.500000 - 1.000000 = -0.500000;
 *   fallback has no task: "0 successful tasks, fewer than 5".
 * Savings (1.000000 - 0.500000) / 1.000000 = 50.00 %, break-even (5.000000 -
 * 2.500000) / 2.500000 = 100.00 %, overhead 0 / 2.500000 = 0.00 %. */
static void test_export_intervals(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?" WEEK_Q), 200);
    char *first = strdup(apitest_body(t));
    /* the header ends with the columns added for the basis and the intervals,
     * then the fleet's cluster column (docs/fleet.md) */
    assert_non_null(strstr(first,
                           ",measured_overhead_percent,cost_basis,"
                           "cost_per_successful_task_low_usd,"
                           "cost_per_successful_task_high_usd,interval_reason,"
                           "difference_vs_counterfactual_low_usd,"
                           "difference_vs_counterfactual_high_usd,verdict_vs_counterfactual,"
                           "difference_vs_on_demand_low_usd,"
                           "difference_vs_on_demand_high_usd,verdict_vs_on_demand,cluster\r\n"));
    char *spot = csv_line(t, "2026-W45,2026-11-02 00:00:00,2026-11-09 00:00:00,spot,measured,");
    assert_string_equal(spot, "2026-W45,2026-11-02 00:00:00,2026-11-09 00:00:00,spot,measured,"
                              "5,0,0,5,0,0,0,2.500000,0.500000,2.500000,0.000000,0.000000,0.000000,"
                              "0.000000,0,,,50.00,100.00,0.00,accrual,0.500000,0.500000,,"
                              "-0.500000,-0.500000,Spot cheaper than the same tasks at On-Demand "
                              "rates (95% interval $0.50-$0.50 per task),-0.500000,-0.500000,Spot "
                              "cheaper than pure On-Demand (95% interval $0.50-$0.50 per task),");
    /* ^ the last cell, cluster, is empty: the rows are the whole fleet */
    free(spot);
    /* On-Demand: its own interval; it is not compared with itself */
    char *od = csv_line(t, "2026-W45,2026-11-02 00:00:00,2026-11-09 00:00:00,on-demand,measured,");
    const char *tail = ",accrual,1.000000,1.000000,,,,,,,,"; /* 6 interval cells, cluster */
    size_t n = strlen(od), m = strlen(tail);
    if (n < m || strcmp(od + n - m, tail))
        fail_msg("on-demand row %s does not end with %s", od, tail);
    free(od);
    char *fb = csv_line(t, "2026-W45,2026-11-02 00:00:00,2026-11-09 00:00:00,fallback,measured,");
    assert_non_null(strstr(fb, ",accrual,,,\"0 successful tasks, fewer than 5\",,,"));
    free(fb);
    /* counterfactual: 5 Spot winners x 1.000000; no interval columns of its own */
    char *cf =
        csv_line(t, "2026-W45,2026-11-02 00:00:00,2026-11-09 00:00:00,on-demand,counterfactual,");
    assert_string_equal(cf,
                        "2026-W45,2026-11-02 00:00:00,2026-11-09 00:00:00,on-demand,"
                        "counterfactual,5,,,,,,,5.000000,1.000000,,,,,,,,,,,,accrual,,,,,,,,,,");
    free(cf);
    /* a closed week's file comes from the response cache the second time: the
     * same bytes, still a CSV download */
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?" WEEK_Q), 200);
    assert_string_equal(apitest_body(t), first);
    assert_non_null(strstr(t->resp.content_type, "text/csv"));
    bool hit = false;
    for (int i = 0; i < t->resp.nheaders; i++)
        hit |= !strcmp(t->resp.headers[i][0], "X-Spotledger-Cache");
    assert_true(hit);
    /* deterministic: computed again from an empty cache, the same bytes */
    apitest_clear(t);
    respcache_release(&t->app.responses);
    respcache_init(&t->app.responses);
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?" WEEK_Q), 200);
    assert_string_equal(apitest_body(t), first);
    free(first);
}

/* A window longer than 35 days is not resampled: empty cells and why. */
static void test_export_long_window(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?from=2026-09-01T00:00:00Z"
                                     "&to=2026-11-09T00:00:00Z&kind=summary"),
                     200);
    assert_non_null(strstr(apitest_body(t),
                           ",accrual,,,windows longer than 35 days are not "
                           "resampled,,,,,,,\r\n")); /* 6 interval cells, cluster */
    /* the money is unchanged: spot 2.500000 over 5 */
    assert_non_null(strstr(apitest_body(t), ",spot,measured,5,0,0,5,0,0,0,2.500000,0.500000,"));
}

/* The worked example's cut window (test_api_cost test_summary_completion_basis)
 * on the completion basis: J1 and J3 also ran before 00:30; the three tasks that
 * succeeded in the window carry the whole week's money, as the accrual basis of
 * the whole week counts it: cost 14.400, per task 4.800, useful 7.050, restore
 * 0.120, wasted 1.750, idle 5.480 (0.060 of F's idle 00:00-00:01 comes along
 * with J3); savings (2.960 - 4.800) / 2.960 = -62.16 %, overhead (1.750 + 0.120
 * + 5.480) / 7.050 = 104.26 %. The counts stay the window's (an attempt counts
 * where it starts): 2 attempts (J2's, started 01:01:40 and 02:01:00; J1's and
 * J3's started before 00:30), 1 retry, 1 interruption, restore 240 s. The
 * accrual basis of the same window: 11.700 / 3 = 3.900. */
static void test_export_completion(void **state) {
    struct apitest *t = *state;
    const char *cut = "GET /api/v1/export.csv?from=2026-11-02T00:30:00Z&to=2026-11-09T00:00:00Z"
                      "&kind=summary";
    char line[200];
    snprintf(line, sizeof line, "%s&basis=completion", cut);
    assert_int_equal(apitest_call(t, line), 200);
    const char *csv = apitest_body(t);
    const char *row = strstr(csv, ",fallback,measured,3,0,0,2,1,1,0,14.400000,4.800000,7.050000,"
                                  "0.120000,1.750000,0.000000,5.480000,240,240,240,-62.16,");
    if (!row)
        fail_msg("no completion fallback row in %s", csv);
    assert_non_null(strstr(row, ",104.26,completion,,,95% intervals are drawn on the accrual "
                                "basis only,,,,,,,\r\n"));
    /* a download named apart from the weekly file */
    bool disp = false;
    for (int i = 0; i < t->resp.nheaders; i++)
        disp |= !strcmp(t->resp.headers[i][0], "Content-Disposition") &&
                strstr(t->resp.headers[i][1], "spotledger-summary-completion.csv");
    assert_true(disp);
    snprintf(line, sizeof line, "%s&basis=accrual", cut);
    assert_int_equal(apitest_call(t, line), 200);
    assert_non_null(
        strstr(apitest_body(t), ",fallback,measured,3,0,0,2,1,1,0,11.700000,3.900000,"));
    assert_non_null(strstr(apitest_body(t), ",accrual,"));
    assert_null(strstr(apitest_body(t), ",completion,"));
    /* the week: the default is accrual, and completion agrees with it (nothing cut) */
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?" WEEK_Q "&basis=completion"), 200);
    assert_non_null(
        strstr(apitest_body(t), ",fallback,measured,3,0,0,4,1,1,0,14.400000,4.800000,"));
    assert_non_null(strstr(apitest_body(t), ",completion,"));
    const char *bad[] = {
        "GET /api/v1/export.csv?" WEEK_Q "&basis=cash",
        "GET /api/v1/export.csv?" WEEK_Q "&basis=",
        "GET /api/v1/export.csv?week=2026-W45&kind=tasks&basis=completion",
        /* nothing completes in 01:00:58..01:01:03 but J1 and J3 (00:00..01:01:00):
         * 733 windows of 5 s > 400 */
        "GET /api/v1/export.csv?from=2026-11-02T01:00:58Z&to=2026-11-02T01:01:03Z&kind=summary"
        "&basis=completion",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (apitest_call(t, bad[i]) != 400)
            fail_msg("%s: %d %s", bad[i], t->resp.status, apitest_body(t));
        assert_string_equal(jerr(t), "bad_parameter");
        assert_non_null(strstr(jstr(t, "error.message"), "basis"));
    }
    /* the tasks file takes basis=accrual (its one basis) */
    assert_int_equal(
        apitest_call(t, "GET /api/v1/export.csv?week=2026-W45&kind=tasks&basis=accrual"), 200);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_export_intervals, setup_identical,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_export_long_window, setup_identical,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_export_completion, apitest_setup_worked,
                                        apitest_teardown_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
