/* test_store_k8s — Kubernetes observations into SQLite: idempotency, merge rules
 * (older data never erases newer), relist bookkeeping, watch state, and the
 * shared scenario's EXPECTED.md numbers recomputed from the stored rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sqlite3.h>
#include <unistd.h>

#include "base/buf.h"
#include "source/k8s_api.h"
#include "k8s_fixtures.h"
#include "k8s_load.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "store/store_k8s.h"
#include "store/store_cost.h"
#include "engine/cost.h"
#include "base/timeutil.h"
#include "testdb.h"

/* The store as the writer, and a second connection (ro) to see the rows as a reader would. */
static int setup(void **state) {
    testdb_fx_setup(state);
    struct testdb_fx *f = *state;
    assert_int_equal(sqlite3_open_v2(f->db.path, &f->ro, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    return 0;
}

static int64_t ts(const char *s) {
    int64_t t = 0;
    assert_int_equal(timeutil_parse_rfc3339(s, strlen(s), &t), ERR_OK);
    return t;
}

static void load_list(struct store *s, const char *dir, const char *name, enum k8s_kind kind,
                      int64_t seen_at) {
    k8s_load_list(s, dir, name, kind, seen_at);
}

static void load_watch(struct store *s, const char *dir, const char *name, int64_t date) {
    size_t len = 0;
    char *body = fx_read_in(dir, name, &len);
    assert_non_null(body);
    for (char *line = body, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
        struct k8s_watch_event ev;
        assert_int_equal(k8s_watch_parse(line, (size_t)(nl - line), K8S_POD, &ev), ERR_OK);
        if (ev.type == K8S_ADDED || ev.type == K8S_MODIFIED || ev.type == K8S_DELETED) {
            assert_int_equal(store_begin(s), ERR_OK);
            assert_int_equal(store_k8s_put(s, &ev.obj, ev.type == K8S_DELETED ? date : 0, date),
                             ERR_OK);
            assert_int_equal(store_commit(s), ERR_OK);
        }
        k8s_watch_event_release(&ev);
    }
    free(body);
}

/* Every k8s row, every column but last_seen: equal dumps = nothing changed. */
static char *dump(sqlite3 *db) {
    const char *tables[] = {"tasks", "attempts", "nodes", "events", "node_conditions"};
    struct buf b;
    buf_init(&b, 0);
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT * FROM %s ORDER BY 1, 2, 3", tables[t]);
        sqlite3_stmt *st = NULL;
        assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                if (strcmp(sqlite3_column_name(st, c), "last_seen") == 0)
                    continue;
                const unsigned char *v = sqlite3_column_text(st, c);
                buf_printf(&b, "%s|", v ? (const char *)v : "NULL");
            }
            buf_putc(&b, '\n');
        }
        sqlite3_finalize(st);
    }
    return buf_detach(&b, NULL);
}

static void load_own(struct store *s, int64_t date) {
    load_list(s, OWN_K8S, "NodeList.json", K8S_NODE, date);
    load_list(s, OWN_K8S, "JobList.json", K8S_JOB, date);
    load_list(s, OWN_K8S, "PodList.json", K8S_POD, date);
    load_list(s, OWN_K8S, "EventList.json", K8S_EVENT, date);
}

/* --- own fixtures ------------------------------------------------------------ */

