#include "store_cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "xalloc.h"

static int64_t col_time(sqlite3_stmt *st, int col) {
    return store_col_or(st, col, 0);
}

void store_cost_free(struct store_cost_data *d) {
    if (!d)
        return;
    free(d->pools);
    free(d->nodes);
    free(d->tasks);
    free(d->task_names);
    free(d->attempts);
    free(d->od_sizes);
    store_arena_free(d->arena);
    free(d);
}

static const char SQL_POOLS[] =
    "SELECT p.id, p.name, p.size, p.capacity_type, p.price_hourly_micro, p.deleted_at, "
    " (SELECT min(r.first_signal_at) FROM reclaims r WHERE r.pool_id = p.id) "
    "FROM node_pools p ORDER BY p.id";

/* Nodes whose billable life [start, end + 60 s) may touch [from, to). */
static const char SQL_NODES[] =
    "SELECT name, pool_id, price_hourly_micro, created_at, ready_at, k8s_deleted_at, "
    " do_deleted_at, not_ready_at, cordoned_at, gpu_allocatable, cpu_allocatable_milli "
    "FROM nodes WHERE coalesce(ready_at, created_at, first_seen) < ?2 "
    " AND (coalesce(k8s_deleted_at, do_deleted_at) IS NULL "
    "      OR min(coalesce(k8s_deleted_at, do_deleted_at), coalesce(do_deleted_at, k8s_deleted_at))"
    "         >= ?1 - 60) "
    "ORDER BY name";

static const char SQL_SPAN[] =
    "SELECT max(coalesce(finished_at, deleted_at) - coalesce(scheduled_at, created_at, started_at))"
    " FROM attempts";

/* Tasks touched by the window, each with all its attempts (task rows may be
 * missing: LEFT JOIN). ?1 from, ?2 to, ?3 lookback. */
static const char SQL_TASKS[] =
    "WITH touched(uid) AS ("
    " SELECT task_uid FROM attempts"
    "  WHERE coalesce(scheduled_at, created_at, started_at) < ?2"
    "    AND coalesce(scheduled_at, created_at, started_at) >= ?1 - ?3"
    " UNION SELECT task_uid FROM attempts WHERE finished_at IS NULL AND deleted_at IS NULL"
    " UNION SELECT uid FROM tasks WHERE completed_at >= ?1 AND completed_at < ?2) "
    "SELECT touched.uid, t.namespace, t.experiment, t.configuration, t.outcome, t.completed_at, "
    " a.uid, a.namespace, a.node_name, a.gpu_request, a.cpu_request_milli, a.created_at, "
    " a.scheduled_at, a.started_at, a.finished_at, a.deleted_at, a.disruption_at, "
    " a.not_ready_at, a.reason, a.phase, a.report_work_seconds, a.report_restore_seconds, "
    " a.report_checkpoint_seconds, t.name "
    "FROM touched LEFT JOIN tasks t ON t.uid = touched.uid "
    " LEFT JOIN attempts a ON a.task_uid = touched.uid "
    "ORDER BY touched.uid, coalesce(a.scheduled_at, a.created_at, a.started_at), a.uid";

/* One task and all its attempts (?1 task uid). */
static const char SQL_TASK_ONE[] =
    "WITH touched(uid) AS (SELECT ?1) "
    "SELECT touched.uid, t.namespace, t.experiment, t.configuration, t.outcome, t.completed_at, "
    " a.uid, a.namespace, a.node_name, a.gpu_request, a.cpu_request_milli, a.created_at, "
    " a.scheduled_at, a.started_at, a.finished_at, a.deleted_at, a.disruption_at, "
    " a.not_ready_at, a.reason, a.phase, a.report_work_seconds, a.report_restore_seconds, "
    " a.report_checkpoint_seconds, t.name "
    "FROM touched JOIN tasks t ON t.uid = touched.uid "
    " LEFT JOIN attempts a ON a.task_uid = touched.uid "
    "ORDER BY touched.uid, coalesce(a.scheduled_at, a.created_at, a.started_at), a.uid";

