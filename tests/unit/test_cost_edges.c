/* test_cost_edges — cost engine cases written to kill mutants that survived
 * make mutants (tests/mutate/mutants.py): what makes an attempt interrupted, and
 * the half-micro-dollar rounding of a cost per task and of a node's allocated cost. Every figure by
 * hand. Times: T0 = 2026-11-02T00:00:00Z + seconds; one fallback node of 1 GPU at 3600 µ$/h = 1
 * µ$/s unless said otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/cost.h"

#define T0 INT64_C(1793577600)

struct fx {
    struct cost_pool pool;
    struct cost_node node;
    struct cost_task tasks[4];
    struct cost_attempt att[4];
    size_t nt, na;
    struct cost_query q;
    struct cost_result *r;
};

static int setup(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->pool = (struct cost_pool){.id = "pool-fb",
                                 .name = "fb",
                                 .size = "gpu-x",
                                 .capacity = COST_CAP_ON_DEMAND,
                                 .price_hourly = 3600};
    /* alive through the window: no deletion, so no $0.01 floor (a live node has none) */
    f->node = (struct cost_node){.name = "F",
                                 .pool = 0,
                                 .price_hourly = 3600,
                                 .created_at = T0,
                                 .ready_at = T0,
                                 .gpu_allocatable = 1,
                                 .cpu_allocatable_milli = 8000};
    f->q = (struct cost_query){.from = T0, .to = T0 + 1000, .now = T0 + 1000};
    *state = f;
    return 0;
}

static int teardown(void **state) {
    struct fx *f = *state;
    cost_result_free(f->r);
    free(f);
    return 0;
}

static int32_t task(struct fx *f, const char *uid, enum cost_outcome o, int64_t completed) {
    f->tasks[f->nt] = (struct cost_task){.uid = uid,
                                         .ns = "batch",
                                         .config = COST_FALLBACK,
                                         .outcome = o,
                                         .completed_at = completed ? T0 + completed : 0};
    return (int32_t)f->nt++;
}

/* scheduled and started at `s`, finished at `e` (0: open) */
static struct cost_attempt *attempt(struct fx *f, int32_t t, int64_t s, int64_t e,
                                    enum cost_phase ph) {
    struct cost_attempt *a = &f->att[f->na++];
    *a = (struct cost_attempt){.uid = "a",
                               .task = t,
                               .node = 0,
                               .gpu_request = 1,
                               .cpu_request_milli = 1000,
                               .created_at = T0 + s,
                               .scheduled_at = T0 + s,
                               .started_at = T0 + s,
                               .finished_at = e ? T0 + e : 0,
                               .phase = ph,
                               .work_seconds = -1,
                               .restore_seconds = -1,
                               .checkpoint_seconds = -1};
    return a;
}

static const struct cost_config_result *run(struct fx *f) {
    struct cost_input in = {&f->pool, 1, &f->node, 1, f->tasks, f->nt, f->att, f->na, NULL, 0};
    cost_result_free(f->r);
    f->r = NULL;
    assert_int_equal(cost_compute(&in, &f->q, &f->r), ERR_OK);
    return &f->r->configs[COST_FALLBACK];
}

/* An evicted pod (reason only: no DisruptionTarget, its node alive) is interrupted. */
static void test_interrupted_by_reason(void **state) {
    struct fx *f = *state;
    int32_t t = task(f, "J", COST_TASK_SUCCEEDED, 500);
    struct cost_attempt *a = attempt(f, t, 0, 100, COST_PHASE_FAILED);
    a->reason = "Evicted";
    attempt(f, t, 200, 500, COST_PHASE_SUCCEEDED);
    const struct cost_config_result *c = run(f);
    assert_int_equal(c->interruptions, 1);
    assert_int_equal(c->retries, 1);
    /* wasted: the evicted attempt's 100 s x 1 µ$ */
    assert_int_equal(c->wasted_cost, 100);
    /* the same failure with an ordinary reason is not an interruption */
    a->reason = "Error";
    c = run(f);
    assert_int_equal(c->interruptions, 0);
    assert_int_equal(c->retries, 1);
}

/* A pod that carries a DisruptionTarget condition but still runs (its end not
 * seen) is not interrupted yet: its time is running cost. */
