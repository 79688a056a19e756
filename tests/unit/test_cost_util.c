/* test_cost_util — the engine's small building blocks on hand-made input: the name
 * parsers (every name, NULL, an unknown one), the largest-remainder split (hand
 * divisions below), cost_compute's refusals of bad input, and the reconcile period
 * bounds (hand day counts below). Nothing here is computed by the code under test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "engine/cost.h"
#include "engine/reconcile.h"
#include "engine/cost_internal.h"

static void test_names(void **state) {
    (void)state;
    enum cost_config c = COST_SPOT;
    assert_int_equal(cost_config_parse("on-demand", &c), ERR_OK);
    assert_int_equal(c, COST_ON_DEMAND);
    assert_int_equal(cost_config_parse(NULL, &c), ERR_INVAL);
    assert_int_equal(cost_config_parse("Spot", &c), ERR_INVAL); /* names are exact */
    assert_int_equal(c, COST_ON_DEMAND);                        /* untouched */
    assert_null(cost_config_name((enum cost_config)3));

    enum cost_capacity k = COST_CAP_SPOT;
    assert_int_equal(cost_capacity_parse("on-demand", &k), ERR_OK);
    assert_int_equal(k, COST_CAP_ON_DEMAND);
    assert_int_equal(cost_capacity_parse("spot", &k), ERR_OK);
    assert_int_equal(k, COST_CAP_SPOT);
    assert_int_equal(cost_capacity_parse("fallback", &k), ERR_INVAL); /* a config, not a capacity */
    assert_int_equal(cost_capacity_parse(NULL, &k), ERR_INVAL);
    assert_int_equal(k, COST_CAP_SPOT);
    assert_string_equal(cost_capacity_name(COST_CAP_ON_DEMAND), "on-demand");
    assert_null(cost_capacity_name((enum cost_capacity)2));

    enum cost_outcome o = COST_TASK_RUNNING;
    assert_int_equal(cost_outcome_parse("failed", &o), ERR_OK);
    assert_int_equal(o, COST_TASK_FAILED);
    assert_int_equal(cost_outcome_parse("succeeded", &o), ERR_OK);
    assert_int_equal(o, COST_TASK_SUCCEEDED);
    assert_int_equal(cost_outcome_parse(NULL, &o), ERR_INVAL);
    assert_int_equal(cost_outcome_parse("done", &o), ERR_INVAL);
    assert_int_equal(o, COST_TASK_SUCCEEDED);

    enum cost_phase p = COST_PHASE_UNKNOWN;
    assert_int_equal(cost_phase_parse("Failed", &p), ERR_OK);
    assert_int_equal(p, COST_PHASE_FAILED);
    assert_int_equal(cost_phase_parse("Pending", &p), ERR_OK);
    assert_int_equal(p, COST_PHASE_PENDING);
    assert_int_equal(cost_phase_parse(NULL, &p), ERR_INVAL);
    assert_int_equal(cost_phase_parse("failed", &p), ERR_INVAL); /* Kubernetes' capitals */
    assert_int_equal(p, COST_PHASE_PENDING);
}

/* Largest remainder, by hand:
 *   100 over weights 1, 2, 4 (total 7): 100/7 = 14 r 2, 200/7 = 28 r 4, 400/7 = 57 r 1;
 *   14 + 28 + 57 = 99, the 1 µ$ left goes to the largest remainder (4, index 1):
 *   14, 29, 57.
 *   10 over 1, 1, 1: 3 r 1 each, 9 given; the tie goes to the lower index: 4, 3, 3.
 *   7 over 0, 5, 0, 2 (total 7): exact, 0, 5, 0, 2; zero weights never get a µ$.
 *   0 over 0, 0: 0, 0. 5 over 0, 0: nothing to split it by, refused. */
static void test_split(void **state) {
    (void)state;
    int64_t parts[4] = {-1, -1, -1, -1};
    assert_int_equal(cost_split(100, (const int64_t[]){1, 2, 4}, 3, parts), ERR_OK);
    assert_int_equal(parts[0], 14);
    assert_int_equal(parts[1], 29);
    assert_int_equal(parts[2], 57);
    assert_int_equal(cost_split(10, (const int64_t[]){1, 1, 1}, 3, parts), ERR_OK);
    assert_int_equal(parts[0], 4);
    assert_int_equal(parts[1], 3);
    assert_int_equal(parts[2], 3);
    assert_int_equal(cost_split(7, (const int64_t[]){0, 5, 0, 2}, 4, parts), ERR_OK);
    assert_int_equal(parts[0], 0);
    assert_int_equal(parts[1], 5);
    assert_int_equal(parts[2], 0);
    assert_int_equal(parts[3], 2);
    assert_int_equal(cost_split(0, (const int64_t[]){0, 0}, 2, parts), ERR_OK);
    assert_int_equal(parts[0], 0);
    assert_int_equal(parts[1], 0);
    assert_int_equal(cost_split(5, (const int64_t[]){0, 0}, 2, parts), ERR_INVAL);
    assert_int_equal(cost_split(-1, (const int64_t[]){1, 1}, 2, parts), ERR_INVAL);
    assert_int_equal(cost_split(5, (const int64_t[]){1, -1}, 2, parts), ERR_INVAL);
}

