/* bootstrap: the 95 % interval of cost per successful task, by a deterministic
 * block bootstrap. Every expected figure is hand arithmetic or a textbook
 * distribution, shown beside the assertion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine/bootstrap.h"

static struct boot_item task(int64_t cost, int64_t block) {
    return (struct boot_item){.cost = cost, .successes = 1, .block = block};
}

/* n tasks of the same cost, each in no block. */
static void same_tasks(struct boot_item *it, int n, int64_t cost) {
    for (int i = 0; i < n; i++)
        it[i] = task(cost, -1);
}

/* An interval of zero width on its point: every resample gave `at`. */
static void assert_zero_width(const struct boot_interval *r, int64_t at) {
    assert_true(r->ok);
    assert_int_equal(r->point, at);
    assert_int_equal(r->lo, at);
    assert_int_equal(r->hi, at);
}

/* 20 identical tasks of $1.00: every resample's mean is $1.00, so the interval
 * has zero width and sits on the point. */
static void test_identical_tasks_zero_width(void **state) {
    (void)state;
    struct boot_item it[20];
    same_tasks(it, 20, 1000000);
    struct boot_interval r;
    assert_int_equal(boot_ratio(it, 20, NULL, &r), ERR_OK);
    assert_zero_width(&r, 1000000);
    assert_int_equal(r.n, 20);
    assert_int_equal(r.resamples_used, BOOT_DEFAULT_RESAMPLES);
    assert_string_equal(r.reason, "");
}

/* Two-point mixture: 50 tasks at $1 and 50 at $3. A resample's mean is
 * $1 + $2·K/100 with K ~ Binomial(100, 1/2). Binomial CDF: P(K <= 39) = 0.0176,
 * P(K <= 40) = 0.0284, P(K <= 59) = 0.9716, P(K <= 60) = 0.9824, so the
 * textbook 95 % percentile interval is K in [40, 60]: $1.80 .. $2.20. With
 * 10,000 resamples the empirical quantiles land within one step of K ($0.02). */
static void test_two_point_mixture_textbook(void **state) {
    (void)state;
    struct boot_item it[100];
    for (int i = 0; i < 100; i++)
        it[i] = task(i % 2 ? 3000000 : 1000000, -1);
    struct boot_params p = {.resamples = 10000};
    struct boot_interval r;
    assert_int_equal(boot_ratio(it, 100, &p, &r), ERR_OK);
    assert_true(r.ok);
    assert_int_equal(r.point, 2000000); /* (50·1 + 50·3) / 100 */
    assert_in_range(r.lo, 1780000, 1820000);
    assert_in_range(r.hi, 2180000, 2220000);
    /* every statistic is $1 + $0.02·K: a multiple of $0.02 above $1 */
    assert_int_equal((r.lo - 1000000) % 20000, 0);
    assert_int_equal((r.hi - 1000000) % 20000, 0);
}

/* Fixed seed → byte-identical output; the seed is what makes it repeatable. */
static void test_fixed_seed_identical(void **state) {
    (void)state;
    struct boot_item it[37];
    for (int i = 0; i < 37; i++)
        it[i] = task(100000 * (i % 7 + 1), i % 5 == 0 ? i / 10 : -1);
    struct boot_interval a, b, c;
    struct boot_params p = {.seed = 42, .resamples = 500};
    assert_int_equal(boot_ratio(it, 37, &p, &a), ERR_OK);
    assert_int_equal(boot_ratio(it, 37, &p, &b), ERR_OK);
    assert_int_equal(a.ok, b.ok);
    assert_int_equal(a.point, b.point);
    assert_int_equal(a.lo, b.lo);
    assert_int_equal(a.hi, b.hi);
    assert_int_equal(a.resamples_used, b.resamples_used);
    assert_true(a.ok && a.lo < a.hi); /* a real spread, not a degenerate case */
    p.seed = 43;
    assert_int_equal(boot_ratio(it, 37, &p, &c), ERR_OK);
    assert_int_equal(c.point, a.point); /* the point never depends on the seed */
}

/* Tasks hit by one reclaim move together: ten tasks of $1..$10 in one block
 * form a single block, so every resample draws it and the mean is always
 * (1+...+10)/10 = $5.50: zero width. The same tasks as ten blocks spread. */
static void test_reclaim_block_moves_together(void **state) {
    (void)state;
    struct boot_item it[10];
    for (int i = 0; i < 10; i++)
        it[i] = task(1000000 * (i + 1), 7);
    struct boot_interval r;
    assert_int_equal(boot_ratio(it, 10, NULL, &r), ERR_OK);
    assert_zero_width(&r, 5500000);
    for (int i = 0; i < 10; i++)
        it[i].block = -1;
    assert_int_equal(boot_ratio(it, 10, NULL, &r), ERR_OK);
    assert_true(r.lo < 5500000 && r.hi > 5500000);
}

/* Below the minimum sample: no number, a reason. 4 successes < 5. */
static void test_small_sample_is_null(void **state) {
    (void)state;
    struct boot_item it[6];
    same_tasks(it, 6, 1000000);
    it[4].successes = 0; /* two failed tasks: 4 successes */
    it[5].successes = 0;
    struct boot_interval r;
    assert_int_equal(boot_ratio(it, 6, NULL, &r), ERR_OK);
    assert_false(r.ok);
    assert_int_equal(r.n, 4);
    assert_string_equal(r.reason, "4 successful tasks, fewer than 5");
    assert_int_equal(boot_ratio(it, 0, NULL, &r), ERR_OK);
    assert_false(r.ok);
    assert_string_equal(r.reason, "0 successful tasks, fewer than 5");
}

