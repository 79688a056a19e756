/* store_k8s — SQL for Kubernetes observations. The merge rules of store_k8s.h
 * live in the ON CONFLICT clauses below: in an upsert, bare column names are the
 * stored row and excluded.* the new values, and every SET expression sees the
 * stored row's old values (sqlite.org/lang_upsert.html). */
#include "store/store_k8s.h"

#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "store/store_internal.h"

/* earliest / latest of the stored and the new value, NULL meaning unknown */
#define MIN_KNOWN(c) c " = MIN(COALESCE(" c ", excluded." c "), COALESCE(excluded." c ", " c "))"
#define MAX_KNOWN(c) c " = MAX(COALESCE(" c ", excluded." c "), COALESCE(excluded." c ", " c "))"
#define KEEP_NEW(c) c " = COALESCE(excluded." c ", " c ")"
#define KEEP_OLD(c) c " = COALESCE(" c ", excluded." c ")"

#define PHASE_RANK(p)                                                                              \
    "(CASE " p " WHEN 'Pending' THEN 1 WHEN 'Running' THEN 2 WHEN 'Succeeded' THEN 3 "             \
    "WHEN 'Failed' THEN 3 ELSE 0 END)"
#define REPORT_RANK(r) "(CASE " r " WHEN 'ok' THEN 2 WHEN 'bad' THEN 1 ELSE 0 END)"
#define REPORT_TAKES_NEW                                                                           \
    REPORT_RANK("excluded.report_status")                                                          \
    " >= " REPORT_RANK("report_status") " AND excluded.report_status != 'none'"
#define REPORT_FIELD(c) c " = CASE WHEN " REPORT_TAKES_NEW " THEN excluded." c " ELSE " c " END"

#define FAR "9223372036854775807"
/* attempts.not_ready_at from its evidence (store_k8s.h) */
#define NOT_READY_EXPR                                                                             \
    "NULLIF(MIN(COALESCE(not_ready_at, " FAR "), "                                                 \
    "COALESCE((SELECT MIN(e.first_at) FROM events e WHERE e.object_uid = attempts.uid "            \
    "AND e.object_kind = 'Pod' AND e.reason = 'NodeNotReady'), " FAR "), "                         \
    "COALESCE((SELECT MIN(c.at) FROM node_conditions c WHERE c.node_name = attempts.node_name "    \
    "AND c.status != 'True' AND c.at >= COALESCE(attempts.scheduled_at, attempts.created_at) "     \
    "AND (attempts.finished_at IS NULL OR c.at <= attempts.finished_at)), " FAR ")), " FAR ")"

/* the first finish of a succeeded pod of task uid u (an index's completion) */
#define INDEX_FINISH(u)                                                                            \
    "(SELECT MIN(a.finished_at) FROM attempts a WHERE a.task_uid = " u " AND a.phase = "           \
    "'Succeeded')"

// clang-format off
static const char SQL_TASK_UPSERT[] =
    "INSERT INTO tasks(uid, job_uid, completion_index, namespace, name, configuration, "
    "experiment, created_at, started_at, completed_at, outcome, outcome_reason, backoff_limit, "
    "active_deadline, ttl_after_finished, has_pod_failure_policy, pfp_ignores_disruption, "
    "spec_json, deleted_at, first_seen, last_seen, completions, cluster) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
    "CASE WHEN ?11 = 'succeeded' AND ?21 THEN COALESCE(" INDEX_FINISH("?1") ", ?10) ELSE ?10 END, "
    "?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?20, ?22, :cluster) "
    "ON CONFLICT(uid) DO UPDATE SET "
    KEEP_NEW("configuration") ", "
    KEEP_NEW("experiment") ", "
    KEEP_OLD("created_at") ", "
    MIN_KNOWN("started_at") ", "
    /* an index's completion is its first succeeded pod's finish once known */
    "completed_at = COALESCE(CASE WHEN excluded.completion_index IS NOT NULL "
    "AND excluded.outcome = 'succeeded' THEN " INDEX_FINISH("excluded.uid") " END, "
    "MIN(COALESCE(completed_at, excluded.completed_at), "
    "COALESCE(excluded.completed_at, completed_at))), "
    KEEP_NEW("completions") ", "
    "outcome_reason = CASE WHEN outcome = 'running' THEN excluded.outcome_reason "
    "ELSE COALESCE(outcome_reason, excluded.outcome_reason) END, "
    "outcome = CASE WHEN outcome = 'running' THEN excluded.outcome ELSE outcome END, "
    KEEP_NEW("backoff_limit") ", "
    KEEP_NEW("active_deadline") ", "
    KEEP_NEW("ttl_after_finished") ", "
    KEEP_NEW("has_pod_failure_policy") ", "
    KEEP_NEW("pfp_ignores_disruption") ", "
    KEEP_NEW("spec_json") ", "
    MIN_KNOWN("deleted_at") ", "
    "last_seen = MAX(last_seen, excluded.last_seen)";

