#include "sim/sim_clock.h"

#include <time.h>

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void sim_clock_init(struct sim_clock *c, int64_t start, int64_t horizon, int64_t speed) {
    c->start = start;
    c->horizon = horizon;
    c->speed = speed;
    atomic_store(&c->real0_ns, mono_ns());
    atomic_store(&c->frozen, start);
    atomic_store(&c->held, false);
    atomic_store(&c->touched_ns, 0);
}

void sim_clock_hold(struct sim_clock *c) {
    atomic_store(&c->held, true);
}

void sim_clock_release(struct sim_clock *c) {
    bool was = true;
    if (atomic_compare_exchange_strong(&c->held, &was, false))
        atomic_store(&c->real0_ns, mono_ns());
}

void sim_clock_touch(struct sim_clock *c) {
    int64_t none = 0;
    if (atomic_load(&c->held))
        atomic_compare_exchange_strong(&c->touched_ns, &none, mono_ns());
}

int64_t sim_clock_now(struct sim_clock *c) {
    int64_t t;
    if (atomic_load(&c->held)) {
        int64_t touched = atomic_load(&c->touched_ns);
        if (touched && mono_ns() - touched >= SIM_CLOCK_HOLD_AFTER_TOUCH_MS * 1000000LL)
            sim_clock_release(c);
    }
    if (c->speed == 0) {
        t = atomic_load(&c->frozen);
    } else if (atomic_load(&c->held)) {
        t = c->start;
    } else {
        int64_t el = mono_ns() - atomic_load(&c->real0_ns);
        /* split to avoid overflow: whole seconds x speed + fraction x speed */
        t = c->start + (el / 1000000000LL) * c->speed +
            (el % 1000000000LL) * c->speed / 1000000000LL;
    }
    return t > c->horizon ? c->horizon : t;
}

void sim_clock_set(struct sim_clock *c, int64_t t) {
    atomic_store(&c->frozen, t > c->horizon ? c->horizon : t);
}

bool sim_clock_done(struct sim_clock *c) {
    return sim_clock_now(c) >= c->horizon;
}

int64_t sim_clock_real_ms(void) {
    return mono_ns() / 1000000LL;
}

void sim_clock_sleep_ms(int64_t ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}
