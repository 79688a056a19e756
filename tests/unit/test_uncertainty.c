/* test_uncertainty — the bootstrap samples built from a computed window
 * (query/uncertainty.c). Every figure by hand. Times: T0 = 2026-11-02T00:00:00Z
 * + seconds. One Spot node (1 GPU, $3.60/h = 1,000 µ$/s), one On-Demand node
 * (1 GPU, $7.20/h = 2,000 µ$/s), both Ready at T0 and deleted at T0 + 7000;
 * the window is [T0, T0 + 7000). Tasks run one after another, 1,000 s each,
 * 1 GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/cost.h"
#include "base/buf.h"
#include "base/jsonw.h"
#include "query/uncertainty.h"

#define T0 INT64_C(1793577600)

struct fx {
    struct cost_pool pools[2];
    struct cost_node nodes[2];
    struct cost_task tasks[16];
    struct cost_attempt att[16];
    struct cost_price prices[2];
    char uids[16][8];
    size_t nt;
    struct cost_input in;
    struct cost_query q;
    struct cost_result *r;
};

static struct fx *fx_new(void) {
    struct fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->pools[0] = (struct cost_pool){
        .id = "p-spot", .size = "gpu-x-spot", .capacity = COST_CAP_SPOT, .price_hourly = 3600000};
    f->pools[1] = (struct cost_pool){
        .id = "p-od", .size = "gpu-x", .capacity = COST_CAP_ON_DEMAND, .price_hourly = 7200000};
    for (int i = 0; i < 2; i++)
        f->nodes[i] = (struct cost_node){.name = i ? "OD" : "S",
                                         .pool = i,
                                         .created_at = T0,
                                         .ready_at = T0,
                                         .k8s_deleted_at = T0 + 7000,
                                         .gpu_allocatable = 1,
                                         .cpu_allocatable_milli = 8000};
    /* the On-Demand list price of the Spot size's twin: $7.20/h per GPU */
    f->prices[0] =
        (struct cost_price){.size = "gpu-x", .at = T0 - 86400, .price_hourly = 7200000, .gpus = 1};
    f->q =
        (struct cost_query){.from = T0, .to = T0 + 7000, .now = T0 + 7000, .want_attempts = true};
    return f;
}

/* a task of configuration c on node `node`, running [s, s + 1000) and succeeding */
static void run(struct fx *f, enum cost_config c, int32_t node, int64_t s) {
    size_t t = f->nt++;
    snprintf(f->uids[t], sizeof f->uids[t], "t%zu", t);
    f->tasks[t] = (struct cost_task){.uid = f->uids[t],
                                     .ns = "batch",
                                     .config = c,
                                     .outcome = COST_TASK_SUCCEEDED,
                                     .completed_at = T0 + s + 1000};
    f->att[t] = (struct cost_attempt){.uid = f->uids[t],
                                      .task = (int32_t)t,
                                      .node = node,
                                      .gpu_request = 1,
                                      .cpu_request_milli = 1000,
                                      .created_at = T0 + s,
                                      .scheduled_at = T0 + s,
                                      .started_at = T0 + s,
                                      .finished_at = T0 + s + 1000,
                                      .phase = COST_PHASE_SUCCEEDED,
                                      .work_seconds = -1,
                                      .restore_seconds = -1,
                                      .checkpoint_seconds = -1};
}

/* the cost input of the fixture's pools, nodes, tasks and attempts, with its
 * first n_prices list prices */
static void fx_input(struct fx *f, size_t n_prices) {
    f->in = (struct cost_input){.pools = f->pools,
                                .n_pools = 2,
                                .nodes = f->nodes,
                                .n_nodes = 2,
                                .tasks = f->tasks,
                                .n_tasks = f->nt,
                                .attempts = f->att,
                                .n_attempts = f->nt,
                                .prices = n_prices ? f->prices : NULL,
                                .n_prices = n_prices};
}

static void compute(struct fx *f, struct unc_result *u) {
    fx_input(f, 1);
    assert_int_equal(cost_compute(&f->in, &f->q, &f->r), ERR_OK);
    assert_int_equal(unc_compute(&f->in, &f->q, f->r, NULL, u), ERR_OK);
}

static void fx_free(struct fx *f) {
    cost_result_free(f->r);
    free(f);
}

/* n_spot Spot tasks (node 0) and n_od On-Demand tasks (node 1), each side's
 * 1,000 s apart: the i-th Spot task, then the i-th On-Demand one. */