static const char SQL_TASK_PLACEHOLDER[] =
    "INSERT OR IGNORE INTO tasks(uid, job_uid, completion_index, namespace, name, first_seen, "
    "last_seen, cluster) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, :cluster)";

/* an index task that succeeded: its completion is its first succeeded pod's
 * finish (replacing an estimate from the time the index was seen complete) */
static const char SQL_TASK_INDEX_DONE[] =
    "UPDATE tasks SET completed_at = " INDEX_FINISH("?1") " WHERE uid = ?1 "
    "AND outcome = 'succeeded' AND " INDEX_FINISH("?1") " IS NOT NULL";

static const char SQL_ATTEMPT_UPSERT[] =
    "INSERT INTO attempts(uid, task_uid, job_uid, completion_index, namespace, name, node_name, "
    "pool_id, gpu_request, cpu_request_milli, created_at, scheduled_at, started_at, finished_at, "
    "deleted_at, delete_requested_at, phase, reason, exit_code, disruption_at, disruption_reason, "
    "report_status, report_work_seconds, report_restore_seconds, report_checkpoint_seconds, "
    "first_seen, last_seen, terminal_seen_at, cluster) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, (SELECT n.pool_id FROM nodes n WHERE n.name = ?7), ?8, "
    "?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?25, "
    "?26, :cluster) "
    "ON CONFLICT(uid) DO UPDATE SET "
    KEEP_OLD("node_name") ", "
    KEEP_OLD("pool_id") ", "
    KEEP_OLD("job_uid") ", "
    KEEP_OLD("completion_index") ", "
    KEEP_NEW("gpu_request") ", "
    KEEP_NEW("cpu_request_milli") ", "
    KEEP_OLD("created_at") ", "
    MIN_KNOWN("scheduled_at") ", "
    MIN_KNOWN("started_at") ", "
    MAX_KNOWN("finished_at") ", "
    MIN_KNOWN("deleted_at") ", "
    MIN_KNOWN("delete_requested_at") ", "
    MIN_KNOWN("terminal_seen_at") ", "
    "phase = CASE WHEN " PHASE_RANK("excluded.phase") " >= " PHASE_RANK("phase")
    " THEN COALESCE(excluded.phase, phase) ELSE phase END, "
    KEEP_NEW("reason") ", "
    KEEP_NEW("exit_code") ", "
    "disruption_reason = CASE WHEN disruption_at IS NULL OR (excluded.disruption_at IS NOT NULL "
    "AND excluded.disruption_at < disruption_at) "
    "THEN COALESCE(excluded.disruption_reason, disruption_reason) ELSE disruption_reason END, "
    MIN_KNOWN("disruption_at") ", "
    REPORT_FIELD("report_work_seconds") ", "
    REPORT_FIELD("report_restore_seconds") ", "
    REPORT_FIELD("report_checkpoint_seconds") ", "
    "report_status = CASE WHEN " REPORT_TAKES_NEW " THEN excluded.report_status "
    "ELSE COALESCE(report_status, excluded.report_status) END, "
    "last_seen = MAX(last_seen, excluded.last_seen)";

static const char SQL_ATTEMPT_NOT_READY_ONE[] =
    "UPDATE attempts SET not_ready_at = " NOT_READY_EXPR " WHERE uid = ?1";
static const char SQL_ATTEMPT_NOT_READY_NODE[] =
    "UPDATE attempts SET not_ready_at = " NOT_READY_EXPR " WHERE node_name = ?1";

