/* test_store_advice — the advisor's loader on a temporary database (rows put
 * with plain SQL and, for a Job, through store_k8s from the example fixture),
 * then GET /api/v1/advice and the /metrics block driven through their real
 * handlers on a read-only connection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/api.h"
#include "http/api_advice.h"
#include "source/k8s_api.h"
#include "k8s_fixtures.h"
#include "http/metrics.h"
#include "base/request.h"
#include "store/store.h"
#include "store/store_advice.h"
#include "store/store_internal.h"
#include "store/store_k8s.h"
#include "testdb.h"

#define T0 INT64_C(1772409600) /* 2026-03-02T00:00:00Z */
#define WINDOW "2026-03-02T00:00:00Z,2026-03-03T00:00:00Z"

static const char ROWS[] =
    "INSERT INTO clusters(id, name, region, version, first_seen, last_seen) VALUES ('c-1', 'prod', "
    "'ams3', '1.31', 1, 1);"
    "INSERT INTO sizes VALUES ('s-2vcpu-4gb', 2, 4096, 0, NULL, NULL, 1, 1),"
    " ('gpu-h100x1-80gb', 20, 245760, 1, 'nvidia_h100', 80, 1, 1),"
    " ('gpu-h100x1-80gb-spot', 20, 245760, 1, 'nvidia_h100', 80, 1, 1);"
    /* id, cluster, name, size, capacity, basis, price, auto, min, max, count,
     * labels, taints, first, last, deleted */
    "INSERT INTO node_pools(id, cluster_id, name, size, capacity_type, capacity_basis,"
    " price_hourly_micro, auto_scale, min_nodes, max_nodes, node_count, labels_json, taints_json,"
    " first_seen, last_seen, deleted_at) VALUES"
    " ('p-sys', 'c-1', 'system', 's-2vcpu-4gb', 'on-demand', 'default', 36000, 0, 0, 0, 2,"
    "  NULL, '[]', 1, 1, NULL),"
    " ('p-spot', 'c-1', 'gpu-spot', 'gpu-h100x1-80gb-spot', 'spot', 'slug', 1800000, 0, 0, 0,"
    "  1, '{\"gpu-pool-type\":\"spot\"}', '[]', 1, 1, NULL),"
    " ('p-old', 'c-1', 'gpu-spot-old', 'gpu-h100x1-80gb-spot', 'spot', 'slug', 1800000, 1, 0,"
    "  4, 1, NULL, '[]', 1, 1, 1772410600),"
    " ('p-fb', 'c-1', 'gpu-fallback', 'gpu-h100x1-80gb', 'on-demand', 'default', 3390000, 1,"
    "  0, 2, 0, NULL, '[]', 1, 1, NULL);"
    "INSERT INTO nodes(name, pool_id, capacity_type, created_at, ready_at, k8s_deleted_at,"
    " do_deleted_at, first_seen, last_seen) VALUES"
    " ('system-a', 'p-sys', 'on-demand', 1, 2, NULL, NULL, 1, 1),"
    " ('spot-new-1', 'p-spot', 'spot', 1772409000, 1772409100, NULL, NULL, 1, 1),"
    " ('spot-old-1', 'p-old', 'spot', 1772400000, 1772400100, 1772410600, NULL, 1, 1),"
    " ('fb-1', 'p-fb', NULL, 1772410700, 1772411100, NULL, NULL, 1, 1),"
    " ('ancient', 'p-old', 'spot', 1000, 1100, NULL, 1700000000, 1, 1);"
    "INSERT INTO reclaims(pool_id, detected_at, first_signal_at, nodes) VALUES"
    " ('p-old', 1772410600, 1772410500, 1), ('p-old', 1700000000, NULL, 1);"
    /* uid, job, index, ns, name, configuration, experiment, created, started, completed,
     * outcome, reason, backoff, deadline, ttl, has_pfp, pfp_ignores, spec, deleted, first, last */
    "INSERT INTO tasks(uid, job_uid, completion_index, namespace, name, configuration, "
    "experiment, created_at, started_at, completed_at, outcome, outcome_reason, backoff_limit, "
    "active_deadline, ttl_after_finished, has_pod_failure_policy, pfp_ignores_disruption, "
    "spec_json, deleted_at, first_seen, last_seen) VALUES"
    " ('j1', 'j1', NULL, 'batch', 'train-1', 'fallback', NULL, 1772409600, NULL, 1772412000,"
    "  'succeeded', 'Completed', 2, NULL, 30, 0, 0, '{\"tolerations\":[]}', NULL, 1772409600,"
    "  1772412000),"
    " ('j2/0', 'j2', 0, 'batch', 'sweep', 'spot', NULL, 1772409600, NULL, NULL, 'running',"
    "  NULL, NULL, NULL, NULL, 1, 1, '{}', NULL, 1772409600, 1772415000),"
    " ('j2/1', 'j2', 1, 'batch', 'sweep', 'spot', NULL, 1772409600, NULL, 1772413000, 'failed',"
    "  'FailedIndex', NULL, NULL, NULL, 1, 1, '{}', NULL, 1772409600, 1772415000),"
    " ('j3', 'j3', NULL, 'other', 'eval', NULL, NULL, 1772409600, NULL, NULL, 'running', NULL,"
    "  NULL, NULL, 0, 0, 0, NULL, 1772411000, 1772409600, 1772411000),"
    " ('j0', 'j0', NULL, 'batch', 'old', 'spot', NULL, 1000, NULL, 2000, 'succeeded', NULL,"
    "  NULL, NULL, NULL, 0, 0, NULL, NULL, 1000, 2000);"
    /* uid, task, job, node, phase, reason, created, scheduled, finished, deleted,
     * disruption, checkpoint, first_seen (the first row inserted: the watcher's start) */
    "INSERT INTO attempts(uid, task_uid, job_uid, namespace, name, node_name, phase, reason,"
    " created_at, scheduled_at, finished_at, deleted_at, disruption_at,"
    " report_checkpoint_seconds, first_seen, last_seen) VALUES"
    " ('a1', 'j1', 'j1', 'batch', 'train-1-a', 'spot-old-1', 'Running', NULL, 1772409600,"
    "  1772409610, NULL, NULL, NULL, NULL, 1772409600, 1772409600),"
    " ('a2', 'j1', 'j1', 'batch', 'train-1-b', 'fb-1', 'Succeeded', NULL, 1772411000,"
    "  1772411100, 1772412000, NULL, NULL, 30, 1772411300, 1772412000),"
    " ('a3', 'j2/0', 'j2', 'batch', 'sweep-0-a', 'spot-new-1', 'Failed', NULL, 1772409700,"
    "  1772409710, 1772410000, NULL, 1772409990, NULL, 1772409700, 1772410000),"
    " ('a4', 'j2/1', 'j2', 'batch', 'sweep-1-a', 'spot-new-1', 'Failed', 'Evicted', 1772409700,"
    "  1772409710, 1772410000, NULL, NULL, NULL, 1772409700, 1772410000),"
    " ('a5', 'j2/1', 'j2', 'batch', 'sweep-1-b', 'spot-old-1', 'Succeeded', NULL, 1772409000,"
    "  1772409800, 1772410100, NULL, NULL, NULL, 1772409800, 1772410100),"
    " ('a6', 'j0', 'j0', 'batch', 'old-a', 'ancient', 'Failed', 'Evicted', 1000, 1010, 1500,"
    "  NULL, NULL, NULL, 1010, 1500);";

