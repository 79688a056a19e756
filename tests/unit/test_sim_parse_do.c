/* test_sim_parse_do — every DigitalOcean payload spotledger polls, served by the
 * real simulator and read back with spotledger's own parser (do_api.h), never
 * with a test-only reading: if spotsim and the parser drifted apart (a renamed
 * field, a money string the parser refuses), the end-to-end figures could still
 * agree by accident; this test says which endpoint broke (Kubernetes:
 * test_sim_parse_k8s.c; the fixture: sim_parse_fx.h).
 *
 *   - small.json at start + 2 h 15 min: sizes, cluster, node pools (every page),
 *     a single pool, the invoice preview, DO error bodies;
 *   - week_close.json at its end: a closed invoice, the preview, billing history
 *     and balance, whose items sum to the truth's billed_total.
 * Every parsed count is compared with the simulated world as of the frozen time
 * (the world's pools and nodes), not with a second parse. Every request has a
 * timeout, every paging loop a bound; nothing asserts inside the server's
 * threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "source/do_api.h"
#include "source/http_client.h"
#include "base/money.h"
#include "sim/sim_clock.h"
#include "sim/sim_scenario.h"
#include "sim/sim_billing.h"
#include "sim/sim_server.h"
#include "sim/sim_truth.h"
#include "sim/sim_world.h"

#include "sim_parse_fx.h"

/* One page of a DigitalOcean list at url (absolute): the GET, which answers 200. */
static void get_page(struct fx *f, const char *url, struct reply *r) {
    fx_get_url(f, url, TOKEN, GET_MS, r);
    assert_int_equal(r->status, 200);
}

/* After the pages-th page: its links.next copied into url, or false at the list's
 * end. Bounded: a list that still goes on after MAX_PAGES fails the test. */
static bool next_page(char *url, size_t size, const char *next, int pages) {
    if (!next)
        return false;
    assert_true(pages < MAX_PAGES);
    snprintf(url, size, "%s", next);
    return true;
}

static void test_sizes(void **state) {
    struct fx *f = *state;
    struct reply r;
    char why[DO_API_WHY_MAX] = "";
    /* as spotledger asks (one page of 200), then one size per page through links.next */
    get_ok(f, "/v2/sizes?per_page=200", 200, &r);
    struct do_sizes all = {0};
    assert_int_equal(do_api_parse_sizes(buf_str(&r.body), r.body.len, &all, why, sizeof why),
                     ERR_OK);
    buf_release(&r.body);
    assert_int_equal(all.skipped, 0);
    assert_null(all.next);
    assert_int_equal(all.n, f->sc->nsizes);
    for (int i = 0; i < f->sc->nsizes; i++) {
        const struct sim_size *s = &f->sc->sizes[i];
        assert_string_equal(all.v[i].slug, s->slug);
        assert_int_equal(all.v[i].price_hourly, s->price_hourly);
        assert_int_equal(all.v[i].gpu_count, s->gpus);
        if (s->gpus > 0)
            assert_int_equal(all.v[i].gpu_vram_gb, s->vram_gib);
    }
    do_sizes_release(&all);

    char url[1024];
    snprintf(url, sizeof url, "%s/v2/sizes?per_page=1", f->base);
    int pages = 0;
    for (;;) {
        get_page(f, url, &r);
        struct do_sizes l = {0};
        assert_int_equal(do_api_parse_sizes(buf_str(&r.body), r.body.len, &l, why, sizeof why),
                         ERR_OK);
        buf_release(&r.body);
        assert_int_equal(l.n, 1);
        assert_string_equal(l.v[0].slug, f->sc->sizes[pages].slug);
        pages++;
        bool more = next_page(url, sizeof url, l.next, pages);
        do_sizes_release(&l);
        if (!more)
            break;
    }
    assert_int_equal(pages, f->sc->nsizes);
    print_message("sizes: %d parsed, prices equal the scenario's, %d pages of 1\n", f->sc->nsizes,
                  pages);
}

static void test_cluster(void **state) {
    struct fx *f = *state;
    char path[256], why[DO_API_WHY_MAX] = "";
    struct reply r;
    snprintf(path, sizeof path, "/v2/kubernetes/clusters/%s", f->w->cluster_id);
    get_ok(f, path, 200, &r);
    struct do_cluster c = {0};
    assert_int_equal(do_api_parse_cluster(buf_str(&r.body), r.body.len, &c, why, sizeof why),
                     ERR_OK);
    buf_release(&r.body);
    assert_string_equal(c.id, f->w->cluster_id);
    assert_string_equal(c.name, f->sc->cluster_name);
    assert_string_equal(c.region, f->sc->region);
    do_cluster_release(&c);
}

static bool do_node_visible(const struct sim_node *n, int64_t now) {
    return n->created_t <= now && n->deleted_t > now;
}

