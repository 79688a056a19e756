/* tests for store_do (price history, reclaim withdrawal, dedupe) and reconcile
 * (per-second rule, 60 s minimum, 672 h cap, item matching, the loader). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store/store_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "engine/reconcile.h"
#include "store/store.h"
#include "store/store_do.h"
#include "store/store_insights.h"
#include "testdb.h"

/* reconcile_* structs own their strings; test literals are cast, never freed */
#define S(x) ((char *)(x))

/* The 1-GPU spot size the cases list, at 1.800000 $/h. */
static struct do_size size_x_spot(void) {
    return (struct do_size){.slug = S("gpu-x-spot"),
                            .vcpus = 8,
                            .memory_mb = 1024,
                            .gpu_count = 1,
                            .gpu_vram_gb = 80,
                            .price_hourly = 1800000,
                            .price_monthly = 1209600000};
}

static void test_price_history_only_on_change(void **state) {
    struct testdb_fx *f = *state;
    struct do_size z = size_x_spot();
    bool changed;
    assert_int_equal(store_begin(f->s), ERR_OK);
    assert_int_equal(store_do_upsert_size(f->s, &z, 100, &changed), ERR_OK);
    assert_true(changed);
    assert_int_equal(store_do_upsert_size(f->s, &z, 200, &changed), ERR_OK);
    assert_false(changed);
    z.price_hourly = 1700000; /* the daily spot price moved */
    assert_int_equal(store_do_upsert_size(f->s, &z, 300, &changed), ERR_OK);
    assert_true(changed);
    int64_t h;
    assert_int_equal(store_do_size_price(f->s, "gpu-x-spot", &h), ERR_OK);
    assert_int_equal(h, 1700000);
    assert_int_equal(store_do_size_price(f->s, "nope", &h), ERR_NOTFOUND);
    assert_int_equal(store_commit(f->s), ERR_OK);
}

static void test_node_price_locked_and_reclaim_withdrawn(void **state) {
    struct testdb_fx *f = *state;
    struct do_node n = {
        .id = S("n1"), .name = S("node-1"), .droplet_id = S("42"), .created_at = 1000};
    struct do_pool p = {.id = S("pool-1"),
                        .name = S("spot"),
                        .size = S("gpu-x-spot"),
                        .count = 1,
                        .nodes = &n,
                        .n_nodes = 1};
    struct do_pools listed = {.v = &p, .n = 1};
    struct do_pools none = {0};
    int pg, ng;
    assert_int_equal(store_begin(f->s), ERR_OK);
    assert_int_equal(store_do_upsert_pool(f->s, "c1", &p, "spot", "slug", 1800000, 1000), ERR_OK);
    assert_int_equal(store_do_upsert_node(f->s, &p, &n, "spot", 1800000, 1000), ERR_OK);
    /* a later sighting at another price keeps the first one */
    assert_int_equal(store_do_upsert_node(f->s, &p, &n, "spot", 1700000, 2000), ERR_OK);
    assert_int_equal(store_do_mark_vanished(f->s, "c1", &listed, 2000, &pg, &ng), ERR_OK);
    assert_int_equal(pg + ng, 0);
    assert_int_equal(store_do_mark_vanished(f->s, "c1", &none, 3000, &pg, &ng), ERR_OK);
    assert_int_equal(pg, 1);
    assert_int_equal(ng, 1);
    /* listed again (a glitch): the reclaim is withdrawn, the deletion cleared */
    assert_int_equal(store_do_upsert_pool(f->s, "c1", &p, "spot", "slug", 1800000, 4000), ERR_OK);
    assert_int_equal(store_commit(f->s), ERR_OK);
    struct reconcile_input in;
    assert_int_equal(store_do_reconcile_input(f->s, "1970-01", "c1", &in), ERR_OK);
    assert_int_equal(in.n_nodes, 1);
    assert_int_equal(in.nodes[0].price_hourly, 1800000);
    assert_int_equal(in.nodes[0].start, 1000);
    assert_int_equal(in.nodes[0].end, 3000); /* the node itself was not listed again */
    reconcile_input_release(&in);
}

/* A node only Kubernetes saw (no price of its own) is reconciled at its pool's
 * size's price in force at its creation, as the cost engine bills it
 * (docs/cost-model.md "Node rate"): pool first seen at 1.800000 $/h (t 1000);
 * the list price drops to 1.700000 at t 1500; node-k created at t 2000 ->
 * 1700000 µ$/h (v1: the pool's 1800000). node-e, created at t 500 before any
 * recorded price, keeps the pool's 1800000. */
