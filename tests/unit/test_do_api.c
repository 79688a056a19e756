/* tests for do_api: DigitalOcean's official payloads (shared fixtures, when
 * present), the project's own fixtures, and bad input of every kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <json-c/json.h>

#include "source/do_api.h"
#include "source/do_insights.h"
#include "fake_http.h"
#include "base/log.h"

static char why[DO_API_WHY_MAX];

static char *own(const char *name, size_t *len) {
    return fake_fixture("tests/fixtures/do", name, len);
}

/* --- shared fixtures -------------------------------------------------------------- */

static int shared_dir(char *out, size_t cap) {
    const char *env = getenv("SHARED_FIXTURES");
    const char *root = getenv("SPOTLEDGER_ROOT");
    if (env && *env)
        snprintf(out, cap, "%s/do", env);
    else
        snprintf(out, cap, "%s/../shared/fixtures/do", root && *root ? root : ".");
    DIR *d = opendir(out);
    if (!d)
        return -1;
    closedir(d);
    return 0;
}

static void check_shared_sizes(const char *dir) {
    size_t len;
    char *b = fake_fixture(dir, "v2_sizes.json", &len);
    struct do_sizes l = {0};
    assert_int_equal(do_api_parse_sizes(b, len, &l, why, sizeof why), ERR_OK);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.v[0].slug, "s-1vcpu-1gb");
    /* 0.00743999984115362 from its literal, rounded to the micro-dollar */
    assert_int_equal(l.v[0].price_hourly, 7440);
    assert_int_equal(l.v[0].price_monthly, 5000000);
    assert_int_equal(l.v[0].vcpus, 1);
    assert_int_equal(l.v[0].memory_mb, 1024);
    assert_non_null(l.next);
    assert_string_equal(l.next, "https://api.digitalocean.com/v2/sizes?page=2&per_page=1");
    do_sizes_release(&l);
    free(b);

    b = fake_fixture(dir, "v2_sizes.godo_testdata.json", &len);
    assert_int_equal(do_api_parse_sizes(b, len, &l, why, sizeof why), ERR_OK);
    assert_int_equal(l.skipped, 0);
    bool gpu = false;
    for (size_t i = 0; i < l.n; i++) {
        if (l.v[i].gpu_count > 0) {
            gpu = true;
            assert_int_equal(l.v[i].price_hourly, 52700000);
            assert_int_equal(l.v[i].price_monthly, 35414400000LL);
            assert_non_null(l.v[i].gpu_model);
        }
    }
    assert_true(gpu);
    do_sizes_release(&l);
    free(b);
}

static void check_shared_k8s(const char *dir) {
    size_t len;
    char *b = fake_fixture(dir, "v2_kubernetes_clusters_CLUSTER_ID.json", &len);
    struct do_cluster c = {0};
    assert_int_equal(do_api_parse_cluster(b, len, &c, why, sizeof why), ERR_OK);
    assert_string_equal(c.id, "bd5f5959-5e1e-4205-a714-a914373942af");
    assert_string_equal(c.name, "prod-cluster-01");
    do_cluster_release(&c);
    free(b);

    b = fake_fixture(dir, "v2_kubernetes_clusters_CLUSTER_ID_node_pools.json", &len);
    struct do_pools l = {0};
    assert_int_equal(do_api_parse_pools(b, len, &l, why, sizeof why), ERR_OK);
    assert_int_equal(l.n, 2);
    assert_null(l.v[0].labels_json); /* "labels": null */
    assert_int_equal(l.v[0].n_nodes, 3);
    assert_string_equal(l.v[0].nodes[0].droplet_id, "205545370");
    assert_string_equal(l.v[0].nodes[0].state, "running");
    assert_int_equal(l.v[0].nodes[0].created_at, 1542297611); /* 2018-11-15T16:00:11Z */
    assert_int_equal(l.v[1].n_labels, 2);
    assert_true(l.v[1].auto_scale);
    assert_int_equal(l.v[1].max_nodes, 5);
    do_pools_release(&l);
    free(b);

    b = fake_fixture(dir, "v2_kubernetes_clusters_CLUSTER_ID_node_pools_NODE_POOL_ID.json", &len);
    struct do_pool p;
    assert_int_equal(do_api_parse_pool(b, len, &p, why, sizeof why), ERR_OK);
    assert_non_null(p.id);
    do_pool_release(&p);
    free(b);
}

