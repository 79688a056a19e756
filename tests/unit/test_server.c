/* server + router + static files, driven over loopback with libcurl. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "http/api.h"
#include "service/app.h"
#include "base/buf.h"
#include "service/config.h"
#include "base/log.h"
#include "http/server.h"
#include "http/static_files.h"
#include "store/store.h"
#include "tmpdir.h"

struct fx {
    char dir[64];
    char db[96];
    char web[96];
    struct config cfg;
    struct app app;
    struct store *writer;
    struct server *srv;
    uint16_t port;
};

static const char *no_env(const char *n) {
    (void)n;
    return NULL;
}

/* Writes text into the file dir/name. */
static void write_in(const char *dir, const char *name, const char *text) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Makes the directory dir/name (0755). */
static void mkdir_in(const char *dir, const char *name) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    mkdir(path, 0755);
}

static int setup(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/spotledger-srv-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->db, sizeof f->db, "%s/x.db", f->dir);
    snprintf(f->web, sizeof f->web, "%s/web", f->dir);
    mkdir(f->web, 0755);
    write_in(f->web, "index.html", "<!doctype html><title>spotledger</title>");
    write_in(f->web, "app.js", "console.log(1);");
    write_in(f->dir, "secret.txt", "outside the web root");
    char p[160];
    snprintf(p, sizeof p, "%s/secret.txt", f->dir);
    char link[160];
    snprintf(link, sizeof link, "%s/escape.txt", f->web);
    if (symlink(p, link) != 0)
        return -1;
    log_set_level(LOG_OFF);
    char *argv[] = {(char *)"spotledger", (char *)"--web-dir", f->web};
    char err[256];
    if (config_parse(&f->cfg, 3, argv, no_env, err, sizeof err) != CONFIG_OK)
        return -1;
    app_use_config(&f->app, &f->cfg);
    if (store_open(f->db, STORE_WRITER, &f->writer, NULL) != ERR_OK)
        return -1;
    struct server_options so = {.host = "127.0.0.1",
                                .port = 0,
                                .db_path = f->db,
                                .max_body = 1024,
                                .threads = 2,
                                .app = &f->app};
    if (server_start(&so, &f->srv) != ERR_OK)
        return -1;
    f->port = server_port(f->srv);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    struct fx *f = *state;
    server_stop(f->srv, 1000);
    store_free(f->writer);
    config_release(&f->cfg);
    if (tmpdir_remove(f->dir) != 0)
        return -1;
    free(f);
    return 0;
}

struct reply {
    long status;
    struct buf body;
    struct buf headers;
};

static size_t on_body(char *p, size_t sz, size_t n, void *ud) {
    return buf_append(ud, p, sz * n) == ERR_OK ? sz * n : 0;
}

static void fetch(struct fx *f, const char *method, const char *path, const char *body,
                  struct reply *r) {
    char url[8300];
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", (unsigned)f->port, path);
    buf_init(&r->body, 1 << 20);
    buf_init(&r->headers, 1 << 20);
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r->body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r->headers);
    if (body)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    assert_int_equal(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_easy_cleanup(c);
}

static void reply_free(struct reply *r) {
    buf_release(&r->body);
    buf_release(&r->headers);
}

/* Fetches method path (upload as the body when not NULL) and checks the status, and
 * that the body holds in_body and the headers in_headers (each when not NULL). */
static void expect(struct fx *f, const char *method, const char *path, const char *upload,
                   long status, const char *in_body, const char *in_headers) {
    struct reply r;
    fetch(f, method, path, upload, &r);
    assert_int_equal(r.status, status);
    if (in_body)
        assert_non_null(strstr(buf_str(&r.body), in_body));
    if (in_headers)
        assert_non_null(strstr(buf_str(&r.headers), in_headers));
    reply_free(&r);
}

