/* test_sim_parse — every payload spotledger polls, served by the real simulator and
 * read back with spotledger's own parsers (do_api.h, k8s_api.h), never with a
 * test-only reading: if spotsim and the parsers drifted apart (a renamed field, a
 * money string the parser refuses, a watch line it cannot read), the end-to-end
 * figures could still agree by accident; this test says which endpoint broke.
 *
 * The simulator's server runs in-process on 127.0.0.1 port 0 with a frozen clock:
 *   - tests/fixtures/sim/small.json at start + 2 h 15 min (the gpu-spot pool was
 *     reclaimed at start + 2 h and is gone, the fallback pool has scaled up): sizes, cluster, node
 * pools (every page), a single pool, the invoice preview, Jobs, Pods of Jobs (spotledger's
 *     controller-uid selector), Nodes, Events (paged with limit/continue), a pod
 *     and a node watch with resourceVersion + allowWatchBookmarks, a too-old
 *     resourceVersion and an expired continue token (410), DO error bodies;
 *   - tests/fixtures/sim/week_close.json at its end (it crosses Monday
 *     2027-02-01 00:00 UTC, a month end too): a closed invoice, the preview,
 *     billing history and balance, whose items sum to the truth's billed_total.
 * Every parsed count is compared with the simulated world as of the frozen time
 * (sim_obj_exists, the world's pools and nodes), not with a second parse.
 * Every request has a timeout, every paging loop a bound; nothing asserts inside
 * the server's threads. */
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
#include "source/k8s_api.h"
#include "base/money.h"
#include "sim/sim_clock.h"
#include "sim/sim_k8s_obj.h"
#include "sim/sim_scenario.h"
#include "sim/sim_billing.h"
#include "sim/sim_server.h"
#include "sim/sim_truth.h"
#include "sim/sim_world.h"

#define SMALL "tests/fixtures/sim/small.json"
#define WEEK_CLOSE "tests/fixtures/sim/week_close.json"
#define TOKEN "parse-token"
#define MAX_PAGES 200 /* every paging loop stops here: a pagination loop fails the test */
#define RECLAIM_AFTER 7200
#define NOW_AFTER (RECLAIM_AFTER + 15 * 60) /* small.json: 15 min after the reclaim */

struct fx {
    struct sim_scenario *sc;
    struct sim_world *w;
    struct sim_clock clock;
    struct sim_server *srv;
    char base[64];
    int64_t S;    /* scenario start */
    int64_t now;  /* the frozen time */
    int64_t asof; /* the world's seq at now (resourceVersion) */
};

struct reply {
    long status;
    struct buf body;
    CURLcode cc;
};

static size_t on_body(char *p, size_t size, size_t n, void *ud) {
    struct reply *r = ud;
    if (buf_append(&r->body, p, size * n) != ERR_OK)
        return 0;
    return size * n;
}

/* GET url (absolute, must be on our loopback server) with a timeout. */
static void get_url(struct fx *f, const char *url, const char *token, struct reply *r) {
    memset(r, 0, sizeof *r);
    buf_init(&r->body, 64 * 1024 * 1024);
    assert_memory_equal(url, f->base, strlen(f->base)); /* loopback only */
    CURL *c = curl_easy_init();
    assert_non_null(c);
    struct curl_slist *h = NULL;
    char auth[128];
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
    r->cc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
}

static void get(struct fx *f, const char *path, const char *token, struct reply *r) {
    char url[4096];
    snprintf(url, sizeof url, "%s%s", f->base, path);
    get_url(f, url, token, r);
}

/* GET with the token, asserting the transfer and the status. */
static void get_ok(struct fx *f, const char *path, long want, struct reply *r) {
    get(f, path, TOKEN, r);
    assert_int_equal(r->cc, CURLE_OK);
    if (r->status != want)
        fail_msg("GET %s: status %ld, want %ld: %.300s", path, r->status, want, buf_str(&r->body));
}