static bool do_pool_visible(const struct sim_pool *p, int64_t now) {
    return p->created_t <= now && p->gone_t > now;
}

/* Checks one parsed pool against the world: same id, size, and the same nodes. */
static void check_pool(struct fx *f, const struct do_pool *dp) {
    int wp = -1;
    for (int i = 0; i < f->w->npools; i++)
        if (strcmp(f->w->pools[i].id, dp->id) == 0)
            wp = i;
    if (wp < 0)
        fail_msg("pool %s (%s) is not in the world", dp->name, dp->id);
    assert_true(do_pool_visible(&f->w->pools[wp], f->now));
    assert_string_equal(dp->name, f->w->pools[wp].name);
    assert_string_equal(dp->size, f->sc->pools[f->w->pools[wp].spec].size);
    size_t want = 0;
    for (int i = 0; i < f->w->nnodes; i++) {
        const struct sim_node *n = &f->w->nodes[i];
        if (n->pool != wp || !do_node_visible(n, f->now))
            continue;
        assert_true(want < dp->n_nodes);
        assert_string_equal(dp->nodes[want].name, n->name);
        assert_string_equal(dp->nodes[want].id, n->do_id);
        assert_string_equal(dp->nodes[want].droplet_id, n->droplet_id);
        assert_int_equal(dp->nodes[want].created_at, n->created_t);
        want++;
    }
    assert_int_equal(dp->n_nodes, want);
    assert_int_equal(dp->count, (int64_t)want);
}

static void test_node_pools(void **state) {
    struct fx *f = *state;
    char url[1024], why[DO_API_WHY_MAX] = "";
    struct reply r;
    int want_pools = 0, gone = 0;
    for (int i = 0; i < f->w->npools; i++) {
        want_pools += do_pool_visible(&f->w->pools[i], f->now);
        gone += f->w->pools[i].gone_t <= f->now;
    }
    assert_int_equal(gone, 1); /* small.json: gpu-spot, reclaimed at +2 h */

    /* spotledger's request (per_page=200), then every page of per_page=1 */
    for (int per = 200; per >= 1; per = per == 200 ? 1 : 0) {
        snprintf(url, sizeof url, "%s/v2/kubernetes/clusters/%s/node_pools?per_page=%d", f->base,
                 f->w->cluster_id, per);
        int pages = 0, pools = 0, nodes = 0;
        bool spot_seen = false;
        for (;;) {
            get_page(f, url, &r);
            struct do_pools l = {0};
            enum err rc = do_api_parse_pools(buf_str(&r.body), r.body.len, &l, why, sizeof why);
            if (rc != ERR_OK)
                fail_msg("node_pools page %d: %s: %s", pages + 1, err_str(rc), why);
            buf_release(&r.body);
            for (size_t i = 0; i < l.n; i++) {
                check_pool(f, &l.v[i]);
                spot_seen |= strcmp(l.v[i].name, "gpu-spot") == 0;
                nodes += (int)l.v[i].n_nodes;
            }
            pools += (int)l.n;
            pages++;
            bool more = next_page(url, sizeof url, l.next, pages);
            do_pools_release(&l);
            if (!more)
                break;
        }
        assert_int_equal(pools, want_pools);
        assert_false(spot_seen);    /* the reclaimed pool is gone */
        assert_int_equal(pages, 1); /* DigitalOcean's node_pools is one unpaginated list */
        print_message("node_pools per_page=%d: %d page(s), %d pools, %d nodes; gpu-spot gone\n",
                      per, pages, pools, nodes);
    }

    /* one live pool through its own path, and the reclaimed one: a DO 404 body */
    for (int i = 0; i < f->w->npools; i++) {
        const struct sim_pool *p = &f->w->pools[i];
        snprintf(url, sizeof url, "/v2/kubernetes/clusters/%s/node_pools/%s", f->w->cluster_id,
                 p->id);
        if (do_pool_visible(p, f->now)) {
            get_ok(f, url, 200, &r);
            struct do_pool dp = {0};
            assert_int_equal(do_api_parse_pool(buf_str(&r.body), r.body.len, &dp, why, sizeof why),
                             ERR_OK);
            check_pool(f, &dp);
            do_pool_release(&dp);
        } else {
            get_ok(f, url, 404, &r);
            struct do_error e = {0};
            assert_int_equal(do_api_parse_error(buf_str(&r.body), r.body.len, &e, why, sizeof why),
                             ERR_OK);
            assert_string_equal(e.id, "not_found");
            assert_non_null(e.message);
            do_error_release(&e);
        }
        buf_release(&r.body);
    }
}

