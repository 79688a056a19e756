/* test_report — the JSON bodies of a cost_result: the worked example of test_cost.c
 * serialized, parsed back with json-c, and its exact money literals checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "engine/cost.h"
#include "query/report.h"

#define T0 INT64_C(1772409600) /* 2026-03-02T00:00:00Z */

struct world {
    struct cost_pool pools[2];
    struct cost_node nodes[2];
    struct cost_task tasks[3];
    struct cost_attempt attempts[4];
    struct cost_result *r;
    struct buf out;
};

static struct cost_attempt attempt(int32_t task, int32_t node, int64_t sched, int64_t start,
                                   int64_t fin, enum cost_phase ph) {
    return (struct cost_attempt){.uid = "a",
                                 .task = task,
                                 .node = node,
                                 .gpu_request = 1,
                                 .scheduled_at = T0 + sched,
                                 .started_at = T0 + start,
                                 .finished_at = fin ? T0 + fin : 0,
                                 .phase = ph,
                                 .work_seconds = -1,
                                 .restore_seconds = -1,
                                 .checkpoint_seconds = -1};
}

/* The size list: gpu-x, 1 GPU, $3.60/h since forever (the counterfactual's
 * On-Demand price history). */
static const struct cost_price PRICES[1] = {{"gpu-x", 0, 3600000, 1}};

/* The worked example of docs/cost-model.md (see test_cost.c for the arithmetic). */
static int setup(void **state) {
    struct world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    w->pools[0] = (struct cost_pool){.id = "pool-spot",
                                     .name = "gpu-spot",
                                     .size = "gpu-x-spot",
                                     .capacity = COST_CAP_SPOT,
                                     .price_hourly = 1800000,
                                     .deleted_at = T0 + 7230};
    w->pools[1] = (struct cost_pool){.id = "pool-fb",
                                     .name = "gpu-fallback",
                                     .size = "gpu-x",
                                     .capacity = COST_CAP_ON_DEMAND,
                                     .price_hourly = 3600000};
    w->nodes[0] = (struct cost_node){.name = "S",
                                     .pool = 0,
                                     .price_hourly = 1800000,
                                     .ready_at = T0,
                                     .k8s_deleted_at = T0 + 7200,
                                     .gpu_allocatable = 1};
    w->nodes[1] = (struct cost_node){.name = "F",
                                     .pool = 1,
                                     .price_hourly = 3600000,
                                     .ready_at = T0,
                                     .k8s_deleted_at = T0 + 10800,
                                     .gpu_allocatable = 1};
    const char *uids[3] = {"J1", "J2", "J3"};
    int64_t done[3] = {3660, 9000, 3660};
    for (int i = 0; i < 3; i++)
        w->tasks[i] = (struct cost_task){.uid = uids[i],
                                         .ns = "batch",
                                         .config = COST_FALLBACK,
                                         .outcome = COST_TASK_SUCCEEDED,
                                         .completed_at = T0 + done[i]};
    w->attempts[0] = attempt(0, 0, 0, 60, 3660, COST_PHASE_SUCCEEDED);
    w->attempts[1] = attempt(1, 0, 3700, 3760, 0, COST_PHASE_FAILED);
    w->attempts[1].deleted_at = T0 + 7200;
    w->attempts[2] = attempt(1, 1, 7260, 7320, 9000, COST_PHASE_SUCCEEDED);
    w->attempts[2].restore_seconds = 120;
    w->attempts[3] = attempt(2, 1, 60, 60, 3660, COST_PHASE_SUCCEEDED);
    struct cost_input in = {w->pools, 2, w->nodes, 2, w->tasks, 3, w->attempts, 4, PRICES, 1};
    struct cost_query q = {.from = T0, .to = T0 + 86400, .now = T0 + 86400};
    assert_int_equal(cost_compute(&in, &q, &w->r), ERR_OK);
    buf_init(&w->out, 0);
    *state = w;
    return 0;
}

static int teardown(void **state) {
    struct world *w = *state;
    cost_result_free(w->r);
    buf_release(&w->out);
    free(w);
    return 0;
}

static json_object *parse(const struct buf *b) {
    json_object *o = json_tokener_parse(buf_str(b));
    assert_non_null(o);
    return o;
}

static json_object *get(json_object *o, const char *key) {
    json_object *v = NULL;
    assert_true(json_object_object_get_ex(o, key, &v));
    return v;
}

static const char *str(json_object *o, const char *key) {
    json_object *v = get(o, key);
    assert_true(json_object_is_type(v, json_type_string));
    return json_object_get_string(v);
}

static int64_t integer(json_object *o, const char *key) {
    json_object *v = get(o, key);
    assert_true(json_object_is_type(v, json_type_int));
    return json_object_get_int64(v);
}