/* cost_compute refuses, and leaves *out alone: an empty or reversed window, a count
 * without its array, a negative pool price, a pool capacity out of the enum. */
static void test_compute_refusals(void **state) {
    (void)state;
    struct cost_result *r = (struct cost_result *)&r; /* must stay untouched */
    struct cost_result *const untouched = r;
    struct cost_input in = {0};
    struct cost_query q = {.from = 100, .to = 100, .now = 100};
    assert_int_equal(cost_compute(&in, &q, &r), ERR_INVAL);
    q.to = 50;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_INVAL);
    q.to = 200;
    in.n_pools = 1; /* no pools array */
    assert_int_equal(cost_compute(&in, &q, &r), ERR_INVAL);
    struct cost_pool pool = {.capacity = COST_CAP_SPOT, .price_hourly = -1};
    in.pools = &pool;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_INVAL);
    pool.price_hourly = 1800000;
    pool.capacity = (enum cost_capacity)7;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_INVAL);
    in.n_attempts = 2; /* no attempts array */
    pool.capacity = COST_CAP_SPOT;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_INVAL);
    assert_ptr_equal(r, untouched);
}

/* Every index is checked against its array's count, at the exact bound: one spot pool
 * ($1.80/h), one node, one task and one attempt compute (the control); an attempt's
 * task or node equal to the count, a node's pool equal to the count, or an index
 * below -1 is refused with ERR_INVAL. The arrays hold one valid element more than
 * the counts say, so an off-by-one check would read a valid element and answer
 * ERR_OK instead of failing by chance. */
static void test_index_bounds(void **state) {
    (void)state;
    const int64_t t0 = 1793577600; /* 2026-11-02T00:00Z */
    struct cost_pool pools[2] = {
        {.id = "p0", .name = "gpu-spot", .capacity = COST_CAP_SPOT, .price_hourly = 1800000},
        {.id = "p1", .name = "gpu-spot-2", .capacity = COST_CAP_SPOT, .price_hourly = 1800000}};
    struct cost_node nodes[2] = {
        {.name = "S", .pool = 0, .created_at = t0, .ready_at = t0, .gpu_allocatable = 1},
        {.name = "S2", .pool = 0, .created_at = t0, .ready_at = t0, .gpu_allocatable = 1}};
    struct cost_task tasks[2] = {{.uid = "J1",
                                  .config = COST_SPOT,
                                  .outcome = COST_TASK_SUCCEEDED,
                                  .completed_at = t0 + 600},
                                 {.uid = "J2",
                                  .config = COST_SPOT,
                                  .outcome = COST_TASK_SUCCEEDED,
                                  .completed_at = t0 + 600}};
    struct cost_attempt att[2] = {{.uid = "a1",
                                   .task = 0,
                                   .node = 0,
                                   .gpu_request = 1,
                                   .created_at = t0,
                                   .scheduled_at = t0,
                                   .started_at = t0,
                                   .finished_at = t0 + 600,
                                   .phase = COST_PHASE_SUCCEEDED,
                                   .work_seconds = -1,
                                   .restore_seconds = -1,
                                   .checkpoint_seconds = -1}};
    att[1] = att[0];
    att[1].uid = "a2";
    struct cost_input in = {.pools = pools,
                            .n_pools = 1,
                            .nodes = nodes,
                            .n_nodes = 1,
                            .tasks = tasks,
                            .n_tasks = 1,
                            .attempts = att,
                            .n_attempts = 1};
    struct cost_query q = {.from = t0, .to = t0 + 3600, .now = t0 + 3600};
    struct cost_result *r = NULL;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_OK); /* the control */
    assert_non_null(r);
    cost_result_free(r);
    r = NULL;
    /* nothing past the counts is read: invalid elements there change nothing */
    pools[1].price_hourly = -1;
    nodes[1].gpu_allocatable = -1;
    att[1].task = -1;
    tasks[1].config = (enum cost_config)COST_NCONFIG;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_OK);
    cost_result_free(r);
    r = NULL;
    pools[1].price_hourly = 1800000;
    nodes[1].gpu_allocatable = 1;
    att[1].task = 0;
    tasks[1].config = COST_SPOT;
    /* valid at the other edge: a node without GPUs (0: none), an attempt never
     * scheduled (node -1) */
    nodes[0].gpu_allocatable = 0;
    att[0].node = -1;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_OK);
    cost_result_free(r);
    r = NULL;
    nodes[0].gpu_allocatable = 1;
    att[0].node = 0;
    struct {
        int32_t *field, bad;
    } cases[] = {{&att[0].node, 1},  {&att[0].task, 1},  {&nodes[0].pool, 1},
                 {&att[0].node, -2}, {&att[0].task, -1}, {&nodes[0].pool, -2}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int32_t keep = *cases[i].field;
        *cases[i].field = cases[i].bad;
        assert_int_equal(cost_compute(&in, &q, &r), ERR_INVAL);
        assert_null(r);
        *cases[i].field = keep;
    }
    att[0].gpu_request = -1;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_INVAL);
    att[0].gpu_request = 1;
    att[0].cpu_request_milli = -1;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_INVAL);
    att[0].cpu_request_milli = 0;
    nodes[0].gpu_allocatable = -1;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_INVAL);
    assert_null(r);
}

