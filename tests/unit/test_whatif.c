/* whatif: the what-if planner's Monte Carlo (src/plan/whatif.h). Every
 * expected figure is hand arithmetic or a closed form, shown beside the
 * assertion; none comes from the planner itself. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "plan/task.h"
#include "plan/whatif.h"

#define HOUR 3600

static struct whatif_params fixed(int64_t task_s, int64_t spot, int64_t od, double per_day) {
    struct whatif_params p;
    whatif_defaults(&p);
    p.length = (struct plan_duration){PLAN_DIST_FIXED, task_s, 0};
    p.spot_price = spot;
    p.on_demand_price = od;
    p.reclaims_per_day = per_day;
    return p;
}

/* The shared task rules (plan/task.h), by hand: 1000 s of work, a checkpoint
 * every 300 s costing 10 s, restore 20 s. Checkpoints (1000 - 1) / 300 = 3;
 * uninterrupted attempt 1000 + 3 x 10 = 1030 s, after a save 20 + 1030 = 1050 s.
 * Cut 650 s after a start with restore 20: (650 - 20) / (300 + 10) = 2 whole
 * checkpoints = 600 s saved; cut at 15 s (inside the restore): nothing. */
static void test_task_rules(void **state) {
    (void)state;
    assert_int_equal(plan_checkpoints(1000, 300), 3);
    assert_int_equal(plan_checkpoints(900, 300), 2); /* none at the very end */
    assert_int_equal(plan_checkpoints(1000, 0), 0);
    assert_int_equal(plan_restore_seconds(0, 300, 20), 0);
    assert_int_equal(plan_restore_seconds(300, 300, 20), 20);
    assert_int_equal(plan_restore_seconds(300, 0, 20), 0);
    assert_int_equal(plan_attempt_seconds(1000, 300, 10, 0), 1030);
    assert_int_equal(plan_attempt_seconds(1000, 300, 10, 20), 1050);
    assert_int_equal(plan_saved_work(1000, 300, 10, 20, 650), 600);
    assert_int_equal(plan_saved_work(1000, 300, 10, 20, 15), 0);
    assert_int_equal(plan_saved_work(1000, 300, 10, 0, 100000), 900); /* at most 3 */
    assert_int_equal(plan_saved_work(1000, 0, 10, 0, 100000), 0);
}

/* No reclaims: every task is one attempt of exactly its work. 2 h at $1.50 per
 * node-hour = $3.00 on Spot (and with fallback, never used); 2 h at $4.00 =
 * $8.00 On-Demand. Fixed lengths: the interval has zero width. */
static void test_no_reclaims_exact(void **state) {
    (void)state;
    struct whatif_params p = fixed(2 * HOUR, 1500000, 4000000, 0);
    struct whatif_result r;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    const int64_t want[WHATIF_NCONFIG] = {3000000, 3000000, 8000000};
    for (int c = 0; c < WHATIF_NCONFIG; c++) {
        assert_true(r.cfg[c].ok);
        assert_true(r.cfg[c].interval);
        assert_int_equal(r.cfg[c].point, want[c]);
        assert_int_equal(r.cfg[c].lo, want[c]);
        assert_int_equal(r.cfg[c].hi, want[c]);
        assert_int_equal(r.cfg[c].failures, 0);
        assert_int_equal(r.cfg[c].successes, (int64_t)WHATIF_DEFAULT_RUNS * 100);
    }
    /* Idle of half the billed time on Spot (500,000,000 ppb): $3.00 x 1.5 = $4.50. */
    p.idle_ppb[WHATIF_SPOT] = 500000000;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_SPOT].point, 4500000);
    assert_int_equal(r.cfg[WHATIF_ON_DEMAND].point, 8000000);
    p.idle_ppb[WHATIF_SPOT] = 0;
    /* A task holding 1 GPU of an 8-GPU node pays 1/8: $3.00 / 8 = $0.375. */
    p.gpus_task = 1;
    p.gpus_node = 8;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_SPOT].point, 375000);
}

