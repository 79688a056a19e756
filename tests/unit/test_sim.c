/* test_sim — spotsim without HTTP: scenario parsing (good and bad files), the
 * engine's determinism, a reclaim's facts in the world, DigitalOcean's billing
 * rule, and the ground truth (raw sections agree with the oracle's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/request.h"
#include "sim/sim_billing.h"
#include "sim/sim_do_api.h"
#include "sim/sim_record.h"
#include "plan/rng.h"
#include "sim/sim_scenario.h"
#include "sim/sim_truth.h"
#include "sim/sim_k8s_obj.h"
#include "source/k8s_api.h"
#include "base/jsonw.h"
#include "sim/sim_world.h"
#include "base/timeutil.h"

#define SMALL "tests/fixtures/sim/small.json"

static struct sim_scenario *load_small(void) {
    struct sim_scenario *sc = NULL;
    char err[256];
    assert_int_equal(sim_scenario_load(SMALL, &sc, err, sizeof err), ERR_OK);
    return sc;
}

static char *truth_of(const struct sim_scenario *sc, uint64_t seed, int64_t horizon) {
    struct sim_world *w = sim_world_build(sc, seed, horizon);
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(sim_truth_render(w, &b), ERR_OK);
    sim_world_free(w);
    return buf_detach(&b, NULL);
}

/* --- scenario --- */

static void test_scenario_good(void **state) {
    (void)state;
    struct sim_scenario *sc = load_small();
    int64_t start;
    assert_int_equal(timeutil_parse_rfc3339("2026-11-09T00:00:00Z", 20, &start), ERR_OK);
    assert_int_equal(sc->start, start);
    assert_int_equal(sc->duration, 12 * 3600);
    assert_int_equal(sc->npools, 4);
    assert_string_equal(sc->pools[0].name, "gpu-spot");
    assert_int_equal(sc->pools[0].role, SIM_ROLE_SPOT);
    assert_int_equal(sc->pools[0].ntaints, 1);
    assert_false(sc->pools[0].auto_scale);
    assert_int_equal(sc->pools[0].min_nodes, 2); /* fixed pools: min = max = count */
    assert_true(sc->pools[1].auto_scale);
    assert_int_equal(sc->pools[1].max_nodes, 2);
    assert_int_equal(sc->sizes[1].price_hourly, 1353600);
    /* default placement of a fallback workload: spot pools, then fallback pools */
    const struct sim_workload *fb = &sc->workloads[0];
    assert_int_equal(fb->configuration, SIM_CFG_FALLBACK);
    assert_int_equal(fb->npools, 2);
    assert_int_equal(fb->pools[0], 0);
    assert_int_equal(fb->pools[1], 1);
    assert_int_equal(fb->failure_ppm, 100000);
    assert_int_equal(fb->checkpoint_interval, 600);
    assert_int_equal(sc->workloads[2].completions, 3);
    assert_true(sc->workloads[2].indexed);
    assert_true(sc->workloads[2].pod_failure_policy);
    assert_int_equal(sc->nreclaims, 1);
    assert_int_equal(sc->reclaims[0].at, start + 7200);
    sim_scenario_free(sc);
}

/* A scenario that must parse; the parser's error in the failure. */
static struct sim_scenario *parse_ok(const char *json) {
    struct sim_scenario *sc = NULL;
    char err[256] = "";
    if (sim_scenario_parse(json, strlen(json), &sc, err, sizeof err) != ERR_OK)
        fail_msg("scenario does not parse: %s", err);
    return sc;
}

static void expect_bad(const char *json, const char *needle) {
    struct sim_scenario *sc = NULL;
    char err[256] = "";
    enum err rc = sim_scenario_parse(json, strlen(json), &sc, err, sizeof err);
    assert_true(rc == ERR_INVAL || rc == ERR_PARSE);
    assert_null(sc);
    if (!strstr(err, needle))
        fail_msg("error '%s' does not mention '%s'", err, needle);
}

#define BASE_SIZES "\"sizes\":[{\"slug\":\"g1\",\"price_hourly\":\"1.8\",\"gpus\":1,\"vcpus\":8}]"
#define BASE_POOLS "\"pools\":[{\"name\":\"s\",\"size\":\"g1\",\"role\":\"spot\",\"count\":1}]"
#define BASE_WL                                                                                    \
    "\"workloads\":[{\"name\":\"w\",\"configuration\":\"spot\",\"count\":1,"                       \
    "\"duration\":{\"dist\":\"fixed\",\"value\":60}}]"