static const char SQL_NODE_UPSERT[] =
    "INSERT INTO nodes(name, k8s_uid, pool_id, droplet_id, created_at, ready_at, k8s_deleted_at, "
    "not_ready_at, cordoned_at, unschedulable, ready_status, ready_since, gpu_allocatable, "
    "cpu_allocatable_milli, labels_json, first_seen, last_seen, cluster) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?16, "
    ":cluster) "
    "ON CONFLICT(name) DO UPDATE SET "
    KEEP_NEW("k8s_uid") ", "
    KEEP_OLD("pool_id") ", "
    KEEP_OLD("droplet_id") ", "
    KEEP_OLD("created_at") ", "
    MIN_KNOWN("ready_at") ", "
    MIN_KNOWN("k8s_deleted_at") ", "
    MIN_KNOWN("not_ready_at") ", "
    MIN_KNOWN("cordoned_at") ", "
    "unschedulable = CASE WHEN ready_since IS NULL OR excluded.ready_since IS NULL "
    "OR excluded.ready_since >= ready_since THEN excluded.unschedulable ELSE unschedulable END, "
    "ready_status = CASE WHEN ready_since IS NULL OR excluded.ready_since >= ready_since "
    "THEN COALESCE(excluded.ready_status, ready_status) ELSE ready_status END, "
    MAX_KNOWN("ready_since") ", "
    KEEP_NEW("gpu_allocatable") ", "
    KEEP_NEW("cpu_allocatable_milli") ", "
    KEEP_NEW("labels_json") ", "
    "last_seen = MAX(last_seen, excluded.last_seen)";

/* evidence about a node from events only: create a bare row if needed */
static const char SQL_NODE_EVIDENCE[] =
    "INSERT INTO nodes(name, k8s_deleted_at, not_ready_at, ready_at, first_seen, last_seen, "
    "cluster) VALUES (?1, ?2, ?3, ?4, ?5, ?5, :cluster) ON CONFLICT(name) DO UPDATE SET "
    MIN_KNOWN("k8s_deleted_at") ", "
    MIN_KNOWN("not_ready_at") ", "
    MIN_KNOWN("ready_at");

static const char SQL_NODE_CONDITION[] =
    "INSERT OR IGNORE INTO node_conditions(node_name, status, at, origin, first_seen) "
    "VALUES (?1, ?2, ?3, ?4, ?5)";

/* a node seen for the first time fills in the pool of attempts that ran there */
static const char SQL_ATTEMPT_POOL_FILL[] =
    "UPDATE attempts SET pool_id = ?2 WHERE node_name = ?1 AND pool_id IS NULL";

static const char SQL_EVENT_UPSERT[] =
    "INSERT INTO events(uid, namespace, object_kind, object_name, object_uid, object_namespace, "
    "source, reason, message, type, first_at, last_at, count, first_seen, cluster) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, :cluster) "
    "ON CONFLICT(uid) DO UPDATE SET "
    MIN_KNOWN("first_at") ", "
    MAX_KNOWN("last_at") ", "
    KEEP_NEW("message") ", "
    "count = MAX(COALESCE(count, 0), COALESCE(excluded.count, 0))";
// clang-format on

static const char SQL_JOB_KNOWN[] = "SELECT 1 FROM tasks WHERE job_uid = ?1 LIMIT 1";

static const char SQL_SEEN_CREATE[] =
    "CREATE TEMP TABLE IF NOT EXISTS k8s_seen (kind TEXT NOT NULL, uid TEXT NOT NULL, "
    "PRIMARY KEY (kind, uid))";
static const char SQL_SEEN_CLEAR[] = "DELETE FROM temp.k8s_seen WHERE kind = ?1";
static const char SQL_SEEN_ADD[] = "INSERT OR IGNORE INTO temp.k8s_seen(kind, uid) VALUES (?1, ?2)";
/* a relist speaks for its own cluster only (schema/009): another cluster's rows
 * are never marked deleted by it */
