/* tests for poll_do (with store_do and http_client) against an in-process fake
 * DigitalOcean API: first poll, idempotent re-poll, reclaim/deletion detection,
 * bad input that must not delete data, billing, token hygiene, and the request
 * rate over a long run at a 1-second poll interval (simulated clock). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include "fake_http.h"
#include "base/log.h"
#include "ingest/poll_do.h"
#include "store/store.h"
#include "store/store_do.h"
#include "tmpdb.h"

#define TOKEN "dop_v1_SPOTLEDGER_DISTINCTIVE_TEST_TOKEN_7f3a9c1e"
#define CLUSTER "c0ffee00-0000-4000-8000-000000000001"
#define POOLS_PATH "/v2/kubernetes/clusters/" CLUSTER "/node_pools"
#define D1 "Mon, 02 Nov 2026 03:00:00 GMT" /* 1793588400 */
#define D1_T 1793588400
#define D2 "Mon, 02 Nov 2026 03:01:00 GMT"
#define D2_T 1793588460

struct fx {
    struct fake_server srv;
    struct fake_clock clk;
    char db_path[64];
    struct store *db;
    pthread_mutex_t lock;
    struct poll_do *pd;
};

static char *fixture(const char *name) {
    return fake_fixture("tests/fixtures/do", name, NULL);
}

static struct fake_route *serve(struct fx *f, const char *path, int status, const char *file) {
    char *b = fixture(file);
    struct fake_route *r = fake_route(&f->srv, path, status, b);
    free(b);
    return r;
}

static void serve_pools_world(struct fx *f, const char *pools_file) {
    serve(f, "/v2/kubernetes/clusters/" CLUSTER, 200, "cluster.json");
    serve(f, POOLS_PATH, 200, pools_file);
    serve(f, "/v2/sizes?per_page=200", 200, "sizes_p1.json");
    serve(f, "/v2/sizes?page=2&per_page=200", 200, "sizes_p2.json");
}

static void serve_billing_world(struct fx *f) {
    serve(f, "/v2/customers/my/invoices", 200, "invoices.json");
    serve(f, "/v2/customers/my/invoices/11111111-aaaa-4bbb-8ccc-000000000010", 200,
          "invoice_items_oct.json");
    serve(f, "/v2/customers/my/invoices/11111111-aaaa-4bbb-8ccc-000000000011", 200,
          "invoice_items_nov.json");
    serve(f, "/v2/customers/my/billing_history", 200, "billing_history.json");
    serve(f, "/v2/customers/my/balance", 200, "balance.json");
    fake_route(&f->srv, "/v2/account", 200,
               "{\"account\":{\"uuid\":\"u-1\",\"team\":{\"uuid\":\"t-1\"}}}");
    /* D1 is 2026-11-02: the month so far */
    fake_route(&f->srv,
               "/v2/billing/do:team:t-1/insights/2026-11-01/2026-11-02?page=1&per_page=200", 200,
               "{\"data_points\":[{\"start_date\":\"2026-11-01\",\"total_amount\":\"81.24\","
               "\"sku\":\"1-KS-K8SWN-00109\",\"region\":\"tor1\",\"description\":\"gpu nodes\","
               "\"group_description\":\"gpu-lab\"}],\"total_items\":1,\"total_pages\":1,"
               "\"current_page\":1}");
}

static int setup(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    if (fake_start(&f->srv) != 0)
        return -1;
    f->srv.expect_token = TOKEN;
    f->srv.date = D1;
    snprintf(f->db_path, sizeof f->db_path, "/tmp/spotledger-polldo-XXXXXX");
    if (tmpdb_open(f->db_path, &f->db) != 0)
        return -1;
    pthread_mutex_init(&f->lock, NULL);
    struct poll_do_options o = {
        .api_url = f->srv.base,
        .token = TOKEN,
        .cluster_id = CLUSTER,
        .poll_interval = 1,
        .http = {.timeout_ms = 3000,
                 .sleep_ms = fake_clock_sleep,
                 .sleep_ctx = &f->clk,
                 .now_ms = fake_clock_now},
    };
    if (poll_do_new(&o, f->db, &f->lock, &f->pd) != ERR_OK)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    struct fx *f = *state;
    poll_do_free(f->pd);
    store_free(f->db);
    fake_stop(&f->srv);
    pthread_mutex_destroy(&f->lock);
    tmpdb_unlink(f->db_path);
    free(f);
    return 0;
}

