/* store_advice — the advisor's loader (store_advice.h). Read-only queries. */
#include "store/store_advice.h"

#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "base/xalloc.h"

/* the earliest known deletion of a node (k8s or DO), NULL when alive */
#define NODE_DELETED(n)                                                                            \
    "min(coalesce(" n ".k8s_deleted_at, " n ".do_deleted_at), coalesce(" n ".do_deleted_at, " n    \
    ".k8s_deleted_at))"

// clang-format off
static const char SQL_POOLS[] =
    "SELECT id, name, size, cluster_id, capacity_type, auto_scale, min_nodes, max_nodes, "
    "node_count, labels_json, taints_json, price_hourly_micro, deleted_at "
    "FROM node_pools WHERE " STORE_IN_CLUSTERS("cluster") " ORDER BY name, id";

static const char SQL_SIZES[] =
    "SELECT slug, vcpus, memory_mb, gpu_count, gpu_model, gpu_vram_gb FROM sizes ORDER BY slug";

static const char SQL_NODES[] =
    "SELECT n.name, n.pool_id, coalesce(n.capacity_type, p.capacity_type), n.created_at, "
    "n.ready_at, " NODE_DELETED("n") " "
    "FROM nodes n LEFT JOIN node_pools p ON p.id = n.pool_id "
    "WHERE (" NODE_DELETED("n") " IS NULL OR " NODE_DELETED("n") " >= ?1 - 86400) "
    " AND " STORE_IN_CLUSTERS("n.cluster") " "
    "ORDER BY n.name";

static const char SQL_RECLAIMS[] =
    "SELECT pool_id, detected_at, first_signal_at FROM reclaims "
    "WHERE detected_at >= ?1 AND detected_at < ?2 AND " STORE_IN_CLUSTERS("cluster") " "
    "ORDER BY detected_at, pool_id";

/* An attempt ended by a disruption: cost.h "Interrupted" (not succeeded; a
 * DisruptionTarget, a disruption reason, or its node deleted while it held it,
 * a finish in the same second included). */
#define INTERRUPTED                                                                                \
    "(coalesce(a.phase, '') != 'Succeeded' AND (a.disruption_at IS NOT NULL "                      \
    "OR a.reason IN ('Evicted', 'NodeLost', 'Shutdown', 'NodeShutdown', 'Terminated') "            \
    "OR (" NODE_DELETED("nd") " IS NOT NULL AND " NODE_DELETED("nd") " <= "                        \
    "coalesce(min(a.finished_at, a.deleted_at), a.finished_at, a.deleted_at, "                     \
    NODE_DELETED("nd") "))))"

/* ?1 since, ?2 until, ?3 limit + 1 (to tell truncation). ?3 is named before
 * :clusters: a named parameter takes the index after the largest one seen so
 * far in the text, so it would otherwise share index 3 with the limit. */
static const char SQL_JOBS[] =
    "WITH lim(n) AS (SELECT ?3), j AS ("
    " SELECT t.job_uid, min(t.namespace) AS ns, min(t.name) AS name, "
    "  max(t.configuration) AS cfg, max(t.backoff_limit) AS bl, "
    "  max(t.ttl_after_finished) AS ttl, max(coalesce(t.has_pod_failure_policy, 0)) AS hp, "
    "  max(coalesce(t.pfp_ignores_disruption, 0)) AS pi, max(t.spec_json) AS spec, "
    "  count(*) AS tasks, sum(t.outcome = 'failed') AS failed, "
    "  sum(t.outcome = 'running' AND t.deleted_at IS NOT NULL) AS lost, "
    "  max(t.last_seen) AS ls "
    " FROM tasks t "
    " WHERE (t.completed_at IS NULL OR t.completed_at >= ?1) AND t.last_seen >= ?1 "
    "  AND t.first_seen < ?2 AND " STORE_IN_CLUSTERS("t.cluster") " "
    " GROUP BY t.job_uid ORDER BY ls DESC, t.job_uid LIMIT (SELECT n FROM lim)), "
    "a AS ("
    " SELECT t.job_uid, count(a.uid) AS n, sum(" INTERRUPTED ") AS i, "
    "  sum(a.report_checkpoint_seconds IS NOT NULL) AS ck "
    " FROM j JOIN tasks t ON t.job_uid = j.job_uid "
    "  JOIN attempts a ON a.task_uid = t.uid "
    "  LEFT JOIN nodes nd ON nd.name = a.node_name "
    " GROUP BY t.job_uid) "
    "SELECT j.job_uid, j.ns, j.name, j.cfg, j.bl, j.ttl, j.hp, j.pi, j.spec, j.tasks, j.failed, "
    " j.lost, j.ls, coalesce(a.n, 0), coalesce(a.i, 0), coalesce(a.ck, 0) "
    "FROM j LEFT JOIN a ON a.job_uid = j.job_uid ORDER BY j.ns, j.name, j.job_uid";