static void test_do_errors(void **state) {
    struct fx *f = *state;
    char why[DO_API_WHY_MAX] = "";
    struct reply r;
    static const char *const paths[] = {"/v2/sizes", "/v2/customers/my/balance",
                                        "/v2/customers/my/invoices"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        for (int k = 0; k < 2; k++) { /* no token, a wrong token */
            fx_get(f, paths[i], k ? "wrong" : NULL, GET_MS, &r);
            assert_int_equal(r.cc, CURLE_OK);
            assert_int_equal(r.status, 401);
            struct do_error e = {0};
            assert_int_equal(do_api_parse_error(buf_str(&r.body), r.body.len, &e, why, sizeof why),
                             ERR_OK);
            assert_string_equal(e.id, "unauthorized");
            assert_string_equal(e.message, "Unable to authenticate you.");
            do_error_release(&e);
            buf_release(&r.body);
        }
    }
    get_ok(f, "/v2/customers/my/invoices/00000000-0000-4000-8000-000000000000", 404, &r);
    struct do_error e = {0};
    assert_int_equal(do_api_parse_error(buf_str(&r.body), r.body.len, &e, why, sizeof why), ERR_OK);
    assert_string_equal(e.id, "not_found");
    do_error_release(&e);
    buf_release(&r.body);
}

/* The world's billing item the invoice item shows (the node whose DigitalOcean id is
 * its resource_uuid, the item billed from its start_time), in whole cents as the
 * invoice rounds it: half a cent up. Fails when no world item matches. */
static int64_t world_item_cents(struct fx *f, const struct do_invoice_item *v) {
    for (int i = 0; i < f->w->nnodes; i++) {
        if (strcmp(f->w->nodes[i].do_id, v->resource_uuid) != 0)
            continue;
        struct sim_bill_item it[SIM_BILL_MAX_MONTHS];
        int k = sim_billing_node(f->w, i, f->now, it, SIM_BILL_MAX_MONTHS);
        for (int q = 0; q < k; q++)
            if (it[q].start == v->start_time)
                return (it[q].amount + 5000) / 10000 * 10000;
    }
    fail_msg("invoice item %s from %lld: no such item in the world", v->resource_uuid,
             (long long)v->start_time);
    return -1;
}

/* Items of one invoice over every page of per_page; returns their sum, counts in *n. */
static int64_t invoice_items_sum(struct fx *f, const char *uuid, int per, size_t *n, int *pages) {
    char url[1024], why[DO_API_WHY_MAX] = "";
    struct reply r;
    char *esc = http_client_escape(uuid);
    snprintf(url, sizeof url, "%s/v2/customers/my/invoices/%s?per_page=%d", f->base, esc, per);
    free(esc);
    int64_t sum = 0;
    *n = 0;
    *pages = 0;
    for (;;) {
        get_page(f, url, &r);
        struct do_invoice_items l = {0};
        enum err rc = do_api_parse_invoice_items(buf_str(&r.body), r.body.len, &l, why, sizeof why);
        if (rc != ERR_OK)
            fail_msg("invoice %s items: %s: %s", uuid, err_str(rc), why);
        buf_release(&r.body);
        for (size_t i = 0; i < l.n; i++) {
            /* the amount is the world's item for that node and month in whole cents,
             * rounded half up (amounts are positive): (micro + 5000) / 10000 * 10000 */
            assert_int_equal(l.v[i].amount, world_item_cents(f, &l.v[i]));
            /* DigitalOcean's invoices: whole hours and whole cents */
            assert_string_equal(l.v[i].duration_unit, "Hours");
            assert_int_equal(l.v[i].amount % 10000, 0);
            assert_non_null(l.v[i].resource_uuid);
            assert_true(l.v[i].end_time > l.v[i].start_time);
            sum += l.v[i].amount;
        }
        *n += l.n;
        (*pages)++;
        bool more = next_page(url, sizeof url, l.next, *pages);
        do_invoice_items_release(&l);
        if (!more)
            break;
    }
    return sum;
}

/* Billing as of the frozen time: invoices (+ preview), each invoice's items, history and
 * balance agree with one another; returns the sum of every invoice's items. */
