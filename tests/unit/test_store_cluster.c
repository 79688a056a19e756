/* test_store_cluster — one writer, several clusters (schema/009, docs/fleet.md):
 * rows carry the cluster the writer was set to when they were written, a
 * relist of one cluster never marks another cluster's rows deleted, and poll
 * runs are kept per cluster for the per-cluster sources only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sqlite3.h>
#include <unistd.h>

#include "base/log.h"
#include "k8s_fixtures.h"
#include "k8s_load.h"
#include "source/k8s_api.h"
#include "store/store.h"
#include "store/store_do.h"
#include "store/store_k8s.h"
#include "testdb.h"

#define T (TESTDB_T0 + 3600)

static void load_list(struct store *s, const char *name, enum k8s_kind kind) {
    k8s_load_list(s, OWN_K8S, name, kind, T);
}

/* An empty relist of kind under the writer's current cluster; returns how many
 * rows it marked deleted. */
static int64_t empty_relist(struct store *s, enum k8s_kind kind, int64_t at) {
    int64_t n = -1;
    assert_int_equal(store_begin(s), ERR_OK);
    assert_int_equal(store_k8s_seen_reset(s, kind), ERR_OK);
    assert_int_equal(store_k8s_mark_vanished(s, kind, NULL, at, &n), ERR_OK);
    assert_int_equal(store_commit(s), ERR_OK);
    return n;
}