static int fx_start(struct fx *f, const char *scenario, int64_t after) {
    memset(f, 0, sizeof *f);
    char err[256];
    if (sim_scenario_load(scenario, &f->sc, err, sizeof err) != ERR_OK) {
        fprintf(stderr, "test_sim_parse: %s: %s\n", scenario, err);
        return -1;
    }
    f->S = f->sc->start;
    f->w = sim_world_build(f->sc, 1, f->sc->start + f->sc->duration);
    sim_clock_init(&f->clock, f->S, f->w->horizon, 0);
    f->now = after < 0 ? f->w->horizon : f->S + after;
    sim_clock_set(&f->clock, f->now);
    f->asof = sim_world_seq_at(f->w, f->now);
    struct sim_server_options so = {
        .world = f->w,
        .clock = &f->clock,
        .host = "127.0.0.1",
        .do_token = TOKEN,
        .kube_token = TOKEN,
        .retention = 5400, /* the watch below starts before the reclaim, start + 60 s is older */
        .bookmark_ms = 200,
    };
    if (sim_server_start(&so, &f->srv) != ERR_OK)
        return -1;
    snprintf(f->base, sizeof f->base, "http://127.0.0.1:%u", (unsigned)sim_server_port(f->srv));
    return 0;
}

static int setup_small(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    if (!f || fx_start(f, SMALL, NOW_AFTER) != 0)
        return -1;
    *state = f;
    return 0;
}

static int setup_week_close(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    if (!f || fx_start(f, WEEK_CLOSE, -1) != 0)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    struct fx *f = *state;
    sim_server_stop(f->srv);
    sim_world_free(f->w);
    sim_scenario_free(f->sc);
    free(f);
    return 0;
}

static int64_t money(const char *s) {
    int64_t v = 0;
    assert_non_null(s);
    assert_int_equal(money_parse(s, strlen(s), 0, &v), ERR_OK);
    return v;
}

/* --- DigitalOcean ------------------------------------------------------------ */

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
        get_url(f, url, TOKEN, &r);
        assert_int_equal(r.status, 200);
        struct do_sizes l = {0};
        assert_int_equal(do_api_parse_sizes(buf_str(&r.body), r.body.len, &l, why, sizeof why),
                         ERR_OK);
        buf_release(&r.body);
        assert_int_equal(l.n, 1);
        assert_string_equal(l.v[0].slug, f->sc->sizes[pages].slug);
        pages++;
        bool more = l.next != NULL;
        if (more)
            snprintf(url, sizeof url, "%s", l.next);
        do_sizes_release(&l);
        if (!more)
            break;
        assert_true(pages < MAX_PAGES);
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
            get_url(f, url, TOKEN, &r);
            assert_int_equal(r.status, 200);
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
            bool more = l.next != NULL;
            if (more)
                snprintf(url, sizeof url, "%s", l.next);
            do_pools_release(&l);
            if (!more)
                break;
            assert_true(pages < MAX_PAGES);
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
            get(f, paths[i], k ? "wrong" : NULL, &r);
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
        get_url(f, url, TOKEN, &r);
        assert_int_equal(r.status, 200);
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
        bool more = l.next != NULL;
        if (more)
            snprintf(url, sizeof url, "%s", l.next);
        do_invoice_items_release(&l);
        if (!more)
            break;
        assert_true(*pages < MAX_PAGES);
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

/* --- Kubernetes --------------------------------------------------------------- */

static enum sim_kind sim_kind_of(enum k8s_kind k) {
    switch (k) {
    case K8S_JOB:
        return SIM_K_JOB;
    case K8S_POD:
        return SIM_K_POD;
    case K8S_NODE:
        return SIM_K_NODE;
    case K8S_EVENT:
        return SIM_K_EVENT;
    case K8S_PDB:
        return SIM_K_PDB;
    }
    return SIM_K_COUNT;
}

static bool has_label(const struct sim_world *w, enum sim_kind kind, int idx, const char *key) {
    struct sim_labels l;
    sim_obj_labels(w, kind, idx, &l);
    for (int i = 0; i < l.n; i++)
        if (strcmp(l.key[i], key) == 0)
            return true;
    return false;
}

