/* plan/rng — the deterministic PRNG of the shared scheduling model (xoshiro256**,
 * seeded through splitmix64), used by spotsim and by the what-if planner. Never
 * rand(): the same seed gives the same stream on every platform and libc, which
 * is what makes spotsim runs and the planner's answers reproducible.
 * Thread rule: one generator per thread (callers lock a shared one). */
#ifndef SPOTLEDGER_PLAN_RNG_H
#define SPOTLEDGER_PLAN_RNG_H

#include <stdint.h>

struct plan_rng {
    uint64_t s[4];
};

void plan_rng_seed(struct plan_rng *r, uint64_t seed);
uint64_t plan_rng_next(struct plan_rng *r);
/* Uniform in [0, n); n > 0. Unbiased (rejection). */
uint64_t plan_rng_below(struct plan_rng *r, uint64_t n);
/* Uniform in [lo, hi] (inclusive); lo <= hi. */
int64_t plan_rng_range(struct plan_rng *r, int64_t lo, int64_t hi);
/* True with probability ppm / 1,000,000 (integer probabilities keep runs exact). */
int plan_rng_chance_ppm(struct plan_rng *r, int64_t ppm);
/* Exponential variate with the given mean (seconds), rounded, >= 1. Uses the
 * generator's bits through log(); deterministic on IEEE-754 hosts. */
int64_t plan_rng_exp(struct plan_rng *r, int64_t mean);
/* An RFC 4122 version-4 UUID from the stream ("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"). */
void plan_rng_uuid(struct plan_rng *r, char out[37]);
/* n characters of Kubernetes' generateName alphabet ("bcdfghjklmnpqrstvwxz2456789"). */
void plan_rng_suffix(struct plan_rng *r, char *out, int n);

#endif