static void test_scenario_bad(void **state) {
    (void)state;
    expect_bad("{not json", "not valid JSON");
    expect_bad("[]", "expected a JSON object");
    expect_bad("{\"duration\":\"1d\"," BASE_SIZES "," BASE_POOLS "," BASE_WL "}", "start");
    expect_bad("{\"start\":\"yesterday\",\"duration\":\"1d\"}", "scenario.start");
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1x\"}", "duration");
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\","
               "\"sizes\":[{\"slug\":\"g1\",\"price_hourly\":1.8}]}",
               "sizes[0]");
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\"," BASE_SIZES ","
               "\"pools\":[{\"name\":\"s\",\"size\":\"nope\",\"role\":\"spot\"}]}",
               "not in sizes");
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\"," BASE_SIZES ","
               "\"pools\":[{\"name\":\"s\",\"size\":\"g1\",\"role\":\"cheap\"}]}",
               "role");
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\"," BASE_SIZES "," BASE_POOLS
               ",\"workloads\":[{\"name\":\"w\",\"configuration\":\"spot\","
               "\"count\":1,\"gpus\":4,\"duration\":{\"dist\":\"fixed\",\"value\":60}}]}",
               "does not fit");
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\"," BASE_SIZES "," BASE_POOLS
               ",\"workloads\":[{\"name\":\"w\",\"configuration\":\"on-demand\","
               "\"count\":1,\"duration\":{\"dist\":\"fixed\",\"value\":60}}]}",
               "no pool can run");
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\"," BASE_SIZES "," BASE_POOLS
               "," BASE_WL ",\"reclaims\":[{\"pool\":\"x\",\"after\":\"1h\"}]}",
               "reclaims[0].pool");
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\"," BASE_SIZES "," BASE_POOLS
               ",\"workloads\":[{\"name\":\"w\",\"configuration\":\"spot\","
               "\"count\":1,\"mean_interarrival\":\"1h\","
               "\"duration\":{\"dist\":\"fixed\",\"value\":60}}]}",
               "exactly one of count");
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\"," BASE_SIZES "," BASE_POOLS
               ",\"workloads\":[{\"name\":\"w\",\"configuration\":\"spot\","
               "\"count\":1,\"failure_rate\":1.5,"
               "\"duration\":{\"dist\":\"fixed\",\"value\":60}}]}",
               "probability");
    /* a PodDisruptionBudget has minAvailable or maxUnavailable, never both */
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\"," BASE_SIZES "," BASE_POOLS
               ",\"workloads\":[{\"name\":\"w\",\"configuration\":\"spot\",\"count\":1,"
               "\"pdb_min_available\":1,\"pdb_max_unavailable\":1,"
               "\"duration\":{\"dist\":\"fixed\",\"value\":60}}]}",
               "at most one of pdb_min_available and pdb_max_unavailable");
    /* the minimal valid file parses */
    const char *ok = "{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\"," BASE_SIZES
                     "," BASE_POOLS "," BASE_WL "}";
    struct sim_scenario *sc = parse_ok(ok);
    sim_scenario_free(sc);
}

static void test_parse_duration(void **state) {
    (void)state;
    int64_t v;
    assert_int_equal(sim_parse_duration("90", &v), ERR_OK);
    assert_int_equal(v, 90);
    assert_int_equal(sim_parse_duration("1h30m", &v), ERR_OK);
    assert_int_equal(v, 5400);
    assert_int_equal(sim_parse_duration("7d", &v), ERR_OK);
    assert_int_equal(v, 604800);
    assert_int_equal(sim_parse_duration("", &v), ERR_PARSE);
    assert_int_equal(sim_parse_duration("5w", &v), ERR_PARSE);
    assert_int_equal(sim_parse_duration("-5", &v), ERR_PARSE);
}

/* --- the PRNG is ours and stable --- */

