/* test_advice — the setup advisor's rules, one trigger and one non-trigger each,
 * silencing, ordering, the JSON shape, and the shipped example setup
 * (deploy/examples: node-pools.sh + job-fallback.yaml) without a critical finding.
 *
 * The world starts as a correct setup (no finding at all); each test breaks
 * one thing. */
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

#define T0 INT64_C(1772409600) /* 2026-03-02T00:00:00Z */

#define GPU_TAINTS                                                                                 \
    "[{\"key\":\"nvidia.com/gpu\",\"value\":\"present\",\"effect\":\"NoSchedule\"},"               \
    "{\"key\":\"workload\",\"value\":\"gpu-batch\",\"effect\":\"NoSchedule\"}]"
#define GPU_TOLERATIONS                                                                            \
    "\"tolerations\":[{\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\","                        \
    "\"effect\":\"NoSchedule\"},{\"key\":\"workload\",\"operator\":\"Equal\","                     \
    "\"value\":\"gpu-batch\",\"effect\":\"NoSchedule\"}]"
#define PREFER_SPOT                                                                                \
    "\"preferredNodeAffinity\":[{\"weight\":100,\"preference\":{\"matchExpressions\":"             \
    "[{\"key\":\"gpu-pool-type\",\"operator\":\"In\",\"values\":[\"spot\"]}]}}]"

enum { P_SYSTEM, P_SPOT, P_FALLBACK };

struct world {
    struct advice_pool pools[6];
    size_t np;
    struct advice_size sizes[6];
    size_t nz;
    struct advice_node nodes[6];
    size_t nn;
    struct advice_reclaim reclaims[4];
    size_t nr;
    struct advice_job jobs[6];
    size_t nj;
    struct advice_pdb pdbs[3];
    size_t nb;
    struct cost_advice ckpt[2];
    size_t nc;
    const char *ignore[4];
    size_t ni;
    struct advice_input in;
    struct advice_result *r;
};

static const struct advice_label spot_labels[] = {
    {"doks.digitalocean.com/capacity-type", "spot"},
    {"gpu-pool-type", "spot"},
};

static struct advice_job good_job(const char *name) {
    return (struct advice_job){.uid = name,
                               .ns = "gpu-batch",
                               .name = name,
                               .config = COST_FALLBACK,
                               .backoff_limit = 3,
                               .ttl_after_finished = 86400,
                               .has_pod_failure_policy = true,
                               .pfp_ignores_disruption = true,
                               .spec_json = "{" GPU_TOLERATIONS "," PREFER_SPOT "}",
                               .tasks = 1,
                               .attempts = 1,
                               .checkpoint_reports = 1,
                               .last_seen = T0};
}

static int setup(void **state) {
    struct world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    w->pools[P_SYSTEM] = (struct advice_pool){.id = "p-sys",
                                              .name = "system",
                                              .size = "s-2vcpu-4gb",
                                              .node_count = 2,
                                              .min_nodes = -1,
                                              .max_nodes = -1,
                                              .taints_json = "[]"};
    w->pools[P_SPOT] = (struct advice_pool){.id = "p-spot",
                                            .name = "gpu-spot",
                                            .size = "gpu-h100x1-80gb-spot",
                                            .spot = true,
                                            .auto_scale = true,
                                            .min_nodes = 0,
                                            .max_nodes = 4,
                                            .node_count = 1,
                                            .taints_json = GPU_TAINTS,
                                            .price_hourly = 1800000};
    w->pools[P_FALLBACK] = (struct advice_pool){.id = "p-fb",
                                                .name = "gpu-fallback",
                                                .size = "gpu-h100x1-80gb",
                                                .auto_scale = true,
                                                .min_nodes = 1,
                                                .max_nodes = 2,
                                                .node_count = 1,
                                                .taints_json = GPU_TAINTS,
                                                .price_hourly = 3390000};
    w->np = 3;
    w->sizes[0] = (struct advice_size){"s-2vcpu-4gb", 2, 4096, 0, NULL, -1};
    w->sizes[1] = (struct advice_size){"gpu-h100x1-80gb", 20, 245760, 1, "nvidia_h100", 80};
    w->sizes[2] = (struct advice_size){"gpu-h100x1-80gb-spot", 20, 245760, 1, "nvidia_h100", 80};
    w->nz = 3;
    w->nodes[0] = (struct advice_node){"system-a", "p-sys", false, T0 - 86400, T0 - 86000, 0};
    w->nodes[1] = (struct advice_node){"spot-a", "p-spot", true, T0 - 3600, T0 - 3500, 0};
    w->nn = 2;
    w->jobs[0] = good_job("render-0001");
    w->nj = 1;
    for (int c = 0; c < COST_NCONFIG; c++)
        w->in.costs[c] = (struct advice_cost){
            .known = true, .measured_overhead_bp = COST_NULL, .break_even_overhead_bp = COST_NULL};
    w->in.poll_interval = 60;
    w->in.watch_lag_seconds = -1;
    w->in.cluster = "my-cluster";
    *state = w;
    return 0;
}

