/* plan/task — the rules of one task's life that spotsim plays and the what-if
 * planner replays (docs/whatif.md "The model"): how much work a task needs (its
 * length distribution), how a checkpointing attempt spends its time, how much
 * work an attempt has saved when it is cut, and when the next event of a
 * Poisson process comes.
 *
 * A task needs `work` seconds of computation. An attempt that starts with
 * `saved` seconds already checkpointed first restores them (restore seconds,
 * only when saved > 0 and checkpointing is on), then computes the remaining
 * work, writing a checkpoint (checkpoint seconds) after every `interval`
 * seconds of work except at the very end: (remaining - 1) / interval
 * checkpoints. An attempt cut `elapsed` seconds after its start has saved
 * interval seconds for every whole (interval + checkpoint seconds) it ran after
 * its restore, at most the checkpoints it would write.
 *
 * Pure (no I/O, no clock, no globals); integer seconds throughout. Thread rule:
 * any thread (a generator belongs to one thread). */
#ifndef SPOTLEDGER_PLAN_TASK_H
#define SPOTLEDGER_PLAN_TASK_H

#include <stdint.h>

#include "plan/rng.h"

enum plan_dist { PLAN_DIST_FIXED, PLAN_DIST_UNIFORM, PLAN_DIST_EXPONENTIAL };

/* A task length distribution (seconds). */
struct plan_duration {
    enum plan_dist dist;
    int64_t a, b; /* fixed: a; uniform: [a, b]; exponential: mean a */
};

/* Work seconds of a new task drawn from d (fixed: no draw). */
int64_t plan_work_sample(const struct plan_duration *d, struct plan_rng *r);

/* Checkpoints an attempt writes while computing `remaining` seconds of work with
 * a checkpoint every `interval` seconds (0 when interval <= 0 or nothing remains). */
int64_t plan_checkpoints(int64_t remaining, int64_t interval);

/* Restore seconds an attempt pays at its start: `restore` when work was saved
 * before (saved > 0) and checkpointing is on (interval > 0), else 0. */
int64_t plan_restore_seconds(int64_t saved, int64_t interval, int64_t restore);

/* Seconds an uninterrupted attempt runs: restore_s + remaining + checkpoints x
 * checkpoint_s, at least 1. */
int64_t plan_attempt_seconds(int64_t remaining, int64_t interval, int64_t checkpoint_s,
                             int64_t restore_s);

/* Work seconds an attempt saves (checkpoints it completed) when it is cut
 * `elapsed` seconds after its start, having paid restore_s first and having
 * `remaining` seconds of work to do. 0 without checkpoints. */
int64_t plan_saved_work(int64_t remaining, int64_t interval, int64_t checkpoint_s,
                        int64_t restore_s, int64_t elapsed);

/* The next event of a Poisson process after t whose events are `mean` seconds
 * apart on average: t + an exponential draw (at least 1 second later). */
int64_t plan_poisson_next(struct plan_rng *r, int64_t t, int64_t mean);

#endif
