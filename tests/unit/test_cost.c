/* test_cost — the cost model against hand-computed cases.
 *
 * Every case states its arithmetic next to the numbers. Times are offsets from
 * T0 = 2026-03-02T00:00:00Z (a Monday, after per-second billing began); money is
 * µ$. Rates: $1.80/h = 1800000 µ$/h = 500 µ$/s; $3.60/h = 1000 µ$/s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/cost.h"
#include "engine/reconcile.h"
#include "model/billing.h"
#include "base/timeutil.h"

#define T0 INT64_C(1772409600) /* 2026-03-02T00:00:00Z */
#define H 3600
#define DAY 86400

/* A small growable fixture: tests append rows, then compute. */
#define MAXN 64
struct fx {
    struct cost_pool pools[MAXN];
    struct cost_node nodes[MAXN];
    struct cost_task tasks[MAXN];
    struct cost_attempt attempts[MAXN];
    struct cost_price prices[MAXN];
    size_t np, nn, nt, na, nprices;
    bool own_prices; /* prices set by the case (else auto_prices) */
    struct cost_query q;
    struct cost_result *r;
};

static int fx_setup(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->q.from = T0;
    f->q.to = T0 + DAY;
    f->q.now = T0 + DAY;
    *state = f;
    return 0;
}

static int fx_teardown(void **state) {
    struct fx *f = *state;
    cost_result_free(f->r);
    free(f);
    return 0;
}

static int32_t add_pool(struct fx *f, const char *id, const char *size, enum cost_capacity cap,
                        int64_t price) {
    f->pools[f->np] = (struct cost_pool){
        .id = id, .name = id, .size = size, .capacity = cap, .price_hourly = price};
    return (int32_t)f->np++;
}

/* A node Ready at `ready` (offset), deleted at `del` (offset, -1 alive). */
static int32_t add_node(struct fx *f, const char *name, int32_t pool, int64_t price, int64_t ready,
                        int64_t del, int64_t gpu, int64_t cpu) {
    f->nodes[f->nn] = (struct cost_node){.name = name,
                                         .pool = pool,
                                         .price_hourly = price,
                                         .created_at = T0 + ready - 30,
                                         .ready_at = T0 + ready,
                                         .k8s_deleted_at = del >= 0 ? T0 + del : 0,
                                         .gpu_allocatable = gpu,
                                         .cpu_allocatable_milli = cpu};
    return (int32_t)f->nn++;
}

static int32_t add_task(struct fx *f, const char *uid, enum cost_config c, enum cost_outcome o,
                        int64_t completed) {
    f->tasks[f->nt] = (struct cost_task){.uid = uid,
                                         .ns = "batch",
                                         .config = c,
                                         .outcome = o,
                                         .completed_at = completed >= 0 ? T0 + completed : 0};
    return (int32_t)f->nt++;
}

/* An attempt scheduled at `sched`, container start `start`, ended at `fin`
 * (-1 unknown) with phase ph. GPU request 1. */
static struct cost_attempt *add_attempt(struct fx *f, int32_t task, int32_t node, int64_t sched,
                                        int64_t start, int64_t fin, enum cost_phase ph) {
    struct cost_attempt *a = &f->attempts[f->na++];
    *a = (struct cost_attempt){.uid = "a",
                               .task = task,
                               .node = node,
                               .gpu_request = 1,
                               .cpu_request_milli = 1000,
                               .created_at = T0 + sched - 1,
                               .scheduled_at = T0 + sched,
                               .started_at = start >= 0 ? T0 + start : 0,
                               .finished_at = fin >= 0 ? T0 + fin : 0,
                               .phase = ph,
                               .work_seconds = -1,
                               .restore_seconds = -1,
                               .checkpoint_seconds = -1};
    return a;
}

/* The size list every case prices its counterfactual from, unless it sets
 * its own: each pool's size at its price since forever, with the GPU count of
 * its first node (the sizes spotledger would have read from /v2/sizes). */
static void auto_prices(struct fx *f) {
    f->nprices = 0;
    for (size_t p = 0; p < f->np; p++) {
        int64_t gpus = 0;
        for (size_t n = 0; n < f->nn && !gpus; n++)
            if (f->nodes[n].pool == (int32_t)p)
                gpus = f->nodes[n].gpu_allocatable;
        f->prices[f->nprices++] = (struct cost_price){.size = f->pools[p].size,
                                                      .at = 0,
                                                      .price_hourly = f->pools[p].price_hourly,
                                                      .gpus = gpus};
    }
}

static enum err run(struct fx *f) {
    if (!f->own_prices)
        auto_prices(f);
    struct cost_input in = {f->pools, f->np,       f->nodes, f->nn,     f->tasks,
                            f->nt,    f->attempts, f->na,    f->prices, f->nprices};
    cost_result_free(f->r);
    f->r = NULL;
    return cost_compute(&in, &f->q, &f->r);
}

/* Σ configuration costs + excluded + unattributed == Σ node totals; per node
 * allocated + idle == total. Checked after every computation below. */
static void check_invariants(const struct cost_result *r) {
    int64_t sum = r->excluded_cost + r->unattributed_idle, nodes = 0;
    for (int c = 0; c < COST_NCONFIG; c++) {
        const struct cost_config_result *cr = &r->configs[c];
        sum += cr->cost;
        assert_int_equal(cr->cost, cr->useful_cost + cr->restore_cost + cr->wasted_cost +
                                       cr->running_cost + cr->idle_cost);
    }
    for (size_t i = 0; i < r->n_nodes; i++) {
        assert_int_equal(r->nodes[i].allocated + r->nodes[i].idle, r->nodes[i].total);
        assert_true(r->nodes[i].idle >= 0);
        nodes += r->nodes[i].total;
    }
    assert_int_equal(nodes, r->nodes_total);
    assert_int_equal(sum, r->nodes_total);
    assert_int_equal(r->allocated_total + r->idle_total, r->nodes_total);
}

/* ---- the worked example ------------------------------------------------------- */