/* --- reading the database (a separate read connection, as the API would) --- */

static int64_t q_int(struct fx *f, const char *sql) {
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(f->db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("bad test sql: %s: %s", sql, sqlite3_errmsg(db));
    int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static char *q_text(struct fx *f, const char *sql) {
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(f->db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("bad test sql: %s: %s", sql, sqlite3_errmsg(db));
    char *v = NULL;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v ? v : strdup("");
}

static void assert_q_str(struct fx *f, const char *sql, const char *want) {
    char *got = q_text(f, sql);
    if (strcmp(got, want) != 0)
        fail_msg("%s: got '%s', want '%s'", sql, got, want);
    free(got);
}

/* Every DO table, every row, as text (poll_runs excluded: it grows by design). */
static char *dump(struct fx *f) {
    static const char *tables[] = {
        "clusters", "sizes",    "size_prices",   "node_pools",      "nodes",
        "reclaims", "invoices", "invoice_items", "billing_history", "balance_snapshots"};
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(f->db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    struct buf b;
    buf_init(&b, 0);
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT * FROM %s ORDER BY 1, 2", tables[t]);
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
        buf_printf(&b, "[%s]\n", tables[t]);
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                const unsigned char *v = sqlite3_column_text(st, c);
                buf_printf(&b, "%s|", v ? (const char *)v : "NULL");
            }
            buf_putc(&b, '\n');
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return buf_detach(&b, NULL);
}

/* --- tests --- */

static void test_first_poll(void **state) {
    struct fx *f = *state;
    serve_pools_world(f, "pools.json");
    assert_int_equal(poll_do_once(f->pd, POLL_DO_POOLS), ERR_OK);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM clusters"), 1);
    assert_q_str(f, "SELECT name FROM clusters", "gpu-lab");
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM node_pools"), 4);
    assert_q_str(f,
                 "SELECT capacity_type || '/' || capacity_basis FROM node_pools WHERE name = "
                 "'gpu-spot'",
                 "spot/slug");
    assert_q_str(f,
                 "SELECT capacity_type || '/' || capacity_basis FROM node_pools WHERE name = "
                 "'gpu-labelled'",
                 "spot/label");
    assert_q_str(f, "SELECT capacity_type FROM node_pools WHERE name = 'gpu-fallback'",
                 "on-demand");
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM nodes"), 4);
    assert_int_equal(q_int(f, "SELECT price_hourly_micro FROM nodes WHERE name = 'gpu-spot-b1'"),
                     1800000);
    assert_int_equal(
        q_int(f, "SELECT price_hourly_micro FROM nodes WHERE name = 'gpu-fallback-c1'"), 3600000);
    assert_int_equal(q_int(f, "SELECT created_at FROM nodes WHERE name = 'gpu-spot-b2'"),
                     1793581200); /* 2026-11-02T01:00:00Z */
    assert_q_str(f, "SELECT droplet_id FROM nodes WHERE name = 'gpu-spot-b2'", "500012");
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM size_prices"), 3);
    assert_int_equal(q_int(f, "SELECT last_seen FROM node_pools WHERE name = 'gpu-spot'"), D1_T);
    assert_q_str(f, "SELECT source || '/' || status FROM poll_runs", "do/ok");
    assert_int_equal(q_int(f, "SELECT source_time FROM poll_runs"), D1_T);
    assert_int_equal(f->srv.auth_bad, 0);
    assert_true(f->srv.auth_ok >= 4);
}

static void test_repoll_changes_nothing(void **state) {
    struct fx *f = *state;
    serve_pools_world(f, "pools.json");
    serve_billing_world(f);
    assert_int_equal(poll_do_once(f->pd, POLL_DO_POOLS | POLL_DO_SIZES | POLL_DO_BILLING), ERR_OK);
    char *a = dump(f);
    assert_int_equal(poll_do_once(f->pd, POLL_DO_POOLS | POLL_DO_SIZES | POLL_DO_BILLING), ERR_OK);
    char *b = dump(f);
    assert_string_equal(a, b);
    free(b);
    /* a later Date only moves last_seen: no new rows anywhere */
    f->srv.date = D2;
    assert_int_equal(poll_do_once(f->pd, POLL_DO_POOLS | POLL_DO_SIZES | POLL_DO_BILLING), ERR_OK);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM size_prices"), 3);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM nodes"), 4);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM invoice_items"), 5);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM billing_history"), 2);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM balance_snapshots"), 1);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM reclaims"), 0);
    /* 3 rounds x (do, do_billing, do_insights) */
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM poll_runs WHERE status = 'ok'"), 9);
    free(a);
}

