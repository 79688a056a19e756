/* test_api_tasks — /api/v1/tasks, tasks/{uid}, experiments, status, poll,
 * exports, export.csv, reconciliation and the router's own answers, in process
 * (router_handle) against a temporary database holding the docs' worked example
 * (testdb.h). Expected figures are worked out by hand beside each check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "apitest.h"
#include "tmpdir.h"

#define WEEK "window=2026-W45"

#define TASK(i, key) (snprintf(path, sizeof path, "tasks.%d.%s", (i), (key)), path)

static void test_tasks_list(void **state) {
    struct apitest *t = *state;
    char path[128];
    assert_int_equal(apitest_call(t, "GET /api/v1/tasks?" WEEK "&sort=cost&order=asc"), 200);
    assert_int_equal(jint(t, "total"), 3);
    assert_int_equal(jlen(t, "tasks"), 3);
    /* task cost = Σ its attempts' allocated: J1 1.830, J2 1.750 + 1.740 = 3.490, J3 3.600 */
    assert_string_equal(jstr(t, TASK(0, "uid")), "J1");
    assert_int_equal(jmicro(t, TASK(0, "cost")), 1830000);
    assert_string_equal(jstr(t, TASK(1, "uid")), "J2");
    assert_int_equal(jmicro(t, TASK(1, "cost")), 3490000);
    assert_string_equal(jstr(t, TASK(2, "uid")), "J3");
    assert_int_equal(jmicro(t, TASK(2, "cost")), 3600000);
    /* J2 in full */
    assert_string_equal(jstr(t, TASK(1, "namespace")), "batch");
    assert_string_equal(jstr(t, TASK(1, "name")), "job-two");
    assert_string_equal(jstr(t, TASK(1, "configuration")), "fallback");
    assert_string_equal(jstr(t, TASK(1, "experiment")), "exp-a");
    assert_string_equal(jstr(t, TASK(1, "outcome")), "succeeded");
    assert_int_equal(jint(t, TASK(1, "attempt_count")), 2);
    assert_int_equal(jint(t, TASK(1, "retries")), 1);
    assert_int_equal(jint(t, TASK(1, "interruptions")), 1);
    assert_int_equal(jint(t, TASK(1, "restore_seconds")), 240); /* (7320 - 7200) + 120 */
    assert_int_equal(jmicro(t, TASK(1, "wasted_cost")), 1750000);
    assert_string_equal(jstr(t, TASK(1, "completed_at")), "2026-11-02T02:30:00Z"); /* 9000 s */
    assert_true(jnull(t, TASK(2, "experiment")));
    assert_true(jnull(t, "next_cursor"));

    /* highest cost first */
    assert_int_equal(apitest_call(t, "GET /api/v1/tasks?" WEEK "&sort=cost"), 200);
    assert_string_equal(jstr(t, TASK(0, "uid")), "J3");
    assert_string_equal(jstr(t, TASK(2, "uid")), "J1");
    /* by attempts, descending: J2 (2) first */
    assert_int_equal(apitest_call(t, "GET /api/v1/tasks?" WEEK "&sort=attempts"), 200);
    assert_string_equal(jstr(t, TASK(0, "uid")), "J2");
    /* default: completed_at descending: J2 (02:30) first */
    assert_int_equal(apitest_call(t, "GET /api/v1/tasks?" WEEK), 200);
    assert_string_equal(jstr(t, TASK(0, "uid")), "J2");
}

static void test_tasks_pages(void **state) {
    struct apitest *t = *state;
    char path[128];
    assert_int_equal(apitest_call(t, "GET /api/v1/tasks?" WEEK "&sort=cost&order=asc&limit=2"),
                     200);
    assert_int_equal(jint(t, "total"), 3);
    assert_int_equal(jlen(t, "tasks"), 2);
    /* the cursor is the last row's key (cost in µ$) and uid */
    assert_string_equal(jstr(t, "next_cursor"), "3490000.J2");
    assert_int_equal(
        apitest_call(t, "GET /api/v1/tasks?" WEEK "&sort=cost&order=asc&limit=2&cursor=3490000.J2"),
        200);
    assert_int_equal(jlen(t, "tasks"), 1);
    assert_string_equal(jstr(t, TASK(0, "uid")), "J3");
    assert_true(jnull(t, "next_cursor"));
}