static const char SQL_VANISH_JOB[] =
    "UPDATE tasks SET deleted_at = ?2 WHERE deleted_at IS NULL AND (?1 IS NULL OR namespace = ?1) "
    "AND cluster = :cluster "
    "AND job_uid NOT IN (SELECT uid FROM temp.k8s_seen WHERE kind = 'job')";
static const char SQL_VANISH_POD[] =
    "UPDATE attempts SET deleted_at = ?2 WHERE deleted_at IS NULL AND (?1 IS NULL OR namespace = "
    "?1) AND cluster = :cluster "
    "AND uid NOT IN (SELECT uid FROM temp.k8s_seen WHERE kind = 'pod')";
static const char SQL_VANISH_PDB[] =
    "UPDATE pdbs SET deleted_at = ?2 WHERE deleted_at IS NULL AND (?1 IS NULL OR namespace = ?1) "
    "AND cluster = :cluster "
    "AND uid NOT IN (SELECT uid FROM temp.k8s_seen WHERE kind = 'pdb')";
static const char SQL_VANISH_NODE[] =
    "UPDATE nodes SET k8s_deleted_at = ?2 WHERE k8s_deleted_at IS NULL AND k8s_uid IS NOT NULL "
    "AND (?1 IS NULL OR 1) AND cluster = :cluster "
    "AND k8s_uid NOT IN (SELECT uid FROM temp.k8s_seen WHERE kind = 'node')";

static const char SQL_WATCH_GET[] =
    "SELECT resource_version FROM watch_state WHERE resource = ?1 AND cluster = ?2";
static const char SQL_WATCH_SET[] =
    "INSERT INTO watch_state(resource, resource_version, updated_at, cluster) "
    "VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT(cluster, resource) DO UPDATE SET resource_version = excluded.resource_version, "
    "updated_at = excluded.updated_at";

static const char *nz(const char *s) {
    return s && *s ? s : NULL;
}

static int64_t deletion_of(const struct k8s_meta *m, int64_t deleted_at) {
    return m->deletion_at ? m->deletion_at : deleted_at;
}

/* --- tasks ------------------------------------------------------------------- */

static enum err put_task(struct store *s, const struct k8s_job *j, const char *uid, int64_t index,
                         enum k8s_outcome outcome, const char *reason, int64_t completed_at,
                         int64_t deleted_at, int64_t seen_at) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_TASK_UPSERT, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, uid);
    store_bind_text(st, 2, j->meta.uid);
    store_bind_opt_int(st, 3, index);
    store_bind_text(st, 4, j->meta.ns);
    store_bind_text(st, 5, j->meta.name);
    store_bind_text(st, 6, nz(j->configuration));
    store_bind_text(st, 7, nz(j->experiment));
    store_bind_time(st, 8, j->meta.created_at);
    store_bind_time(st, 9, j->started_at);
    store_bind_time(st, 10, outcome == K8S_RUNNING ? 0 : completed_at);
    store_bind_text(st, 11, k8s_outcome_name(outcome));
    store_bind_text(st, 12, outcome == K8S_RUNNING ? NULL : nz(reason));
    store_bind_opt_int(st, 13, j->backoff_limit);
    store_bind_opt_int(st, 14, j->active_deadline);
    store_bind_opt_int(st, 15, j->ttl_after_finished);
    sqlite3_bind_int(st, 16, j->has_pod_failure_policy);
    sqlite3_bind_int(st, 17, j->pfp_ignores_disruption);
    store_bind_text(st, 18, j->spec_json);
    store_bind_time(st, 19, deletion_of(&j->meta, deleted_at));
    sqlite3_bind_int64(st, 20, seen_at);
    sqlite3_bind_int(st, 21, index >= 0);
    store_bind_opt_int(st, 22,
                       index < 0 && !j->indexed && j->completions > 1 ? j->completions : -1);
    return store_exec_stmt(s, st);
}