/* The nodes one task's attempts used. */
static const char SQL_TASK_NODES[] =
    "SELECT name, pool_id, price_hourly_micro, created_at, ready_at, k8s_deleted_at, "
    " do_deleted_at, not_ready_at, cordoned_at, gpu_allocatable, cpu_allocatable_milli "
    "FROM nodes WHERE name IN (SELECT node_name FROM attempts WHERE task_uid = ?1) "
    "ORDER BY name";

/* The latest On-Demand price of each size (for the counterfactual). */
static const char SQL_OD_PRICES[] =
    "SELECT sp.slug, sp.price_hourly_micro FROM size_prices sp "
    "WHERE sp.observed_at = (SELECT max(observed_at) FROM size_prices WHERE slug = sp.slug)";

static enum err load_pools(struct store *s, struct store_cost_data *d) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_POOLS, &st);
    if (rc != ERR_OK)
        return rc;
    size_t cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        STORE_GROW(d->pools, d->in.n_pools, cap);
        struct cost_pool *p = &d->pools[d->in.n_pools++];
        memset(p, 0, sizeof *p);
        p->id = store_arena_col(&d->arena, st, 0);
        p->name = store_arena_col(&d->arena, st, 1);
        p->size = store_arena_col(&d->arena, st, 2);
        const unsigned char *ct = sqlite3_column_text(st, 3);
        p->capacity = ct && !strcmp((const char *)ct, "spot") ? COST_CAP_SPOT : COST_CAP_ON_DEMAND;
        p->price_hourly = col_time(st, 4);
        p->deleted_at = col_time(st, 5);
        p->signal_at = col_time(st, 6);
    }
    rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, "load pools");
    sqlite3_reset(st);
    return rc;
}

static enum err read_nodes(struct store *s, sqlite3_stmt *st, struct store_cost_data *d,
                           const struct cost_index *pool_ix) {
    enum err rc;
    size_t cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        STORE_GROW(d->nodes, d->in.n_nodes, cap);
        struct cost_node *n = &d->nodes[d->in.n_nodes++];
        memset(n, 0, sizeof *n);
        n->name = store_arena_col(&d->arena, st, 0);
        const char *pool = (const char *)sqlite3_column_text(st, 1);
        n->pool = pool && pool_ix ? cost_index_find(pool_ix, pool) : -1;
        n->price_hourly = col_time(st, 2);
        n->created_at = col_time(st, 3);
        n->ready_at = col_time(st, 4);
        n->k8s_deleted_at = col_time(st, 5);
        n->do_deleted_at = col_time(st, 6);
        n->not_ready_at = col_time(st, 7);
        n->cordoned_at = col_time(st, 8);
        n->gpu_allocatable = store_col_or(st, 9, 0);
        n->cpu_allocatable_milli = store_col_or(st, 10, 0);
        if (n->gpu_allocatable < 0)
            n->gpu_allocatable = 0;
        if (n->cpu_allocatable_milli < 0)
            n->cpu_allocatable_milli = 0;
    }
    rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, "load nodes");
    sqlite3_reset(st);
    return rc;
}

static enum err load_nodes(struct store *s, struct store_cost_data *d, int64_t from, int64_t to,
                           const struct cost_index *pool_ix) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_NODES, &st);
    if (rc != ERR_OK)
        return rc;
    sqlite3_bind_int64(st, 1, from);
    sqlite3_bind_int64(st, 2, to);
    return read_nodes(s, st, d, pool_ix);
}

static enum err lookback(struct store *s, int64_t *out) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_SPAN, &st);
    if (rc != ERR_OK)
        return rc;
    int r = sqlite3_step(st);
    if (r != SQLITE_ROW) {
        rc = store_fail(s, r, "attempt span");
        sqlite3_reset(st);
        return rc;
    }
    int64_t v = store_col_or(st, 0, 0);
    sqlite3_reset(st);
    *out = v > 0 ? v : 0;
    return ERR_OK;
}