static void test_own_rows(void **state) {
    struct testdb_fx *f = *state;
    int64_t date = ts("2026-03-02T11:00:00Z");
    load_own(f->s, date);
    sqlite3 *db = f->ro;
    /* train-1: one task; sweep: one task per completion index */
    assert_int_equal(testdb_q_int(db, "SELECT count(*) FROM tasks", NULL), 3);
    assert_int_equal(testdb_q_int(db, "SELECT count(*) FROM attempts", NULL), 4);
    testdb_q_text_is(db,
                     "SELECT outcome || ',' || outcome_reason || ',' || configuration || ',' "
                     "|| experiment FROM tasks WHERE uid = ?",
                     "j-0001", "succeeded,CompletionsReached,fallback,exp-1");
    assert_int_equal(testdb_q_int(db, "SELECT completed_at FROM tasks WHERE uid = ?", "j-0001"),
                     ts("2026-03-02T10:50:00Z"));
    assert_int_equal(
        testdb_q_int(db, "SELECT ttl_after_finished FROM tasks WHERE uid = ?", "j-0001"), 600);
    char *s = testdb_q_text(db, "SELECT spec_json FROM tasks WHERE uid = ?", "j-0001");
    assert_non_null(strstr(s, "\"ignoreAdvice\":\"checkpoint\""));
    free(s);
    /* Indexed: index 0 succeeded at its pod's finish, index 1 still running */
    testdb_q_text_is(db, "SELECT outcome FROM tasks WHERE uid = ?", "j-0002/0", "succeeded");
    assert_int_equal(testdb_q_int(db, "SELECT completed_at FROM tasks WHERE uid = ?", "j-0002/0"),
                     ts("2026-03-02T10:16:20Z"));
    testdb_q_text_is(db, "SELECT outcome FROM tasks WHERE uid = ?", "j-0002/1", "running");
    assert_int_equal(
        testdb_q_int(db, "SELECT pfp_ignores_disruption FROM tasks WHERE uid = ?", "j-0002/1"), 1);
    assert_int_equal(
        testdb_q_int(db, "SELECT count(*) FROM attempts WHERE task_uid = ?", "j-0002/1"), 1);
    /* attempts */
    testdb_q_text_is(db,
                     "SELECT task_uid || ',' || node_name || ',' || pool_id || ',' || gpu_request "
                     "|| ',' || cpu_request_milli || ',' || phase || ',' || reason || ',' || "
                     "exit_code || ',' || disruption_reason || ',' || report_status FROM attempts "
                     "WHERE uid = ?",
                     "p-0001",
                     "j-0001,gpu-spot-a,spot-id-1,1,2000,Failed,Terminated,143,"
                     "TerminationByKubelet,bad");
    assert_int_equal(
        testdb_q_int(db, "SELECT delete_requested_at FROM attempts WHERE uid = ?", "p-0001"),
        ts("2026-03-02T10:20:00Z"));
    /* NodeNotReady of its node (10:19:00) inside [scheduled, finished] */
    assert_int_equal(testdb_q_int(db, "SELECT not_ready_at FROM attempts WHERE uid = ?", "p-0001"),
                     ts("2026-03-02T10:19:00Z"));
    /* p-0003 ran on the same node but finished before it went NotReady */
    assert_int_equal(testdb_q_int(db, "SELECT not_ready_at FROM attempts WHERE uid = ?", "p-0003"),
                     -1);
    testdb_q_text_is(db,
                     "SELECT report_status || ',' || report_work_seconds || ',' || "
                     "report_restore_seconds || ',' || report_checkpoint_seconds FROM attempts "
                     "WHERE uid = ?",
                     "p-0002", "ok,1500,90,12");
    assert_int_equal(
        testdb_q_int(db, "SELECT count(*) FROM attempts WHERE report_status = 'bad'", NULL), 2);
    /* nodes */
    char want[128];
    snprintf(want, sizeof want, "spot-id-1,9001,1,7800,%lld",
             (long long)ts("2026-03-02T10:02:00Z"));
    testdb_q_text_is(db,
                     "SELECT pool_id || ',' || droplet_id || ',' || gpu_allocatable || ',' || "
                     "cpu_allocatable_milli || ',' || ready_at FROM nodes WHERE name = ?",
                     "gpu-spot-a", want);
    assert_int_equal(
        testdb_q_int(db, "SELECT not_ready_at FROM nodes WHERE name = ?", "gpu-spot-a"),
        ts("2026-03-02T10:19:00Z"));
    assert_int_equal(testdb_q_int(db, "SELECT cordoned_at FROM nodes WHERE name = ?", "gpu-od-b"),
                     ts("2026-03-02T10:40:00Z"));
    /* events: the Job event is not reclaim-relevant */
    assert_int_equal(testdb_q_int(db, "SELECT count(*) FROM events", NULL), 4);
    assert_int_equal(testdb_q_int(db, "SELECT count FROM events WHERE uid = ?", "e-0005"), 3);
}

static void test_idempotent(void **state) {
    struct testdb_fx *f = *state;
    int64_t date = ts("2026-03-02T11:00:00Z");
    load_own(f->s, date);
    char *a = dump(f->ro);
    load_own(f->s, date + 60);
    load_own(f->s, date + 120);
    char *b = dump(f->ro);
    assert_string_equal(a, b);
    free(b);
    /* a second writer instance on the same file (a restarted process) */
    struct store *s2 = NULL;
    assert_int_equal(store_open(f->db.path, STORE_WRITER, &s2, NULL), ERR_OK);
    load_own(s2, date + 180);
    store_free(s2);
    b = dump(f->ro);
    assert_string_equal(a, b);
    free(a);
    free(b);
    assert_int_equal(testdb_q_int(f->ro, "SELECT count(*) FROM attempts", NULL), 4);
}

static void put_json(struct store *s, const char *json, enum k8s_kind kind, int64_t deleted_at,
                     int64_t at) {
    struct k8s_object o;
    assert_int_equal(k8s_object_parse(json, strlen(json), kind, &o), ERR_OK);
    assert_int_equal(store_begin(s), ERR_OK);
    assert_int_equal(store_k8s_put(s, &o, deleted_at, at), ERR_OK);
    assert_int_equal(store_commit(s), ERR_OK);
    k8s_object_release(&o);
}

static void put_pod_json(struct store *s, const char *json, int64_t deleted_at, int64_t at) {
    put_json(s, json, K8S_POD, deleted_at, at);
}

