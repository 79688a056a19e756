/* test_sim_api — spotsim's HTTP APIs, served by the real sim_server on
 * 127.0.0.1 port 0 with a frozen clock, fetched with libcurl: DigitalOcean shapes,
 * auth, pagination, a reclaim as the APIs show it, invoices equal to the truth,
 * Kubernetes lists with continue tokens and label selectors, watch replay with
 * bookmarks and 410, and injected faults at roughly their configured rates.
 * Every request has a timeout; nothing asserts inside server threads. */
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
#include "base/money.h"
#include "sim/sim_clock.h"
#include "sim/sim_fault.h"
#include "sim/sim_scenario.h"
#include "sim/sim_server.h"
#include "sim/sim_truth.h"
#include "sim/sim_world.h"
#include "base/timeutil.h"

#include "sim_fx.h"

#define SMALL "tests/fixtures/sim/small.json"

static json_object *get_json(struct fx *f, const char *path, long want_status) {
    struct reply r;
    fx_get(f, path, "good", 10000, &r);
    assert_int_equal(r.cc, CURLE_OK);
    if (r.status != want_status)
        fail_msg("GET %s: status %ld, want %ld: %.300s", path, r.status, want_status,
                 buf_str(&r.body));
    json_object *o = json_tokener_parse(buf_str(&r.body));
    buf_release(&r.body);
    assert_non_null(o);
    return o;
}

static json_object *at(json_object *o, const char *key) {
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v))
        return NULL;
    return v;
}

static const char *str_at(json_object *o, const char *key) {
    json_object *v = at(o, key);
    return v ? json_object_get_string(v) : NULL;
}

static int fx_start(struct fx *f, bool faults) {
    if (fx_load(f, SMALL, 0) != 0)
        return -1;
    return fx_serve(f, "good", 600, faults);
}

static int setup(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    if (!f || fx_start(f, false) != 0)
        return -1;
    *state = f;
    return 0;
}

static int setup_faults(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    if (!f || fx_start(f, true) != 0)
        return -1;
    *state = f;
    return 0;
}

/* --- DigitalOcean --- */

static void test_do_auth_date_pagination(void **state) {
    struct fx *f = *state;
    sim_clock_set(&f->clock, f->S + 3600);
    struct reply r;
    fx_get(f, "/v2/sizes", NULL, 5000, &r);
    assert_int_equal(r.status, 401);
    json_object *e = json_tokener_parse(buf_str(&r.body));
    assert_string_equal(str_at(e, "id"), "unauthorized");
    assert_string_equal(str_at(e, "message"), "Unable to authenticate you.");
    json_object_put(e);
    buf_release(&r.body);
    fx_get(f, "/v2/sizes", "wrong", 5000, &r);
    assert_int_equal(r.status, 401);
    buf_release(&r.body);
    fx_get(f, "/v2/sizes?per_page=1", "good", 5000, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.date, "Mon, 09 Nov 2026 01:00:00 GMT"); /* simulated time */
    assert_true(r.ratelimit_remaining[0] != '\0');
    json_object *o = json_tokener_parse(buf_str(&r.body));
    buf_release(&r.body);
    assert_int_equal(json_object_array_length(at(o, "sizes")), 1);
    assert_int_equal(json_object_get_int(at(at(o, "meta"), "total")), 3);
    const char *next = str_at(at(at(o, "links"), "pages"), "next");
    assert_non_null(next);
    assert_non_null(strstr(next, "page=2&per_page=1"));
    /* price_hourly is a JSON number with the scenario's literal */
    json_object *s0 = json_object_array_get_idx(at(o, "sizes"), 0);
    assert_true(json_object_is_type(at(s0, "price_hourly"), json_type_double));
    assert_string_equal(json_object_to_json_string(at(s0, "price_hourly")), "3.384");
    json_object_put(o);
    o = get_json(f, "/v2/sizes?page=3&per_page=1", 200);
    json_object *pages = at(at(o, "links"), "pages");
    assert_null(at(pages, "next"));
    assert_non_null(at(pages, "prev"));
    json_object *gpu = at(json_object_array_get_idx(at(o, "sizes"), 0), "gpu_info");
    assert_null(gpu); /* s-4vcpu-8gb has none */
    json_object_put(o);
}