static void test_rows_carry_cluster(void **state) {
    (void)state;
    log_set_level(LOG_OFF);
    struct testdb d;
    testdb_create(&d);
    struct store *s = NULL;
    assert_int_equal(store_open(d.path, STORE_WRITER, &s, NULL), ERR_OK);
    assert_string_equal(store_cluster(s), STORE_DEFAULT_CLUSTER);
    char longname[STORE_CLUSTER_MAX + 1];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_int_equal(store_set_cluster(s, longname), ERR_INVAL);
    assert_string_equal(store_cluster(s), STORE_DEFAULT_CLUSTER);

    /* east: the own fixtures (3 tasks, 4 pods, nodes, events) */
    assert_int_equal(store_set_cluster(s, "east"), ERR_OK);
    load_list(s, "NodeList.json", K8S_NODE);
    load_list(s, "JobList.json", K8S_JOB);
    load_list(s, "PodList.json", K8S_POD);
    load_list(s, "EventList.json", K8S_EVENT);
    assert_int_equal(testdb_int(&d, "SELECT count(*) FROM tasks WHERE cluster = 'east'", NULL), 3);
    assert_int_equal(testdb_int(&d, "SELECT count(*) FROM attempts WHERE cluster = 'east'", NULL),
                     4);
    int64_t nodes = testdb_int(&d, "SELECT count(*) FROM nodes", NULL);
    assert_true(nodes > 0);
    assert_int_equal(testdb_int(&d, "SELECT count(*) FROM nodes WHERE cluster = 'east'", NULL),
                     nodes);
    assert_true(testdb_int(&d, "SELECT count(*) FROM events", NULL) > 0);
    assert_int_equal(testdb_int(&d, "SELECT count(*) FROM events WHERE cluster != 'east'", NULL),
                     0);

    /* west: a DigitalOcean pool with one node, listed and then gone (a reclaim) */
    assert_int_equal(store_set_cluster(s, "west"), ERR_OK);
    char nid[] = "dn-1", nname[] = "west-spot-1", nstate[] = "running";
    char pid[] = "pool-w", pname[] = "gpu-spot", psize[] = "gpu-x-spot";
    char cid[] = "do-west", cname[] = "west", cregion[] = "ams3";
    struct do_node dn = {.id = nid, .name = nname, .state = nstate};
    struct do_pool dp = {
        .id = pid, .name = pname, .size = psize, .count = 1, .nodes = &dn, .n_nodes = 1};
    struct do_cluster dc = {.id = cid, .name = cname, .region = cregion};
    assert_int_equal(store_begin(s), ERR_OK);
    assert_int_equal(store_do_upsert_cluster(s, &dc, T), ERR_OK);
    assert_int_equal(store_do_upsert_pool(s, "do-west", &dp, "spot", "slug", 1800000, T), ERR_OK);
    assert_int_equal(store_do_upsert_node(s, &dp, &dn, "spot", 1800000, T), ERR_OK);
    struct do_pools none = {0};
    int pg = -1, ng = -1;
    assert_int_equal(store_do_mark_vanished(s, "do-west", &none, T + 60, &pg, &ng), ERR_OK);
    assert_int_equal(store_commit(s), ERR_OK);
    assert_int_equal(pg, 1);
    assert_int_equal(ng, 1);
    assert_int_equal(testdb_int(&d, "SELECT count(*) FROM node_pools WHERE cluster = 'west'", NULL),
                     1);
    assert_int_equal(testdb_int(&d,
                                "SELECT count(*) FROM nodes WHERE cluster = 'west' AND name = ?1",
                                "west-spot-1"),
                     1);
    assert_int_equal(testdb_int(&d, "SELECT count(*) FROM reclaims WHERE cluster = 'west'", NULL),
                     1);
    assert_int_equal(testdb_int(&d, "SELECT count(*) FROM clusters WHERE cluster = 'west'", NULL),
                     1);

    /* west's empty relists touch none of east's rows */
    assert_int_equal(empty_relist(s, K8S_POD, T + 100), 0);
    assert_int_equal(empty_relist(s, K8S_JOB, T + 100), 0);
    assert_int_equal(empty_relist(s, K8S_NODE, T + 100), 0);
    assert_int_equal(
        testdb_int(&d, "SELECT count(*) FROM attempts WHERE deleted_at IS NOT NULL", NULL), 0);
    assert_int_equal(
        testdb_int(&d, "SELECT count(*) FROM tasks WHERE deleted_at IS NOT NULL", NULL), 0);
    /* east's own empty relist of pods removes its 4 pods */
    assert_int_equal(store_set_cluster(s, "east"), ERR_OK);
    assert_int_equal(empty_relist(s, K8S_POD, T + 200), 4);
    assert_int_equal(testdb_int(&d, "SELECT count(*) FROM attempts WHERE deleted_at = ?1",
                                "1793581400"), /* T0 + 3600 + 200 */
                     4);

    /* poll runs: k8s and do are a cluster's, billing the account's */
    int64_t id;
    assert_int_equal(store_set_cluster(s, "west"), ERR_OK);
    assert_int_equal(store_poll_begin(s, "k8s", T, &id), ERR_OK);
    assert_int_equal(store_poll_end(s, id, T + 1, T, "refused", 1, 0), ERR_OK);
    assert_int_equal(store_poll_begin(s, "do_billing", T, &id), ERR_OK);
    assert_int_equal(store_poll_end(s, id, T + 1, T, NULL, 1, 0), ERR_OK);
    assert_int_equal(store_set_cluster(s, "east"), ERR_OK);
    assert_int_equal(store_poll_begin(s, "k8s", T + 5, &id), ERR_OK);
    assert_int_equal(store_poll_end(s, id, T + 6, T + 5, NULL, 2, 7), ERR_OK);
    struct store_poll p;
    assert_int_equal(store_poll_last_cluster(s, "k8s", "west", false, &p), ERR_OK);
    assert_string_equal(p.status, "error");
    assert_string_equal(p.error, "refused");
    assert_int_equal(store_poll_last_cluster(s, "k8s", "west", true, &p), ERR_NOTFOUND);
    assert_int_equal(store_poll_last_cluster(s, "k8s", "east", true, &p), ERR_OK);
    assert_int_equal(p.items, 7);
    assert_int_equal(store_poll_last_cluster(s, "k8s", NULL, false, &p), ERR_OK);
    assert_int_equal(p.items, 7); /* the latest of any cluster */
    assert_int_equal(testdb_int(&d,
                                "SELECT count(*) FROM poll_runs WHERE source = 'do_billing'"
                                " AND cluster IS NULL",
                                NULL),
                     1);
    store_free(s);
    testdb_remove(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_carry_cluster),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