static void test_reconcile_node_price_in_force(void **state) {
    struct testdb_fx *f = *state;
    struct do_size z = size_x_spot();
    struct do_pool p = {.id = S("pool-1"), .name = S("spot"), .size = S("gpu-x-spot"), .count = 0};
    assert_int_equal(store_begin(f->s), ERR_OK);
    assert_int_equal(store_do_upsert_size(f->s, &z, 1000, NULL), ERR_OK);
    assert_int_equal(store_do_upsert_pool(f->s, "c1", &p, "spot", "slug", 1800000, 1000), ERR_OK);
    z.price_hourly = 1700000;
    assert_int_equal(store_do_upsert_size(f->s, &z, 1500, NULL), ERR_OK);
    assert_int_equal(store_commit(f->s), ERR_OK);
    char *err = NULL;
    assert_int_equal(
        sqlite3_exec(store_db(f->s),
                     "INSERT INTO nodes(name, pool_id, created_at, ready_at, k8s_deleted_at,"
                     " first_seen, last_seen) VALUES ('node-k', 'pool-1', 2000, 2010, 2100, 2000,"
                     " 2100), ('node-e', 'pool-1', 500, 510, 600, 500, 600)",
                     NULL, NULL, &err),
        SQLITE_OK);
    struct reconcile_input in;
    assert_int_equal(store_do_reconcile_input(f->s, "1970-01", "c1", &in), ERR_OK);
    assert_int_equal(in.n_nodes, 2);
    assert_string_equal(in.nodes[0].name, "node-e");
    assert_int_equal(in.nodes[0].price_hourly, 1800000);
    assert_string_equal(in.nodes[1].name, "node-k");
    assert_int_equal(in.nodes[1].price_hourly, 1700000);
    reconcile_input_release(&in);
}

static void test_billing_dedupe(void **state) {
    struct testdb_fx *f = *state;
    struct do_billing_entry b = {
        .date = 5, .type = S("Payment"), .description = S("x"), .amount = -100};
    struct do_balance bal = {.month_to_date_balance = 1,
                             .account_balance = 2,
                             .month_to_date_usage = 3,
                             .generated_at = 10};
    assert_int_equal(store_begin(f->s), ERR_OK);
    assert_int_equal(store_do_add_billing_entry(f->s, &b), ERR_OK);
    assert_int_equal(store_do_add_billing_entry(f->s, &b), ERR_OK);
    assert_int_equal(store_do_add_balance(f->s, &bal, 100), ERR_OK);
    assert_int_equal(store_do_add_balance(f->s, &bal, 200), ERR_OK); /* same snapshot */
    bal.month_to_date_usage = 4;
    assert_int_equal(store_do_add_balance(f->s, &bal, 300), ERR_OK);
    assert_int_equal(store_commit(f->s), ERR_OK);
    /* counted through the reconcile-independent route: a raw read */
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(f->db.path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db,
                       "SELECT (SELECT COUNT(*) FROM billing_history), (SELECT COUNT(*) FROM "
                       "balance_snapshots)",
                       -1, &st, NULL);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 1);
    assert_int_equal(sqlite3_column_int(st, 1), 2);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* --- reconcile --- */

static void test_node_seconds_rule(void **state) {
    (void)state;
    int64_t ps, pe;
    assert_int_equal(reconcile_period_bounds("2026-11", &ps, &pe), ERR_OK);
    assert_int_equal(pe - ps, 30 * 86400);
    assert_int_equal(reconcile_period_bounds("2026-13", &ps, &pe), ERR_PARSE);
    assert_int_equal(reconcile_period_bounds("2026-11", &ps, &pe), ERR_OK);
    /* per second */
    assert_int_equal(reconcile_node_seconds(ps + 10, ps + 7210, 0, ps, pe), 7200);
    /* 60 s minimum: the billed life is [start, start + 60), so a node Ready 10 s
     * before the month and gone 5 s later bills 50 s of it in this month (the
     * one rule of model/billing.h, the engine's too) */
    assert_int_equal(reconcile_node_seconds(ps + 10, ps + 20, 0, ps, pe), 60);
    assert_int_equal(reconcile_node_seconds(ps - 10, ps - 5, 0, ps, pe), 50);
    assert_int_equal(reconcile_node_seconds(ps - 70, ps - 65, 0, ps, pe), 0);
    /* 672 h cap per calendar month */
    assert_int_equal(reconcile_node_seconds(ps, pe, 0, ps, pe), 672LL * 3600);
    /* still running: up to now */
    assert_int_equal(reconcile_node_seconds(ps, 0, ps + 100, ps, pe), 100);
    /* straddling months: only the part inside */
    assert_int_equal(reconcile_node_seconds(ps - 3600, ps + 3600, 0, ps, pe), 3600);
}