#define POD_HEAD                                                                                   \
    "{\"metadata\":{\"uid\":\"px\",\"name\":\"px\",\"namespace\":\"ml\",\"creationTimestamp\":"    \
    "\"2026-03-02T10:00:00Z\",\"labels\":{\"batch.kubernetes.io/controller-uid\":\"jx\"}%s},"      \
    "\"spec\":{\"nodeName\":\"n1\"},\"status\":%s}"

static void test_older_never_erases(void **state) {
    struct testdb_fx *f = *state;
    char newer[2048], older[2048], deleted[2048];
    snprintf(
        newer, sizeof newer, POD_HEAD, "",
        "{\"phase\":\"Failed\",\"reason\":\"Evicted\",\"conditions\":[{\"type\":"
        "\"PodScheduled\",\"status\":\"True\",\"lastTransitionTime\":\"2026-03-02T10:00:05Z\"},"
        "{\"type\":\"DisruptionTarget\",\"status\":\"True\",\"lastTransitionTime\":"
        "\"2026-03-02T10:30:00Z\",\"reason\":\"EvictionByEvictionAPI\"}],"
        "\"containerStatuses\":[{\"name\":\"m\",\"state\":{\"terminated\":{\"exitCode\":137,"
        "\"startedAt\":\"2026-03-02T10:01:00Z\",\"finishedAt\":\"2026-03-02T10:31:00Z\","
        "\"message\":\"{\\\"work_seconds\\\":100}\"}}}]}");
    snprintf(
        older, sizeof older, POD_HEAD, "",
        "{\"phase\":\"Running\",\"conditions\":[{\"type\":\"PodScheduled\",\"status\":"
        "\"True\",\"lastTransitionTime\":\"2026-03-02T10:00:05Z\"}],\"containerStatuses\":"
        "[{\"name\":\"m\",\"state\":{\"running\":{\"startedAt\":\"2026-03-02T10:01:00Z\"}}}]}");
    snprintf(deleted, sizeof deleted, POD_HEAD,
             ",\"deletionTimestamp\":\"2026-03-02T10:40:00Z\",\"deletionGracePeriodSeconds\":30",
             "{\"phase\":\"Failed\"}");
    put_pod_json(f->s, newer, 0, 100);
    put_pod_json(f->s, older, 0, 200);
    put_pod_json(f->s, deleted, 0, 300);
    /* a late DELETED without deletionTimestamp, dated later: keeps the earliest */
    put_pod_json(f->s, older, ts("2026-03-02T11:00:00Z"), 400);
    put_pod_json(f->s, older, ts("2026-03-02T10:35:00Z"), 500);
    sqlite3 *db = f->ro;
    testdb_q_text_is(db,
                     "SELECT phase || ',' || reason || ',' || exit_code || ',' || "
                     "disruption_reason || ',' || report_status || ',' || report_work_seconds "
                     "|| ',' || node_name FROM attempts WHERE uid = 'px'",
                     NULL, "Failed,Evicted,137,EvictionByEvictionAPI,ok,100,n1");
    assert_int_equal(testdb_q_int(db, "SELECT finished_at FROM attempts WHERE uid = 'px'", NULL),
                     ts("2026-03-02T10:31:00Z"));
    assert_int_equal(testdb_q_int(db, "SELECT started_at FROM attempts WHERE uid = 'px'", NULL),
                     ts("2026-03-02T10:01:00Z"));
    assert_int_equal(testdb_q_int(db, "SELECT deleted_at FROM attempts WHERE uid = 'px'", NULL),
                     ts("2026-03-02T10:35:00Z"));
    assert_int_equal(
        testdb_q_int(db, "SELECT delete_requested_at FROM attempts WHERE uid = 'px'", NULL),
        ts("2026-03-02T10:35:00Z"));
    assert_int_equal(testdb_q_int(db, "SELECT first_seen FROM attempts WHERE uid = 'px'", NULL),
                     100);
    assert_int_equal(testdb_q_int(db, "SELECT last_seen FROM attempts WHERE uid = 'px'", NULL),
                     500);
    /* the unknown job got a placeholder task, never a second one */
    assert_int_equal(testdb_q_int(db, "SELECT count(*) FROM tasks WHERE job_uid = 'jx'", NULL), 1);

    /* a task outcome, once terminal, stays; the job's deletion keeps its rows */
    const char *done = "{\"metadata\":{\"uid\":\"jx\",\"name\":\"j\",\"namespace\":\"ml\"},"
                       "\"status\":{\"conditions\":[{\"type\":\"Failed\",\"status\":\"True\","
                       "\"reason\":\"DeadlineExceeded\",\"lastTransitionTime\":"
                       "\"2026-03-02T10:50:00Z\"}]}}";
    const char *running = "{\"metadata\":{\"uid\":\"jx\",\"name\":\"j\",\"namespace\":\"ml\"},"
                          "\"spec\":{\"backoffLimit\":4},\"status\":{}}";
    struct k8s_object o;
    assert_int_equal(k8s_object_parse(done, strlen(done), K8S_JOB, &o), ERR_OK);
    assert_int_equal(store_begin(f->s), ERR_OK);
    assert_int_equal(store_k8s_put(f->s, &o, 0, 600), ERR_OK);
    k8s_object_release(&o);
    assert_int_equal(k8s_object_parse(running, strlen(running), K8S_JOB, &o), ERR_OK);
    assert_int_equal(store_k8s_put(f->s, &o, ts("2026-03-02T12:00:00Z"), 700), ERR_OK);
    assert_int_equal(store_commit(f->s), ERR_OK);
    k8s_object_release(&o);
    char want[128];
    snprintf(want, sizeof want, "failed,DeadlineExceeded,4,%lld,%lld",
             (long long)ts("2026-03-02T10:50:00Z"), (long long)ts("2026-03-02T12:00:00Z"));
    testdb_q_text_is(db,
                     "SELECT outcome || ',' || outcome_reason || ',' || backoff_limit || ',' || "
                     "completed_at || ',' || deleted_at FROM tasks WHERE uid = 'jx'",
                     NULL, want);
    assert_int_equal(testdb_q_int(db, "SELECT count(*) FROM attempts WHERE task_uid = 'jx'", NULL),
                     1);
}

