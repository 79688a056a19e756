/* test_sim_hold — spotsim's --hold: the clock stands at the scenario's start
 * until a client asks for pods (list or watch), or until
 * SIM_CLOCK_HOLD_AFTER_TOUCH_MS after its first Kubernetes request. A client
 * whose node informer asks first (spotledger's does) must not lose the pods of
 * the first simulated minutes: at --speed 3600 a real second is an hour. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <curl/curl.h>

#include "sim/sim_clock.h"
#include "sim/sim_scenario.h"
#include "sim/sim_server.h"
#include "sim/sim_world.h"

#include "sim_fx.h"

#define SMALL "tests/fixtures/sim/small.json"
#define SPEED 3600 /* simulated seconds per real second */

/* GET path with the good token; the status. */
static long get(struct fx *f, const char *path) {
    struct reply r;
    fx_get(f, path, "good", 5000, &r);
    assert_int_equal(r.cc, CURLE_OK);
    buf_release(&r.body);
    return r.status;
}

static int setup(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    if (!f || fx_load(f, SMALL, SPEED) != 0)
        return -1;
    sim_clock_hold(&f->clock);
    if (fx_serve(f, "good", 600, false) != 0)
        return -1;
    *state = f;
    return 0;
}

/* Nodes and Jobs first: the clock stays at the start (200 ms at SPEED would be
 * 720 simulated seconds); the pods list starts it: 1.1 s later at least 3,600
 * simulated seconds have passed (1 s x 3,600). */
static void test_pods_start_the_clock(void **state) {
    struct fx *f = *state;
    int64_t S = f->sc->start;
    assert_int_equal(get(f, "/api/v1/nodes"), 200);
    assert_int_equal(get(f, "/apis/batch/v1/namespaces/default/jobs"), 200);
    sim_clock_sleep_ms(200);
    assert_int_equal(sim_clock_now(&f->clock), S);
    assert_int_equal(get(f, "/api/v1/namespaces/default/pods"), 200);
    sim_clock_sleep_ms(1100);
    assert_true(sim_clock_now(&f->clock) >= S + 3600);
}

/* A client that never asks for pods: the clock starts by itself
 * SIM_CLOCK_HOLD_AFTER_TOUCH_MS after the first request. The first touch is
 * moved that far into the past instead of waiting 5 s. */
static void test_touch_starts_it_later(void **state) {
    struct fx *f = *state;
    int64_t S = f->sc->start;
    assert_int_equal(get(f, "/api/v1/nodes"), 200);
    sim_clock_sleep_ms(200);
    assert_int_equal(sim_clock_now(&f->clock), S);
    int64_t touched = atomic_load(&f->clock.touched_ns);
    assert_true(touched > 0);
    atomic_store(&f->clock.touched_ns, touched - SIM_CLOCK_HOLD_AFTER_TOUCH_MS * 1000000LL);
    assert_int_equal(sim_clock_now(&f->clock), S); /* starts now, at S */
    sim_clock_sleep_ms(1100);
    assert_true(sim_clock_now(&f->clock) >= S + 3600);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_ALL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pods_start_the_clock, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_touch_starts_it_later, setup, fx_teardown),
    };
    int rc = cmocka_run_group_tests_name("sim_hold", tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