static json_object *find_pool(json_object *pools, const char *name) {
    for (size_t i = 0; i < json_object_array_length(pools); i++) {
        json_object *p = json_object_array_get_idx(pools, i);
        if (strcmp(str_at(p, "name"), name) == 0)
            return p;
    }
    return NULL;
}

static void test_do_reclaim(void **state) {
    struct fx *f = *state;
    char path[256];
    snprintf(path, sizeof path, "/v2/kubernetes/clusters/%s/node_pools", f->w->cluster_id);
    int64_t r = f->S + 7200;
    static const struct {
        int64_t dt;
        const char *state; /* of the spot nodes; NULL = pool gone */
    } steps[] = {{-100, "running"}, {10, "draining"}, {40, "deleting"}, {100, NULL}};
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
        sim_clock_set(&f->clock, r + steps[k].dt);
        json_object *o = get_json(f, path, 200);
        json_object *spot = find_pool(at(o, "node_pools"), "gpu-spot");
        assert_non_null(find_pool(at(o, "node_pools"), "system"));
        if (!steps[k].state) {
            assert_null(spot);
        } else {
            assert_non_null(spot);
            json_object *nodes = at(spot, "nodes");
            assert_int_equal(json_object_array_length(nodes), 2);
            for (size_t i = 0; i < 2; i++) {
                json_object *n = json_object_array_get_idx(nodes, i);
                assert_string_equal(str_at(at(n, "status"), "state"), steps[k].state);
                assert_true(json_object_is_type(at(n, "droplet_id"), json_type_string));
            }
        }
        json_object_put(o);
    }
    snprintf(path, sizeof path, "/v2/kubernetes/clusters/%s/node_pools/%s", f->w->cluster_id,
             "6a1f0c2e-3b7d-4c55-9e8a-1d2f3a4b5c6d");
    json_object *o = get_json(f, path, 404);
    assert_string_equal(str_at(o, "id"), "not_found");
    json_object_put(o);
}

static void test_invoice_equals_truth(void **state) {
    struct fx *f = *state;
    sim_clock_set(&f->clock, f->w->horizon);
    json_object *o = get_json(f, "/v2/customers/my/invoices", 200);
    json_object *prev = at(o, "invoice_preview");
    assert_non_null(prev);
    assert_string_equal(str_at(prev, "invoice_period"), "2026-11");
    char path[160];
    snprintf(path, sizeof path, "/v2/customers/my/invoices/%s?per_page=200",
             str_at(prev, "invoice_uuid"));
    int64_t preview_amount;
    char pa[32];
    snprintf(pa, sizeof pa, "%s", str_at(prev, "amount"));
    assert_int_equal(money_parse(pa, strlen(pa), 0, &preview_amount), ERR_OK);
    json_object_put(o);
    o = get_json(f, path, 200);
    json_object *items = at(o, "invoice_items");
    int64_t sum = 0, n_items = (int64_t)json_object_array_length(items);
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        const char *a = str_at(json_object_array_get_idx(items, i), "amount");
        int64_t v;
        assert_int_equal(money_parse(a, strlen(a), 0, &v), ERR_OK);
        sum += v;
    }
    json_object_put(o);
    assert_int_equal(sum, preview_amount);
    struct buf t;
    buf_init(&t, 0);
    assert_int_equal(sim_truth_render(f->w, &t), ERR_OK);
    json_object *truth = json_tokener_parse(buf_str(&t));
    buf_release(&t);
    const char *bt = json_object_to_json_string(at(truth, "billed_total"));
    int64_t billed;
    assert_int_equal(money_parse(bt, strlen(bt), 0, &billed), ERR_OK);
    /* small.json lies in November: one item per billed node. DigitalOcean shows each
     * item in whole cents (rounded half up, amounts are positive): the invoice is the
     * sum of the truth's node amounts rounded one by one, within half a cent each. */
    json_object *nodes = at(truth, "nodes");
    int64_t rounded = 0, billed_nodes = 0;
    for (size_t i = 0; i < json_object_array_length(nodes); i++) {
        const char *nb =
            json_object_to_json_string(at(json_object_array_get_idx(nodes, i), "billed"));
        int64_t v;
        assert_int_equal(money_parse(nb, strlen(nb), 0, &v), ERR_OK);
        if (v > 0) {
            rounded += (v + 5000) / 10000 * 10000;
            billed_nodes++;
        }
    }
    assert_int_equal(sum, rounded);
    assert_int_equal(n_items, billed_nodes);
    assert_true(llabs(sum - billed) <= billed_nodes * 5000);
    json_object_put(truth);
    o = get_json(f, "/v2/customers/my/balance", 200);
    assert_string_equal(str_at(o, "month_to_date_usage"), pa);
    json_object_put(o);
}

