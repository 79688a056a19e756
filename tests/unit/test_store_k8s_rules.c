/* test_store_k8s_rules — the store's own rules for Kubernetes objects, each on a
 * hand-built object (no parser) in a temporary database, with the stored row read back
 * through a second connection:
 *   - an object without a uid (a Pod without its Job's) is refused with ERR_INVAL;
 *   - an Indexed Job's indexes: a failed index fails at the time it was seen, a failed
 *     Job fails every index it did not complete, with its own reason and time, and at
 *     most STORE_K8S_MAX_INDEXES indexes are recorded;
 *   - a Pod's removal time is raised to the latest time the object shows and to its
 *     deletion request (deletionTimestamp - grace), never earlier;
 *   - a relist bookkeeping call for Events or with no time marks nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/log.h"
#include "store/store.h"
#include "store/store_k8s.h"
#include "testdb.h"

#define T TESTDB_T0

static int64_t q_int(const struct testdb_fx *f, const char *sql, const char *arg) {
    return testdb_int(&f->db, sql, arg);
}

/* 1 when the task's stored outcome and reason are these. */
static int64_t task_is(const struct testdb_fx *f, const char *uid, const char *outcome,
                       const char *reason) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT outcome = '%s' AND outcome_reason IS '%s' FROM tasks WHERE uid = ?1", outcome,
             reason);
    return q_int(f, sql, uid);
}

static struct k8s_job job(const char *uid, char *spec) {
    struct k8s_job j;
    memset(&j, 0, sizeof j);
    snprintf(j.meta.uid, sizeof j.meta.uid, "%s", uid);
    snprintf(j.meta.name, sizeof j.meta.name, "job-%s", uid);
    snprintf(j.meta.ns, sizeof j.meta.ns, "batch");
    j.meta.created_at = T;
    j.meta.deletion_grace = -1;
    j.backoff_limit = j.active_deadline = j.ttl_after_finished = j.completions = -1;
    j.spec_json = spec;
    return j;
}

static void test_refused_without_uid(void **state) {
    struct testdb_fx *f = *state;
    char spec[] = "{}";
    struct k8s_job j = job("", spec);
    assert_int_equal(store_k8s_put_job(f->s, &j, 0, T), ERR_INVAL);
    struct k8s_pod p;
    memset(&p, 0, sizeof p);
    snprintf(p.meta.uid, sizeof p.meta.uid, "P1"); /* no Job uid */
    assert_int_equal(store_k8s_put_pod(f->s, &p, 0, T), ERR_INVAL);
    struct k8s_node n;
    memset(&n, 0, sizeof n);
    snprintf(n.meta.uid, sizeof n.meta.uid, "N1"); /* no name */
    assert_int_equal(store_k8s_put_node(f->s, &n, 0, T), ERR_INVAL);
    struct k8s_event e;
    memset(&e, 0, sizeof e);
    assert_int_equal(store_k8s_put_event(f->s, &e, T), ERR_INVAL);
    assert_int_equal(q_int(f, "SELECT count(*) FROM tasks", NULL), 0);
    assert_int_equal(q_int(f, "SELECT count(*) FROM attempts", NULL), 0);
    assert_int_equal(q_int(f, "SELECT count(*) FROM nodes", NULL), 0);
    assert_int_equal(q_int(f, "SELECT count(*) FROM events", NULL), 0);
}

/* Indexed Job of 4 completions, still running, seen at T + 500: index 1 completed,
 * index 2 failed (status.failedIndexes). Index 1 succeeds and index 2 fails, both at
 * the time seen (T + 500); 0 and 3 run on. Then the whole Job fails at T + 900
 * (BackoffLimitExceeded): 0 and 3 fail with the Job's reason at T + 900, index 2
 * keeps FailedIndex and its earlier time T + 500 (the store keeps the earliest
 * completion), index 1 stays succeeded. */