/* Closed form. Fixed task T = 6 h, no checkpoints, reclaims Poisson at
 * lambda = 2/day, so an attempt is cut after X ~ Exp(lambda), q = e^(-lambda T)
 * = e^(-0.5) = 0.6065307 the chance it finishes.
 * Spot only: attempts are geometric with mean 1/q = e^(lambda T) = 1.6487213;
 * each bills E[min(X, T)] = (1 - q) / lambda, so a success bills
 * e^(lambda T) (1 - q) / lambda = (e^(lambda T) - 1) / lambda
 * = 0.6487213 x 12 h = 7.784656 h; at $1/h: $7.784656.
 * With fallback ($3/h On-Demand): E[min(X, T)] on Spot + (1 - q) T on demand
 * = 0.3934693 x 12 h x $1 + 0.3934693 x 6 h x $3 = 4.721632 + 7.082448 = $11.804080.
 * Both closed forms must lie in the planner's 95 % interval, and the points
 * within 2 % of them (20,000 tasks). */
static void test_closed_form_exponential(void **state) {
    (void)state;
    struct whatif_params p = fixed(6 * HOUR, 1000000, 3000000, 2.0);
    struct whatif_result r;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    const struct whatif_estimate *s = &r.cfg[WHATIF_SPOT], *f = &r.cfg[WHATIF_FALLBACK];
    assert_true(s->ok && s->interval && f->ok && f->interval);
    assert_true(s->lo <= 7784656 && 7784656 <= s->hi);
    assert_true(fabs((double)s->point - 7784656.0) < 0.02 * 7784656.0);
    assert_true(f->lo <= 11804080 && 11804080 <= f->hi);
    assert_true(fabs((double)f->point - 11804080.0) < 0.02 * 11804080.0);
    /* On-Demand: 6 h x $3 = $18 exactly, no interval width. */
    assert_int_equal(r.cfg[WHATIF_ON_DEMAND].point, 18000000);
    assert_int_equal(r.cfg[WHATIF_ON_DEMAND].hi - r.cfg[WHATIF_ON_DEMAND].lo, 0);
    /* mean attempts per success on Spot: e^0.5 = 1.6487 (within 2 %) */
    double att = (double)s->attempts / (double)s->successes;
    assert_true(fabs(att - 1.6487213) < 0.02 * 1.6487213);
}

/* Same parameters and seed: the same bytes; another seed: another draw. */
static void test_deterministic(void **state) {
    (void)state;
    struct whatif_params p = fixed(3 * HOUR, 1000000, 3000000, 4.0);
    p.length = (struct plan_duration){PLAN_DIST_EXPONENTIAL, 3 * HOUR, 0};
    p.checkpoint_interval = 900;
    p.checkpoint_seconds = 30;
    p.restore_seconds = 60;
    struct whatif_result a, b, c;
    memset(&a, 0xa5, sizeof a);
    memset(&b, 0x5a, sizeof b);
    assert_int_equal(whatif_run(&p, &a), ERR_OK);
    assert_int_equal(whatif_run(&p, &b), ERR_OK);
    assert_memory_equal(&a, &b, sizeof a);
    p.seed = 7;
    assert_int_equal(whatif_run(&p, &c), ERR_OK);
    assert_true(c.cfg[WHATIF_SPOT].point != a.cfg[WHATIF_SPOT].point);
}

/* Measured lengths are drawn from the list: a list of one length behaves as
 * that fixed length (4 h x $2 = $8 with no reclaims). */
static void test_measured_lengths(void **state) {
    (void)state;
    struct whatif_params p = fixed(HOUR, 2000000, 5000000, 0);
    const int64_t one[] = {4 * HOUR};
    p.lengths = one;
    p.nlengths = 1;
    struct whatif_result r;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_SPOT].point, 8000000);
    /* {1 h, 3 h} equally likely: the pooled point is near 2 h x $2 = $4
     * (20,000 draws: within 2 %), the interval holds it. */
    const int64_t two[] = {HOUR, 3 * HOUR};
    p.lengths = two;
    p.nlengths = 2;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_true(fabs((double)r.cfg[WHATIF_SPOT].point - 4000000.0) < 80000.0);
    assert_true(r.cfg[WHATIF_SPOT].lo <= 4000000 && 4000000 <= r.cfg[WHATIF_SPOT].hi);
}