static void test_vanished_and_watch_state(void **state) {
    struct testdb_fx *f = *state;
    int64_t date = ts("2026-03-02T11:00:00Z");
    load_own(f->s, date);
    struct store *s = f->s;
    /* a relist that only shows p-0002 and node gpu-od-b, and no jobs */
    assert_int_equal(store_begin(s), ERR_OK);
    assert_int_equal(store_k8s_seen_reset(s, K8S_POD), ERR_OK);
    assert_int_equal(store_k8s_seen_add(s, K8S_POD, "p-0002"), ERR_OK);
    assert_int_equal(store_k8s_seen_reset(s, K8S_NODE), ERR_OK);
    assert_int_equal(store_k8s_seen_add(s, K8S_NODE, "n-0002"), ERR_OK);
    int64_t n = -1;
    assert_int_equal(store_k8s_mark_vanished(s, K8S_POD, "other-ns", date + 10, &n), ERR_OK);
    assert_int_equal(n, 0);
    /* p-0001's deletionTimestamp was only a request (cost model v2: never an
     * end): it, p-0003 and p-0004 are removed at the list's Date */
    assert_int_equal(store_k8s_mark_vanished(s, K8S_POD, "ml", date + 10, &n), ERR_OK);
    assert_int_equal(n, 3);
    assert_int_equal(store_k8s_mark_vanished(s, K8S_NODE, NULL, date + 10, &n), ERR_OK);
    assert_int_equal(n, 1);
    assert_int_equal(store_k8s_seen_reset(s, K8S_JOB), ERR_OK);
    assert_int_equal(store_k8s_mark_vanished(s, K8S_JOB, NULL, date + 20, &n), ERR_OK);
    assert_int_equal(n, 3);
    assert_int_equal(store_commit(s), ERR_OK);
    assert_int_equal(
        testdb_q_int(f->ro, "SELECT deleted_at FROM attempts WHERE uid = 'p-0004'", NULL),
        date + 10);
    assert_int_equal(
        testdb_q_int(f->ro, "SELECT deleted_at FROM attempts WHERE uid = 'p-0001'", NULL),
        date + 10);
    assert_int_equal(
        testdb_q_int(f->ro, "SELECT k8s_deleted_at FROM nodes WHERE name = 'gpu-spot-a'", NULL),
        date + 10);
    assert_int_equal(
        testdb_q_int(f->ro, "SELECT count(*) FROM tasks WHERE deleted_at IS NULL", NULL), 0);
    assert_int_equal(testdb_q_int(f->ro, "SELECT count(*) FROM attempts", NULL), 4);

    char rv[K8S_RV_MAX];
    assert_int_equal(store_k8s_watch_get(s, "pods", rv, sizeof rv), ERR_NOTFOUND);
    assert_int_equal(store_k8s_watch_set(s, "pods", "123", date), ERR_OK);
    assert_int_equal(store_k8s_watch_set(s, "pods", "456", date), ERR_OK);
    assert_int_equal(store_k8s_watch_get(s, "pods", rv, sizeof rv), ERR_OK);
    assert_string_equal(rv, "456");
    bool known = false;
    assert_int_equal(store_k8s_job_known(s, "j-0001", &known), ERR_OK);
    assert_true(known);
    assert_int_equal(store_k8s_job_known(s, "nope", &known), ERR_OK);
    assert_false(known);
}

/* --- the shared scenario: EXPECTED.md from stored rows ----------------------- */

struct att {
    char name[64];
    int64_t started, finished, lost, end;
    bool interrupted, succeeded;
    int64_t exit_code;
    char pool[64];
};

