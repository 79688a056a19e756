/* test_cost_basis — the completion basis and the partial flag (cost.h,
 * docs/cost-model.md "Cost bases") against hand arithmetic.
 *
 * Times are offsets from T0 = 2026-03-02T00:00:00Z; windows are one hour
 * (H = 3600 s); money is µ$. Rates: $3.60/h = 1000 µ$/s, $7.20/h = 2000 µ$/s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "engine/cost.h"

#define T0 INT64_C(1772409600) /* 2026-03-02T00:00:00Z */
#define H 3600

static struct cost_attempt attempt(int32_t task, int32_t node, int64_t sched, int64_t fin,
                                   enum cost_phase ph) {
    return (struct cost_attempt){.uid = "a",
                                 .task = task,
                                 .node = node,
                                 .gpu_request = 1,
                                 .created_at = T0 + sched - 1,
                                 .scheduled_at = T0 + sched,
                                 .started_at = T0 + sched,
                                 .finished_at = fin >= 0 ? T0 + fin : 0,
                                 .phase = ph,
                                 .work_seconds = -1,
                                 .restore_seconds = -1,
                                 .checkpoint_seconds = -1};
}

/* Both bases of [from, to) at now; *acc is the accrual result. */
static void both(const struct cost_input *in, int64_t from, int64_t to, int64_t now,
                 struct cost_result **acc, struct cost_completion *comp) {
    struct cost_query q = {.from = T0 + from, .to = T0 + to, .now = T0 + now};
    assert_int_equal(cost_compute(in, &q, acc), ERR_OK);
    assert_int_equal(cost_completion(in, &q, *acc, comp), ERR_OK);
}

/* Task A (fallback): attempt a1 on a spot node N1 reclaimed at 1800 s (W1), the
 * winning attempt a2 on an On-Demand node N2 in W2, completed at 6000 s. */
static void test_reclaimed_then_won(void **state) {
    (void)state;
    struct cost_pool pools[] = {
        {.id = "p", .size = "gpu-x-spot", .capacity = COST_CAP_SPOT, .price_hourly = 3600000},
        {.id = "q", .size = "gpu-x", .capacity = COST_CAP_ON_DEMAND, .price_hourly = 7200000},
    };
    struct cost_node nodes[] = {
        {.name = "n1",
         .pool = 0,
         .created_at = T0 - 30,
         .ready_at = T0,
         .k8s_deleted_at = T0 + 1800,
         .gpu_allocatable = 1},
        {.name = "n2",
         .pool = 1,
         .created_at = T0 + 2970,
         .ready_at = T0 + 3000,
         .k8s_deleted_at = T0 + 6600,
         .gpu_allocatable = 1},
    };
    struct cost_task tasks[] = {{.uid = "A",
                                 .ns = "b",
                                 .config = COST_FALLBACK,
                                 .outcome = COST_TASK_SUCCEEDED,
                                 .completed_at = T0 + 6000}};
    struct cost_attempt at[] = {attempt(0, 0, 600, -1, COST_PHASE_FAILED),
                                attempt(0, 1, 4200, 6000, COST_PHASE_SUCCEEDED)};
    struct cost_input in = {pools, 2, nodes, 2, tasks, 1, at, 2, NULL, 0};
    struct cost_result *r = NULL;
    struct cost_completion c;

    /* W2 = [H, 2H). Accrual: a2 holds n2 [4200, 6000) = 1800 s x 2000 = 3,600,000
     * useful; n2 billed in W2 [3600, 6600) = 3000 s x 2000 = 6,000,000, idle
     * 2,400,000, all to fallback: cost 6,000,000 for 1 task. */
    both(&in, H, 2 * H, 2 * H, &r, &c);
    const struct cost_config_result *fa = &r->configs[COST_FALLBACK];
    assert_int_equal(fa->cost, 6000000);
    assert_int_equal(fa->cost_per_successful_task, 6000000);
    assert_true(fa->partial); /* A held n1 in W1 too */
    assert_true(r->partial);
    /* Completion: W1 = [0, H) adds a1's [600, 1800) = 1200 s x 1000 = 1,200,000
     * wasted and pool p's idle in W1 (n1 [0, 600) = 600,000, A the only task):
     * 1,800,000; W2 as above 6,000,000; total 7,800,000. */
    const struct cost_basis_config *fc = &c.configs[COST_FALLBACK];
    assert_int_equal(c.windows, 2);
    assert_int_equal(c.span_from, T0);
    assert_int_equal(c.span_to, T0 + 2 * H);
    assert_int_equal(fc->tasks_succeeded, 1);
    assert_int_equal(fc->useful_cost, 3600000);
    assert_int_equal(fc->wasted_cost, 1200000);
    assert_int_equal(fc->idle_cost, 600000 + 2400000);
    assert_int_equal(fc->allocated_cost, 4800000);
    assert_int_equal(fc->cost, 7800000);
    assert_int_equal(fc->cost_per_successful_task, 7800000);
    /* (wasted + idle) / useful = (1.2 + 3.0) / 3.6 = 116.67 % */
    assert_int_equal(fc->measured_overhead_bp, 11667);
    assert_int_equal(c.configs[COST_SPOT].cost, 0);
    assert_int_equal(c.configs[COST_SPOT].cost_per_successful_task, COST_NULL);
    cost_result_free(r);

    /* W1 alone: accrual 1,200,000 + 600,000 = 1,800,000 and no success (n2's
     * 600 s in W1, 1,200,000, is unattributed: nobody held pool q); A had not
     * finished by W1's end: partial. Completion: nobody succeeded in W1. */
    both(&in, 0, H, 2 * H, &r, &c);
    assert_int_equal(r->configs[COST_FALLBACK].cost, 1800000);
    assert_int_equal(r->unattributed_idle, 1200000);
    assert_true(r->partial);
    assert_int_equal(c.configs[COST_FALLBACK].tasks_succeeded, 0);
    assert_int_equal(c.configs[COST_FALLBACK].cost, 0);
    assert_int_equal(c.windows, 1);
    cost_result_free(r);
}