static void check_shared_billing(const char *dir) {
    size_t len;
    char *b = fake_fixture(dir, "v2_customers_my_invoices.json", &len);
    struct do_invoices inv = {0};
    assert_int_equal(do_api_parse_invoices(b, len, &inv, why, sizeof why), ERR_OK);
    assert_int_equal(inv.n, 3);
    assert_int_equal(inv.v[0].amount, 12340000);
    assert_string_equal(inv.v[0].period, "2019-12");
    assert_true(inv.v[2].preview);
    assert_int_equal(inv.v[2].amount, 34560000);
    assert_non_null(inv.next);
    do_invoices_release(&inv);
    free(b);

    const char *items[] = {"v2_customers_my_invoices_INVOICE_UUID.json",
                           "v2_customers_my_invoices_INVOICE_UUID.godo_testdata.json"};
    for (int i = 0; i < 2; i++) {
        b = fake_fixture(dir, items[i], &len);
        struct do_invoice_items it = {0};
        assert_int_equal(do_api_parse_invoice_items(b, len, &it, why, sizeof why), ERR_OK);
        assert_int_equal(it.n, 2);
        assert_int_equal(it.v[0].amount, 12340000);
        assert_int_equal(it.v[1].amount, i == 0 ? 34450000 : 23450000);
        /* 2020-01-01T00:00:00Z = 18262 days (50 y, 12 leap days) x 86400;
         * 2018-06-20T08:44:38Z = (17532 + 151 + 19) days x 86400 + 31478 s */
        assert_int_equal(it.v[0].start_time, i == 0 ? 1577836800 : 1529484278);
        if (i == 1) {
            assert_string_equal(it.v[0].resource_id, "1234");
            assert_string_equal(it.v[0].category, "iaas");
        } else {
            assert_string_equal(it.v[0].group_description, "my-doks-cluster");
        }
        do_invoice_items_release(&it);
        free(b);
    }

    b = fake_fixture(dir, "v2_customers_my_billing_history.json", &len);
    struct do_billing_history h = {0};
    assert_int_equal(do_api_parse_billing_history(b, len, &h, why, sizeof why), ERR_OK);
    assert_int_equal(h.n, 2);
    assert_int_equal(h.v[1].amount, -12340000);
    assert_string_equal(h.v[1].type, "Payment");
    do_billing_history_release(&h);
    free(b);

    b = fake_fixture(dir, "v2_customers_my_balance.json", &len);
    struct do_balance bal;
    assert_int_equal(do_api_parse_balance(b, len, &bal, why, sizeof why), ERR_OK);
    assert_int_equal(bal.month_to_date_balance, 23440000);
    assert_int_equal(bal.account_balance, 12230000);
    assert_int_equal(bal.month_to_date_usage, 11210000);
    assert_int_equal(bal.generated_at, 1562684472); /* 2019-07-09T15:01:12Z */
    free(b);
}

/* Every other payload must at least be a JSON document json-c accepts; error
 * bodies go through do_api_parse_error. The CSV invoice is text, not JSON. */
static void check_shared_rest(const char *dir, int *covered) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        size_t nl = strlen(n);
        if (nl < 5 || strcmp(n + nl - 5, ".json") != 0)
            continue;
        size_t len;
        char *b = fake_fixture(dir, n, &len);
        if (strncmp(n, "error_", 6) == 0) {
            struct do_error e = {0};
            assert_int_equal(do_api_parse_error(b, len, &e, why, sizeof why), ERR_OK);
            assert_non_null(e.id);
            assert_non_null(e.message);
            do_error_release(&e);
        } else {
            json_object *o = json_tokener_parse(b);
            if (!o)
                fail_msg("shared fixture %s is not JSON", n);
            json_object_put(o);
        }
        (*covered)++;
        free(b);
    }
    closedir(d);
}

/* Billing insights as DigitalOcean documents them: two daily points, amounts to
 * the micro-dollar (0.86, 2.57), the DOKS one naming its cluster. */
