/* whatif_pool: the what-if planner played on one Spot pool (pool_nodes >= 1,
 * src/plan/whatif_pool.c, docs/whatif.md "The pool"). Every expected figure is
 * hand arithmetic, a closed form or a property of the model's definition,
 * shown beside the assertion; none comes from the planner itself. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "plan/whatif.h"

#define HOUR 3600

static struct whatif_params pool(int nodes, int64_t task_s, double per_day) {
    struct whatif_params p;
    whatif_defaults(&p);
    p.length = (struct plan_duration){PLAN_DIST_FIXED, task_s, 0};
    p.spot_price = 1000000;      /* $1 per node-hour */
    p.on_demand_price = 4000000; /* $4 */
    p.reclaims_per_day = per_day;
    p.pool_nodes = nodes;
    return p;
}

/* No reclaims, 1 h tasks all arriving at 0: the Spot configuration's one
 * task (first in line), then fallback's three. Spot $1, On-Demand $4:
 *  - 1 node: Spot's task takes it; fallback's 3 find it full and run on the
 *    fallback pool: 3 x $4 / 3 = $4.00 each, Spot $1.00.
 *  - 2 nodes: Spot's, then one fallback task: (1 + 4 + 4) / 3 = $3.00.
 *  - 4 nodes: every task on Spot: $1.00.
 *  - 2 nodes of 2 GPUs, 1-GPU tasks (4 slots): $1.00. */
static void test_queue_fallback(void **state) {
    (void)state;
    struct whatif_params p = pool(1, HOUR, 0);
    p.mix[WHATIF_SPOT].tasks = 1;
    p.mix[WHATIF_FALLBACK].tasks = 3;
    p.runs = 20;
    struct whatif_result r;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_SPOT].point, 1000000);
    assert_int_equal(r.cfg[WHATIF_FALLBACK].point, 4000000);
    assert_int_equal(r.cfg[WHATIF_FALLBACK].successes, 20 * 3);
    p.pool_nodes = 2;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_FALLBACK].point, 3000000);
    p.pool_nodes = 4;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_FALLBACK].point, 1000000);
    p.pool_nodes = 2;
    p.gpus_node = 2;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_FALLBACK].point, 1000000 / 2); /* half a node each */
}

/* Arrivals: one node, 1 h tasks, no reclaims; the Spot configuration's task
 * arrives at 0, fallback's at 3,600 s: it comes as the Spot task ends (an end
 * at t frees the node for an arrival at t) and runs on Spot: $1.00. Arriving
 * at 3,599 s the node is busy: it runs on the fallback pool, $4.00. */
static void test_arrivals(void **state) {
    (void)state;
    struct whatif_params p = pool(1, HOUR, 0);
    const int64_t len[] = {HOUR}, zero[] = {0}, at[] = {3600}, early[] = {3599};
    p.mix[WHATIF_SPOT] = (struct whatif_mix){
        .lengths = len, .nlengths = 1, .tasks = 1, .arrivals = zero, .narrivals = 1};
    p.mix[WHATIF_FALLBACK] = (struct whatif_mix){
        .lengths = len, .nlengths = 1, .tasks = 1, .arrivals = at, .narrivals = 1};
    p.runs = 20;
    struct whatif_result r;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_FALLBACK].point, 1000000);
    p.mix[WHATIF_FALLBACK].arrivals = early;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    assert_int_equal(r.cfg[WHATIF_FALLBACK].point, 4000000);
    assert_int_equal(r.cfg[WHATIF_SPOT].point, 1000000);
}

/* Reclaims are pool events: 100 identical 6 h tasks that start together on a
 * pool with room for all are cut by the same reclaims, so each replication's
 * figure is that of one such task: the same point, interval and attempts per
 * success as a replication of 1 task. Per task (pool_nodes 0) the 100 tasks
 * draw their reclaims apart and the interval of 100 is narrower than that of
 * 1. Spot only, λ = 2/day. */
static void test_shared_reclaims(void **state) {
    (void)state;
    struct whatif_params p = pool(100, 6 * HOUR, 2.0);
    p.fallback = false;
    p.tasks = 100;
    struct whatif_result many, one;
    assert_int_equal(whatif_run(&p, &many), ERR_OK);
    p.tasks = 1;
    assert_int_equal(whatif_run(&p, &one), ERR_OK);
    const struct whatif_estimate *m = &many.cfg[WHATIF_SPOT], *o = &one.cfg[WHATIF_SPOT];
    print_message("pool: 100 tasks %lld [%lld, %lld], 1 task %lld [%lld, %lld]\n",
                  (long long)m->point, (long long)m->lo, (long long)m->hi, (long long)o->point,
                  (long long)o->lo, (long long)o->hi);
    assert_int_equal(m->point, o->point);
    assert_int_equal(m->lo, o->lo);
    assert_int_equal(m->hi, o->hi);
    assert_int_equal(m->attempts, 100 * o->attempts);
    assert_true(o->hi > o->lo);
    p.pool_nodes = 0;
    p.tasks = 100;
    assert_int_equal(whatif_run(&p, &many), ERR_OK);
    print_message("per task: 100 tasks %lld [%lld, %lld]\n", (long long)m->point, (long long)m->lo,
                  (long long)m->hi);
    assert_true(m->hi - m->lo < o->hi - o->lo);
}