static void test_tasks_filters(void **state) {
    struct apitest *t = *state;
    /* each filter and how many of the worked example's tasks it leaves */
    static const struct {
        const char *request;
        int total;
    } filters[] = {
        {"GET /api/v1/tasks?" WEEK "&outcome=failed", 0},
        {"GET /api/v1/tasks?" WEEK "&experiment=exp-a", 2},
        {"GET /api/v1/tasks?" WEEK "&configuration=spot", 0},
        {"GET /api/v1/tasks?" WEEK "&namespace=other", 0},
        /* the week after: nothing completed */
        {"GET /api/v1/tasks?window=2026-W46", 0},
    };
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        print_message("%s\n", filters[i].request);
        assert_int_equal(apitest_call(t, filters[i].request), 200);
        assert_int_equal(jint(t, "total"), filters[i].total);
    }
    const char *bad[] = {"GET /api/v1/tasks?outcome=won",  "GET /api/v1/tasks?limit=0",
                         "GET /api/v1/tasks?limit=501",    "GET /api/v1/tasks?limit=5x",
                         "GET /api/v1/tasks?sort=name",    "GET /api/v1/tasks?order=up",
                         "GET /api/v1/tasks?cursor=nodot", "GET /api/v1/tasks?cursor=1.a%20b",
                         "GET /api/v1/tasks/J1?window=7d", "GET /api/v1/tasks/a%20b",
                         "GET /api/v1/experiments?x=1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (apitest_call(t, bad[i]) != 400)
            fail_msg("%s: %d %s", bad[i], t->resp.status, apitest_body(t));
        assert_string_equal(jerr(t), "bad_parameter");
    }
}

#define ATT(i, key) (snprintf(path, sizeof path, "task.attempts.%d.%s", (i), (key)), path)

static void test_task_detail(void **state) {
    struct apitest *t = *state;
    char path[128];
    assert_int_equal(apitest_call(t, "GET /api/v1/tasks/J2"), 200);
    assert_string_equal(jstr(t, "task.uid"), "J2");
    assert_int_equal(jint(t, "task.attempt_count"), 2);
    assert_int_equal(jmicro(t, "task.cost"), 3490000);
    assert_int_equal(jlen(t, "task.attempts"), 2);
    /* #1 on S, scheduled 3700 s = 01:01:40, lost with S at 02:00:00: 3500 s x 500 */
    assert_string_equal(jstr(t, ATT(0, "uid")), "J2-a1");
    assert_string_equal(jstr(t, ATT(0, "name")), "job-two-p1");
    assert_string_equal(jstr(t, ATT(0, "node")), "S");
    assert_string_equal(jstr(t, ATT(0, "pool_id")), "pool-spot");
    assert_string_equal(jstr(t, ATT(0, "capacity_type")), "spot");
    assert_string_equal(jstr(t, ATT(0, "scheduled_at")), "2026-11-02T01:01:40Z");
    assert_string_equal(jstr(t, ATT(0, "ended_at")), "2026-11-02T02:00:00Z");
    assert_string_equal(jstr(t, ATT(0, "lost_at")), "2026-11-02T02:00:00Z");
    assert_string_equal(jstr(t, ATT(0, "outcome")), "interrupted");
    assert_true(jnull(t, ATT(0, "exit_code")));
    assert_int_equal(jmicro(t, ATT(0, "cost")), 1750000);
    assert_true(jnull(t, ATT(0, "restore_gap_seconds")));
    /* #2 on F, started 7320 s = 02:02:00, done 9000 s = 02:30:00: 1740 s x 1000 */
    assert_string_equal(jstr(t, ATT(1, "node")), "F");
    assert_string_equal(jstr(t, ATT(1, "capacity_type")), "on-demand");
    assert_string_equal(jstr(t, ATT(1, "started_at")), "2026-11-02T02:02:00Z");
    assert_string_equal(jstr(t, ATT(1, "ended_at")), "2026-11-02T02:30:00Z");
    assert_string_equal(jstr(t, ATT(1, "outcome")), "succeeded");
    assert_int_equal(jint(t, ATT(1, "exit_code")), 0);
    assert_int_equal(jmicro(t, ATT(1, "cost")), 1740000);
    assert_int_equal(jint(t, ATT(1, "restore_gap_seconds")), 240);

    assert_int_equal(apitest_call(t, "GET /api/v1/tasks/nope-uid"), 404);
    assert_string_equal(jerr(t), "not_found");
}

