/* test_advice — the setup advisor's pool and node rules (1 to 5; the Job rules:
 * test_advice_jobs.c), one trigger and one non-trigger each,
 * silencing, ordering, the JSON shape, and the shipped example setup
 * (deploy/examples: node-pools.sh + job-fallback.yaml) without a critical finding.
 *
 * The world starts as a correct setup (no finding at all); each test breaks
 * one thing (advice_fx.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "engine/advice.h"
#include "source/do_api.h"
#include "source/k8s_api.h"
#include "k8s_fixtures.h"

#include "advice_fx.h"

/* --- baseline ------------------------------------------------------------- */

static void test_correct_setup_is_clean(void **state) {
    struct world *w = *state;
    const struct advice_result *r = run(w);
    print_findings(r);
    assert_int_equal(r->n, 0);
    assert_int_equal(r->silenced, 0);
}

/* --- rule 1 ------------------------------------------------------------------ */

static void test_system_pool(void **state) {
    struct world *w = *state;
    /* tainted: cluster services cannot land there */
    w->pools[P_SYSTEM].taints_json = "[{\"key\":\"dedicated\",\"value\":\"db\",\"effect\":"
                                     "\"NoSchedule\"}]";
    const struct advice_finding *f = find(run(w), "system-pool:cluster");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_CRITICAL);
    assert_non_null(strstr(f->fix, "doctl kubernetes cluster node-pool create my-cluster"));
    /* PreferNoSchedule is not a hard taint: a system pool again */
    w->pools[P_SYSTEM].taints_json = "[{\"key\":\"x\",\"value\":\"y\",\"effect\":"
                                     "\"PreferNoSchedule\"}]";
    assert_null(find(run(w), "system-pool:cluster"));
    /* a Spot CPU pool is no system pool */
    w->pools[P_SYSTEM].spot = true;
    assert_non_null(find(run(w), "system-pool:cluster"));
    /* no DigitalOcean data: nothing to say */
    w->np = 0;
    assert_null(find(run(w), "system-pool:cluster"));
}

static void test_self_on_spot(void **state) {
    struct world *w = *state;
    w->in.self_node = "spot-a";
    w->in.self_pod = "spotledger-7d9f-abcde";
    const struct advice_finding *f = find(run(w), "self-on-spot:spot-a");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_CRITICAL);
    assert_non_null(strstr(f->evidence, "spotledger-7d9f-abcde"));
    w->in.self_node = "system-a";
    assert_int_equal(run(w)->n, 0);
    w->in.self_node = NULL; /* unknown: only the system-pool half applies */
    assert_int_equal(run(w)->n, 0);
    w->in.self_node = "not-a-known-node";
    assert_int_equal(run(w)->n, 0);
}

/* --- rule 2 ------------------------------------------------------------------ */

static void test_spot_taint(void **state) {
    struct world *w = *state;
    w->pools[P_SPOT].taints_json = "[]";
    const struct advice_result *r = run(w);
    const struct advice_finding *f = find(r, "spot-taint:gpu-spot");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_WARNING);
    assert_non_null(strstr(f->fix, "node-pool update my-cluster gpu-spot --taint"));
    /* an untainted Spot pool takes every Job: no toleration finding */
    assert_null(find(r, "spot-toleration:gpu-batch/render-0001"));
    w->pools[P_SPOT].taints_json = NULL;
    assert_non_null(find(run(w), "spot-taint:gpu-spot"));
    w->pools[P_SPOT].taints_json = "[{\"key\":\"a\",\"value\":\"b\",\"effect\":\"NoExecute\"}]";
    assert_null(find(run(w), "spot-taint:gpu-spot"));
}