static const char *const INTERRUPT_REASONS = "|Evicted|NodeLost|Shutdown|NodeShutdown|Terminated|";

/* Attempts of a task ordered by start, with docs/cost-model.md's lost-at and run end. */
static size_t attempts_of(sqlite3 *db, const char *job_name, struct att *out, size_t cap) {
    sqlite3_stmt *st = NULL;
    const char *sql =
        "SELECT a.name, a.started_at, a.finished_at, a.disruption_at, a.not_ready_at, "
        "a.delete_requested_at, a.deleted_at, a.phase, a.reason, a.exit_code, a.pool_id, "
        "n.k8s_deleted_at FROM attempts a JOIN tasks t ON t.uid = a.task_uid "
        "LEFT JOIN nodes n ON n.name = a.node_name WHERE t.name = ?1 "
        "ORDER BY a.started_at";
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, job_name, -1, SQLITE_TRANSIENT);
    size_t n = 0;
    while (sqlite3_step(st) == SQLITE_ROW && n < cap) {
        struct att *a = &out[n++];
        memset(a, 0, sizeof *a);
        snprintf(a->name, sizeof a->name, "%s", sqlite3_column_text(st, 0));
        a->started = sqlite3_column_int64(st, 1);
        a->finished = sqlite3_column_int64(st, 2);
        int64_t lost = 0;
        int cols[] = {3, 4, 2, 5, 6, 11};
        for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
            int64_t v = sqlite3_column_int64(st, cols[i]);
            if (sqlite3_column_type(st, cols[i]) != SQLITE_NULL && (!lost || v < lost))
                lost = v;
        }
        const char *phase = (const char *)sqlite3_column_text(st, 7);
        const char *reason = (const char *)sqlite3_column_text(st, 8);
        char r[64] = "";
        if (reason)
            snprintf(r, sizeof r, "|%s|", reason);
        a->succeeded = phase && strcmp(phase, "Succeeded") == 0;
        a->interrupted =
            !a->succeeded && (sqlite3_column_type(st, 3) != SQLITE_NULL ||
                              (reason && strstr(INTERRUPT_REASONS, r)) ||
                              (sqlite3_column_type(st, 11) != SQLITE_NULL && a->finished == 0));
        a->exit_code = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 9);
        if (sqlite3_column_text(st, 10))
            snprintf(a->pool, sizeof a->pool, "%s", sqlite3_column_text(st, 10));
        a->lost = a->interrupted ? lost : 0;
        a->end = a->finished ? a->finished : lost;
    }
    sqlite3_finalize(st);
    return n;
}

static void load_scenario(struct store *s, const char *dir, int64_t date) {
    load_list(s, dir, "scenario/NodeList.json", K8S_NODE, date);
    load_list(s, dir, "scenario/JobList.json", K8S_JOB, date);
    /* the paged form of the PodList, then the full one: same rows */
    load_list(s, dir, "scenario/pages/PodList.limit4.page1.json", K8S_POD, date);
    load_list(s, dir, "scenario/pages/PodList.limit4.page2.json", K8S_POD, date);
    load_list(s, dir, "scenario/PodList.json", K8S_POD, date);
    load_list(s, dir, "scenario/EventList.core-v1.json", K8S_EVENT, date);
    load_list(s, dir, "scenario/EventList.events-k8s-io-v1.json", K8S_EVENT, date);
    /* the (older) watch stream replayed after the lists: A1's final state */
    load_watch(s, dir, "watch/pods-watch-stream.ndjson", date);
}