/* Index of the world object of `kind` with this uid, -1 if none. */
static int world_index(const struct sim_world *w, enum sim_kind kind, const char *uid) {
    int n = sim_obj_count(w, kind);
    for (int i = 0; i < n; i++) {
        const char *u = kind == SIM_K_POD    ? w->pods[i].uid
                        : kind == SIM_K_JOB  ? w->jobs[i].uid
                        : kind == SIM_K_NODE ? w->nodes[i].uid
                                             : w->events[i].uid;
        if (strcmp(u, uid) == 0)
            return i;
    }
    return -1;
}

/* As world_index for a listed object; a PDB (whose uid spotsim derives when it
 * renders it) by its name, one per workload. */
static int world_index_of(const struct sim_world *w, enum sim_kind kind, const struct k8s_meta *m) {
    for (int i = 0; kind == SIM_K_PDB && i < sim_obj_count(w, kind); i++)
        if (strcmp(sim_obj_name(w, kind, i), m->name) == 0)
            return i;
    return kind == SIM_K_PDB ? -1 : world_index(w, kind, m->uid);
}

/* Lists `path` (query already escaped, may be "") in pages of `limit` as spotledger's
 * informer does (limit, then continue), parsing each page with k8s_list_parse; checks
 * every page has the first page's resourceVersion, every item is a world object that
 * exists now (and carries `label` if given), and no object is listed twice. Returns the
 * number of objects, the pages in *pages. */
static int list_all(struct fx *f, const char *path, const char *query, enum k8s_kind kind,
                    int limit, const char *label, int *pages) {
    enum sim_kind sk = sim_kind_of(kind);
    int n = sim_obj_count(f->w, sk);
    char *seen = calloc((size_t)n + 1, 1);
    assert_non_null(seen);
    char rv[K8S_RV_MAX] = "";
    char *cont = NULL;
    int got = 0;
    *pages = 0;
    for (;;) {
        char p[4096];
        int len = snprintf(p, sizeof p, "%s?%s%slimit=%d", path, query, query[0] ? "&" : "", limit);
        if (cont) {
            char *esc = http_client_escape(cont);
            len += snprintf(p + len, sizeof p - (size_t)len, "&continue=%s", esc);
            free(esc);
        }
        assert_true(len < (int)sizeof p);
        struct reply r;
        get_ok(f, p, 200, &r);
        struct k8s_list l;
        memset(&l, 0, sizeof l);
        enum err rc = k8s_list_parse(buf_str(&r.body), r.body.len, kind, &l);
        if (rc != ERR_OK)
            fail_msg("%s page %d: %s", path, *pages + 1, err_str(rc));
        buf_release(&r.body);
        assert_int_equal(l.skipped, 0);
        assert_true(l.n <= (size_t)limit);
        if (*pages == 0)
            snprintf(rv, sizeof rv, "%s", l.resource_version);
        assert_string_equal(l.resource_version, rv);
        for (size_t i = 0; i < l.n; i++) {
            const struct k8s_meta *m = k8s_object_meta(&l.items[i]);
            int idx = world_index_of(f->w, sk, m);
            if (idx < 0)
                fail_msg("%s: %s '%s' is not in the world", path, k8s_kind_name(kind), m->name);
            assert_true(sim_obj_exists(f->w, sk, idx, f->asof));
            assert_false(seen[idx]);
            seen[idx] = 1;
            assert_string_equal(m->name, sim_obj_name(f->w, sk, idx));
            if (label)
                assert_true(has_label(f->w, sk, idx, label));
        }
        got += (int)l.n;
        (*pages)++;
        free(cont);
        cont = l.continue_token ? strdup(l.continue_token) : NULL;
        k8s_list_release(&l);
        if (!cont)
            break;
        assert_true(*pages < MAX_PAGES);
    }
    /* the list's resourceVersion is the world's seq at the frozen time */
    assert_int_equal(strtoll(rv, NULL, 10), f->asof);
    free(seen);
    return got;
}

