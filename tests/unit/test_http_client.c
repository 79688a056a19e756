/* tests for http_client: status mapping, retries, 429 handling, caps, timeouts,
 * paging with its loop guard, streaming, pacing under DigitalOcean's limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "fake_http.h"
#include "source/http_client.h"
#include "base/log.h"

#define TOKEN "tok-http-test-1234"

struct fx {
    struct fake_server srv;
    struct fake_clock clk;
    struct http_client *c;
    struct http_response r;
    char url[256];
};

static int setup(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    if (fake_start(&f->srv) != 0)
        return -1;
    f->srv.expect_token = TOKEN;
    struct http_client_options o = {
        .timeout_ms = 3000,
        .max_retries = 3,
        .sleep_ms = fake_clock_sleep,
        .sleep_ctx = &f->clk,
        .now_ms = fake_clock_now,
    };
    if (http_client_new(&o, &f->c) != ERR_OK)
        return -1;
    http_response_init(&f->r);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    struct fx *f = *state;
    http_response_release(&f->r);
    http_client_free(f->c);
    fake_stop(&f->srv);
    free(f);
    return 0;
}

static const char *url(struct fx *f, const char *path) {
    snprintf(f->url, sizeof f->url, "%s%s", f->srv.base, path);
    return f->url;
}

static void test_get_ok_reads_date_and_sends_bearer(void **state) {
    struct fx *f = *state;
    f->srv.date = "Sun, 29 Nov 2026 15:04:05 GMT";
    struct fake_route *r = fake_route(&f->srv, "/v2/account", 200, "{\"ok\":true}");
    r->hdr_name[0] = "ratelimit-remaining";
    r->hdr_value[0] = "4816";
    r->hdr_name[1] = "ratelimit-reset";
    r->hdr_value[1] = "1796000000";
    assert_int_equal(http_client_get(f->c, url(f, "/v2/account"), TOKEN, "account:read", &f->r),
                     ERR_OK);
    assert_int_equal(f->r.status, 200);
    assert_string_equal(buf_str(&f->r.body), "{\"ok\":true}");
    assert_int_equal(f->r.date, 1795964645); /* 2026-11-29T15:04:05Z */
    assert_int_equal(f->r.ratelimit_remaining, 4816);
    assert_int_equal(f->r.ratelimit_reset, 1796000000);
    assert_int_equal(f->r.attempts, 1);
    assert_string_equal(f->r.content_type, "application/json");
    assert_int_equal(f->srv.auth_ok, 1);
    assert_int_equal(f->srv.auth_bad, 0);
    assert_int_equal(http_client_requests(f->c), 1);
}

static void test_no_token_sends_no_auth(void **state) {
    struct fx *f = *state;
    fake_route(&f->srv, "/x", 200, "{}");
    assert_int_equal(http_client_get(f->c, url(f, "/x"), NULL, NULL, &f->r), ERR_OK);
    assert_int_equal(f->srv.auth_bad, 1);
}

static void test_401_403_name_scope(void **state) {
    struct fx *f = *state;
    fake_route(&f->srv, "/v2/customers/my/balance", 403,
               "{\"id\":\"forbidden\",\"message\":\"You do not have permission to perform this "
               "action.\"}");
    fake_route(&f->srv, "/v2/sizes", 401,
               "{\"id\":\"unauthorized\",\"message\":\"Unable to authenticate you.\"}");
    assert_int_equal(
        http_client_get(f->c, url(f, "/v2/customers/my/balance"), TOKEN, "billing:read", &f->r),
        ERR_AUTH);
    assert_int_equal(f->r.status, 403);
    assert_non_null(strstr(f->r.error, "billing:read"));
    assert_non_null(strstr(f->r.error, "forbidden"));
    assert_int_equal(f->r.attempts, 1); /* not retried */
    assert_int_equal(http_client_get(f->c, url(f, "/v2/sizes"), TOKEN, "sizes:read", &f->r),
                     ERR_AUTH);
    assert_non_null(strstr(f->r.error, "sizes:read"));
    assert_null(strstr(f->r.error, TOKEN));
}