static void test_experiments(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/experiments"), 200);
    assert_int_equal(jlen(t, "experiments"), 1);
    assert_string_equal(jstr(t, "experiments.0"), "exp-a");
}

#define SRC(i, key) (snprintf(path, sizeof path, "sources.%d.%s", (i), (key)), path)

static void test_status(void **state) {
    struct apitest *t = *state;
    char path[128];
    /* no poll yet: every source "never", now = the wall clock */
    assert_int_equal(apitest_call(t, "GET /api/v1/status"), 200);
    assert_string_equal(jstr(t, "now"), "2026-11-10T00:00:00Z"); /* T0 + 8 d */
    assert_int_equal(jlen(t, "sources"), 4);
    assert_string_equal(jstr(t, SRC(0, "source")), "do");
    assert_string_equal(jstr(t, SRC(3, "source")), "do_insights"); /* billing insights */
    assert_string_equal(jstr(t, SRC(3, "status")), "never");
    assert_string_equal(jstr(t, SRC(0, "status")), "never");
    assert_true(jnull(t, SRC(0, "lag_seconds")));
    assert_true(jnull(t, SRC(0, "last_poll")));
    /* do: ok at T0 + 100 (Date T0 + 95), then an error at T0 + 200 whose response
     * had a Date (T0 + 195): a failed poll never moves the source clock */
    testdb_execf(&t->db,
                 "INSERT INTO poll_runs(source, started_at, finished_at, source_time, status,"
                 " error, requests, items) VALUES"
                 " ('do', %lld, %lld, %lld, 'ok', NULL, 3, 10),"
                 " ('do', %lld, %lld, %lld, 'error', 'timeout', 1, 0);",
                 TESTDB_T0 + 90, TESTDB_T0 + 100, TESTDB_T0 + 95, TESTDB_T0 + 190, TESTDB_T0 + 200,
                 TESTDB_T0 + 195);
    apitest_open(t);
    assert_int_equal(apitest_call(t, "GET /api/v1/status"), 200);
    /* the source clock: the latest successful poll's Date, T0 + 95 = 00:01:35 */
    assert_string_equal(jstr(t, "now"), "2026-11-02T00:01:35Z");
    assert_string_equal(jstr(t, SRC(0, "status")), "error");
    assert_string_equal(jstr(t, SRC(0, "error")), "timeout");
    assert_string_equal(jstr(t, SRC(0, "last_poll")), "2026-11-02T00:03:20Z");
    assert_string_equal(jstr(t, SRC(0, "last_success")), "2026-11-02T00:01:40Z");
    /* lag: wall clock T0 + 8 d - (T0 + 100) */
    assert_int_equal(jint(t, SRC(0, "lag_seconds")), 8 * 86400 - 100);
    assert_string_equal(jstr(t, SRC(0, "source_time")), "2026-11-02T00:01:35Z");
    assert_int_equal(jint(t, SRC(0, "requests")), 1); /* of the last run */
    assert_int_equal(jint(t, SRC(0, "items")), 0);
    assert_string_equal(jstr(t, SRC(1, "source")), "do_billing");
    assert_string_equal(jstr(t, SRC(1, "status")), "never");
    assert_int_equal(apitest_call(t, "GET /api/v1/status?x=1"), 400);
}

