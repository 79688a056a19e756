/* plan/whatif_int — what plan/whatif.c and plan/whatif_pool.c share: one
 * replication's sums, the call's state and the rules of one attempt
 * (docs/whatif.md "The model"). Internal to src/plan/. Thread rule: any thread. */
#ifndef SPOTLEDGER_PLAN_WHATIF_INT_H
#define SPOTLEDGER_PLAN_WHATIF_INT_H

#include <stdint.h>

#include "base/err.h"
#include "plan/rng.h"
#include "plan/whatif.h"

__extension__ typedef __int128 wi_i128;

/* One replication's sums for one configuration: money numerator in µ$/h x s
 * (spot and On-Demand seconds priced apart), successes, failures, attempts. */
struct acc {
    wi_i128 num;
    int64_t succ, fail, att;
};

struct mc {
    const struct whatif_params *p;
    int64_t mean;   /* s between reclaims, 0: none */
    int64_t budget; /* attempts left */
    void *pool;     /* whatif_pool.c's buffers, kept across replications; NULL none */
};

/* Work seconds of a new task of configuration c (its mix, the shared lengths
 * or the distribution). */
int64_t wi_draw_work(const struct whatif_params *p, int c, struct plan_rng *r);

/* Seconds of one uninterrupted attempt with `saved` work already checkpointed,
 * checkpointing every `iv` seconds (0: none). */
int64_t wi_attempt_len(const struct whatif_params *p, int64_t iv, int64_t work, int64_t saved);

/* The second an attempt of `run` seconds fails of itself (chance ppm), uniform
 * in [1, run - 1]; INT64_MAX when it does not (no draw when ppm is 0). */
int64_t wi_failure_at(struct plan_rng *r, int64_t ppm, int64_t run);

/* The rest of a task (`saved` seconds done, k attempts made) on On-Demand
 * capacity, never reclaimed, `tail` seconds billed after its success. */
enum err wi_od_rest(struct mc *m, int c, struct plan_rng *r, int64_t work, int64_t saved,
                    int64_t tail, int k, struct acc *a);

/* One replication of the Spot and fallback configurations in mask on one pool
 * of p->pool_nodes nodes (whatif_pool.c): rseed seeds the replication's task
 * draws (as the per-task model's), a[] gets each configuration's sums.
 * ERR_TOOBIG past the attempt budget, ERR_NOMEM. */
enum err wi_pool_run(struct mc *m, unsigned mask, uint64_t rseed, struct acc a[WHATIF_NCONFIG]);

/* Frees m->pool (wi_pool_run's buffers). */
void wi_pool_free(struct mc *m);

#endif