/* Two tasks share a 2-GPU node (2000 µ$/s, Ready at 0, alive): C holds one GPU
 * [0, 5400) and succeeds at 5400; D holds the other from 5400, still running
 * at now = 2H. Window W = [H, 2H). */
static void test_shared_node_idle_split(void **state) {
    (void)state;
    struct cost_pool pools[] = {
        {.id = "r", .size = "gpu-y", .capacity = COST_CAP_ON_DEMAND, .price_hourly = 7200000}};
    struct cost_node nodes[] = {
        {.name = "n3", .pool = 0, .created_at = T0 - 30, .ready_at = T0, .gpu_allocatable = 2}};
    struct cost_task tasks[] = {
        {.uid = "C",
         .ns = "b",
         .config = COST_FALLBACK,
         .outcome = COST_TASK_SUCCEEDED,
         .completed_at = T0 + 5400},
        {.uid = "D", .ns = "b", .config = COST_FALLBACK, .outcome = COST_TASK_RUNNING},
    };
    struct cost_attempt at[] = {attempt(0, 0, 0, 5400, COST_PHASE_SUCCEEDED),
                                attempt(1, 0, 5400, -1, COST_PHASE_RUNNING)};
    struct cost_input in = {pools, 1, nodes, 1, tasks, 2, at, 2, NULL, 0};
    struct cost_result *r = NULL;
    struct cost_completion c;
    both(&in, H, 2 * H, 2 * H, &r, &c);
    /* Accrual W: n3 3600 s x 2000 = 7,200,000; C 1800 s x 1/2 x 2000 = 1,800,000
     * useful, D 1,800,000 running, idle 3,600,000: cost 7,200,000, 1 success. */
    assert_int_equal(r->configs[COST_FALLBACK].cost, 7200000);
    assert_int_equal(r->configs[COST_FALLBACK].running_cost, 1800000);
    assert_true(r->partial);
    /* Completion (C only): in W its 1,800,000 + half the idle (1:1 by allocated)
     * 1,800,000; in [0, H) 3600 s x 1/2 x 2000 = 3,600,000 + all the idle there
     * (7,200,000 - 3,600,000; C was the only task) = 7,200,000. Total
     * 10,800,000. With D's 3,600,000 in W that is 14,400,000 = accrual [0, H)
     * 7,200,000 + accrual W 7,200,000: the same money, moved. */
    const struct cost_basis_config *fc = &c.configs[COST_FALLBACK];
    assert_int_equal(fc->useful_cost, 5400000);
    assert_int_equal(fc->running_cost, 0);
    assert_int_equal(fc->idle_cost, 1800000 + 3600000);
    assert_int_equal(fc->cost, 10800000);
    assert_int_equal(fc->cost_per_successful_task, 10800000);
    cost_result_free(r);
}

/* A task wholly inside the window: no cut, and both bases agree; a window
 * inside the task's run cuts it. Node 1000 µ$/s, Ready 0, deleted 1800; task E
 * holds it [600, 1200) and succeeds at 1200. */