static void test_disrupted_but_running(void **state) {
    struct fx *f = *state;
    int32_t t = task(f, "J", COST_TASK_RUNNING, 0);
    struct cost_attempt *a = attempt(f, t, 0, 0, COST_PHASE_RUNNING);
    a->disruption_at = T0 + 300;
    const struct cost_config_result *c = run(f);
    assert_int_equal(c->interruptions, 0);
    assert_int_equal(c->tasks_running, 1);
    /* held 0 -> 1000 (the window's end) x 1 µ$ */
    assert_int_equal(c->running_cost, 1000);
    assert_int_equal(c->wasted_cost, 0);
    /* once it ends (failed, with the condition) it is an interruption, lost at 300 */
    a->finished_at = T0 + 400;
    a->phase = COST_PHASE_FAILED;
    f->q.want_attempts = true;
    c = run(f);
    assert_int_equal(c->interruptions, 1);
    assert_int_equal(f->r->attempts[0].lost_at, T0 + 300);
}

/* An attempt that ended (its container's finishedAt is known) but whose phase was
 * never seen as Failed still counts as interrupted when it carries DisruptionTarget. */
static void test_ended_unknown_phase_disrupted(void **state) {
    struct fx *f = *state;
    int32_t t = task(f, "J", COST_TASK_SUCCEEDED, 900);
    struct cost_attempt *a = attempt(f, t, 0, 400, COST_PHASE_UNKNOWN);
    a->disruption_at = T0 + 350;
    attempt(f, t, 500, 900, COST_PHASE_SUCCEEDED);
    const struct cost_config_result *c = run(f);
    assert_int_equal(c->interruptions, 1);
    /* restore: next start 500 - lost at 350 = 150 s */
    assert_int_equal(c->restore.total, 150);
}

/* Cost per successful task rounds half a micro-dollar away from zero:
 * node 0 -> 101 s x 1 µ$ = 101 µ$ over 2 tasks = 50.5 -> 51. */
static void test_per_task_rounds_half_up(void **state) {
    struct fx *f = *state;
    f->q.to = f->q.now = T0 + 101;
    attempt(f, task(f, "J1", COST_TASK_SUCCEEDED, 40), 0, 40, COST_PHASE_SUCCEEDED);
    attempt(f, task(f, "J2", COST_TASK_SUCCEEDED, 80), 40, 80, COST_PHASE_SUCCEEDED);
    const struct cost_config_result *c = run(f);
    assert_int_equal(f->r->nodes_total, 101);
    assert_int_equal(c->cost, 101);
    assert_int_equal(c->tasks_succeeded, 2);
    assert_int_equal(c->cost_per_successful_task, 51);
    /* 100 s: 100 / 2 = 50 exactly */
    f->q.to = f->q.now = T0 + 100;
    c = run(f);
    assert_int_equal(c->cost_per_successful_task, 50);
}

/* A node's allocated cost rounds half a micro-dollar away from zero: at 1800 µ$/h
 * (0.5 µ$/s) an attempt holding 3 s is 1.5 -> 2 µ$; the node's 100 s in the window
 * are 50 µ$, so idle is 48. */
static void test_allocated_rounds_half_up(void **state) {
    struct fx *f = *state;
    f->node.price_hourly = 1800;
    f->q.to = f->q.now = T0 + 100;
    attempt(f, task(f, "J1", COST_TASK_SUCCEEDED, 3), 0, 3, COST_PHASE_SUCCEEDED);
    run(f);
    assert_int_equal(f->r->nodes[0].total, 50);
    assert_int_equal(f->r->nodes[0].allocated, 2);
    assert_int_equal(f->r->nodes[0].idle, 48);
}

/* A succeeded attempt whose container end was never seen ends with its task's
 * completion (500 s), not at the window's end: 500 s x 1 µ$, nothing running. */
static void test_unseen_end_clipped_at_completion(void **state) {
    struct fx *f = *state;
    attempt(f, task(f, "J", COST_TASK_SUCCEEDED, 500), 0, 0, COST_PHASE_SUCCEEDED);
    const struct cost_config_result *c = run(f);
    assert_int_equal(c->useful_cost, 500);
    assert_int_equal(c->running_cost, 0);
    assert_int_equal(c->tasks_succeeded, 1);
}