/* Objects of a kind that exist at the frozen time (with `label` if not NULL). */
static int world_count(struct fx *f, enum sim_kind sk, const char *label) {
    int n = sim_obj_count(f->w, sk), want = 0;
    for (int i = 0; i < n; i++)
        if (sim_obj_exists(f->w, sk, i, f->asof) && (!label || has_label(f->w, sk, i, label)))
            want++;
    return want;
}

static void check_list(struct fx *f, const char *path, const char *query, enum k8s_kind kind,
                       const char *label, int small_limit) {
    int want = world_count(f, sim_kind_of(kind), label);
    int p500, psmall;
    int a = list_all(f, path, query, kind, 500, label, &p500); /* spotledger's page size */
    int b = list_all(f, path, query, kind, small_limit, label, &psmall);
    assert_int_equal(a, want);
    assert_int_equal(b, want);
    assert_true(want > 0);
    assert_int_equal(p500, (want + 499) / 500);
    assert_int_equal(psmall, (want + small_limit - 1) / small_limit);
    print_message("%s: %d %ss (world: %d), 1 page of 500 and %d pages of %d\n", path, a,
                  k8s_kind_name(kind), want, psmall, small_limit);
}

static void test_k8s_lists(void **state) {
    struct fx *f = *state;
    /* spotledger's pod query: labelSelector=<escaped controller-uid key> (watch_k8s.c) */
    char podq[256];
    char *esc = http_client_escape(K8S_LABEL_CONTROLLER_UID);
    snprintf(podq, sizeof podq, "labelSelector=%s", esc);
    free(esc);
    check_list(f, "/apis/batch/v1/jobs", "", K8S_JOB, NULL, 2);
    check_list(f, "/api/v1/pods", podq, K8S_POD, K8S_LABEL_CONTROLLER_UID, 3);
    check_list(f, "/api/v1/nodes", "", K8S_NODE, NULL, 2);
    check_list(f, "/api/v1/events", "", K8S_EVENT, NULL, 5);
    /* the PodDisruptionBudgets the watcher lists (issue 19) */
    check_list(f, "/apis/policy/v1/poddisruptionbudgets", "", K8S_PDB, NULL, 1);
    /* every pod of this world belongs to a Job, so the selector keeps them all */
    assert_int_equal(world_count(f, SIM_K_POD, K8S_LABEL_CONTROLLER_UID),
                     world_count(f, SIM_K_POD, NULL));
}

/* The parsed content, not only the counts: jobs' configurations and outcomes, pods'
 * jobs, nodes, GPU requests and disruptions, nodes' pools and providerIDs, and no
 * node of the reclaimed pool. */