static void test_poll_and_auth(void **state) {
    struct apitest *t = *state;
    /* no admin token: admin routes are refused */
    assert_int_equal(apitest_call(t, "POST /api/v1/poll"), 403);
    t->app.api_token = strdup("reader-token");
    t->app.admin_token = strdup("admin-token");
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK), 401);
    assert_string_equal(jerr(t), "unauthorized");
    assert_int_equal(apitest_call_auth(t, "GET /api/v1/experiments", "Bearer wrong"), 401);
    assert_int_equal(apitest_call_auth(t, "GET /api/v1/experiments", "Bearer reader-token"), 200);
    assert_int_equal(apitest_call_auth(t, "POST /api/v1/poll", "Bearer reader-token"), 403);
    uint64_t gen = t->app.wake_gen;
    assert_int_equal(apitest_call_auth(t, "POST /api/v1/poll", "Bearer admin-token"), 202);
    assert_string_equal(jstr(t, "status"), "poll requested");
    assert_int_equal(t->app.wake_gen, gen + 1); /* the pollers were woken */
    assert_int_equal(apitest_call_auth(t, "POST /api/v1/poll?now=1", "Bearer admin-token"), 400);
    free(t->app.api_token);
    free(t->app.admin_token);
    t->app.api_token = t->app.admin_token = NULL;
}

static void test_router(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/nosuch"), 404);
    assert_string_equal(jerr(t), "not_found");
    assert_int_equal(apitest_call(t, "DELETE /api/v1/summary"), 405);
    assert_string_equal(jerr(t), "method_not_allowed");
    assert_int_equal(apitest_call(t, "POST /api/v1/summary"), 405);
    bool allow = false, nosniff = false;
    for (int i = 0; i < t->resp.nheaders; i++) {
        allow |=
            !strcmp(t->resp.headers[i][0], "Allow") && !strcmp(t->resp.headers[i][1], "GET, HEAD");
        nosniff |= !strcmp(t->resp.headers[i][0], "X-Content-Type-Options") &&
                   !strcmp(t->resp.headers[i][1], "nosniff");
    }
    assert_true(allow);
    assert_true(nosniff);
    /* 33 parameters: refused before the handler */
    char line[1024] = "GET /api/v1/summary?";
    size_t off = strlen(line);
    for (int i = 0; i < 33; i++)
        off += (size_t)snprintf(line + off, sizeof line - off, "%sp%d=1", i ? "&" : "", i);
    assert_int_equal(apitest_call(t, line), 400);
    assert_string_equal(jerr(t), "too_many_parameters");
}

static void test_exports_list(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/exports"), 200);
    assert_int_equal(jlen(t, "exports"), 0);
    testdb_execf(&t->db,
                 "INSERT INTO exports VALUES ('2026-W45', 'summary',"
                 " '/var/x/spotledger-2026-W45-summary.csv', 1234, 4, %lld);",
                 TESTDB_T0 + 7 * 86400 + 60);
    assert_int_equal(apitest_call(t, "GET /api/v1/exports"), 200);
    assert_int_equal(jlen(t, "exports"), 1);
    assert_string_equal(jstr(t, "exports.0.week"), "2026-W45");
    assert_string_equal(jstr(t, "exports.0.kind"), "summary");
    assert_string_equal(jstr(t, "exports.0.file"), "spotledger-2026-W45-summary.csv");
    assert_int_equal(jint(t, "exports.0.bytes"), 1234);
    assert_int_equal(jint(t, "exports.0.rows"), 4);
    assert_string_equal(jstr(t, "exports.0.written_at"), "2026-11-09T00:01:00Z");
    assert_string_equal(jstr(t, "exports.0.url"), "/api/v1/export.csv?week=2026-W45&kind=summary");
    assert_int_equal(apitest_call(t, "GET /api/v1/exports?all=1"), 400);
}

