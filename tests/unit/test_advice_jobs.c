/* test_advice_jobs — the setup advisor's rules on the Jobs themselves (rules 6
 * to 10: pod failure policy, grouping by workload, TTL, required Spot affinity,
 * checkpoints, PodDisruptionBudgets), one trigger and one non-trigger each (the
 * pool rules, silencing, ordering and JSON: test_advice.c; the world:
 * advice_fx.h).
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
#include "model/labels.h"

#include "advice_fx.h"

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pod_failure_policy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_grouped_by_workload, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ttl_too_short, setup, teardown),
        cmocka_unit_test_setup_teardown(test_required_spot_affinity, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_checkpoints, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pdb_blocks_drain, setup, teardown),
    };
    return cmocka_run_group_tests_name("advice_jobs", tests, NULL, NULL);
}