static void test_404_410_mapped(void **state) {
    struct fx *f = *state;
    fake_route(&f->srv, "/gone", 410, "{\"kind\":\"Status\",\"reason\":\"Expired\"}");
    assert_int_equal(http_client_get(f->c, url(f, "/nothing"), TOKEN, NULL, &f->r), ERR_NOTFOUND);
    assert_int_equal(f->r.status, 404);
    assert_int_equal(http_client_get(f->c, url(f, "/gone"), TOKEN, NULL, &f->r), ERR_GONE);
    assert_non_null(strstr(f->r.error, "Expired"));
}

static void test_500_retried_with_backoff(void **state) {
    struct fx *f = *state;
    fake_route(&f->srv, "/flaky", 500, "{\"id\":\"server_error\",\"message\":\"boom\"}")->times = 2;
    fake_route(&f->srv, "/flaky", 200, "{\"fine\":1}");
    assert_int_equal(http_client_get(f->c, url(f, "/flaky"), TOKEN, NULL, &f->r), ERR_OK);
    assert_int_equal(f->r.attempts, 3);
    assert_int_equal(f->r.status, 200);
    /* two backoff waits: [250,500] then [500,1000] ms (equal jitter) */
    int backoffs = 0;
    for (int i = 0; i < f->clk.sleeps && i < 256; i++) {
        if (f->clk.waits[i] >= 250) {
            long lo = backoffs == 0 ? 250 : 500, hi = backoffs == 0 ? 500 : 1000;
            assert_true(f->clk.waits[i] >= lo && f->clk.waits[i] <= hi);
            backoffs++;
        }
    }
    assert_int_equal(backoffs, 2);
}

static void test_500_gives_up(void **state) {
    struct fx *f = *state;
    fake_route(&f->srv, "/down", 503, "<html>down</html>");
    assert_int_equal(http_client_get(f->c, url(f, "/down"), TOKEN, NULL, &f->r), ERR_HTTP);
    assert_int_equal(f->r.attempts, 4); /* 1 + max_retries */
    assert_int_equal(f->r.status, 503);
    assert_non_null(strstr(f->r.error, "503"));
}

static void test_429_honours_retry_after(void **state) {
    struct fx *f = *state;
    struct fake_route *r =
        fake_route(&f->srv, "/busy", 429, "{\"id\":\"too_many_requests\",\"message\":\"x\"}");
    r->times = 1;
    r->hdr_name[0] = "Retry-After";
    r->hdr_value[0] = "7";
    fake_route(&f->srv, "/busy", 200, "{}");
    assert_int_equal(http_client_get(f->c, url(f, "/busy"), TOKEN, NULL, &f->r), ERR_OK);
    assert_int_equal(f->r.attempts, 2);
    bool saw = false;
    for (int i = 0; i < f->clk.sleeps; i++)
        saw |= f->clk.waits[i] == 7000;
    assert_true(saw);
}

static void test_429_uses_ratelimit_reset(void **state) {
    struct fx *f = *state;
    f->srv.date = "Sun, 29 Nov 2026 15:04:05 GMT";
    struct fake_route *r = fake_route(&f->srv, "/busy", 429, "{}");
    r->times = 1;
    r->hdr_name[0] = "ratelimit-remaining";
    r->hdr_value[0] = "0";
    r->hdr_name[1] = "ratelimit-reset";
    r->hdr_value[1] = "1795964657"; /* Date + 12 s */
    fake_route(&f->srv, "/busy", 200, "{}");
    assert_int_equal(http_client_get(f->c, url(f, "/busy"), TOKEN, NULL, &f->r), ERR_OK);
    assert_true(f->clk.total >= 12000);
    assert_true(f->clk.total < 30000);
}