static int setup(void **state) {
    testdb_fx_setup(state);
    struct testdb_fx *f = *state;
    testdb_exec(&f->db, ROWS);
    return 0;
}

static const struct advice_job *job(const struct store_advice_data *d, const char *uid) {
    for (size_t i = 0; i < d->in.n_jobs; i++)
        if (strcmp(d->in.jobs[i].uid, uid) == 0)
            return &d->in.jobs[i];
    return NULL;
}

static void test_load(void **state) {
    struct testdb_fx *f = *state;
    struct store_advice_data *d = NULL;
    assert_int_equal(store_advice_load(f->s, T0, T0 + 86400, COST_FALLBACK, NULL, NULL, &d),
                     ERR_OK);
    const struct advice_input *in = &d->in;
    assert_false(d->jobs_truncated);
    assert_string_equal(in->cluster, "prod");
    /* pools by name, deleted ones included */
    assert_int_equal(in->n_pools, 4);
    assert_string_equal(in->pools[0].name, "gpu-fallback");
    assert_string_equal(in->pools[2].name, "gpu-spot-old");
    assert_true(in->pools[1].spot);
    assert_false(in->pools[1].auto_scale);
    assert_int_equal(in->pools[2].deleted_at, T0 + 1000);
    assert_int_equal(in->pools[0].min_nodes, 0);
    assert_int_equal(in->pools[0].price_hourly, 3390000);
    assert_string_equal(in->pools[1].labels_json, "{\"gpu-pool-type\":\"spot\"}");
    assert_int_equal(in->n_sizes, 3);
    assert_string_equal(in->sizes[0].slug, "gpu-h100x1-80gb");
    assert_string_equal(in->sizes[0].gpu_model, "nvidia_h100");
    assert_int_equal(in->sizes[0].gpu_vram_gb, 80);
    assert_int_equal(in->sizes[2].gpu_count, 0);
    assert_int_equal(in->sizes[2].gpu_vram_gb, -1);
    /* nodes: the long-deleted one is left out; capacity from the pool if unknown */
    assert_int_equal(in->n_nodes, 4);
    assert_string_equal(in->nodes[0].name, "fb-1");
    assert_false(in->nodes[0].spot);
    assert_int_equal(in->nodes[0].ready_at, T0 + 1500);
    assert_string_equal(in->nodes[2].name, "spot-old-1");
    assert_true(in->nodes[2].spot);
    assert_int_equal(in->nodes[2].deleted_at, T0 + 1000);
    /* reclaims of the window only */
    assert_int_equal(in->n_reclaims, 1);
    assert_string_equal(in->reclaims[0].pool_id, "p-old");
    assert_int_equal(in->reclaims[0].signal_at, T0 + 900);
    /* Jobs: one row per job uid; the old finished one left out */
    assert_int_equal(in->n_jobs, 3);
    assert_null(job(d, "j0"));
    const struct advice_job *j1 = job(d, "j1"), *j2 = job(d, "j2"), *j3 = job(d, "j3");
    assert_non_null(j1);
    assert_non_null(j2);
    assert_non_null(j3);
    assert_int_equal(j1->config, COST_FALLBACK);
    assert_int_equal(j1->ttl_after_finished, 30);
    assert_int_equal(j1->backoff_limit, 2);
    assert_false(j1->pfp_ignores_disruption);
    assert_string_equal(j1->spec_json, "{\"tolerations\":[]}");
    assert_int_equal(j1->attempts, 2);
    assert_int_equal(j1->interrupted, 1); /* a1: its node was deleted under it */
    assert_int_equal(j1->checkpoint_reports, 1);
    assert_int_equal(j2->config, COST_SPOT);
    assert_string_equal(j2->name, "sweep");
    assert_int_equal(j2->tasks, 2);
    assert_int_equal(j2->tasks_failed, 1);
    assert_int_equal(j2->attempts, 3);
    assert_int_equal(j2->interrupted, 2); /* DisruptionTarget, Evicted; a5 succeeded first */
    assert_true(j2->pfp_ignores_disruption);
    assert_int_equal(j2->backoff_limit, -1);
    assert_int_equal(j3->config, COST_FALLBACK); /* no label: the default */
    assert_int_equal(j3->outcomes_lost, 1);      /* deleted while still running */
    assert_int_equal(j3->ttl_after_finished, 0);
    assert_null(j3->spec_json);
    /* the longest creation-to-sighting delay after the watcher started: a2's 300 s
     * (a5 was created before the first row was seen and does not count) */
    assert_int_equal(in->watch_lag_seconds, 300);
    store_advice_free(d);

    /* an empty window: no jobs, no lag; the cluster named by id wins */
    assert_int_equal(store_advice_load(f->s, 10, 20, COST_SPOT, "c-1", NULL, &d), ERR_OK);
    assert_int_equal(d->in.n_jobs, 0);
    assert_int_equal(d->in.n_reclaims, 0);
    assert_int_equal(d->in.watch_lag_seconds, -1);
    assert_string_equal(d->in.cluster, "prod");
    store_advice_free(d);
    store_advice_free(NULL);
}