enum err store_k8s_put_job(struct store *s, const struct k8s_job *j, int64_t deleted_at,
                           int64_t seen_at) {
    if (!j->meta.uid[0])
        return ERR_INVAL;
    if (!j->indexed || j->completions <= 0)
        return put_task(s, j, j->meta.uid, -1, j->outcome, j->outcome_reason, j->completed_at,
                        deleted_at, seen_at);
    int64_t n = j->completions;
    if (n > STORE_K8S_MAX_INDEXES) {
        log_msg(LOG_WARN, "store: job '%s/%s' has %lld completions, recording the first %d",
                j->meta.ns, j->meta.name, (long long)n, STORE_K8S_MAX_INDEXES);
        n = STORE_K8S_MAX_INDEXES;
    }
    for (int64_t i = 0; i < n; i++) {
        char uid[K8S_UID_MAX + 24];
        snprintf(uid, sizeof uid, "%s/%lld", j->meta.uid, (long long)i);
        enum k8s_outcome oc = K8S_RUNNING;
        const char *reason = NULL;
        int64_t at = 0;
        if (j->outcome == K8S_SUCCEEDED || k8s_index_set_contains(j->completed_indexes, i)) {
            oc = K8S_SUCCEEDED;
            reason = j->outcome == K8S_SUCCEEDED ? j->outcome_reason : "IndexSucceeded";
            at = j->outcome == K8S_SUCCEEDED ? j->completed_at : seen_at;
        } else if (k8s_index_set_contains(j->failed_indexes, i)) {
            oc = K8S_FAILED;
            reason = "FailedIndex";
            at = j->outcome == K8S_FAILED ? j->completed_at : seen_at;
        } else if (j->outcome == K8S_FAILED) {
            oc = K8S_FAILED;
            reason = j->outcome_reason;
            at = j->completed_at;
        }
        if (!at)
            at = seen_at;
        if (at < j->meta.created_at) /* a stream's Date can precede the Job */
            at = j->meta.created_at;
        enum err rc = put_task(s, j, uid, i, oc, reason, at, deleted_at, seen_at);
        if (rc != ERR_OK)
            return rc;
    }
    return ERR_OK;
}

/* --- attempts ---------------------------------------------------------------- */

static enum err refresh_not_ready(struct store *s, const char *sql, const char *key) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, sql, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, key);
    return store_exec_stmt(s, st);
}