/* A node's rate: its own recorded price; else its pool's (no price history here);
 * else 0 when its pool is unknown: -1, or an index equal to the pool count (the
 * array holds a second pool at $9.99/h that an off-by-one would return). */
static void test_node_rate(void **state) {
    (void)state;
    struct cost_pool pools[2] = {{.id = "p0", .size = "gpu-x", .price_hourly = 3600000},
                                 {.id = "p1", .size = "gpu-y", .price_hourly = 9990000}};
    struct cost_input in = {.pools = pools, .n_pools = 1};
    struct cost_node n = {.name = "N", .pool = 0, .price_hourly = 1800000, .created_at = 1};
    assert_int_equal(cost_node_rate(&in, &n), 1800000); /* its own */
    n.price_hourly = 0;
    assert_int_equal(cost_node_rate(&in, &n), 3600000); /* its pool's */
    n.pool = 1;
    assert_int_equal(cost_node_rate(&in, &n), 0); /* no such pool */
    n.pool = -1;
    assert_int_equal(cost_node_rate(&in, &n), 0);
}

/* The interrupted test (docs/cost-model.md): a pod that failed with no end time of its
 * own (no finish, removal or terminal sighting), on a node still alive, is interrupted
 * when it carries a DisruptionTarget or an eviction reason, and a plain failure
 * without; the same pod still Running (not failed, no end) is not interrupted. */
static void test_interrupted_failed_without_end(void **state) {
    (void)state;
    struct cost_node node = {.name = "N", .pool = 0, .created_at = 100, .ready_at = 100};
    struct cost_attempt a = {
        .uid = "a", .node = 0, .phase = COST_PHASE_FAILED, .disruption_at = 500};
    assert_true(cost_attempt_interrupted(&a, &node));
    a.disruption_at = 0;
    a.reason = "Evicted";
    assert_true(cost_attempt_interrupted(&a, &node));
    a.reason = "OOMKilled";
    assert_false(cost_attempt_interrupted(&a, &node));
    a.phase = COST_PHASE_RUNNING;
    a.disruption_at = 500;
    assert_false(cost_attempt_interrupted(&a, &node));
}

/* Counts beyond what the engine indexes (int32) are refused with ERR_TOOBIG before
 * any element is read (the arrays here hold one element): 2^31 attempts, tasks or
 * nodes, or 2^31 - 1 pools (one more index is the unknown pool). */
static void test_counts_too_big(void **state) {
    (void)state;
    struct cost_pool pool = {.id = "p", .capacity = COST_CAP_SPOT};
    struct cost_node node = {.name = "n"};
    struct cost_task task = {.uid = "t"};
    struct cost_attempt att = {.uid = "a"};
    struct cost_query q = {.from = 0, .to = 10, .now = 10};
    struct cost_result *r = NULL;
    const size_t big = (size_t)INT32_MAX + 1;
    struct cost_input in = {&pool, 0, &node, 0, &task, 0, &att, 0, NULL, 0};
    in.n_attempts = big;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_TOOBIG);
    in.n_attempts = 0;
    in.n_tasks = big;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_TOOBIG);
    in.n_tasks = 0;
    in.n_nodes = big;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_TOOBIG);
    in.n_nodes = 0;
    in.n_pools = (size_t)INT32_MAX;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_TOOBIG);
    assert_null(r);
}

/* A string index over more keys than int32 can number is refused before any key is
 * read (the base here holds none). */
static void test_index_too_big(void **state) {
    (void)state;
    struct cost_index *ix = NULL;
    const char *none = NULL;
    assert_int_equal(cost_index_new(&none, sizeof none, (size_t)INT32_MAX + 1, &ix), ERR_TOOBIG);
    assert_null(ix);
}

