/* test_sim_pace — spotsim --pace-watches (sim_clock_pace): a paced clock stands
 * while a channel that had an observer has none, until one comes back or the
 * cap passes, and goes on from where it stood. spotsim's channels are the
 * Kubernetes kinds and its observers the open watches; e2e_truth runs every
 * case paced, so that a client's reconnect (a dropped watch, a relist after a
 * 410) takes no simulated time: at 1440x a 60 ms reconnect is 86 s, longer than
 * the 60 s TTL of the short-ttl case's Jobs.
 *
 * The clock runs at SPEED = 3600: one real millisecond is 3.6 simulated
 * seconds. A standing clock answers exactly the same second on every read, so
 * the stands are checked with equality; the moving parts with bounds from the
 * real time measured around them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sim/sim_clock.h"

#define S 1794182400 /* 2026-11-09T00:00:00Z */
#define SPEED 3600
#define CAP_MS 5000

/* a paced clock for one test, in *state */
static int setup(void **state) {
    struct sim_clock *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    sim_clock_init(c, S, S + 10 * 86400, SPEED);
    sim_clock_pace(c, CAP_MS);
    *state = c;
    return 0;
}

static int teardown(void **state) {
    free(*state);
    return 0;
}

/* Without pacing, observers come and go and the clock does not notice: 300 ms
 * real is at least 1,080 simulated seconds (300 x 3.6). */
static void test_off_by_default(void **state) {
    (void)state;
    struct sim_clock c;
    sim_clock_init(&c, S, S + 86400, SPEED);
    sim_clock_observer_on(&c, 0);
    sim_clock_observer_off(&c, 0);
    int64_t t0 = sim_clock_now(&c);
    sim_clock_sleep_ms(300);
    assert_true(sim_clock_now(&c) >= t0 + 1080);
    struct sim_clock_pace_stats st = sim_clock_pace_stats(&c);
    assert_int_equal(st.stands, 0);
}

/* The last observer of a channel goes: the clock stands (the same second 400 ms
 * later, which would be 1,440 s unpaced); it comes back: the clock goes on
 * from where it stood, not from where it would be, and moves again. */
static void test_stands_while_away(void **state) {
    struct sim_clock *clk = *state;
    sim_clock_observer_on(clk, 0);
    sim_clock_sleep_ms(50);
    sim_clock_observer_off(clk, 0);
    int64_t t1 = sim_clock_now(clk);
    assert_true(t1 > S);
    sim_clock_sleep_ms(400);
    assert_int_equal(sim_clock_now(clk), t1);

    int64_t r0 = sim_clock_real_ms();
    sim_clock_observer_on(clk, 0);
    int64_t t2 = sim_clock_now(clk);
    int64_t r1 = sim_clock_real_ms();
    /* no jump: only the real time since the return counts (+1 for rounding) */
    assert_true(t2 >= t1);
    assert_true(t2 <= t1 + (r1 - r0 + 1) * SPEED / 1000 + 1);
    sim_clock_sleep_ms(300);
    assert_true(sim_clock_now(clk) >= t2 + 1080);

    struct sim_clock_pace_stats st = sim_clock_pace_stats(clk);
    assert_int_equal(st.stands, 1);
    assert_true(st.stood_ms >= 400);
    assert_int_equal(st.capped, 0);
}

/* Two kinds away: the clock stands until both are back. A second observer of
 * one kind keeps it present when the first goes. */
static void test_every_channel_back(void **state) {
    struct sim_clock *clk = *state;
    sim_clock_observer_on(clk, 0);
    sim_clock_observer_on(clk, 1);
    sim_clock_observer_on(clk, 1); /* two watches of kind 1 */
    sim_clock_observer_off(clk, 1);
    int64_t t0 = sim_clock_now(clk);
    sim_clock_sleep_ms(100);
    assert_true(sim_clock_now(clk) >= t0 + 360); /* kind 1 still watched: moving */

    sim_clock_observer_off(clk, 0);
    sim_clock_observer_off(clk, 1);
    int64_t t1 = sim_clock_now(clk);
    sim_clock_sleep_ms(200);
    sim_clock_observer_on(clk, 0);
    sim_clock_sleep_ms(200);
    assert_int_equal(sim_clock_now(clk), t1); /* kind 1 still away */
    sim_clock_observer_on(clk, 1);
    sim_clock_sleep_ms(200);
    assert_true(sim_clock_now(clk) >= t1 + 720);
    assert_int_equal(sim_clock_pace_stats(clk).stands, 1);
}

/* A kind nobody ever watched is not awaited: its "last observer" going is no
 * stand (an unmatched off is ignored). */
