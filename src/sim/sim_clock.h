/* sim_clock — simulated time: start + (real elapsed) x speed, capped at the
 * horizon (--until). A frozen clock (speed 0) answers a fixed time that tests set.
 * A paced clock (sim_clock_pace, spotsim --pace-watches) also stands while an
 * observer is away: real time spent then does not count.
 * Thread rule: any thread (the fields are written before serving starts, except
 * the frozen time and the hold, which are atomics, and the pacing state, which
 * pace_mu guards). */
#ifndef SPOTLEDGER_SIM_CLOCK_H
#define SPOTLEDGER_SIM_CLOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Pacing channels: one per kind of observer (spotsim: a Kubernetes kind). */
#define SIM_CLOCK_CHANNELS 32

/* What pacing did, for /sim/status. */
struct sim_clock_pace_stats {
    int64_t stands;      /* times the clock stood */
    int64_t stood_ms;    /* real milliseconds it stood in all */
    int64_t capped;      /* stands ended by the cap, not by the observer's return */
    int64_t longest_ms;  /* the longest stand */
    int64_t over_budget; /* gaps the clock ran through: it had stood as long as it ran */
};

struct sim_clock {
    int64_t start;              /* simulated Unix seconds at real start */
    int64_t horizon;            /* simulated time stops here */
    int64_t speed;              /* simulated seconds per real second; 0 = frozen */
    _Atomic int64_t real0_ns;   /* CLOCK_MONOTONIC at start (or at release) */
    _Atomic int64_t frozen;     /* the time when speed == 0 */
    _Atomic bool held;          /* sim_clock_hold: time stands at start until released */
    _Atomic int64_t touched_ns; /* held: CLOCK_MONOTONIC of the first touch, 0 before */
    /* pacing (sim_clock_pace); the rest under pace_mu */
    pthread_mutex_t pace_mu;
    int64_t pace_cap_ns;               /* longest stand; 0: pacing off (set before serving) */
    int observers[SIM_CLOCK_CHANNELS]; /* open observers per channel */
    unsigned away;                     /* channels that had an observer and have none */
    int64_t away_since_ns;             /* CLOCK_MONOTONIC when away became non-zero */
    int64_t paced_ns;                  /* CLOCK_MONOTONIC when pacing began */
    int64_t stood_ns;                  /* real time stood in all */
    struct sim_clock_pace_stats stats;
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
/* Pacing: from now on the clock stands while a channel that has had an
 * observer has none (sim_clock_observer_off took the last one), until one is
 * back (sim_clock_observer_on) or cap_ms of real time have passed, whichever is
 * first. spotsim's channels are the Kubernetes kinds and its observers the open
 * watches: a client reconnecting after a dropped watch, relisting after a 410
 * or backing off after a 5xx loses no simulated time while it is away, as at 1x
 * (at 1440x a 40 ms relist is a minute: a Job with a 60 s TTL could come and go
 * unseen). The stands take at most as much real time as the clock has run
 * since pacing began (a gap that opens over that budget is not stood): a client
 * away most of the time (injected 5xx on every other request) makes a run at
 * most about twice as long, never endless. cap_ms > 0. Call before serving. */
void sim_clock_pace(struct sim_clock *c, int64_t cap_ms);
/* An observer of channel ch (< SIM_CLOCK_CHANNELS) came or went. No-ops when
 * pacing is off. Any thread. */
void sim_clock_observer_on(struct sim_clock *c, unsigned ch);
void sim_clock_observer_off(struct sim_clock *c, unsigned ch);
/* A copy of the pacing figures (all 0 when pacing is off). Any thread. */
struct sim_clock_pace_stats sim_clock_pace_stats(struct sim_clock *c);
/* True once the horizon is reached. */
bool sim_clock_done(struct sim_clock *c);
/* Monotonic real milliseconds (for timeouts that are real by nature). */
int64_t sim_clock_real_ms(void);
/* Sleeps ms real milliseconds. */
void sim_clock_sleep_ms(int64_t ms);

#endif