/* A node without a price of its own (only Kubernetes saw it, between two
 * DigitalOcean polls) is billed at its pool's size's price in force at its
 * creation (docs/cost-model.md "Node rate"), not at the pool's price of first
 * sight. Pool gpu-x first seen at 3600 µ$/h; the list price drops to 1800 µ$/h
 * at T0 - 100 and rises to 7200 µ$/h at T0 + 500, after the node's creation at
 * T0. Window [T0, T0 + 1000), node alive: 1000 s x 1800 / 3600 = 500 µ$ (v1:
 * 1000 s x 3600 / 3600 = 1000 µ$). The 400 s attempt: 400 x 0.5 = 200 µ$. */
static void test_node_rate_in_force_at_creation(void **state) {
    struct fx *f = *state;
    f->node.price_hourly = 0;
    static const struct cost_price hist[] = {{"gpu-a", T0 - 9000, 1, 1},
                                             {"gpu-x", T0 - 5000, 3600, 1},
                                             {"gpu-x", T0 - 100, 1800, 1},
                                             {"gpu-x", T0 + 500, 7200, 1},
                                             {"gpu-z", T0 - 9000, 2, 1}};
    attempt(f, task(f, "J", COST_TASK_SUCCEEDED, 400), 0, 400, COST_PHASE_SUCCEEDED);
    struct cost_input in = {&f->pool, 1, &f->node, 1, f->tasks, f->nt, f->att, f->na, hist, 5};
    assert_int_equal(cost_compute(&in, &f->q, &f->r), ERR_OK);
    assert_int_equal(f->r->nodes[0].rate_hourly, 1800);
    assert_int_equal(f->r->nodes_total, 500);
    assert_int_equal(f->r->configs[COST_FALLBACK].useful_cost, 200);
    assert_int_equal(f->r->configs[COST_FALLBACK].cost, 500); /* 200 + idle 300 */
    /* created (T0 - 200, Ready T0) before the first recorded price: the pool's
     * price of first sight, 1000 s x 3600 / 3600 = 1000 µ$ */
    in.prices = &hist[2];
    in.n_prices = 2;
    f->node.created_at = T0 - 200;
    cost_result_free(f->r);
    f->r = NULL;
    assert_int_equal(cost_compute(&in, &f->q, &f->r), ERR_OK);
    assert_int_equal(f->r->nodes[0].rate_hourly, 3600);
    assert_int_equal(f->r->nodes_total, 1000);
}

/* Input the engine must refuse: a node in pool 0 when there is no pool, a task of
 * an unknown configuration, an empty window. */
static void test_bad_input(void **state) {
    struct fx *f = *state;
    attempt(f, task(f, "J", COST_TASK_SUCCEEDED, 500), 0, 500, COST_PHASE_SUCCEEDED);
    struct cost_input in = {&f->pool, 0, &f->node, 1, f->tasks, f->nt, f->att, f->na, NULL, 0};
    struct cost_result *r = NULL;
    assert_int_equal(cost_compute(&in, &f->q, &r), ERR_INVAL); /* node.pool 0, 0 pools */
    assert_null(r);
    in.n_pools = 1;
    f->tasks[0].config = (enum cost_config)COST_NCONFIG;
    assert_int_equal(cost_compute(&in, &f->q, &r), ERR_INVAL);
    assert_null(r);
    f->tasks[0].config = COST_FALLBACK;
    f->q.to = f->q.from;
    assert_int_equal(cost_compute(&in, &f->q, &r), ERR_INVAL);
    assert_null(r);
    f->q.to = f->q.from + 1;
    assert_int_equal(cost_compute(&in, &f->q, &r), ERR_OK);
    cost_result_free(r);
}

/* A reclaim belongs to the window [from, to) = [T0, T0 + 1000) of its gone time: a
 * spot pool with no nodes whose deletion was seen at T0 (= from) is the window's one
 * reclaim, gone at T0; seen at T0 + 1000 (= to) or T0 - 1 it is not in the window. */
