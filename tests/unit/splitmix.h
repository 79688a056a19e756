/* splitmix — the seeded PRNG of the random-world generators (oracle_gen.h,
 * partial_world.h, tests/bench/bench_gen.c): splitmix64 over one state, rs,
 * which the generator seeds; the same seed draws the same world on every
 * platform. Static: include it from one source file. */
#ifndef SPOTLEDGER_TEST_SPLITMIX_H
#define SPOTLEDGER_TEST_SPLITMIX_H

#include <stdbool.h>
#include <stdint.h>

static uint64_t rs;
static inline uint64_t rnd(void) {
    uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline int64_t rr(int64_t lo, int64_t hi) { /* [lo, hi] */
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}
static inline bool chance(int pct) {
    return (int)(rnd() % 100) < pct;
}

#endif