static void test_reclaim_and_deletion(void **state) {
    struct fx *f = *state;
    serve_pools_world(f, "pools.json");
    assert_int_equal(poll_do_once(f->pd, POLL_DO_POOLS), ERR_OK);
    fake_clear_routes(&f->srv);
    serve_pools_world(f, "pools_after_reclaim.json");
    f->srv.date = D2;
    assert_int_equal(poll_do_once(f->pd, POLL_DO_POOLS), ERR_OK);
    /* the spot pool vanished: deleted at the Date of the first response without it */
    assert_int_equal(q_int(f, "SELECT deleted_at FROM node_pools WHERE name = 'gpu-spot'"), D2_T);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM reclaims"), 1);
    assert_int_equal(q_int(f, "SELECT detected_at FROM reclaims"), D2_T);
    assert_int_equal(q_int(f, "SELECT nodes FROM reclaims"), 2);
    assert_q_str(f, "SELECT pool_id FROM reclaims", "0b000000-0000-4000-8000-00000000000b");
    assert_int_equal(q_int(f, "SELECT do_deleted_at FROM nodes WHERE name = 'gpu-spot-b1'"), D2_T);
    assert_int_equal(q_int(f, "SELECT do_deleted_at FROM nodes WHERE name = 'cpu-system-a1'"),
                     D2_T);
    assert_int_equal(
        q_int(f, "SELECT do_deleted_at IS NULL FROM nodes WHERE name = 'gpu-fallback-c1'"), 1);
    /* renamed pool: same id, new name, no deletion, no reclaim */
    assert_q_str(f, "SELECT name FROM node_pools WHERE id = '0c000000-0000-4000-8000-00000000000c'",
                 "gpu-fallback-renamed");
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM node_pools WHERE deleted_at IS NULL"), 3);
    /* rows are kept, never deleted */
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM nodes"), 6);
    assert_int_equal(q_int(f, "SELECT price_hourly_micro FROM nodes WHERE name = 'cpu-system-a2'"),
                     71430);
    /* a third poll without change records nothing new */
    assert_int_equal(poll_do_once(f->pd, POLL_DO_POOLS), ERR_OK);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM reclaims"), 1);
}

/* Serves `status`/`body` for the node pools, polls, and checks the run failed and
 * nothing was lost. */
static void bad_pools_round(struct fx *f, int status, const char *file, const char *text,
                            const char *needle) {
    fake_clear_routes(&f->srv);
    serve(f, "/v2/kubernetes/clusters/" CLUSTER, 200, "cluster.json");
    serve(f, "/v2/sizes?per_page=200", 200, "sizes_p1.json");
    serve(f, "/v2/sizes?page=2&per_page=200", 200, "sizes_p2.json");
    if (file)
        serve(f, POOLS_PATH, status, file);
    else
        fake_route(&f->srv, POOLS_PATH, status, text);
    f->srv.date = D2;
    int64_t before = q_int(f, "SELECT COUNT(*) FROM poll_runs");
    assert_int_not_equal(poll_do_once(f->pd, POLL_DO_POOLS), ERR_OK);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM poll_runs"), before + 1);
    assert_q_str(f, "SELECT status FROM poll_runs ORDER BY id DESC LIMIT 1", "error");
    char *err = q_text(f, "SELECT error FROM poll_runs ORDER BY id DESC LIMIT 1");
    if (!strstr(err, needle))
        fail_msg("poll error '%s' does not mention '%s'", err, needle);
    assert_null(strstr(err, TOKEN));
    free(err);
    /* earlier data intact: nothing marked deleted, nothing removed */
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM node_pools WHERE deleted_at IS NOT NULL"), 0);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM nodes WHERE do_deleted_at IS NOT NULL"), 0);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM node_pools"), 4);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM reclaims"), 0);
    assert_int_equal(q_int(f, "SELECT last_seen FROM node_pools WHERE name = 'gpu-spot'"), D1_T);
}

