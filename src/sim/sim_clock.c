#include "sim/sim_clock.h"

#include <string.h>
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
    pthread_mutex_init(&c->pace_mu, NULL);
    c->pace_cap_ns = 0;
    memset(c->observers, 0, sizeof c->observers);
    c->away = 0;
    c->away_since_ns = 0;
    c->paced_ns = 0;
    c->stood_ns = 0;
    memset(&c->stats, 0, sizeof c->stats);
}

void sim_clock_pace(struct sim_clock *c, int64_t cap_ms) {
    pthread_mutex_lock(&c->pace_mu);
    c->pace_cap_ns = cap_ms * 1000000LL;
    c->paced_ns = mono_ns();
    pthread_mutex_unlock(&c->pace_mu);
}

/* Ends the stand begun at away_since_ns: the real time it took moves the
 * origin forward, so the simulated time goes on from where it stood. Under
 * pace_mu; the caller clears away. */
static void stand_end(struct sim_clock *c, int64_t now_ns, bool capped) {
    int64_t d = now_ns - c->away_since_ns;
    if (d < 0)
        d = 0;
    atomic_fetch_add(&c->real0_ns, d);
    c->stood_ns += d;
    c->stats.stands++;
    c->stats.stood_ms += d / 1000000LL;
    if (d / 1000000LL > c->stats.longest_ms)
        c->stats.longest_ms = d / 1000000LL;
    if (capped)
        c->stats.capped++;
}

void sim_clock_observer_on(struct sim_clock *c, unsigned ch) {
    if (ch >= SIM_CLOCK_CHANNELS)
        return;
    pthread_mutex_lock(&c->pace_mu);
    if (c->pace_cap_ns) {
        c->observers[ch]++;
        if (c->away == (1u << ch))
            stand_end(c, mono_ns(), false);
        c->away &= ~(1u << ch);
    }
    pthread_mutex_unlock(&c->pace_mu);
}

void sim_clock_observer_off(struct sim_clock *c, unsigned ch) {
    if (ch >= SIM_CLOCK_CHANNELS)
        return;
    pthread_mutex_lock(&c->pace_mu);
    if (c->pace_cap_ns && c->observers[ch] > 0 && --c->observers[ch] == 0) {
        int64_t now = mono_ns();
        if (c->away) {
            c->away |= 1u << ch; /* a stand is on: it waits for this kind too */
        } else if (2 * c->stood_ns < now - c->paced_ns) {
            c->away_since_ns = now; /* stood less than run: stand */
            c->away = 1u << ch;
        } else {
            c->stats.over_budget++;
        }
    }
    pthread_mutex_unlock(&c->pace_mu);
}

struct sim_clock_pace_stats sim_clock_pace_stats(struct sim_clock *c) {
    pthread_mutex_lock(&c->pace_mu);
    struct sim_clock_pace_stats st = c->stats;
    pthread_mutex_unlock(&c->pace_mu);
    return st;
}

void sim_clock_hold(struct sim_clock *c) {
    atomic_store(&c->held, true);
}

void sim_clock_release(struct sim_clock *c) {
    bool was = true;
    if (atomic_compare_exchange_strong(&c->held, &was, false)) {
        pthread_mutex_lock(&c->pace_mu);
        int64_t now = mono_ns();
        atomic_store(&c->real0_ns, now);
        if (c->away) /* a stand begun while held counts from the release */
            c->away_since_ns = now;
        if (c->pace_cap_ns) /* the budget counts the time run, not the time held */
            c->paced_ns = now;
        pthread_mutex_unlock(&c->pace_mu);
    }
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
        int64_t el;
        if (!c->pace_cap_ns) { /* set before serving: read without the lock */
            el = mono_ns() - atomic_load(&c->real0_ns);
        } else {
            pthread_mutex_lock(&c->pace_mu);
            int64_t now = mono_ns();
            if (c->away && now - c->away_since_ns >= c->pace_cap_ns) {
                /* the stand ended when the cap passed, whenever it is read */
                stand_end(c, c->away_since_ns + c->pace_cap_ns, true);
                c->away = 0;
            }
            el = (c->away ? c->away_since_ns : now) - atomic_load(&c->real0_ns);
            pthread_mutex_unlock(&c->pace_mu);
        }
        if (el < 0)
            el = 0;
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