/* Rows are inserted in time order, so the first row by rowid is (about) the
 * watcher's first sighting: O(1) where min(first_seen) would scan the table.
 * The start expression matches the attempts_start index (002_read_indexes). */
static const char SQL_LAG[] =
    "SELECT max(max(a.first_seen - a.created_at, 0)), count(*) FROM attempts a "
    "WHERE coalesce(a.scheduled_at, a.created_at, a.started_at) >= ?1 "
    " AND coalesce(a.scheduled_at, a.created_at, a.started_at) < ?2 "
    " AND a.created_at IS NOT NULL AND " STORE_IN_CLUSTERS("a.cluster") " "
    " AND a.created_at >= (SELECT first_seen FROM attempts ORDER BY rowid LIMIT 1)";

/* PodDisruptionBudgets alive in [?1, ?2) with a selector spotledger reads, each
 * with the pods (attempts) it selects that held a Spot node in the window: the
 * PDB's namespace, every matchLabels pair equal in the Job's pod template labels
 * (tasks.spec_json "podLabels"; {} selects the whole namespace). */
static const char SQL_PDBS[] =
    "WITH m AS ("
    " SELECT p.uid AS pdb, a.uid AS att, coalesce(a.pool_id, nd.pool_id) AS pool "
    " FROM attempts a JOIN tasks t ON t.uid = a.task_uid "
    "  JOIN pdbs p ON p.namespace = t.namespace AND p.cluster = t.cluster "
    "  LEFT JOIN nodes nd ON nd.name = a.node_name "
    "  LEFT JOIN node_pools np ON np.id = coalesce(a.pool_id, nd.pool_id) "
    " WHERE p.selector_json IS NOT NULL "
    "  AND coalesce(a.scheduled_at, a.created_at, a.started_at) < ?2 "
    "  AND coalesce(a.finished_at, a.deleted_at, ?2) >= ?1 "
    "  AND coalesce(nd.capacity_type, np.capacity_type) = 'spot' "
    "  AND NOT EXISTS (SELECT 1 FROM json_each(p.selector_json) s "
    "   WHERE json_extract(t.spec_json, '$.podLabels.\"' || s.key || '\"') IS NOT s.value)) "
    "SELECT p.namespace, p.name, p.max_unavailable, p.max_unavailable_pct, p.min_available, "
    " p.min_available_pct, p.expected_pods, count(DISTINCT m.att), min(m.pool) "
    "FROM pdbs p LEFT JOIN m ON m.pdb = p.uid "
    "WHERE p.selector_json IS NOT NULL AND (p.deleted_at IS NULL OR p.deleted_at >= ?1) "
    " AND coalesce(p.created_at, p.first_seen) < ?2 AND " STORE_IN_CLUSTERS("p.cluster") " "
    "GROUP BY p.uid ORDER BY p.namespace, p.name, p.uid";

static const char SQL_CLUSTER[] =
    "SELECT coalesce(name, id) FROM clusters WHERE " STORE_IN_CLUSTERS("cluster") " "
    "ORDER BY (id = :id) DESC, last_seen DESC, id LIMIT 1";
// clang-format on

/* What the row readers get: the data (its arena holds their strings) and the
 * configuration of a Job that names none. */
struct row_ctx {
    struct store_advice_data *d;
    enum cost_config dflt;
};

static const char *keep(const struct row_ctx *c, sqlite3_stmt *st, int col) {
    return store_arena_col(&c->d->arena, st, col);
}

static bool col_is(sqlite3_stmt *st, int col, const char *v) {
    const unsigned char *t = sqlite3_column_text(st, col);
    return t && strcmp((const char *)t, v) == 0;
}

void store_advice_free(struct store_advice_data *d) {
    if (!d)
        return;
    store_arena_free(d->arena);
    free(d->pools);
    free(d->sizes);
    free(d->nodes);
    free(d->reclaims);
    free(d->jobs);
    free(d->pdbs);
    free(d);
}

static enum err finish(struct store *s, sqlite3_stmt *st, int r, const char *what) {
    enum err rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, what);
    sqlite3_reset(st);
    return rc;
}