static void test_reclaim_window_bounds(void **state) {
    struct fx *f = *state;
    struct cost_pool pools[2] = {f->pool,
                                 {.id = "pool-spot",
                                  .name = "spot",
                                  .size = "gpu-x-spot",
                                  .capacity = COST_CAP_SPOT,
                                  .price_hourly = 1800}};
    struct cost_input in = {pools, 2, &f->node, 1, NULL, 0, NULL, 0, NULL, 0};
    const int64_t gone[3] = {T0, T0 + 1000, T0 - 1};
    const size_t want[3] = {1, 0, 0};
    for (int i = 0; i < 3; i++) {
        pools[1].deleted_at = gone[i];
        struct cost_result *r = NULL;
        assert_int_equal(cost_compute(&in, &f->q, &r), ERR_OK);
        assert_int_equal(r->n_reclaims, want[i]);
        if (want[i]) {
            assert_int_equal(r->reclaims[0].gone_at, T0);
            assert_int_equal(r->reclaims[0].pool, 1);
        }
        cost_result_free(r);
    }
}

/* Reclaims are listed by gone time, then by pool: three spot pools gone at T0 + 500
 * (pool 1), T0 + 100 (pool 2) and T0 + 500 (pool 3), listed in that input order,
 * come out as pool 2 (T0 + 100), pool 1, pool 3 (both T0 + 500, lower pool first). */
static void test_reclaims_in_time_order(void **state) {
    struct fx *f = *state;
    struct cost_pool spot = {.size = "gpu-x-spot", .capacity = COST_CAP_SPOT, .price_hourly = 1800};
    struct cost_pool pools[4] = {f->pool, spot, spot, spot};
    pools[1].id = "s1";
    pools[1].deleted_at = T0 + 500;
    pools[2].id = "s2";
    pools[2].deleted_at = T0 + 100;
    pools[3].id = "s3";
    pools[3].deleted_at = T0 + 500;
    struct cost_input in = {pools, 4, &f->node, 1, NULL, 0, NULL, 0, NULL, 0};
    struct cost_result *r = NULL;
    assert_int_equal(cost_compute(&in, &f->q, &r), ERR_OK);
    assert_int_equal(r->n_reclaims, 3);
    const int32_t want_pool[3] = {2, 1, 3};
    const int64_t want_gone[3] = {T0 + 100, T0 + 500, T0 + 500};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(r->reclaims[i].pool, want_pool[i]);
        assert_int_equal(r->reclaims[i].gone_at, want_gone[i]);
    }
    cost_result_free(r);
}

/* A node without GPUs shares by CPU (docs/cost-model.md "Share"): 8000 m allocatable,
 * one attempt asking 2000 m and no GPU for the whole window [T0, T0 + 1000) at
 * 1 µ$/s: total 1000 µ$, allocated 1000 x 2000 / 8000 = 250, idle 750. */
static void test_cpu_only_node(void **state) {
    struct fx *f = *state;
    f->node.gpu_allocatable = 0;
    struct cost_attempt *a =
        attempt(f, task(f, "J", COST_TASK_SUCCEEDED, 1000), 0, 1000, COST_PHASE_SUCCEEDED);
    a->gpu_request = 0;
    a->cpu_request_milli = 2000;
    run(f);
    assert_int_equal(f->r->nodes[0].total, 1000);
    assert_int_equal(f->r->nodes[0].allocated, 250);
    assert_int_equal(f->r->nodes[0].idle, 750);
}

/* A reclaim's first signal is one at most COST_RECLAIM_LOOKBACK (3600 s) before the
 * pool was gone, and not after it: gone T0 + 4000, a signal at T0 + 400 (= gone -
 * 3600) counts; at T0 + 399 (3601 s before) or T0 + 4001 (after) it does not (0:
 * unknown). Window [T0, T0 + 5000). */
static void test_reclaim_signal_lookback(void **state) {
    struct fx *f = *state;
    f->q.to = f->q.now = T0 + 5000;
    struct cost_pool pools[2] = {f->pool,
                                 {.id = "pool-spot",
                                  .size = "gpu-x-spot",
                                  .capacity = COST_CAP_SPOT,
                                  .price_hourly = 1800,
                                  .deleted_at = T0 + 4000}};
    struct cost_input in = {pools, 2, &f->node, 1, NULL, 0, NULL, 0, NULL, 0};
    const int64_t signal[3] = {T0 + 400, T0 + 399, T0 + 4001};
    const int64_t want[3] = {T0 + 400, 0, 0};
    for (int i = 0; i < 3; i++) {
        pools[1].signal_at = signal[i];
        struct cost_result *r = NULL;
        assert_int_equal(cost_compute(&in, &f->q, &r), ERR_OK);
        assert_int_equal(r->n_reclaims, 1);
        assert_int_equal(r->reclaims[0].gone_at, T0 + 4000);
        assert_int_equal(r->reclaims[0].first_signal_at, want[i]);
        cost_result_free(r);
    }
}