static void test_spot_toleration(void **state) {
    struct world *w = *state;
    w->jobs[0].spec_json = "{" PREFER_SPOT "}"; /* no tolerations */
    const struct advice_finding *f = find(run(w), "spot-toleration:gpu-batch/render-0001");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_WARNING);
    w->jobs[0].config = COST_SPOT;
    f = find(run(w), "spot-toleration:gpu-batch/render-0001");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_CRITICAL);
    /* tolerating one of the two taints is not enough */
    w->jobs[0].spec_json = "{\"tolerations\":[{\"key\":\"nvidia.com/gpu\",\"operator\":"
                           "\"Exists\"}]}";
    assert_non_null(find(run(w), "spot-toleration:gpu-batch/render-0001"));
    /* a wrong value does not match an Equal toleration */
    w->jobs[0].spec_json = "{\"tolerations\":[{\"key\":\"nvidia.com/gpu\",\"operator\":"
                           "\"Exists\"},{\"key\":\"workload\",\"value\":\"other\"}]}";
    assert_non_null(find(run(w), "spot-toleration:gpu-batch/render-0001"));
    /* an empty key with Exists tolerates everything */
    w->jobs[0].spec_json = "{\"tolerations\":[{\"operator\":\"Exists\"}]}";
    assert_null(find(run(w), "spot-toleration:gpu-batch/render-0001"));
    /* On-Demand Jobs are not expected on Spot */
    w->jobs[0].spec_json = "{}";
    w->jobs[0].config = COST_ON_DEMAND;
    assert_null(find(run(w), "spot-toleration:gpu-batch/render-0001"));
}

/* --- rule 3 ------------------------------------------------------------------ */

static void test_fallback_pool_missing(void **state) {
    struct world *w = *state;
    w->np = 2; /* no gpu-fallback */
    const struct advice_finding *f = find(run(w), "fallback-pool:gpu-spot");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_CRITICAL); /* a fallback Job exists */
    assert_non_null(strstr(f->fix, "--size gpu-h100x1-80gb "));
    w->jobs[0].config = COST_SPOT;
    f = find(run(w), "fallback-pool:gpu-spot");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_WARNING); /* only Spot work: a choice */
    /* a CPU On-Demand pool is no fallback for a GPU pool */
    assert_non_null(find(run(w), "fallback-pool:gpu-spot"));
}

static void test_fallback_pool_smaller(void **state) {
    struct world *w = *state;
    w->sizes[3] = (struct advice_size){"gpu-l40sx1-48gb", 8, 65536, 1, "nvidia_l40s", 48};
    w->sizes[4] = (struct advice_size){"gpu-h100x1-40gb", 20, 245760, 1, "nvidia_h100", 40};
    w->nz = 5;
    w->pools[P_FALLBACK].size = "gpu-l40sx1-48gb";
    const struct advice_finding *f = find(run(w), "fallback-pool:gpu-spot");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_WARNING);
    assert_non_null(strstr(f->title, "GPU model nvidia_l40s instead of nvidia_h100"));
    w->pools[P_FALLBACK].size = "gpu-h100x1-40gb";
    f = find(run(w), "fallback-pool:gpu-spot");
    assert_non_null(f);
    assert_non_null(strstr(f->title, "40 GB of GPU memory instead of 80"));
    /* a bigger fallback is fine; so is a second pool that fits */
    w->pools[3] = w->pools[P_FALLBACK];
    w->pools[3].id = "p-fb2";
    w->pools[3].name = "gpu-fallback-2";
    w->pools[3].size = "gpu-h100x1-80gb";
    w->np = 4;
    assert_null(find(run(w), "fallback-pool:gpu-spot"));
    /* the spot size missing from /v2/sizes borrows its twin's gpu_info */
    w->np = 3;
    w->pools[P_FALLBACK].size = "gpu-h100x1-80gb";
    w->nz = 2;
    assert_int_equal(run(w)->n, 0);
}

/* --- rule 4 ------------------------------------------------------------------ */

static void test_spot_autoscale(void **state) {
    struct world *w = *state;
    w->pools[P_SPOT].auto_scale = false;
    w->pools[P_SPOT].node_count = 3;
    w->pools[P_SPOT].max_nodes = 0;
    const struct advice_finding *f = find(run(w), "spot-autoscale:gpu-spot");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_WARNING);
    assert_string_equal(f->fix, "doctl kubernetes cluster node-pool update my-cluster gpu-spot "
                                "--auto-scale --min-nodes 0 --max-nodes 3");
    /* a fixed On-Demand pool (the system pool) is fine */
    w->pools[P_SPOT].auto_scale = true;
    assert_int_equal(run(w)->n, 0);
    /* a deleted (reclaimed) Spot pool is not checked */
    w->pools[P_SPOT].auto_scale = false;
    w->pools[P_SPOT].deleted_at = T0;
    assert_null(find(run(w), "spot-autoscale:gpu-spot"));
}

/* A fixed-size Spot pool reclaimed in the window is reported after it is gone
 * (issue 19): its settings decided how the reclaim went. */