static void worked_example(struct fx *f) {
    int32_t sp = add_pool(f, "pool-spot", "gpu-x-spot", COST_CAP_SPOT, 1800000);
    int32_t fp = add_pool(f, "pool-fb", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    f->pools[sp].deleted_at = T0 + 7230; /* the poll after the reclaim */
    int32_t s = add_node(f, "S", sp, 1800000, 0, 7200, 1, 8000);
    int32_t n = add_node(f, "F", fp, 3600000, 0, 10800, 1, 8000);
    int32_t j1 = add_task(f, "J1", COST_FALLBACK, COST_TASK_SUCCEEDED, 3660);
    int32_t j2 = add_task(f, "J2", COST_FALLBACK, COST_TASK_SUCCEEDED, 9000);
    int32_t j3 = add_task(f, "J3", COST_FALLBACK, COST_TASK_SUCCEEDED, 3660);
    add_attempt(f, j1, s, 0, 60, 3660, COST_PHASE_SUCCEEDED);
    struct cost_attempt *a = add_attempt(f, j2, s, 3700, 3760, -1, COST_PHASE_FAILED);
    a->deleted_at = T0 + 7200; /* gone with its node */
    a = add_attempt(f, j2, n, 7260, 7320, 9000, COST_PHASE_SUCCEEDED);
    a->restore_seconds = 120;
    add_attempt(f, j3, n, 60, 60, 3660, COST_PHASE_SUCCEEDED);
}

/* Per-attempt detail on the worked example: the allocated cost of each row of
 * the worked example's table, outcomes, lost_at and J2's restore time on its retry. */
static void test_attempt_detail(void **state) {
    struct fx *f = *state;
    worked_example(f);
    f->q.want_attempts = true;
    assert_int_equal(run(f), ERR_OK);
    const struct cost_attempt_result *ar = f->r->attempts;
    assert_non_null(ar);
    /* J1 on S 0 -> 3660: 3660 x 500 = 1.830 */
    assert_int_equal(ar[0].allocated, 1830000);
    assert_int_equal(ar[0].outcome, COST_ATTEMPT_SUCCEEDED);
    assert_int_equal(ar[0].restore_seconds, COST_NULL);
    /* J2 #1 on S 3700 -> 7200 (node deleted): 3500 x 500 = 1.750, lost at 7200 */
    assert_int_equal(ar[1].allocated, 1750000);
    assert_int_equal(ar[1].outcome, COST_ATTEMPT_INTERRUPTED);
    assert_int_equal(ar[1].start, T0 + 3700);
    assert_int_equal(ar[1].end, T0 + 7200);
    assert_int_equal(ar[1].lost_at, T0 + 7200);
    /* J2 #2 on F 7260 -> 9000: 1740 x 1000 = 1.740; restore (7320 - 7200) + 120 */
    assert_int_equal(ar[2].allocated, 1740000);
    assert_int_equal(ar[2].outcome, COST_ATTEMPT_SUCCEEDED);
    assert_int_equal(ar[2].restore_seconds, 240);
    assert_int_equal(ar[2].lost_at, 0);
    /* J3 on F 60 -> 3660: 3.600 */
    assert_int_equal(ar[3].allocated, 3600000);
    /* without the flag there is no detail */
    f->q.want_attempts = false;
    assert_int_equal(run(f), ERR_OK);
    assert_null(f->r->attempts);
}

static void test_worked_example(void **state) {
    struct fx *f = *state;
    worked_example(f);
    assert_int_equal(run(f), ERR_OK);
    const struct cost_result *r = f->r;
    check_invariants(r);
    /* S 7200 s x 500 = 3.600; F 10800 s x 1000 = 10.800 */
    assert_int_equal(r->nodes[0].seconds, 7200);
    assert_int_equal(r->nodes[0].total, 3600000);
    assert_int_equal(r->nodes[1].total, 10800000);
    assert_int_equal(r->nodes_total, 14400000);
    /* allocated 1.830 + 1.750 + 1.740 + 3.600 = 8.920; idle S 40 s = 0.020, F 5460 s */
    assert_int_equal(r->allocated_total, 8920000);
    assert_int_equal(r->idle_total, 5480000);
    assert_int_equal(r->nodes[0].allocated, 3580000);
    assert_int_equal(r->nodes[0].idle, 20000);
    assert_int_equal(r->nodes[1].idle, 5460000);
    assert_int_equal(r->unattributed_idle, 0);
    const struct cost_config_result *fb = &r->configs[COST_FALLBACK];
    assert_int_equal(fb->cost, 14400000);
    assert_int_equal(fb->idle_cost, 5480000);
    assert_int_equal(fb->tasks_succeeded, 3);
    assert_int_equal(fb->cost_per_successful_task, 4800000); /* 14.400 / 3 */
    assert_int_equal(fb->attempts, 4);
    assert_int_equal(fb->retries, 1);
    assert_int_equal(fb->interruptions, 1);
    assert_int_equal(fb->duplicates, 0);
    assert_int_equal(fb->wasted_cost, 1750000); /* 3500 x 500 */
    /* J2's restore: (7320 - 7200) + 120 reported = 240 s; nearest rank of one sample */
    assert_int_equal(fb->restore.samples, 1);
    assert_int_equal(fb->restore.total, 240);
    assert_int_equal(fb->restore.p50, 240);
    assert_int_equal(fb->restore.p95, 240);
    /* restore cost = J2's first 120 s after its start on F = 0.120; useful = the
     * rest of the successful attempts: 1.830 + 1.620 + 3.600 = 7.050 */
    assert_int_equal(fb->restore_cost, 120000);
    assert_int_equal(fb->useful_cost, 7050000);
    assert_int_equal(fb->running_cost, 0);
    /* counterfactual: (3600 + 1680 + 3600) s x 1000 = 8.880 / 3 = 2.960 */
    assert_int_equal(r->counterfactual.tasks, 3);
    assert_int_equal(r->counterfactual.tasks_priced, 3);
    assert_int_equal(r->counterfactual.tasks_run_time, 3);
    assert_int_equal(r->counterfactual.work_seconds, 8880);
    assert_int_equal(r->counterfactual.cost, 8880000);
    assert_int_equal(r->counterfactual.cost_per_successful_task, 2960000);
    /* savings = (2.960 - 4.800) / 2.960 = -62.16 % */
    assert_int_equal(fb->savings_vs_on_demand_bp, -6216);
    /* useful at On-Demand rates: S part 1.830 x 3.6/1.8 = 3.660, F part 5.220:
     * 8.880; break-even = (8.880 - 7.050) / 7.050 = 25.96 %;
     * overhead = (1.750 + 0.120 + 5.480) / 7.050 = 104.26 % */
    assert_int_equal(fb->useful_at_on_demand, 8880000);
    assert_int_equal(fb->break_even_overhead_bp, 2596);
    assert_int_equal(fb->measured_overhead_bp, 10426);
    /* node-seconds by pool: S 3660 + 3500 = 7160, F 1740 + 3600 = 5340 */
    assert_int_equal(fb->pool_seconds[0], 7160);
    assert_int_equal(fb->pool_seconds[1], 5340);
    /* the other configurations are empty */
    assert_int_equal(r->configs[COST_SPOT].cost, 0);
    assert_int_equal(r->configs[COST_SPOT].cost_per_successful_task, COST_NULL);
    /* the reclaim: gone at 7200 (last node, before the poll at 7230), no signal,
     * J2 running again at 7320 */
    assert_int_equal(r->n_reclaims, 1);
    const struct cost_reclaim *rc = &r->reclaims[0];
    assert_string_equal(rc->pool_id, "pool-spot");
    assert_int_equal(rc->gone_at, T0 + 7200);
    assert_int_equal(rc->first_signal_at, 0);
    assert_int_equal(rc->signal_to_gone_seconds, COST_NULL);
    assert_int_equal(rc->nodes, 1);
    assert_int_equal(rc->tasks_interrupted, 1);
    assert_int_equal(rc->tasks_resumed, 1);
    assert_int_equal(rc->first_resumed_at, T0 + 7320);
    assert_int_equal(rc->return_to_useful_work_seconds, 120);
    assert_int_equal(rc->fallback_ready_at, 0); /* F was Ready before */
    assert_int_equal(rc->replacement_delay_seconds, COST_NULL);
    /* pools */
    assert_int_equal(r->pools[0].od_price_hourly, 3600000);
    assert_int_equal(r->pools[0].idle, 20000);
    assert_int_equal(r->pools[1].total, 10800000);
}

/* With a signal and a fresh fallback node: the timeline durations. */
static void test_reclaim_timeline(void **state) {
    struct fx *f = *state;
    worked_example(f);
    f->attempts[1].disruption_at = T0 + 7100; /* DisruptionTarget 100 s before */
    f->nodes[0].cordoned_at = T0 + 7150;
    /* an on-demand node Ready at 7250, after the signal */
    add_node(f, "F2", 1, 3600000, 7250, 9000, 1, 8000);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_reclaim *rc = &f->r->reclaims[0];
    assert_int_equal(rc->first_signal_at, T0 + 7100);
    assert_int_equal(rc->signal_to_gone_seconds, 100);
    assert_int_equal(rc->fallback_ready_at, T0 + 7250);
    assert_int_equal(rc->replacement_delay_seconds, 150);
    assert_int_equal(rc->return_to_useful_work_seconds, 220); /* 7320 - 7100 */
    /* lost at the DisruptionTarget: restore = 7320 - 7100 + 120 = 340 */
    assert_int_equal(f->r->configs[COST_FALLBACK].restore.total, 340);
}

/* ---- more hand-computed cases ---------------------------------------------------- */

/* An Indexed Job with two indexes is two tasks ("job/0", "job/1") on one node
 * with 2 GPUs: each pod holds 1/2 of the node. Node $3.60/h, 3600 s = 3.600;
 * each attempt 3600 s x 1/2 x 1000 = 1.800; idle 0; per task 3.600 / 2 = 1.800. */
static void test_indexed_job_shared_gpu(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "od", "gpu-x2", COST_CAP_ON_DEMAND, 3600000);
    int32_t n = add_node(f, "n", p, 0 /* pool price */, 0, 3600, 2, 16000);
    int32_t t0 = add_task(f, "job/0", COST_ON_DEMAND, COST_TASK_SUCCEEDED, 3600);
    int32_t t1 = add_task(f, "job/1", COST_ON_DEMAND, COST_TASK_SUCCEEDED, 3600);
    add_attempt(f, t0, n, 0, 0, 3600, COST_PHASE_SUCCEEDED);
    add_attempt(f, t1, n, 0, 0, 3600, COST_PHASE_SUCCEEDED);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_config_result *od = &f->r->configs[COST_ON_DEMAND];
    assert_int_equal(f->r->nodes[0].total, 3600000);
    assert_int_equal(f->r->nodes[0].idle, 0);
    assert_int_equal(od->tasks_succeeded, 2);
    assert_int_equal(od->attempts, 2);
    assert_int_equal(od->retries, 0);
    assert_int_equal(od->useful_cost, 3600000);
    assert_int_equal(od->cost_per_successful_task, 1800000);
    /* 2 x 3600 s x 1/2 = 3600 node-seconds */
    assert_int_equal(od->pool_seconds[0], 3600);
    /* On-Demand measured: break-even 0, no counterfactual */
    assert_int_equal(od->break_even_overhead_bp, 0);
    assert_int_equal(od->savings_vs_on_demand_bp, COST_NULL);
    assert_int_equal(f->r->counterfactual.tasks, 0);
    assert_int_equal(f->r->counterfactual.cost_per_successful_task, COST_NULL);
}