static void test_shared_scenario_expected(void **state) {
    struct testdb_fx *f = *state;
    char dir[1024];
    if (!fx_shared_k8s(dir, sizeof dir))
        return;
    int64_t T = ts("2025-11-04T09:20:00Z");
    load_scenario(f->s, dir, T);
    char *first = dump(f->ro);
    load_scenario(f->s, dir, T + 30); /* duplicates change nothing */
    char *second = dump(f->ro);
    assert_string_equal(first, second);
    free(first);
    free(second);
    sqlite3 *db = f->ro;

    /* Job A: 3 attempts, interrupted, interrupted, succeeded */
    struct att a[8];
    assert_int_equal(attempts_of(db, "transcode-7f3a", a, 8), 3);
    assert_string_equal(a[0].name, "transcode-7f3a-8xk2p");
    assert_string_equal(a[1].name, "transcode-7f3a-q7m4z");
    assert_string_equal(a[2].name, "transcode-7f3a-w2c9d");
    assert_true(a[0].interrupted && a[1].interrupted && a[2].succeeded);
    assert_int_equal(a[0].lost, ts("2025-11-04T09:03:10Z"));
    assert_int_equal(a[1].lost, ts("2025-11-04T09:09:41Z"));
    assert_int_equal(a[0].end - a[0].started, 181);
    assert_int_equal(a[1].end - a[1].started, 747);
    assert_int_equal(a[2].end - a[2].started, 180);
    assert_int_equal(a[1].exit_code, 143);
    assert_int_equal(a[2].exit_code, 0);
    /* restore gaps 70 s and 333 s */
    assert_int_equal(a[1].started - a[0].lost, 70);
    assert_int_equal(a[2].started - a[1].lost, 333);
    /* A2 and A3 overlapped 93 s */
    int64_t from = a[2].started > a[1].started ? a[2].started : a[1].started;
    int64_t to = a[2].end < a[1].end ? a[2].end : a[1].end;
    assert_int_equal(to - from, 93);
    /* pools: spot, then on-demand (A1's node was never seen as a Node object) */
    assert_string_equal(a[1].pool, "6a1f0c2e-3b7d-4c55-9e8a-1d2f3a4b5c6d");
    assert_true(strcmp(a[2].pool, a[1].pool) != 0 && a[2].pool[0]);
    testdb_q_text_is(db, "SELECT outcome || ',' || outcome_reason FROM tasks WHERE name = ?",
                     "transcode-7f3a", "succeeded,CompletionsReached");
    assert_int_equal(testdb_q_int(db, "SELECT completed_at - started_at FROM tasks WHERE name = ?",
                                  "transcode-7f3a"),
                     1095);
    assert_int_equal(
        testdb_q_int(db, "SELECT completed_at FROM tasks WHERE name = ?", "transcode-7f3a"),
        ts("2025-11-04T09:18:15Z"));

    /* Job B: one attempt, 90 s, succeeded, 98 s wall clock */
    assert_int_equal(attempts_of(db, "thumbnail-91c2", a, 8), 1);
    assert_true(a[0].succeeded && !a[0].interrupted);
    assert_int_equal(a[0].end - a[0].started, 90);
    assert_int_equal(testdb_q_int(db, "SELECT completed_at - started_at FROM tasks WHERE name = ?",
                                  "thumbnail-91c2"),
                     98);

    /* Job C: two app failures, then an interruption; failed BackoffLimitExceeded */
    assert_int_equal(attempts_of(db, "ingest-5d0e", a, 8), 3);
    assert_false(a[0].interrupted || a[1].interrupted);
    assert_true(a[2].interrupted);
    assert_int_equal(a[0].exit_code, 1);
    assert_int_equal(a[1].exit_code, 1);
    assert_int_equal(a[2].exit_code, 143);
    assert_int_equal(a[0].end - a[0].started, 15);
    assert_int_equal(a[1].end - a[1].started, 19);
    assert_int_equal(a[2].end - a[2].started, 23);
    assert_int_equal(a[2].lost, ts("2025-11-04T09:17:21Z"));
    assert_int_equal(a[1].started - a[0].end, 17);
    assert_int_equal(a[2].started - a[1].end, 30);
    char want[64];
    snprintf(want, sizeof want, "failed,BackoffLimitExceeded,%lld",
             (long long)ts("2025-11-04T09:17:22Z"));
    testdb_q_text_is(db,
                     "SELECT outcome || ',' || outcome_reason || ',' || completed_at FROM tasks "
                     "WHERE name = ?",
                     "ingest-5d0e", want);
    assert_int_equal(
        testdb_q_int(db, "SELECT backoff_limit FROM tasks WHERE name = ?", "ingest-5d0e"), 2);

    /* reclaim timeline evidence: S1's deletion from its events, S2's NotReady */
    assert_int_equal(
        testdb_q_int(db, "SELECT k8s_deleted_at FROM nodes WHERE name = ?", "spot-pool-k3v9a"),
        ts("2025-11-04T09:03:12Z"));
    assert_int_equal(
        testdb_q_int(db, "SELECT not_ready_at FROM nodes WHERE name = ?", "spot-pool-k3v9f"),
        ts("2025-11-04T09:09:41Z"));
    assert_int_equal(
        testdb_q_int(db, "SELECT ready_at FROM nodes WHERE name = ?", "spot-pool-k3wb2"),
        ts("2025-11-04T09:16:52Z"));
    assert_true(testdb_q_int(db,
                             "SELECT count(*) FROM events WHERE reason IN ('TaintManagerEviction', "
                             "'DeletingNode', 'RemovingNode', 'NodeNotReady')",
                             NULL) >= 7);
}

/* ---- cost model v2 (docs/cost-model.md), issue 16 ------------------------------ */

/* Item 2, end of an attempt: a pod scheduled 10:00:05 on a partitioned node gets
 * a deletionTimestamp of 10:15:30 (request 10:15:00 + grace 30 s); its kubelet
 * keeps it running; the API removes it at 10:16:36 (the DELETED event's source
 * time). It holds 10:00:05 -> 10:16:36 = 991 s; v1 ended it at its
 * deletionTimestamp: 10:00:05 -> 10:15:30 = 925 s. */