/* The example Job through the real parser and store_k8s: spec_json and the
 * podFailurePolicy flags arrive as the advisor expects them. */
static void test_load_example_job(void **state) {
    struct testdb_fx *f = *state;
    size_t len;
    char *body = fx_read("tests/fixtures/advice/job-fallback.json", &len);
    assert_non_null(body);
    struct k8s_object o;
    assert_int_equal(k8s_object_parse(body, len, K8S_JOB, &o), ERR_OK);
    free(body);
    assert_int_equal(store_begin(f->s), ERR_OK);
    assert_int_equal(store_k8s_put(f->s, &o, 0, T0 + 100), ERR_OK);
    assert_int_equal(store_commit(f->s), ERR_OK);
    k8s_object_release(&o);
    /* the deploy example is classified as its labels say (issue: deploy) */
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(store_db(f->s),
                                        "SELECT configuration, experiment FROM tasks "
                                        "WHERE job_uid = '7e57ad71-0000-4000-8000-000000000001'",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "fallback");
    assert_string_equal((const char *)sqlite3_column_text(st, 1), "h100-render-2026w48");
    sqlite3_finalize(st);
    struct store_advice_data *d = NULL;
    assert_int_equal(store_advice_load(f->s, T0, T0 + 86400, COST_SPOT, NULL, NULL, &d), ERR_OK);
    const struct advice_job *j = job(d, "7e57ad71-0000-4000-8000-000000000001");
    assert_non_null(j);
    assert_string_equal(j->ns, "gpu-batch");
    assert_string_equal(j->name, "render-0001");
    assert_int_equal(j->config, COST_FALLBACK);
    assert_int_equal(j->ttl_after_finished, 86400);
    assert_int_equal(j->backoff_limit, 3);
    assert_true(j->has_pod_failure_policy);
    assert_true(j->pfp_ignores_disruption);
    assert_non_null(strstr(j->spec_json, "\"tolerations\""));
    assert_non_null(strstr(j->spec_json, "\"preferredNodeAffinity\""));
    store_advice_free(d);
}

