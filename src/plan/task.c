/* plan/task — see task.h. */
#include "plan/task.h"

int64_t plan_work_sample(const struct plan_duration *d, struct plan_rng *r) {
    switch (d->dist) {
    case PLAN_DIST_FIXED:
        return d->a;
    case PLAN_DIST_UNIFORM:
        return plan_rng_range(r, d->a, d->b);
    case PLAN_DIST_EXPONENTIAL:
        return plan_rng_exp(r, d->a);
    }
    return d->a;
}

int64_t plan_checkpoints(int64_t remaining, int64_t interval) {
    return (interval > 0 && remaining > 0) ? (remaining - 1) / interval : 0;
}

int64_t plan_restore_seconds(int64_t saved, int64_t interval, int64_t restore) {
    return (saved > 0 && interval > 0) ? restore : 0;
}

int64_t plan_attempt_seconds(int64_t remaining, int64_t interval, int64_t checkpoint_s,
                             int64_t restore_s) {
    int64_t run = restore_s + remaining + plan_checkpoints(remaining, interval) * checkpoint_s;
    return run < 1 ? 1 : run;
}

int64_t plan_saved_work(int64_t remaining, int64_t interval, int64_t checkpoint_s,
                        int64_t restore_s, int64_t elapsed) {
    if (interval <= 0)
        return 0;
    int64_t nck = plan_checkpoints(remaining, interval);
    int64_t ran = elapsed - restore_s;
    if (ran <= 0)
        return 0;
    int64_t k = ran / (interval + checkpoint_s);
    if (k > nck)
        k = nck;
    return k * interval;
}

int64_t plan_poisson_next(struct plan_rng *r, int64_t t, int64_t mean) {
    return t + plan_rng_exp(r, mean);
}