/* The CSV of the week: the fallback row carries the worked example's figures. */
static void test_export_csv(void **state) {
    struct apitest *t = *state;
    assert_int_equal(apitest_call(t, "GET /api/v1/export.csv?week=2026-W45&kind=summary"), 200);
    assert_non_null(strstr(t->resp.content_type, "text/csv"));
    const char *csv = apitest_body(t);
    /* the fallback row, every cell by hand: 3 succeeded, 4 attempts, 1 retry, 1
     * interruption; cost 14.400, per task 4.800, useful 7.050, restore 0.120,
     * wasted 1.750, idle 5.480; restore 240 s (p50 = p95 of one sample);
     * savings (2.960 - 4.800) / 2.960 = -62.16 %, break-even (8.880 - 7.050) /
     * 7.050 = 25.96 %, overhead (1.750 + 0.120 + 5.480) / 7.050 = 104.26 % */
    const char *want = "\n2026-W45,2026-11-02 00:00:00,2026-11-09 00:00:00,fallback,measured,"
                       "3,0,0,4,1,1,0,14.400000,4.800000,7.050000,0.120000,1.750000,0.000000,"
                       "5.480000,240,240,240,-62.16,25.96,104.26,"
                       /* the weekly basis; 3 successes < the bootstrap's minimum of 5:
                        * no interval (empty cells) and why; no On-Demand task either */
                       "accrual,,,\"3 successful tasks, fewer than 5\",,,"
                       "\"Fallback vs the same tasks at On-Demand rates: no interval (3 "
                       "successful tasks, fewer than 5)\",,,\"Fallback vs pure On-Demand: no "
                       "interval (first sample: 3 successful tasks, fewer than 5)\","
                       /* cluster: empty, the rows are the whole fleet (docs/fleet.md) */
                       "\r\n";
    if (!strstr(csv, want))
        fail_msg("no fallback row %s in %s", want, csv);
    /* the counterfactual: 8880 s x 1000 µ$ = 8.880, / 3 = 2.960 */
    assert_non_null(strstr(csv, ",on-demand,counterfactual,3,,,,,,,8.880000,2.960000,"));
    bool disp = false;
    for (int i = 0; i < t->resp.nheaders; i++)
        disp |= !strcmp(t->resp.headers[i][0], "Content-Disposition") &&
                strstr(t->resp.headers[i][1], "spotledger-2026-W45-summary.csv");
    assert_true(disp);
    /* the tasks CSV: a header and one row per task of the week */
    assert_int_equal(
        apitest_call(t, "GET /api/v1/export.csv?from=2026-11-02T00:00:00Z&to=2026-11-09T00:00:00Z"
                        "&kind=tasks"),
        200);
    size_t lines = 0;
    for (const char *p = apitest_body(t); *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 1 + 3);
    assert_non_null(strstr(apitest_body(t), "J2"));
    const char *bad[] = {"GET /api/v1/export.csv?week=2026-W45",
                         "GET /api/v1/export.csv?week=2026-W45&kind=pdf",
                         "GET /api/v1/export.csv?week=2026-W99&kind=summary",
                         "GET /api/v1/export.csv?week=2026-W45&kind=summary&window=7d",
                         "GET /api/v1/export.csv?week=2026-W45&kind=summary&x=1",
                         "GET /api/v1/export.csv?" WEEK "&kind=summary&configuration=spot"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (apitest_call(t, bad[i]) != 400)
            fail_msg("%s: %d %s", bad[i], t->resp.status, apitest_body(t));
        assert_string_equal(jerr(t), "bad_parameter");
    }
}

static void test_export_run(void **state) {
    struct apitest *t = *state;
    t->app.admin_token = strdup("adm");
    const char *post = "POST /api/v1/exports?week=2026-W45";
    /* no --export-dir */
    assert_int_equal(apitest_call_auth(t, post, "Bearer adm"), 409);
    assert_string_equal(jerr(t), "not_configured");
    free(t->app.admin_token);
    t->app.admin_token = NULL;
}