/* --- Kubernetes --- */

static bool has_condition(json_object *pod, const char *type) {
    json_object *conds = at(at(pod, "status"), "conditions");
    for (size_t i = 0; conds && i < json_object_array_length(conds); i++)
        if (strcmp(str_at(json_object_array_get_idx(conds, i), "type"), type) == 0)
            return true;
    return false;
}

static void test_k8s_reclaim_visible(void **state) {
    struct fx *f = *state;
    int64_t r = f->S + 7200;
    sim_clock_set(&f->clock, r + 10); /* after eviction (r + 5), before shutdown */
    json_object *o = get_json(f, "/api/v1/pods", 200);
    json_object *items = at(o, "items");
    int disrupted = 0;
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        json_object *p = json_object_array_get_idx(items, i);
        assert_null(at(p, "kind")); /* list items carry no kind */
        if (!has_condition(p, "DisruptionTarget"))
            continue;
        disrupted++;
        assert_non_null(at(at(p, "metadata"), "deletionTimestamp"));
        assert_non_null(strstr(str_at(at(p, "spec"), "nodeName"), "gpu-spot-"));
    }
    assert_true(disrupted > 0);
    json_object_put(o);
    o = get_json(f, "/api/v1/nodes?labelSelector=doks.digitalocean.com/node-pool%3Dgpu-spot", 200);
    items = at(o, "items");
    assert_int_equal(json_object_array_length(items), 2);
    for (size_t i = 0; i < 2; i++) {
        json_object *n = json_object_array_get_idx(items, i);
        assert_true(json_object_get_boolean(at(at(n, "spec"), "unschedulable")));
        assert_non_null(strstr(str_at(at(n, "spec"), "providerID"), "digitalocean://"));
    }
    json_object_put(o);
    /* after node deletion + PodGC: no spot nodes, no disrupted pods left */
    sim_clock_set(&f->clock, r + 200);
    o = get_json(f, "/api/v1/nodes?labelSelector=doks.digitalocean.com/node-pool%3Dgpu-spot", 200);
    assert_int_equal(json_object_array_length(at(o, "items")), 0);
    json_object_put(o);
    o = get_json(f, "/api/v1/namespaces/batch/pods", 200);
    items = at(o, "items");
    for (size_t i = 0; i < json_object_array_length(items); i++)
        assert_false(has_condition(json_object_array_get_idx(items, i), "DisruptionTarget"));
    json_object_put(o);
    /* the Events tell the story */
    o = get_json(f, "/api/v1/events", 200);
    items = at(o, "items");
    bool reclaim = false, removing = false;
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        const char *why = str_at(json_object_array_get_idx(items, i), "reason");
        reclaim |= strcmp(why, "SpotReclaim") == 0;
        removing |= strcmp(why, "RemovingNode") == 0;
    }
    assert_true(reclaim && removing);
    json_object_put(o);
}

static void names_of(json_object *items, struct buf *out) {
    for (size_t i = 0; i < json_object_array_length(items); i++) {
        buf_puts(out, str_at(at(json_object_array_get_idx(items, i), "metadata"), "name"));
        buf_putc(out, '\n');
    }
}