static bool pool_row(sqlite3_stmt *st, void *out, void *arg) {
    const struct row_ctx *c = arg;
    struct advice_pool *p = out;
    p->id = keep(c, st, 0);
    p->name = keep(c, st, 1);
    p->size = keep(c, st, 2);
    p->cluster_id = keep(c, st, 3);
    p->spot = col_is(st, 4, "spot");
    p->auto_scale = store_col_or(st, 5, 0) != 0;
    p->min_nodes = store_col_or(st, 6, -1);
    p->max_nodes = store_col_or(st, 7, -1);
    p->node_count = store_col_or(st, 8, -1);
    p->labels_json = keep(c, st, 9);
    p->taints_json = keep(c, st, 10);
    p->price_hourly = store_col_or(st, 11, 0);
    p->deleted_at = store_col_or(st, 12, 0);
    return true;
}

static bool size_row(sqlite3_stmt *st, void *out, void *arg) {
    const struct row_ctx *c = arg;
    struct advice_size *z = out;
    z->slug = keep(c, st, 0);
    z->vcpus = store_col_or(st, 1, -1);
    z->memory_mb = store_col_or(st, 2, -1);
    z->gpu_count = store_col_or(st, 3, -1);
    z->gpu_model = keep(c, st, 4);
    z->gpu_vram_gb = store_col_or(st, 5, -1);
    return true;
}

static bool node_row(sqlite3_stmt *st, void *out, void *arg) {
    const struct row_ctx *c = arg;
    struct advice_node *n = out;
    n->name = keep(c, st, 0);
    n->pool_id = keep(c, st, 1);
    n->spot = col_is(st, 2, "spot");
    n->created_at = store_col_or(st, 3, 0);
    n->ready_at = store_col_or(st, 4, 0);
    n->deleted_at = store_col_or(st, 5, 0);
    return true;
}

static bool reclaim_row(sqlite3_stmt *st, void *out, void *arg) {
    const struct row_ctx *c = arg;
    struct advice_reclaim *x = out;
    x->pool_id = keep(c, st, 0);
    x->detected_at = store_col_or(st, 1, 0);
    x->signal_at = store_col_or(st, 2, 0);
    return true;
}

static bool job_row(sqlite3_stmt *st, void *out, void *arg) {
    const struct row_ctx *c = arg;
    struct advice_job *j = out;
    j->uid = keep(c, st, 0);
    j->ns = keep(c, st, 1);
    j->name = keep(c, st, 2);
    const char *cfg = (const char *)sqlite3_column_text(st, 3);
    if (!cfg || cost_config_parse(cfg, &j->config) != ERR_OK)
        j->config = c->dflt;
    j->backoff_limit = store_col_or(st, 4, -1);
    j->ttl_after_finished = store_col_or(st, 5, -1);
    j->has_pod_failure_policy = store_col_or(st, 6, 0) != 0;
    j->pfp_ignores_disruption = store_col_or(st, 7, 0) != 0;
    j->spec_json = keep(c, st, 8);
    j->tasks = store_col_or(st, 9, 0);
    j->tasks_failed = store_col_or(st, 10, 0);
    j->outcomes_lost = store_col_or(st, 11, 0);
    j->last_seen = store_col_or(st, 12, 0);
    j->attempts = store_col_or(st, 13, 0);
    j->interrupted = store_col_or(st, 14, 0);
    j->checkpoint_reports = store_col_or(st, 15, 0);
    return true;
}

static bool pdb_row(sqlite3_stmt *st, void *out, void *arg) {
    const struct row_ctx *c = arg;
    struct advice_pdb *b = out;
    b->ns = keep(c, st, 0);
    b->name = keep(c, st, 1);
    b->max_unavailable = store_col_or(st, 2, -1);
    b->max_unavailable_pct = store_col_or(st, 3, -1);
    b->min_available = store_col_or(st, 4, -1);
    b->min_available_pct = store_col_or(st, 5, -1);
    b->expected_pods = store_col_or(st, 6, -1);
    b->pods_on_spot = store_col_or(st, 7, 0);
    b->spot_pool_id = keep(c, st, 8);
    return true;
}

/* A list query: its SQL, how many of (since, until, max + 1) it binds as ?1.., the
 * bytes of a record, the row reader and what a failure names. max: 0 = no cap;
 * otherwise rows past it are counted in *truncated, not kept. */
struct list_query {
    const char *sql;
    int binds;
    size_t elem;
    store_row_fn *row;
    const char *what;
    size_t max;
};

static const struct list_query Q_POOLS = {SQL_POOLS,      0, sizeof(struct advice_pool), pool_row,
                                          "advice pools", 0};