static void test_reconcile_worked_example(void **state) {
    (void)state;
    /* the worked example: S $1.80/h lives 0-7200 s, F $3.60/h lives 0-10800 s: $3.600 + $10.800 */
    struct reconcile_pool pools[] = {{S("ps"), S("gpu-spot"), S("spot")},
                                     {S("pf"), S("gpu-fb"), S("on-demand")}};
    int64_t ps, pe;
    reconcile_period_bounds(S("2026-11"), &ps, &pe);
    struct reconcile_node nodes[] = {
        {S("S"), S("do-s"), S("101"), S("ps"), 1800000, ps + 3600, ps + 3600 + 7200},
        {S("F"), S("do-f"), S("102"), S("pf"), 3600000, ps + 3600, ps + 3600 + 10800},
        {S("X"), NULL, NULL, S("pf"), -1, ps, ps + 100}, /* unpriced */
    };
    struct reconcile_item items[] = {
        {S("Kubernetes Clusters"), S("ps"), NULL, S("lab"), S("spot pool"), 3610000}, /* rule 1 */
        {S("Droplets"), NULL, S("102"), S(""), S("whatever"), 5000000},               /* rule 2 */
        {S("Kubernetes Clusters"), S("c1"), NULL, S("lab"), S("gpu-fb: 1 node"),
         5800000},                                                                   /* rule 3 */
        {S("Kubernetes Clusters"), NULL, NULL, S("lab"), S("control plane"), 10000}, /* rule 4 */
        {S("Spaces"), NULL, NULL, NULL, S("Spaces"), 5000000},                       /* rule 5 */
    };
    struct reconcile_input in = {.period_start = ps,
                                 .period_end = pe,
                                 .cluster_id = S("c1"),
                                 .cluster_name = S("lab"),
                                 .invoice_uuid = S("u"),
                                 .pools = pools,
                                 .n_pools = 2,
                                 .nodes = nodes,
                                 .n_nodes = 3,
                                 .items = items,
                                 .n_items = 5};
    memcpy(in.period, "2026-11", 8);
    struct reconcile_result r;
    assert_int_equal(reconcile_compute(&in, pe, &r), ERR_OK);
    assert_int_equal(r.n_lines, 4);
    assert_int_equal(r.lines[0].kind, RECONCILE_POOL);
    assert_string_equal(r.lines[0].pool_id, "ps");
    assert_int_equal(r.lines[0].estimated, 3600000);
    assert_int_equal(r.lines[0].billed, 3610000);
    assert_int_equal(r.lines[0].diff, 10000);
    assert_int_equal(r.lines[0].diff_bp, 28); /* 0.28 % */
    assert_true(r.lines[0].diff_bp_valid);
    assert_int_equal(r.lines[1].estimated, 10800000);
    assert_int_equal(r.lines[1].billed, 10800000);
    assert_int_equal(r.lines[1].items, 2);
    assert_int_equal(r.lines[1].unpriced_nodes, 1);
    assert_int_equal(r.lines[1].node_seconds, 10800 + 100);
    assert_int_equal(r.lines[2].kind, RECONCILE_CLUSTER);
    assert_int_equal(r.lines[2].billed, 10000);
    assert_false(r.lines[2].diff_bp_valid);
    assert_int_equal(r.lines[3].kind, RECONCILE_TOTAL);
    assert_int_equal(r.lines[3].estimated, 14400000);
    assert_int_equal(r.lines[3].billed, 14420000);
    assert_int_equal(r.unmatched_items, 1);
    assert_int_equal(r.unmatched_amount, 5000000);
    reconcile_result_release(&r);
}

/* A node only Kubernetes saw (it lived between two DigitalOcean polls) has no
 * price of its own: the reconciliation loader prices it at its pool's rate, as
 * the cost engine does, instead of counting it unpriced (regression). */