static void test_k8s_pagination(void **state) {
    struct fx *f = *state;
    sim_clock_set(&f->clock, f->S + 4 * 3600);
    json_object *all = get_json(f, "/api/v1/pods", 200);
    size_t total = json_object_array_length(at(all, "items"));
    assert_true(total >= 5);
    const char *rv = str_at(at(all, "metadata"), "resourceVersion");
    struct buf want, got;
    buf_init(&want, 0);
    buf_init(&got, 0);
    names_of(at(all, "items"), &want);
    char path[2048];
    snprintf(path, sizeof path, "/api/v1/pods?limit=2");
    int pages = 0;
    for (;;) {
        /* the clock moves between pages: continue keeps the first page's snapshot */
        sim_clock_set(&f->clock, f->S + 4 * 3600 + pages * 60);
        json_object *o = get_json(f, path, 200);
        assert_string_equal(str_at(at(o, "metadata"), "resourceVersion"), rv);
        names_of(at(o, "items"), &got);
        pages++;
        const char *cont = str_at(at(o, "metadata"), "continue");
        if (pages == 1) {
            assert_int_equal(json_object_get_int(at(at(o, "metadata"), "remainingItemCount")),
                             (int)total - 2);
        }
        if (!cont) {
            json_object_put(o);
            break;
        }
        snprintf(path, sizeof path, "/api/v1/pods?limit=2&continue=%s", cont);
        json_object_put(o);
        assert_true(pages < 100);
    }
    assert_int_equal(pages, (int)(total + 1) / 2);
    assert_string_equal(buf_str(&got), buf_str(&want));
    buf_release(&want);
    buf_release(&got);
    json_object_put(all);
    /* a continue token older than the retention window: 410 Expired */
    sim_clock_set(&f->clock, f->S + 4 * 3600);
    json_object *o = get_json(f, "/api/v1/pods?limit=1", 200);
    snprintf(path, sizeof path, "/api/v1/pods?limit=1&continue=%s",
             str_at(at(o, "metadata"), "continue"));
    json_object_put(o);
    sim_clock_set(&f->clock, f->S + 6 * 3600);
    o = get_json(f, path, 410);
    assert_string_equal(str_at(o, "reason"), "Expired");
    json_object_put(o);
}

static int count_items(struct fx *f, const char *path) {
    json_object *o = get_json(f, path, 200);
    int n = (int)json_object_array_length(at(o, "items"));
    json_object_put(o);
    return n;
}

static void test_label_selector(void **state) {
    struct fx *f = *state;
    sim_clock_set(&f->clock, f->S + 5400); /* the Indexed shard job is running */
    int all = count_items(f, "/api/v1/pods");
    int fb = count_items(f, "/api/v1/pods?labelSelector=spotledger.io/configuration%3Dfallback");
    int notfb =
        count_items(f, "/api/v1/pods?labelSelector=spotledger.io/configuration!%3Dfallback");
    int idx = count_items(f, "/api/v1/pods?labelSelector=batch.kubernetes.io/job-completion-index");
    int noidx =
        count_items(f, "/api/v1/pods?labelSelector=!batch.kubernetes.io/job-completion-index");
    int both = count_items(f, "/api/v1/pods?labelSelector=spotledger.io/"
                              "configuration%3Dspot,batch.kubernetes.io/job-completion-index");
    int in = count_items(f, "/api/v1/pods?labelSelector=spotledger.io/"
                            "configuration%20in%20(spot,on-demand)");
    assert_true(fb > 0 && notfb > 0 && idx > 0);
    assert_int_equal(fb + notfb, all);
    assert_int_equal(idx + noidx, all);
    assert_int_equal(both, idx); /* only the spot shard job is Indexed */
    assert_int_equal(in, notfb);
    json_object *o = get_json(f, "/api/v1/pods?labelSelector=a%3D%3D%3Db", 400);
    assert_string_equal(str_at(o, "kind"), "Status");
    json_object_put(o);
    /* job labels, jobs API, and a namespaced single GET */
    o = get_json(f,
                 "/apis/batch/v1/namespaces/batch/jobs?labelSelector=spotledger.io/"
                 "experiment%3Dsmall",
                 200);
    assert_true(json_object_array_length(at(o, "items")) > 0);
    json_object *job = json_object_array_get_idx(at(o, "items"), 0);
    char path[256];
    snprintf(path, sizeof path, "/apis/batch/v1/namespaces/batch/jobs/%s",
             str_at(at(job, "metadata"), "name"));
    json_object_put(o);
    o = get_json(f, path, 200);
    assert_string_equal(str_at(o, "kind"), "Job");
    assert_non_null(at(at(o, "spec"), "backoffLimit"));
    json_object_put(o);
    o = get_json(f, "/apis/batch/v1/namespaces/batch/jobs/nope", 404);
    assert_string_equal(str_at(o, "reason"), "NotFound");
    json_object_put(o);
}