/* Reconcile: a pool with neither a node nor an item in the period gets no line of its
 * own; the result is the cluster line and the total, both zero, and no invoice. */
static void test_reconcile_idle_pool(void **state) {
    (void)state;
    char id[] = "p", cap[] = "spot";
    struct reconcile_pool pool = {.id = id, .name = NULL, .capacity_type = cap};
    struct reconcile_input in = {.period = "2026-11",
                                 .period_start = 1793491200,
                                 .period_end = 1796083200,
                                 .pools = &pool,
                                 .n_pools = 1};
    struct reconcile_result r;
    assert_int_equal(reconcile_compute(&in, 1796083200, &r), ERR_OK);
    assert_int_equal(r.n_lines, 2);
    assert_int_equal(r.lines[0].kind, RECONCILE_CLUSTER);
    assert_int_equal(r.lines[1].kind, RECONCILE_TOTAL);
    assert_int_equal(r.lines[1].nodes, 0);
    assert_int_equal(r.lines[1].estimated, 0);
    assert_int_equal(r.lines[1].billed, 0);
    assert_false(r.has_invoice);
    assert_string_equal(r.period, "2026-11");
    reconcile_result_release(&r);
}

/* "2026-11": 2026-11-01T00:00Z = 2026-11-02 (1793577600, tests/unit/testdb.h) - 86400
 * = 1793491200; November has 30 days: end 1793491200 + 30 x 86400 = 1796083200.
 * "2026-12" ends at 2027-01-01: 1796083200 + 31 x 86400 = 1798761600. */
static void test_period_bounds(void **state) {
    (void)state;
    int64_t s = -1, e = -1;
    assert_int_equal(reconcile_period_bounds("2026-11", &s, &e), ERR_OK);
    assert_int_equal(s, 1793491200);
    assert_int_equal(e, 1796083200);
    assert_int_equal(reconcile_period_bounds("2026-12", &s, &e), ERR_OK);
    assert_int_equal(s, 1796083200);
    assert_int_equal(e, 1798761600);
    const char *bad[] = {NULL,      "2026-1",  "2026/11", "2026-1a",
                         "20x6-11", "2026-00", "2026-13", "2026-110"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        s = e = -1;
        assert_int_equal(reconcile_period_bounds(bad[i], &s, &e), ERR_PARSE);
        assert_int_equal(s, -1);
        assert_int_equal(e, -1);
    }
    /* a period that ends where it starts is refused by the computation */
    struct reconcile_input in = {.period_start = 1793491200, .period_end = 1793491200};
    struct reconcile_result r;
    assert_int_equal(reconcile_compute(&in, 1793491200, &r), ERR_INVAL);
}

/* The price in force reads only the caller's rows. The history holds one row of
 * "gpu-a" at T = 100; "gpu-b" sorts after it, so the search ends one past the
 * last row (lo = n_prices = 1): no row of "gpu-b" in force, none observed later,
 * price 0, with or without or_first. The array is on the heap with exactly its
 * rows, so a read of prices[1] is a heap-buffer-overflow under the sanitizer
 * build make test runs (the `lo <= n_prices` mutant of docs/mutants.md). With
 * "gpu-a": 1,000 µ$/h from T = 100 on; before it, 0, or the first observed
 * (1,000) with or_first. */
static void test_price_in_force_bounds(void **state) {
    (void)state;
    struct cost_price *p = malloc(sizeof *p);
    assert_non_null(p);
    *p = (struct cost_price){.size = "gpu-a", .at = 100, .price_hourly = 1000, .gpus = 1};
    struct cost_input in = {.prices = p, .n_prices = 1};
    assert_int_equal(cost_price_in_force(&in, "gpu-b", 50, true), 0);
    assert_int_equal(cost_price_in_force(&in, "gpu-b", 500, true), 0);
    assert_int_equal(cost_price_in_force(&in, "gpu-a", 100, false), 1000);
    assert_int_equal(cost_price_in_force(&in, "gpu-a", 99, false), 0);
    assert_int_equal(cost_price_in_force(&in, "gpu-a", 99, true), 1000);
    assert_int_equal(cost_price_in_force(&in, NULL, 99, true), 0);
    free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_compute_refusals),
        cmocka_unit_test(test_index_bounds),
        cmocka_unit_test(test_node_rate),
        cmocka_unit_test(test_interrupted_failed_without_end),
        cmocka_unit_test(test_counts_too_big),
        cmocka_unit_test(test_index_too_big),
        cmocka_unit_test(test_reconcile_idle_pool),
        cmocka_unit_test(test_period_bounds),
        cmocka_unit_test(test_price_in_force_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