/* Young/Daly interval on a perfect square: a spot pool gpu-x-spot living T0..T0 + 7200
 * and reclaimed (exposure 7200 s, 1 reclaim: M = 7200 s); two attempts on its node
 * reported checkpoint_seconds 20 and 30 (δ = 25): interval = isqrt(2 x 25 x 7200) =
 * isqrt(360000) = 600 exactly. Window [T0, T0 + 10000). */
static void test_checkpoint_interval_square(void **state) {
    struct fx *f = *state;
    f->q.to = f->q.now = T0 + 10000;
    struct cost_pool pools[2] = {f->pool,
                                 {.id = "pool-spot",
                                  .size = "gpu-x-spot",
                                  .capacity = COST_CAP_SPOT,
                                  .price_hourly = 1800,
                                  .deleted_at = T0 + 7200}};
    struct cost_node nodes[2] = {f->node, f->node};
    nodes[1].name = "S";
    nodes[1].pool = 1;
    nodes[1].price_hourly = 1800;
    nodes[1].k8s_deleted_at = T0 + 7200;
    struct cost_attempt *a1 =
        attempt(f, task(f, "J1", COST_TASK_SUCCEEDED, 1000), 0, 1000, COST_PHASE_SUCCEEDED);
    struct cost_attempt *a2 =
        attempt(f, task(f, "J2", COST_TASK_SUCCEEDED, 3000), 1000, 3000, COST_PHASE_SUCCEEDED);
    a1->node = a2->node = 1;
    a1->checkpoint_seconds = 20;
    a2->checkpoint_seconds = 30;
    f->tasks[0].config = f->tasks[1].config = COST_SPOT;
    struct cost_input in = {pools, 2, nodes, 2, f->tasks, f->nt, f->att, f->na, NULL, 0};
    assert_int_equal(cost_compute(&in, &f->q, &f->r), ERR_OK);
    assert_int_equal(f->r->n_advice, 1);
    const struct cost_advice *ad = &f->r->advice[0];
    assert_string_equal(ad->size, "gpu-x-spot");
    assert_int_equal(ad->reclaims, 1);
    assert_int_equal(ad->mtbr_seconds, 7200);
    assert_int_equal(ad->mean_checkpoint_seconds, 25);
    assert_int_equal(ad->interval_seconds, 600);
}

/* A spot pool DigitalOcean still lists is reclaimed when its nodes all went within
 * COST_RECLAIM_SPREAD (600 s) and a pod held one when it went: node S of pool
 * gpu-x-spot deleted at T0 + 600 under a running pod -> one reclaim, gone at T0 + 600. */
static void test_reclaim_by_interruption(void **state) {
    struct fx *f = *state;
    struct cost_pool pools[2] = {
        f->pool,
        {.id = "pool-spot", .size = "gpu-x-spot", .capacity = COST_CAP_SPOT, .price_hourly = 1800}};
    struct cost_node nodes[2] = {f->node, f->node};
    nodes[1].name = "S";
    nodes[1].pool = 1;
    nodes[1].price_hourly = 1800;
    nodes[1].k8s_deleted_at = T0 + 600;
    struct cost_attempt *a =
        attempt(f, task(f, "J", COST_TASK_RUNNING, 0), 0, 0, COST_PHASE_RUNNING);
    a->node = 1;
    f->tasks[0].config = COST_SPOT;
    struct cost_input in = {pools, 2, nodes, 2, f->tasks, f->nt, f->att, f->na, NULL, 0};
    assert_int_equal(cost_compute(&in, &f->q, &f->r), ERR_OK);
    assert_int_equal(f->r->n_reclaims, 1);
    assert_int_equal(f->r->reclaims[0].pool, 1);
    assert_int_equal(f->r->reclaims[0].gone_at, T0 + 600);
}