static void test_k8s_content(void **state) {
    struct fx *f = *state;
    struct reply r;
    struct k8s_list l;
    get_ok(f, "/apis/batch/v1/jobs?limit=500", 200, &r);
    memset(&l, 0, sizeof l);
    assert_int_equal(k8s_list_parse(buf_str(&r.body), r.body.len, K8S_JOB, &l), ERR_OK);
    buf_release(&r.body);
    int done = 0;
    for (size_t i = 0; i < l.n; i++) {
        const struct k8s_job *j = &l.items[i].u.job;
        const struct sim_job *sj = &f->w->jobs[world_index(f->w, SIM_K_JOB, j->meta.uid)];
        const struct sim_workload *wl = &f->sc->workloads[sj->workload];
        assert_string_equal(j->configuration, sim_config_name(wl->configuration));
        assert_int_equal(j->meta.created_at, sj->created_t);
        if (sj->done_seq <= f->asof) {
            done++;
            assert_int_equal(j->outcome, sj->failed ? K8S_FAILED : K8S_SUCCEEDED);
            assert_int_equal(j->completed_at, sj->done_t);
        } else {
            assert_int_equal(j->outcome, K8S_RUNNING);
        }
    }
    k8s_list_release(&l);

    get_ok(f, "/api/v1/pods?limit=500", 200, &r);
    memset(&l, 0, sizeof l);
    assert_int_equal(k8s_list_parse(buf_str(&r.body), r.body.len, K8S_POD, &l), ERR_OK);
    buf_release(&r.body);
    int on_node = 0, finished = 0;
    for (size_t i = 0; i < l.n; i++) {
        const struct k8s_pod *p = &l.items[i].u.pod;
        const struct sim_pod *sp = &f->w->pods[world_index(f->w, SIM_K_POD, p->meta.uid)];
        const struct sim_job *sj = &f->w->jobs[sp->job];
        assert_string_equal(p->job_uid, sj->uid);
        assert_string_equal(p->job_name, sj->name);
        assert_int_equal(p->gpu_request, f->sc->workloads[sj->workload].gpus);
        if (sp->node >= 0 && sp->sched_seq <= f->asof) {
            on_node++;
            assert_string_equal(p->node_name, f->w->nodes[sp->node].name);
            assert_int_equal(p->scheduled_at, sp->sched_t);
        }
        if (sp->start_seq <= f->asof)
            assert_int_equal(p->started_at, sp->start_t);
        if (sp->fin_seq <= f->asof) {
            finished++;
            assert_int_equal(p->finished_at, sp->fin_t);
            assert_int_equal(p->exit_code, sp->exit_code);
        }
        /* two hours after the reclaim, pods left from gpu-spot are finished ones */
        if (strstr(p->node_name, "gpu-spot"))
            assert_true(strcmp(p->phase, "Succeeded") == 0 || strcmp(p->phase, "Failed") == 0);
    }
    k8s_list_release(&l);

    get_ok(f, "/api/v1/nodes?limit=500", 200, &r);
    memset(&l, 0, sizeof l);
    assert_int_equal(k8s_list_parse(buf_str(&r.body), r.body.len, K8S_NODE, &l), ERR_OK);
    buf_release(&r.body);
    for (size_t i = 0; i < l.n; i++) {
        const struct k8s_node *n = &l.items[i].u.node;
        const struct sim_node *sn = &f->w->nodes[world_index(f->w, SIM_K_NODE, n->meta.uid)];
        const struct sim_pool *sp = &f->w->pools[sn->pool];
        assert_string_equal(n->pool_id, sp->id);
        assert_string_equal(n->pool_name, sp->name);
        assert_string_equal(n->droplet_id, sn->droplet_id);
        assert_int_equal(n->gpu_allocatable, sn->gpus);
        assert_string_not_equal(n->pool_name, "gpu-spot");
        if (sn->ready_seq <= f->asof) {
            assert_string_equal(n->ready_status, "True");
            assert_int_equal(n->ready_since, sn->ready_t);
        }
    }
    print_message("jobs: %d finished of %d listed; pods: %d placed, %d finished; nodes: %zu, "
                  "none of gpu-spot; fields equal the world's\n",
                  done, world_count(f, SIM_K_JOB, NULL), on_node, finished, l.n);
    k8s_list_release(&l);
}

struct watch_count {
    int added, modified, deleted, bookmarks, errors, disrupted;
    long long last_rv;
};

/* The deletionTimestamp the world gives a deleted object of `kind` with this uid: its
 * deletion time (deleted_t), or for a pod with kube_deletion the request time plus
 * the grace period (sim_world.h). Fails when no world object has the uid. */
static int64_t world_deletion_at(const struct fx *f, enum k8s_kind kind, const char *uid) {
    int i = world_index(f->w, sim_kind_of(kind), uid);
    if (i < 0)
        fail_msg("deleted %s %s is not in the world", k8s_kind_name(kind), uid);
    switch (kind) {
    case K8S_POD:
        return f->w->kube_deletion ? f->w->pods[i].delreq_t + f->w->pods[i].delgrace
                                   : f->w->pods[i].deleted_t;
    case K8S_JOB:
        return f->w->jobs[i].deleted_t;
    case K8S_NODE:
        return f->w->nodes[i].deleted_t;
    case K8S_EVENT:
        return f->w->events[i].deleted_t;
    case K8S_PDB: /* static in spotsim: never deleted */
        break;
    }
    return -1;
}