struct lines {
    char *text;
    char *line[4096];
    int n;
};

static void split_lines(char *text, struct lines *l) {
    l->text = text;
    l->n = 0;
    char *p = text;
    while (*p && l->n < 4096) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (*p)
            l->line[l->n++] = p;
        if (!nl)
            break;
        p = nl + 1;
    }
}

static void test_watch(void **state) {
    struct fx *f = *state;
    int64_t r = f->S + 7200;
    sim_clock_set(&f->clock, r + 400);
    int64_t from = sim_world_seq_at(f->w, r - 60);
    char path[256];
    snprintf(path, sizeof path,
             "/api/v1/pods?watch=1&resourceVersion=%lld&allowWatchBookmarks=true&timeoutSeconds=1",
             (long long)from);
    struct reply rep;
    fx_get(f, path, "good", 5000, &rep);
    assert_int_equal(rep.cc, CURLE_OK);
    assert_int_equal(rep.status, 200);
    struct lines l;
    split_lines(buf_detach(&rep.body, NULL), &l);
    assert_true(l.n > 3);
    long long last = from;
    int deleted = 0, disrupted = 0, bookmarks = 0;
    for (int i = 0; i < l.n; i++) {
        json_object *ev = json_tokener_parse(l.line[i]);
        assert_non_null(ev);
        const char *type = str_at(ev, "type");
        json_object *obj = at(ev, "object");
        long long rv = atoll(str_at(at(obj, "metadata"), "resourceVersion"));
        assert_true(rv >= last); /* never backwards */
        last = rv;
        if (strcmp(type, "BOOKMARK") == 0) {
            bookmarks++;
        } else {
            assert_string_equal(str_at(obj, "kind"), "Pod");
            if (strcmp(type, "DELETED") == 0) {
                deleted++;
                assert_non_null(at(at(obj, "metadata"), "deletionTimestamp"));
            }
            if (has_condition(obj, "DisruptionTarget"))
                disrupted++;
        }
        json_object_put(ev);
    }
    assert_true(deleted > 0 && disrupted > 0 && bookmarks > 0);
    assert_int_equal(last, sim_world_seq_at(f->w, r + 400)); /* bookmarks reach the head */
    free(l.text);

    /* a resourceVersion older than the 600 s retention: one ERROR 410 event */
    snprintf(path, sizeof path, "/api/v1/pods?watch=true&resourceVersion=%lld&timeoutSeconds=1",
             (long long)sim_world_seq_at(f->w, f->S + 60));
    fx_get(f, path, "good", 5000, &rep);
    assert_int_equal(rep.status, 200);
    json_object *ev = json_tokener_parse(buf_str(&rep.body));
    buf_release(&rep.body);
    assert_string_equal(str_at(ev, "type"), "ERROR");
    assert_int_equal(json_object_get_int(at(at(ev, "object"), "code")), 410);
    assert_string_equal(str_at(at(ev, "object"), "reason"), "Expired");
    json_object_put(ev);

    /* resourceVersion 0: the current objects as ADDED first */
    fx_get(f, "/api/v1/nodes?watch=1&resourceVersion=0&timeoutSeconds=1", "good", 5000, &rep);
    split_lines(buf_detach(&rep.body, NULL), &l);
    int nodes = count_items(f, "/api/v1/nodes");
    assert_int_equal(l.n, nodes);
    for (int i = 0; i < l.n; i++)
        assert_non_null(strstr(l.line[i], "\"type\":\"ADDED\""));
    free(l.text);
}

