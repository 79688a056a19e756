/* advice_fx — the world of test_advice.c and test_advice_jobs.c (header only;
 * include after cmocka.h): a correct setup (a system pool, a Spot GPU pool and
 * its On-Demand fallback, one well-made Job) that gives no finding at all; each
 * test breaks one thing and run()s the advisor (run checks every finding's
 * evidence is a JSON object and the severity counts). find() picks a finding by
 * id, ev_int() reads an evidence field. */
#ifndef SPOTLEDGER_TEST_ADVICE_FX_H
#define SPOTLEDGER_TEST_ADVICE_FX_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/advice.h"

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

static inline struct advice_job good_job(const char *name) {
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

static inline int setup(void **state) {
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

static inline int teardown(void **state) {
    struct world *w = *state;
    advice_result_free(w->r);
    free(w);
    return 0;
}

static inline const struct advice_result *run(struct world *w) {
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

static inline const struct advice_finding *find(const struct advice_result *r, const char *id) {
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].id, id) == 0)
            return &r->v[i];
    return NULL;
}

static inline void print_findings(const struct advice_result *r) {
    for (size_t i = 0; i < r->n; i++)
        print_message("  finding %s (%s)\n", r->v[i].id, advice_severity_name(r->v[i].severity));
}

/* An evidence field as an integer (json-c), or INT64_MIN when absent/null. */
static inline int64_t ev_int(const struct advice_finding *f, const char *key) {
    json_object *o = json_tokener_parse(f->evidence), *v = NULL;
    int64_t r = INT64_MIN;
    if (json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_int))
        r = json_object_get_int64(v);
    json_object_put(o);
    return r;
}

#endif