/* --- the handlers ----------------------------------------------------------- */

static void get(struct store *db, const char *path, const char *window, struct response *resp) {
    struct request req;
    request_init(&req);
    req.method = strdup("GET");
    req.path = strdup(path);
    req.now = T0 + 86400;
    req.db = db;
    if (window)
        request_add_param(&req, "window", window);
    response_init(resp);
    if (strcmp(path, "/metrics") == 0)
        metrics_handle(&req, resp);
    else
        api_advice(&req, resp);
    request_release(&req);
}

static json_object *finding(json_object *doc, const char *id) {
    json_object *fs, *v;
    if (!json_object_object_get_ex(doc, "findings", &fs))
        return NULL;
    for (size_t i = 0; i < json_object_array_length(fs); i++) {
        json_object *x = json_object_array_get_idx(fs, i);
        if (json_object_object_get_ex(x, "id", &v) && !strcmp(json_object_get_string(v), id))
            return x;
    }
    return NULL;
}

static const char *sev(json_object *f) {
    json_object *v;
    return json_object_object_get_ex(f, "severity", &v) ? json_object_get_string(v) : "";
}

/* PodDisruptionBudgets through the real parser and store_k8s, then the loader:
 * which PDBs it keeps and the Spot pods each selects in the window. */
static void put_pdb(struct store *db, const char *json, int64_t deleted_at) {
    struct k8s_object o;
    assert_int_equal(k8s_object_parse(json, strlen(json), K8S_PDB, &o), ERR_OK);
    assert_int_equal(store_begin(db), ERR_OK);
    assert_int_equal(store_k8s_put(db, &o, deleted_at, T0 + 50), ERR_OK);
    assert_int_equal(store_commit(db), ERR_OK);
    k8s_object_release(&o);
}

