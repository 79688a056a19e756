/* sim_clock — simulated time: start + (real elapsed) x speed, capped at the
 * horizon (--until). A frozen clock (speed 0) answers a fixed time that tests set.
 * Thread rule: any thread (the fields are written before serving starts, except
 * the frozen time, which is an atomic). */
#ifndef SPOTLEDGER_SIM_CLOCK_H
#define SPOTLEDGER_SIM_CLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct sim_clock {
    int64_t start;              /* simulated Unix seconds at real start */
    int64_t horizon;            /* simulated time stops here */
    int64_t speed;              /* simulated seconds per real second; 0 = frozen */
    _Atomic int64_t real0_ns;   /* CLOCK_MONOTONIC at start (or at release) */
    _Atomic int64_t frozen;     /* the time when speed == 0 */
    _Atomic bool held;          /* sim_clock_hold: time stands at start until released */
    _Atomic int64_t touched_ns; /* held: CLOCK_MONOTONIC of the first touch, 0 before */
};

/* A held clock touched (sim_clock_touch) starts by itself this long after the
 * first touch, if nothing released it by then (real time). */
#define SIM_CLOCK_HOLD_AFTER_TOUCH_MS 5000

void sim_clock_init(struct sim_clock *c, int64_t start, int64_t horizon, int64_t speed);
/* Current simulated time (whole seconds), never past the horizon. */
int64_t sim_clock_now(struct sim_clock *c);
/* Frozen clocks only: sets the time (capped at the horizon). */
void sim_clock_set(struct sim_clock *c, int64_t t);
/* Holds the clock at its start until sim_clock_release (--hold: a client that
 * starts a little later must not miss the first simulated minutes). */
void sim_clock_hold(struct sim_clock *c);
/* Starts a held clock now; later calls do nothing. Any thread. */
void sim_clock_release(struct sim_clock *c);
/* A held clock's first client request: the clock starts at the latest
 * SIM_CLOCK_HOLD_AFTER_TOUCH_MS later (sim_clock_now starts it), so a client
 * that never sends the releasing request still sees time move. Any thread. */
void sim_clock_touch(struct sim_clock *c);
/* True once the horizon is reached. */
bool sim_clock_done(struct sim_clock *c);
/* Monotonic real milliseconds (for timeouts that are real by nature). */
int64_t sim_clock_real_ms(void);
/* Sleeps ms real milliseconds. */
void sim_clock_sleep_ms(int64_t ms);

#endif
