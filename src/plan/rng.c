/* plan/rng — see rng.h. xoshiro256** by Blackman and Vigna (public domain),
 * seeded with splitmix64 as its authors recommend. */
#include "plan/rng.h"

#include <math.h>
#include <stdio.h>

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void plan_rng_seed(struct plan_rng *r, uint64_t seed) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

uint64_t plan_rng_next(struct plan_rng *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t plan_rng_below(struct plan_rng *r, uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
        x = plan_rng_next(r);
    } while (x >= limit);
    return x % n;
}

int64_t plan_rng_range(struct plan_rng *r, int64_t lo, int64_t hi) {
    return lo + (int64_t)plan_rng_below(r, (uint64_t)(hi - lo) + 1);
}

int plan_rng_chance_ppm(struct plan_rng *r, int64_t ppm) {
    if (ppm <= 0)
        return 0;
    if (ppm >= 1000000)
        return 1;
    return (int64_t)plan_rng_below(r, 1000000) < ppm;
}

int64_t plan_rng_exp(struct plan_rng *r, int64_t mean) {
    /* 53 random bits -> u in (0, 1] */
    double u = ((double)(plan_rng_next(r) >> 11) + 1.0) / 9007199254740992.0;
    double v = -log(u) * (double)mean;
    if (v < 1.0)
        return 1;
    if (v > 1e15)
        return (int64_t)1e15;
    return (int64_t)llround(v);
}

void plan_rng_uuid(struct plan_rng *r, char out[37]) {
    uint64_t a = plan_rng_next(r), b = plan_rng_next(r);
    a = (a & ~0xf000ULL) | 0x4000ULL;       /* version 4 */
    b = (b & ~(3ULL << 62)) | (2ULL << 62); /* variant 10 */
    snprintf(out, 37, "%08llx-%04llx-%04llx-%04llx-%012llx", (unsigned long long)(a >> 32),
             (unsigned long long)((a >> 16) & 0xffff), (unsigned long long)(a & 0xffff),
             (unsigned long long)(b >> 48), (unsigned long long)(b & 0xffffffffffffULL));
}

void plan_rng_suffix(struct plan_rng *r, char *out, int n) {
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    for (int i = 0; i < n; i++)
        out[i] = alphabet[plan_rng_below(r, sizeof alphabet - 1)];
    out[n] = '\0';
}
