/* sim_parse_fx — the fixture of test_sim_parse_do.c and test_sim_parse_k8s.c
 * (header only; include after cmocka.h): the simulator's server in-process
 * (sim_fx.h) on 127.0.0.1 port 0 with a frozen clock, a scenario loaded and its
 * world built, and GETs with libcurl that carry a timeout and stay on the
 * loopback server.
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

#include "sim_fx.h"

#define SMALL "tests/fixtures/sim/small.json"
#define WEEK_CLOSE "tests/fixtures/sim/week_close.json"
#define TOKEN "parse-token"
#define MAX_PAGES 200 /* every paging loop stops here: a pagination loop fails the test */
#define RECLAIM_AFTER 7200
#define NOW_AFTER (RECLAIM_AFTER + 15 * 60) /* small.json: 15 min after the reclaim */

#define GET_MS 10000 /* each GET's timeout */

/* GET with the token, asserting the transfer and the status. */
static inline void get_ok(struct fx *f, const char *path, long want, struct reply *r) {
    fx_get(f, path, TOKEN, GET_MS, r);
    assert_int_equal(r->cc, CURLE_OK);
    if (r->status != want)
        fail_msg("GET %s: status %ld, want %ld: %.300s", path, r->status, want, buf_str(&r->body));
}

static inline int fx_start(struct fx *f, const char *scenario, int64_t after) {
    if (fx_load(f, scenario, 0) != 0)
        return -1;
    f->now = after < 0 ? f->w->horizon : f->S + after;
    sim_clock_set(&f->clock, f->now);
    f->asof = sim_world_seq_at(f->w, f->now);
    /* the watch below starts before the reclaim, start + 60 s is older */
    return fx_serve(f, TOKEN, 5400, false);
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

static inline int64_t money(const char *s) {
    int64_t v = 0;
    assert_non_null(s);
    assert_int_equal(money_parse(s, strlen(s), 0, &v), ERR_OK);
    return v;
}

#endif