static void test_bad_input_keeps_data(void **state) {
    struct fx *f = *state;
    serve_pools_world(f, "pools.json");
    assert_int_equal(poll_do_once(f->pd, POLL_DO_POOLS), ERR_OK);
    bad_pools_round(f, 200, "pools_truncated.json", NULL, "truncated");
    bad_pools_round(f, 200, "html_200.html", NULL, "HTML");
    bad_pools_round(f, 200, "pools_wrong_type.json", NULL, "not an array");
    bad_pools_round(f, 200, "pools_bad_node.json", NULL, "missing 'name'");
    bad_pools_round(f, 500, NULL, "{\"id\":\"server_error\",\"message\":\"oops\"}", "500");
    bad_pools_round(f, 401, NULL, "{\"id\":\"unauthorized\",\"message\":\"Unable\"}",
                    "kubernetes:read");
    bad_pools_round(f, 403, NULL, "{\"id\":\"forbidden\",\"message\":\"no\"}", "kubernetes:read");
    bad_pools_round(f, 404, NULL, "{\"id\":\"not_found\",\"message\":\"no\"}", "404");
    /* a page that repeats: page 2 names itself as next */
    bad_pools_round(f, 200, NULL,
                    "{\"node_pools\":[],\"links\":{\"pages\":{\"next\":"
                    "\"https://api.digitalocean.com" POOLS_PATH "?page=2\"}}}",
                    "loop");
}

static void test_slow_reply_times_out(void **state) {
    struct fx *f = *state;
    struct poll_do *quick = NULL;
    struct poll_do_options o = {
        .api_url = f->srv.base,
        .token = TOKEN,
        .cluster_id = CLUSTER,
        .http = {.timeout_ms = 300,
                 .max_retries = -1,
                 .sleep_ms = fake_clock_sleep,
                 .sleep_ctx = &f->clk,
                 .now_ms = fake_clock_now},
    };
    assert_int_equal(poll_do_new(&o, f->db, &f->lock, &quick), ERR_OK);
    serve_pools_world(f, "pools.json");
    f->srv.routes[1].delay_ms = 1200;
    assert_int_equal(poll_do_once(quick, POLL_DO_POOLS), ERR_HTTP);
    assert_q_str(f, "SELECT status FROM poll_runs ORDER BY id DESC LIMIT 1", "error");
    char *err = q_text(f, "SELECT error FROM poll_runs ORDER BY id DESC LIMIT 1");
    assert_non_null(strstr(err, "imeout"));
    free(err);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM node_pools"), 0);
    poll_do_free(quick);
}