/* Parses every line of a watch body with k8s_watch_parse; resourceVersions never go
 * back; a DELETED object's deletionTimestamp is the world's. Returns the number of lines. */
static int parse_watch(const struct fx *f, const char *body, enum k8s_kind kind,
                       struct watch_count *c) {
    memset(c, 0, sizeof *c);
    int lines = 0;
    const char *p = body;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > 0) {
            struct k8s_watch_event ev;
            memset(&ev, 0, sizeof ev);
            enum err rc = k8s_watch_parse(p, len, kind, &ev);
            if (rc != ERR_OK)
                fail_msg("watch line %d: %s: %.*s", lines + 1, err_str(rc), (int)len, p);
            lines++;
            switch (ev.type) {
            case K8S_ADDED:
                c->added++;
                break;
            case K8S_MODIFIED:
                c->modified++;
                break;
            case K8S_DELETED:
                c->deleted++;
                assert_int_equal(k8s_object_meta(&ev.obj)->deletion_at,
                                 world_deletion_at(f, kind, k8s_object_meta(&ev.obj)->uid));
                break;
            case K8S_BOOKMARK:
                c->bookmarks++;
                break;
            case K8S_ERROR:
                c->errors++;
                break;
            }
            if (ev.type != K8S_ERROR) {
                long long rv = strtoll(ev.resource_version, NULL, 10);
                assert_true(rv >= c->last_rv);
                c->last_rv = rv;
            }
            if (kind == K8S_POD && ev.type != K8S_BOOKMARK && ev.type != K8S_ERROR &&
                ev.obj.u.pod.disruption_at > 0)
                c->disrupted++;
            k8s_watch_event_release(&ev);
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    return lines;
}

/* spotledger's watch (watch_k8s.c build_url) from a resourceVersion a minute before
 * the reclaim, with allowWatchBookmarks: every change since, then BOOKMARKs up to
 * the head, all readable by k8s_watch_parse. */
static void test_watch(void **state) {
    struct fx *f = *state;
    int64_t from = sim_world_seq_at(f->w, f->S + RECLAIM_AFTER - 60);
    struct {
        const char *path, *query;
        enum k8s_kind kind;
        enum sim_kind sk;
    } res[] = {
        {"/api/v1/pods", "labelSelector=batch.kubernetes.io%2Fcontroller-uid&", K8S_POD, SIM_K_POD},
        {"/api/v1/nodes", "", K8S_NODE, SIM_K_NODE},
        {"/apis/batch/v1/jobs", "", K8S_JOB, SIM_K_JOB},
        {"/api/v1/events", "", K8S_EVENT, SIM_K_EVENT}};
    for (size_t k = 0; k < sizeof res / sizeof *res; k++) {
        char path[512];
        snprintf(path, sizeof path,
                 "%s?%swatch=1&allowWatchBookmarks=true&resourceVersion=%lld&timeoutSeconds=1",
                 res[k].path, res[k].query, (long long)from);
        struct reply r;
        get_ok(f, path, 200, &r);
        struct watch_count c;
        int lines = parse_watch(f, buf_str(&r.body), res[k].kind, &c);
        buf_release(&r.body);
        /* the world's changes of that kind after `from` up to now, one line each */
        int want_changes = 0, want_deleted = 0;
        for (int i = sim_world_log_after(f->w, from); i < f->w->nlog; i++) {
            const struct sim_entry *e = &f->w->log[i];
            if (e->seq > f->asof)
                break;
            if (e->kind != res[k].sk)
                continue;
            want_changes++;
            want_deleted += e->etype == SIM_DELETED;
        }
        assert_int_equal(c.added + c.modified + c.deleted, want_changes);
        assert_int_equal(c.deleted, want_deleted);
        /* every kind's BOOKMARK parses (spotsim's Node bookmark once had a stray '}') */
        assert_true(c.bookmarks > 0);
        assert_int_equal(c.errors, 0);
        assert_int_equal(c.last_rv, f->asof); /* the bookmarks reach the head */
        if (res[k].kind == K8S_POD)
            assert_true(c.disrupted > 0 && c.deleted > 0);
        if (res[k].kind == K8S_NODE)
            assert_true(c.deleted >= 2); /* the two gpu-spot nodes */
        print_message("watch %s: %d lines parsed: %d ADDED, %d MODIFIED, %d DELETED, "
                      "%d BOOKMARK (last resourceVersion %lld = head)\n",
                      res[k].path, lines, c.added, c.modified, c.deleted, c.bookmarks, c.last_rv);
    }
}