enum err store_k8s_put_pod(struct store *s, const struct k8s_pod *p, int64_t deleted_at,
                           int64_t seen_at) {
    if (!p->meta.uid[0] || !p->job_uid[0])
        return ERR_INVAL;
    char task[K8S_UID_MAX + 24];
    if (p->completion_index >= 0)
        snprintf(task, sizeof task, "%s/%lld", p->job_uid, (long long)p->completion_index);
    else
        snprintf(task, sizeof task, "%s", p->job_uid);

    /* the task may not be known yet (watch threads race, or the Job is gone) */
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_TASK_PLACEHOLDER, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, task);
    store_bind_text(st, 2, p->job_uid);
    store_bind_opt_int(st, 3, p->completion_index);
    store_bind_text(st, 4, p->meta.ns);
    store_bind_text(st, 5, p->job_name[0] ? p->job_name : p->meta.name);
    sqlite3_bind_int64(st, 6, seen_at);
    if ((rc = store_exec_stmt(s, st)) != ERR_OK)
        return rc;

    if ((rc = store_stmt(s, SQL_ATTEMPT_UPSERT, &st)) != ERR_OK)
        return rc;
    /* the pod's removal (DELETED event / relist absence, source time); its
     * deletionTimestamp is a request + grace period, never an end */
    int64_t latest = p->meta.created_at; /* the latest time the pod object carries */
    int64_t own[3] = {p->scheduled_at, p->started_at, p->finished_at};
    for (int k = 0; k < 3; k++)
        if (own[k] > latest)
            latest = own[k];
    int64_t requested = 0;
    if (p->meta.deletion_at)
        requested = p->meta.deletion_at - (p->meta.deletion_grace > 0 ? p->meta.deletion_grace : 0);
    else
        requested = deleted_at;
    /* a stream's Date (its start) can precede what the object shows, and a
     * removal never precedes its own request: raise it to both */
    int64_t deleted = deleted_at;
    if (deleted && deleted < latest)
        deleted = latest;
    if (deleted && deleted < requested)
        deleted = requested;
    store_bind_text(st, 1, p->meta.uid);
    store_bind_text(st, 2, task);
    store_bind_text(st, 3, p->job_uid);
    store_bind_opt_int(st, 4, p->completion_index);
    store_bind_text(st, 5, p->meta.ns);
    store_bind_text(st, 6, p->meta.name);
    store_bind_text(st, 7, nz(p->node_name));
    sqlite3_bind_int64(st, 8, p->gpu_request);
    sqlite3_bind_int64(st, 9, p->cpu_request_milli);
    store_bind_time(st, 10, p->meta.created_at);
    store_bind_time(st, 11, p->scheduled_at);
    store_bind_time(st, 12, p->started_at);
    store_bind_time(st, 13, p->finished_at);
    store_bind_time(st, 14, deleted);
    store_bind_time(st, 15, requested);
    store_bind_text(st, 16, nz(p->phase));
    store_bind_text(st, 17, nz(p->reason));
    if (p->has_exit_code)
        sqlite3_bind_int(st, 18, p->exit_code);
    store_bind_time(st, 19, p->disruption_at);
    store_bind_text(st, 20, nz(p->disruption_reason));
    store_bind_text(st, 21, k8s_report_status_name(p->report_status));
    bool ok = p->report_status == K8S_REPORT_OK;
    store_bind_opt_int(st, 22, ok ? p->report.work_seconds : -1);
    store_bind_opt_int(st, 23, ok ? p->report.restore_seconds : -1);
    store_bind_opt_int(st, 24, ok ? p->report.checkpoint_seconds : -1);
    sqlite3_bind_int64(st, 25, seen_at);
    bool terminal = !strcmp(p->phase, "Succeeded") || !strcmp(p->phase, "Failed");
    store_bind_time(st, 26, terminal ? (seen_at < latest ? latest : seen_at) : 0);
    if ((rc = store_exec_stmt(s, st)) != ERR_OK)
        return rc;
    if ((rc = refresh_not_ready(s, SQL_ATTEMPT_NOT_READY_ONE, p->meta.uid)) != ERR_OK)
        return rc;
    if (p->completion_index >= 0 && p->finished_at && strcmp(p->phase, "Succeeded") == 0) {
        if ((rc = store_stmt(s, SQL_TASK_INDEX_DONE, &st)) != ERR_OK)
            return rc;
        store_bind_text(st, 1, task);
        sqlite3_bind_int64(st, 2, p->finished_at);
        rc = store_exec_stmt(s, st);
    }
    return rc;
}

/* --- nodes ------------------------------------------------------------------- */

static enum err put_condition(struct store *s, const char *node, const char *status, int64_t at,
                              const char *origin, int64_t seen_at) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_NODE_CONDITION, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, node);
    store_bind_text(st, 2, status);
    sqlite3_bind_int64(st, 3, at);
    store_bind_text(st, 4, origin);
    sqlite3_bind_int64(st, 5, seen_at);
    return store_exec_stmt(s, st);
}

/* A node's first NotReady after it registered; a node that boots NotReady (its
 * Ready condition dates from its creation) is not evidence of anything. */
#define NODE_BOOT_GRACE 60

enum err store_k8s_put_node(struct store *s, const struct k8s_node *n, int64_t deleted_at,
                            int64_t seen_at) {
    if (!n->meta.uid[0] || !n->meta.name[0])
        return ERR_INVAL;
    bool ready = strcmp(n->ready_status, "True") == 0;
    bool not_ready = n->ready_status[0] && !ready && n->ready_since &&
                     n->ready_since > n->meta.created_at + NODE_BOOT_GRACE;
    int64_t cordoned = 0;
    if (n->unschedulable)
        cordoned = n->cordoned_at ? n->cordoned_at : seen_at;
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_NODE_UPSERT, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, n->meta.name);
    store_bind_text(st, 2, n->meta.uid);
    store_bind_text(st, 3, nz(n->pool_id));
    store_bind_text(st, 4, nz(n->droplet_id));
    store_bind_time(st, 5, n->meta.created_at);
    store_bind_time(st, 6, ready ? n->ready_since : 0);
    store_bind_time(st, 7, deletion_of(&n->meta, deleted_at));
    store_bind_time(st, 8, not_ready ? n->ready_since : 0);
    store_bind_time(st, 9, cordoned);
    sqlite3_bind_int(st, 10, n->unschedulable);
    store_bind_text(st, 11, nz(n->ready_status));
    store_bind_time(st, 12, n->ready_since);
    store_bind_opt_int(st, 13, n->gpu_allocatable);
    store_bind_opt_int(st, 14, n->cpu_allocatable_milli);
    store_bind_text(st, 15, n->labels_json);
    sqlite3_bind_int64(st, 16, seen_at);
    if ((rc = store_exec_stmt(s, st)) != ERR_OK)
        return rc;
    if (n->pool_id[0]) {
        if ((rc = store_stmt(s, SQL_ATTEMPT_POOL_FILL, &st)) != ERR_OK)
            return rc;
        store_bind_text(st, 1, n->meta.name);
        store_bind_text(st, 2, n->pool_id);
        if ((rc = store_exec_stmt(s, st)) != ERR_OK)
            return rc;
    }
    if (n->ready_status[0] && n->ready_since) {
        if ((rc = put_condition(s, n->meta.name, n->ready_status, n->ready_since, "condition",
                                seen_at)) != ERR_OK)
            return rc;
        if (!ready)
            rc = refresh_not_ready(s, SQL_ATTEMPT_NOT_READY_NODE, n->meta.name);
    }
    return rc;
}