static void test_billing(void **state) {
    struct fx *f = *state;
    serve_billing_world(f);
    assert_int_equal(poll_do_once(f->pd, POLL_DO_BILLING), ERR_OK);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM invoices"), 2);
    assert_int_equal(q_int(f, "SELECT amount_micro FROM invoices WHERE period = '2026-10'"),
                     1234560000);
    assert_int_equal(q_int(f, "SELECT is_preview FROM invoices WHERE period = '2026-11'"), 1);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM invoice_items"), 5);
    assert_int_equal(q_int(f, "SELECT SUM(amount_micro) FROM invoice_items WHERE invoice_uuid = "
                              "'11111111-aaaa-4bbb-8ccc-000000000010'"),
                     1239560000);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM billing_history"), 2); /* "1,5" skipped */
    assert_int_equal(q_int(f, "SELECT amount_micro FROM billing_history WHERE type='Payment'"),
                     -1234560000);
    assert_int_equal(q_int(f, "SELECT month_to_date_usage FROM balance_snapshots"), 88200000);
    assert_q_str(f, "SELECT group_concat(source || '/' || status) FROM poll_runs",
                 "do_billing/ok,do_insights/ok");
    /* the month's billing insights, one point of 81.24 */
    assert_int_equal(q_int(f, "SELECT SUM(amount) FROM billing_insights WHERE day = 1793491200"),
                     81240000);
    /* a final invoice's items are fetched once; the preview's every time */
    int before = fake_requests(&f->srv);
    assert_int_equal(poll_do_once(f->pd, POLL_DO_BILLING), ERR_OK);
    /* invoices, nov items, history, balance, account, one page of insights */
    assert_int_equal(fake_requests(&f->srv) - before, 6);
}

static void test_billing_bad_input_keeps_data(void **state) {
    struct fx *f = *state;
    serve_billing_world(f);
    assert_int_equal(poll_do_once(f->pd, POLL_DO_BILLING), ERR_OK);
    fake_clear_routes(&f->srv);
    serve(f, "/v2/customers/my/invoices", 200, "invoices_bad_amount.json");
    serve(f, "/v2/customers/my/invoices/11111111-aaaa-4bbb-8ccc-000000000009", 200,
          "invoice_items_bad.json");
    fake_route(&f->srv, "/v2/customers/my/billing_history", 500, "<html>oops</html>");
    serve(f, "/v2/customers/my/balance", 200, "balance_bad.json");
    assert_int_not_equal(poll_do_once(f->pd, POLL_DO_BILLING), ERR_OK);
    assert_q_str(f, "SELECT status FROM poll_runs ORDER BY id DESC LIMIT 1", "error");
    /* the bad "12.3.4" invoice did not overwrite the stored amount; the good one landed */
    assert_int_equal(q_int(f, "SELECT amount_micro FROM invoices WHERE period = '2026-10'"),
                     1234560000);
    assert_int_equal(q_int(f, "SELECT amount_micro FROM invoices WHERE period = '2026-09'"),
                     10000000);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM invoice_items"), 5);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM billing_history"), 2);
    assert_int_equal(q_int(f, "SELECT COUNT(*) FROM balance_snapshots"), 1);
}

static bool contains(const char *hay, size_t n, const char *needle) {
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0)
            return true;
    return false;
}