static void test_unwatched_kind(void **state) {
    struct sim_clock *clk = *state;
    sim_clock_observer_off(clk, 3);
    int64_t t0 = sim_clock_now(clk);
    sim_clock_sleep_ms(100);
    assert_true(sim_clock_now(clk) >= t0 + 360);
    sim_clock_observer_off(clk, SIM_CLOCK_CHANNELS); /* out of range: ignored */
    assert_int_equal(sim_clock_pace_stats(clk).stands, 0);
}

/* An observer that never comes back (a client that stopped) holds the clock for
 * the cap, no longer: cap 300 ms, 600 ms away. The clock moved by the real
 * time beyond the cap, and the stand is counted as capped. */
static void test_cap(void **state) {
    (void)state;
    struct sim_clock c;
    sim_clock_init(&c, S, S + 86400, SPEED);
    sim_clock_pace(&c, 300);
    sim_clock_observer_on(&c, 0);
    int64_t r0 = sim_clock_real_ms();
    sim_clock_observer_off(&c, 0);
    int64_t t0 = sim_clock_now(&c);
    sim_clock_sleep_ms(600);
    int64_t t1 = sim_clock_now(&c);
    int64_t r1 = sim_clock_real_ms();
    assert_true(t1 > t0);
    assert_true(t1 - t0 <= (r1 - r0 - 300) * SPEED / 1000 + 1);
    struct sim_clock_pace_stats st = sim_clock_pace_stats(&c);
    assert_int_equal(st.stands, 1);
    assert_int_equal(st.capped, 1);
    assert_true(st.longest_ms >= 300);
    /* the observer's late return does not start or end anything */
    sim_clock_observer_on(&c, 0);
    assert_int_equal(sim_clock_pace_stats(&c).stands, 1);
}

/* The budget: stands take at most as much real time as the clock has run. The
 * first stand (500 ms, after 50 ms of running) uses it up; the next gap, 50 ms
 * later, is not stood (2 x 500 >= 50 + 500 + 50): the clock moves through it,
 * and it is counted over_budget. After 1.2 s of running the budget allows a
 * stand again (2 x 500 < 1,800). A slow machine only lengthens the runs and
 * the stands alike, which keeps both verdicts. */
static void test_budget(void **state) {
    struct sim_clock *clk = *state;
    sim_clock_observer_on(clk, 0);
    sim_clock_sleep_ms(50);
    sim_clock_observer_off(clk, 0);
    int64_t t1 = sim_clock_now(clk);
    sim_clock_sleep_ms(500);
    assert_int_equal(sim_clock_now(clk), t1);
    sim_clock_observer_on(clk, 0);
    sim_clock_sleep_ms(50);
    sim_clock_observer_off(clk, 0);
    int64_t t2 = sim_clock_now(clk);
    sim_clock_sleep_ms(200);
    assert_true(sim_clock_now(clk) >= t2 + 720);
    struct sim_clock_pace_stats st = sim_clock_pace_stats(clk);
    assert_int_equal(st.stands, 1);
    assert_int_equal(st.over_budget, 1);
    sim_clock_observer_on(clk, 0);
    sim_clock_sleep_ms(1200);
    sim_clock_observer_off(clk, 0);
    int64_t t3 = sim_clock_now(clk);
    sim_clock_sleep_ms(100);
    assert_int_equal(sim_clock_now(clk), t3);
}

/* --hold with pacing: a stand begun while the clock is held counts from the
 * release; the clock is at the start, stays there while the kind is away, and
 * moves once it is back. */
static void test_hold_then_stand(void **state) {
    (void)state;
    struct sim_clock c;
    sim_clock_init(&c, S, S + 86400, SPEED);
    sim_clock_pace(&c, CAP_MS);
    sim_clock_hold(&c);
    sim_clock_observer_on(&c, 0);
    sim_clock_observer_off(&c, 0);
    sim_clock_sleep_ms(200);
    sim_clock_release(&c);
    sim_clock_sleep_ms(200);
    assert_int_equal(sim_clock_now(&c), S);
    sim_clock_observer_on(&c, 0);
    sim_clock_sleep_ms(200);
    assert_true(sim_clock_now(&c) >= S + 720);
    struct sim_clock_pace_stats st = sim_clock_pace_stats(&c);
    assert_int_equal(st.stands, 1);
    assert_true(st.stood_ms >= 200);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_by_default),
        cmocka_unit_test_setup_teardown(test_stands_while_away, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_channel_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unwatched_kind, setup, teardown),
        cmocka_unit_test(test_cap),
        cmocka_unit_test_setup_teardown(test_budget, setup, teardown),
        cmocka_unit_test(test_hold_then_stand),
    };
    return cmocka_run_group_tests_name("sim_pace", tests, NULL, NULL);
}