static void test_rng(void **state) {
    (void)state;
    struct plan_rng a, b;
    plan_rng_seed(&a, 42);
    plan_rng_seed(&b, 42);
    for (int i = 0; i < 100; i++)
        assert_true(plan_rng_next(&a) == plan_rng_next(&b));
    plan_rng_seed(&a, 1);
    int64_t hits = 0;
    for (int i = 0; i < 100000; i++)
        hits += plan_rng_chance_ppm(&a, 250000);
    assert_in_range(hits, 24000, 26000);
    for (int i = 0; i < 1000; i++)
        assert_in_range(plan_rng_range(&a, 3, 7), 3, 7);
    char u[37];
    plan_rng_uuid(&a, u);
    assert_int_equal(strlen(u), 36);
    assert_int_equal(u[14], '4');
}

/* --- determinism --- */

static void test_determinism(void **state) {
    (void)state;
    struct sim_scenario *sc = load_small();
    int64_t h = sc->start + sc->duration;
    char *t1 = truth_of(sc, 7, h), *t2 = truth_of(sc, 7, h), *t3 = truth_of(sc, 8, h);
    assert_string_equal(t1, t2);
    assert_true(strcmp(t1, t3) != 0);
    /* the change log too, entry by entry */
    struct sim_world *a = sim_world_build(sc, 7, h), *b = sim_world_build(sc, 7, h);
    assert_int_equal(a->nlog, b->nlog);
    assert_memory_equal(a->log, b->log, sizeof *a->log * (size_t)a->nlog);
    for (int i = 1; i < a->nlog; i++) {
        assert_true(a->log[i].seq > a->log[i - 1].seq);
        assert_true(a->log[i].t >= a->log[i - 1].t);
    }
    sim_world_free(a);
    sim_world_free(b);
    free(t1);
    free(t2);
    free(t3);
    sim_scenario_free(sc);
}

/* --- a reclaim in the world: cordon, DisruptionTarget, nodes gone, pods collected --- */

static void test_reclaim_facts(void **state) {
    (void)state;
    struct sim_scenario *sc = load_small();
    struct sim_world *w = sim_world_build(sc, 1, sc->start + sc->duration);
    int64_t r = sc->reclaims[0].at;
    assert_int_equal(w->nreclaims, 1);
    const struct sim_reclaim *rc = &w->reclaims[0];
    assert_int_equal(rc->signal_t, r);
    assert_int_equal(rc->gone_t, r + sc->reclaim_notice + sc->node_delete_seconds);
    const struct sim_pool *pool = &w->pools[rc->pool];
    assert_string_equal(pool->name, "gpu-spot");
    assert_int_equal(pool->gone_t, rc->gone_t);
    int spot_nodes = 0;
    for (int i = 0; i < w->nnodes; i++) {
        const struct sim_node *n = &w->nodes[i];
        if (n->pool != rc->pool)
            continue;
        spot_nodes++;
        assert_int_equal(n->cordon_t, r);
        assert_int_equal(n->notready_t, r + sc->reclaim_notice);
        assert_int_equal(n->deleted_t, rc->gone_t);
        assert_true(n->cordon_seq < n->notready_seq && n->notready_seq < n->deleted_seq);
    }
    assert_int_equal(spot_nodes, 2);
    int interrupted = 0;
    for (int i = 0; i < w->npods; i++) {
        const struct sim_pod *p = &w->pods[i];
        if (!p->interrupted)
            continue;
        interrupted++;
        assert_int_equal(w->nodes[p->node].pool, rc->pool);
        assert_int_equal(p->disrupt_t, r + sc->reclaim_drain_after);
        assert_string_equal(p->disrupt_reason, "EvictionByEvictionAPI");
        /* deleted (kubelet or PodGC) soon after its deletion request */
        assert_true(p->deleted_t != SIM_NEVER);
        assert_true(p->deleted_t <= rc->gone_t + sc->pod_gc_seconds);
        assert_true(p->delreq_seq <= p->deleted_seq);
        assert_true(p->sched_t < r);
    }
    assert_int_equal(interrupted, rc->interrupted);
    assert_true(interrupted > 0);
    assert_true(rc->resumed_t > r && rc->resumed_t != SIM_NEVER);
    sim_world_free(w);
    sim_scenario_free(sc);
}

/* deletionTimestamp as Kubernetes sets it (issue 23 item 2): once, at the
 * deletion request, = request time + grace period; never the removal time. */
static struct k8s_object pod_as_of(const struct sim_world *w, int i, int64_t asof) {
    struct buf b;
    buf_init(&b, 0);
    struct jsonw j;
    jsonw_init(&j, &b);
    sim_obj_render(&j, w, SIM_K_POD, i, asof, true);
    struct k8s_object o;
    assert_int_equal(k8s_object_parse(buf_str(&b), b.len, K8S_POD, &o), ERR_OK);
    buf_release(&b);
    return o;
}