/* Young/Daly sqrt(2 C MTBF), by hand: C = 60 s, 6 reclaims/day -> MTBF 14,400 s,
 * sqrt(1,728,000) = 1314.5 -> 1315; C = 30 s, 1/day -> sqrt(5,184,000) = 2276.8
 * -> 2277; no reclaims or free checkpoints: 0 (no best interval). */
static void test_young_daly(void **state) {
    (void)state;
    assert_int_equal(whatif_young_daly(60, 6.0), 1315);
    assert_int_equal(whatif_young_daly(30, 1.0), 2277);
    assert_int_equal(whatif_young_daly(60, 0.0), 0);
    assert_int_equal(whatif_young_daly(0, 6.0), 0);
}

/* The simulated best checkpoint interval agrees with Young/Daly. Tolerance
 * (docs/whatif.md): the scanned best is within a factor 1.6 of Young/Daly's
 * interval, and the simulated cost at Young/Daly's interval is within 1 % of the
 * scanned best (the cost curve is flat near its minimum, so the interval itself
 * is loosely determined, the cost tightly). Long tasks (24 h) against MTBF 4 h,
 * C = 60 s, the regime where Young/Daly's first-order argument holds. */
static void test_young_daly_agrees_with_scan(void **state) {
    (void)state;
    struct whatif_params p = fixed(24 * HOUR, 1000000, 3000000, 6.0);
    p.checkpoint_seconds = 60;
    p.restore_seconds = 60;
    p.fallback = false;
    p.runs = 40;
    p.tasks = 100;
    int64_t yd = whatif_young_daly(60, 6.0);
    assert_int_equal(yd, 1315);
    int64_t best, best_cost;
    assert_int_equal(whatif_scan_interval(&p, yd / 4, yd * 4, 25, &best, &best_cost), ERR_OK);
    print_message("young/daly %lld s, scanned best %lld s at %lld µ$\n", (long long)yd,
                  (long long)best, (long long)best_cost);
    assert_true(best * 10 >= yd * 10 / 16 && best * 10 <= yd * 16);
    p.checkpoint_interval = yd;
    struct whatif_result r;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_true(r.cfg[WHATIF_SPOT].point <= best_cost + best_cost / 100);
}

/* Break-even by hand (T = 6 h, no checkpoints, Spot $1, On-Demand $3):
 * fallback - on-demand = $1 x (1 - q) / lambda - q x T x $3 with q = e^(-lambda T);
 * it changes sign at lambda = 7.615 per day (bisection of that formula). The
 * seeded bisection finds it within 5 %. */
static void test_break_even(void **state) {
    (void)state;
    struct whatif_params p = fixed(6 * HOUR, 1000000, 3000000, 0);
    p.runs = 40;
    p.tasks = 200;
    double rate;
    bool found;
    assert_int_equal(whatif_break_even(&p, 30, &rate, &found), ERR_OK);
    assert_true(found);
    print_message("break-even %.3f reclaims/day (hand: 7.615)\n", rate);
    assert_true(fabs(rate - 7.615) < 0.05 * 7.615);
    /* Spot dearer than On-Demand: fallback never pays, no break-even. */
    p.spot_price = 4000000;
    assert_int_equal(whatif_break_even(&p, 30, &rate, &found), ERR_OK);
    assert_false(found);
}

/* A task that never finishes within WHATIF_MAX_ATTEMPTS fails: 24 h of work
 * with no checkpoints against 500 reclaims a day (one every ~173 s) has chance
 * e^-500 per attempt. Spot has no success (a reason, no number); fallback
 * finishes every task on demand. */
static void test_hopeless_spot(void **state) {
    (void)state;
    struct whatif_params p = fixed(24 * HOUR, 1000000, 3000000, 500.0);
    p.runs = 20;
    p.tasks = 2;
    struct whatif_result r;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_false(r.cfg[WHATIF_SPOT].ok);
    assert_int_equal(r.cfg[WHATIF_SPOT].failures, 40);
    assert_true(strstr(r.cfg[WHATIF_SPOT].reason, "no task succeeded") != NULL);
    assert_true(r.cfg[WHATIF_FALLBACK].ok);
    assert_int_equal(r.cfg[WHATIF_FALLBACK].successes, 40);
}