/* Two attempts of one task at the same instant: attempt 1 on a partitioned
 * node A (NotReady at 1000, deleted at 2000) still holds it while attempt 2 runs
 * on B from 1200. Retries 1, duplicates 1, interruptions 1.
 * A: 2000 s x 500 = 1.000, all allocated to attempt 1 (wasted);
 * B: alive 0-4000 = 2.000, attempt 2 1200-4000 = 2800 x 500 = 1.400 (useful),
 * idle 0.600. Cost 1.000 + 2.000 = 3.000.
 * lost at = NotReady 1000; restore = 1300 - 1000 = 300 s. */
static void test_duplicates(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "sp", "gpu-x-spot", COST_CAP_SPOT, 1800000);
    int32_t a = add_node(f, "A", p, 0, 0, 2000, 1, 8000);
    int32_t b = add_node(f, "B", p, 0, 0, 4000, 1, 8000);
    f->nodes[a].not_ready_at = T0 + 1000;
    int32_t t = add_task(f, "t", COST_SPOT, COST_TASK_SUCCEEDED, 4000);
    add_attempt(f, t, a, 0, 10, -1, COST_PHASE_RUNNING);
    add_attempt(f, t, b, 1200, 1300, 4000, COST_PHASE_SUCCEEDED);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_config_result *s = &f->r->configs[COST_SPOT];
    assert_int_equal(s->retries, 1);
    assert_int_equal(s->duplicates, 1);
    assert_int_equal(s->interruptions, 1);
    assert_int_equal(s->wasted_cost, 1000000);
    assert_int_equal(s->useful_cost, 1400000);
    assert_int_equal(s->idle_cost, 600000);
    assert_int_equal(s->cost, 3000000);
    assert_int_equal(s->restore.total, 300);
    /* the pool still lives (no deleted_at, B alive until 4000 means all nodes
     * ended 2000 apart: not within 10 minutes) -> no reclaim */
    assert_int_equal(f->r->n_reclaims, 0);
}

/* An attempt spanning the window edge at T0 + 1 day: 1800 s on each side.
 * Node alive T0+84600 .. T0+88200 ($3.60/h). Window 1 [T0, T0+1d) gets 1800 s =
 * 1.800 of allocated, no success; window 2 [T0+1d, T0+2d) gets the other 1.800 and
 * the success (completed at T0+88200), cost per task 1.800. Sum = the node. */
static void test_window_edge(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    int32_t n = add_node(f, "n", p, 0, DAY - 1800, DAY + 1800, 1, 8000);
    int32_t t = add_task(f, "t", COST_ON_DEMAND, COST_TASK_SUCCEEDED, DAY + 1800);
    add_attempt(f, t, n, DAY - 1800, DAY - 1800, DAY + 1800, COST_PHASE_SUCCEEDED);
    f->q.now = T0 + 3 * DAY;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_config_result *od = &f->r->configs[COST_ON_DEMAND];
    assert_int_equal(od->cost, 1800000);
    assert_int_equal(od->useful_cost, 1800000); /* succeeded by now: useful */
    assert_int_equal(od->tasks_succeeded, 0);
    assert_int_equal(od->attempts, 1); /* started in window 1 */
    assert_int_equal(od->cost_per_successful_task, COST_NULL);
    f->q.from = T0 + DAY;
    f->q.to = T0 + 2 * DAY;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    od = &f->r->configs[COST_ON_DEMAND];
    assert_int_equal(od->cost, 1800000);
    assert_int_equal(od->tasks_succeeded, 1);
    assert_int_equal(od->attempts, 0);
    assert_int_equal(od->cost_per_successful_task, 1800000);
}

/* A node that lived 30 s is billed 60 s: 60 x 1000 = 0.060, split by windows:
 * [T0, T0+45) gets 45 s = 0.045 and [T0+45, ...) the other 15 s = 0.015. */
static void test_minimum_60s(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    add_node(f, "n", p, 0, 0, 30, 1, 8000);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->nodes[0].seconds, 60);
    assert_int_equal(f->r->nodes[0].total, 60000);
    /* no attempt used the pool: all idle, unattributed */
    assert_int_equal(f->r->unattributed_idle, 60000);
    f->q.to = T0 + 45;
    assert_int_equal(run(f), ERR_OK);
    assert_int_equal(f->r->nodes[0].total, 45000);
    f->q.from = T0 + 45;
    f->q.to = T0 + DAY;
    assert_int_equal(run(f), ERR_OK);
    assert_int_equal(f->r->nodes[0].total, 15000);
    /* a node alive for 20 s so far owes its minimum already */
    f->nodes[0].k8s_deleted_at = 0;
    f->q.from = T0;
    f->q.now = T0 + 20;
    assert_int_equal(run(f), ERR_OK);
    assert_int_equal(f->r->nodes[0].seconds, 60);
    assert_int_equal(cost_node_billable(&f->nodes[0], T0 + 20, T0, T0 + DAY), 60);
}

/* The 672-hour monthly cap. A node Ready 2026-01-01T00:00Z and still alive on
 * 2026-02-10T00:00Z at $0.036/h (10 µ$/s):
 *  - January (744 h): first 672 h billed = [Jan 1, Jan 29) -> 672 h = 24.192;
 *  - window [Jan 28, Feb 5): Jan 28 (24 h) + Feb 1..5 (96 h) = 120 h = 4.320;
 *  - whole life to Feb 10: 672 + 216 h (Feb 1..10 = 9 days) = 888 h. */
static void test_monthly_cap(void **state) {
    struct fx *f = *state;
    int64_t jan1 = timeutil_days_from_civil(2026, 1, 1) * DAY;
    int64_t feb1 = timeutil_days_from_civil(2026, 2, 1) * DAY;
    int32_t p = add_pool(f, "cpu", "s-4vcpu", COST_CAP_ON_DEMAND, 36000);
    add_node(f, "n", p, 0, 0, -1, 0, 4000);
    f->nodes[0].ready_at = jan1;
    f->nodes[0].created_at = jan1;
    f->q.now = feb1 + 9 * DAY;
    f->q.from = jan1;
    f->q.to = feb1;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->nodes[0].seconds, 672 * H);
    assert_int_equal(f->r->nodes[0].total, 24192000);
    f->q.from = feb1 - 4 * DAY; /* Jan 28 */
    f->q.to = feb1 + 4 * DAY;   /* Feb 5 */
    assert_int_equal(run(f), ERR_OK);
    assert_int_equal(f->r->nodes[0].seconds, 120 * H);
    assert_int_equal(f->r->nodes[0].total, 4320000);
    assert_int_equal(cost_node_billable(&f->nodes[0], f->q.now, 0, INT64_MAX), 888 * H);
}

/* A CPU-only node (no GPUs, 4000m) at $0.072/h = 20 µ$/s for 7200 s = 0.144.
 * A pod requesting 1000m holds 1/4 of it for 3600 s: 3600 x 1/4 x 20 = 0.018;
 * idle 0.126, all charged to the pod's configuration (the only user). The pod
 * fails on its own (exit before the node goes): wasted, not an interruption. */
static void test_cpu_only_node(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "cpu", "s-4vcpu", COST_CAP_ON_DEMAND, 72000);
    int32_t n = add_node(f, "n", p, 0, 0, 7200, 0, 4000);
    int32_t t = add_task(f, "t", COST_ON_DEMAND, COST_TASK_FAILED, 3600);
    struct cost_attempt *a = add_attempt(f, t, n, 0, 0, 3600, COST_PHASE_FAILED);
    a->gpu_request = 0;
    a->reason = "Error"; /* an application failure, not an interruption */
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_config_result *od = &f->r->configs[COST_ON_DEMAND];
    assert_int_equal(f->r->nodes[0].allocated, 18000);
    assert_int_equal(f->r->nodes[0].idle, 126000);
    assert_int_equal(od->wasted_cost, 18000);
    assert_int_equal(od->idle_cost, 126000);
    assert_int_equal(od->tasks_failed, 1);
    assert_int_equal(od->interruptions, 0);
    assert_int_equal(od->cost_per_successful_task, COST_NULL);
    assert_int_equal(od->measured_overhead_bp, COST_NULL);
    assert_int_equal(od->pool_seconds[0], 900); /* 3600 x 1/4 */
}