static void test_deletion_timestamp(void **state) {
    (void)state;
    struct sim_scenario *sc = load_small();
    struct sim_world *w = sim_world_build(sc, 1, sc->start + sc->duration);
    w->kube_deletion = true; /* --kube-deletion-timestamps */
    int evicted = 0;
    for (int i = 0; i < w->npods; i++) {
        const struct sim_pod *p = &w->pods[i];
        if (p->delreq_seq == SIM_NEVER)
            continue;
        /* before the request: no deletionTimestamp at all (not "") */
        if (p->delreq_seq > p->created_seq) {
            struct k8s_object o = pod_as_of(w, i, p->delreq_seq - 1);
            assert_int_equal(o.u.pod.meta.deletion_at, 0);
            k8s_object_release(&o);
        }
        int64_t want = p->delreq_t + p->delgrace;
        int64_t at[2] = {p->delreq_seq, p->deleted_seq};
        for (int k = 0; k < 2; k++) {
            if (at[k] == SIM_NEVER)
                continue;
            struct k8s_object o = pod_as_of(w, i, at[k]);
            assert_int_equal(o.u.pod.meta.deletion_at, want);
            assert_int_equal(o.u.pod.meta.deletion_grace, p->delgrace);
            k8s_object_release(&o);
        }
        if (p->interrupted && p->delgrace == 30) {
            /* evicted: request at drain time + 30 s grace; the kubelet removed the
             * pod earlier, once its container exited on SIGTERM */
            assert_int_equal(p->delreq_t, sc->reclaims[0].at + sc->reclaim_drain_after);
            assert_true(p->deleted_t < want);
            evicted++;
        }
        if (p->gcfail_seq != SIM_NEVER && p->delgrace == 0)
            assert_int_equal(want, p->deleted_t); /* PodGC force-deletes */
    }
    assert_true(evicted > 0);
    sim_world_free(w);
    sim_scenario_free(sc);
}

/* --- billing: per second from Ready, 60 s minimum, 672 h per month --- */

struct mini {
    struct sim_scenario sc;
    struct sim_world w;
    struct sim_pool pool;
    struct sim_node node;
};

static void mini_init(struct mini *m, int64_t ready, int64_t deleted) {
    memset(m, 0, sizeof *m);
    m->sc.sizes[0].price_hourly = 1800000; /* $1.80/h = 500 µ$/s */
    m->sc.nsizes = 1;
    m->sc.npools = 1;
    m->w.sc = &m->sc;
    m->w.pools = &m->pool;
    m->w.npools = 1;
    m->w.nodes = &m->node;
    m->w.nnodes = 1;
    m->node.ready_t = ready;
    m->node.deleted_t = deleted;
}

static void test_billing_rule(void **state) {
    (void)state;
    int64_t nov1;
    assert_int_equal(timeutil_parse_rfc3339("2026-11-01T00:00:00Z", 20, &nov1), ERR_OK);
    struct mini m;
    struct sim_bill_item it[SIM_BILL_MAX_MONTHS];
    /* 7200 s: 7200 x 500 µ$ */
    mini_init(&m, nov1 + 100, nov1 + 7300);
    assert_int_equal(sim_billing_node(&m.w, 0, nov1 + 86400, it, SIM_BILL_MAX_MONTHS), 1);
    assert_int_equal(it[0].seconds, 7200);
    assert_int_equal(it[0].amount, 3600000);
    /* 30 s of life: billed 60 s */
    mini_init(&m, nov1, nov1 + 30);
    assert_int_equal(sim_billing_node(&m.w, 0, nov1 + 86400, it, SIM_BILL_MAX_MONTHS), 1);
    assert_int_equal(it[0].seconds, 60);
    assert_int_equal(it[0].amount, 30000);
    /* still alive: billed up to now */
    mini_init(&m, nov1, SIM_NEVER);
    assert_int_equal(sim_billing_node(&m.w, 0, nov1 + 1000, it, SIM_BILL_MAX_MONTHS), 1);
    assert_int_equal(it[0].seconds, 1000);
    /* never Ready: nothing */
    mini_init(&m, SIM_NEVER, nov1 + 1000);
    assert_int_equal(sim_billing_node(&m.w, 0, nov1 + 86400, it, SIM_BILL_MAX_MONTHS), 0);
    /* a whole month (720 h in November) is capped at 672 h; December starts anew */
    int64_t dec1 = timeutil_next_month_start(nov1);
    mini_init(&m, nov1, dec1 + 3600);
    assert_int_equal(sim_billing_node(&m.w, 0, dec1 + 86400, it, SIM_BILL_MAX_MONTHS), 2);
    assert_int_equal(it[0].seconds, 672 * 3600);
    assert_int_equal(it[0].amount, 672LL * 1800000);
    assert_int_equal(it[1].month, dec1);
    assert_int_equal(it[1].seconds, 3600);
    assert_int_equal(it[1].amount, 1800000);
}