/* 410 Gone, both ways spotledger meets it: a watch from a resourceVersion older than
 * the retention (one ERROR line whose object is a Status), and a list continue token
 * that expired (an HTTP 410 whose body is a Status). */
static void test_gone_410(void **state) {
    struct fx *f = *state;
    char path[1024];
    struct reply r;
    snprintf(path, sizeof path,
             "/api/v1/pods?labelSelector=batch.kubernetes.io%%2Fcontroller-uid&watch=1&"
             "allowWatchBookmarks=true&resourceVersion=%lld&timeoutSeconds=1",
             (long long)sim_world_seq_at(f->w, f->S + 60));
    get_ok(f, path, 200, &r);
    struct watch_count c;
    assert_int_equal(parse_watch(f, buf_str(&r.body), K8S_POD, &c), 1);
    assert_int_equal(c.errors, 1);
    struct k8s_watch_event ev;
    memset(&ev, 0, sizeof ev);
    const char *line = buf_str(&r.body);
    assert_int_equal(k8s_watch_parse(line, strcspn(line, "\n"), K8S_POD, &ev), ERR_OK);
    assert_int_equal(ev.type, K8S_ERROR);
    assert_int_equal(ev.status.code, 410);
    assert_string_equal(ev.status.reason, "Expired");
    k8s_watch_event_release(&ev);
    buf_release(&r.body);

    /* a continue token taken before the retention window: 410 Expired as a Status */
    sim_clock_set(&f->clock, f->S + 1800);
    get_ok(f, "/api/v1/events?limit=1", 200, &r);
    struct k8s_list l;
    memset(&l, 0, sizeof l);
    assert_int_equal(k8s_list_parse(buf_str(&r.body), r.body.len, K8S_EVENT, &l), ERR_OK);
    buf_release(&r.body);
    assert_non_null(l.continue_token);
    char *esc = http_client_escape(l.continue_token);
    snprintf(path, sizeof path, "/api/v1/events?limit=1&continue=%s", esc);
    free(esc);
    k8s_list_release(&l);
    sim_clock_set(&f->clock, f->now);
    get_ok(f, path, 410, &r);
    struct k8s_status st;
    memset(&st, 0, sizeof st);
    assert_int_equal(k8s_status_parse(buf_str(&r.body), r.body.len, &st), ERR_OK);
    assert_int_equal(st.code, 410);
    assert_string_equal(st.reason, "Expired");
    assert_true(st.message[0] != '\0');
    buf_release(&r.body);
    /* and a list body is not a Status */
    get_ok(f, "/api/v1/nodes?limit=1", 200, &r);
    assert_int_equal(k8s_status_parse(buf_str(&r.body), r.body.len, &st), ERR_PARSE);
    buf_release(&r.body);
    print_message("410: watch ERROR line and expired continue token both parse as Status "
                  "410 Expired\n");
}

int main(void) {
    curl_global_init(CURL_GLOBAL_ALL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sizes, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_cluster, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_node_pools, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_do_errors, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_billing_mid, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_billing_truth, setup_week_close, teardown),
        cmocka_unit_test_setup_teardown(test_k8s_lists, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_k8s_content, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_watch, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_gone_410, setup_small, teardown),
    };
    int rc = cmocka_run_group_tests_name("sim_parse", tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
