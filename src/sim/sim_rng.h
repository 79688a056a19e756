/* sim_rng — the simulator's own deterministic PRNG (xoshiro256**, seeded through
 * splitmix64). Never rand(): the same seed gives the same stream on every
 * platform and libc, which is what makes spotsim runs reproducible.
 * Thread rule: one generator per thread (callers lock a shared one). */
#ifndef SPOTLEDGER_SIM_RNG_H
#define SPOTLEDGER_SIM_RNG_H

#include <stdint.h>

struct sim_rng {
    uint64_t s[4];
};

void sim_rng_seed(struct sim_rng *r, uint64_t seed);
uint64_t sim_rng_next(struct sim_rng *r);
/* Uniform in [0, n); n > 0. Unbiased (rejection). */
uint64_t sim_rng_below(struct sim_rng *r, uint64_t n);
/* Uniform in [lo, hi] (inclusive); lo <= hi. */
int64_t sim_rng_range(struct sim_rng *r, int64_t lo, int64_t hi);
/* True with probability ppm / 1,000,000 (integer probabilities keep runs exact). */
int sim_rng_chance_ppm(struct sim_rng *r, int64_t ppm);
/* Exponential variate with the given mean (seconds), rounded, >= 1. Uses the
 * generator's bits through log(); deterministic on IEEE-754 hosts. */
int64_t sim_rng_exp(struct sim_rng *r, int64_t mean);
/* An RFC 4122 version-4 UUID from the stream ("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"). */
void sim_rng_uuid(struct sim_rng *r, char out[37]);
/* n characters of Kubernetes' generateName alphabet ("bcdfghjklmnpqrstvwxz2456789"). */
void sim_rng_suffix(struct sim_rng *r, char *out, int n);

#endif