/* Paired: each Spot task costs its On-Demand price + $1, so every resample's
 * difference is exactly +$1 (Σ(alt+1)/k - Σalt/k = 1): Spot dearer, sure. */
static void test_paired_diff_exact(void **state) {
    (void)state;
    struct boot_item it[30];
    for (int i = 0; i < 30; i++) {
        it[i] = task(0, i % 3 ? -1 : i);
        it[i].alt_cost = 500000 + 123457 * i;
        it[i].alt_tasks = 1;
        it[i].cost = it[i].alt_cost + 1000000;
    }
    struct boot_interval r;
    assert_int_equal(boot_paired_diff(it, 30, NULL, &r), ERR_OK);
    assert_zero_width(&r, 1000000);
    assert_int_equal(boot_verdict(&r), 1);
    assert_int_equal(boot_more_needed(&r), 0);
    for (int i = 0; i < 30; i++)
        it[i].alt_tasks = i < 3; /* only 3 priced: no interval */
    assert_int_equal(boot_paired_diff(it, 30, NULL, &r), ERR_OK);
    assert_false(r.ok);
    assert_string_equal(r.reason, "3 priced tasks, fewer than 5");
}

/* Two samples: Spot $2 a task, On-Demand $3 a task, identical tasks each: the
 * difference is -$1 in every resample: Spot cheaper. */
static void test_two_sample_diff(void **state) {
    (void)state;
    struct boot_item a[8], b[12];
    same_tasks(a, 8, 2000000);
    same_tasks(b, 12, 3000000);
    struct boot_interval r;
    assert_int_equal(boot_diff(a, 8, b, 12, NULL, &r), ERR_OK);
    assert_zero_width(&r, -1000000);
    assert_int_equal(r.n, 8); /* the smaller sample */
    assert_int_equal(boot_verdict(&r), -1);
    assert_int_equal(boot_diff(a, 4, b, 12, NULL, &r), ERR_OK);
    assert_false(r.ok);
    assert_string_equal(r.reason, "first sample: 4 successful tasks, fewer than 5");
}

/* More tasks needed: n = 20, point $0.0001 (100 µ$), interval [-100, 300]:
 * half-width 200, n' = ceil(20 · (200/100)²) = 80, so 60 more. */
static void test_more_needed(void **state) {
    (void)state;
    struct boot_interval d = {.ok = true, .point = 100, .lo = -100, .hi = 300, .n = 20};
    assert_int_equal(boot_verdict(&d), 0);
    assert_int_equal(boot_more_needed(&d), 60);
    d.point = 0; /* no direction to grow towards */
    assert_int_equal(boot_more_needed(&d), -1);
    d.point = 100;
    d.ok = false;
    assert_int_equal(boot_more_needed(&d), -1);
    /* half-width 101 against a point of 100: n' = ceil(20·10201/10000) = ceil(20.402) = 21 */
    d = (struct boot_interval){.ok = true, .point = 100, .lo = -2, .hi = 200, .n = 20};
    assert_int_equal(boot_more_needed(&d), 1);
}

/* Spreading a configuration's cost over its tasks: $10 µ$ by weights 1:1:1 is
 * 3.33.. each; largest remainder gives the extra µ$ to the first: 4, 3, 3. */
static void test_spread(void **state) {
    (void)state;
    struct boot_item it[3] = {{0}};
    int64_t w[3] = {1, 1, 1};
    assert_int_equal(boot_spread(10, w, 3, it), ERR_OK);
    assert_int_equal(it[0].cost, 4);
    assert_int_equal(it[1].cost, 3);
    assert_int_equal(it[2].cost, 3);
    int64_t z[3] = {0, 0, 0}; /* no allocated cost anywhere: equal shares */
    assert_int_equal(boot_spread(9, z, 3, it), ERR_OK);
    assert_int_equal(it[0].cost + it[1].cost + it[2].cost, 9);
    assert_int_equal(it[2].cost, 3);
    int64_t w2[3] = {1, 0, 3}; /* 8 by 1:0:3 → 2, 0, 6 */
    assert_int_equal(boot_spread(8, w2, 3, it), ERR_OK);
    assert_int_equal(it[0].cost, 2);
    assert_int_equal(it[1].cost, 0);
    assert_int_equal(it[2].cost, 6);
    int64_t neg[3] = {1, -1, 1};
    assert_int_equal(boot_spread(8, neg, 3, it), ERR_INVAL);
}

static void test_invalid(void **state) {
    (void)state;
    struct boot_item it[5];
    same_tasks(it, 5, 1);
    struct boot_interval r;
    struct boot_params p = {.resamples = BOOT_MAX_RESAMPLES + 1};
    assert_int_equal(boot_ratio(it, 5, &p, &r), ERR_INVAL);
    p.resamples = -3;
    assert_int_equal(boot_ratio(it, 5, &p, &r), ERR_INVAL);
    it[2].cost = -1;
    assert_int_equal(boot_ratio(it, 5, NULL, &r), ERR_INVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_tasks_zero_width),
        cmocka_unit_test(test_two_point_mixture_textbook),
        cmocka_unit_test(test_fixed_seed_identical),
        cmocka_unit_test(test_reclaim_block_moves_together),
        cmocka_unit_test(test_small_sample_is_null),
        cmocka_unit_test(test_paired_diff_exact),
        cmocka_unit_test(test_two_sample_diff),
        cmocka_unit_test(test_more_needed),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests_name("bootstrap", tests, NULL, NULL);
}