static void expect_bad(struct whatif_params p, const char *field) {
    const char *got = NULL;
    assert_int_equal(whatif_check(&p, &got), ERR_INVAL);
    assert_non_null(got);
    assert_string_equal(got, field);
    struct whatif_result r;
    assert_int_equal(whatif_run(&p, &r), ERR_INVAL);
}

/* Hostile values are refused, naming the parameter. */
static void test_validation(void **state) {
    (void)state;
    struct whatif_params ok = fixed(HOUR, 1000000, 3000000, 1.0), p;
    const char *got = "x";
    assert_int_equal(whatif_check(&ok, &got), ERR_OK);
    assert_null(got);
    p = ok, p.reclaims_per_day = NAN, expect_bad(p, "reclaims_per_day");
    p = ok, p.reclaims_per_day = -1, expect_bad(p, "reclaims_per_day");
    p = ok, p.reclaims_per_day = 1e308, expect_bad(p, "reclaims_per_day");
    p = ok, p.reclaims_per_day = INFINITY, expect_bad(p, "reclaims_per_day");
    p = ok, p.replacement_delay = -1, expect_bad(p, "replacement_delay");
    p = ok, p.checkpoint_interval = WHATIF_MAX_SECONDS + 1, expect_bad(p, "checkpoint_interval");
    p = ok, p.spot_price = -1, expect_bad(p, "spot_price");
    p = ok, p.on_demand_price = INT64_MAX, expect_bad(p, "on_demand_price");
    p = ok, p.length.a = 0, expect_bad(p, "task_hours");
    p = ok, p.runs = WHATIF_MAX_RUNS + 1, expect_bad(p, "samples");
    p = ok, p.runs = 10000, p.tasks = 10000, expect_bad(p, "tasks"); /* 1e8 > cap */
    p = ok, p.gpus_task = 2, p.gpus_node = 1, expect_bad(p, "gpus");
    p = ok, p.idle_ppb[WHATIF_FALLBACK] = -1, expect_bad(p, "idle");
    const int64_t bad_len[] = {HOUR, 0};
    p = ok, p.lengths = bad_len, p.nlengths = 2, expect_bad(p, "task_hours");
    p = ok, p.mix[WHATIF_SPOT].lengths = bad_len, p.mix[WHATIF_SPOT].nlengths = 2,
    expect_bad(p, "task_hours");
    p = ok, p.mix[WHATIF_SPOT].failure_ppm = 1000000, expect_bad(p, "failure_rate");
    p = ok, p.mix[WHATIF_FALLBACK].start_od_ppm = 1000001, expect_bad(p, "starts_on_fallback");
    p = ok, p.mix[WHATIF_ON_DEMAND].tasks = -1, expect_bad(p, "tasks");
}

static int64_t rel_err_ppm(int64_t got, int64_t want) {
    int64_t d = got > want ? got - want : want - got;
    return d * 1000000 / want;
}

/* Each configuration's own mix (docs/whatif.md "Each configuration its own
 * tasks"). Fixed 2 h tasks, Spot $1.50, On-Demand $4.00 per node-hour, no
 * reclaims:
 *  - On-Demand with its own lengths {1 h, 1 h} and 7 tasks per replication:
 *    exactly 1 h x $4.00 = $4.00, 200 x 7 successes; the others keep 2 h.
 *  - a checkpoint every 1,800 s costing 60 s: (7,200 - 1) / 1,800 = 3
 *    checkpoints, 7,380 s x $1.50 = $3.075 on Spot; a mix that does not
 *    checkpoint: 7,200 s = $3.00.
 *  - fallback whose every task starts on the fallback pool: 2 h x $4.00 =
 *    $8.00; half of them: (3.00 + 8.00) / 2 = $5.50 expected, 20,000 tasks
 *    (binomial SD of the share 0.35 %: $0.019), asserted within 2 %. */