/* --- a list-price change (sizes[].price_changes) --- */

/* /v2/sizes as served at simulated time `now`: the one size's price_hourly. */
static double served_price(const struct sim_world *w, int64_t now) {
    struct request req;
    struct response resp;
    request_init(&req);
    response_init(&resp);
    req.method = strdup("GET");
    req.path = strdup("/v2/sizes");
    assert_true(sim_do_handle(w, &req, now, "http://127.0.0.1:1", &resp));
    assert_int_equal(resp.status, 200);
    json_object *o = json_tokener_parse(buf_str(&resp.body));
    assert_non_null(o);
    json_object *sizes, *price;
    assert_true(json_object_object_get_ex(o, "sizes", &sizes));
    assert_true(
        json_object_object_get_ex(json_object_array_get_idx(sizes, 0), "price_hourly", &price));
    double d = json_object_get_double(price);
    json_object_put(o);
    response_release(&resp);
    request_release(&req);
    return d;
}

static void test_price_change(void **state) {
    (void)state;
    /* g1 costs $1.80/h, then $0.90/h from start + 2 h. A fixed node exists from the
     * start; an autoscaled node is created for the Job arriving at 3 h. */
    const char *json =
        "{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"6h\","
        "\"sizes\":[{\"slug\":\"g1\",\"price_hourly\":\"1.8\",\"gpus\":1,\"vcpus\":8,"
        "\"price_changes\":[{\"after\":\"2h\",\"price_hourly\":\"0.9\"}]}],"
        "\"pools\":[{\"name\":\"a\",\"size\":\"g1\",\"role\":\"on-demand\",\"count\":1},"
        "{\"name\":\"b\",\"size\":\"g1\",\"role\":\"fallback\",\"count\":0,"
        "\"auto_scale\":true,\"min_nodes\":0,\"max_nodes\":1}],"
        "\"workloads\":[{\"name\":\"w\",\"configuration\":\"fallback\",\"count\":1,"
        "\"start_after\":\"3h\",\"pools\":[\"b\"],"
        "\"duration\":{\"dist\":\"fixed\",\"value\":\"30m\"}}]}";
    struct sim_scenario *sc = parse_ok(json);
    const struct sim_size *g1 = &sc->sizes[0];
    assert_int_equal(g1->nchanges, 1);
    assert_int_equal(g1->changes[0].at, sc->start + 7200);
    assert_int_equal(sim_billing_price_at(g1, sc->start + 7199, NULL), 1800000);
    const char *text = NULL;
    assert_int_equal(sim_billing_price_at(g1, sc->start + 7200, &text), 900000);
    assert_string_equal(text, "0.9");
    struct sim_world *w = sim_world_build(sc, 1, sc->start + 6 * 3600);
    assert_int_equal(w->nnodes, 2);
    assert_true(w->nodes[0].created_t < sc->start + 7200);
    assert_true(w->nodes[1].created_t >= sc->start + 3 * 3600);
    /* each node keeps the rate in force at its creation */
    assert_int_equal(sim_billing_rate(w, 0), 1800000);
    assert_int_equal(sim_billing_rate(w, 1), 900000);
    /* /v2/sizes lists the price in force now */
    assert_true(served_price(w, sc->start + 3600) == 1.8);
    assert_true(served_price(w, sc->start + 7200) == 0.9);
    /* the oracle's record holds the history: two prices, the change at 2 h */
    struct sim_record rec;
    sim_record_build(w, w->horizon, &rec);
    assert_int_equal(rec.tl.nprices, 2);
    assert_int_equal(rec.tl.prices[1].from, sc->start + 7200);
    assert_int_equal(rec.tl.prices[1].price_hourly, 900000);
    sim_record_release(&rec);
    /* a change not yet in force at the record's time is not in it */
    sim_record_build(w, sc->start + 3600, &rec);
    assert_int_equal(rec.tl.nprices, 1);
    sim_record_release(&rec);
    sim_world_free(w);
    sim_scenario_free(sc);
    /* bad changes: before the start, out of order, not a price */
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\","
               "\"sizes\":[{\"slug\":\"g1\",\"price_hourly\":\"1.8\","
               "\"price_changes\":[{\"at\":\"2026-11-08T00:00:00Z\",\"price_hourly\":\"1\"}]}]}",
               "sizes[0].price_changes[0]");
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\","
               "\"sizes\":[{\"slug\":\"g1\",\"price_hourly\":\"1.8\","
               "\"price_changes\":[{\"after\":\"2h\",\"price_hourly\":\"1\"},"
               "{\"after\":\"1h\",\"price_hourly\":\"2\"}]}]}",
               "sizes[0].price_changes[1]");
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\","
               "\"sizes\":[{\"slug\":\"g1\",\"price_hourly\":\"1.8\","
               "\"price_changes\":[{\"after\":\"2h\",\"price_hourly\":1}]}]}",
               "sizes[0].price_changes[0]");
}