static void test_export_run_writes(void **state) {
    (void)state;
    struct apitest t;
    char dir[80];
    snprintf(dir, sizeof dir, "/tmp/spotledger-exp-XXXXXX");
    assert_non_null(mkdtemp(dir));
    const char *flags[] = {"--export-dir", dir, NULL};
    apitest_setup(&t, flags);
    testdb_worked_example(&t.db);
    apitest_open(&t);
    t.app.admin_token = strdup("adm");
    assert_int_equal(store_open(t.db.path, STORE_WRITER, &t.app.writer, NULL), ERR_OK);
    const char *post = "POST /api/v1/exports?week=2026-W45";
    /* no successful poll yet: the source clock is unknown */
    assert_int_equal(apitest_call_auth(&t, post, "Bearer adm"), 409);
    assert_string_equal(jerr(&t), "no_source_time");
    /* a poll dated inside the week: not over yet */
    /* through the writer, as the pollers do: the read memo follows its commits */
    int64_t run;
    assert_int_equal(store_poll_begin(t.app.writer, "k8s", TESTDB_T0 + 86400, &run), ERR_OK);
    assert_int_equal(
        store_poll_end(t.app.writer, run, TESTDB_T0 + 86400, TESTDB_T0 + 86400, NULL, 1, 0),
        ERR_OK);
    assert_int_equal(apitest_call_auth(&t, post, "Bearer adm"), 409);
    assert_string_equal(jerr(&t), "week_open");
    assert_int_equal(store_poll_begin(t.app.writer, "k8s", TESTDB_T0 + 8 * 86400, &run), ERR_OK);
    assert_int_equal(
        store_poll_end(t.app.writer, run, TESTDB_T0 + 8 * 86400, TESTDB_T0 + 8 * 86400, NULL, 1, 0),
        ERR_OK);
    assert_int_equal(apitest_call_auth(&t, post, "Bearer adm"), 200);
    assert_string_equal(jstr(&t, "status"), "written");
    char p[160];
    struct stat st;
    snprintf(p, sizeof p, "%s/spotledger-2026-W45-summary.csv", dir);
    assert_int_equal(stat(p, &st), 0);
    snprintf(p, sizeof p, "%s/spotledger-2026-W45-tasks.csv", dir);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(apitest_call(&t, "GET /api/v1/exports"), 200);
    assert_int_equal(jlen(&t, "exports"), 2);
    assert_int_equal(apitest_call_auth(&t, "POST /api/v1/exports", "Bearer adm"), 400);
    free(t.app.admin_token);
    t.app.admin_token = NULL;
    apitest_teardown(&t);
    assert_int_equal(tmpdir_remove(dir), 0);
}

static size_t line_index(struct apitest *t, const char *prefix, const char *kind,
                         const char *pool) {
    char p[128];
    snprintf(p, sizeof p, "%s%slines", prefix, *prefix ? "." : "");
    size_t n = jlen(t, p);
    for (size_t i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s%slines.%zu.kind", prefix, *prefix ? "." : "", i);
        if (strcmp(jstr(t, p), kind))
            continue;
        snprintf(p, sizeof p, "%s%slines.%zu.pool_id", prefix, *prefix ? "." : "", i);
        if (!pool || !strcmp(jstr(t, p), pool))
            return i;
    }
    fail_msg("no %s line %s in %.600s", kind, pool ? pool : "", apitest_body(t));
    return 0;
}

#define LINE(i, key) (snprintf(path, sizeof path, "lines.%zu.%s", (i), (key)), path)