static void test_partial_flag(void **state) {
    (void)state;
    struct cost_pool pools[] = {
        {.id = "p", .size = "gpu-x", .capacity = COST_CAP_ON_DEMAND, .price_hourly = 3600000}};
    struct cost_node nodes[] = {{.name = "n",
                                 .pool = 0,
                                 .created_at = T0 - 30,
                                 .ready_at = T0,
                                 .k8s_deleted_at = T0 + 1800,
                                 .gpu_allocatable = 1}};
    struct cost_task tasks[] = {{.uid = "E",
                                 .ns = "b",
                                 .config = COST_ON_DEMAND,
                                 .outcome = COST_TASK_SUCCEEDED,
                                 .completed_at = T0 + 1200}};
    struct cost_attempt at[] = {attempt(0, 0, 600, 1200, COST_PHASE_SUCCEEDED)};
    struct cost_input in = {pools, 1, nodes, 1, tasks, 1, at, 1, NULL, 0};
    struct cost_result *r = NULL;
    struct cost_completion c;
    /* [0, H): 1800 s x 1000 = 1,800,000 (600,000 allocated + 1,200,000 idle). */
    both(&in, 0, H, H, &r, &c);
    assert_false(r->partial);
    assert_int_equal(r->configs[COST_ON_DEMAND].cost, 1800000);
    assert_int_equal(c.configs[COST_ON_DEMAND].cost, 1800000);
    assert_int_equal(c.windows, 1);
    cost_result_free(r);
    /* [700, 1000) inside the run: cut at both ends; no success in it. */
    both(&in, 700, 1000, H, &r, &c);
    assert_true(r->partial);
    assert_true(r->configs[COST_ON_DEMAND].partial);
    assert_int_equal(c.configs[COST_ON_DEMAND].tasks_succeeded, 0);
    cost_result_free(r);
    /* [1000, 1300): E succeeded in it but held the node from 600: cut; the
     * completion basis reads the grid windows [700, 1000) and [400, 700) too:
     * 600 s x 1000 = 600,000 allocated; idle of n in those windows: [400, 600)
     * 200,000 (E holds p in [400, 700) from 600, so it gets it) and [1200, 1300)
     * 100,000: 900,000. */
    both(&in, 1000, 1300, H, &r, &c);
    assert_true(r->partial);
    assert_int_equal(c.windows, 3);
    assert_int_equal(c.span_from, T0 + 400);
    assert_int_equal(c.configs[COST_ON_DEMAND].allocated_cost, 600000);
    assert_int_equal(c.configs[COST_ON_DEMAND].cost, 900000);
    cost_result_free(r);
}

/* A task spanning more grid windows than COST_BASIS_MAX_WINDOWS is refused. */
static void test_too_many_windows(void **state) {
    (void)state;
    struct cost_pool pools[] = {
        {.id = "p", .size = "gpu-x", .capacity = COST_CAP_ON_DEMAND, .price_hourly = 3600000}};
    struct cost_node nodes[] = {
        {.name = "n", .pool = 0, .created_at = T0 - 30, .ready_at = T0, .gpu_allocatable = 1}};
    struct cost_task tasks[] = {{.uid = "E",
                                 .ns = "b",
                                 .config = COST_ON_DEMAND,
                                 .outcome = COST_TASK_SUCCEEDED,
                                 .completed_at = T0 + 4995}};
    struct cost_attempt at[] = {attempt(0, 0, 0, 4995, COST_PHASE_SUCCEEDED)};
    struct cost_input in = {pools, 1, nodes, 1, tasks, 1, at, 1, NULL, 0};
    struct cost_query q = {.from = T0 + 4990, .to = T0 + 5000, .now = T0 + 6000};
    struct cost_result *r = NULL;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_OK);
    struct cost_completion c = {.windows = -7};
    int64_t a, b;
    /* held [0, 4995) on a 10 s grid from 4990: windows -499..0 = 500 > 400 */
    assert_int_equal(cost_completion(&in, &q, r, &c), ERR_TOOBIG);
    assert_int_equal(c.windows, -7); /* untouched */
    assert_int_equal(cost_completion_span(&in, &q, &a, &b), ERR_TOOBIG);
    cost_result_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reclaimed_then_won),
        cmocka_unit_test(test_shared_node_idle_split),
        cmocka_unit_test(test_partial_flag),
        cmocka_unit_test(test_too_many_windows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