/* --- NotReady spells (pools[].notready): blips, a partition, an end never seen --- */

/* The time of the log entry with this seq. */
static int64_t seq_time(const struct sim_world *w, int64_t seq) {
    for (int k = 0; k < w->nlog; k++)
        if (w->log[k].seq == seq)
            return w->log[k].t;
    return -1;
}

static int pod_of(const struct sim_world *w, const char *job_prefix, int attempt) {
    for (int i = 0; i < w->npods; i++)
        if (strncmp(w->pods[i].name, job_prefix, strlen(job_prefix)) == 0 &&
            w->pods[i].attempt == attempt)
            return i;
    fail_msg("no pod %s attempt %d", job_prefix, attempt);
    return -1;
}

static void test_notready_spells(void **state) {
    (void)state;
    /* pool "a" (2 nodes): a 60 s blip at 30 m, a 20 m partition at 1 h (eviction
     * after 5 m). Pool "b" (1 node): unreachable from 1 h until deleted at 2 h by
     * hand (a reclaim: signal 2 h, nodes deleted 2 h + 50 s). Spare pool "s". Jobs:
     * "first" runs 10 m -> 1 h 10 m 30 s on a: it finishes inside the partition;
     * "long" runs 20 m -> 3 h 20 m on a: still running at the heal; "unseen" runs on
     * b 5 m -> 1 h 15 m 30 s: its end is never told. */
    const char *json =
        "{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"4h\","
        "\"timing\":{\"provisioning\":\"3m\",\"pod_start\":\"30s\",\"reclaim_notice\":\"30s\","
        "\"node_delete\":\"20s\",\"pod_gc\":\"40s\",\"pod_eviction_timeout\":\"5m\"},"
        "\"sizes\":[{\"slug\":\"g1\",\"price_hourly\":\"1.8\",\"gpus\":1,\"vcpus\":8}],"
        "\"pools\":[{\"name\":\"a\",\"size\":\"g1\",\"role\":\"on-demand\",\"count\":2,"
        "\"notready\":[{\"after\":\"30m\",\"for\":\"60s\"},{\"after\":\"1h\",\"for\":\"20m\"}]},"
        "{\"name\":\"s\",\"size\":\"g1\",\"role\":\"on-demand\",\"count\":0,\"auto_scale\":true,"
        "\"min_nodes\":0,\"max_nodes\":2},"
        "{\"name\":\"b\",\"size\":\"g1\",\"role\":\"spot\",\"count\":1,"
        "\"notready\":[{\"after\":\"1h\"}]}],"
        "\"workloads\":["
        "{\"name\":\"first\",\"configuration\":\"on-demand\",\"count\":1,\"start_after\":\"10m\","
        "\"pools\":[\"a\",\"s\"],\"pod_failure_policy\":false,"
        "\"duration\":{\"dist\":\"fixed\",\"value\":\"1h\"}},"
        "{\"name\":\"long\",\"configuration\":\"on-demand\",\"count\":1,\"start_after\":\"20m\","
        "\"pools\":[\"a\",\"s\"],\"pod_failure_policy\":false,"
        "\"duration\":{\"dist\":\"fixed\",\"value\":\"3h\"}},"
        "{\"name\":\"unseen\",\"configuration\":\"spot\",\"count\":1,\"start_after\":\"5m\","
        "\"duration\":{\"dist\":\"fixed\",\"value\":\"1h10m\"}}],"
        "\"reclaims\":[{\"pool\":\"b\",\"after\":\"2h\"}]}";
    struct sim_scenario *sc = parse_ok(json);
    int64_t t0 = sc->start;
    assert_int_equal(sc->pools[0].nnotready, 2);
    assert_int_equal(sc->pools[2].notready[0].dur, 0);
    assert_int_equal(sc->eviction_timeout, 300);
    struct sim_world *w = sim_world_build(sc, 1, t0 + 4 * 3600);
    /* both nodes of a: two spells each, closed; b: one, open */
    const struct sim_node *a0 = &w->nodes[0], *b0 = &w->nodes[2];
    assert_int_equal(a0->nspells, 2);
    assert_int_equal(a0->spells[0].from, t0 + 1800);
    assert_int_equal(a0->spells[0].to, t0 + 1860);
    assert_int_equal(a0->spells[1].to, t0 + 4800);
    assert_int_equal(b0->nspells, 1);
    assert_true(b0->spells[0].to == SIM_NEVER);
    /* as served: Ready=Unknown since the spell inside it, Ready again after */
    assert_int_equal(sim_node_lost_since(a0, sim_world_seq_at(w, t0 + 1830)), t0 + 1800);
    assert_true(sim_node_lost_since(a0, sim_world_seq_at(w, t0 + 1900)) == SIM_NEVER);
    assert_int_equal(sim_node_ready_since(a0, sim_world_seq_at(w, t0 + 1900)), t0 + 1860);
    /* "first": evicted by the taint manager at 1 h 5 m, finished at 1 h 10 m 30 s
     * (10 m + 30 s pull + 1 h) unseen, told at the heal (1 h 20 m): it wins */
    int first = pod_of(w, "first-", 1);
    const struct sim_pod *p = &w->pods[first];
    assert_int_equal(p->disrupt_t, t0 + 3900);
    assert_string_equal(p->disrupt_reason, "DeletionByTaintManager");
    assert_int_equal(p->fin_t, t0 + 600 + 1 + 30 + 3600 + 1); /* created 1 s after the Job */
    assert_int_equal(p->exit_code, 0);
    assert_int_equal(seq_time(w, p->fin_seq), t0 + 4800);
    assert_int_equal(p->outcome, SIM_OUT_SUCCEEDED);
    /* its replacement (created at the eviction: no podFailurePolicy) is stopped at the heal */
    const struct sim_pod *r = &w->pods[pod_of(w, "first-", 2)];
    assert_int_equal(r->outcome, SIM_OUT_KILLED);
    assert_int_equal(r->fin_t, t0 + 4800);
    /* "long": still running at the heal, SIGTERM then (10 s) */
    p = &w->pods[pod_of(w, "long-", 1)];
    assert_int_equal(p->fin_t, t0 + 4800 + 10);
    assert_int_equal(p->exit_code, 143);
    /* "unseen": its end is never told; the attempt ends with its node (2 h + 50 s) */
    p = &w->pods[pod_of(w, "unseen-", 1)];
    assert_true(p->fin_t == SIM_NEVER);
    assert_int_equal(b0->deleted_t, t0 + 7200 + 50);
    assert_true(p->deleted_t > b0->deleted_t);
    /* the oracle's record: every spell, and the shutdown inside b's open spell is not
     * a second one */
    struct sim_record rec;
    sim_record_build(w, w->horizon, &rec);
    assert_int_equal(rec.tl.nodes[0].nspells, 2);
    assert_int_equal(rec.tl.nodes[0].spells[1].from, t0 + 3600);
    assert_int_equal(rec.tl.nodes[0].spells[1].to, t0 + 4800);
    assert_int_equal(rec.tl.nodes[2].nspells, 1);
    assert_true(rec.tl.nodes[2].spells[0].to == ORC_NEVER);
    sim_record_release(&rec);
    sim_world_free(w);
    sim_scenario_free(sc);
    /* overlapping spells are refused */
    expect_bad("{\"start\":\"2026-11-09T00:00:00Z\",\"duration\":\"1d\"," BASE_SIZES ","
               "\"pools\":[{\"name\":\"s\",\"size\":\"g1\",\"role\":\"spot\",\"notready\":"
               "[{\"after\":\"1h\",\"for\":\"2h\"},{\"after\":\"2h\",\"for\":\"1m\"}]}]}",
               "pools[0].notready[1]");
}