static void test_reconciliation(void **state) {
    struct apitest *t = *state;
    char path[128];
    assert_int_equal(apitest_call(t, "GET /api/v1/reconciliation?period=2026-11"), 200);
    assert_false(json_object_get_boolean(jval(t, "has_invoice")));
    /* DO billed pool-spot 3.70 and pool-fb 10.80, plus 0.50 of something else */
    testdb_execf(&t->db,
                 "INSERT INTO invoices(uuid, period, amount_micro, is_preview, first_seen,"
                 " last_seen) VALUES ('inv-1', '2026-11', 15000000, 0, %lld, %lld);"
                 "INSERT INTO invoice_items(invoice_uuid, ordinal, product, resource_uuid,"
                 " amount_micro) VALUES ('inv-1', 0, 'Kubernetes Node Pool', 'pool-spot', 3700000),"
                 " ('inv-1', 1, 'Kubernetes Node Pool', 'pool-fb', 10800000),"
                 " ('inv-1', 2, 'Spaces', 'bucket-9', 500000);",
                 TESTDB_T0, TESTDB_T0);
    assert_int_equal(apitest_call(t, "GET /api/v1/reconciliation?period=2026-11"), 200);
    assert_true(json_object_get_boolean(jval(t, "has_invoice")));
    assert_string_equal(jstr(t, "period"), "2026-11");
    assert_string_equal(jstr(t, "from"), "2026-11-01T00:00:00Z");
    assert_string_equal(jstr(t, "to"), "2026-12-01T00:00:00Z");
    size_t s = line_index(t, "", "pool", "pool-spot");
    /* estimate: S 7200 s x 500 µ$ = 3.600; billed 3.700: +0.100 = +2.78 % (1000/36 bp) */
    assert_int_equal(jint(t, LINE(s, "node_seconds")), 7200);
    assert_int_equal(jmicro(t, LINE(s, "estimated")), 3600000);
    assert_int_equal(jmicro(t, LINE(s, "billed")), 3700000);
    assert_int_equal(jmicro(t, LINE(s, "difference")), 100000);
    assert_int_equal(jmicro(t, LINE(s, "difference_percent")), 2780000);
    /* 3.600 is whole cents: no rounding, the 0.100 is unexplained drift */
    assert_int_equal(jmicro(t, LINE(s, "rounding")), 0);
    assert_int_equal(jmicro(t, LINE(s, "unexplained")), 100000);
    assert_int_equal(jint(t, LINE(s, "items")), 1);
    size_t f = line_index(t, "", "pool", "pool-fb");
    assert_int_equal(jmicro(t, LINE(f, "estimated")), 10800000);
    assert_int_equal(jmicro(t, LINE(f, "difference")), 0);
    size_t tot = line_index(t, "", "total", NULL);
    assert_int_equal(jmicro(t, LINE(tot, "estimated")), 14400000);
    assert_int_equal(jmicro(t, LINE(tot, "billed")), 14500000);
    assert_int_equal(jint(t, "unmatched_items"), 1);
    assert_int_equal(jmicro(t, "unmatched_amount"), 500000);
    /* the summary of a window in November carries the same month */
    assert_int_equal(apitest_call(t, "GET /api/v1/summary?" WEEK), 200);
    assert_int_equal(jlen(t, "reconciliation"), 1);
    assert_string_equal(jstr(t, "reconciliation.0.period"), "2026-11");
    const char *bad[] = {"GET /api/v1/reconciliation", "GET /api/v1/reconciliation?period=2026-13",
                         "GET /api/v1/reconciliation?period=2026-11&period=2026-10",
                         "GET /api/v1/reconciliation?period=2026-11&x=1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (apitest_call(t, bad[i]) != 400)
            fail_msg("%s: %d %s", bad[i], t->resp.status, apitest_body(t));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_tasks_list, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_tasks_pages, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_tasks_filters, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_task_detail, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_experiments, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_status, apitest_setup_worked, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_poll_and_auth, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_router, apitest_setup_worked, apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_exports_list, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_export_csv, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test_setup_teardown(test_export_run, apitest_setup_worked,
                                        apitest_teardown_state),
        cmocka_unit_test(test_export_run_writes),
        cmocka_unit_test_setup_teardown(test_reconciliation, apitest_setup_worked,
                                        apitest_teardown_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