static void test_spot_autoscale_reclaimed(void **state) {
    struct world *w = *state;
    w->pools[P_SPOT].auto_scale = false;
    w->pools[P_SPOT].node_count = 2;
    w->pools[P_SPOT].max_nodes = -1;
    w->pools[P_SPOT].deleted_at = T0 + 1000;
    w->nodes[1].deleted_at = T0 + 1000;
    /* signal 00:15:00, pool gone 00:16:40 */
    w->reclaims[0] = (struct advice_reclaim){"p-spot", T0 + 1000, T0 + 900};
    w->nr = 1;
    const struct advice_finding *f = find(run(w), "spot-autoscale:gpu-spot");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_WARNING);
    assert_string_equal(f->title,
                        "Spot pool 'gpu-spot' had a fixed size when it was reclaimed (the pool is "
                        "gone)");
    assert_string_equal(f->fix, "Recreate it with auto-scale: doctl kubernetes cluster node-pool "
                                "create my-cluster --name gpu-spot --size gpu-h100x1-80gb-spot "
                                "--count 1 --auto-scale --min-nodes 0 --max-nodes 2 (with its "
                                "labels and taints)");
    json_object *ev = json_tokener_parse(f->evidence), *v;
    assert_non_null(ev);
    assert_true(json_object_object_get_ex(ev, "reclaims", &v));
    assert_int_equal(json_object_get_int(v), 1);
    assert_true(json_object_object_get_ex(ev, "last_reclaim_signal_at", &v));
    assert_string_equal(json_object_get_string(v), "2026-03-02T00:15:00Z");
    assert_true(json_object_object_get_ex(ev, "deleted_at", &v));
    assert_string_equal(json_object_get_string(v), "2026-03-02T00:16:40Z");
    json_object_put(ev);
    /* an auto-scaled pool reclaimed: nothing to say */
    w->pools[P_SPOT].auto_scale = true;
    assert_null(find(run(w), "spot-autoscale:gpu-spot"));
    w->pools[P_SPOT].auto_scale = false;
    /* no reclaim in the window: a gone pool is not checked */
    w->nr = 0;
    assert_null(find(run(w), "spot-autoscale:gpu-spot"));
    w->nr = 1;
    /* recreated under the same name with auto-scale: the alive pool is what counts */
    w->pools[3] = w->pools[P_SPOT];
    w->pools[3].id = "p-spot-2";
    w->pools[3].deleted_at = 0;
    w->pools[3].auto_scale = true;
    w->pools[3].max_nodes = 4;
    w->np = 4;
    assert_null(find(run(w), "spot-autoscale:gpu-spot"));
    /* recreated fixed again: one finding, about the alive pool (ids stay unique) */
    w->pools[3].auto_scale = false;
    const struct advice_result *r = run(w);
    f = find(r, "spot-autoscale:gpu-spot");
    assert_non_null(f);
    assert_string_equal(f->title, "Spot pool 'gpu-spot' has a fixed size");
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        n += strcmp(r->v[i].id, "spot-autoscale:gpu-spot") == 0;
    assert_int_equal(n, 1);
    /* the recreated one reclaimed too: one finding, the later pool's */
    w->pools[3].deleted_at = T0 + 5000;
    w->reclaims[1] = (struct advice_reclaim){"p-spot-2", T0 + 5000, 0};
    w->nr = 2;
    r = run(w);
    n = 0;
    for (size_t i = 0; i < r->n; i++)
        n += strcmp(r->v[i].id, "spot-autoscale:gpu-spot") == 0;
    assert_int_equal(n, 1);
    f = find(r, "spot-autoscale:gpu-spot");
    ev = json_tokener_parse(f->evidence);
    assert_true(json_object_object_get_ex(ev, "deleted_at", &v));
    assert_string_equal(json_object_get_string(v), "2026-03-02T01:23:20Z"); /* T0 + 5000 */
    assert_true(json_object_object_get_ex(ev, "last_reclaim_signal_at", &v));
    assert_string_equal(json_object_get_string(v), "2026-03-02T01:23:20Z"); /* detected_at */
    json_object_put(ev);
}

/* --- rule 5 ------------------------------------------------------------------ */