/* A pool no attempt used keeps its idle unattributed: the used pool's node
 * (3600 s x 1000 = 3.600) is the on-demand task's; the unused pool's node
 * (1800 s x 500 = 0.900) is unattributed, never dropped. */
static void test_unattributed_pool(void **state) {
    struct fx *f = *state;
    int32_t used = add_pool(f, "used", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    int32_t idle = add_pool(f, "idle", "gpu-x-spot", COST_CAP_SPOT, 1800000);
    int32_t n = add_node(f, "n", used, 0, 0, 3600, 1, 8000);
    add_node(f, "m", idle, 0, 0, 1800, 1, 8000);
    f->pools[idle].deleted_at = T0 + 1800; /* deleted, but no attempt lost: still a reclaim */
    int32_t t = add_task(f, "t", COST_ON_DEMAND, COST_TASK_SUCCEEDED, 1800);
    add_attempt(f, t, n, 0, 0, 1800, COST_PHASE_SUCCEEDED);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->unattributed_idle, 900000);
    assert_int_equal(f->r->pools[idle].unattributed_idle, 900000);
    assert_int_equal(f->r->pools[used].unattributed_idle, 0);
    assert_int_equal(f->r->configs[COST_ON_DEMAND].cost, 3600000);
    assert_int_equal(f->r->configs[COST_ON_DEMAND].idle_cost, 1800000);
    assert_int_equal(f->r->nodes_total, 4500000);
    assert_int_equal(f->r->n_reclaims, 1);
    assert_int_equal(f->r->reclaims[0].tasks_interrupted, 0);
}

/* Idle split between two configurations with a remainder. Node at $0.0036/h =
 * 1 µ$/s, alive 1000 s = 1000 µ$, below the $0.01 floor: billed 10000 µ$. A spot
 * attempt holds it 100 s (100 µ$), a fallback attempt 200 s (200 µ$); idle 9700
 * split 100:200 = 3233.33 : 6466.67 -> floors 3233 + 6466 = 9699, the last µ$ to
 * the larger remainder (fallback): spot 100 + 3233 = 3333, fallback 200 + 6467 =
 * 6667, sum 10000. */
static void test_idle_split_remainder(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600);
    int32_t n = add_node(f, "n", p, 0, 0, 1000, 1, 8000);
    int32_t ts = add_task(f, "s", COST_SPOT, COST_TASK_SUCCEEDED, 100);
    int32_t tf = add_task(f, "f", COST_FALLBACK, COST_TASK_SUCCEEDED, 400);
    add_attempt(f, ts, n, 0, 0, 100, COST_PHASE_SUCCEEDED);
    add_attempt(f, tf, n, 200, 200, 400, COST_PHASE_SUCCEEDED);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->configs[COST_SPOT].idle_cost, 3233);
    assert_int_equal(f->r->configs[COST_FALLBACK].idle_cost, 6467);
    assert_int_equal(f->r->configs[COST_SPOT].cost, 3333);
    assert_int_equal(f->r->configs[COST_FALLBACK].cost, 6667);

    int64_t w[3] = {1, 1, 1}, parts[3];
    assert_int_equal(cost_split(100, w, 3, parts), ERR_OK); /* 33.3 each: first gets 34 */
    assert_int_equal(parts[0], 34);
    assert_int_equal(parts[1], 33);
    assert_int_equal(parts[2], 33);
    int64_t w2[3] = {0, 0, 0};
    assert_int_equal(cost_split(5, w2, 3, parts), ERR_INVAL);
    assert_int_equal(cost_split(0, w2, 3, parts), ERR_OK);
    int64_t w3[2] = {-1, 2};
    assert_int_equal(cost_split(5, w3, 2, parts), ERR_INVAL);
}

/* Filters: tasks of experiments A and B share one node ($3.60/h, 0-3600 s);
 * A's attempt holds it 1000 s (1.000), B's 2000 s (2.000); idle 0.600 split
 * 1:2 = 0.200 : 0.400. Filter experiment=A: fallback = A only, 1.200; B's 2.400
 * is excluded_cost. Namespace filter selects the same way. */
static void test_filters(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    int32_t n = add_node(f, "n", p, 0, 0, 3600, 1, 8000);
    int32_t ta = add_task(f, "a", COST_FALLBACK, COST_TASK_SUCCEEDED, 1000);
    int32_t tb = add_task(f, "b", COST_FALLBACK, COST_TASK_SUCCEEDED, 3000);
    f->tasks[ta].experiment = "A";
    f->tasks[tb].experiment = "B";
    f->tasks[tb].ns = "other";
    add_attempt(f, ta, n, 0, 0, 1000, COST_PHASE_SUCCEEDED);
    add_attempt(f, tb, n, 1000, 1000, 3000, COST_PHASE_SUCCEEDED);
    f->q.experiment = "A";
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_config_result *fb = &f->r->configs[COST_FALLBACK];
    assert_int_equal(fb->cost, 1200000);
    assert_int_equal(fb->tasks_succeeded, 1);
    assert_int_equal(fb->attempts, 1);
    assert_int_equal(f->r->excluded_cost, 2400000);
    f->q.experiment = NULL;
    f->q.ns = "other";
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->configs[COST_FALLBACK].cost, 2400000);
    assert_int_equal(f->r->excluded_cost, 1200000);
    /* configuration filter: only spot selected -> fallback excluded */
    f->q.ns = NULL;
    f->q.configs = 1u << COST_SPOT;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_false(f->r->configs[COST_FALLBACK].selected);
    assert_true(f->r->configs[COST_SPOT].selected);
    assert_int_equal(f->r->configs[COST_FALLBACK].cost, 0);
    assert_int_equal(f->r->excluded_cost, 3600000);
}

/* An attempt still running at `now` is "running" cost, its task is running. */
static void test_running_attempt(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    int32_t n = add_node(f, "n", p, 0, 0, -1, 1, 8000);
    int32_t t = add_task(f, "t", COST_ON_DEMAND, COST_TASK_RUNNING, -1);
    add_attempt(f, t, n, 100, 100, -1, COST_PHASE_RUNNING);
    f->q.now = T0 + 1000;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_config_result *od = &f->r->configs[COST_ON_DEMAND];
    assert_int_equal(od->running_cost, 900000); /* 100..1000 */
    assert_int_equal(od->idle_cost, 100000);    /* 0..100 */
    assert_int_equal(od->tasks_running, 1);
    assert_int_equal(od->tasks_succeeded, 0);
    assert_int_equal(od->wasted_cost, 0);
}

static void test_empty(void **state) {
    struct fx *f = *state;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->nodes_total, 0);
    assert_int_equal(f->r->n_reclaims, 0);
    assert_int_equal(f->r->n_advice, 0);
    for (int c = 0; c < COST_NCONFIG; c++) {
        assert_int_equal(f->r->configs[c].cost, 0);
        assert_int_equal(f->r->configs[c].cost_per_successful_task, COST_NULL);
        assert_int_equal(f->r->configs[c].restore.p50, COST_NULL);
    }
    assert_int_equal(f->r->counterfactual.cost_per_successful_task, COST_NULL);
}

static void test_invalid(void **state) {
    struct fx *f = *state;
    f->q.to = f->q.from;
    assert_int_equal(run(f), ERR_INVAL);
    assert_null(f->r);
    f->q.to = f->q.from + DAY;
    int32_t p = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    int32_t n = add_node(f, "n", p, 0, 0, 100, 1, 8000);
    int32_t t = add_task(f, "t", COST_SPOT, COST_TASK_RUNNING, -1);
    struct cost_attempt *a = add_attempt(f, t, n, 0, 0, 10, COST_PHASE_RUNNING);
    a->node = 7; /* out of range */
    assert_int_equal(run(f), ERR_INVAL);
    a->node = n;
    a->task = -2;
    assert_int_equal(run(f), ERR_INVAL);
    a->task = t;
    f->nodes[n].pool = 5;
    assert_int_equal(run(f), ERR_INVAL);
}

/* Young/Daly: one spot pool of size "gpu-x-spot" living 0..7200 and reclaimed
 * (M = 7200 s exposure / 1 reclaim); attempts on it reported checkpoint_seconds
 * 30 and 50 (δ = 40): interval = isqrt(2 x 40 x 7200) = isqrt(576000) = 758. */