static void check_shared_insights(const char *dir) {
    size_t len;
    char *b = fake_fixture(dir, "v2_billing_ACCOUNT_URN_insights_START_DATE_END_DATE.json", &len);
    struct do_insights l;
    assert_int_equal(do_insights_parse(b, len, &l, why, sizeof why), ERR_OK);
    free(b);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.skipped, 0);
    assert_int_equal(l.total_pages, 1);
    assert_int_equal(l.v[0].day, 1735689600); /* 2025-01-01T00:00:00Z */
    assert_int_equal(l.v[0].amount, 860000);
    assert_int_equal(l.v[1].amount, 2570000);
    assert_string_equal(l.v[1].sku, "1-KS-K8SWN-00109");
    assert_string_equal(l.v[1].group_description, "kubernetes cluster name");
    do_insights_release(&l);
}

static void test_shared_fixtures(void **state) {
    (void)state;
    char dir[768];
    if (shared_dir(dir, sizeof dir) != 0) {
        printf("SKIP: shared fixtures not found (SHARED_FIXTURES or ../shared/fixtures); "
               "own fixtures still run\n");
        return;
    }
    check_shared_sizes(dir);
    check_shared_k8s(dir);
    check_shared_billing(dir);
    check_shared_insights(dir);
    int covered = 0;
    check_shared_rest(dir, &covered);
    assert_true(covered >= 20);
    printf("[   INFO   ] parsed %d shared DigitalOcean payloads in %s\n", covered, dir);
}

/* --- own fixtures --------------------------------------------------------------------- */

/* Insights: a point without a day or an amount is skipped and counted; a page
 * that is not an object with data_points is refused; the account's team URN. */
static void test_insights_edges(void **state) {
    (void)state;
    static const char page[] =
        "{\"data_points\":[{\"start_date\":\"2026-11-02\",\"total_amount\":\"1.234567\"},"
        "{\"start_date\":\"11/02/2026\",\"total_amount\":\"1\"},"
        "{\"start_date\":\"2026-11-03\"}],\"total_pages\":3,\"current_page\":2}";
    struct do_insights l;
    assert_int_equal(do_insights_parse(page, strlen(page), &l, why, sizeof why), ERR_OK);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.skipped, 2);
    assert_int_equal(l.v[0].day, 1793577600); /* 2026-11-02 */
    assert_int_equal(l.v[0].amount, 1234567);
    assert_string_equal(l.v[0].description, "");
    assert_int_equal(l.total_pages, 3);
    do_insights_release(&l);
    assert_int_equal(do_insights_parse("[]", 2, &l, why, sizeof why), ERR_PARSE);
    assert_int_equal(do_insights_parse("{\"data_points\":{}}", 17, &l, why, sizeof why), ERR_PARSE);
    assert_int_equal(do_insights_parse("{\"data_points\":[]} x", 20, &l, why, sizeof why),
                     ERR_PARSE);
    char urn[64];
    static const char acc[] = "{\"account\":{\"uuid\":\"u-1\",\"team\":{\"uuid\":\"t-9\"}}}";
    assert_int_equal(do_insights_account_urn(acc, strlen(acc), urn, sizeof urn), ERR_OK);
    assert_string_equal(urn, "do:team:t-9");
    static const char solo[] = "{\"account\":{\"uuid\":\"u-1\"}}";
    assert_int_equal(do_insights_account_urn(solo, strlen(solo), urn, sizeof urn), ERR_OK);
    assert_string_equal(urn, "do:team:u-1");
    assert_int_equal(do_insights_account_urn("{}", 2, urn, sizeof urn), ERR_PARSE);
    assert_int_equal(do_insights_account_urn(acc, strlen(acc), urn, 8), ERR_PARSE); /* too long */
}