static void test_fallback_min_nodes(void **state) {
    struct world *w = *state;
    w->pools[P_FALLBACK].min_nodes = 0;
    /* no reclaim measured yet: info */
    const struct advice_finding *f = find(run(w), "fallback-min-nodes:gpu-fallback");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_INFO);
    assert_int_equal(ev_int(f, "median_delay_seconds"), INT64_MIN);
    /* two reclaims: 420 s and 900 s from the signal to a Ready fallback node */
    w->reclaims[0] = (struct advice_reclaim){"p-spot", T0 + 1100, T0 + 1000};
    w->reclaims[1] = (struct advice_reclaim){"p-spot", T0 + 5000, 0}; /* signal unknown */
    w->nr = 2;
    w->nodes[2] = (struct advice_node){"fb-1", "p-fb", false, T0 + 1200, T0 + 1420, T0 + 4000};
    w->nodes[3] = (struct advice_node){"fb-2", "p-fb", false, T0 + 5100, T0 + 5900, 0};
    w->nn = 4;
    f = find(run(w), "fallback-min-nodes:gpu-fallback");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_WARNING);
    assert_int_equal(ev_int(f, "median_delay_seconds"), 420);
    assert_int_equal(ev_int(f, "max_delay_seconds"), 900);
    assert_non_null(strstr(f->evidence, "\"warm_node_monthly_cost\":2278.08"));
    assert_non_null(strstr(f->fix, "--min-nodes 1 --max-nodes 2"));
    /* a node already up at the signal: no wait */
    w->nodes[2].ready_at = T0 + 500;
    w->nodes[3].ready_at = T0 + 4000;
    f = find(run(w), "fallback-min-nodes:gpu-fallback");
    assert_int_equal(f->severity, ADVICE_INFO);
    assert_int_equal(ev_int(f, "median_delay_seconds"), 0);
    /* one warm node: nothing to say */
    w->pools[P_FALLBACK].min_nodes = 1;
    assert_null(find(run(w), "fallback-min-nodes:gpu-fallback"));
}

/* --- silencing ---------------------------------------------------------------- */

static void test_silencing(void **state) {
    struct world *w = *state;
    w->pools[P_SPOT].auto_scale = false;
    w->jobs[0].pfp_ignores_disruption = false;
    w->jobs[0].ttl_after_finished = 10;
    const struct advice_result *r = run(w);
    assert_int_equal(r->n, 3);
    assert_int_equal(r->silenced, 0);
    /* the Job's annotation, two rules, spaces tolerated */
    w->jobs[0].spec_json = "{" GPU_TOLERATIONS ",\"ignoreAdvice\":\"pod-failure-policy, "
                           "ttl-too-short\"}";
    r = run(w);
    assert_int_equal(r->n, 1);
    assert_int_equal(r->silenced, 2);
    assert_non_null(find(r, "spot-autoscale:gpu-spot"));
    /* --ignore-advice RULE:POOL by name, by id; another pool does not match */
    w->ignore[0] = "spot-autoscale:gpu-fallback";
    w->ni = 1;
    assert_int_equal(run(w)->n, 1);
    w->ignore[0] = "spot-autoscale:gpu-spot";
    assert_int_equal(run(w)->n, 0);
    w->ignore[0] = "spot-autoscale:p-spot";
    r = run(w);
    assert_int_equal(r->n, 0);
    assert_int_equal(r->silenced, 3);
    /* RULE alone: everywhere; "all" in the annotation */
    w->jobs[0].spec_json = "{" GPU_TOLERATIONS ",\"ignoreAdvice\":\"all\"}";
    w->ignore[0] = "spot-autoscale";
    assert_int_equal(run(w)->n, 0);
    w->ni = 0;
    w->jobs[0].spec_json = "{" GPU_TOLERATIONS ",\"ignoreAdvice\":\"ttl-too-shortish\"}";
    assert_int_equal(run(w)->n, 3); /* no prefix matching */
}

static void test_list_has(void **state) {
    (void)state;
    assert_true(advice_list_has("a,b", "b"));
    assert_true(advice_list_has(" a , b ", "a"));
    assert_true(advice_list_has("all", "anything"));
    assert_false(advice_list_has("ab", "a"));
    assert_false(advice_list_has("", "a"));
    assert_false(advice_list_has(NULL, "a"));
    assert_false(advice_list_has(",,", "a"));
}

/* --- ordering, ids, JSON ------------------------------------------------------ */

