/* test_cost — the cost model against hand-computed cases (the version 2
 * decisions: test_cost_v2.c; the fixture: cost_fx.h).
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
#include "base/timeutil.h"

#include "cost_fx.h"

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
    };
    return cmocka_run_group_tests_name("cost", tests, NULL, NULL);
}