static void test_sizes_pages_and_prices(void **state) {
    (void)state;
    size_t len;
    char *b = own("sizes_p1.json", &len);
    struct do_sizes l = {0};
    assert_int_equal(do_api_parse_sizes(b, len, &l, why, sizeof why), ERR_OK);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.v[0].price_hourly, 71430); /* 0.07142999768257141 rounded */
    assert_int_equal(l.v[0].price_monthly, 48000000);
    assert_int_equal(l.v[1].price_hourly, 3600000);
    assert_int_equal(l.v[1].gpu_count, 1);
    assert_int_equal(l.v[1].gpu_vram_gb, 80);
    assert_string_equal(l.v[1].gpu_model, "nvidia_h100");
    assert_non_null(l.next);
    do_sizes_release(&l);
    free(b);
    b = own("sizes_p2.json", &len);
    assert_int_equal(do_api_parse_sizes(b, len, &l, why, sizeof why), ERR_OK);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.v[0].price_monthly, 1209600000); /* 1.2096E3 */
    assert_int_equal(l.v[0].price_hourly, 1800000);
    assert_null(l.next);
    do_sizes_release(&l);
    free(b);
}

static void test_sizes_bad_entries_skipped(void **state) {
    (void)state;
    size_t len;
    char *b = own("sizes_bad.json", &len);
    struct do_sizes l = {0};
    assert_int_equal(do_api_parse_sizes(b, len, &l, why, sizeof why), ERR_OK);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.v[0].slug, "good-1");
    assert_int_equal(l.v[0].price_hourly, 8930);
    assert_int_equal(l.skipped, 5);
    assert_non_null(strstr(why, "12.3.4")); /* the first problem is named */
    do_sizes_release(&l);
    free(b);
}

static void test_price_literal(void **state) {
    (void)state;
    int64_t m;
    assert_int_equal(do_api_price_literal("0.00743999984115362", 19, &m), ERR_OK);
    assert_int_equal(m, 7440);
    assert_int_equal(do_api_price_literal("1.5e-3", 6, &m), ERR_OK);
    assert_int_equal(m, 1500);
    assert_int_equal(do_api_price_literal("12.3.4", 6, &m), ERR_PARSE);
    assert_int_equal(do_api_price_literal("NaN", 3, &m), ERR_PARSE);
}

static void test_pools(void **state) {
    (void)state;
    size_t len;
    char *b = own("pools.json", &len);
    struct do_pools l = {0};
    assert_int_equal(do_api_parse_pools(b, len, &l, why, sizeof why), ERR_OK);
    assert_int_equal(l.n, 4);
    assert_string_equal(l.v[1].size, "gpu-h100x1-80gb-spot");
    assert_int_equal(l.v[1].n_nodes, 2);
    assert_string_equal(l.v[1].labels_json, "{\"workload\":\"train\"}");
    assert_non_null(strstr(l.v[1].taints_json, "NoSchedule"));
    assert_int_equal(l.v[3].n_nodes, 0);
    assert_string_equal(l.v[3].labels[0].key, "doks.digitalocean.com/capacity-type");
    do_pools_release(&l);
    free(b);
    /* a numeric droplet_id is accepted as its decimal text */
    b = own("pools_after_reclaim.json", &len);
    assert_int_equal(do_api_parse_pools(b, len, &l, why, sizeof why), ERR_OK);
    assert_string_equal(l.v[0].nodes[0].droplet_id, "500002");
    do_pools_release(&l);
    free(b);
}

static void expect_pools_error(const char *file, const char *needle) {
    size_t len;
    char *b = own(file, &len);
    struct do_pools l = {0};
    assert_int_equal(do_api_parse_pools(b, len, &l, why, sizeof why), ERR_PARSE);
    if (!strstr(why, needle))
        fail_msg("%s: reason '%s' does not mention '%s'", file, why, needle);
    assert_null(l.v);
    free(b);
}

static void test_pools_all_or_nothing(void **state) {
    (void)state;
    expect_pools_error("pools_bad_node.json", "missing 'name'");
    expect_pools_error("pools_wrong_type.json", "not an array");
    expect_pools_error("pools_truncated.json", "truncated");
    expect_pools_error("html_200.html", "HTML");
    const char *dup = "{\"node_pools\":[{\"id\":\"a\",\"name\":\"x\",\"size\":\"s\",\"nodes\":[]},"
                      "{\"id\":\"a\",\"name\":\"y\",\"size\":\"s\",\"nodes\":[]}]}";
    struct do_pools l = {0};
    assert_int_equal(do_api_parse_pools(dup, strlen(dup), &l, why, sizeof why), ERR_PARSE);
    const char *nonodes = "{\"node_pools\":[{\"id\":\"a\",\"name\":\"x\",\"size\":\"s\","
                          "\"count\":2,\"nodes\":null}]}";
    assert_int_equal(do_api_parse_pools(nonodes, strlen(nonodes), &l, why, sizeof why), ERR_PARSE);
    const char *trailing = "{\"node_pools\":[]} {}";
    assert_int_equal(do_api_parse_pools(trailing, strlen(trailing), &l, why, sizeof why),
                     ERR_PARSE);
    assert_int_equal(do_api_parse_pools("", 0, &l, why, sizeof why), ERR_PARSE);
    const char *deep = "{\"node_pools\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
                       "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[";
    assert_int_equal(do_api_parse_pools(deep, strlen(deep), &l, why, sizeof why), ERR_PARSE);
}