/* Reads rows shaped like SQL_TASKS from a bound statement st. */
static enum err read_tasks(struct store *s, sqlite3_stmt *st, struct store_cost_data *d,
                           enum cost_config dflt, const struct cost_index *node_ix) {
    enum err rc;
    size_t tcap = 0, acap = 0, names_n = 0, names_cap = 0;
    const char *prev = NULL;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        const char *uid = (const char *)sqlite3_column_text(st, 0);
        if (!uid)
            continue;
        if (!prev || strcmp(prev, uid) != 0) {
            STORE_GROW(d->tasks, d->in.n_tasks, tcap);
            struct cost_task *t = &d->tasks[d->in.n_tasks++];
            memset(t, 0, sizeof *t);
            t->uid = store_arena_col(&d->arena, st, 0);
            t->ns = store_arena_col(&d->arena, st, 1);
            if (!t->ns)
                t->ns = store_arena_col(&d->arena, st, 7); /* task row unknown: the pod's */
            t->experiment = store_arena_col(&d->arena, st, 2);
            const char *c = (const char *)sqlite3_column_text(st, 3);
            if (!c || cost_config_parse(c, &t->config) != ERR_OK)
                t->config = dflt;
            const char *o = (const char *)sqlite3_column_text(st, 4);
            if (!o || cost_outcome_parse(o, &t->outcome) != ERR_OK)
                t->outcome = COST_TASK_RUNNING;
            t->completed_at = col_time(st, 5);
            prev = t->uid;
            STORE_GROW(d->task_names, names_n, names_cap);
            d->task_names[names_n++] = store_arena_col(&d->arena, st, 23);
        }
        if (sqlite3_column_type(st, 6) == SQLITE_NULL)
            continue; /* a task with no attempt */
        STORE_GROW(d->attempts, d->in.n_attempts, acap);
        struct cost_attempt *a = &d->attempts[d->in.n_attempts++];
        memset(a, 0, sizeof *a);
        a->uid = store_arena_col(&d->arena, st, 6);
        a->task = (int32_t)(d->in.n_tasks - 1);
        const char *node = (const char *)sqlite3_column_text(st, 8);
        a->node = node && node_ix ? cost_index_find(node_ix, node) : -1;
        a->gpu_request = store_col_or(st, 9, 0);
        a->cpu_request_milli = store_col_or(st, 10, 0);
        if (a->gpu_request < 0)
            a->gpu_request = 0;
        if (a->cpu_request_milli < 0)
            a->cpu_request_milli = 0;
        a->created_at = col_time(st, 11);
        a->scheduled_at = col_time(st, 12);
        a->started_at = col_time(st, 13);
        a->finished_at = col_time(st, 14);
        a->deleted_at = col_time(st, 15);
        a->disruption_at = col_time(st, 16);
        a->not_ready_at = col_time(st, 17);
        a->reason = store_arena_col(&d->arena, st, 18);
        const char *ph = (const char *)sqlite3_column_text(st, 19);
        if (!ph || cost_phase_parse(ph, &a->phase) != ERR_OK)
            a->phase = COST_PHASE_UNKNOWN;
        a->work_seconds = store_col_or(st, 20, -1);
        a->restore_seconds = store_col_or(st, 21, -1);
        a->checkpoint_seconds = store_col_or(st, 22, -1);
    }
    rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, "load tasks");
    sqlite3_reset(st);
    return rc;
}

static enum err load_tasks(struct store *s, struct store_cost_data *d, int64_t from, int64_t to,
                           int64_t back, enum cost_config dflt, const struct cost_index *node_ix) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_TASKS, &st);
    if (rc != ERR_OK)
        return rc;
    sqlite3_bind_int64(st, 1, from);
    sqlite3_bind_int64(st, 2, to);
    sqlite3_bind_int64(st, 3, back);
    return read_tasks(s, st, d, dflt, node_ix);
}