static void test_429_persistent_is_busy(void **state) {
    struct fx *f = *state;
    struct fake_route *r = fake_route(&f->srv, "/busy", 429, "{}");
    r->hdr_name[0] = "Retry-After";
    r->hdr_value[0] = "1";
    assert_int_equal(http_client_get(f->c, url(f, "/busy"), TOKEN, NULL, &f->r), ERR_BUSY);
    assert_int_equal(f->r.attempts, 4);
}

static void test_size_cap(void **state) {
    struct fx *f = *state;
    struct http_client *small = NULL;
    struct http_client_options o = {.max_response = 100,
                                    .sleep_ms = fake_clock_sleep,
                                    .sleep_ctx = &f->clk,
                                    .now_ms = fake_clock_now};
    assert_int_equal(http_client_new(&o, &small), ERR_OK);
    char big[4000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    fake_route(&f->srv, "/big", 200, big);
    assert_int_equal(http_client_get(small, url(f, "/big"), NULL, NULL, &f->r), ERR_TOOBIG);
    assert_int_equal(f->r.attempts, 1);
    http_client_free(small);
}

static void test_timeout(void **state) {
    struct fx *f = *state;
    struct http_client *quick = NULL;
    struct http_client_options o = {.timeout_ms = 200,
                                    .max_retries = 1,
                                    .sleep_ms = fake_clock_sleep,
                                    .sleep_ctx = &f->clk,
                                    .now_ms = fake_clock_now};
    assert_int_equal(http_client_new(&o, &quick), ERR_OK);
    fake_route(&f->srv, "/slow", 200, "{}")->delay_ms = 1500;
    assert_int_equal(http_client_get(quick, url(f, "/slow"), NULL, NULL, &f->r), ERR_HTTP);
    assert_int_equal(f->r.status, 0);
    assert_int_equal(f->r.attempts, 2); /* transport errors are retried */
    assert_non_null(strstr(f->r.error, "imeout"));
    http_client_free(quick);
}

static void test_connect_refused(void **state) {
    struct fx *f = *state;
    struct http_client_options o = {.max_retries = 0};
    struct http_client *c = NULL;
    assert_int_equal(http_client_new(&o, &c), ERR_OK);
    /* port 1 on loopback: nothing listens there in a test sandbox */
    assert_int_equal(http_client_get(c, "http://127.0.0.1:1/", NULL, NULL, &f->r), ERR_HTTP);
    assert_int_equal(f->r.status, 0);
    assert_true(f->r.error[0] != '\0');
    http_client_free(c);
}

/* --- paging --- */

struct pages {
    int n;
    char bodies[8][64];
};

/* Minimal page parser for the test: body is "NEXT <url>" or "LAST". */
static enum err page_cb(void *ctx, const struct http_response *resp, char **next) {
    struct pages *p = ctx;
    const char *b = buf_str(&resp->body);
    if (p->n < 8)
        snprintf(p->bodies[p->n], sizeof p->bodies[0], "%s", b);
    p->n++;
    if (strncmp(b, "NEXT ", 5) == 0)
        *next = strdup(b + 5);
    return ERR_OK;
}

static void test_pages_follow_and_rebase(void **state) {
    struct fx *f = *state;
    fake_route(&f->srv, "/v2/sizes?per_page=2", 200,
               "NEXT https://api.digitalocean.com/v2/sizes?page=2&per_page=2");
    fake_route(&f->srv, "/v2/sizes?page=2&per_page=2", 200, "NEXT /v2/sizes?page=3&per_page=2");
    fake_route(&f->srv, "/v2/sizes?page=3&per_page=2", 200, "LAST");
    f->srv.date = "Mon, 30 Nov 2026 00:00:01 GMT";
    struct pages p = {0};
    int64_t d0 = -1;
    assert_int_equal(http_client_get_pages(f->c, url(f, "/v2/sizes?per_page=2"), TOKEN,
                                           "sizes:read", 10, page_cb, &p, &f->r, &d0),
                     ERR_OK);
    assert_int_equal(p.n, 3);
    assert_string_equal(p.bodies[2], "LAST");
    /* the first page's Date: 2026-11-29T15:04:05Z (1795964645, above) + 8h55m56s */
    assert_int_equal(d0, 1795964645 + 8 * 3600 + 55 * 60 + 56);
    /* the token only ever went to our server */
    assert_int_equal(f->srv.auth_ok, 3);
    assert_int_equal(f->srv.unmatched, 0);
}

/* Follows the pages from path, without a token and at most max of them: it ends
 * with want after n pages. */
static void pages_end(struct fx *f, const char *path, int max, enum err want, int n) {
    struct pages p = {0};
    assert_int_equal(
        http_client_get_pages(f->c, url(f, path), NULL, NULL, max, page_cb, &p, &f->r, NULL), want);
    assert_int_equal(p.n, n);
}

static void test_pages_loop_guard(void **state) {
    struct fx *f = *state;
    fake_route(&f->srv, "/p?page=1", 200, "NEXT /p?page=2");
    fake_route(&f->srv, "/p?page=2", 200, "NEXT /p?page=1");
    pages_end(f, "/p?page=1", 10, ERR_PARSE, 2);
    assert_non_null(strstr(f->r.error, "loop"));
}

static void test_pages_identical_body_guard(void **state) {
    struct fx *f = *state;
    /* a server that ignores ?page= and serves the same page with ever new next links */
    fake_route(&f->srv, "/q", 200, "NEXT /q?page=2");
    pages_end(f, "/q", 10, ERR_PARSE, 1);
}

static void test_pages_max(void **state) {
    struct fx *f = *state;
    fake_route(&f->srv, "/m?page=1", 200, "NEXT /m?page=2");
    fake_route(&f->srv, "/m?page=2", 200, "NEXT /m?page=3");
    fake_route(&f->srv, "/m?page=3", 200, "NEXT /m?page=4");
    pages_end(f, "/m?page=1", 2, ERR_TOOBIG, 2);
}

/* --- streaming --- */

struct lines {
    int n;
    char got[8][64];
    int stop_after; /* 0: never */
};

static bool line_cb(void *ctx, const char *line, size_t len) {
    struct lines *l = ctx;
    if (l->n < 8)
        snprintf(l->got[l->n], sizeof l->got[0], "%.*s", (int)len, line);
    l->n++;
    return !(l->stop_after && l->n >= l->stop_after);
}

static void test_stream_lines(void **state) {
    struct fx *f = *state;
    f->srv.date = "Sun, 29 Nov 2026 15:04:05 GMT";
    struct fake_route *r = fake_route(&f->srv, "/watch", 200,
                                      "{\"type\":\"ADDED\"}\n{\"type\":\"MODIFIED\"}\r\n\ntail");
    r->stream = true;
    r->stream_gap_ms = 5;
    struct lines l = {0};
    assert_int_equal(
        http_client_stream(f->c, url(f, "/watch"), TOKEN, 2000, 1024, line_cb, &l, &f->r), ERR_OK);
    assert_int_equal(l.n, 3);
    assert_string_equal(l.got[0], "{\"type\":\"ADDED\"}");
    assert_string_equal(l.got[1], "{\"type\":\"MODIFIED\"}");
    assert_string_equal(l.got[2], "");
    assert_int_equal(f->r.status, 200);
    assert_int_equal(f->r.date, 1795964645); /* the fixed Date 2026-11-29T15:04:05Z */
    assert_int_equal(f->srv.auth_ok, 1);
}

static void test_stream_stop_early(void **state) {
    struct fx *f = *state;
    fake_route(&f->srv, "/watch", 200, "a\nb\nc\nd\n")->stream = true;
    struct lines l = {.stop_after = 2};
    assert_int_equal(
        http_client_stream(f->c, url(f, "/watch"), NULL, 2000, 1024, line_cb, &l, &f->r), ERR_OK);
    assert_int_equal(l.n, 2);
}

static void test_stream_long_line(void **state) {
    struct fx *f = *state;
    fake_route(&f->srv, "/watch", 200, "0123456789012345678901234567890123456789\n")->stream = true;
    struct lines l = {0};
    assert_int_equal(http_client_stream(f->c, url(f, "/watch"), NULL, 2000, 16, line_cb, &l, &f->r),
                     ERR_TOOBIG);
    assert_int_equal(l.n, 0);
}

static void test_stream_error_status(void **state) {
    struct fx *f = *state;
    fake_route(&f->srv, "/watch", 410, "{\"kind\":\"Status\",\"reason\":\"Expired\"}\n");
    struct lines l = {0};
    assert_int_equal(
        http_client_stream(f->c, url(f, "/watch"), NULL, 2000, 1024, line_cb, &l, &f->r), ERR_GONE);
    assert_int_equal(l.n, 0);
    assert_non_null(strstr(buf_str(&f->r.body), "Expired"));
    fake_route(&f->srv, "/forbidden", 403, "{}");
    assert_int_equal(
        http_client_stream(f->c, url(f, "/forbidden"), NULL, 2000, 1024, line_cb, &l, &f->r),
        ERR_AUTH);
}

static void test_stream_idle_timeout(void **state) {
    struct fx *f = *state;
    struct fake_route *r = fake_route(&f->srv, "/watch", 200, "first\nsecond\n");
    r->stream = true;
    r->stream_gap_ms = 2600; /* longer than the 1 s idle limit, bounded by fake_stop */
    struct lines l = {0};
    assert_int_equal(
        http_client_stream(f->c, url(f, "/watch"), NULL, 1000, 1024, line_cb, &l, &f->r), ERR_HTTP);
    assert_int_equal(l.n, 1);
    assert_non_null(strstr(f->r.error, "idle"));
}

/* A stop request ends an idle watch promptly (shutdown must not wait for the
 * next event): the cancel hook is honoured while the stream is quiet. */
static bool cancel_after_first_line(void *ctx) {
    return ((const struct lines *)ctx)->n >= 1;
}

static void test_stream_cancel(void **state) {
    struct fx *f = *state;
    struct fake_route *r = fake_route(&f->srv, "/watch", 200, "first\nsecond\n");
    r->stream = true;
    r->stream_gap_ms = 2600; /* the second line would come 2.6 s later */
    struct lines l = {0};
    struct http_client_options o = {
        .max_retries = 0, .cancelled = cancel_after_first_line, .sleep_ctx = &l};
    struct http_client *c = NULL;
    assert_int_equal(http_client_new(&o, &c), ERR_OK);
    assert_int_equal(http_client_stream(c, url(f, "/watch"), NULL, 10000, 1024, line_cb, &l, &f->r),
                     ERR_BUSY);
    /* one line only: the stream ended during the quiet gap, before the second
     * line arrived (without the hook it would have waited for it) */
    assert_int_equal(l.n, 1);
    assert_string_equal(f->r.error, "cancelled");
    http_client_free(c);
}

/* --- pacing, with the transport seam: hours of requests in milliseconds --- */

struct rate {
    struct fake_clock clk;
    int64_t *times;
    int n, cap;
    long remaining; /* served as ratelimit-remaining, -1 none */
    int64_t reset_in;
};

static long rate_transport(void *ctx, const char *u, struct http_response *resp) {
    (void)u;
    struct rate *r = ctx;
    if (r->n < r->cap)
        r->times[r->n] = r->clk.now;
    r->n++;
    resp->date = 1796000000 + r->clk.now / 1000;
    if (r->remaining >= 0) {
        resp->ratelimit_remaining = r->remaining;
        resp->ratelimit_reset = resp->date + r->reset_in;
    }
    buf_puts(&resp->body, "{}");
    return 200;
}

/* A client on r's fake clock and transport, r->times for r->cap requests; the
 * rates per minute and hour as given (0: unlimited). */
static struct http_client *rate_client(struct rate *r, int per_minute, int per_hour) {
    r->times = calloc((size_t)r->cap, sizeof *r->times);
    struct http_client_options o = {.rate_per_minute = per_minute,
                                    .rate_per_hour = per_hour,
                                    .sleep_ms = fake_clock_sleep,
                                    .sleep_ctx = &r->clk,
                                    .now_ms = fake_clock_now,
                                    .transport = rate_transport,
                                    .transport_ctx = r};
    struct http_client *c = NULL;
    assert_int_equal(http_client_new(&o, &c), ERR_OK);
    return c;
}

static void test_pacing_under_do_limits(void **state) {
    (void)state;
    struct rate r = {.cap = 30000, .remaining = -1};
    struct http_client *c = rate_client(&r, 250, 5000);
    struct http_response resp;
    http_response_init(&resp);
    /* a caller that wants 4 requests per second for three simulated hours */
    int64_t end = 3 * 3600 * 1000;
    while (r.clk.now < end) {
        assert_int_equal(http_client_get(c, "http://x/v2/", "t", NULL, &resp), ERR_OK);
        r.clk.now += 250;
    }
    assert_true(max_in_window(r.times, r.n, 60000) <= 250);
    assert_true(max_in_window(r.times, r.n, 3600000) <= 5000);
    /* and it used the budget rather than stalling */
    assert_true(r.n >= 14000);
    assert_int_equal((int)http_client_requests(c), r.n);
    http_response_release(&resp);
    http_client_free(c);
    free(r.times);
}

static void test_pacing_honours_remaining_zero(void **state) {
    (void)state;
    struct rate r = {.cap = 16, .remaining = 0, .reset_in = 42};
    struct http_client *c = rate_client(&r, 0, 0);
    struct http_response resp;
    http_response_init(&resp);
    assert_int_equal(http_client_get(c, "http://x/", "t", NULL, &resp), ERR_OK);
    assert_int_equal(http_client_get(c, "http://x/", "t", NULL, &resp), ERR_OK);
    assert_true(r.times[1] - r.times[0] >= 42000);
    http_response_release(&resp);
    http_client_free(c);
    free(r.times);
}

static bool always_cancel(void *ctx) {
    (void)ctx;
    return true;
}

static void test_cancel(void **state) {
    (void)state;
    struct fake_clock k = {0};
    struct http_client_options o = {.sleep_ms = fake_clock_sleep,
                                    .sleep_ctx = &k,
                                    .now_ms = fake_clock_now,
                                    .cancelled = always_cancel};
    struct http_client *c = NULL;
    assert_int_equal(http_client_new(&o, &c), ERR_OK);
    struct http_response resp;
    http_response_init(&resp);
    assert_int_equal(http_client_get(c, "http://127.0.0.1:1/", NULL, NULL, &resp), ERR_BUSY);
    assert_int_equal(resp.attempts, 0);
    http_response_release(&resp);
    http_client_free(c);
}

static void test_escape(void **state) {
    (void)state;
    char *e = http_client_escape("a b/c=d&é~");
    assert_string_equal(e, "a%20b%2Fc%3Dd%26%C3%A9~");
    free(e);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_ALL);
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_get_ok_reads_date_and_sends_bearer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_token_sends_no_auth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_401_403_name_scope, setup, teardown),
        cmocka_unit_test_setup_teardown(test_404_410_mapped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_500_retried_with_backoff, setup, teardown),
        cmocka_unit_test_setup_teardown(test_500_gives_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_429_honours_retry_after, setup, teardown),
        cmocka_unit_test_setup_teardown(test_429_uses_ratelimit_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_429_persistent_is_busy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connect_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pages_follow_and_rebase, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pages_loop_guard, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pages_identical_body_guard, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pages_max, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_stop_early, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_long_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_error_status, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_idle_timeout, setup, teardown),
        cmocka_unit_test(test_pacing_under_do_limits),
        cmocka_unit_test(test_pacing_honours_remaining_zero),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_escape),
    };
    int rc = cmocka_run_group_tests_name("http_client", tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