#define PDB(uid, ns, name, spec)                                                                   \
    "{\"metadata\":{\"uid\":\"" uid "\",\"namespace\":\"" ns "\",\"name\":\"" name "\","           \
    "\"creationTimestamp\":\"2026-03-01T00:00:00Z\"},\"spec\":" spec ","                           \
    "\"status\":{\"expectedPods\":2,\"currentHealthy\":2,\"desiredHealthy\":2,"                    \
    "\"disruptionsAllowed\":0}}"

static const struct advice_pdb *pdb(const struct store_advice_data *d, const char *name) {
    for (size_t i = 0; i < d->in.n_pdbs; i++)
        if (strcmp(d->in.pdbs[i].name, name) == 0)
            return &d->in.pdbs[i];
    return NULL;
}

static void test_load_pdbs(void **state) {
    struct testdb_fx *f = *state;
    /* sweep's pod template labels, as k8s_api keeps them in spec_json */
    assert_int_equal(sqlite3_exec(store_db(f->s),
                                  "UPDATE tasks SET spec_json = '{\"podLabels\":{\"app\":\"sweep\","
                                  "\"team\":\"ml\"}}' WHERE job_uid = 'j2'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    put_pdb(f->s,
            PDB("u1", "batch", "sweep-pdb",
                "{\"maxUnavailable\":0,\"selector\":{\"matchLabels\":{\"app\":\"sweep\"}}}"),
            0);
    put_pdb(f->s,
            PDB("u2", "batch", "sweep-team",
                "{\"minAvailable\":\"100%\",\"selector\":"
                "{\"matchLabels\":{\"app\":\"sweep\","
                "\"team\":\"other\"}}}"),
            0);
    put_pdb(f->s,
            PDB("u3", "batch", "expr",
                "{\"maxUnavailable\":0,\"selector\":{"
                "\"matchExpressions\":[{\"key\":\"app\","
                "\"operator\":\"Exists\"}]}}"),
            0);
    put_pdb(f->s, PDB("u4", "other", "all", "{\"minAvailable\":2,\"selector\":{}}"), 0);
    put_pdb(f->s, PDB("u5", "batch", "gone", "{\"maxUnavailable\":0,\"selector\":{}}"), T0 - 10);
    /* a second sighting moves nothing but last_seen and the status */
    put_pdb(f->s,
            PDB("u1", "batch", "sweep-pdb",
                "{\"maxUnavailable\":0,\"selector\":{\"matchLabels\":{\"app\":\"sweep\"}}}"),
            0);
    struct store_advice_data *d = NULL;
    assert_int_equal(store_advice_load(f->s, T0, T0 + 86400, COST_SPOT, NULL, NULL, &d), ERR_OK);
    /* kept: sweep-pdb, sweep-team, all; left out: expr (matchExpressions not
     * evaluated), gone (deleted before the window) */
    assert_int_equal(d->in.n_pdbs, 3);
    assert_null(pdb(d, "expr"));
    assert_null(pdb(d, "gone"));
    /* sweep-pdb selects app=sweep in batch: j2's attempts a3, a4 (spot-new-1, pool
     * p-spot) and a5 (spot-old-1, pool p-old), all Spot and in the window: 3; the
     * pool reported is the first by id, p-old */
    const struct advice_pdb *b = pdb(d, "sweep-pdb");
    assert_non_null(b);
    assert_string_equal(b->ns, "batch");
    assert_int_equal(b->max_unavailable, 0);
    assert_int_equal(b->max_unavailable_pct, -1);
    assert_int_equal(b->min_available, -1);
    assert_int_equal(b->expected_pods, 2);
    assert_int_equal(b->pods_on_spot, 3);
    assert_string_equal(b->spot_pool_id, "p-old");
    /* team=other is not in sweep's labels: 0 pods */
    b = pdb(d, "sweep-team");
    assert_non_null(b);
    assert_int_equal(b->min_available_pct, 100);
    assert_int_equal(b->pods_on_spot, 0);
    assert_null(b->spot_pool_id);
    /* {} selects the whole namespace 'other': j3 there has no attempt */
    b = pdb(d, "all");
    assert_non_null(b);
    assert_int_equal(b->min_available, 2);
    assert_int_equal(b->pods_on_spot, 0);
    store_advice_free(d);

    /* the advisor through its handler: only sweep-pdb blocks a Spot drain */
    struct store *rd = NULL;
    assert_int_equal(store_open(f->db.path, STORE_READER, &rd, NULL), ERR_OK);
    struct response resp;
    get(rd, "/api/v1/advice", WINDOW, &resp);
    assert_int_equal(resp.status, 200);
    json_object *doc = json_tokener_parse(buf_str(&resp.body));
    assert_non_null(doc);
    json_object *fp = finding(doc, "pdb-blocks-drain:batch/sweep-pdb"), *ev, *v;
    assert_string_equal(sev(fp), "warning");
    assert_true(json_object_object_get_ex(fp, "evidence", &ev));
    assert_true(json_object_object_get_ex(ev, "pods_on_spot", &v));
    assert_int_equal(json_object_get_int(v), 3);
    assert_null(finding(doc, "pdb-blocks-drain:batch/sweep-team"));
    assert_null(finding(doc, "pdb-blocks-drain:other/all"));
    json_object_put(doc);
    response_release(&resp);
    store_free(rd);
}

static void test_handler(void **state) {
    struct testdb_fx *f = *state;
    struct store *rd = NULL;
    assert_int_equal(store_open(f->db.path, STORE_READER, &rd, NULL), ERR_OK);
    setenv("NODE_NAME", "spot-new-1", 1);
    setenv("POD_NAME", "spotledger-0", 1);
    struct response resp;
    get(rd, "/api/v1/advice", WINDOW, &resp);
    unsetenv("NODE_NAME");
    unsetenv("POD_NAME");
    assert_int_equal(resp.status, 200);
    assert_string_equal(resp.content_type, "application/json");
    json_object *doc = json_tokener_parse(buf_str(&resp.body));
    assert_non_null(doc);
    assert_string_equal(sev(finding(doc, "self-on-spot:spot-new-1")), "critical");
    assert_string_equal(sev(finding(doc, "spot-taint:gpu-spot")), "warning");
    assert_string_equal(sev(finding(doc, "spot-autoscale:gpu-spot")), "warning");
    assert_string_equal(sev(finding(doc, "ttl-too-short:batch/train-1")), "warning");
    assert_string_equal(sev(finding(doc, "ttl-too-short:other/eval")), "critical");
    assert_string_equal(sev(finding(doc, "pod-failure-policy:batch/train-1")), "warning");
    assert_null(finding(doc, "pod-failure-policy:batch/sweep"));
    /* the reclaimed pool's signal at T0+900, fb-1 Ready at T0+1500: 600 s */
    json_object *fm = finding(doc, "fallback-min-nodes:gpu-fallback"), *ev, *v;
    assert_string_equal(sev(fm), "warning");
    assert_true(json_object_object_get_ex(fm, "evidence", &ev));
    assert_true(json_object_object_get_ex(ev, "median_delay_seconds", &v));
    assert_int_equal(json_object_get_int(v), 600);
    assert_null(finding(doc, "system-pool:cluster"));
    /* the fix names the cluster */
    json_object *sa = finding(doc, "spot-autoscale:gpu-spot");
    assert_true(json_object_object_get_ex(sa, "fix", &v));
    assert_non_null(strstr(json_object_get_string(v), "node-pool update prod gpu-spot"));
    /* counts agree with the list */
    json_object *counts, *fs;
    assert_true(json_object_object_get_ex(doc, "counts", &counts));
    assert_true(json_object_object_get_ex(doc, "findings", &fs));
    int64_t total = 0;
    json_object_object_foreach(counts, k, c) {
        (void)k;
        total += json_object_get_int64(c);
    }
    assert_int_equal(total, (int64_t)json_object_array_length(fs));
    json_object_put(doc);
    response_release(&resp);

    /* filters: namespace narrows the Job findings only */
    struct request req;
    request_init(&req);
    req.method = strdup("GET");
    req.path = strdup("/api/v1/advice");
    req.now = T0 + 86400;
    req.db = rd;
    request_add_param(&req, "window", WINDOW);
    request_add_param(&req, "namespace", "other");
    response_init(&resp);
    api_advice(&req, &resp);
    request_release(&req);
    assert_int_equal(resp.status, 200);
    doc = json_tokener_parse(buf_str(&resp.body));
    assert_non_null(finding(doc, "ttl-too-short:other/eval"));
    assert_null(finding(doc, "ttl-too-short:batch/train-1"));
    assert_non_null(finding(doc, "spot-autoscale:gpu-spot"));
    json_object_put(doc);
    response_release(&resp);

    /* a bad parameter is a 400 naming it */
    get(rd, "/api/v1/advice", "yesterday-ish", &resp);
    assert_int_equal(resp.status, 400);
    assert_non_null(strstr(buf_str(&resp.body), "bad_parameter"));
    response_release(&resp);
    /* no database: 503 */
    get(NULL, "/api/v1/advice", NULL, &resp);
    assert_int_equal(resp.status, 503);
    response_release(&resp);
    store_free(rd);
}

static void test_metrics(void **state) {
    struct testdb_fx *f = *state;
    struct store *rd = NULL;
    assert_int_equal(store_open(f->db.path, STORE_READER, &rd, NULL), ERR_OK);
    struct response resp;
    get(rd, "/metrics", NULL, &resp);
    assert_int_equal(resp.status, 200);
    const char *b = buf_str(&resp.body);
    assert_non_null(strstr(b, "# TYPE spotledger_advice_findings gauge\n"));
    /* the last 7 days before now (T0 + 1 day) hold the same rows */
    assert_non_null(strstr(b, "spotledger_advice_findings{severity=\"critical\"} 1\n"));
    assert_non_null(strstr(b, "spotledger_advice_findings{severity=\"warning\"} "));
    assert_non_null(strstr(b, "spotledger_advice_findings{severity=\"info\"} 0\n"));
    response_release(&resp);
    /* the counts helper itself, and without a database */
    struct request req;
    request_init(&req);
    req.now = T0 + 86400;
    req.db = rd;
    int64_t counts[ADVICE_NSEVERITY] = {-1, -1, -1};
    assert_int_equal(api_advice_counts(&req, counts), ERR_OK);
    assert_int_equal(counts[ADVICE_CRITICAL], 1);
    assert_int_equal(counts[ADVICE_INFO], 0);
    req.db = NULL;
    assert_int_equal(api_advice_counts(&req, counts), ERR_BUSY);
    request_release(&req);
    store_free(rd);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_load, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_load_example_job, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_handler, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_load_pdbs, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_metrics, setup, testdb_fx_teardown),
    };
    return cmocka_run_group_tests_name("store_advice", tests, NULL, NULL);
}