static void test_own_mix(void **state) {
    (void)state;
    struct whatif_params p = fixed(2 * HOUR, 1500000, 4000000, 0);
    const int64_t od_len[] = {HOUR, HOUR};
    p.mix[WHATIF_ON_DEMAND].lengths = od_len;
    p.mix[WHATIF_ON_DEMAND].nlengths = 2;
    p.mix[WHATIF_ON_DEMAND].tasks = 7;
    struct whatif_result r;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_ON_DEMAND].point, 4000000);
    assert_int_equal(r.cfg[WHATIF_ON_DEMAND].lo, 4000000);
    assert_int_equal(r.cfg[WHATIF_ON_DEMAND].hi, 4000000);
    assert_int_equal(r.cfg[WHATIF_ON_DEMAND].successes, (int64_t)WHATIF_DEFAULT_RUNS * 7);
    assert_int_equal(r.cfg[WHATIF_SPOT].point, 3000000);
    assert_int_equal(r.cfg[WHATIF_SPOT].successes, (int64_t)WHATIF_DEFAULT_RUNS * 100);

    p = fixed(2 * HOUR, 1500000, 4000000, 0);
    p.checkpoint_interval = 1800;
    p.checkpoint_seconds = 60;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_SPOT].point, 3075000);
    p.mix[WHATIF_SPOT].no_checkpoints = true;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_SPOT].point, 3000000);
    assert_int_equal(r.cfg[WHATIF_FALLBACK].point, 3075000); /* its own mix checkpoints */

    p = fixed(2 * HOUR, 1500000, 4000000, 0);
    p.mix[WHATIF_FALLBACK].start_od_ppm = 1000000;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_FALLBACK].point, 8000000);
    assert_int_equal(r.cfg[WHATIF_SPOT].point, 3000000);
    p.mix[WHATIF_FALLBACK].start_od_ppm = 500000;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    print_message("half on the fallback pool: %lld µ$ [%lld, %lld]\n",
                  (long long)r.cfg[WHATIF_FALLBACK].point, (long long)r.cfg[WHATIF_FALLBACK].lo,
                  (long long)r.cfg[WHATIF_FALLBACK].hi);
    assert_true(rel_err_ppm(r.cfg[WHATIF_FALLBACK].point, 5500000) < 20000);
    assert_true(r.cfg[WHATIF_FALLBACK].lo <= 5500000 && 5500000 <= r.cfg[WHATIF_FALLBACK].hi);
}

/* Application failures (spotsim's failure_rate). 1 h tasks, no checkpoints,
 * no reclaims, failure chance f = 0.5 per attempt, failing at a uniform second
 * of [1, 3,599] (mean 1,800 s): f / (1 - f) = 1 failure per success, so
 * 3,600 + 1 x 1,800 = 5,400 s per success: $1.50 at $1.00 on Spot (and with
 * fallback, never reclaimed), $3.00 at $2.00 On-Demand. Over 20,000 tasks the
 * SD of the mean is 19 s (0.36 %): asserted within 2 %, and inside the
 * interval; attempts / successes = 2 within 2 %. */
static void test_failure_rate(void **state) {
    (void)state;
    struct whatif_params p = fixed(HOUR, 1000000, 2000000, 0);
    for (int c = 0; c < WHATIF_NCONFIG; c++)
        p.mix[c].failure_ppm = 500000;
    struct whatif_result r;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    const int64_t want[WHATIF_NCONFIG] = {1500000, 1500000, 3000000};
    for (int c = 0; c < WHATIF_NCONFIG; c++) {
        const struct whatif_estimate *e = &r.cfg[c];
        print_message("config %d: %lld µ$ [%lld, %lld], %lld attempts for %lld successes\n", c,
                      (long long)e->point, (long long)e->lo, (long long)e->hi,
                      (long long)e->attempts, (long long)e->successes);
        assert_true(rel_err_ppm(e->point, want[c]) < 20000);
        assert_true(e->lo <= want[c] && want[c] <= e->hi);
        assert_true(rel_err_ppm(e->attempts, 2 * e->successes) < 20000);
        assert_int_equal(e->failures, 0);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_task_rules),
        cmocka_unit_test(test_no_reclaims_exact),
        cmocka_unit_test(test_closed_form_exponential),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_measured_lengths),
        cmocka_unit_test(test_young_daly),
        cmocka_unit_test(test_young_daly_agrees_with_scan),
        cmocka_unit_test(test_break_even),
        cmocka_unit_test(test_hopeless_spot),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_own_mix),
        cmocka_unit_test(test_failure_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