/* A spot pool's On-Demand rate is its twin's, the listed pool whose size is its own
 * without "-spot" (docs/cost-model.md "Matching size"): spot pool gpu-x-spot at
 * 1800 µ$/h, on-demand pool gpu-x at 3600 µ$/h (no node, no fallback task). A spot
 * task's 1000 s on the spot node cost 1000 x 0.5 = 500 µ$ useful, 1000 at the
 * On-Demand rate (500 x 3600 / 1800). */
static void test_spot_twin_rate(void **state) {
    struct fx *f = *state;
    struct cost_pool pools[2] = {
        f->pool,
        {.id = "pool-spot", .size = "gpu-x-spot", .capacity = COST_CAP_SPOT, .price_hourly = 1800}};
    struct cost_node node = f->node;
    node.name = "S";
    node.pool = 1;
    node.price_hourly = 1800;
    attempt(f, task(f, "J", COST_TASK_SUCCEEDED, 1000), 0, 1000, COST_PHASE_SUCCEEDED);
    f->tasks[0].config = COST_SPOT;
    struct cost_input in = {pools, 2, &node, 1, f->tasks, f->nt, f->att, f->na, NULL, 0};
    assert_int_equal(cost_compute(&in, &f->q, &f->r), ERR_OK);
    assert_int_equal(f->r->configs[COST_SPOT].useful_cost, 500);
    assert_int_equal(f->r->configs[COST_SPOT].useful_at_on_demand, 1000);
}

/* A node of no known pool has no On-Demand rate: its task's useful cost (1000 s at
 * 1 µ$/s = 1000 µ$) is not re-priced (useful_at_on_demand 0). The pool array holds an
 * on-demand pool past its count that must not be read as the unknown pool. */
static void test_unknown_pool_not_repriced(void **state) {
    struct fx *f = *state;
    struct cost_pool pools[2] = {f->pool, f->pool};
    pools[1].id = "past-the-count";
    f->node.pool = -1;
    attempt(f, task(f, "J", COST_TASK_SUCCEEDED, 1000), 0, 1000, COST_PHASE_SUCCEEDED);
    struct cost_input in = {pools, 1, &f->node, 1, f->tasks, f->nt, f->att, f->na, NULL, 0};
    assert_int_equal(cost_compute(&in, &f->q, &f->r), ERR_OK);
    assert_int_equal(f->r->configs[COST_FALLBACK].useful_cost, 1000);
    assert_int_equal(f->r->configs[COST_FALLBACK].useful_at_on_demand, 0);
}

/* A reclaim's replacement is a node of a listed non-spot pool: spot pool gone at
 * T0 + 500, a 1-GPU node of no known pool Ready at T0 + 600 is none (fallback_ready_at
 * 0: unknown), even with an on-demand pool past the array's count. */
static void test_replacement_needs_a_pool(void **state) {
    struct fx *f = *state;
    struct cost_pool pools[3] = {f->pool,
                                 {.id = "pool-spot",
                                  .size = "gpu-x-spot",
                                  .capacity = COST_CAP_SPOT,
                                  .price_hourly = 1800,
                                  .deleted_at = T0 + 500},
                                 f->pool};
    f->node.pool = -1;
    f->node.created_at = f->node.ready_at = T0 + 600;
    struct cost_input in = {pools, 2, &f->node, 1, NULL, 0, NULL, 0, NULL, 0};
    assert_int_equal(cost_compute(&in, &f->q, &f->r), ERR_OK);
    assert_int_equal(f->r->n_reclaims, 1);
    assert_int_equal(f->r->reclaims[0].fallback_ready_at, 0);
}

/* A list price without a GPU count cannot be split per GPU: the winner it would price
 * stays unpriced. Spot pool gpu-x-spot, its twin size gpu-x listed at 3600000 µ$/h
 * with gpus 0; a spot task succeeds on the spot node (window [T0, T0 + 2000)): 0 tasks
 * priced; with gpus 1 the same row prices it (1). */