static void test_health(void **state) {
    struct fx *f = *state;
    struct reply r;
    fetch(f, "GET", "/healthz", NULL, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(buf_str(&r.body), "{\"status\":\"ok\"}\n");
    assert_non_null(strstr(buf_str(&r.headers), "Content-Security-Policy: default-src 'self'"));
    assert_non_null(strstr(buf_str(&r.headers), "X-Content-Type-Options: nosniff"));
    assert_non_null(strstr(buf_str(&r.headers), "Referrer-Policy: no-referrer"));
    reply_free(&r);
    expect(f, "GET", "/readyz", NULL, 200, "\"status\":\"ready\"", NULL);
}

static void test_readyz_waits_for_sources(void **state) {
    struct fx *f = *state;
    f->app.do_enabled = true;
    expect(f, "GET", "/readyz", NULL, 503, "no successful poll yet", NULL);
    int64_t id;
    int64_t now = (int64_t)time(NULL);
    assert_int_equal(store_poll_begin(f->writer, "do", now, &id), ERR_OK);
    assert_int_equal(store_poll_end(f->writer, id, now, now, NULL, 1, 1), ERR_OK);
    expect(f, "GET", "/readyz", NULL, 200, NULL, NULL);
    f->app.do_enabled = false;
}

static void test_errors(void **state) {
    struct fx *f = *state;
    expect(f, "GET", "/api/v1/nope", NULL, 404, "{\"error\":{\"code\":\"not_found\"", NULL);
    expect(f, "DELETE", "/healthz", NULL, 405, NULL, "Allow: GET, HEAD");
    char big[2048];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    expect(f, "POST", "/healthz", big, 413, "payload_too_large", NULL);
    char path[8192] = "/healthz?x=";
    memset(path + 11, 'a', 5000);
    path[5011] = '\0';
    expect(f, "GET", path, NULL, 414, "uri_too_long", NULL);
}

static void test_static(void **state) {
    struct fx *f = *state;
    expect(f, "GET", "/", NULL, 200, "<title>spotledger</title>",
           "Content-Type: text/html; charset=utf-8");
    expect(f, "GET", "/app.js", NULL, 200, NULL, "Content-Type: text/javascript");
    struct reply r;
    const char *evil[] = {"/../secret.txt",
                          "/%2e%2e/secret.txt",
                          "/web/%2e%2e/%2e%2e/etc/passwd",
                          "/../../etc/passwd",
                          "/escape.txt",
                          "/.hidden",
                          "/a//b",
                          "/..%2fsecret.txt",
                          "/%5c..%5csecret.txt",
                          "/nothing.html"};
    for (size_t i = 0; i < sizeof evil / sizeof evil[0]; i++) {
        fetch(f, "GET", evil[i], NULL, &r);
        if (r.status != 400 && r.status != 404)
            fail_msg("%s answered %ld", evil[i], r.status);
        assert_null(strstr(buf_str(&r.body), "outside the web root"));
        assert_null(strstr(buf_str(&r.body), "root:"));
        reply_free(&r);
    }
}

/* issue 18: /vendor/ serves the files the dashboard loads, not all of
 * /usr/share/javascript */
static void test_vendor_allow_list(void **state) {
    struct fx *f = *state;
    mkdir_in(f->dir, "vendor");
    mkdir_in(f->dir, "vendor/chart.js");
    mkdir_in(f->dir, "vendor/jquery");
    write_in(f->dir, "vendor/chart.js/chart.min.js", "/* chart */");
    write_in(f->dir, "vendor/chart.js/chart.esm.js", "/* esm */");
    write_in(f->dir, "vendor/jquery/jquery.js", "/* jquery */");
    free(f->cfg.vendor_dir);
    char p[200];
    snprintf(p, sizeof p, "%s/vendor", f->dir);
    f->cfg.vendor_dir = strdup(p);
    struct reply r;
    fetch(f, "GET", "/vendor/chart.js/chart.min.js", NULL, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(buf_str(&r.body), "/* chart */");
    reply_free(&r);
    const char *other[] = {"/vendor/jquery/jquery.js", "/vendor/chart.js/chart.esm.js",
                           "/vendor/chart.js/", "/vendor/"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        fetch(f, "GET", other[i], NULL, &r);
        if (r.status != 404)
            fail_msg("%s answered %ld", other[i], r.status);
        assert_non_null(strstr(buf_str(&r.body), "\"not_found\""));
        reply_free(&r);
    }
}

static void test_safe_paths(void **state) {
    (void)state;
    assert_true(static_path_is_safe("index.html"));
    assert_true(static_path_is_safe("css/app.css"));
    assert_false(static_path_is_safe(""));
    assert_false(static_path_is_safe(".."));
    assert_false(static_path_is_safe("a/../b"));
    assert_false(static_path_is_safe("a/./b"));
    assert_false(static_path_is_safe("a//b"));
    assert_false(static_path_is_safe("a\\b"));
    assert_false(static_path_is_safe(".git/config"));
    assert_string_equal(static_mime_type("x.css"), "text/css; charset=utf-8");
    assert_string_equal(static_mime_type("x"), "application/octet-stream");
}

/* A NUL byte (%00) in the path or a query value used to be cut off by the C
 * strings libmicrohttpd hands over: /index.html%00.js served index.html and
 * window=7d%00junk read as window=7d. Now the raw URI is checked: 400. */
static void test_nul_in_url(void **state) {
    struct fx *f = *state;
    static const char *const paths[] = {"/index.html%00.js",
                                        "/%00",
                                        "/healthz?x=%00",
                                        "/api/v1/summary?window=7d%00junk",
                                        "/api/v1/summary?experiment=a%00b",
                                        "/app.js%2500",
                                        "/api/v1/summary?x%00y=1"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        struct reply r;
        fetch(f, "GET", paths[i], NULL, &r);
        long want = strstr(paths[i], "%25") ? 404 : 400;
        if (r.status != want)
            fail_msg("%s: HTTP %ld, want %ld", paths[i], r.status, want);
        assert_non_null(strstr(buf_str(&r.body), "\"error\":{\"code\":"));
        reply_free(&r);
    }
}

/* Calls handler directly (no router) with a request carrying db and now (when
 * given) and the name, value pairs up to NULL; *resp is the caller's to release. */
static void direct(struct fx *f, void (*handler)(struct request *, struct response *),
                   struct store *db, int64_t now, struct response *resp, ...) {
    struct request req;
    request_init(&req);
    response_init(resp);
    req.app = &f->app;
    if (db)
        req.db = db;
    if (now)
        req.now = now;
    va_list ap;
    va_start(ap, resp);
    const char *name;
    while ((name = va_arg(ap, const char *)) != NULL)
        request_add_param(&req, name, va_arg(ap, const char *));
    va_end(ap);
    handler(&req, resp);
    request_release(&req);
}

/* POST /api/v1/poll took any parameter (POST /api/v1/poll?x=1 -> 202); routes
 * refuse unknown parameters, so a typo is never silently ignored. */
static void test_poll_params(void **state) {
    struct fx *f = *state;
    struct response resp;
    direct(f, api_poll_now, NULL, 0, &resp, "x", "1", NULL);
    assert_int_equal(resp.status, 400);
    assert_non_null(strstr(buf_str(&resp.body), "unknown parameter 'x'"));
    response_release(&resp);
    direct(f, api_poll_now, NULL, 0, &resp, NULL);
    assert_int_equal(resp.status, 202);
    response_release(&resp);
}

/* POST /api/v1/exports?week=... judged "over" by the wall clock when no poll had
 * succeeded yet (api_now's fallback): a restarted service wrote the week's files
 * from an empty view (every figure 0) and recorded them, so the exporter never
 * rewrote them (found by e2e_crash). A re-export needs the source clock: 409. */
static void test_export_needs_source_clock(void **state) {
    struct fx *f = *state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/exports", f->dir);
    mkdir(dir, 0755);
    f->cfg.export_dir = strdup(dir);
    /* a fresh database: no poll has succeeded yet */
    char db[160];
    snprintf(db, sizeof db, "%s/fresh.db", f->dir);
    struct store *wr = NULL, *rd = NULL;
    assert_int_equal(store_open(db, STORE_WRITER, &wr, NULL), ERR_OK);
    assert_int_equal(store_open(db, STORE_READER, &rd, NULL), ERR_OK);
    f->app.writer = wr;
    struct response resp;
    /* now 1795000000 = 2026-11-19: the wall clock says week 46 is over */
    direct(f, api_export_run, rd, 1795000000, &resp, "week", "2026-W46", NULL);
    assert_int_equal(resp.status, 409);
    assert_non_null(strstr(buf_str(&resp.body), "no_source_time"));
    char path[192];
    snprintf(path, sizeof path, "%s/spotledger-2026-W46-summary.csv", dir);
    assert_int_equal(access(path, F_OK), -1);
    response_release(&resp);
    store_free(rd);
    store_free(wr);
    f->app.writer = NULL;
    free(f->cfg.export_dir);
    f->cfg.export_dir = NULL;
}

/* GET /api/v1/reconciliation?period=2026-11&period=2026-10 answered for the first
 * period; a repeated parameter is refused, as on every other route. */
static void test_reconciliation_repeated_period(void **state) {
    struct fx *f = *state;
    struct response resp;
    direct(f, api_reconciliation, NULL, 0, &resp, "period", "2026-11", "period", "2026-10", NULL);
    assert_int_equal(resp.status, 400);
    assert_non_null(strstr(buf_str(&resp.body), "more than once"));
    response_release(&resp);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_ALL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_health),
        cmocka_unit_test(test_readyz_waits_for_sources),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_static),
        cmocka_unit_test(test_safe_paths),
        cmocka_unit_test(test_vendor_allow_list),
        cmocka_unit_test(test_nul_in_url),
        cmocka_unit_test(test_poll_params),
        cmocka_unit_test(test_export_needs_source_clock),
        cmocka_unit_test(test_reconciliation_repeated_period),
    };
    int rc = cmocka_run_group_tests_name("server", tests, setup, teardown);
    curl_global_cleanup();
    return rc;
}