static void test_reconcile_node_priced_by_pool(void **state) {
    struct testdb_fx *f = *state;
    int64_t ps, pe;
    reconcile_period_bounds("2026-11", &ps, &pe);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "INSERT INTO clusters(id, name, first_seen, last_seen) VALUES ('c1','lab',1,1);"
             "INSERT INTO node_pools(id, cluster_id, name, size, capacity_type, "
             " price_hourly_micro, first_seen, last_seen) "
             " VALUES ('pf','c1','gpu-fb','gpu-x','on-demand',3600000,1,1);"
             "INSERT INTO nodes(name, k8s_uid, pool_id, ready_at, k8s_deleted_at, first_seen, "
             " last_seen) VALUES ('k8s-only','u1','pf',%lld,%lld,1,1);",
             (long long)(ps + 3600), (long long)(ps + 3600 + 1800));
    assert_int_equal(sqlite3_exec(store_db(f->s), sql, NULL, NULL, NULL), SQLITE_OK);
    struct reconcile_result r;
    assert_int_equal(store_do_reconcile(f->s, "2026-11", "c1", pe, &r), ERR_OK);
    assert_int_equal(r.lines[0].unpriced_nodes, 0);
    assert_int_equal(r.lines[0].node_seconds, 1800);
    assert_int_equal(r.lines[0].estimated, 1800000); /* 1800 s x $3.60/h */
    reconcile_result_release(&r);
}

static void test_reconcile_min_charge(void **state) {
    (void)state;
    int64_t ps, pe;
    reconcile_period_bounds("2026-11", &ps, &pe);
    struct reconcile_pool pools[] = {{S("p"), S("tiny"), S("on-demand")}};
    struct reconcile_node nodes[] = {{S("n"), NULL, NULL, S("p"), 7440, ps + 5, ps + 10}};
    struct reconcile_input in = {.period_start = ps,
                                 .period_end = pe,
                                 .pools = pools,
                                 .n_pools = 1,
                                 .nodes = nodes,
                                 .n_nodes = 1};
    struct reconcile_result r;
    assert_int_equal(reconcile_compute(&in, pe, &r), ERR_OK);
    assert_int_equal(r.lines[0].node_seconds, 60);
    assert_int_equal(r.lines[0].estimated, 10000); /* $0.01 floor */
    reconcile_result_release(&r);
}

/* store_do_has_invoice: a month is listed in a window's reconciliation only
 * with an invoice; it says so exactly when store_do_reconcile's has_invoice
 * would (the preview counts). */
static void test_has_invoice(void **state) {
    struct testdb_fx *f = *state;
    bool has = true;
    assert_int_equal(store_do_has_invoice(f->s, "2026-11", &has), ERR_OK);
    assert_false(has);
    struct do_invoice inv = {
        .uuid = S("inv-1"), .period = S("2026-11"), .amount = 100, .preview = true};
    assert_int_equal(store_do_upsert_invoice(f->s, &inv, 10), ERR_OK);
    assert_int_equal(store_do_has_invoice(f->s, "2026-11", &has), ERR_OK);
    assert_true(has);
    assert_int_equal(store_do_has_invoice(f->s, "2026-10", &has), ERR_OK);
    assert_false(has);
    struct reconcile_result r;
    assert_int_equal(store_do_reconcile(f->s, "2026-11", NULL, 20, &r), ERR_OK);
    assert_true(r.has_invoice);
    reconcile_result_release(&r);
    assert_int_equal(store_do_reconcile(f->s, "2026-10", NULL, 20, &r), ERR_OK);
    assert_false(r.has_invoice);
    reconcile_result_release(&r);
}

/* Billing insights (issue 19): daily points stored, then summed per pool by the
 * reconciliation with the invoice items' matching rules. By hand, period 2026-11,
 * cluster 'lab' with pools gpu-spot and gpu-fb:
 *   gpu-spot: 11-01 43.20 + 11-02 21.60 (re-polled: first 10.00)  = 64.80, 2 points
 *   gpu-fb:   11-02 86.40                                          = 86.40, 1 point
 *   cluster:  11-02 "3 nodes - 4 GB" (no pool name in it)          =  1.71, 1 point
 *   total:    64.80 + 86.40 + 1.71                                 = 152.91, 4 points
 *   unmatched: a Droplet outside the cluster (1 point); 10-31 is outside the period. */
