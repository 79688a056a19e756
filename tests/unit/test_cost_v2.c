/* test_cost_v2 — the cost model's version 2 decisions (docs/cost-model.md)
 * against hand-computed cases, and reconciliation's rounding (the fixture:
 * cost_fx.h).
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

#include "cost_fx.h"

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

/* The NotReady cases: spot node S ($1.80/h, two NotReady spells, the first at
 * `spells[0]`, its first NotReady) deleted at 7200 while A1 (scheduled 0) holds
 * it; on-demand node F ($3.60/h, Ready from 0 to 10800) runs A2 7260 -> 9000,
 * the task's success. Returns A1. */
static struct cost_attempt *spells_case(struct fx *f, const int64_t *spells) {
    int32_t sp = add_pool(f, "sp", "gpu-x-spot", COST_CAP_SPOT, 1800000);
    int32_t fp = add_pool(f, "od", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    int32_t s = add_node(f, "S", sp, 0, 0, 7200, 1, 8000);
    f->nodes[s].not_ready_at = spells[0];
    f->nodes[s].spells = spells;
    f->nodes[s].n_spells = 2;
    int32_t n = add_node(f, "F", fp, 0, 0, 10800, 1, 8000);
    int32_t t = add_task(f, "t", COST_FALLBACK, COST_TASK_SUCCEEDED, 9000);
    struct cost_attempt *a1 = add_attempt(f, t, s, 0, 60, -1, COST_PHASE_FAILED);
    add_attempt(f, t, n, 7260, 7300, 9000, COST_PHASE_SUCCEEDED);
    return a1;
}

/* Item 12 (NotReady spells): node S blips NotReady 1000 -> 1030, and goes
 * NotReady for good at 7000; it is deleted at 7200, interrupting A1 (scheduled
 * 0). The replacement A2 starts its container at 7300 on F. Lost at = the start
 * of the spell the loss happened in, 7000: restore 7300 - 7000 = 300 s (v1 kept
 * only the first NotReady, 1000: restore 6300 s). */
static void test_v2_not_ready_spells(void **state) {
    struct fx *f = *state;
    static const int64_t spells[4] = {T0 + 1000, T0 + 1030, T0 + 7000, 0};
    spells_case(f, spells);
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

/* Reclaim first signal (docs/cost-model.md "Spot pools and reclaims"): spot
 * node S blips NotReady 6500 -> 6530 and is Ready again, goes NotReady for good
 * at 7100 and is deleted at 7200 (its pool's only node: the pool is gone at
 * 7200), interrupting A1. A2 starts its container at 7300 on F (Ready since 0,
 * before the signal: no replacement). The blip is not a reclaim signal (the
 * node came back); the spell it never left is: first signal 7100,
 * signal-to-gone 7200 - 7100 = 100 s, return to useful work 7300 - 7100 = 200 s
 * (before: the first NotReady, 6500: 700 s and 800 s). */
static void test_v2_reclaim_signal_not_a_blip(void **state) {
    struct fx *f = *state;
    static const int64_t spells[4] = {T0 + 6500, T0 + 6530, T0 + 7100, 0};
    spells_case(f, spells)->not_ready_at = T0 + 6500;
    assert_int_equal(run(f), ERR_OK);
    check_invariants(f->r);
    assert_int_equal(f->r->n_reclaims, 1);
    const struct cost_reclaim *rc = &f->r->reclaims[0];
    assert_int_equal(rc->gone_at, T0 + 7200);
    assert_int_equal(rc->first_signal_at, T0 + 7100);
    assert_int_equal(rc->signal_to_gone_seconds, 100);
    assert_int_equal(rc->tasks_interrupted, 1);
    assert_int_equal(rc->tasks_resumed, 1);
    assert_int_equal(rc->return_to_useful_work_seconds, 200);
    assert_int_equal(rc->replacement_delay_seconds, COST_NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
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
        cmocka_unit_test_setup_teardown(test_v2_reclaim_signal_not_a_blip, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests_name("cost_v2", tests, NULL, NULL);
}