static void test_price_without_gpus_unpriced(void **state) {
    struct fx *f = *state;
    struct cost_pool pools[2] = {
        f->pool,
        {.id = "pool-spot", .size = "gpu-x-spot", .capacity = COST_CAP_SPOT, .price_hourly = 1800}};
    struct cost_node node = f->node;
    node.name = "S";
    node.pool = 1;
    node.price_hourly = 1800;
    attempt(f, task(f, "J", COST_TASK_SUCCEEDED, 1000), 0, 1000, COST_PHASE_SUCCEEDED);
    f->tasks[0].config = COST_SPOT;
    struct cost_price price = {.size = "gpu-x", .at = T0 - 100, .price_hourly = 3600000, .gpus = 0};
    struct cost_input in = {pools, 2, &node, 1, f->tasks, f->nt, f->att, f->na, &price, 1};
    f->q.to = f->q.now = T0 + 2000; /* the completion at T0 + 1000 inside the window */
    assert_int_equal(cost_compute(&in, &f->q, &f->r), ERR_OK);
    assert_int_equal(f->r->configs[COST_SPOT].tasks_succeeded, 1);
    assert_int_equal(f->r->counterfactual.tasks_priced, 0);
    cost_result_free(f->r);
    f->r = NULL;
    price.gpus = 1; /* the control: with its GPU count the same row prices the task */
    assert_int_equal(cost_compute(&in, &f->q, &f->r), ERR_OK);
    assert_int_equal(f->r->counterfactual.tasks_priced, 1);
    assert_int_equal(f->r->counterfactual.tasks, 1);
    cost_result_free(f->r);
    f->r = NULL;
    price.price_hourly = 0; /* a $0 list price is no price: unpriced, never priced at $0 */
    assert_int_equal(cost_compute(&in, &f->q, &f->r), ERR_OK);
    assert_int_equal(f->r->counterfactual.tasks_priced, 0);
    price.price_hourly = 3600000;
    cost_result_free(f->r);
    f->r = NULL;
    /* window [T0, T0 + 1000): the completion at T0 + 1000 is outside, no winner counted */
    f->q.to = f->q.now = T0 + 1000;
    assert_int_equal(cost_compute(&in, &f->q, &f->r), ERR_OK);
    assert_int_equal(f->r->counterfactual.tasks, 0);
}

/* Back to back is no duplicate: a one-completion task whose first attempt failed at
 * T0 + 500 and whose second started at T0 + 500 ran one attempt at a time: 0
 * duplicates, 0 duplicate seconds. */
static void test_back_to_back_not_duplicate(void **state) {
    struct fx *f = *state;
    int32_t t = task(f, "J", COST_TASK_SUCCEEDED, 900);
    attempt(f, t, 0, 500, COST_PHASE_FAILED);
    attempt(f, t, 500, 900, COST_PHASE_SUCCEEDED);
    const struct cost_config_result *c = run(f);
    assert_int_equal(c->tasks_succeeded, 1);
    assert_int_equal(c->duplicates, 0);
    assert_int_equal(c->duplicate_seconds, 0);
}

/* A running task counts as running in a window only when one of its attempts held a
 * node there: a running task whose only attempt ran T0 + 0 .. T0 + 500 is not running
 * in [T0 + 600, T0 + 1000); in [T0, T0 + 1000) it is (1). */
static void test_running_needs_a_held_attempt(void **state) {
    struct fx *f = *state;
    attempt(f, task(f, "J", COST_TASK_RUNNING, 0), 0, 500, COST_PHASE_FAILED);
    const struct cost_config_result *c = run(f);
    assert_int_equal(c->tasks_running, 1);
    f->q.from = T0 + 600;
    c = run(f);
    assert_int_equal(c->tasks_running, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_interrupted_by_reason, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disrupted_but_running, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ended_unknown_phase_disrupted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_per_task_rounds_half_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allocated_rounds_half_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unseen_end_clipped_at_completion, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_node_rate_in_force_at_creation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reclaim_window_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reclaims_in_time_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cpu_only_node, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reclaim_signal_lookback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_checkpoint_interval_square, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reclaim_by_interruption, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spot_twin_rate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_pool_not_repriced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replacement_needs_a_pool, setup, teardown),
        cmocka_unit_test_setup_teardown(test_price_without_gpus_unpriced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_back_to_back_not_duplicate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_running_needs_a_held_attempt, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