static int teardown(void **state) {
    struct world *w = *state;
    advice_result_free(w->r);
    free(w);
    return 0;
}

static const struct advice_result *run(struct world *w) {
    w->in.pools = w->pools;
    w->in.n_pools = w->np;
    w->in.sizes = w->sizes;
    w->in.n_sizes = w->nz;
    w->in.nodes = w->nodes;
    w->in.n_nodes = w->nn;
    w->in.reclaims = w->reclaims;
    w->in.n_reclaims = w->nr;
    w->in.jobs = w->jobs;
    w->in.n_jobs = w->nj;
    w->in.pdbs = w->pdbs;
    w->in.n_pdbs = w->nb;
    w->in.checkpoint = w->ckpt;
    w->in.n_checkpoint = w->nc;
    w->in.spot_labels = spot_labels;
    w->in.n_spot_labels = 2;
    w->in.ignore = w->ignore;
    w->in.n_ignore = w->ni;
    advice_result_free(w->r);
    w->r = NULL;
    assert_int_equal(advice_run(&w->in, &w->r), ERR_OK);
    int64_t counts[ADVICE_NSEVERITY] = {0};
    for (size_t i = 0; i < w->r->n; i++) {
        counts[w->r->v[i].severity]++;
        /* evidence is always a JSON object */
        json_object *o = json_tokener_parse(w->r->v[i].evidence);
        assert_non_null(o);
        assert_true(json_object_is_type(o, json_type_object));
        json_object_put(o);
    }
    for (int s = 0; s < ADVICE_NSEVERITY; s++)
        assert_int_equal(counts[s], w->r->counts[s]);
    return w->r;
}

static const struct advice_finding *find(const struct advice_result *r, const char *id) {
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].id, id) == 0)
            return &r->v[i];
    return NULL;
}

static void print_findings(const struct advice_result *r) {
    for (size_t i = 0; i < r->n; i++)
        print_message("  finding %s (%s)\n", r->v[i].id, advice_severity_name(r->v[i].severity));
}

/* An evidence field as an integer (json-c), or INT64_MIN when absent/null. */
static int64_t ev_int(const struct advice_finding *f, const char *key) {
    json_object *o = json_tokener_parse(f->evidence), *v = NULL;
    int64_t r = INT64_MIN;
    if (json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_int))
        r = json_object_get_int64(v);
    json_object_put(o);
    return r;
}

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

/* --- rule 6 ------------------------------------------------------------------ */

static void test_pod_failure_policy(void **state) {
    struct world *w = *state;
    w->jobs[0].pfp_ignores_disruption = false;
    w->jobs[0].attempts = 4;
    w->jobs[0].interrupted = 2;
    const struct advice_finding *f = find(run(w), "pod-failure-policy:gpu-batch/render-0001");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_WARNING);
    assert_int_equal(ev_int(f, "retries_consumed_by_reclaims"), 2);
    assert_int_equal(ev_int(f, "backoff_limit"), 3);
    /* the reclaims burnt the retries and the Job failed */
    w->jobs[0].tasks_failed = 1;
    f = find(run(w), "pod-failure-policy:gpu-batch/render-0001");
    assert_int_equal(f->severity, ADVICE_CRITICAL);
    /* default backoffLimit shown as such */
    w->jobs[0].backoff_limit = -1;
    f = find(run(w), "pod-failure-policy:gpu-batch/render-0001");
    assert_int_equal(ev_int(f, "effective_backoff_limit"), 6);
    /* On-Demand work is not reclaimed */
    w->jobs[0].config = COST_ON_DEMAND;
    assert_null(find(run(w), "pod-failure-policy:gpu-batch/render-0001"));
}

/* Jobs generated from one template ("render-0001", "render-0002", ...) with
 * the same mistake are one finding on "gpu-batch/render-*"; a Job of another
 * workload stays on its own. */
static void test_grouped_by_workload(void **state) {
    struct world *w = *state;
    w->jobs[0].pfp_ignores_disruption = false;
    w->jobs[1] = good_job("render-0002");
    w->jobs[1].pfp_ignores_disruption = false;
    w->jobs[2] = good_job("render-0003");
    w->jobs[2].pfp_ignores_disruption = false;
    w->jobs[3] = good_job("ingest");
    w->jobs[3].pfp_ignores_disruption = false;
    w->nj = 4;
    const struct advice_result *r = run(w);
    const struct advice_finding *f = find(r, "pod-failure-policy:gpu-batch/render-*");
    assert_non_null(f);
    assert_int_equal(ev_int(f, "jobs"), 3);
    assert_non_null(strstr(f->evidence, "\"examples\":[\"gpu-batch/render-0001\","));
    assert_non_null(strstr(f->title, "(and 2 more Jobs like it)"));
    assert_null(find(r, "pod-failure-policy:gpu-batch/render-0002"));
    assert_non_null(find(r, "pod-failure-policy:gpu-batch/ingest"));
    assert_int_equal(r->counts[ADVICE_WARNING], 2);
}