static void test_summary_worked_example(void **state) {
    struct world *w = *state;
    assert_int_equal(report_summary_json(w->r, &w->out), ERR_OK);
    const char *text = buf_str(&w->out);
    /* money literals exactly as printed from micro-dollars */
    assert_non_null(strstr(text, "\"cost_per_successful_task\":4.8,"));
    assert_non_null(strstr(text, "\"cost\":14.4,"));
    assert_non_null(strstr(text, "\"wasted_cost\":1.75,"));
    assert_non_null(strstr(text, "\"idle_cost\":5.48,"));
    assert_non_null(strstr(text, "\"cost\":8.88,\"cost_per_successful_task\":2.96}"));
    assert_non_null(strstr(text, "\"savings_vs_on_demand_percent\":-62.16,"));
    assert_non_null(strstr(text, "\"window\":{\"from\":\"2026-03-02T00:00:00Z\","
                                 "\"to\":\"2026-03-03T00:00:00Z\"}"));

    json_object *root = parse(&w->out);
    json_object *cfgs = get(root, "configurations");
    assert_int_equal(json_object_array_length(cfgs), 4); /* spot, fallback, od, counterfactual */
    json_object *spot = json_object_array_get_idx(cfgs, 0);
    assert_string_equal(str(spot, "configuration"), "spot");
    assert_true(json_object_is_type(get(spot, "cost_per_successful_task"), json_type_null));
    json_object *fb = json_object_array_get_idx(cfgs, 1);
    assert_string_equal(str(fb, "configuration"), "fallback");
    assert_string_equal(str(fb, "basis"), "measured");
    assert_int_equal(integer(fb, "tasks_succeeded"), 3);
    assert_int_equal(integer(fb, "retries"), 1);
    assert_int_equal(integer(fb, "interruptions"), 1);
    assert_int_equal(integer(fb, "duplicates"), 0);
    json_object *rs = get(fb, "restore_seconds");
    assert_int_equal(integer(rs, "total"), 240);
    assert_int_equal(integer(rs, "p50"), 240);
    json_object *byp = get(fb, "node_seconds_by_pool");
    assert_int_equal(json_object_array_length(byp), 2);
    /* pools in id order: pool-fb, then pool-spot */
    assert_string_equal(str(json_object_array_get_idx(byp, 1), "pool_id"), "pool-spot");
    assert_int_equal(integer(json_object_array_get_idx(byp, 1), "seconds"), 7160);
    json_object *adv = get(fb, "checkpoint_advice");
    assert_string_equal(str(adv, "size"), "gpu-x-spot");
    assert_true(json_object_is_type(get(adv, "interval_seconds"), json_type_null));
    json_object *od = json_object_array_get_idx(cfgs, 2);
    assert_string_equal(str(od, "configuration"), "on-demand");
    assert_string_equal(str(od, "basis"), "measured");
    json_object *cf = json_object_array_get_idx(cfgs, 3);
    assert_string_equal(str(cf, "configuration"), "on-demand");
    assert_string_equal(str(cf, "basis"), "counterfactual");
    assert_int_equal(integer(cf, "tasks_succeeded"), 3);
    assert_int_equal(integer(cf, "work_seconds"), 8880);
    assert_non_null(strstr(str(cf, "basis_description"), "run time for 3"));

    assert_non_null(strstr(text, "\"nodes_total_cost\":14.4,\"allocated_cost\":8.92,"
                                 "\"idle_cost\":5.48,\"unattributed_idle_cost\":0,"));
    json_object *rec = get(root, "reclaims");
    assert_int_equal(json_object_array_length(rec), 1);
    json_object *r0 = json_object_array_get_idx(rec, 0);
    assert_string_equal(str(r0, "gone_at"), "2026-03-02T02:00:00Z");
    assert_true(json_object_is_type(get(r0, "first_signal_at"), json_type_null));
    assert_int_equal(integer(r0, "return_to_useful_work_seconds"), 120);
    json_object_put(root);
}