/* Every spelling Go's strconv.ParseBool accepts opens a watch (rv 0: one ADDED per
 * node); anything else is a 400 (issue 23 item 3: watch=True gave a plain list). */
static void test_watch_spellings(void **state) {
    struct fx *f = *state;
    sim_clock_set(&f->clock, f->S + 3600);
    int nodes = count_items(f, "/api/v1/nodes");
    assert_true(nodes >= 4);
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    char path[160];
    struct reply rep;
    struct lines l;
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        snprintf(path, sizeof path, "/api/v1/nodes?watch=%s&resourceVersion=0&timeoutSeconds=1",
                 yes[i]);
        fx_get(f, path, "good", 5000, &rep);
        assert_int_equal(rep.status, 200);
        split_lines(buf_detach(&rep.body, NULL), &l);
        assert_int_equal(l.n, nodes);
        assert_non_null(strstr(l.line[0], "\"type\":\"ADDED\""));
        free(l.text);
    }
    /* false spellings: a list */
    json_object *o = get_json(f, "/api/v1/nodes?watch=False", 200);
    assert_string_equal(str_at(o, "kind"), "NodeList");
    json_object_put(o);
    o = get_json(f, "/api/v1/nodes?watch=yes", 400);
    json_object_put(o);
    o = get_json(f, "/api/v1/nodes?watch=1&allowWatchBookmarks=maybe", 400);
    json_object_put(o);
}

/* Field selectors kubectl describe node sends (pods by node and phase), events by
 * object; an unsupported label is a 400. Expected sets come from the world's facts. */
static void test_field_selectors(void **state) {
    struct fx *f = *state;
    int64_t now = f->S + 600; /* pods running, the nodes' events (1 h TTL) still there */
    sim_clock_set(&f->clock, now);
    int64_t asof = sim_world_seq_at(f->w, now);
    int running = 0, on_node = 0;
    const char *node = NULL;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < f->w->npods; i++) {
            const struct sim_pod *p = &f->w->pods[i];
            if (p->created_seq > asof || p->deleted_seq <= asof)
                continue;
            bool fin = p->fin_seq <= asof || p->gcfail_seq <= asof;
            if (pass == 0 && p->start_seq <= asof && !fin) {
                running++;
                if (!node)
                    node = f->w->nodes[p->node].name;
            }
            /* on the node (scheduled), neither Succeeded nor Failed */
            if (pass == 1 && p->sched_seq <= asof && !fin &&
                strcmp(f->w->nodes[p->node].name, node) == 0)
                on_node++;
        }
    assert_true(running > 0 && node);
    assert_int_equal(count_items(f, "/api/v1/pods?fieldSelector=status.phase%3DRunning"), running);
    char path[256];
    snprintf(path, sizeof path,
             "/api/v1/pods?fieldSelector=spec.nodeName%%3D%s%%2Cstatus.phase%%21%%3DSucceeded"
             "%%2Cstatus.phase%%21%%3DFailed",
             node);
    assert_int_equal(count_items(f, path), on_node);
    snprintf(
        path, sizeof path,
        "/api/v1/events?fieldSelector=involvedObject.kind%%3DNode%%2CinvolvedObject.name%%3D%s",
        node);
    int node_events = 0;
    for (int i = 0; i < f->w->nevents; i++) {
        const struct sim_kevent *ev = &f->w->events[i];
        node_events += ev->obj_kind == SIM_K_NODE && ev->seq <= asof && ev->deleted_seq > asof &&
                       strcmp(f->w->nodes[ev->obj].name, node) == 0;
    }
    assert_true(node_events > 0);
    assert_int_equal(count_items(f, path), node_events);
    json_object *o = get_json(f, "/api/v1/pods?fieldSelector=status.hostIP%3D1", 400);
    json_object_put(o);
    o = get_json(f, "/api/v1/nodes?fieldSelector=status.phase%3DRunning", 400);
    json_object_put(o);
}

