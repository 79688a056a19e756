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

#define SMALL "tests/fixtures/sim/small.json"
#define SPEED 3600 /* simulated seconds per real second */

struct fx {
    struct sim_scenario *sc;
    struct sim_world *w;
    struct sim_clock clock;
    struct sim_server *srv;
    char base[64];
};

static size_t discard(char *p, size_t size, size_t n, void *u) {
    (void)p;
    (void)u;
    return size * n;
}

/* GET path with the good token; the status. */
static long get(struct fx *f, const char *path) {
    char url[256];
    snprintf(url, sizeof url, "%s%s", f->base, path);
    CURL *c = curl_easy_init();
    assert_non_null(c);
    struct curl_slist *h = curl_slist_append(NULL, "Authorization: Bearer good");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
    long status = 0;
    assert_int_equal(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return status;
}

static int setup(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    char err[256];
    if (!f || sim_scenario_load(SMALL, &f->sc, err, sizeof err) != 0)
        return -1;
    f->w = sim_world_build(f->sc, 1, f->sc->start + f->sc->duration);
    sim_clock_init(&f->clock, f->sc->start, f->w->horizon, SPEED);
    sim_clock_hold(&f->clock);
    struct sim_server_options so = {
        .world = f->w,
        .clock = &f->clock,
        .host = "127.0.0.1",
        .do_token = "good",
        .kube_token = "good",
        .retention = 600,
        .bookmark_ms = 200,
    };
    if (sim_server_start(&so, &f->srv) != 0)
        return -1;
    snprintf(f->base, sizeof f->base, "http://127.0.0.1:%u", (unsigned)sim_server_port(f->srv));
    *state = f;
    return 0;
}

static int teardown(void **state) {
    struct fx *f = *state;
    sim_server_stop(f->srv);
    sim_world_free(f->w);
    sim_scenario_free(f->sc);
    free(f);
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
        cmocka_unit_test_setup_teardown(test_pods_start_the_clock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_touch_starts_it_later, setup, teardown),
    };
    int rc = cmocka_run_group_tests_name("sim_hold", tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
