/* bootstrap — deterministic block bootstrap of cost per successful task; the
 * contract and the method are in bootstrap.h and docs/cost-model.md. */
#include "engine/bootstrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

/* One block's sums: the unit a resample draws. */
struct block {
    int64_t cost, successes, alt_cost, alt_tasks;
};

struct sample {
    struct block *b;
    size_t n;
    i128 cost, successes, alt_cost, alt_tasks; /* the whole sample */
};

/* SplitMix64 (Steele, Lea, Flood 2014): small, fast, and the same on every
 * platform, which is what "deterministic" needs here. */
static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0, without modulo bias (multiply-shift with
 * rejection of the short tail). */
static size_t rng_below(uint64_t *s, size_t n) {
    uint64_t bound = (uint64_t)n;
    u128 m = (u128)rng_next(s) * bound;
    uint64_t low = (uint64_t)m;
    if (low < bound) {
        uint64_t floor = -bound % bound;
        while (low < floor) {
            m = (u128)rng_next(s) * bound;
            low = (uint64_t)m;
        }
    }
    return (size_t)(m >> 64);
}

struct pair {
    int64_t block;
    size_t index;
};

static int pair_cmp(const void *a, const void *b) {
    const struct pair *x = a, *y = b;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void sample_free(struct sample *s) {
    free(s->b);
    memset(s, 0, sizeof *s);
}

/* Groups items into blocks (block id ascending, then the own-block items in
 * input order, so the order never depends on qsort's stability). */
static enum err sample_build(const struct boot_item *it, size_t n, struct sample *s) {
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < n; i++)
        if (it[i].cost < 0 || it[i].successes < 0 || it[i].alt_cost < 0 || it[i].alt_tasks < 0)
            return ERR_INVAL;
    if (n == 0)
        return ERR_OK;
    struct pair *p = malloc(n * sizeof *p);
    s->b = calloc(n, sizeof *s->b);
    if (!p || !s->b) {
        free(p);
        sample_free(s);
        return ERR_NOMEM;
    }
    size_t np = 0;
    for (size_t i = 0; i < n; i++)
        if (it[i].block >= 0)
            p[np++] = (struct pair){it[i].block, i};
    qsort(p, np, sizeof *p, pair_cmp);
    for (size_t i = 0; i < np; i++) {
        if (i == 0 || p[i].block != p[i - 1].block)
            s->n++;
        struct block *b = &s->b[s->n - 1];
        const struct boot_item *x = &it[p[i].index];
        b->cost += x->cost;
        b->successes += x->successes;
        b->alt_cost += x->alt_cost;
        b->alt_tasks += x->alt_tasks;
    }
    for (size_t i = 0; i < n; i++)
        if (it[i].block < 0)
            s->b[s->n++] =
                (struct block){it[i].cost, it[i].successes, it[i].alt_cost, it[i].alt_tasks};
    free(p);
    for (size_t i = 0; i < s->n; i++) {
        s->cost += s->b[i].cost;
        s->successes += s->b[i].successes;
        s->alt_cost += s->b[i].alt_cost;
        s->alt_tasks += s->b[i].alt_tasks;
    }
    return ERR_OK;
}

/* round(a / b) half away from zero, a >= 0, b > 0 */
static int64_t div_round(i128 a, i128 b) {
    return (int64_t)((2 * a + b) / (2 * b));
}

struct sums {
    i128 cost, successes, alt_cost, alt_tasks;
};

static struct sums draw(const struct sample *s, uint64_t *rng) {
    struct sums r = {0, 0, 0, 0};
    for (size_t k = 0; k < s->n; k++) {
        const struct block *b = &s->b[rng_below(rng, s->n)];
        r.cost += b->cost;
        r.successes += b->successes;
        r.alt_cost += b->alt_cost;
        r.alt_tasks += b->alt_tasks;
    }
    return r;
}

