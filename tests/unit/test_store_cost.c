/* test_store_cost — the window loader's Spot detection from the Kubernetes
 * Node's labels (docs/cost-model.md "Spot pools and reclaims"): the
 * --spot-label pairs it is given replace the two defaults, in the window load
 * and in the one-task load alike.
 *
 * Rows: pool p-pre (size gpu-y, no "-spot", capacity on-demand as the DO poller
 * saw it) whose node y1 carries cloud.example/capacity=preemptible; pool p-def
 * (gpu-z) whose node z1 carries the default label gpu-pool-type=spot; pool p-od
 * (gpu-x) with an unlabelled node x1 and one whose labels are not JSON. One task
 * J with one attempt on y1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "base/log.h"
#include "store/store.h"
#include "store/store_cost.h"
#include "testdb.h"

static int setup(void **state) {
    log_set_level(LOG_OFF);
    struct testdb_fx *f = testdb_fx_new();
    testdb_exec(
        &f->db,
        "INSERT INTO node_pools(id, name, size, capacity_type, price_hourly_micro, first_seen,"
        " last_seen) VALUES ('p-pre', 'pre', 'gpu-y', 'on-demand', 1800000, 1, 1),"
        " ('p-def', 'def', 'gpu-z', 'on-demand', 1800000, 1, 1),"
        " ('p-od', 'od', 'gpu-x', 'on-demand', 3600000, 1, 1);"
        "INSERT INTO nodes(name, pool_id, price_hourly_micro, created_at, ready_at,"
        " gpu_allocatable, cpu_allocatable_milli, labels_json, first_seen, last_seen) VALUES"
        " ('y1', 'p-pre', 1800000, 1000, 1000, 1, 8000,"
        "  '{\"cloud.example/capacity\":\"preemptible\",\"x\":\"spot\"}', 1, 1),"
        " ('z1', 'p-def', 1800000, 1000, 1000, 1, 8000, '{\"gpu-pool-type\":\"spot\"}', 1, 1),"
        " ('x1', 'p-od', 3600000, 1000, 1000, 1, 8000, NULL, 1, 1),"
        " ('x2', 'p-od', 3600000, 1000, 1000, 1, 8000, 'not json', 1, 1);"
        "INSERT INTO tasks(uid, job_uid, namespace, name, configuration, created_at,"
        " completed_at, outcome, first_seen, last_seen) VALUES"
        " ('J', 'J', 'ns', 'j', 'spot', 1000, 2000, 'succeeded', 1, 1);"
        "INSERT INTO attempts(uid, task_uid, namespace, name, node_name, gpu_request,"
        " cpu_request_milli, created_at, scheduled_at, started_at, finished_at, phase,"
        " first_seen, last_seen) VALUES"
        " ('j1', 'J', 'ns', 'j1', 'y1', 1, 1000, 1000, 1000, 1000, 2000, 'Succeeded', 1, 1);");
    assert_int_equal(store_open(f->db.path, STORE_READER, &f->s, NULL), ERR_OK);
    *state = f;
    return 0;
}

/* The capacity of pool id in d (fails when absent). */
static enum cost_capacity cap_of(const struct store_cost_data *d, const char *id) {
    for (size_t i = 0; i < d->in.n_pools; i++)
        if (strcmp(d->pools[i].id, id) == 0)
            return d->pools[i].capacity;
    fail_msg("no pool %s", id);
    return COST_CAP_ON_DEMAND;
}

static void test_default_labels(void **state) {
    struct testdb_fx *f = *state;
    struct store_cost_data *d = NULL;
    assert_int_equal(store_cost_load(f->s, 0, 10000, NULL, &d), ERR_OK);
    assert_int_equal(d->in.n_pools, 3);
    assert_int_equal(cap_of(d, "p-pre"), COST_CAP_ON_DEMAND);
    assert_int_equal(cap_of(d, "p-def"), COST_CAP_SPOT);
    assert_int_equal(cap_of(d, "p-od"), COST_CAP_ON_DEMAND);
    store_cost_free(d);
}

/* --spot-label cloud.example/capacity=preemptible: p-pre is spot, p-def (only
 * the default label) is not; a value that differs ("x": "spot" is not
 * x=preemptible) does not match. Fails before: p-pre on-demand. */
static void test_configured_labels(void **state) {
    struct testdb_fx *f = *state;
    struct config_pair lab[] = {{(char *)"cloud.example/capacity", (char *)"preemptible"},
                                {(char *)"x", (char *)"preemptible"}};
    struct store_cost_opts o = {
        .default_config = COST_FALLBACK, .spot_labels = lab, .n_spot_labels = 2};
    struct store_cost_data *d = NULL;
    assert_int_equal(store_cost_load(f->s, 0, 10000, &o, &d), ERR_OK);
    assert_int_equal(cap_of(d, "p-pre"), COST_CAP_SPOT);
    assert_int_equal(cap_of(d, "p-def"), COST_CAP_ON_DEMAND);
    assert_int_equal(cap_of(d, "p-od"), COST_CAP_ON_DEMAND);
    store_cost_free(d);
    /* the one-task load (task views) reads the same pools */
    assert_int_equal(store_cost_load_task(f->s, "J", &o, &d), ERR_OK);
    assert_int_equal(d->in.n_tasks, 1);
    assert_int_equal(cap_of(d, "p-pre"), COST_CAP_SPOT);
    store_cost_free(d);
    /* a label key with a quote is data, not SQL or a JSON path */
    struct config_pair odd = {(char *)"a'\"b", (char *)"c"};
    o.spot_labels = &odd;
    o.n_spot_labels = 1;
    assert_int_equal(store_cost_load(f->s, 0, 10000, &o, &d), ERR_OK);
    assert_int_equal(cap_of(d, "p-pre"), COST_CAP_ON_DEMAND);
    store_cost_free(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_default_labels, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_configured_labels, setup, testdb_fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