static void test_checkpoint_advice(void **state) {
    struct fx *f = *state;
    worked_example(f);
    f->attempts[0].checkpoint_seconds = 30;
    f->attempts[1].checkpoint_seconds = 50;
    assert_int_equal(run(f), ERR_OK);
    assert_int_equal(f->r->n_advice, 1);
    const struct cost_advice *ad = &f->r->advice[0];
    assert_string_equal(ad->size, "gpu-x-spot");
    assert_int_equal(ad->reclaims, 1);
    assert_int_equal(ad->exposure_seconds, 7200);
    assert_int_equal(ad->mtbr_seconds, 7200);
    assert_int_equal(ad->checkpoint_samples, 2);
    assert_int_equal(ad->mean_checkpoint_seconds, 40);
    assert_int_equal(ad->interval_seconds, 758);
    assert_int_equal(f->r->configs[COST_FALLBACK].advice, 0);
    assert_int_equal(f->r->configs[COST_SPOT].advice, -1);
}

/* The interrupted test and the names. */
static void test_interrupted_and_names(void **state) {
    (void)state;
    struct cost_node node = {.ready_at = 100, .k8s_deleted_at = 500, .do_deleted_at = 400};
    struct cost_attempt a = {.scheduled_at = 100, .phase = COST_PHASE_RUNNING};
    assert_int_equal(cost_node_end(&node), 400);
    assert_true(cost_attempt_interrupted(&a, &node)); /* node gone while it held it */
    a.finished_at = 300;
    a.phase = COST_PHASE_FAILED;
    assert_false(cost_attempt_interrupted(&a, &node)); /* ended before: plain failure */
    a.reason = "Evicted";
    assert_true(cost_attempt_interrupted(&a, &node));
    a.reason = NULL;
    a.disruption_at = 290;
    assert_true(cost_attempt_interrupted(&a, &node));
    a.phase = COST_PHASE_SUCCEEDED;
    assert_false(cost_attempt_interrupted(&a, &node));

    enum cost_config c;
    assert_int_equal(cost_config_parse("on-demand", &c), ERR_OK);
    assert_int_equal(c, COST_ON_DEMAND);
    assert_int_equal(cost_config_parse("ondemand", &c), ERR_INVAL);
    assert_int_equal(cost_config_parse(NULL, &c), ERR_INVAL);
    assert_string_equal(cost_config_name(COST_FALLBACK), "fallback");
    enum cost_phase ph;
    assert_int_equal(cost_phase_parse("Succeeded", &ph), ERR_OK);
    assert_int_equal(ph, COST_PHASE_SUCCEEDED);
    enum cost_outcome o;
    assert_int_equal(cost_outcome_parse("failed", &o), ERR_OK);
    assert_int_equal(o, COST_TASK_FAILED);
    enum cost_capacity cap;
    assert_int_equal(cost_capacity_parse("spot", &cap), ERR_OK);
    assert_int_equal(cap, COST_CAP_SPOT);
}

static void test_index(void **state) {
    (void)state;
    static char names[1000][24];
    struct cost_node *nodes = calloc(1000, sizeof *nodes);
    assert_non_null(nodes);
    for (int i = 0; i < 1000; i++) {
        snprintf(names[i], sizeof names[i], "node-%d", i);
        nodes[i].name = names[i];
    }
    nodes[7].name = NULL; /* skipped */
    struct cost_index *ix = NULL;
    assert_int_equal(cost_index_new(&nodes[0].name, sizeof nodes[0], 1000, &ix), ERR_OK);
    assert_int_equal(cost_index_find(ix, "node-0"), 0);
    assert_int_equal(cost_index_find(ix, "node-999"), 999);
    assert_int_equal(cost_index_find(ix, "node-7"), -1);
    assert_int_equal(cost_index_find(ix, "node-1000"), -1);
    assert_int_equal(cost_index_find(ix, NULL), -1);
    cost_index_free(ix);
    cost_index_free(NULL);
    free(nodes);
}

/* Restore percentiles are nearest-rank over the window's samples. 7 tasks are
 * each interrupted at 1000 (DisruptionTarget) and restart after gaps 700, 100,
 * 600, 300, 500, 200, 400 s: sorted 100..700; p50 = rank ceil(3.5) = 4th = 400,
 * p95 = rank ceil(6.65) = 7th = 700; total 2800. */
static void test_restore_percentiles(void **state) {
    struct fx *f = *state;
    static const char *const uids[] = {"t0", "t1", "t2", "t3", "t4", "t5", "t6"};
    static const int64_t gaps[] = {700, 100, 600, 300, 500, 200, 400};
    int32_t p = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    int32_t n = add_node(f, "n", p, 0, 0, 5000, 16, 64000);
    for (int i = 0; i < 7; i++) {
        int32_t t = add_task(f, uids[i], COST_SPOT, COST_TASK_SUCCEEDED, 3000);
        struct cost_attempt *a = add_attempt(f, t, n, 0, 0, 1000, COST_PHASE_FAILED);
        a->disruption_at = T0 + 1000;
        add_attempt(f, t, n, 1000 + gaps[i] - 10, 1000 + gaps[i], 3000, COST_PHASE_SUCCEEDED);
    }
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_restore *rs = &f->r->configs[COST_SPOT].restore;
    assert_int_equal(rs->samples, 7);
    assert_int_equal(rs->total, 2800);
    assert_int_equal(rs->p50, 400);
    assert_int_equal(rs->p95, 700);
    assert_int_equal(f->r->configs[COST_SPOT].interruptions, 7);
    assert_int_equal(f->r->configs[COST_SPOT].retries, 7);
}

/* ---- property test ------------------------------------------------------------ */

static uint64_t rng_state;
static int64_t rnd(int64_t n) { /* [0, n) */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (int64_t)(rng_state % (uint64_t)n);
}

/* Random bounded inputs (seeded): every invariant of cost.h holds for random
 * windows, including overcommitted nodes, unknown pools and filters. */
static void test_property_random(void **state) {
    struct fx *f = *state;
    static const char *const exps[] = {"A", "B", NULL};
    static const int64_t prices[] = {3600, 1800000, 3600000, 1234567, 7, 99999999};
    for (int round = 0; round < 400; round++) {
        rng_state = 0x9e3779b97f4a7c15ULL + (uint64_t)round * 7919;
        memset(f->pools, 0, sizeof f->pools);
        f->np = f->nn = f->nt = f->na = 0;
        int np = 1 + (int)rnd(4);
        for (int i = 0; i < np; i++) {
            int32_t p = add_pool(f, "p", rnd(2) ? "gpu-x-spot" : "gpu-x",
                                 rnd(2) ? COST_CAP_SPOT : COST_CAP_ON_DEMAND, prices[rnd(6)]);
            if (rnd(3) == 0)
                f->pools[p].deleted_at = T0 + rnd(3 * DAY);
        }
        int nn = (int)rnd(12);
        for (int i = 0; i < nn; i++) {
            int64_t ready = rnd(3 * DAY) - DAY / 2;
            int64_t del = rnd(3) ? ready + rnd(DAY) : -1;
            int32_t n = add_node(f, "n", rnd(5) ? (int32_t)rnd(np) : -1,
                                 rnd(3) ? prices[rnd(6)] : 0, ready, del, rnd(4), rnd(3) * 4000);
            if (rnd(4) == 0)
                f->nodes[n].ready_at = 0;
            if (rnd(4) == 0)
                f->nodes[n].not_ready_at = f->nodes[n].created_at + rnd(DAY);
        }
        int nt = (int)rnd(20);
        for (int i = 0; i < nt; i++) {
            int32_t t =
                add_task(f, "t", (enum cost_config)rnd(3), (enum cost_outcome)rnd(3), rnd(3 * DAY));
            f->tasks[t].experiment = exps[rnd(3)];
        }
        int na = nt ? (int)rnd(MAXN) : 0;
        for (int i = 0; i < na; i++) {
            int64_t sched = rnd(3 * DAY) - DAY / 2;
            struct cost_attempt *a =
                add_attempt(f, (int32_t)rnd(nt), nn && rnd(8) ? (int32_t)rnd(nn) : -1, sched,
                            rnd(4) ? sched + rnd(600) : -1, rnd(3) ? sched + rnd(DAY) : -1,
                            (enum cost_phase)rnd(5));
            a->gpu_request = rnd(3);
            a->cpu_request_milli = rnd(3) * 1500;
            if (rnd(4) == 0)
                a->disruption_at = a->scheduled_at + rnd(DAY);
            if (rnd(3) == 0)
                a->restore_seconds = rnd(300);
            if (rnd(3) == 0)
                a->work_seconds = rnd(DAY);
            if (rnd(3) == 0)
                a->checkpoint_seconds = rnd(60);
            if (rnd(5) == 0)
                a->deleted_at = a->scheduled_at + rnd(DAY);
        }
        f->q.from = T0 + rnd(DAY);
        f->q.to = f->q.from + 1 + rnd(2 * DAY);
        f->q.now = T0 + rnd(3 * DAY);
        f->q.experiment = rnd(3) == 0 ? "A" : NULL;
        f->q.configs = rnd(3) == 0 ? (unsigned)(1 + rnd(7)) : 0;
        assert_int_equal(run(f), ERR_OK);
        check_invariants(f->r);
        /* the same window split in two adds up, up to 1 µ$ per node and half */
        int64_t mid = f->q.from + (f->q.to - f->q.from) / 2, whole = f->r->nodes_total;
        if (mid > f->q.from) {
            int64_t to = f->q.to, halves = 0;
            f->q.to = mid;
            assert_int_equal(run(f), ERR_OK);
            check_invariants(f->r);
            halves += f->r->nodes_total;
            f->q.from = mid;
            f->q.to = to;
            assert_int_equal(run(f), ERR_OK);
            check_invariants(f->r);
            halves += f->r->nodes_total;
            assert_true(llabs(halves - whole) <= (long long)nn);
        }
    }
}