static void test_token_never_logged_or_stored(void **state) {
    struct fx *f = *state;
    serve_pools_world(f, "pools.json");
    fake_route(&f->srv, "/v2/customers/my/balance", 403,
               "{\"id\":\"forbidden\",\"message\":\"You do not have permission\"}");
    serve_billing_world(f);
    char log_path[] = "/tmp/spotledger-polldo-log-XXXXXX";
    int lfd = mkstemp(log_path);
    assert_true(lfd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(lfd, STDERR_FILENO);
    log_set_level(LOG_DEBUG);
    enum err e1 = poll_do_once(f->pd, POLL_DO_POOLS | POLL_DO_BILLING);
    fake_clear_routes(&f->srv);
    fake_route(&f->srv, POOLS_PATH, 401, "{\"id\":\"unauthorized\",\"message\":\"Unable\"}");
    enum err e2 = poll_do_once(f->pd, POLL_DO_POOLS);
    log_set_level(LOG_ERROR);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(lfd);
    assert_int_equal(e1, ERR_AUTH); /* the balance's 403 */
    assert_int_equal(e2, ERR_AUTH);
    char *logs = fake_read_file(log_path, NULL);
    unlink(log_path);
    assert_non_null(logs);
    assert_true(strlen(logs) > 100); /* the debug logs were captured */
    assert_non_null(strstr(logs, "billing:read"));
    assert_null(strstr(logs, TOKEN));
    assert_null(strstr(logs, "SPOTLEDGER_DISTINCTIVE"));
    free(logs);
    /* the token went to the server on every request */
    assert_int_equal(f->srv.auth_bad, 0);
    assert_true(f->srv.auth_ok >= 8);
    /* and is in no database file (main, WAL) */
    const char *suffix[] = {"", "-wal"};
    for (int i = 0; i < 2; i++) {
        char p[96];
        snprintf(p, sizeof p, "%s%s", f->db_path, suffix[i]);
        size_t len = 0;
        char *bytes = fake_read_file(p, &len);
        if (!bytes)
            continue;
        assert_true(len > 0);
        assert_false(contains(bytes, len, "SPOTLEDGER_DISTINCTIVE"));
        free(bytes);
    }
}

/* --- the long run: a 1-second poll interval for 65 simulated minutes --- */

struct sim {
    struct fake_clock clk;
    int64_t *times;
    int n, cap;
    int64_t end_ms;
    char *pools, *pools2, *sizes, *invoices, *items, *history, *balance;
    bool dead; /* every request answered 500 */
};

static long sim_transport(void *ctx, const char *url, struct http_response *resp) {
    struct sim *s = ctx;
    if (s->n < s->cap)
        s->times[s->n] = s->clk.now;
    s->n++;
    resp->date = D1_T + s->clk.now / 1000;
    if (s->dead) {
        buf_puts(&resp->body, "{\"id\":\"server_error\",\"message\":\"down\"}");
        return 500;
    }
    /* the first route whose part is in the URL answers; none: "{}" */
    const struct {
        const char *part;
        const char *body;
    } routes[] = {
        {"/node_pools?page=2", s->pools2},
        {"/node_pools", s->pools},
        {"/v2/sizes", s->sizes},
        {"/invoices/", s->items},
        {"/invoices", s->invoices},
        {"/billing_history", s->history},
        {"/balance", s->balance},
        {"/clusters/", "{\"kubernetes_cluster\":{\"id\":\"" CLUSTER "\",\"name\":\"gpu-lab\"}}"},
        {"/v2/account", "{\"account\":{\"team\":{\"uuid\":\"t-1\"}}}"},
        {"/insights/",
         "{\"data_points\":[],\"total_items\":0,\"total_pages\":1,\"current_page\":1}"},
    };
    const char *body = "{}";
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (strstr(url, routes[i].part)) {
            body = routes[i].body;
            break;
        }
    }
    buf_puts(&resp->body, body);
    return 200;
}

static bool sim_done(void *ctx) {
    struct sim *s = ctx;
    return s->clk.now >= s->end_ms;
}

static void sim_sleep(void *ctx, long ms) {
    ((struct sim *)ctx)->clk.now += ms;
}

static int64_t sim_now(void *ctx) {
    return ((struct sim *)ctx)->clk.now;
}

/* Options for a poller on simulated time and transport (intervals: defaults). */
static struct poll_do_options sim_options(struct sim *s) {
    struct poll_do_options o = {
        .api_url = "https://api.digitalocean.com",
        .token = TOKEN,
        .cluster_id = CLUSTER,
        .http = {.sleep_ms = sim_sleep,
                 .sleep_ctx = s,
                 .now_ms = sim_now,
                 .cancelled = sim_done,
                 .transport = sim_transport,
                 .transport_ctx = s},
    };
    return o;
}