static void test_indexed_job_failures(void **state) {
    struct testdb_fx *f = *state;
    char spec[] = "{}", done[] = "1", failed[] = "2";
    struct k8s_job j = job("JX", spec);
    j.indexed = true;
    j.completions = 4;
    j.completed_indexes = done;
    j.failed_indexes = failed;
    assert_int_equal(store_k8s_put_job(f->s, &j, 0, T + 500), ERR_OK);
    const char *at = "SELECT completed_at FROM tasks WHERE uid = ?1";
    assert_int_equal(q_int(f, "SELECT count(*) FROM tasks WHERE job_uid = 'JX'", NULL), 4);
    assert_int_equal(task_is(f, "JX/1", "succeeded", "IndexSucceeded"), 1);
    assert_int_equal(q_int(f, at, "JX/1"), T + 500);
    assert_int_equal(task_is(f, "JX/2", "failed", "FailedIndex"), 1);
    assert_int_equal(q_int(f, at, "JX/2"), T + 500);
    assert_int_equal(q_int(f, "SELECT outcome = 'running' FROM tasks WHERE uid = ?1", "JX/0"), 1);
    assert_int_equal(q_int(f, at, "JX/0"), -1); /* no completion time while running */

    j.outcome = K8S_FAILED;
    j.completed_at = T + 900;
    snprintf(j.outcome_reason, sizeof j.outcome_reason, "BackoffLimitExceeded");
    assert_int_equal(store_k8s_put_job(f->s, &j, 0, T + 950), ERR_OK);
    assert_int_equal(task_is(f, "JX/0", "failed", "BackoffLimitExceeded"), 1);
    assert_int_equal(q_int(f, at, "JX/0"), T + 900);
    assert_int_equal(task_is(f, "JX/3", "failed", "BackoffLimitExceeded"), 1);
    assert_int_equal(q_int(f, at, "JX/3"), T + 900);
    assert_int_equal(task_is(f, "JX/2", "failed", "FailedIndex"), 1);
    assert_int_equal(q_int(f, at, "JX/2"), T + 500); /* a completion never moves later */
    assert_int_equal(task_is(f, "JX/1", "succeeded", "IndexSucceeded"), 1);

    /* JY, first seen already failed at T + 900 with index 1 in failedIndexes: index 1
     * fails (FailedIndex) at the Job's failure time T + 900, not at the time seen
     * (T + 2000); index 0 with the Job's reason, also at T + 900 */
    char failed1[] = "1";
    struct k8s_job y = job("JY", spec);
    y.indexed = true;
    y.completions = 2;
    y.failed_indexes = failed1;
    y.outcome = K8S_FAILED;
    y.completed_at = T + 900;
    snprintf(y.outcome_reason, sizeof y.outcome_reason, "DeadlineExceeded");
    assert_int_equal(store_k8s_put_job(f->s, &y, 0, T + 2000), ERR_OK);
    assert_int_equal(task_is(f, "JY/1", "failed", "FailedIndex"), 1);
    assert_int_equal(q_int(f, at, "JY/1"), T + 900);
    assert_int_equal(task_is(f, "JY/0", "failed", "DeadlineExceeded"), 1);
    assert_int_equal(q_int(f, at, "JY/0"), T + 900);
}

/* completions = STORE_K8S_MAX_INDEXES + 5: the first STORE_K8S_MAX_INDEXES indexes are
 * recorded (0 .. MAX - 1), the last 5 are not. */
static void test_indexes_capped(void **state) {
    struct testdb_fx *f = *state;
    log_set_level(LOG_ERROR); /* the cap logs a warning */
    char spec[] = "{}";
    struct k8s_job j = job("JC", spec);
    j.indexed = true;
    j.completions = STORE_K8S_MAX_INDEXES + 5;
    assert_int_equal(store_begin(f->s), ERR_OK);
    assert_int_equal(store_k8s_put_job(f->s, &j, 0, T + 10), ERR_OK);
    assert_int_equal(store_commit(f->s), ERR_OK);
    assert_int_equal(q_int(f, "SELECT count(*) FROM tasks WHERE job_uid = 'JC'", NULL),
                     STORE_K8S_MAX_INDEXES);
    char last[32];
    snprintf(last, sizeof last, "JC/%d", STORE_K8S_MAX_INDEXES - 1);
    assert_int_equal(q_int(f, "SELECT count(*) FROM tasks WHERE uid = ?1", last), 1);
    snprintf(last, sizeof last, "JC/%d", STORE_K8S_MAX_INDEXES);
    assert_int_equal(q_int(f, "SELECT count(*) FROM tasks WHERE uid = ?1", last), 0);
}