/* ---- cost model v2 (docs/cost-model.md), issue 16 ------------------------------ */

/* Item 5, one billing rule: a CPU node at $0.072/h (20 µ$/s) Ready for 30 s.
 * Billed life: 60 s minimum -> 60 x 20 = 1200 µ$, below the $0.01 floor, so the
 * node costs 10000 µ$ (v1 printed 1200). The top-up 10000 - 1200 = 8800 lands at
 * its last billed second (T0 + 59): window [T0, T0 + 45) = 45 x 20 = 900;
 * window [T0 + 45, +1 d) = 15 x 20 + 8800 = 9100. The reconciliation and
 * billing_node_amount say the same. */
static void test_v2_min_charge_floor(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "cpu", "s-2vcpu", COST_CAP_ON_DEMAND, 72000);
    add_node(f, "n", p, 0, 0, 30, 0, 2000);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->nodes[0].total, 10000);
    assert_int_equal(f->r->unattributed_idle, 10000);
    f->q.to = T0 + 45;
    assert_int_equal(run(f), ERR_OK);
    assert_int_equal(f->r->nodes[0].total, 900);
    f->q.from = T0 + 45;
    f->q.to = T0 + DAY;
    assert_int_equal(run(f), ERR_OK);
    assert_int_equal(f->r->nodes[0].total, 9100);
    int64_t amt = 0;
    assert_int_equal(billing_node_amount(72000, T0, T0 + 30, T0 + DAY, T0, T0 + DAY, &amt), ERR_OK);
    assert_int_equal(amt, 10000);
    /* a live node owes its 60 s, not yet the floor: 60 x 20 = 1200 */
    assert_int_equal(billing_node_amount(72000, T0, 0, T0 + 30, T0, T0 + DAY, &amt), ERR_OK);
    assert_int_equal(amt, 1200);
    struct reconcile_pool rp = {
        .id = (char *)"cpu", .name = (char *)"cpu", .capacity_type = (char *)"on-demand"};
    struct reconcile_node rn = {.name = (char *)"n",
                                .pool_id = (char *)"cpu",
                                .start = T0,
                                .end = T0 + 30,
                                .price_hourly = 72000};
    struct reconcile_input ri = {.pools = &rp, .n_pools = 1, .nodes = &rn, .n_nodes = 1};
    assert_int_equal(reconcile_period_bounds("2026-03", &ri.period_start, &ri.period_end), ERR_OK);
    struct reconcile_result rr;
    assert_int_equal(reconcile_compute(&ri, T0 + DAY, &rr), ERR_OK);
    assert_int_equal(rr.lines[rr.n_lines - 1].estimated, 10000);
    reconcile_result_release(&rr);
}

/* Reconciliation against an invoice in whole cents (DigitalOcean's): two spot nodes
 * at $1.3536/h = 376 µ$/s. Node a: 7250 s x 376 = 2.726000, invoiced 2.73 (+0.004);
 * node b: 1001 s x 376 = 0.376376, invoiced 0.38 (+0.003624). Estimate 3.102376,
 * billed 3.11: difference 0.007624, all of it rounding (each part under half a cent),
 * unexplained 0. Billing b at 0.40 instead leaves 0.02 unexplained. */
static void test_reconcile_rounding(void **state) {
    (void)state;
    struct reconcile_pool rp = {
        .id = (char *)"spot", .name = (char *)"spot", .capacity_type = (char *)"spot"};
    struct reconcile_node rn[2] = {{.name = (char *)"a",
                                    .droplet_id = (char *)"1",
                                    .pool_id = (char *)"spot",
                                    .start = T0,
                                    .end = T0 + 7250,
                                    .price_hourly = 1353600},
                                   {.name = (char *)"b",
                                    .droplet_id = (char *)"2",
                                    .pool_id = (char *)"spot",
                                    .start = T0,
                                    .end = T0 + 1001,
                                    .price_hourly = 1353600}};
    struct reconcile_item it[2] = {{.resource_id = (char *)"1", .amount = 2730000},
                                   {.resource_id = (char *)"2", .amount = 380000}};
    struct reconcile_input ri = {
        .pools = &rp, .n_pools = 1, .nodes = rn, .n_nodes = 2, .items = it, .n_items = 2};
    assert_int_equal(reconcile_period_bounds("2026-03", &ri.period_start, &ri.period_end), ERR_OK);
    struct reconcile_result rr;
    assert_int_equal(reconcile_compute(&ri, T0 + DAY, &rr), ERR_OK);
    const struct reconcile_line *tot = &rr.lines[rr.n_lines - 1];
    assert_int_equal(tot->estimated, 3102376);
    assert_int_equal(tot->billed, 3110000);
    assert_int_equal(tot->diff, 7624);
    assert_int_equal(tot->rounding, 7624);
    assert_int_equal(tot->unexplained, 0);
    assert_int_equal(rr.lines[0].rounding, 7624); /* the spot pool's line */
    reconcile_result_release(&rr);
    it[1].amount = 400000;
    assert_int_equal(reconcile_compute(&ri, T0 + DAY, &rr), ERR_OK);
    assert_int_equal(rr.lines[rr.n_lines - 1].unexplained, 20000);
    reconcile_result_release(&rr);
}

/* Item 3, share: a 1-GPU node (8000m) at $3.60/h (1000 µ$/s) alive 3600 s
 * = 3.600. A 1-GPU pod (fallback) and a 0-GPU 4000m pod (on-demand) both hold
 * it 0..3600. On a GPU node the CPU pod's share is 0: fallback allocated
 * 3600 x 1 x 1000 = 3.600, on-demand 0, idle 0 (v1: 2.400 / 1.200, the shares
 * 1 + 1/2 scaled down to the node). */
static void test_v2_gpu_share_cpu_pod(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    int32_t n = add_node(f, "n", p, 0, 0, 3600, 1, 8000);
    int32_t g = add_task(f, "g", COST_FALLBACK, COST_TASK_SUCCEEDED, 3600);
    int32_t c = add_task(f, "c", COST_ON_DEMAND, COST_TASK_SUCCEEDED, 3600);
    add_attempt(f, g, n, 0, 0, 3600, COST_PHASE_SUCCEEDED);
    struct cost_attempt *a = add_attempt(f, c, n, 0, 0, 3600, COST_PHASE_SUCCEEDED);
    a->gpu_request = 0;
    a->cpu_request_milli = 4000;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->configs[COST_FALLBACK].cost, 3600000);
    assert_int_equal(f->r->configs[COST_FALLBACK].useful_cost, 3600000);
    assert_int_equal(f->r->configs[COST_ON_DEMAND].cost, 0);
    assert_int_equal(f->r->nodes[0].idle, 0);
}

/* Item 4, the 672 h cap on a used pool: a spot node at $1.80/h Ready
 * 2026-03-01T00:00Z, deleted 2026-04-01T00:00Z. Its first 672 h (to Mar 29
 * 00:00) are billed: 672 x 1.80 = 1209.600; it is idle then. One spot attempt
 * runs Mar 29 00:00 -> Mar 31 00:00 in the free hours: allocated 0. The pool was
 * used, so its idle 1209.600 is spot's (split by held seconds when every
 * allocated cost is 0), not "unattributed" (v1: spot 0, unattributed 1209.600). */