static void test_cluster(void **state) {
    (void)state;
    size_t len;
    char *b = own("cluster.json", &len);
    struct do_cluster c = {0};
    assert_int_equal(do_api_parse_cluster(b, len, &c, why, sizeof why), ERR_OK);
    assert_string_equal(c.name, "gpu-lab");
    assert_string_equal(c.region, "tor1");
    do_cluster_release(&c);
    free(b);
    const char *bad = "{\"kubernetes_cluster\":{\"id\":42}}";
    assert_int_equal(do_api_parse_cluster(bad, strlen(bad), &c, why, sizeof why), ERR_PARSE);
    assert_non_null(strstr(why, "'id' is not a string"));
}

static void test_billing(void **state) {
    (void)state;
    size_t len;
    char *b = own("invoices.json", &len);
    struct do_invoices inv = {0};
    assert_int_equal(do_api_parse_invoices(b, len, &inv, why, sizeof why), ERR_OK);
    assert_int_equal(inv.n, 2);
    assert_int_equal(inv.v[0].amount, 1234560000);
    assert_true(inv.v[1].preview);
    assert_null(inv.next);
    do_invoices_release(&inv);
    free(b);

    b = own("invoices_bad_amount.json", &len);
    assert_int_equal(do_api_parse_invoices(b, len, &inv, why, sizeof why), ERR_OK);
    assert_int_equal(inv.n, 1);
    assert_int_equal(inv.skipped, 1);
    assert_non_null(strstr(why, "12.3.4"));
    do_invoices_release(&inv);
    free(b);

    b = own("invoice_items_oct.json", &len);
    struct do_invoice_items it = {0};
    assert_int_equal(do_api_parse_invoice_items(b, len, &it, why, sizeof why), ERR_OK);
    assert_int_equal(it.n, 4);
    assert_string_equal(it.v[2].resource_id, "500001");
    do_invoice_items_release(&it);
    free(b);

    b = own("invoice_items_bad.json", &len);
    assert_int_equal(do_api_parse_invoice_items(b, len, &it, why, sizeof why), ERR_PARSE);
    assert_non_null(strstr(why, "item 1"));
    free(b);

    b = own("billing_history.json", &len);
    struct do_billing_history h = {0};
    assert_int_equal(do_api_parse_billing_history(b, len, &h, why, sizeof why), ERR_OK);
    assert_int_equal(h.n, 2);
    assert_int_equal(h.skipped, 1);
    do_billing_history_release(&h);
    free(b);

    b = own("balance.json", &len);
    struct do_balance bal;
    assert_int_equal(do_api_parse_balance(b, len, &bal, why, sizeof why), ERR_OK);
    assert_int_equal(bal.month_to_date_usage, 88200000);
    free(b);
    b = own("balance_bad.json", &len);
    assert_int_equal(do_api_parse_balance(b, len, &bal, why, sizeof why), ERR_PARSE);
    assert_non_null(strstr(why, "month_to_date_balance"));
    free(b);
}

int main(void) {
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_fixtures),
        cmocka_unit_test(test_insights_edges),
        cmocka_unit_test(test_sizes_pages_and_prices),
        cmocka_unit_test(test_sizes_bad_entries_skipped),
        cmocka_unit_test(test_price_literal),
        cmocka_unit_test(test_pools),
        cmocka_unit_test(test_pools_all_or_nothing),
        cmocka_unit_test(test_cluster),
        cmocka_unit_test(test_billing),
    };
    return cmocka_run_group_tests_name("do_api", tests, NULL, NULL);
}