static void test_rate_stays_under_do_limits(void **state) {
    struct fx *f = *state;
    struct sim s = {.cap = 20000, .end_ms = 65 * 60 * 1000};
    s.times = calloc((size_t)s.cap, sizeof *s.times);
    /* two pages of pools per poll: 7200 requests/h wanted, more than DO allows */
    s.pools = strdup("{\"node_pools\":[{\"id\":\"p1\",\"name\":\"gpu\",\"size\":\"g-spot\","
                     "\"count\":1,\"nodes\":[{\"id\":\"n1\",\"name\":\"node-1\"}]}],"
                     "\"links\":{\"pages\":{\"next\":\"https://api.digitalocean.com/v2/"
                     "kubernetes/clusters/" CLUSTER "/node_pools?page=2&per_page=1\"}}}");
    s.pools2 = strdup("{\"node_pools\":[{\"id\":\"p2\",\"name\":\"od\",\"size\":\"g\","
                      "\"count\":0,\"nodes\":[]}]}");
    s.sizes = strdup("{\"sizes\":[{\"slug\":\"g-spot\",\"price_hourly\":1.8,"
                     "\"price_monthly\":1209.6},{\"slug\":\"g\",\"price_hourly\":3.6,"
                     "\"price_monthly\":2419.2}]}");
    s.invoices = strdup("{\"invoices\":[],\"invoice_preview\":{\"invoice_uuid\":\"u1\","
                        "\"amount\":\"1.00\",\"invoice_period\":\"2026-11\"}}");
    s.items = strdup("{\"invoice_items\":[]}");
    s.history = strdup("{\"billing_history\":[]}");
    s.balance = strdup("{\"month_to_date_balance\":\"1.00\",\"account_balance\":\"0.00\","
                       "\"month_to_date_usage\":\"1.00\"}");
    struct poll_do *pd = NULL;
    struct poll_do_options o = sim_options(&s);
    o.poll_interval = 1;
    o.billing_interval = 3600;
    o.sizes_interval = 60; /* more requests than the default, on purpose */
    assert_int_equal(poll_do_new(&o, f->db, &f->lock, &pd), ERR_OK);
    int polls = poll_do_run(pd);
    int n = s.n < s.cap ? s.n : s.cap;
    int per_min = max_in_window(s.times, n, 60000);
    int per_hour = max_in_window(s.times, n, 3600000);
    printf("[   INFO   ] 65 simulated minutes at --poll-interval 1: %d polls, %d requests, "
           "max %d/min, max %d/h\n",
           polls, s.n, per_min, per_hour);
    assert_true(per_min <= 250);
    assert_true(per_hour <= 5000);
    assert_true(s.n > 5000); /* it kept polling at close to the allowed rate */
    assert_int_equal((int)poll_do_requests(pd), s.n);
    /* only the poll interrupted by the end of the run may be unfinished */
    assert_true(q_int(f, "SELECT COUNT(*) FROM poll_runs WHERE status != 'ok' AND "
                         "error NOT LIKE '%cancelled%'") == 0);
    poll_do_free(pd);
    free(s.times);
    free(s.pools);
    free(s.pools2);
    free(s.sizes);
    free(s.invoices);
    free(s.items);
    free(s.history);
    free(s.balance);
}

/* issue 18: a dead DigitalOcean API (every request 500) for 6 simulated hours
 * at the default intervals is not hammered. */
static void test_dead_upstream_backs_off(void **state) {
    struct fx *f = *state;
    struct sim s = {.cap = 20000, .end_ms = 6 * 3600 * 1000, .dead = true};
    s.times = calloc((size_t)s.cap, sizeof *s.times);
    struct poll_do *pd = NULL;
    struct poll_do_options o = sim_options(&s); /* the default intervals */
    assert_int_equal(poll_do_new(&o, f->db, &f->lock, &pd), ERR_OK);
    int polls = poll_do_run(pd);
    int n = s.n < s.cap ? s.n : s.cap;
    int first_hour = 0;
    for (int i = 0; i < n; i++)
        if (s.times[i] < 3600 * 1000)
            first_hour++;
    int last_hour = 0;
    for (int i = 0; i < n; i++)
        if (s.times[i] >= 5 * 3600 * 1000)
            last_hour++;
    printf("[   INFO   ] a dead API for 6 simulated hours: %d polls, %d requests, %d in the "
           "first hour, %d in the last\n",
           polls, s.n, first_hour, last_hour);
    /* A failing poll makes 12 requests: 3 endpoints, each tried 4 times (before
     * the change: 4,392 requests for 366 polls, 732 an hour, every hour). Pools
     * polls are 60 s apart, doubled per poll that got nothing, up to 600 s: at 0, 120, 360, 840,
     * 1440, 2040, 2640, 3240 s in the first hour (8), every 600 s later (6 an
     * hour); billing stays hourly (its interval is above the 600 s cap), 1 an
     * hour. First hour: (8 + 1) x 12 = 108; the sixth: (6 + 1) x 12 = 84; in all
     * 108 + 5 x 84 = 528. */
    assert_true(first_hour <= 108);
    assert_true(last_hour <= 84);
    assert_true(s.n <= 528);
    assert_true(last_hour > 0); /* it still tries */
    poll_do_free(pd);
    free(s.times);
}