static enum err load_od_prices(struct store *s, struct store_cost_data *d) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_OD_PRICES, &st);
    if (rc != ERR_OK)
        return rc;
    size_t cap = 0;
    int r;
    /* every size's price, keyed "<slug>-spot" -> slug, so a spot size whose
     * On-Demand twin is listed in /v2/sizes finds its rate */
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        const char *slug = (const char *)sqlite3_column_text(st, 0);
        size_t n = slug ? strlen(slug) : 0;
        if (!slug || (n > 5 && !strcmp(slug + n - 5, "-spot")))
            continue;
        STORE_GROW(d->od_sizes, d->n_od_sizes, cap);
        struct cost_od_size *o = &d->od_sizes[d->n_od_sizes++];
        o->od_size = store_arena_col(&d->arena, st, 0);
        o->od_price_hourly = sqlite3_column_int64(st, 1);
        /* "<slug>-spot" in the arena */
        char twin[512];
        int tn = snprintf(twin, sizeof twin, "%s-spot", o->od_size);
        o->spot_size =
            store_arena_dup(&d->arena, twin, tn > 0 && (size_t)tn < sizeof twin ? (size_t)tn : 0);
    }
    rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, "load prices");
    sqlite3_reset(st);
    return rc;
}

/* Loads pools, then nodes (task_uid NULL: by window; else the task's), then
 * tasks with their attempts, then prices. */
static enum err load(struct store *s, int64_t from, int64_t to, const char *task_uid,
                     enum cost_config default_config, struct store_cost_data **out) {
    struct store_cost_data *d = xcalloc(1, sizeof *d);
    struct cost_index *pool_ix = NULL, *node_ix = NULL;
    int64_t back = 0;
    sqlite3_stmt *st = NULL;
    enum err rc = load_pools(s, d);
    if (rc == ERR_OK && d->in.n_pools)
        rc = cost_index_new(&d->pools[0].id, sizeof d->pools[0], d->in.n_pools, &pool_ix);
    if (rc == ERR_OK && !task_uid) {
        rc = load_nodes(s, d, from, to, pool_ix);
    } else if (rc == ERR_OK && (rc = store_stmt(s, SQL_TASK_NODES, &st)) == ERR_OK) {
        store_bind_text(st, 1, task_uid);
        rc = read_nodes(s, st, d, pool_ix);
    }
    if (rc == ERR_OK && d->in.n_nodes)
        rc = cost_index_new(&d->nodes[0].name, sizeof d->nodes[0], d->in.n_nodes, &node_ix);
    if (rc == ERR_OK && !task_uid) {
        rc = lookback(s, &back);
        if (rc == ERR_OK)
            rc = load_tasks(s, d, from, to, back, default_config, node_ix);
    } else if (rc == ERR_OK && (rc = store_stmt(s, SQL_TASK_ONE, &st)) == ERR_OK) {
        store_bind_text(st, 1, task_uid);
        rc = read_tasks(s, st, d, default_config, node_ix);
    }
    if (rc == ERR_OK)
        rc = load_od_prices(s, d);
    cost_index_free(pool_ix);
    cost_index_free(node_ix);
    if (rc != ERR_OK) {
        store_cost_free(d);
        return rc;
    }
    d->in.pools = d->pools;
    d->in.nodes = d->nodes;
    d->in.tasks = d->tasks;
    d->in.attempts = d->attempts;
    *out = d;
    return ERR_OK;
}

enum err store_cost_load(struct store *s, int64_t from, int64_t to, enum cost_config default_config,
                         struct store_cost_data **out) {
    return load(s, from, to, NULL, default_config, out);
}

enum err store_cost_load_task(struct store *s, const char *task_uid,
                              enum cost_config default_config, struct store_cost_data **out) {
    return load(s, 0, 0, task_uid, default_config, out);
}