static struct k8s_pod pod(const char *uid) {
    struct k8s_pod p;
    memset(&p, 0, sizeof p);
    snprintf(p.meta.uid, sizeof p.meta.uid, "%s", uid);
    snprintf(p.meta.name, sizeof p.meta.name, "pod-%s", uid);
    snprintf(p.meta.ns, sizeof p.meta.ns, "batch");
    snprintf(p.job_uid, sizeof p.job_uid, "JP");
    snprintf(p.job_name, sizeof p.job_name, "job-jp");
    p.completion_index = -1;
    p.meta.deletion_grace = -1;
    p.gpu_request = 1;
    return p;
}

/* A removal reported before what the object shows is raised to it:
 *   P1 created T, scheduled T + 10, started T + 20, finished T + 700, no deletion
 *      request, removal reported at T + 600 (the stream's Date) -> T + 700 (its finish);
 *   P2 created T, started T + 20, deletionTimestamp T + 1030 with 30 s grace (the
 *      request at T + 1000), removal reported at T + 900 -> T + 1000 (the request). */
static void test_pod_removal_raised(void **state) {
    struct testdb_fx *f = *state;
    struct k8s_pod p1 = pod("P1");
    p1.meta.created_at = T;
    p1.scheduled_at = T + 10;
    p1.started_at = T + 20;
    p1.finished_at = T + 700;
    assert_int_equal(store_k8s_put_pod(f->s, &p1, T + 600, T + 600), ERR_OK);
    const char *del = "SELECT deleted_at FROM attempts WHERE uid = ?1";
    assert_int_equal(q_int(f, del, "P1"), T + 700);

    struct k8s_pod p2 = pod("P2");
    p2.meta.created_at = T;
    p2.started_at = T + 20;
    p2.meta.deletion_at = T + 1030;
    p2.meta.deletion_grace = 30;
    assert_int_equal(store_k8s_put_pod(f->s, &p2, T + 900, T + 900), ERR_OK);
    assert_int_equal(q_int(f, del, "P2"), T + 1000);
    /* the placeholder task both attempts belong to */
    assert_int_equal(q_int(f, "SELECT count(*) FROM attempts WHERE task_uid = ?1", "JP"), 2);
}

/* Relist bookkeeping marks nothing for a kind it does not track (Events) or without a
 * time; *marked says 0. */
static void test_vanished_noop(void **state) {
    struct testdb_fx *f = *state;
    testdb_worked_example(&f->db);
    int64_t marked = -7;
    assert_int_equal(store_k8s_mark_vanished(f->s, K8S_EVENT, NULL, T + 5, &marked), ERR_OK);
    assert_int_equal(marked, 0);
    marked = -7;
    assert_int_equal(store_k8s_mark_vanished(f->s, K8S_JOB, NULL, 0, &marked), ERR_OK);
    assert_int_equal(marked, 0);
    assert_int_equal(q_int(f, "SELECT count(*) FROM tasks WHERE deleted_at IS NOT NULL", NULL), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_refused_without_uid, testdb_fx_setup,
                                        testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_indexed_job_failures, testdb_fx_setup,
                                        testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_indexes_capped, testdb_fx_setup, testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_pod_removal_raised, testdb_fx_setup,
                                        testdb_fx_teardown),
        cmocka_unit_test_setup_teardown(test_vanished_noop, testdb_fx_setup, testdb_fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