static int64_t check_billing(struct fx *f, size_t want_closed) {
    char why[DO_API_WHY_MAX] = "";
    struct reply r;
    get_ok(f, "/v2/customers/my/invoices?per_page=200", 200, &r);
    struct do_invoices inv = {0};
    assert_int_equal(do_api_parse_invoices(buf_str(&r.body), r.body.len, &inv, why, sizeof why),
                     ERR_OK);
    buf_release(&r.body);
    assert_int_equal(inv.skipped, 0);
    assert_int_equal(inv.n, want_closed + 1); /* closed invoices, then the preview */
    assert_true(inv.v[inv.n - 1].preview);
    int64_t total = 0, closed = 0, preview = 0;
    for (size_t i = 0; i < inv.n; i++) {
        size_t n1, n2;
        int p1, p2;
        int64_t s1 = invoice_items_sum(f, inv.v[i].uuid, 200, &n1, &p1);
        int64_t s2 = invoice_items_sum(f, inv.v[i].uuid, 2, &n2, &p2); /* every page */
        assert_int_equal(s1, s2);
        assert_int_equal(n1, n2);
        assert_int_equal(p1, 1);
        assert_int_equal(p2, (int)((n1 + 1) / 2 ? (n1 + 1) / 2 : 1));
        assert_int_equal(s1, inv.v[i].amount); /* items add up to the invoice */
        total += s1;
        if (inv.v[i].preview)
            preview = s1;
        else
            closed += s1;
        print_message("invoice %s%s: %zu items on %d pages of 2, %lld micro-USD\n", inv.v[i].period,
                      inv.v[i].preview ? " (preview)" : "", n1, p2, (long long)s1);
    }
    get_ok(f, "/v2/customers/my/billing_history?per_page=200", 200, &r);
    struct do_billing_history h = {0};
    assert_int_equal(
        do_api_parse_billing_history(buf_str(&r.body), r.body.len, &h, why, sizeof why), ERR_OK);
    buf_release(&r.body);
    assert_int_equal(h.skipped, 0);
    assert_int_equal(h.n, want_closed);
    for (size_t i = 0; i < h.n; i++) {
        assert_string_equal(h.v[i].type, "Invoice");
        assert_string_equal(h.v[i].invoice_uuid, inv.v[i].uuid);
        assert_int_equal(h.v[i].amount, inv.v[i].amount);
    }
    do_billing_history_release(&h);
    get_ok(f, "/v2/customers/my/balance", 200, &r);
    struct do_balance bal;
    memset(&bal, 0, sizeof bal);
    assert_int_equal(do_api_parse_balance(buf_str(&r.body), r.body.len, &bal, why, sizeof why),
                     ERR_OK);
    buf_release(&r.body);
    assert_int_equal(bal.month_to_date_usage, preview);
    assert_int_equal(bal.account_balance, closed);
    assert_int_equal(bal.month_to_date_balance, closed + preview);
    assert_int_equal(bal.generated_at, f->now);
    do_invoices_release(&inv);
    return total;
}

static int64_t truth_billed(struct fx *f) {
    struct buf t;
    buf_init(&t, 0);
    assert_int_equal(sim_truth_render(f->w, &t), ERR_OK);
    json_object *truth = json_tokener_parse(buf_str(&t));
    buf_release(&t);
    assert_non_null(truth);
    json_object *bt = NULL;
    assert_true(json_object_object_get_ex(truth, "billed_total", &bt));
    int64_t billed = money(json_object_to_json_string(bt));
    json_object_put(truth);
    return billed;
}

/* small.json mid-scenario: only the month's preview, no history yet */
static void test_billing_mid(void **state) {
    struct fx *f = *state;
    int64_t total = check_billing(f, 0);
    assert_true(total > 0);
}

/* week_close.json at its end: January closed (invoice + history), February's preview.
 * The truth's billed_total is the exact per-second amount of every node-month item;
 * the invoices show each item in whole cents, rounded half up (amounts are positive),
 * so their sum is the sum of the rounded items, within half a cent per item of the truth. */
static void test_billing_truth(void **state) {
    struct fx *f = *state;
    int64_t total = check_billing(f, 1);
    int64_t billed = truth_billed(f);
    int64_t exact = 0, rounded = 0, items = 0;
    struct sim_bill_item it[SIM_BILL_MAX_MONTHS];
    for (int i = 0; i < f->w->nnodes; i++) {
        int k = sim_billing_node(f->w, i, f->now, it, SIM_BILL_MAX_MONTHS);
        for (int q = 0; q < k; q++, items++) {
            exact += it[q].amount;
            rounded += (it[q].amount + 5000) / 10000 * 10000;
        }
    }
    assert_int_equal(exact, billed);
    assert_int_equal(total, rounded);
    assert_true(items > 0 && llabs(total - billed) <= items * 5000);
    char a[MONEY_FMT_MAX];
    money_format(total, a);
    print_message("invoice items of every invoice sum to the truth's billed_total: %s USD\n", a);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_ALL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sizes, setup_small, fx_teardown),
        cmocka_unit_test_setup_teardown(test_cluster, setup_small, fx_teardown),
        cmocka_unit_test_setup_teardown(test_node_pools, setup_small, fx_teardown),
        cmocka_unit_test_setup_teardown(test_do_errors, setup_small, fx_teardown),
        cmocka_unit_test_setup_teardown(test_billing_mid, setup_small, fx_teardown),
        cmocka_unit_test_setup_teardown(test_billing_truth, setup_week_close, fx_teardown),
    };
    int rc = cmocka_run_group_tests_name("sim_parse_do", tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