static const struct list_query Q_SIZES = {SQL_SIZES,      0, sizeof(struct advice_size), size_row,
                                          "advice sizes", 0};
static const struct list_query Q_NODES = {SQL_NODES,      1, sizeof(struct advice_node), node_row,
                                          "advice nodes", 0};
static const struct list_query Q_RECLAIMS = {
    SQL_RECLAIMS, 2, sizeof(struct advice_reclaim), reclaim_row, "advice reclaims", 0};
static const struct list_query Q_JOBS = {
    SQL_JOBS, 3, sizeof(struct advice_job), job_row, "advice jobs", STORE_ADVICE_MAX_JOBS};
static const struct list_query Q_PDBS = {SQL_PDBS,      2, sizeof(struct advice_pdb), pdb_row,
                                         "advice pdbs", 0};

/* The rows of q as records of a new array (*v, *n; the caller owns *v also on
 * an error). The SQL of a capped query returns one row past max at most: that
 * row is read, then dropped and counted in *truncated. */
static enum err load_list(struct store *s, const struct list_query *q, int64_t since, int64_t until,
                          struct row_ctx *c, void **v, size_t *n, bool *truncated) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, q->sql, &st);
    if (rc != ERR_OK)
        return rc;
    const int64_t bind[3] = {since, until, (int64_t)q->max + 1};
    for (int i = 0; i < q->binds; i++)
        sqlite3_bind_int64(st, i + 1, bind[i]);
    *v = store_rows(s, st, q->elem, q->row, c, n, q->what, &rc);
    if (q->max && *n > q->max) {
        *n = q->max;
        *truncated = true;
    }
    return rc;
}

static enum err load_lag(struct store *s, struct store_advice_data *d, int64_t since,
                         int64_t until) {
    sqlite3_stmt *st;
    enum err rc = store_stmt_window(s, SQL_LAG, since, until, &st);
    if (rc != ERR_OK)
        return rc;
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        d->in.watch_lag_seconds = store_col_or(st, 1, 0) > 0 ? store_col_or(st, 0, -1) : -1;
        r = SQLITE_DONE;
    }
    return finish(s, st, r, "advice lag");
}

static enum err load_cluster(struct store *s, struct store_advice_data *d, const char *cluster_id) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_CLUSTER, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, sqlite3_bind_parameter_index(st, ":id"), cluster_id);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        d->in.cluster = store_arena_col(&d->arena, st, 0);
        r = SQLITE_DONE;
    }
    return finish(s, st, r, "advice cluster");
}

enum err store_advice_load(struct store *s, int64_t since, int64_t until,
                           enum cost_config default_config, const char *cluster_id,
                           const char *clusters, struct store_advice_data **out) {
    store_set_read_clusters(s, clusters && *clusters ? clusters : NULL);
    struct store_advice_data *d = xcalloc(1, sizeof *d);
    d->in.watch_lag_seconds = -1;
    void *v[6] = {0};
    size_t n[6] = {0};
    bool truncated = false;
    struct row_ctx c = {d, default_config};
    static const struct list_query *const q[6] = {&Q_POOLS,    &Q_SIZES, &Q_NODES,
                                                  &Q_RECLAIMS, &Q_JOBS,  &Q_PDBS};
    enum err rc = ERR_OK;
    for (int k = 0; k < 6 && rc == ERR_OK; k++)
        rc = load_list(s, q[k], since, until, &c, &v[k], &n[k], &truncated);
    d->pools = v[0];
    d->sizes = v[1];
    d->nodes = v[2];
    d->reclaims = v[3];
    d->jobs = v[4];
    d->pdbs = v[5];
    d->in.n_pools = n[0];
    d->in.n_sizes = n[1];
    d->in.n_nodes = n[2];
    d->in.n_reclaims = n[3];
    d->in.n_jobs = n[4];
    d->in.n_pdbs = n[5];
    d->jobs_truncated = truncated; /* only Q_JOBS has a cap */
    if (rc == ERR_OK)
        rc = load_lag(s, d, since, until);
    if (rc == ERR_OK)
        rc = load_cluster(s, d, cluster_id);
    if (rc != ERR_OK) {
        store_advice_free(d);
        return rc;
    }
    if (!d->in.cluster && cluster_id) {
        d->in.cluster = store_arena_dup(&d->arena, cluster_id, strlen(cluster_id));
    }
    d->in.pools = d->pools;
    d->in.sizes = d->sizes;
    d->in.nodes = d->nodes;
    d->in.reclaims = d->reclaims;
    d->in.jobs = d->jobs;
    d->in.pdbs = d->pdbs;
    *out = d;
    return ERR_OK;
}