/* --- rule 7 ------------------------------------------------------------------ */

static void test_ttl_too_short(void **state) {
    struct world *w = *state;
    w->jobs[0].ttl_after_finished = 30; /* below the 60 s poll interval */
    const struct advice_finding *f = find(run(w), "ttl-too-short:gpu-batch/render-0001");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_WARNING);
    assert_non_null(strstr(f->fix, "at least 180"));
    w->jobs[0].ttl_after_finished = 300;
    assert_null(find(run(w), "ttl-too-short:gpu-batch/render-0001"));
    w->in.watch_lag_seconds = 600; /* a relist after an outage took 10 minutes */
    f = find(run(w), "ttl-too-short:gpu-batch/render-0001");
    assert_non_null(f);
    assert_int_equal(ev_int(f, "observed_watch_lag_seconds"), 600);
    w->jobs[0].outcomes_lost = 1;
    assert_int_equal(find(run(w), "ttl-too-short:gpu-batch/render-0001")->severity,
                     ADVICE_CRITICAL);
    w->jobs[0].ttl_after_finished = -1; /* never deleted */
    assert_null(find(run(w), "ttl-too-short:gpu-batch/render-0001"));
    w->jobs[0].ttl_after_finished = 0; /* deleted at once: on-demand Jobs too */
    w->jobs[0].config = COST_ON_DEMAND;
    assert_non_null(find(run(w), "ttl-too-short:gpu-batch/render-0001"));
}

/* --- rule 8 ------------------------------------------------------------------ */

static void test_required_spot_affinity(void **state) {
    struct world *w = *state;
    w->jobs[0].spec_json = "{" GPU_TOLERATIONS ",\"nodeSelector\":{\"gpu-pool-type\":\"spot\"}}";
    const struct advice_finding *f = find(run(w), "required-spot-affinity:gpu-batch/render-0001");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_CRITICAL);
    assert_non_null(strstr(f->title, "nodeSelector"));
    /* the pool name label of a Spot pool */
    w->jobs[0].spec_json =
        "{" GPU_TOLERATIONS ",\"nodeSelector\":{\"" K8S_LABEL_POOL_NAME "\":\"gpu-spot\"}}";
    assert_non_null(find(run(w), "required-spot-affinity:gpu-batch/render-0001"));
    /* ... of the fallback pool is fine for this rule */
    w->jobs[0].spec_json =
        "{" GPU_TOLERATIONS ",\"nodeSelector\":{\"" K8S_LABEL_POOL_NAME "\":\"gpu-fallback\"}}";
    assert_null(find(run(w), "required-spot-affinity:gpu-batch/render-0001"));
    /* required affinity: every term needs Spot */
    w->jobs[0].spec_json =
        "{" GPU_TOLERATIONS ",\"requiredNodeAffinity\":[{\"matchExpressions\":[{\"key\":"
        "\"doks.digitalocean.com/capacity-type\",\"operator\":\"In\",\"values\":[\"spot\"]}]}]}";
    f = find(run(w), "required-spot-affinity:gpu-batch/render-0001");
    assert_non_null(f);
    assert_non_null(strstr(f->evidence, "requiredNodeAffinity"));
    /* a second term (OR) that On-Demand nodes satisfy: it can fail over */
    w->jobs[0].spec_json =
        "{" GPU_TOLERATIONS ",\"requiredNodeAffinity\":[{\"matchExpressions\":[{\"key\":"
        "\"gpu-pool-type\",\"operator\":\"In\",\"values\":[\"spot\"]}]},{\"matchExpressions\":"
        "[{\"key\":\"gpu-pool-type\",\"operator\":\"In\",\"values\":[\"on-demand\"]}]}]}";
    assert_null(find(run(w), "required-spot-affinity:gpu-batch/render-0001"));
    /* In [spot, on-demand] is not Spot-only */
    w->jobs[0].spec_json =
        "{" GPU_TOLERATIONS ",\"requiredNodeAffinity\":[{\"matchExpressions\":[{\"key\":"
        "\"gpu-pool-type\",\"operator\":\"In\",\"values\":[\"spot\",\"on-demand\"]}]}]}";
    assert_null(find(run(w), "required-spot-affinity:gpu-batch/render-0001"));
    /* a "spot" Job may require Spot */
    w->jobs[0].spec_json = "{" GPU_TOLERATIONS ",\"nodeSelector\":{\"gpu-pool-type\":\"spot\"}}";
    w->jobs[0].config = COST_SPOT;
    assert_null(find(run(w), "required-spot-affinity:gpu-batch/render-0001"));
}