static void test_v2_cap_idle_used_pool(void **state) {
    struct fx *f = *state;
    int64_t mar1 = timeutil_days_from_civil(2026, 3, 1) * DAY;
    int64_t apr1 = timeutil_days_from_civil(2026, 4, 1) * DAY;
    int32_t p = add_pool(f, "sp", "gpu-x-spot", COST_CAP_SPOT, 1800000);
    int32_t n = add_node(f, "n", p, 0, 0, -1, 1, 8000);
    f->nodes[n].created_at = f->nodes[n].ready_at = mar1;
    f->nodes[n].k8s_deleted_at = apr1;
    int32_t t = add_task(f, "t", COST_SPOT, COST_TASK_SUCCEEDED, 0);
    f->tasks[t].completed_at = mar1 + 30 * DAY;
    struct cost_attempt *a = add_attempt(f, t, n, 0, 0, 0, COST_PHASE_SUCCEEDED);
    a->created_at = a->scheduled_at = a->started_at = mar1 + 28 * DAY;
    a->finished_at = mar1 + 30 * DAY;
    f->q.from = mar1;
    f->q.to = apr1;
    f->q.now = apr1;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->nodes[0].total, 1209600000);
    assert_int_equal(f->r->configs[COST_SPOT].allocated_cost, 0);
    assert_int_equal(f->r->configs[COST_SPOT].cost, 1209600000);
    assert_int_equal(f->r->configs[COST_SPOT].cost_per_successful_task, 1209600000);
    assert_int_equal(f->r->unattributed_idle, 0);
}

/* Item 1, duplicates: spot attempt A1 holds node S (1 GPU, $3.60/h) 0 -> 3600
 * (interrupted: S deleted at 3600). Its replacement A2 is created at 1000 and
 * never scheduled (no node) until the deadline removes it at 5000: it holds
 * nothing, so it is no duplicate (v1 started it at creation, 1000 < 3600: one
 * duplicate). A3, scheduled at 2000 on F, ends 4000: it overlaps A1's held
 * [0, 3600) for 3600 - 2000 = 1600 s, one duplicate of 1600 s. */
static void test_v2_pending_replacement_not_duplicate(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "sp", "gpu-x-spot", COST_CAP_SPOT, 3600000);
    int32_t s = add_node(f, "S", p, 0, 0, 3600, 1, 8000);
    int32_t t = add_task(f, "t", COST_SPOT, COST_TASK_FAILED, 5000);
    add_attempt(f, t, s, 0, 10, -1, COST_PHASE_FAILED);
    struct cost_attempt *a2 = add_attempt(f, t, -1, 0, -1, -1, COST_PHASE_PENDING);
    a2->created_at = T0 + 1000;
    a2->scheduled_at = 0;
    a2->deleted_at = T0 + 5000;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_config_result *c = &f->r->configs[COST_SPOT];
    assert_int_equal(c->attempts, 2);
    assert_int_equal(c->retries, 1);
    assert_int_equal(c->duplicates, 0);
    assert_int_equal(c->duplicate_seconds, 0);
    int32_t fp = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    int32_t fn = add_node(f, "F", fp, 0, 0, 7200, 1, 8000);
    add_attempt(f, t, fn, 2000, 2010, 4000, COST_PHASE_FAILED);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    c = &f->r->configs[COST_SPOT];
    assert_int_equal(c->duplicates, 1);
    assert_int_equal(c->duplicate_seconds, 1600);
}

/* Item 12 (winner): the partitioned original A1 (node S, $3.60/h = 1000 µ$/s)
 * finishes successfully at 1000; its replacement A2 (node F, $1.80/h = 500 µ$/s),
 * scheduled at 500, also succeeds at 1500. The winner is the first to finish,
 * A1: useful 1000 x 1000 = 1.000; A2 wasted 1000 x 500 = 0.500 (v1 credited the
 * last success: useful 0.500, wasted 1.000). A2 is a duplicate for
 * 1000 - 500 = 500 s. */
static void test_v2_winner_first_to_finish(void **state) {
    struct fx *f = *state;
    int32_t sp = add_pool(f, "sp", "gpu-x-spot", COST_CAP_SPOT, 3600000);
    int32_t fp = add_pool(f, "od", "gpu-y", COST_CAP_ON_DEMAND, 1800000);
    int32_t s = add_node(f, "S", sp, 0, 0, 2000, 1, 8000);
    int32_t n = add_node(f, "F", fp, 0, 0, 2000, 1, 8000);
    int32_t t = add_task(f, "t", COST_FALLBACK, COST_TASK_SUCCEEDED, 1500);
    add_attempt(f, t, s, 0, 0, 1000, COST_PHASE_SUCCEEDED);
    add_attempt(f, t, n, 500, 500, 1500, COST_PHASE_SUCCEEDED);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_config_result *c = &f->r->configs[COST_FALLBACK];
    assert_int_equal(c->useful_cost, 1000000);
    assert_int_equal(c->wasted_cost, 500000);
    assert_int_equal(c->duplicates, 1);
    assert_int_equal(c->duplicate_seconds, 500);
}

/* Item 8: a failed pod (node $3.60/h = 1000 µ$/s) whose container end was never
 * recorded, seen Failed at 1000, its task failed at 1000. Its node is deleted
 * on day 10. The day-1 window charges 1000 s = 1.000 wasted, before and after the
 * node's deletion arrives (v1 stretched it to the node's deletion: 86400 s =
 * 86.400 in day 1). */
static void test_v2_failed_pod_end_not_stretched(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    int32_t n = add_node(f, "n", p, 0, 0, -1, 1, 8000);
    int32_t t = add_task(f, "t", COST_ON_DEMAND, COST_TASK_FAILED, 1000);
    struct cost_attempt *a = add_attempt(f, t, n, 0, 0, -1, COST_PHASE_FAILED);
    a->terminal_at = T0 + 1000;
    f->q.now = T0 + 9 * DAY;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->configs[COST_ON_DEMAND].wasted_cost, 1000000);
    f->nodes[n].k8s_deleted_at = T0 + 10 * DAY;
    f->q.now = T0 + 11 * DAY;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->configs[COST_ON_DEMAND].wasted_cost, 1000000);
    /* with only the task's failure time known, the same */
    a->terminal_at = 0;
    assert_int_equal(run(f), ERR_OK);
    assert_int_equal(f->r->configs[COST_ON_DEMAND].wasted_cost, 1000000);
}

/* Item 12 (NotReady spells): node S blips NotReady 1000 -> 1030, and goes
 * NotReady for good at 7000; it is deleted at 7200, interrupting A1 (scheduled
 * 0). The replacement A2 starts its container at 7300 on F. Lost at = the start
 * of the spell the loss happened in, 7000: restore 7300 - 7000 = 300 s (v1 kept
 * only the first NotReady, 1000: restore 6300 s). */
static void test_v2_not_ready_spells(void **state) {
    struct fx *f = *state;
    static const int64_t spells[4] = {T0 + 1000, T0 + 1030, T0 + 7000, 0};
    int32_t sp = add_pool(f, "sp", "gpu-x-spot", COST_CAP_SPOT, 1800000);
    int32_t fp = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    int32_t s = add_node(f, "S", sp, 0, 0, 7200, 1, 8000);
    f->nodes[s].not_ready_at = T0 + 1000;
    f->nodes[s].spells = spells;
    f->nodes[s].n_spells = 2;
    int32_t n = add_node(f, "F", fp, 0, 0, 10800, 1, 8000);
    int32_t t = add_task(f, "t", COST_FALLBACK, COST_TASK_SUCCEEDED, 9000);
    add_attempt(f, t, s, 0, 60, -1, COST_PHASE_FAILED);
    add_attempt(f, t, n, 7260, 7300, 9000, COST_PHASE_SUCCEEDED);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_config_result *c = &f->r->configs[COST_FALLBACK];
    assert_int_equal(c->interruptions, 1);
    assert_int_equal(c->restore.samples, 1);
    assert_int_equal(c->restore.total, 300);
}

/* Decision 2 (non-Indexed Job, completions 2): one 2-GPU node ($3.60/h = 1000
 * µ$/s) alive 0 -> 1600 = 1.600. P1 holds 0 -> 1000 and succeeds; P2 holds 0 ->
 * 500 and is evicted; P3 (created 500) holds 600 -> 1600 and succeeds. The Job
 * is 2 tasks, both succeeded: cost per successful task 1.600 / 2 = 0.800. At
 * most 2 pods are held at once: no duplicate. P3 is beyond the first 2 pods:
 * 1 retry (v1: 1 success at 1.600, 2 retries, 2 duplicates). */