static void test_ordering_and_json(void **state) {
    struct world *w = *state;
    w->pools[P_SPOT].auto_scale = false;       /* warning spot-autoscale:gpu-spot */
    w->pools[P_FALLBACK].min_nodes = 0;        /* info fallback-min-nodes:gpu-fallback */
    w->jobs[0].pfp_ignores_disruption = false; /* warning pod-failure-policy:.../render-0001 */
    w->jobs[1] = good_job("bake");             /* another workload: not grouped with render-* */
    w->jobs[1].pfp_ignores_disruption = false;
    w->jobs[2] = good_job("render-0001"); /* an older Job of the same name */
    w->jobs[2].uid = "older-uid";
    w->jobs[2].last_seen = T0 - 100;
    w->jobs[2].ttl_after_finished = 1;
    w->jobs[3] = good_job("render-0002"); /* critical: requires Spot */
    w->jobs[3].spec_json = "{" GPU_TOLERATIONS ",\"nodeSelector\":{\"gpu-pool-type\":\"spot\"}}";
    w->nj = 4;
    const struct advice_result *r = run(w);
    print_findings(r);
    const char *want[] = {
        "required-spot-affinity:gpu-batch/render-0002",
        "pod-failure-policy:gpu-batch/bake",
        "pod-failure-policy:gpu-batch/render-0001",
        "spot-autoscale:gpu-spot",
        "fallback-min-nodes:gpu-fallback",
    };
    assert_int_equal(r->n, 5); /* the older render-0001 (ttl 1) is superseded */
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(r->v[i].id, want[i]);
    assert_int_equal(r->counts[ADVICE_CRITICAL], 1);
    assert_int_equal(r->counts[ADVICE_WARNING], 3);
    assert_int_equal(r->counts[ADVICE_INFO], 1);

    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(advice_json(r, &b), ERR_OK);
    json_object *o = json_tokener_parse(buf_str(&b));
    assert_non_null(o);
    json_object *fs, *counts, *v;
    assert_true(json_object_object_get_ex(o, "findings", &fs));
    assert_int_equal(json_object_array_length(fs), 5);
    json_object *f0 = json_object_array_get_idx(fs, 0);
    static const char *keys[] = {"id", "rule", "severity", "title", "evidence", "why", "fix"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        assert_true(json_object_object_get_ex(f0, keys[i], &v));
    json_object_object_get_ex(f0, "evidence", &v);
    assert_true(json_object_is_type(v, json_type_object));
    json_object_object_get_ex(f0, "severity", &v);
    assert_string_equal(json_object_get_string(v), "critical");
    json_object_object_get_ex(f0, "rule", &v);
    assert_string_equal(json_object_get_string(v), "required-spot-affinity");
    assert_true(json_object_object_get_ex(o, "counts", &counts));
    assert_int_equal(json_object_object_length(counts), 3);
    json_object_object_get_ex(counts, "warning", &v);
    assert_int_equal(json_object_get_int(v), 3);
    json_object_put(o);

    /* deterministic: same input, same bytes (input order does not matter) */
    char *first = buf_detach(&b, NULL);
    struct advice_job tmp = w->jobs[0];
    w->jobs[0] = w->jobs[3];
    w->jobs[3] = tmp;
    r = run(w);
    buf_init(&b, 0);
    assert_int_equal(advice_json(r, &b), ERR_OK);
    assert_string_equal(buf_str(&b), first);
    free(first);
    buf_release(&b);

    /* an empty result */
    w->np = 0;
    w->nj = 0;
    r = run(w);
    buf_init(&b, 0);
    assert_int_equal(advice_json(r, &b), ERR_OK);
    assert_string_equal(buf_str(&b), "{\"findings\":[],\"counts\":{\"critical\":0,\"warning\":0,"
                                     "\"info\":0},\"silenced\":0}");
    buf_release(&b);
}

static void test_bad_input(void **state) {
    struct world *w = *state;
    struct advice_input in = w->in;
    in.n_pools = 1; /* with pools NULL */
    struct advice_result *r = NULL;
    assert_int_equal(advice_run(&in, &r), ERR_INVAL);
    assert_null(r);
    advice_result_free(NULL);
}

/* --- the shipped example ---------------------------------------------------- */

/* deploy/examples/node-pools.sh's pools and job-fallback.yaml's Job
 * (tests/fixtures/advice/README.md), through the real parsers. */
static void test_example_has_no_critical(void **state) {
    struct world *w = *state;
    size_t len;
    char *body = fx_read("tests/fixtures/advice/node-pools.json", &len);
    assert_non_null(body);
    struct do_pools pools;
    char why[DO_API_WHY_MAX];
    assert_int_equal(do_api_parse_pools(body, len, &pools, why, sizeof why), ERR_OK);
    free(body);
    assert_int_equal(pools.n, 3);
    w->np = pools.n;
    for (size_t i = 0; i < pools.n; i++) {
        const struct do_pool *p = &pools.v[i];
        /* spotledger's rule: a slug ending in -spot, or a --spot-label pair */
        bool spot = strstr(p->size, "-spot") != NULL;
        w->pools[i] = (struct advice_pool){.id = p->id,
                                           .name = p->name,
                                           .size = p->size,
                                           .spot = spot,
                                           .auto_scale = p->auto_scale,
                                           .min_nodes = p->min_nodes,
                                           .max_nodes = p->max_nodes,
                                           .node_count = p->count,
                                           .labels_json = p->labels_json,
                                           .taints_json = p->taints_json,
                                           .price_hourly = 3390000};
    }
    body = fx_read("tests/fixtures/advice/job-fallback.json", &len);
    assert_non_null(body);
    struct k8s_object o;
    assert_int_equal(k8s_object_parse(body, len, K8S_JOB, &o), ERR_OK);
    free(body);
    const struct k8s_job *j = &o.u.job;
    enum cost_config cfg;
    assert_int_equal(cost_config_parse(j->configuration, &cfg), ERR_OK);
    w->jobs[0] = (struct advice_job){.uid = j->meta.uid,
                                     .ns = j->meta.ns,
                                     .name = j->meta.name,
                                     .config = cfg,
                                     .backoff_limit = j->backoff_limit,
                                     .ttl_after_finished = j->ttl_after_finished,
                                     .has_pod_failure_policy = j->has_pod_failure_policy,
                                     .pfp_ignores_disruption = j->pfp_ignores_disruption,
                                     .spec_json = j->spec_json,
                                     .tasks = 1,
                                     .last_seen = T0};
    w->nj = 1;
    /* a reclaim with a slow scale-from-zero, to make rule 5 speak */
    w->reclaims[0] = (struct advice_reclaim){w->pools[1].id, T0 + 60, T0};
    w->nodes[0] = (struct advice_node){"fb-1", w->pools[2].id, false, T0 + 30, T0 + 400, 0};
    w->nn = 1;
    w->nr = 1;
    const struct advice_result *r = run(w);
    print_findings(r);
    assert_int_equal(r->counts[ADVICE_CRITICAL], 0);
    /* what the example knowingly trades: a fallback pool scaled from zero */
    assert_int_equal(r->n, 1);
    assert_string_equal(r->v[0].id, "fallback-min-nodes:gpu-fallback");
    assert_int_equal(r->v[0].severity, ADVICE_WARNING);
    /* the same Job with the typical mistakes is caught */
    struct advice_job bad = w->jobs[0];
    bad.pfp_ignores_disruption = false;
    bad.spec_json = "{\"nodeSelector\":{\"gpu-pool-type\":\"spot\"}}";
    w->jobs[0] = bad;
    r = run(w);
    assert_non_null(find(r, "required-spot-affinity:gpu-batch/render-0001"));
    assert_non_null(find(r, "spot-toleration:gpu-batch/render-0001"));
    assert_non_null(find(r, "pod-failure-policy:gpu-batch/render-0001"));
    advice_result_free(w->r); /* results own copies: the input can go first */
    w->r = NULL;
    k8s_object_release(&o);
    do_pools_release(&pools);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_correct_setup_is_clean, setup, teardown),
        cmocka_unit_test_setup_teardown(test_system_pool, setup, teardown),
        cmocka_unit_test_setup_teardown(test_self_on_spot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spot_taint, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spot_toleration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fallback_pool_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fallback_pool_smaller, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spot_autoscale, setup, teardown),
        cmocka_unit_test_setup_teardown(test_spot_autoscale_reclaimed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fallback_min_nodes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_silencing, setup, teardown),
        cmocka_unit_test(test_list_has),
        cmocka_unit_test_setup_teardown(test_ordering_and_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_example_has_no_critical, setup, teardown),
    };
    return cmocka_run_group_tests_name("advice", tests, NULL, NULL);
}