static struct fx *fx_tasks(int n_spot, int n_od) {
    struct fx *f = fx_new();
    for (int i = 0; i < n_spot || i < n_od; i++) {
        if (i < n_spot)
            run(f, COST_SPOT, 0, 1000 * i);
        if (i < n_od)
            run(f, COST_ON_DEMAND, 1, 1000 * i);
    }
    return f;
}

/* Six Spot tasks of 1,000 s on the Spot node, which lives 7,000 s: allocated
 * 6 × $1.00, idle 1,000 s = $1.00 charged to Spot (its only user): cost $7.00,
 * 6 successes, $7/6 = 1,166,666.67 → 1,166,667 µ$ per task. The six items are
 * 7,000,000 split 1:1:1:1:1:1 (1,166,666 each, 4 µ$ left to the first four), so
 * every resample's mean lies in [1,166,666, 1,166,667].
 * The counterfactual: 6 tasks × 1,000 s × $7.20/h = 6 × $2.00 = $12.00, $2.00
 * a task; Spot − counterfactual = 1,166,667 − 2,000,000 = −833,333 µ$ in every
 * resample (each task's own pair moves with it). Spot cheaper. */
static void test_identical_spot_tasks(void **state) {
    (void)state;
    struct fx *f = fx_tasks(6, 0);
    struct unc_result u;
    compute(f, &u);
    assert_int_equal(f->r->configs[COST_SPOT].cost, 7000000); /* the hand figure above */
    const struct boot_interval *s = &u.per_task[COST_SPOT];
    assert_true(s->ok);
    assert_int_equal(s->point, 1166667);
    assert_int_equal(s->n, 6);
    assert_in_range(s->lo, 1166666, 1166667);
    assert_in_range(s->hi, s->lo, 1166667);
    const struct boot_interval *d = &u.diff[UNC_SPOT_VS_COUNTERFACTUAL];
    assert_true(d->ok);
    assert_int_equal(d->point, 1166667 - 2000000);
    assert_in_range(d->hi, d->lo, -833333);
    assert_true(d->lo >= -833334);
    assert_int_equal(boot_verdict(d), -1);
    /* no On-Demand or fallback tasks: those intervals are null, with a reason */
    assert_false(u.per_task[COST_ON_DEMAND].ok);
    assert_string_equal(u.per_task[COST_ON_DEMAND].reason, "0 successful tasks, fewer than 5");
    assert_false(u.diff[UNC_SPOT_VS_ON_DEMAND].ok);
    assert_string_equal(u.diff[UNC_SPOT_VS_ON_DEMAND].reason,
                        "second sample: 0 successful tasks, fewer than 5");
    fx_free(f);
}

/* Five Spot tasks (Spot node 5,000 s used of 7,000: cost $7.00, 1,400,000 µ$ a
 * task, every item exactly 1,400,000) against five On-Demand tasks (On-Demand
 * node: 5 × $2.00 allocated + 2,000 s idle $4.00 = $14.00, 2,800,000 µ$ a task):
 * the measured difference is −1,400,000 µ$ in every resample. */
static void test_spot_vs_on_demand_measured(void **state) {
    (void)state;
    struct fx *f = fx_tasks(5, 5);
    struct unc_result u;
    compute(f, &u);
    assert_int_equal(u.per_task[COST_SPOT].point, 1400000);
    assert_int_equal(u.per_task[COST_SPOT].lo, 1400000);
    assert_int_equal(u.per_task[COST_SPOT].hi, 1400000);
    assert_int_equal(u.per_task[COST_ON_DEMAND].point, 2800000);
    const struct boot_interval *d = &u.diff[UNC_SPOT_VS_ON_DEMAND];
    assert_true(d->ok);
    assert_int_equal(d->point, -1400000);
    assert_int_equal(d->lo, -1400000);
    assert_int_equal(d->hi, -1400000);
    assert_int_equal(boot_more_needed(d), 0);
    fx_free(f);
}

/* A filter leaves tasks out of the sample: with configs = Spot only, the
 * On-Demand tasks are not selected and On-Demand has no interval. */
static void test_filter_leaves_tasks_out(void **state) {
    (void)state;
    struct fx *f = fx_tasks(5, 5);
    f->q.configs = 1u << COST_SPOT;
    struct unc_result u;
    compute(f, &u);
    assert_true(u.per_task[COST_SPOT].ok);
    assert_false(u.per_task[COST_ON_DEMAND].ok);
    assert_int_equal(u.per_task[COST_ON_DEMAND].n, 0);
    fx_free(f);
}