static void test_nodes_reclaims_pools(void **state) {
    struct world *w = *state;
    assert_int_equal(report_nodes_json(w->r, &w->out), ERR_OK);
    assert_string_equal(
        buf_str(&w->out),
        /* nodes in name order */
        "[{\"name\":\"F\",\"pool_id\":\"pool-fb\",\"pool\":\"gpu-fallback\",\"price_hourly\":3.6,"
        "\"billable_start\":\"2026-03-02T00:00:00Z\",\"deleted_at\":\"2026-03-02T03:00:00Z\","
        "\"billable_seconds\":10800,\"cost\":10.8,\"allocated_cost\":5.34,\"idle_cost\":5.46},"
        "{\"name\":\"S\",\"pool_id\":\"pool-spot\",\"pool\":\"gpu-spot\",\"price_hourly\":1.8,"
        "\"billable_start\":\"2026-03-02T00:00:00Z\",\"deleted_at\":\"2026-03-02T02:00:00Z\","
        "\"billable_seconds\":7200,\"cost\":3.6,\"allocated_cost\":3.58,\"idle_cost\":0.02}]");
    buf_reset(&w->out);
    assert_int_equal(report_reclaims_json(w->r, &w->out), ERR_OK);
    json_object *rec = parse(&w->out);
    assert_int_equal(json_object_array_length(rec), 1);
    json_object *r0 = json_object_array_get_idx(rec, 0);
    assert_string_equal(str(r0, "pool_id"), "pool-spot");
    assert_int_equal(integer(r0, "tasks_interrupted"), 1);
    assert_string_equal(str(r0, "first_resumed_at"), "2026-03-02T02:02:00Z");
    json_object_put(rec);
    buf_reset(&w->out);
    assert_int_equal(report_pools_json(w->r, &w->out), ERR_OK);
    json_object *pools = parse(&w->out);
    assert_int_equal(json_object_array_length(pools), 2);  /* unknown pool unused: left out */
    json_object *p0 = json_object_array_get_idx(pools, 1); /* id order: pool-fb, pool-spot */
    assert_string_equal(str(p0, "capacity_type"), "spot");
    assert_non_null(strstr(buf_str(&w->out), "\"on_demand_price_hourly\":3.6,"));
    json_object_put(pools);
}

/* A capped buffer: ERR_TOOBIG and the buffer as it was. */
static void test_too_big(void **state) {
    struct world *w = *state;
    struct buf small;
    buf_init(&small, 64);
    assert_int_equal(buf_puts(&small, "prefix"), ERR_OK);
    assert_int_equal(report_summary_json(w->r, &small), ERR_TOOBIG);
    assert_string_equal(buf_str(&small), "prefix");
    assert_int_equal(report_nodes_json(NULL, &small), ERR_INVAL);
    buf_release(&small);
}

/* Filtered to on-demand only: no counterfactual entry, one configuration. */
static void test_filtered(void **state) {
    struct world *w = *state;
    struct cost_input in = {w->pools, 2, w->nodes, 2, w->tasks, 3, w->attempts, 4, PRICES, 1};
    struct cost_query q = {
        .from = T0, .to = T0 + 86400, .now = T0 + 86400, .configs = 1u << COST_ON_DEMAND};
    struct cost_result *r = NULL;
    assert_int_equal(cost_compute(&in, &q, &r), ERR_OK);
    assert_int_equal(report_summary_json(r, &w->out), ERR_OK);
    json_object *root = parse(&w->out);
    json_object *cfgs = get(root, "configurations");
    assert_int_equal(json_object_array_length(cfgs), 1);
    assert_non_null(strstr(buf_str(&w->out), "\"excluded_cost\":14.4,"));
    json_object_put(root);
    cost_result_free(r);
}

/* The same world with pools and nodes listed in the other order serializes
 * byte for byte the same (the store and the simulator order them differently;
 * spotledger's summary must equal spotsim's truth). */
static void test_order_independent(void **state) {
    struct world *w = *state;
    struct buf b1, b2;
    buf_init(&b1, 0);
    buf_init(&b2, 0);
    assert_int_equal(report_summary_json(w->r, &b1), ERR_OK);
    assert_int_equal(report_nodes_json(w->r, &b1), ERR_OK);
    assert_int_equal(report_pools_json(w->r, &b1), ERR_OK);
    struct cost_pool pools[2] = {w->pools[1], w->pools[0]};
    struct cost_node nodes[2] = {w->nodes[1], w->nodes[0]};
    nodes[0].pool = 0; /* F on pool-fb, now first */
    nodes[1].pool = 1; /* S on pool-spot */
    struct cost_attempt attempts[4];
    memcpy(attempts, w->attempts, sizeof attempts);
    for (int i = 0; i < 4; i++)
        attempts[i].node = 1 - attempts[i].node;
    struct cost_input in = {pools, 2, nodes, 2, w->tasks, 3, attempts, 4, PRICES, 1};
    struct cost_query q = {.from = T0, .to = T0 + 86400, .now = T0 + 86400};
    struct cost_result *r2 = NULL;
    assert_int_equal(cost_compute(&in, &q, &r2), ERR_OK);
    assert_int_equal(report_summary_json(r2, &b2), ERR_OK);
    assert_int_equal(report_nodes_json(r2, &b2), ERR_OK);
    assert_int_equal(report_pools_json(r2, &b2), ERR_OK);
    assert_string_equal(buf_str(&b1), buf_str(&b2));
    cost_result_free(r2);
    buf_release(&b1);
    buf_release(&b2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_summary_worked_example, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nodes_reclaims_pools, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_big, setup, teardown),
        cmocka_unit_test_setup_teardown(test_filtered, setup, teardown),
        cmocka_unit_test_setup_teardown(test_order_independent, setup, teardown),
    };
    return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