/* --- events ------------------------------------------------------------------ */

static enum err node_evidence(struct store *s, const struct k8s_event *e, int64_t seen_at) {
    const char *r = e->reason;
    bool gone = strcmp(r, "DeletingNode") == 0 || strcmp(r, "RemovingNode") == 0;
    bool down = strcmp(r, "NodeNotReady") == 0;
    bool up = strcmp(r, "NodeReady") == 0;
    if ((!gone && !down && !up) || !e->object_name[0] || !e->first_at)
        return ERR_OK;
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_NODE_EVIDENCE, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, e->object_name);
    store_bind_time(st, 2, gone ? e->first_at : 0);
    store_bind_time(st, 3, down ? e->first_at : 0);
    store_bind_time(st, 4, 0);
    sqlite3_bind_int64(st, 5, seen_at);
    if ((rc = store_exec_stmt(s, st)) != ERR_OK)
        return rc;
    if (gone)
        return ERR_OK;
    if ((rc = put_condition(s, e->object_name, down ? "False" : "True", e->first_at, "event",
                            seen_at)) != ERR_OK)
        return rc;
    return down ? refresh_not_ready(s, SQL_ATTEMPT_NOT_READY_NODE, e->object_name) : ERR_OK;
}

enum err store_k8s_put_event(struct store *s, const struct k8s_event *e, int64_t seen_at) {
    if (!e->meta.uid[0])
        return ERR_INVAL;
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_EVENT_UPSERT, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, e->meta.uid);
    store_bind_text(st, 2, nz(e->meta.ns));
    store_bind_text(st, 3, nz(e->object_kind));
    store_bind_text(st, 4, nz(e->object_name));
    store_bind_text(st, 5, nz(e->object_uid));
    store_bind_text(st, 6, nz(e->object_ns));
    store_bind_text(st, 7, nz(e->source));
    store_bind_text(st, 8, nz(e->reason));
    store_bind_text(st, 9, e->message);
    store_bind_text(st, 10, nz(e->type));
    store_bind_time(st, 11, e->first_at);
    store_bind_time(st, 12, e->last_at);
    sqlite3_bind_int64(st, 13, e->count);
    sqlite3_bind_int64(st, 14, seen_at);
    if ((rc = store_exec_stmt(s, st)) != ERR_OK)
        return rc;
    if (strcmp(e->object_kind, "Node") == 0)
        return node_evidence(s, e, seen_at);
    if (strcmp(e->object_kind, "Pod") == 0 && strcmp(e->reason, "NodeNotReady") == 0 &&
        e->object_uid[0])
        return refresh_not_ready(s, SQL_ATTEMPT_NOT_READY_ONE, e->object_uid);
    return ERR_OK;
}