/* The truth's raw sections (spotsim's own billing rule, sim_billing.c) agree with
 * its "oracle" section (the oracle re-derives the rule, docs/oracle.md): each billed
 * node's amount, the total, and the successes and interruptions per configuration.
 * The truth has no engine-run section any more (issue 15). */
static void test_truth_agrees_with_the_oracle(void **state) {
    (void)state;
    struct sim_scenario *sc = load_small();
    char *t = truth_of(sc, 3, sc->start + sc->duration);
    json_object *root = json_tokener_parse(t);
    assert_non_null(root);
    json_object *nodes, *oracle, *onodes, *v;
    assert_false(json_object_object_get_ex(root, "cost", &v));
    assert_true(json_object_object_get_ex(root, "nodes", &nodes));
    assert_true(json_object_object_get_ex(root, "oracle", &oracle));
    assert_true(json_object_object_get_ex(oracle, "nodes", &onodes));
    size_t n = json_object_array_length(nodes);
    assert_true(n >= 4);
    size_t billed_nodes = 0, matched = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *a = json_object_array_get_idx(nodes, i), *name, *billed;
        json_object_object_get_ex(a, "name", &name);
        json_object_object_get_ex(a, "billed", &billed);
        if (json_object_get_double(billed) > 0)
            billed_nodes++;
        for (size_t k = 0; k < json_object_array_length(onodes); k++) {
            json_object *b = json_object_array_get_idx(onodes, k), *bn, *bc;
            json_object_object_get_ex(b, "name", &bn);
            json_object_object_get_ex(b, "cost", &bc);
            if (strcmp(json_object_get_string(name), json_object_get_string(bn)) == 0) {
                /* both printed exactly from micro-dollars */
                assert_string_equal(json_object_to_json_string(billed),
                                    json_object_to_json_string(bc));
                matched++;
            }
        }
    }
    assert_true(billed_nodes >= 4);
    assert_int_equal(matched, billed_nodes);
    assert_true(json_object_object_get_ex(root, "billed_total", &v));
    json_object *total;
    assert_true(json_object_object_get_ex(oracle, "nodes_total_cost", &total));
    assert_string_equal(json_object_to_json_string(v), json_object_to_json_string(total));
    /* successes and interruptions per configuration: the raw totals and the oracle */
    json_object *cfgs, *ocfgs;
    json_object_object_get_ex(root, "configurations", &cfgs);
    json_object_object_get_ex(oracle, "configurations", &ocfgs);
    assert_int_equal(json_object_array_length(cfgs), 3);
    for (size_t i = 0; i < json_object_array_length(cfgs); i++) {
        json_object *a = json_object_array_get_idx(cfgs, i),
                    *b = json_object_array_get_idx(ocfgs, i);
        json_object *x, *y;
        json_object_object_get_ex(a, "configuration", &x);
        json_object_object_get_ex(b, "configuration", &y);
        assert_string_equal(json_object_get_string(x), json_object_get_string(y));
        json_object_object_get_ex(a, "succeeded", &x);
        json_object_object_get_ex(b, "tasks_succeeded", &y);
        assert_int_equal(json_object_get_int(x), json_object_get_int(y));
        json_object_object_get_ex(a, "interruptions", &x);
        json_object_object_get_ex(b, "interruptions", &y);
        assert_int_equal(json_object_get_int(x), json_object_get_int(y));
    }
    json_object_put(root);
    free(t);
    sim_scenario_free(sc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scenario_good),
        cmocka_unit_test(test_scenario_bad),
        cmocka_unit_test(test_parse_duration),
        cmocka_unit_test(test_rng),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_reclaim_facts),
        cmocka_unit_test(test_deletion_timestamp),
        cmocka_unit_test(test_billing_rule),
        cmocka_unit_test(test_price_change),
        cmocka_unit_test(test_notready_spells),
        cmocka_unit_test(test_truth_agrees_with_the_oracle),
    };
    return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