static void test_v2_removal_not_request(void **state) {
    struct testdb_fx *f = *state;
    char pod[2048];
    snprintf(
        pod, sizeof pod, POD_HEAD,
        ",\"deletionTimestamp\":\"2026-03-02T10:15:30Z\",\"deletionGracePeriodSeconds\":30",
        "{\"phase\":\"Running\",\"conditions\":[{\"type\":\"PodScheduled\",\"status\":"
        "\"True\",\"lastTransitionTime\":\"2026-03-02T10:00:05Z\"}],\"containerStatuses\":"
        "[{\"name\":\"m\",\"state\":{\"running\":{\"startedAt\":\"2026-03-02T10:01:00Z\"}}}]}");
    put_pod_json(f->s, pod, 0, ts("2026-03-02T10:15:00Z"));
    put_pod_json(f->s, pod, ts("2026-03-02T10:16:36Z"), ts("2026-03-02T10:16:36Z"));
    assert_int_equal(testdb_q_int(f->ro, "SELECT deleted_at FROM attempts WHERE uid = 'px'", NULL),
                     ts("2026-03-02T10:16:36Z"));
    assert_int_equal(
        testdb_q_int(f->ro, "SELECT delete_requested_at FROM attempts WHERE uid = 'px'", NULL),
        ts("2026-03-02T10:15:00Z"));
    struct store_cost_data *d = NULL;
    assert_int_equal(store_cost_load_task(f->s, "jx", NULL, &d), ERR_OK);
    assert_int_equal(d->in.n_attempts, 1);
    struct cost_query q = {.from = ts("2026-03-02T00:00:00Z"),
                           .to = ts("2026-03-03T00:00:00Z"),
                           .now = ts("2026-03-03T00:00:00Z"),
                           .want_attempts = true};
    struct cost_result *r = NULL;
    assert_int_equal(cost_compute(&d->in, &q, &r), ERR_OK);
    assert_int_equal(r->attempts[0].end - r->attempts[0].start, 991);
    cost_result_free(r);
    store_cost_free(d);
}

#define POD_FMT                                                                                    \
    "{\"metadata\":{\"uid\":\"%s\",\"name\":\"%s\",\"namespace\":\"ml\","                          \
    "\"creationTimestamp\":\"2026-03-02T10:00:00Z\",\"labels\":{"                                  \
    "\"batch.kubernetes.io/controller-uid\":\"jq\","                                               \
    "\"batch.kubernetes.io/job-completion-index\":\"0\"}},\"spec\":{\"nodeName\":\"n1\"},"         \
    "\"status\":{\"phase\":\"Succeeded\",\"containerStatuses\":[{\"name\":\"m\",\"state\":"        \
    "{\"terminated\":{\"exitCode\":0,\"startedAt\":\"2026-03-02T10:01:00Z\","                      \
    "\"finishedAt\":\"2026-03-02T10:%s:00Z\"}}}]}}"

#define NODE_FMT                                                                                   \
    "{\"metadata\":{\"uid\":\"nu\",\"name\":\"n1\",\"creationTimestamp\":"                         \
    "\"2026-03-02T09:00:00Z\"},\"status\":{\"conditions\":[{\"type\":\"Ready\","                   \
    "\"status\":\"%s\",\"lastTransitionTime\":\"2026-03-02T%s:00Z\"}]}}"

/* Item 11, an Indexed Job's per-index completion: the Job (created 10:00:00) is
 * first seen with index 0 completed on a watch stream whose Date (its start) is
 * 09:50:00, before the Job existed; its pod for index 0 finished at 10:30:00.
 * The index completed at 10:30:00, its pod's finish (v1 kept the earliest
 * estimate: 09:50:00). A second succeeded pod of index 0 finishing 10:45:00
 * does not move it (the first to finish wins). */
static void test_v2_index_completion_time(void **state) {
    struct testdb_fx *f = *state;
    const char *job = "{\"metadata\":{\"uid\":\"jq\",\"name\":\"q\",\"namespace\":\"ml\","
                      "\"creationTimestamp\":\"2026-03-02T10:00:00Z\"},\"spec\":{\"completions\":2,"
                      "\"completionMode\":\"Indexed\"},\"status\":{\"completedIndexes\":\"0\"}}";
    put_json(f->s, job, K8S_JOB, 0, ts("2026-03-02T09:50:00Z"));
    char pod[2048];
    snprintf(pod, sizeof pod, POD_FMT, "q0a", "q0a", "30");
    put_json(f->s, pod, K8S_POD, 0, ts("2026-03-02T10:40:00Z"));
    put_json(f->s, job, K8S_JOB, 0, ts("2026-03-02T10:41:00Z"));
    assert_int_equal(testdb_q_int(f->ro, "SELECT completed_at FROM tasks WHERE uid = 'jq/0'", NULL),
                     ts("2026-03-02T10:30:00Z"));
    snprintf(pod, sizeof pod, POD_FMT, "q0b", "q0b", "45");
    put_json(f->s, pod, K8S_POD, 0, ts("2026-03-02T10:50:00Z"));
    put_json(f->s, job, K8S_JOB, 0, ts("2026-03-02T10:51:00Z"));
    assert_int_equal(testdb_q_int(f->ro, "SELECT completed_at FROM tasks WHERE uid = 'jq/0'", NULL),
                     ts("2026-03-02T10:30:00Z"));
}