/* --- rule 9 ------------------------------------------------------------------ */

static void test_no_checkpoints(void **state) {
    struct world *w = *state;
    w->jobs[0].checkpoint_reports = 0;
    w->in.costs[COST_FALLBACK] = (struct advice_cost){.known = true,
                                                      .interruptions = 3,
                                                      .wasted_cost = 5250000,
                                                      .measured_overhead_bp = 6400,
                                                      .break_even_overhead_bp = 2500};
    w->ckpt[0] = (struct cost_advice){.size = "gpu-h100x1-80gb-spot",
                                      .reclaims = 2,
                                      .exposure_seconds = 86400,
                                      .mtbr_seconds = 43200,
                                      .mean_checkpoint_seconds = COST_NULL,
                                      .interval_seconds = COST_NULL};
    w->nc = 1;
    const struct advice_finding *f = find(run(w), "no-checkpoints:fallback");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_WARNING);
    assert_non_null(strstr(f->evidence, "\"measured_overhead_pct\":64"));
    assert_non_null(strstr(f->evidence, "\"interval_if_checkpoint_takes_60s\":2276"));
    assert_non_null(strstr(f->fix, "2276"));
    /* checkpoints reported: the summary's own advice applies */
    w->jobs[0].checkpoint_reports = 2;
    assert_null(find(run(w), "no-checkpoints:fallback"));
    /* Spot still wins: nothing to fix */
    w->jobs[0].checkpoint_reports = 0;
    w->in.costs[COST_FALLBACK].measured_overhead_bp = 1000;
    assert_null(find(run(w), "no-checkpoints:fallback"));
    /* unknown overhead */
    w->in.costs[COST_FALLBACK].measured_overhead_bp = COST_NULL;
    assert_null(find(run(w), "no-checkpoints:fallback"));
}

/* --- rule 10 ----------------------------------------------------------------- */

static void test_pdb_blocks_drain(void **state) {
    struct world *w = *state;
    w->pdbs[0] = (struct advice_pdb){.ns = "gpu-batch",
                                     .name = "render",
                                     .max_unavailable = 0,
                                     .max_unavailable_pct = -1,
                                     .min_available = -1,
                                     .min_available_pct = -1,
                                     .expected_pods = 2,
                                     .pods_on_spot = 2,
                                     .spot_pool_id = "p-spot"};
    w->pdbs[1] = (struct advice_pdb){.ns = "gpu-batch",
                                     .name = "all-needed",
                                     .max_unavailable = -1,
                                     .max_unavailable_pct = -1,
                                     .min_available = 3,
                                     .min_available_pct = -1,
                                     .expected_pods = 3,
                                     .pods_on_spot = 1};
    w->pdbs[2] = (struct advice_pdb){.ns = "gpu-batch",
                                     .name = "lenient",
                                     .max_unavailable = 1,
                                     .max_unavailable_pct = -1,
                                     .min_available = -1,
                                     .min_available_pct = -1,
                                     .expected_pods = 3,
                                     .pods_on_spot = 3};
    w->nb = 3;
    const struct advice_result *r = run(w);
    const struct advice_finding *f = find(r, "pdb-blocks-drain:gpu-batch/render");
    assert_non_null(f);
    assert_int_equal(f->severity, ADVICE_WARNING);
    assert_non_null(strstr(f->evidence, "\"pool\":\"gpu-spot\""));
    assert_non_null(find(r, "pdb-blocks-drain:gpu-batch/all-needed"));
    assert_null(find(r, "pdb-blocks-drain:gpu-batch/lenient"));
    /* not over Spot pods: nothing blocks a reclaim */
    w->pdbs[0].pods_on_spot = 0;
    assert_null(find(run(w), "pdb-blocks-drain:gpu-batch/render"));
    w->pdbs[0].pods_on_spot = 1;
    w->pdbs[0].max_unavailable = -1;
    w->pdbs[0].max_unavailable_pct = 0; /* "0%" */
    assert_non_null(find(run(w), "pdb-blocks-drain:gpu-batch/render"));
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
        cmocka_unit_test_setup_teardown(test_pod_failure_policy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grouped_by_workload, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ttl_too_short, setup, teardown),
        cmocka_unit_test_setup_teardown(test_required_spot_affinity, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_checkpoints, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pdb_blocks_drain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_silencing, setup, teardown),
        cmocka_unit_test(test_list_has),
        cmocka_unit_test_setup_teardown(test_ordering_and_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
        cmocka_unit_test_setup_teardown(test_example_has_no_critical, setup, teardown),
    };
    return cmocka_run_group_tests_name("advice", tests, NULL, NULL);
}