/* Without per-attempt results there is nothing to resample. */
static void test_needs_attempts(void **state) {
    (void)state;
    struct fx *f = fx_new();
    run(f, COST_SPOT, 0, 0);
    f->q.want_attempts = false;
    fx_input(f, 0);
    assert_int_equal(cost_compute(&f->in, &f->q, &f->r), ERR_OK);
    struct unc_result u;
    assert_int_equal(unc_compute(&f->in, &f->q, f->r, NULL, &u), ERR_INVAL);
    fx_free(f);
}

/* The sentence a user reads, amounts rounded to whole cents (half away from zero). */
static void test_verdict_text(void **state) {
    (void)state;
    char t[256];
    struct boot_interval d = {.ok = true, .point = -345000, .lo = -480000, .hi = -210000, .n = 14};
    unc_verdict_text(&d, "Spot", "pure On-Demand", t, sizeof t);
    assert_string_equal(t, "Spot cheaper than pure On-Demand (95% interval $0.21-$0.48 per task)");
    d = (struct boot_interval){.ok = true, .point = 200000, .lo = 100000, .hi = 304999, .n = 9};
    unc_verdict_text(&d, "Spot", "pure On-Demand", t, sizeof t);
    assert_string_equal(t, "Spot dearer than pure On-Demand (95% interval $0.10-$0.30 per task)");
    /* n = 20, point $0.10, [-$0.10, $0.30]: half-width $0.20, n' = 20·(0.2/0.1)² = 80 */
    d = (struct boot_interval){.ok = true, .point = 100000, .lo = -100000, .hi = 300000, .n = 20};
    unc_verdict_text(&d, "Spot", "pure On-Demand", t, sizeof t);
    assert_string_equal(t, "Spot vs pure On-Demand: not distinguishable yet (95% interval -$0.10 "
                           "to $0.30 per task): need about 60 more successful tasks");
    /* -4,999 µ$ rounds to $0.00 with no minus sign; 5,000 µ$ to $0.01 */
    d = (struct boot_interval){.ok = true, .point = 0, .lo = -4999, .hi = 5000, .n = 20};
    unc_verdict_text(&d, "Fallback", "pure On-Demand", t, sizeof t);
    assert_string_equal(t, "Fallback vs pure On-Demand: not distinguishable (95% interval $0.00 "
                           "to $0.01 per task)");
    d = (struct boot_interval){.ok = false, .n = 3, .reason = "3 successful tasks, fewer than 5"};
    unc_verdict_text(&d, "Spot", "pure On-Demand", t, sizeof t);
    assert_string_equal(t,
                        "Spot vs pure On-Demand: no interval (3 successful tasks, fewer than 5)");
}

/* The JSON object of the summary, for the six identical Spot tasks above. */
static void test_json(void **state) {
    (void)state;
    struct fx *f = fx_tasks(6, 0);
    struct unc_result u;
    compute(f, &u);
    struct buf b;
    buf_init(&b, 0);
    struct jsonw w;
    jsonw_init(&w, &b);
    unc_write_json(&u, &w);
    assert_int_equal(w.rc, ERR_OK);
    assert_int_equal(buf_putc(&b, '\0'), ERR_OK);
    const char *j = b.data;
    assert_non_null(strstr(j, "{\"method\":\"block bootstrap over tasks\",\"confidence\":0.95,"
                              "\"resamples\":2000,\"seed\":20261202,\"min_successful_tasks\":5,"));
    assert_non_null(strstr(j, "\"spot\":{\"point\":1.166667,\"lo\":1.16666"));
    assert_non_null(strstr(j, "\"on-demand\":{\"point\":null,\"lo\":null,\"hi\":null,"
                              "\"successful_tasks\":0,\"resamples_used\":0,"
                              "\"reason\":\"0 successful tasks, fewer than 5\"}"));
    /* Spot $1.17 a task against $2.00 On-Demand: cheaper by $0.83 */
    assert_non_null(
        strstr(j, "\"name\":\"spot_vs_counterfactual\",\"difference\":{\"point\":-0.833333,"));
    assert_non_null(strstr(j, "\"verdict\":\"cheaper\",\"more_tasks_needed\":null,\"text\":\"Spot "
                              "cheaper than the same tasks at On-Demand rates (95% interval "
                              "$0.83-$0.83 per task)\"}"));
    buf_release(&b);
    fx_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_spot_tasks),
        cmocka_unit_test(test_spot_vs_on_demand_measured),
        cmocka_unit_test(test_filter_leaves_tasks_out),
        cmocka_unit_test(test_needs_attempts),
        cmocka_unit_test(test_verdict_text),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests_name("uncertainty", tests, NULL, NULL);
}