static void test_reconcile_insights(void **state) {
    struct testdb_fx *f = *state;
    assert_int_equal(
        sqlite3_exec(
            store_db(f->s),
            "INSERT INTO clusters(id, name, region, version, first_seen, last_seen) VALUES ('c1', "
            "'lab', 'tor1', '1.33', 1, 1);"
            "INSERT INTO node_pools(id, cluster_id, name, size, capacity_type, capacity_basis,"
            " price_hourly_micro, auto_scale, min_nodes, max_nodes, node_count, labels_json, "
            "taints_json,"
            " first_seen, last_seen, deleted_at) VALUES"
            " ('ps', 'c1', 'gpu-spot', 'gpu-x-spot', 'spot', 'slug', 1800000, 0, 0, 0,"
            "  1, NULL, '[]', 1, 1, NULL),"
            " ('pf', 'c1', 'gpu-fb', 'gpu-x', 'on-demand', 'slug', 3600000, 1, 0, 2, 0,"
            "  NULL, '[]', 1, 1, NULL);",
            NULL, NULL, NULL),
        SQLITE_OK);
    int64_t ps, pe;
    assert_int_equal(reconcile_period_bounds("2026-11", &ps, &pe), ERR_OK);
    const int64_t D = 86400;
    struct do_insight pts[] = {
        {ps, 43200000, S("K8S"), S("tor1"), S("gpu-spot nodes (gpu-x-spot)"), S("lab")},
        {ps + D, 10000000, S("K8S"), S("tor1"), S("gpu-spot nodes (gpu-x-spot)"), S("lab")},
        {ps + D, 21600000, S("K8S"), S("tor1"), S("gpu-spot nodes (gpu-x-spot)"), S("lab")},
        {ps + D, 86400000, S("K8S"), S("tor1"), S("gpu-fb nodes (gpu-x)"), S("lab")},
        {ps + D, 1710000, S("K8S"), S("tor1"), S("3 nodes - 4 GB / 2 vCPU"), S("lab")},
        {ps + 2 * D, 860000, S("DROP"), S("nyc3"), S("droplet name (c-2-4GiB)"), S("")},
        {ps - D, 99000000, S("K8S"), S("tor1"), S("gpu-spot nodes (gpu-x-spot)"), S("lab")},
    };
    assert_int_equal(store_begin(f->s), ERR_OK);
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++)
        assert_int_equal(store_insights_put(f->s, &pts[i], ps + 3 * D), ERR_OK);
    assert_int_equal(store_commit(f->s), ERR_OK);
    struct reconcile_result r;
    assert_int_equal(store_do_reconcile(f->s, "2026-11", "c1", ps + 3 * D, &r), ERR_OK);
    int64_t spot = -1, fb = -1, cluster = -1, total = -1;
    int spot_n = 0, fb_n = 0, cluster_n = 0, total_n = 0;
    for (size_t i = 0; i < r.n_lines; i++) {
        const struct reconcile_line *l = &r.lines[i];
        if (l->kind == RECONCILE_POOL && !strcmp(l->pool_id, "ps"))
            spot = l->insights, spot_n = l->insight_points;
        else if (l->kind == RECONCILE_POOL && !strcmp(l->pool_id, "pf"))
            fb = l->insights, fb_n = l->insight_points;
        else if (l->kind == RECONCILE_CLUSTER)
            cluster = l->insights, cluster_n = l->insight_points;
        else if (l->kind == RECONCILE_TOTAL)
            total = l->insights, total_n = l->insight_points;
    }
    assert_int_equal(spot, 64800000);
    assert_int_equal(spot_n, 2);
    assert_int_equal(fb, 86400000);
    assert_int_equal(fb_n, 1);
    assert_int_equal(cluster, 1710000);
    assert_int_equal(cluster_n, 1);
    assert_int_equal(total, 152910000);
    assert_int_equal(total_n, 4);
    assert_int_equal(r.unmatched_insights, 1);
    assert_false(r.has_invoice); /* insights need no invoice */
    reconcile_result_release(&r);
}

int main(void) {
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_price_history_only_on_change, testdb_fx_setup,
                                        testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_node_price_locked_and_reclaim_withdrawn,
                                        testdb_fx_setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_billing_dedupe, testdb_fx_setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_reconcile_node_price_in_force, testdb_fx_setup,
                                        testdb_fx_teardown),
        cmocka_unit_test(test_node_seconds_rule),
        cmocka_unit_test(test_reconcile_worked_example),
        cmocka_unit_test(test_reconcile_min_charge),
        cmocka_unit_test_setup_teardown(test_reconcile_node_priced_by_pool, testdb_fx_setup,
                                        testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_reconcile_insights, testdb_fx_setup,
                                        testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_has_invoice, testdb_fx_setup, testdb_fx_teardown),
    };
    return cmocka_run_group_tests_name("store_do", tests, NULL, NULL);
}