static void test_v2_n_completion_job(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "od", "gpu-x2", COST_CAP_ON_DEMAND, 3600000);
    int32_t n = add_node(f, "n", p, 0, 0, 1600, 2, 16000);
    int32_t t = add_task(f, "j", COST_FALLBACK, COST_TASK_SUCCEEDED, 1600);
    f->tasks[t].completions = 2;
    add_attempt(f, t, n, 0, 0, 1000, COST_PHASE_SUCCEEDED);
    struct cost_attempt *p2 = add_attempt(f, t, n, 0, 0, 500, COST_PHASE_FAILED);
    p2->reason = "Evicted";
    struct cost_attempt *p3 = add_attempt(f, t, n, 600, 600, 1600, COST_PHASE_SUCCEEDED);
    p3->created_at = T0 + 500;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_config_result *c = &f->r->configs[COST_FALLBACK];
    assert_int_equal(c->tasks_succeeded, 2);
    assert_int_equal(c->cost, 1600000);
    assert_int_equal(c->cost_per_successful_task, 800000);
    assert_int_equal(c->retries, 1);
    assert_int_equal(c->duplicates, 0);
    assert_int_equal(c->interruptions, 1);
}

/* Restore never negative (docs/cost-model.md, restore): a non-Indexed Job with
 * completions 2 on one 2-GPU node. P1 (created -1, scheduled 0) is evicted at
 * 500; the next pod by creation, P2 (created 0, scheduled 1), started its
 * container at 1, before the loss. Restore sample = max(0, 1 - 500) + 0 reported
 * = 0 s, one sample (unclamped it was 1 - 500 = -499 s, a negative restore time
 * on the dashboard). P3 (created 599) holds 600 -> 1600 and succeeds. */
static void test_v2_restore_never_negative(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "od", "gpu-x2", COST_CAP_ON_DEMAND, 3600000);
    int32_t n = add_node(f, "n", p, 0, 0, 1600, 2, 16000);
    int32_t t = add_task(f, "j", COST_FALLBACK, COST_TASK_SUCCEEDED, 1600);
    f->tasks[t].completions = 2;
    struct cost_attempt *p1 = add_attempt(f, t, n, 0, 0, 500, COST_PHASE_FAILED);
    p1->reason = "Evicted";
    add_attempt(f, t, n, 1, 1, 1000, COST_PHASE_SUCCEEDED);
    add_attempt(f, t, n, 600, 600, 1600, COST_PHASE_SUCCEEDED);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_config_result *c = &f->r->configs[COST_FALLBACK];
    assert_int_equal(c->interruptions, 1);
    assert_int_equal(c->restore.samples, 1);
    assert_int_equal(c->restore.total, 0);
}

/* Real end over the task's completion (docs/cost-model.md, attempt interval): a
 * partitioned original A1 on S ($3.60/h = 1000 µ$/s) holds 0 -> its container
 * finish 3263 (exit 1); its replacement A2 on F holds 1100 -> 2696 and completes
 * the task at 2696. A1's end is known, so the task's completion does not stand in
 * for it: A1 wasted 3263 s x 1000 = 3.263000 (ended at the completion it was
 * 2696 x 1000 = 2.696000); A2 useful 1596 s x 1000 = 1.596000. */
static void test_v2_known_end_after_completion(void **state) {
    struct fx *f = *state;
    int32_t p = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    int32_t s = add_node(f, "S", p, 0, 0, 4000, 1, 8000);
    int32_t n = add_node(f, "F", p, 0, 0, 4000, 1, 8000);
    int32_t t = add_task(f, "t", COST_FALLBACK, COST_TASK_SUCCEEDED, 2696);
    add_attempt(f, t, s, 0, 0, 3263, COST_PHASE_FAILED);
    add_attempt(f, t, n, 1100, 1100, 2696, COST_PHASE_SUCCEEDED);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    const struct cost_config_result *c = &f->r->configs[COST_FALLBACK];
    assert_int_equal(c->wasted_cost, 3263000);
    assert_int_equal(c->useful_cost, 1596000);
}

/* Item 6, per-GPU On-Demand rate: the worked example with --on-demand-size
 * gpu-x-spot=gpu-x8, an 8-GPU size at $28.80/h ($3.60 per GPU). J1 (1 GPU, on
 * the spot pool) worked 3600 s: 3600 x 1 GPU x 28.80 / 8 / 3600 = 3.600; J2 and
 * J3 won on F (gpu-x, its own size, $3.60/h, 1 GPU): 1680 + 3600 s = 5.280.
 * Counterfactual 8.880 (v1 used J1's share of the whole 8-GPU price:
 * 3600 x 28.80 / 3600 = 28.800, total 34.080). */
static void test_v2_counterfactual_per_gpu(void **state) {
    struct fx *f = *state;
    worked_example(f);
    auto_prices(f);
    f->prices[f->nprices++] = (struct cost_price){"gpu-x8", 0, 28800000, 8};
    /* one run of rows per size */
    f->own_prices = true;
    static const struct cost_od_size map[1] = {{"gpu-x-spot", "gpu-x8", 28800000}};
    f->q.od_sizes = map;
    f->q.n_od_sizes = 1;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->counterfactual.tasks_priced, 3);
    assert_int_equal(f->r->counterfactual.cost, 8880000);
    assert_int_equal(f->r->counterfactual.cost_per_successful_task, 2960000);
}

/* Item 9, prices as a history: gpu-x is $3.60/h until T0 + 2 d, then $7.20/h.
 * The worked example ran on day 1: its counterfactual keeps the price in force
 * then, 8880 s x 1000 µ$/s = 8.880, before and after the change is observed
 * (v1 took the latest list price: 17.760). */
static void test_v2_price_in_force(void **state) {
    struct fx *f = *state;
    worked_example(f);
    f->own_prices = true;
    f->prices[0] = (struct cost_price){"gpu-x", 0, 3600000, 1};
    f->nprices = 1;
    assert_int_equal(run(f), ERR_OK);
    assert_int_equal(f->r->counterfactual.cost, 8880000);
    f->prices[1] = (struct cost_price){"gpu-x", T0 + 2 * DAY, 7200000, 1};
    f->nprices = 2;
    f->q.now = T0 + 3 * DAY;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->counterfactual.cost, 8880000);
}

/* Item 10, replacement delay: after the worked example's reclaim (S gone at
 * 7200, no earlier signal) a system CPU node of an on-demand pool is Ready at
 * 7230 and a fallback GPU node F2 at 7350. The replacement is the first node
 * that can run the task: delay 7350 - 7200 = 150 s (v1: the CPU node, 30 s). */
static void test_v2_replacement_delay_gpu(void **state) {
    struct fx *f = *state;
    worked_example(f);
    int32_t sys = add_pool(f, "pool-sys", "s-2vcpu", COST_CAP_ON_DEMAND, 36000);
    add_node(f, "sys-1", sys, 0, 7230, -1, 0, 2000);
    add_node(f, "F2", 1, 3600000, 7350, -1, 1, 8000);
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->n_reclaims, 1);
    assert_int_equal(f->r->reclaims[0].fallback_ready_at, T0 + 7350);
    assert_int_equal(f->r->reclaims[0].replacement_delay_seconds, 150);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_worked_example, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_attempt_detail, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_reclaim_timeline, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_indexed_job_shared_gpu, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_duplicates, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_window_edge, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_minimum_60s, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_monthly_cap, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_cpu_only_node, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_unattributed_pool, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_idle_split_remainder, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_filters, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_running_attempt, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_empty, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_invalid, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_checkpoint_advice, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_restore_percentiles, fx_setup, fx_teardown),
        cmocka_unit_test(test_interrupted_and_names),
        cmocka_unit_test(test_index),
        cmocka_unit_test_setup_teardown(test_property_random, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_min_charge_floor, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_gpu_share_cpu_pod, fx_setup, fx_teardown),
        cmocka_unit_test(test_reconcile_rounding),
        cmocka_unit_test_setup_teardown(test_v2_cap_idle_used_pool, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_pending_replacement_not_duplicate, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_winner_first_to_finish, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_failed_pod_end_not_stretched, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_not_ready_spells, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_restore_never_negative, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_known_end_after_completion, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_n_completion_job, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_counterfactual_per_gpu, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_price_in_force, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_replacement_delay_gpu, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests_name("cost", tests, NULL, NULL);
}