enum err store_k8s_put(struct store *s, const struct k8s_object *o, int64_t deleted_at,
                       int64_t seen_at) {
    switch (o->kind) {
    case K8S_JOB:
        return store_k8s_put_job(s, &o->u.job, deleted_at, seen_at);
    case K8S_POD:
        return store_k8s_put_pod(s, &o->u.pod, deleted_at, seen_at);
    case K8S_NODE:
        return store_k8s_put_node(s, &o->u.node, deleted_at, seen_at);
    case K8S_EVENT:
        return store_k8s_put_event(s, &o->u.event, seen_at);
    case K8S_PDB:
        return store_k8s_put_pdb(s, &o->u.pdb, deleted_at, seen_at);
    }
    return ERR_INVAL;
}

enum err store_k8s_job_known(struct store *s, const char *job_uid, bool *known) {
    return store_exists(s, SQL_JOB_KNOWN, job_uid, "job_known", known);
}

/* --- relist bookkeeping ------------------------------------------------------ */

static enum err seen_table(struct store *s) {
    char *msg = NULL;
    int r = sqlite3_exec(store_db(s), SQL_SEEN_CREATE, NULL, NULL, &msg);
    if (r != SQLITE_OK) {
        log_msg(LOG_ERROR, "store: k8s_seen failed: %s", msg ? msg : sqlite3_errstr(r));
        sqlite3_free(msg);
        return ERR_DB;
    }
    return ERR_OK;
}

/* store_stmt of a statement over temp.k8s_seen (created first when missing),
 * with ?1 bound to a. */
static enum err seen_stmt(struct store *s, const char *sql, const char *a, sqlite3_stmt **st) {
    enum err rc = seen_table(s);
    if (rc == ERR_OK)
        rc = store_stmt(s, sql, st);
    if (rc == ERR_OK)
        store_bind_text(*st, 1, a);
    return rc;
}

enum err store_k8s_seen_reset(struct store *s, enum k8s_kind kind) {
    sqlite3_stmt *st;
    enum err rc = seen_stmt(s, SQL_SEEN_CLEAR, k8s_kind_name(kind), &st);
    return rc == ERR_OK ? store_exec_stmt(s, st) : rc;
}

enum err store_k8s_seen_add(struct store *s, enum k8s_kind kind, const char *uid) {
    sqlite3_stmt *st;
    enum err rc = seen_stmt(s, SQL_SEEN_ADD, k8s_kind_name(kind), &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 2, uid);
    return store_exec_stmt(s, st);
}

enum err store_k8s_mark_vanished(struct store *s, enum k8s_kind kind, const char *ns, int64_t at,
                                 int64_t *marked) {
    const char *sql = kind == K8S_JOB    ? SQL_VANISH_JOB
                      : kind == K8S_POD  ? SQL_VANISH_POD
                      : kind == K8S_NODE ? SQL_VANISH_NODE
                      : kind == K8S_PDB  ? SQL_VANISH_PDB
                                         : NULL;
    if (!sql || at <= 0) {
        if (marked)
            *marked = 0;
        return ERR_OK;
    }
    sqlite3_stmt *st;
    enum err rc = seen_stmt(s, sql, nz(ns), &st);
    if (rc != ERR_OK)
        return rc;
    sqlite3_bind_int64(st, 2, at);
    if ((rc = store_exec_stmt(s, st)) != ERR_OK)
        return rc;
    if (marked)
        *marked = sqlite3_changes(store_db(s));
    return ERR_OK;
}

/* --- watch state ------------------------------------------------------------- */

enum err store_k8s_watch_get(struct store *s, const char *resource, char *rv, size_t cap) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_WATCH_GET, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, resource);
    store_bind_text(st, 2, store_cluster(s));
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        store_column_copy(st, 0, rv, cap);
        rc = rv[0] ? ERR_OK : ERR_NOTFOUND;
    } else if (r == SQLITE_ROW || r == SQLITE_DONE) {
        rc = ERR_NOTFOUND;
    } else {
        rc = store_fail(s, r, "watch_get");
    }
    sqlite3_reset(st);
    return rc;
}

enum err store_k8s_watch_set(struct store *s, const char *resource, const char *rv, int64_t at) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_WATCH_SET, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, resource);
    store_bind_text(st, 2, nz(rv));
    sqlite3_bind_int64(st, 3, at);
    store_bind_text(st, 4, store_cluster(s));
    return store_exec_stmt(s, st);
}