/* One node, 100 fixed 6 h tasks queued at 0, Spot only, no checkpoints,
 * λ = 2/day, the pool back at once: the tasks run one after the other and the
 * reclaims are memoryless, so each task sees the per-task closed form
 * (test_whatif.c): (e^(λT) - 1) / λ = 7.784656 h per success, $7.784656 at $1,
 * e^0.5 = 1.6487 attempts per success. 20,000 tasks: within 2 %, and the
 * closed form inside the interval. */
static void test_sequential_closed_form(void **state) {
    (void)state;
    struct whatif_params p = pool(1, 6 * HOUR, 2.0);
    p.fallback = false;
    struct whatif_result r;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    const struct whatif_estimate *s = &r.cfg[WHATIF_SPOT];
    print_message("one node: %lld [%lld, %lld], %.4f attempts per success\n", (long long)s->point,
                  (long long)s->lo, (long long)s->hi, (double)s->attempts / (double)s->successes);
    assert_true(s->ok && s->interval);
    assert_true(s->lo <= 7784656 && 7784656 <= s->hi);
    assert_true(fabs((double)s->point - 7784656.0) < 0.02 * 7784656.0);
    double att = (double)s->attempts / (double)s->successes;
    assert_true(fabs(att - 1.6487213) < 0.02 * 1.6487213);
}

/* Each replication starts its tasks afresh (no attempts or saved work carried
 * over from the one before). One 1 h task on one node, Spot only, λ = 24 ln 10
 * a day (e^(λT) = 10 attempts per success on average), 200 replications:
 * about 2,000 attempts in all, while one task needs more than 1,000 attempts
 * with a chance of 0.9^1000 < 10^-45: no failure, 200 successes. */
static void test_replications_start_afresh(void **state) {
    (void)state;
    struct whatif_params p = pool(1, HOUR, 24.0 * log(10.0));
    p.fallback = false;
    p.tasks = 1;
    struct whatif_result r;
    assert_int_equal(whatif_run(&p, &r), ERR_OK);
    const struct whatif_estimate *s = &r.cfg[WHATIF_SPOT];
    print_message("%lld attempts for %lld successes\n", (long long)s->attempts,
                  (long long)s->successes);
    assert_true(s->attempts > WHATIF_MAX_ATTEMPTS); /* the case the test is about */
    assert_int_equal(s->failures, 0);
    assert_int_equal(s->successes, WHATIF_DEFAULT_RUNS);
}

/* Same parameters: the same bytes; the pool's fields are range-checked. */
static void test_deterministic_and_checked(void **state) {
    (void)state;
    struct whatif_params p = pool(2, 3 * HOUR, 6.0);
    p.replacement_delay = 1500;
    p.mix[WHATIF_FALLBACK].failure_ppm = 100000;
    struct whatif_result a, b;
    assert_int_equal(whatif_run(&p, &a), ERR_OK);
    assert_int_equal(whatif_run(&p, &b), ERR_OK);
    assert_memory_equal(&a, &b, sizeof a);
    const char *field = NULL;
    struct whatif_params q = p;
    q.pool_nodes = -1;
    assert_int_equal(whatif_check(&q, &field), ERR_INVAL);
    assert_string_equal(field, "pool_nodes");
    q = p;
    q.pool_nodes = WHATIF_MAX_POOL_NODES + 1;
    assert_int_equal(whatif_check(&q, &field), ERR_INVAL);
    assert_string_equal(field, "pool_nodes");
    const int64_t bad[] = {0, -1};
    q = p;
    q.arrivals = bad;
    q.narrivals = 2;
    assert_int_equal(whatif_check(&q, &field), ERR_INVAL);
    assert_string_equal(field, "arrivals");
    q = p;
    q.mix[WHATIF_SPOT].arrivals = NULL;
    q.mix[WHATIF_SPOT].narrivals = 1;
    assert_int_equal(whatif_check(&q, &field), ERR_INVAL);
    assert_string_equal(field, "arrivals");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_fallback),
        cmocka_unit_test(test_arrivals),
        cmocka_unit_test(test_shared_reclaims),
        cmocka_unit_test(test_sequential_closed_form),
        cmocka_unit_test(test_replications_start_afresh),
        cmocka_unit_test(test_deterministic_and_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
