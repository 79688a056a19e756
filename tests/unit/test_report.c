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

#include "cost_fx.h"

/* The worked example of docs/cost-model.md (cost_fx.h; test_cost.c has the
 * arithmetic), computed over its day, and a buffer for the bodies. */
struct world {
    struct fx *f;
    struct buf out;
};

static int setup(void **state) {
    struct world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    fx_setup((void **)&w->f);
    worked_example(w->f);
    assert_int_equal(run(w->f), ERR_OK);
    buf_init(&w->out, 0);
    *state = w;
    return 0;
}

static int teardown(void **state) {
    struct world *w = *state;
    fx_teardown((void **)&w->f);
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
    assert_int_equal(report_summary_json(w->f->r, &w->out), ERR_OK);
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
    assert_int_equal(report_nodes_json(w->f->r, &w->out), ERR_OK);
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
    assert_int_equal(report_reclaims_json(w->f->r, &w->out), ERR_OK);
    json_object *rec = parse(&w->out);
    assert_int_equal(json_object_array_length(rec), 1);
    json_object *r0 = json_object_array_get_idx(rec, 0);
    assert_string_equal(str(r0, "pool_id"), "pool-spot");
    assert_int_equal(integer(r0, "tasks_interrupted"), 1);
    assert_string_equal(str(r0, "first_resumed_at"), "2026-03-02T02:02:00Z");
    json_object_put(rec);
    buf_reset(&w->out);
    assert_int_equal(report_pools_json(w->f->r, &w->out), ERR_OK);
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
    assert_int_equal(report_summary_json(w->f->r, &small), ERR_TOOBIG);
    assert_string_equal(buf_str(&small), "prefix");
    assert_int_equal(report_nodes_json(NULL, &small), ERR_INVAL);
    buf_release(&small);
}

/* Filtered to on-demand only: no counterfactual entry, one configuration. */
static void test_filtered(void **state) {
    struct world *w = *state;
    w->f->q.configs = 1u << COST_ON_DEMAND;
    assert_int_equal(run(w->f), ERR_OK);
    assert_int_equal(report_summary_json(w->f->r, &w->out), ERR_OK);
    json_object *root = parse(&w->out);
    json_object *cfgs = get(root, "configurations");
    assert_int_equal(json_object_array_length(cfgs), 1);
    assert_non_null(strstr(buf_str(&w->out), "\"excluded_cost\":14.4,"));
    json_object_put(root);
}

/* The same world with pools and nodes listed in the other order serializes
 * byte for byte the same (the store and the simulator order them differently;
 * spotledger's summary must equal spotsim's truth). */
static void test_order_independent(void **state) {
    struct world *w = *state;
    const struct fx *f = w->f;
    struct buf b1, b2;
    buf_init(&b1, 0);
    buf_init(&b2, 0);
    assert_int_equal(report_summary_json(w->f->r, &b1), ERR_OK);
    assert_int_equal(report_nodes_json(w->f->r, &b1), ERR_OK);
    assert_int_equal(report_pools_json(w->f->r, &b1), ERR_OK);
    struct cost_pool pools[2] = {f->pools[1], f->pools[0]};
    struct cost_node nodes[2] = {f->nodes[1], f->nodes[0]};
    nodes[0].pool = 0; /* F on pool-fb, now first */
    nodes[1].pool = 1; /* S on pool-spot */
    struct cost_attempt attempts[4];
    memcpy(attempts, f->attempts, sizeof attempts);
    for (int i = 0; i < 4; i++)
        attempts[i].node = 1 - attempts[i].node;
    struct cost_input in = {pools, 2, nodes, 2, f->tasks, 3, attempts, 4, f->prices, f->nprices};
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
