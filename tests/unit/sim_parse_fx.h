/* sim_parse_fx — the fixture of test_sim_parse_do.c and test_sim_parse_k8s.c
 * (header only; include after cmocka.h): the simulator's server in-process on
 * 127.0.0.1 port 0 with a frozen clock, a scenario loaded and its world built,
 * and GETs with libcurl that carry a timeout and stay on the loopback server.
 *   - setup_small: tests/fixtures/sim/small.json at start + 2 h 15 min (the
 *     gpu-spot pool was reclaimed at start + 2 h and is gone, the fallback pool
 *     has scaled up);
 *   - setup_week_close: tests/fixtures/sim/week_close.json at its end (it crosses
 *     Monday 2027-02-01 00:00 UTC, a month end too). */
#ifndef SPOTLEDGER_TEST_SIM_PARSE_FX_H
#define SPOTLEDGER_TEST_SIM_PARSE_FX_H

#include <curl/curl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/money.h"
#include "sim/sim_clock.h"
#include "sim/sim_scenario.h"
#include "sim/sim_server.h"
#include "sim/sim_world.h"

#define SMALL "tests/fixtures/sim/small.json"
#define WEEK_CLOSE "tests/fixtures/sim/week_close.json"
#define TOKEN "parse-token"
#define MAX_PAGES 200 /* every paging loop stops here: a pagination loop fails the test */
#define RECLAIM_AFTER 7200
#define NOW_AFTER (RECLAIM_AFTER + 15 * 60) /* small.json: 15 min after the reclaim */

struct fx {
    struct sim_scenario *sc;
    struct sim_world *w;
    struct sim_clock clock;
    struct sim_server *srv;
    char base[64];
    int64_t S;    /* scenario start */
    int64_t now;  /* the frozen time */
    int64_t asof; /* the world's seq at now (resourceVersion) */
};

struct reply {
    long status;
    struct buf body;
    CURLcode cc;
};

static inline size_t on_body(char *p, size_t size, size_t n, void *ud) {
    struct reply *r = ud;
    if (buf_append(&r->body, p, size * n) != ERR_OK)
        return 0;
    return size * n;
}

/* GET url (absolute, must be on our loopback server) with a timeout. */
static inline void get_url(struct fx *f, const char *url, const char *token, struct reply *r) {
    memset(r, 0, sizeof *r);
    buf_init(&r->body, 64 * 1024 * 1024);
    assert_memory_equal(url, f->base, strlen(f->base)); /* loopback only */
    CURL *c = curl_easy_init();
    assert_non_null(c);
    struct curl_slist *h = NULL;
    char auth[128];
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
    r->cc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
}

static inline void get(struct fx *f, const char *path, const char *token, struct reply *r) {
    char url[4096];
    int n = snprintf(url, sizeof url, "%s%s", f->base, path);
    assert_true(n > 0 && (size_t)n < sizeof url);
    get_url(f, url, token, r);
}

/* GET with the token, asserting the transfer and the status. */
static inline void get_ok(struct fx *f, const char *path, long want, struct reply *r) {
    get(f, path, TOKEN, r);
    assert_int_equal(r->cc, CURLE_OK);
    if (r->status != want)
        fail_msg("GET %s: status %ld, want %ld: %.300s", path, r->status, want, buf_str(&r->body));
}

static inline int fx_start(struct fx *f, const char *scenario, int64_t after) {
    memset(f, 0, sizeof *f);
    char err[256];
    if (sim_scenario_load(scenario, &f->sc, err, sizeof err) != ERR_OK) {
        fprintf(stderr, "test_sim_parse: %s: %s\n", scenario, err);
        return -1;
    }
    f->S = f->sc->start;
    f->w = sim_world_build(f->sc, 1, f->sc->start + f->sc->duration);
    sim_clock_init(&f->clock, f->S, f->w->horizon, 0);
    f->now = after < 0 ? f->w->horizon : f->S + after;
    sim_clock_set(&f->clock, f->now);
    f->asof = sim_world_seq_at(f->w, f->now);
    struct sim_server_options so = {
        .world = f->w,
        .clock = &f->clock,
        .host = "127.0.0.1",
        .do_token = TOKEN,
        .kube_token = TOKEN,
        .retention = 5400, /* the watch below starts before the reclaim, start + 60 s is older */
        .bookmark_ms = 200,
    };
    if (sim_server_start(&so, &f->srv) != ERR_OK)
        return -1;
    snprintf(f->base, sizeof f->base, "http://127.0.0.1:%u", (unsigned)sim_server_port(f->srv));
    return 0;
}

static inline int setup_small(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    if (!f || fx_start(f, SMALL, NOW_AFTER) != 0)
        return -1;
    *state = f;
    return 0;
}

static inline int setup_week_close(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    if (!f || fx_start(f, WEEK_CLOSE, -1) != 0)
        return -1;
    *state = f;
    return 0;
}

static inline int teardown(void **state) {
    struct fx *f = *state;
    sim_server_stop(f->srv);
    sim_world_free(f->w);
    sim_scenario_free(f->sc);
    free(f);
    return 0;
}

static inline int64_t money(const char *s) {
    int64_t v = 0;
    assert_non_null(s);
    assert_int_equal(money_parse(s, strlen(s), 0, &v), ERR_OK);
    return v;
}

#endif