static void test_discovery(void **state) {
    struct fx *f = *state;
    json_object *o = get_json(f, "/apis", 200);
    assert_string_equal(str_at(o, "kind"), "APIGroupList");
    json_object_put(o);
    o = get_json(f, "/apis/batch/v1", 200);
    assert_string_equal(str_at(o, "kind"), "APIResourceList");
    json_object_put(o);
    o = get_json(f, "/api/v1", 200);
    assert_int_equal(json_object_array_length(at(o, "resources")), 4);
    json_object_put(o);
    struct reply r;
    fx_get(f, "/api/v1/pods", NULL, 5000, &r);
    assert_int_equal(r.status, 401);
    buf_release(&r.body);
}

/* --- faults --- */

static void test_faults(void **state) {
    struct fx *f = *state;
    sim_clock_set(&f->clock, f->S + 3600);
    /* 429 at 30 %: 300 requests give 90 +- a wide margin */
    f->faults.rule[SIM_FAULT_429].ppm = 300000;
    int n429 = 0;
    for (int i = 0; i < 300; i++) {
        struct reply r;
        fx_get(f, "/v2/account", "good", 5000, &r);
        if (r.status == 429) {
            n429++;
            assert_true(r.retry_after[0] != '\0');
        } else {
            assert_int_equal(r.status, 200);
        }
        buf_release(&r.body);
    }
    assert_in_range(n429, 50, 130);
    f->faults.rule[SIM_FAULT_429].ppm = 0;
    /* a count: exactly the first three requests get 500 or 503 */
    f->faults.rule[SIM_FAULT_5XX].count = 3;
    for (int i = 0; i < 6; i++) {
        struct reply r;
        fx_get(f, "/api/v1/nodes", "good", 5000, &r);
        if (i < 3)
            assert_true(r.status == 500 || r.status == 503);
        else
            assert_int_equal(r.status, 200);
        buf_release(&r.body);
    }
    /* truncated bodies: the client sees a transfer error */
    f->faults.rule[SIM_FAULT_TRUNCATE].ppm = 1000000;
    struct reply r;
    fx_get(f, "/api/v1/pods", "good", 5000, &r);
    assert_int_not_equal(r.cc, CURLE_OK);
    buf_release(&r.body);
    f->faults.rule[SIM_FAULT_TRUNCATE].ppm = 0;
    /* slow: past the client's timeout */
    f->faults.rule[SIM_FAULT_SLOW].count = 1;
    f->faults.slow_ms = 1500;
    fx_get(f, "/v2/sizes", "good", 300, &r);
    assert_int_equal(r.cc, CURLE_OPERATION_TIMEDOUT);
    buf_release(&r.body);
    /* watch 410 and duplicates (from a resourceVersion inside the retention) */
    sim_clock_set(&f->clock, f->S + 2300);
    f->faults.rule[SIM_FAULT_WATCH_410].count = 1;
    char path[160];
    snprintf(path, sizeof path, "/api/v1/pods?watch=1&resourceVersion=%lld&timeoutSeconds=1",
             (long long)sim_world_seq_at(f->w, f->S + 1800));
    fx_get(f, path, "good", 5000, &r);
    assert_non_null(strstr(buf_str(&r.body), "\"code\":410"));
    buf_release(&r.body);
    f->faults.rule[SIM_FAULT_WATCH_DUP].ppm = 1000000;
    fx_get(f, path, "good", 5000, &r);
    struct lines l;
    split_lines(buf_detach(&r.body, NULL), &l);
    if (!(l.n >= 2 && l.n % 2 == 0))
        fail_msg("%d lines: %.200s", l.n, l.n ? l.line[0] : "");
    for (int i = 0; i + 1 < l.n; i += 2)
        assert_string_equal(l.line[i], l.line[i + 1]);
    free(l.text);
}

int main(void) {
    curl_global_init(CURL_GLOBAL_ALL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_do_auth_date_pagination, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_do_reclaim, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_invoice_equals_truth, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_k8s_reclaim_visible, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_k8s_pagination, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_label_selector, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_watch, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_discovery, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_watch_spellings, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_field_selectors, setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_faults, setup_faults, fx_teardown),
    };
    int rc = cmocka_run_group_tests_name("sim_api", tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