/* Decision 2: a non-Indexed Job with completions 3 is stored with its N. */
static void test_v2_completions_stored(void **state) {
    struct testdb_fx *f = *state;
    put_json(f->s,
             "{\"metadata\":{\"uid\":\"jn\",\"name\":\"n\",\"namespace\":\"ml\"},"
             "\"spec\":{\"completions\":3},\"status\":{}}",
             K8S_JOB, 0, 100);
    assert_int_equal(testdb_q_int(f->ro, "SELECT completions FROM tasks WHERE uid = 'jn'", NULL),
                     3);
}

/* Item 12 (NotReady): every spell of a node is kept and loaded: NotReady 10:10,
 * Ready 10:11, NotReady 11:00 -> spells {10:10, 10:11} and {11:00, open}. */
static void test_v2_every_not_ready_spell(void **state) {
    struct testdb_fx *f = *state;
    const char *seq[][2] = {
        {"True", "09:01"}, {"False", "10:10"}, {"True", "10:11"}, {"False", "11:00"}};
    for (int i = 0; i < 4; i++) {
        char node[1024];
        snprintf(node, sizeof node, NODE_FMT, seq[i][0], seq[i][1]);
        put_json(f->s, node, K8S_NODE, 0, 1000 + i);
    }
    struct store_cost_data *d = NULL;
    assert_int_equal(
        store_cost_load(f->s, ts("2026-03-02T00:00:00Z"), ts("2026-03-03T00:00:00Z"), NULL, &d),
        ERR_OK);
    assert_int_equal(d->in.n_nodes, 1);
    assert_int_equal(d->nodes[0].n_spells, 2);
    assert_int_equal(d->nodes[0].spells[0], ts("2026-03-02T10:10:00Z"));
    assert_int_equal(d->nodes[0].spells[1], ts("2026-03-02T10:11:00Z"));
    assert_int_equal(d->nodes[0].spells[2], ts("2026-03-02T11:00:00Z"));
    assert_int_equal(d->nodes[0].spells[3], 0);
    store_cost_free(d);
}

/* Item 7, Spot detection from the Kubernetes Node's labels: pool p-lab was
 * recorded on-demand from DigitalOcean (size gpu-x, no spot label there), but its
 * node carries gpu-pool-type=spot: the cost engine sees a spot pool (v1 read
 * only the pool's capacity_type: on-demand). */
static void test_v2_spot_from_node_labels(void **state) {
    struct testdb_fx *f = *state;
    char *err = NULL;
    assert_int_equal(sqlite3_exec(store_db(f->s),
                                  "INSERT INTO node_pools(id, name, size, capacity_type, "
                                  "first_seen, last_seen) VALUES ('p-lab', 'lab', 'gpu-x', "
                                  "'on-demand', 1, 1), ('p-od', 'od', 'gpu-x', 'on-demand', 1, 1)",
                                  NULL, NULL, &err),
                     SQLITE_OK);
    put_json(f->s,
             "{\"metadata\":{\"uid\":\"nl\",\"name\":\"nl\",\"creationTimestamp\":"
             "\"2026-03-02T09:00:00Z\",\"labels\":{\"doks.digitalocean.com/node-pool-id\":"
             "\"p-lab\",\"gpu-pool-type\":\"spot\"}},\"status\":{\"conditions\":[{\"type\":"
             "\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"2026-03-02T09:01:00Z\"}]}}",
             K8S_NODE, 0, 100);
    struct store_cost_data *d = NULL;
    assert_int_equal(
        store_cost_load(f->s, ts("2026-03-02T00:00:00Z"), ts("2026-03-03T00:00:00Z"), NULL, &d),
        ERR_OK);
    assert_int_equal(d->in.n_pools, 2);
    assert_string_equal(d->pools[0].id, "p-lab");
    assert_int_equal(d->pools[0].capacity, COST_CAP_SPOT);
    assert_int_equal(d->pools[1].capacity, COST_CAP_ON_DEMAND);
    store_cost_free(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_own_rows, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_idempotent, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_older_never_erases, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_vanished_and_watch_state, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_shared_scenario_expected, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_removal_not_request, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_index_completion_time, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_completions_stored, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_every_not_ready_spell, setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_v2_spot_from_node_labels, setup, testdb_fx_teardown),
    };
    return cmocka_run_group_tests_name("store_k8s", tests, NULL, NULL);
}