/* A poller thread on the pools and billing worlds, polling every hour. */
static struct poll_do *start_hourly(struct fx *f) {
    struct poll_do *pd = NULL;
    serve_pools_world(f, "pools.json");
    serve_billing_world(f);
    struct poll_do_options o = {
        .api_url = f->srv.base, .token = TOKEN, .cluster_id = CLUSTER, .poll_interval = 3600};
    assert_int_equal(poll_do_new(&o, f->db, &f->lock, &pd), ERR_OK);
    assert_int_equal(poll_do_start(pd), ERR_OK);
    return pd;
}

/* Waits (at most tries x 10 ms) until the count sql gives differs from was; returns
 * the last count. */
static int64_t wait_count_change(struct fx *f, const char *sql, int64_t was, int tries) {
    int64_t now = q_int(f, sql);
    for (int i = 0; i < tries && now == was; i++) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
        now = q_int(f, sql);
    }
    return now;
}

static void test_thread_start_stop(void **state) {
    struct fx *f = *state;
    struct poll_do *pd = start_hourly(f);
    /* bounded wait (3 s) for the first billing poll to land */
    wait_count_change(f, "SELECT COUNT(*) FROM poll_runs WHERE source = 'do_billing'", 0, 300);
    poll_do_stop(pd); /* wakes the hour-long sleep at once */
    assert_true(q_int(f, "SELECT COUNT(*) FROM poll_runs WHERE source = 'do'") >= 1);
    poll_do_free(pd);
}

/* "Poll now" (POST /api/v1/poll -> app_wake -> poll_do_wake): an hour-long
 * sleep ends and both pools and billing are polled again at once. */
static void test_wake_polls_now(void **state) {
    struct fx *f = *state;
    struct poll_do *pd = start_hourly(f);
    const char *count = "SELECT COUNT(*) FROM poll_runs WHERE source = 'do'";
    /* bounded (5 s): the first billing poll has ended */
    wait_count_change(
        f, "SELECT COUNT(*) FROM poll_runs WHERE source = 'do_billing' AND status != 'running'", 0,
        500);
    int64_t before = q_int(f, count);
    assert_int_equal(before, 1);
    poll_do_wake(pd);
    int64_t after = wait_count_change(f, count, before, 500); /* bounded: at most 5 s */
    poll_do_stop(pd);
    assert_int_equal(after, before + 1);
    poll_do_free(pd);
}

static void test_new_rejects_missing(void **state) {
    struct fx *f = *state;
    struct poll_do *pd = NULL;
    struct poll_do_options o = {.api_url = f->srv.base, .token = "", .cluster_id = CLUSTER};
    assert_int_equal(poll_do_new(&o, f->db, &f->lock, &pd), ERR_INVAL);
    o.token = TOKEN;
    o.cluster_id = NULL;
    assert_int_equal(poll_do_new(&o, f->db, &f->lock, &pd), ERR_INVAL);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_ALL);
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_first_poll, setup, teardown),
        cmocka_unit_test_setup_teardown(test_repoll_changes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reclaim_and_deletion, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_input_keeps_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slow_reply_times_out, setup, teardown),
        cmocka_unit_test_setup_teardown(test_billing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_billing_bad_input_keeps_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_never_logged_or_stored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rate_stays_under_do_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dead_upstream_backs_off, setup, teardown),
        cmocka_unit_test_setup_teardown(test_thread_start_stop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wake_polls_now, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_rejects_missing, setup, teardown),
    };
    int rc = cmocka_run_group_tests_name("poll_do", tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