static int i64_cmp(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static enum err params(const struct boot_params *p, uint64_t *seed, int *b, int64_t *min) {
    *seed = p && p->seed ? p->seed : BOOT_DEFAULT_SEED;
    *b = p && p->resamples ? p->resamples : BOOT_DEFAULT_RESAMPLES;
    *min = p && p->min_successes ? p->min_successes : BOOT_DEFAULT_MIN_SUCCESSES;
    if (*b < 1 || *b > BOOT_MAX_RESAMPLES || *min < 1)
        return ERR_INVAL;
    return ERR_OK;
}

static void no_interval(struct boot_interval *out, int64_t n, const char *why) {
    memset(out, 0, sizeof *out);
    out->n = n;
    snprintf(out->reason, sizeof out->reason, "%s", why);
}

/* Sorts the m statistics and writes the nearest-rank 2.5th / 97.5th. */
static void percentiles(int64_t *st, int m, struct boot_interval *out) {
    if (m == 0) {
        int64_t n = out->n;
        no_interval(out, n, "no resample had a successful task");
        return;
    }
    qsort(st, (size_t)m, sizeof *st, i64_cmp);
    int64_t rlo = (25 * (int64_t)m + 999) / 1000, rhi = (975 * (int64_t)m + 999) / 1000;
    out->lo = st[rlo - 1];
    out->hi = st[rhi - 1];
    out->resamples_used = m;
    out->ok = true;
    out->reason[0] = '\0';
}

/* Fills out with "no interval" when have < min ("<prefix><have> <what>
 * task(s), fewer than <min>"), n its sample size; returns whether it did. */
static bool too_few(int64_t have, int64_t min, int64_t n, const char *prefix, const char *what,
                    struct boot_interval *out) {
    if (have >= min)
        return false;
    char why[BOOT_REASON_MAX];
    snprintf(why, sizeof why, "%s%lld %s task%s, fewer than %lld", prefix, (long long)have, what,
             have == 1 ? "" : "s", (long long)min);
    no_interval(out, n, why);
    return true;
}

/* What an interval is about, computed the same way on the whole sample(s) (the
 * point) and on each resample (the spread). */
enum statistic {
    STAT_RATIO,  /* cost per successful task */
    STAT_PAIRED, /* it minus the alternative's cost per priced task, same sample */
    STAT_DIFF,   /* sample a's cost per successful task minus sample b's */
};

/* The statistic of sums a (and b, STAT_DIFF) in *v; false when it is undefined
 * (a ratio without a denominator). */
static bool statistic(enum statistic k, const struct sums *a, const struct sums *b, int64_t *v) {
    switch (k) {
    case STAT_RATIO:
        if (a->successes <= 0)
            return false;
        *v = div_round(a->cost, a->successes);
        return true;
    case STAT_PAIRED:
        if (a->successes <= 0 || a->alt_tasks <= 0)
            return false;
        *v = div_round(a->cost, a->successes) - div_round(a->alt_cost, a->alt_tasks);
        return true;
    case STAT_DIFF:
        if (a->successes <= 0 || b->successes <= 0)
            return false;
        *v = div_round(a->cost, a->successes) - div_round(b->cost, b->successes);
        return true;
    }
    return false;
}

static struct sums whole(const struct sample *s) {
    return (struct sums){s->cost, s->successes, s->alt_cost, s->alt_tasks};
}

/* The interval of statistic k over nb resamples of sa (and sb, drawn after sa
 * in each round, STAT_DIFF) from seed rng; n is the reported sample size. The
 * samples are big enough (checked by the caller). */
static enum err resample(enum statistic k, const struct sample *sa, const struct sample *sb, int nb,
                         uint64_t rng, int64_t n, struct boot_interval *out) {
    int64_t *st = malloc((size_t)nb * sizeof *st);
    if (!st)
        return ERR_NOMEM;
    memset(out, 0, sizeof *out);
    out->n = n;
    int m = 0;
    for (int r = 0; r < nb; r++) {
        struct sums ra = draw(sa, &rng), rb = {0, 0, 0, 0};
        if (sb)
            rb = draw(sb, &rng);
        if (statistic(k, &ra, &rb, &st[m]))
            m++;
    }
    percentiles(st, m, out);
    if (out->ok) {
        struct sums wa = whole(sa), wb = sb ? whole(sb) : (struct sums){0, 0, 0, 0};
        (void)statistic(k, &wa, &wb, &out->point);
    }
    free(st);
    return ERR_OK;
}

/* params() then sample_build(): ERR_INVAL on bad parameters (no sample built). */
static enum err prepare(const struct boot_params *p, const struct boot_item *items, size_t n,
                        uint64_t *rng, int *nb, int64_t *min, struct sample *s) {
    if (params(p, rng, nb, min) != ERR_OK)
        return ERR_INVAL;
    return sample_build(items, n, s);
}

/* One sample's statistic k (STAT_RATIO, or STAT_PAIRED which also needs enough
 * priced tasks) over the successful tasks. */
static enum err boot_one(enum statistic k, const struct boot_item *items, size_t n,
                         const struct boot_params *p, struct boot_interval *out) {
    uint64_t rng;
    int nb;
    int64_t min;
    struct sample s;
    enum err rc = prepare(p, items, n, &rng, &nb, &min, &s);
    if (rc != ERR_OK)
        return rc;
    int64_t ns = (int64_t)s.successes;
    if (!too_few(ns, min, ns, "", "successful", out) &&
        (k != STAT_PAIRED || !too_few((int64_t)s.alt_tasks, min, ns, "", "priced", out)))
        rc = resample(k, &s, NULL, nb, rng, ns, out);
    sample_free(&s);
    return rc;
}

enum err boot_ratio(const struct boot_item *items, size_t n, const struct boot_params *p,
                    struct boot_interval *out) {
    return boot_one(STAT_RATIO, items, n, p, out);
}

enum err boot_paired_diff(const struct boot_item *items, size_t n, const struct boot_params *p,
                          struct boot_interval *out) {
    return boot_one(STAT_PAIRED, items, n, p, out);
}

enum err boot_diff(const struct boot_item *a, size_t na, const struct boot_item *b, size_t nb_,
                   const struct boot_params *p, struct boot_interval *out) {
    uint64_t rng;
    int nb;
    int64_t min;
    if (params(p, &rng, &nb, &min) != ERR_OK)
        return ERR_INVAL;
    struct sample sa, sb;
    enum err rc = sample_build(a, na, &sa);
    if (rc != ERR_OK)
        return rc;
    rc = sample_build(b, nb_, &sb);
    if (rc != ERR_OK) {
        sample_free(&sa);
        return rc;
    }
    int64_t n1 = (int64_t)sa.successes, n2 = (int64_t)sb.successes;
    /* n: the smaller sample, the one that limits how sure the difference is */
    if (!too_few(n1, min, n1, "first sample: ", "successful", out) &&
        !too_few(n2, min, n2, "second sample: ", "successful", out))
        rc = resample(STAT_DIFF, &sa, &sb, nb, rng, n1 < n2 ? n1 : n2, out);
    sample_free(&sa);
    sample_free(&sb);
    return rc;
}

int boot_verdict(const struct boot_interval *d) {
    if (!d->ok)
        return 0;
    if (d->hi < 0)
        return -1;
    if (d->lo > 0)
        return 1;
    return 0;
}

int64_t boot_more_needed(const struct boot_interval *d) {
    if (!d->ok || d->point == 0 || d->n <= 0)
        return -1;
    if (boot_verdict(d) != 0)
        return 0;
    i128 half2 = (i128)(d->hi - d->lo) * (d->hi - d->lo); /* (2·half)² */
    i128 p2 = (i128)4 * d->point * d->point;              /* (2·point)² */
    i128 need = ((i128)d->n * half2 + p2 - 1) / p2;       /* ceil(n·half²/point²) */
    int64_t more = need > d->n ? (int64_t)(need - d->n) : 1;
    return more < 1 ? 1 : more;
}

struct rem {
    i128 rem;
    size_t i;
};

static int rem_cmp(const void *a, const void *b) {
    const struct rem *x = a, *y = b;
    if (x->rem != y->rem)
        return x->rem > y->rem ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

enum err boot_split(int64_t total, const int64_t *weights, size_t n, int64_t *parts) {
    if (total < 0)
        return ERR_INVAL;
    i128 sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (weights[i] < 0)
            return ERR_INVAL;
        sum += weights[i];
    }
    if (n == 0)
        return total == 0 ? ERR_OK : ERR_INVAL;
    bool equal = sum == 0;
    if (equal)
        sum = (i128)n;
    struct rem *r = malloc(n * sizeof *r);
    if (!r)
        return ERR_NOMEM;
    int64_t given = 0;
    for (size_t i = 0; i < n; i++) {
        i128 num = (i128)total * (equal ? 1 : weights[i]);
        parts[i] = (int64_t)(num / sum);
        r[i] = (struct rem){num - (i128)parts[i] * sum, i};
        given += parts[i];
    }
    /* total - given < n: one µ$ each to the largest remainders */
    qsort(r, n, sizeof *r, rem_cmp);
    for (size_t k = 0; given < total && k < n; k++, given++)
        parts[r[k].i]++;
    free(r);
    return ERR_OK;
}

enum err boot_spread(int64_t total, const int64_t *weights, size_t n, struct boot_item *items) {
    if (n == 0)
        return total == 0 ? ERR_OK : ERR_INVAL;
    int64_t *parts = malloc(n * sizeof *parts);
    if (!parts)
        return ERR_NOMEM;
    enum err rc = boot_split(total, weights, n, parts);
    for (size_t i = 0; rc == ERR_OK && i < n; i++)
        items[i].cost = parts[i];
    free(parts);
    return rc;
}
