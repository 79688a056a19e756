/* The task half of the cost loader (store_cost_tasks.h). */
#include "store/store_cost_tasks.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_internal.h"
#include "base/xalloc.h"

static int64_t col_time(sqlite3_stmt *st, int col) {
    return store_col_or(st, col, 0);
}

static const char SQL_SPAN[] =
    "SELECT max(coalesce(finished_at, deleted_at) - coalesce(scheduled_at, created_at, started_at))"
    " FROM attempts";

/* The window loader reads by time ranges, never by uid (random lookups into a
 * large file cost milliseconds each): tasks completing in a range that covers
 * every task the window touches, plus the running ones; attempts starting in a
 * range that covers every attempt of those tasks, plus the open ones. The rows
 * are then matched in memory. Bounds: L_span = the longest attempt, L_life =
 * the longest task (both from expression indexes, O(log n)). */
static const char SQL_LIFE[] = "SELECT max(completed_at - created_at) FROM tasks";

#define TASK_COLS                                                                                  \
    "uid, namespace, experiment, configuration, outcome, completed_at, name, completions, cluster"
static const char SQL_W_TASKS[] =
    "SELECT " TASK_COLS " FROM tasks "
    "WHERE completed_at >= ?1 AND completed_at < ?2 AND " STORE_IN_CLUSTERS(
        "cluster") " "
                   "UNION ALL SELECT " TASK_COLS " FROM tasks WHERE completed_at IS NULL "
                   "AND " STORE_IN_CLUSTERS("cluster");

#define ATTEMPT_COLS                                                                               \
    "task_uid, uid, namespace, node_name, gpu_request, cpu_request_milli, created_at, "            \
    "scheduled_at, started_at, finished_at, deleted_at, disruption_at, not_ready_at, reason, "     \
    "phase, report_work_seconds, report_restore_seconds, report_checkpoint_seconds, "              \
    "delete_requested_at, terminal_seen_at"
static const char SQL_W_ATTEMPTS[] =
    "SELECT " ATTEMPT_COLS " FROM attempts "
    "WHERE coalesce(scheduled_at, created_at, started_at) >= ?1 "
    "  AND coalesce(scheduled_at, created_at, started_at) < ?2 "
    "  AND " STORE_IN_CLUSTERS(
        "cluster") " "
                   "UNION ALL SELECT " ATTEMPT_COLS " FROM attempts "
                   "WHERE finished_at IS NULL AND deleted_at IS NULL "
                   "  AND NOT (coalesce(scheduled_at, created_at, started_at) >= ?1 "
                   "           AND coalesce(scheduled_at, created_at, started_at) < ?2) "
                   "  AND " STORE_IN_CLUSTERS("cluster");
/* Later attempts (starting at or after the window's end) of the tasks it
 * touched: a task's winner, its next attempt after an interruption and its
 * duplicates may start after the window, and no figure may depend on where the
 * load stopped. By range up to the latest completion of those tasks; open
 * attempts came with the first query. */
static const char SQL_W_LATER_ATTEMPTS[] =
    "SELECT " ATTEMPT_COLS " FROM attempts "
    "WHERE coalesce(scheduled_at, created_at, started_at) >= ?1 "
    "  AND coalesce(scheduled_at, created_at, started_at) <= ?2 "
    "  AND NOT (finished_at IS NULL AND deleted_at IS NULL) AND " STORE_IN_CLUSTERS("cluster");
/* A running task's later attempts (it has no completion bound), by its uid. */
static const char SQL_W_TASK_LATER[] = "SELECT " ATTEMPT_COLS " FROM attempts WHERE task_uid = ?1 "
                                       "  AND coalesce(scheduled_at, created_at, started_at) >= ?2 "
                                       "  AND NOT (finished_at IS NULL AND deleted_at IS NULL)";
/* Earlier attempts of a running task that started before the range. */
static const char SQL_W_TASK_ATTEMPTS[] =
    "SELECT " ATTEMPT_COLS " FROM attempts WHERE task_uid = ?1 "
    "  AND coalesce(scheduled_at, created_at, started_at) < ?2 "
    "  AND NOT (finished_at IS NULL AND deleted_at IS NULL)";

/* One task (?1 uid) and all its attempts. */
static const char SQL_ONE_TASK[] = "SELECT " TASK_COLS " FROM tasks WHERE uid = ?1";
static const char SQL_ONE_ATTEMPTS[] = "SELECT " ATTEMPT_COLS " FROM attempts WHERE task_uid = ?1";

/* *out = the one value of sql (a max over a table), 0 when NULL or negative. */
static enum err bound(struct store *s, const char *sql, const char *what, int64_t *out) {
    int64_t v;
    enum err rc = store_one_int(s, sql, 0, what, &v);
    if (rc != ERR_OK)
        return rc;
    *out = v > 0 ? v : 0;
    return ERR_OK;
}

/* A task row as loaded, before the touched ones are kept. */
struct wtask {
    const char *uid, *ns, *experiment, *name, *cluster;
    enum cost_config config;
    enum cost_outcome outcome;
    int64_t completed_at, completions;
    bool touched;
    int32_t out; /* index in d->tasks, -1 not kept */
};

/* An attempt row as loaded: the cost_attempt and its task (index into wt). */
struct wattempt {
    struct cost_attempt a;
    int32_t wt;
};

struct wload {
    struct store_cost_data *d;
    struct wtask *wt;
    size_t n_wt, cap_wt, n_rows; /* n_rows: tasks loaded by SQL (indexed) */
    struct cost_index *ix;       /* over wt[0 .. n_rows) by uid */
    struct wattempt *wa;
    size_t n_wa, cap_wa;
    enum cost_config dflt;
    const struct cost_index *node_ix;
};

/* The held start of an attempt (touch test) and its creation order (sort). */
static int64_t attempt_start_of(const struct cost_attempt *a) {
    return a->scheduled_at ? a->scheduled_at : a->created_at ? a->created_at : a->started_at;
}
static int64_t attempt_order_of(const struct cost_attempt *a) {
    return a->created_at ? a->created_at : a->scheduled_at ? a->scheduled_at : a->started_at;
}

/* The wt index of task uid; a placeholder task (default configuration,
 * running) when its row is not loaded. */
static int32_t wt_find(struct wload *w, const char *uid, const char *ns) {
    int32_t i = w->ix ? cost_index_find(w->ix, uid) : -1;
    if (i >= 0)
        return i;
    for (size_t k = w->n_rows; k < w->n_wt; k++)
        if (!strcmp(w->wt[k].uid, uid))
            return (int32_t)k;
    XGROW(w->wt, w->n_wt, w->cap_wt, 256);
    struct wtask *t = &w->wt[w->n_wt];
    memset(t, 0, sizeof *t);
    t->uid = store_arena_dup(&w->d->arena, uid, strlen(uid));
    t->ns = ns;
    t->config = w->dflt;
    t->outcome = COST_TASK_RUNNING;
    t->out = -1;
    return (int32_t)w->n_wt++;
}

static void read_attempt(struct wload *w, sqlite3_stmt *st, struct cost_attempt *a) {
    struct store_arena **ar = &w->d->arena;
    memset(a, 0, sizeof *a);
    a->uid = store_arena_col(ar, st, 1);
    const char *node = (const char *)sqlite3_column_text(st, 3);
    a->node = node && w->node_ix ? cost_index_find(w->node_ix, node) : -1;
    a->gpu_request = store_col_or(st, 4, 0);
    a->cpu_request_milli = store_col_or(st, 5, 0);
    if (a->gpu_request < 0)
        a->gpu_request = 0;
    if (a->cpu_request_milli < 0)
        a->cpu_request_milli = 0;
    a->created_at = col_time(st, 6);
    a->scheduled_at = col_time(st, 7);
    a->started_at = col_time(st, 8);
    a->finished_at = col_time(st, 9);
    a->deleted_at = col_time(st, 10);
    a->disruption_at = col_time(st, 11);
    a->not_ready_at = col_time(st, 12);
    a->reason = store_arena_col(ar, st, 13);
    const char *ph = (const char *)sqlite3_column_text(st, 14);
    if (!ph || cost_phase_parse(ph, &a->phase) != ERR_OK)
        a->phase = COST_PHASE_UNKNOWN;
    a->work_seconds = store_col_or(st, 15, -1);
    a->restore_seconds = store_col_or(st, 16, -1);
    a->checkpoint_seconds = store_col_or(st, 17, -1);
    a->delete_requested_at = col_time(st, 18);
    a->terminal_at = col_time(st, 19);
}

/* Reads attempt rows; an attempt starting in [touch_from, to), or open,
 * touches its task. */
static enum err read_attempts(struct store *s, struct wload *w, sqlite3_stmt *st,
                              int64_t touch_from, int64_t to) {
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        const char *tu = (const char *)sqlite3_column_text(st, 0);
        if (!tu)
            continue;
        XGROW(w->wa, w->n_wa, w->cap_wa, 256);
        struct wattempt *x = &w->wa[w->n_wa++];
        read_attempt(w, st, &x->a);
        x->wt = wt_find(w, tu, store_arena_col(&w->d->arena, st, 2));
        int64_t s0 = attempt_start_of(&x->a);
        bool open = !x->a.finished_at && !x->a.deleted_at;
        if (open || (s0 >= touch_from && s0 < to))
            w->wt[x->wt].touched = true;
    }
    enum err rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, "load attempts");
    sqlite3_reset(st);
    return rc;
}

static int cmp_wattempt(const void *pa, const void *pb) {
    const struct wattempt *a = pa, *b = pb;
    if (a->a.task != b->a.task)
        return a->a.task < b->a.task ? -1 : 1;
    int64_t x = attempt_order_of(&a->a), y = attempt_order_of(&b->a);
    if (x != y)
        return x < y ? -1 : 1;
    return strcmp(a->a.uid ? a->a.uid : "", b->a.uid ? b->a.uid : "");
}

static _Thread_local const struct wattempt *sort_wa;
static int cmp_wattempt_ix(const void *pa, const void *pb) {
    return cmp_wattempt(&sort_wa[*(const int32_t *)pa], &sort_wa[*(const int32_t *)pb]);
}

/* qsort has no context argument (C11): the loader's thread-local one */
static _Thread_local const struct wtask *sort_wt;
static int cmp_touched(const void *pa, const void *pb) {
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    return strcmp(sort_wt[a].uid, sort_wt[b].uid);
}

static void keep_touched(struct wload *w) {
    struct store_cost_data *d = w->d;
    int32_t *keep = xcalloc(w->n_wt + 1, sizeof *keep);
    size_t nk = 0;
    for (size_t i = 0; i < w->n_wt; i++)
        if (w->wt[i].touched)
            keep[nk++] = (int32_t)i;
    sort_wt = w->wt;
    qsort(keep, nk, sizeof *keep, cmp_touched);
    sort_wt = NULL;
    d->tasks = xcalloc(nk + 1, sizeof *d->tasks);
    d->task_names = xcalloc(nk + 1, sizeof *d->task_names);
    d->task_clusters = xcalloc(nk + 1, sizeof *d->task_clusters);
    for (size_t k = 0; k < nk; k++) {
        struct wtask *t = &w->wt[keep[k]];
        t->out = (int32_t)k;
        d->tasks[k] = (struct cost_task){.uid = t->uid,
                                         .ns = t->ns,
                                         .experiment = t->experiment,
                                         .config = t->config,
                                         .outcome = t->outcome,
                                         .completed_at = t->completed_at,
                                         .completions = t->completions};
        d->task_names[k] = t->name;
        d->task_clusters[k] = t->cluster;
    }
    d->in.n_tasks = nk;
    free(keep);
    size_t na = 0;
    for (size_t i = 0; i < w->n_wa; i++) {
        int32_t out = w->wt[w->wa[i].wt].out;
        if (out < 0)
            continue;
        w->wa[na] = w->wa[i];
        w->wa[na].a.task = out;
        na++;
    }
    /* sort 4-byte indices, not 136-byte rows */
    int32_t *ord = xcalloc(na + 1, sizeof *ord);
    for (size_t i = 0; i < na; i++)
        ord[i] = (int32_t)i;
    sort_wa = w->wa;
    if (na > 1)
        qsort(ord, na, sizeof *ord, cmp_wattempt_ix);
    sort_wa = NULL;
    d->attempts = xcalloc(na + 1, sizeof *d->attempts);
    size_t m = 0;
    for (size_t k = 0; k < na; k++) {
        const struct cost_attempt *a = &w->wa[ord[k]].a;
        /* the same attempt never comes twice, but a bad row must not count double */
        if (m && d->attempts[m - 1].task == a->task && d->attempts[m - 1].uid && a->uid &&
            !strcmp(d->attempts[m - 1].uid, a->uid))
            continue;
        d->attempts[m++] = *a;
    }
    free(ord);
    d->in.n_attempts = m;
}

/* Ends a load: on success d gets the touched tasks and their attempts; w's
 * scratch is freed either way. */
static enum err wload_end(struct wload *w, enum err rc) {
    if (rc == ERR_OK)
        keep_touched(w);
    cost_index_free(w->ix);
    free(w->wt);
    free(w->wa);
    return rc;
}

/* One task row (TASK_COLS) into t. */
static void read_task_row(struct wload *w, sqlite3_stmt *st, struct wtask *t) {
    struct store_cost_data *d = w->d;
    memset(t, 0, sizeof *t);
    t->uid = store_arena_col(&d->arena, st, 0);
    t->ns = store_arena_col(&d->arena, st, 1);
    t->experiment = store_arena_col(&d->arena, st, 2);
    const char *c = (const char *)sqlite3_column_text(st, 3);
    if (!c || cost_config_parse(c, &t->config) != ERR_OK)
        t->config = w->dflt;
    const char *o = (const char *)sqlite3_column_text(st, 4);
    if (!o || cost_outcome_parse(o, &t->outcome) != ERR_OK)
        t->outcome = COST_TASK_RUNNING;
    t->completed_at = col_time(st, 5);
    t->name = store_arena_col(&d->arena, st, 6);
    t->completions = store_col_or(st, 7, 0);
    t->cluster = store_arena_col(&d->arena, st, 8);
    t->out = -1;
}

/* Reads task rows (TASK_COLS); a task completed in [from, to) is touched. */
static enum err read_task_rows(struct store *s, struct wload *w, sqlite3_stmt *st, int64_t from,
                               int64_t to) {
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        XGROW(w->wt, w->n_wt, w->cap_wt, 256);
        struct wtask *t = &w->wt[w->n_wt++];
        read_task_row(w, st, t);
        t->touched = t->completed_at >= from && t->completed_at < to;
    }
    enum err rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, "load tasks");
    sqlite3_reset(st);
    return rc;
}

/* A touched task whose row lies outside the ranges loaded (its attempts came in
 * by time) is read by uid, so no figure depends on the range a query loaded;
 * only a task with no row at all keeps the placeholder (default configuration,
 * running). */
static enum err fill_placeholders(struct store *s, struct wload *w) {
    for (size_t k = w->n_rows; k < w->n_wt; k++) {
        if (!w->wt[k].touched)
            continue;
        sqlite3_stmt *st;
        enum err rc = store_lookup(s, SQL_ONE_TASK, w->wt[k].uid, "load task", &st);
        if (rc == ERR_OK) {
            read_task_row(w, st, &w->wt[k]);
            w->wt[k].touched = true;
            sqlite3_reset(st);
        } else if (rc != ERR_NOTFOUND) {
            return rc;
        }
    }
    return ERR_OK;
}

enum err store_cost_tasks_one(struct store *s, struct store_cost_data *d, const char *uid,
                              enum cost_config dflt, const struct cost_index *node_ix) {
    struct wload w = {.d = d, .dflt = dflt, .node_ix = node_ix};
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_ONE_TASK, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, uid);
    rc = read_task_rows(s, &w, st, INT64_MIN, INT64_MAX); /* the task row is touched */
    w.n_rows = w.n_wt;
    if (rc == ERR_OK && w.n_rows)
        rc = cost_index_new(&w.wt[0].uid, sizeof w.wt[0], w.n_rows, &w.ix);
    if (rc == ERR_OK && w.n_rows && (rc = store_stmt(s, SQL_ONE_ATTEMPTS, &st)) == ERR_OK) {
        store_bind_text(st, 1, uid);
        rc = read_attempts(s, &w, st, INT64_MAX, INT64_MIN); /* touch nothing more */
    }
    return wload_end(&w, rc);
}

/* The attempts of the touched tasks that start at or after `to` (they touch
 * nothing: read_attempts with an empty touch range). */
static enum err later_attempts(struct store *s, struct wload *w, int64_t to) {
    int64_t last = INT64_MIN;
    size_t n_wt = w->n_wt;
    enum err rc = ERR_OK;
    sqlite3_stmt *st;
    for (size_t i = 0; rc == ERR_OK && i < n_wt; i++) {
        if (!w->wt[i].touched)
            continue;
        if (w->wt[i].completed_at) {
            if (w->wt[i].completed_at > last)
                last = w->wt[i].completed_at;
            continue;
        }
        if ((rc = store_stmt(s, SQL_W_TASK_LATER, &st)) != ERR_OK)
            break;
        store_bind_text(st, 1, w->wt[i].uid);
        sqlite3_bind_int64(st, 2, to);
        rc = read_attempts(s, w, st, INT64_MAX, INT64_MIN);
    }
    if (rc != ERR_OK || last < to)
        return rc;
    if ((rc = store_stmt_window(s, SQL_W_LATER_ATTEMPTS, to, last, &st)) != ERR_OK)
        return rc;
    return read_attempts(s, w, st, INT64_MAX, INT64_MIN);
}

/* alive_at (store_cost_load_edge_tasks): a task begun before it and not finished
 * before it (completed at or after it, or running) is touched too. */
static void mark_alive(struct wload *w, int64_t alive_at) {
    for (size_t i = 0; i < w->n_wa; i++) {
        struct wtask *t = &w->wt[w->wa[i].wt];
        int64_t s0 = attempt_order_of(&w->wa[i].a);
        if (s0 && s0 < alive_at && t->completed_at >= alive_at)
            t->touched = true;
    }
    for (size_t k = 0; k < w->n_rows; k++)
        if (!w->wt[k].completed_at)
            w->wt[k].touched = true; /* its older attempts come by uid (step 3) */
}

enum err store_cost_tasks_window(struct store *s, struct store_cost_data *d, int64_t from,
                                 int64_t to, int64_t span, int64_t life, enum cost_config dflt,
                                 const struct cost_index *node_ix, int64_t alive_at) {
    enum err rc;
    struct wload w = {.d = d, .dflt = dflt, .node_ix = node_ix};
    sqlite3_stmt *st;
    /* 1. tasks that can be touched: completed in [from - span, to + life), or running */
    if ((rc = store_stmt_window(s, SQL_W_TASKS, from - span, to + life, &st)) != ERR_OK)
        return rc;
    rc = read_task_rows(s, &w, st, from, to);
    w.n_rows = w.n_wt;
    if (rc == ERR_OK && w.n_rows)
        rc = cost_index_new(&w.wt[0].uid, sizeof w.wt[0], w.n_rows, &w.ix);
    /* 2. every attempt of those tasks: they start after from - span - life */
    int64_t lo = from - span - life;
    if (rc == ERR_OK && (rc = store_stmt_window(s, SQL_W_ATTEMPTS, lo, to, &st)) == ERR_OK)
        rc = read_attempts(s, &w, st, from - span, to);
    if (rc == ERR_OK && alive_at)
        mark_alive(&w, alive_at);
    if (rc == ERR_OK)
        rc = fill_placeholders(s, &w);
    /* 3. a running task has no life bound: its older attempts, by its uid */
    for (size_t i = 0; rc == ERR_OK && i < w.n_wt; i++) {
        if (!w.wt[i].touched || w.wt[i].completed_at)
            continue;
        if ((rc = store_stmt(s, SQL_W_TASK_ATTEMPTS, &st)) != ERR_OK)
            break;
        store_bind_text(st, 1, w.wt[i].uid);
        sqlite3_bind_int64(st, 2, lo);
        rc = read_attempts(s, &w, st, INT64_MAX, INT64_MIN);
    }
    if (rc == ERR_OK)
        rc = later_attempts(s, &w, to);
    return wload_end(&w, rc);
}

enum err store_cost_task_bounds(struct store *s, int64_t *span, int64_t *life) {
    *life = 0;
    enum err rc = bound(s, SQL_SPAN, "attempt span", span);
    if (rc == ERR_OK)
        rc = bound(s, SQL_LIFE, "task life", life);
    return rc;
}

/* store_cost_load_tasks and store_cost_load_edge_tasks: the tasks of [from, to)
 * (and those alive at alive_at when not 0) over base's pools, nodes and prices. */
static enum err tasks_over(struct store *s, int64_t from, int64_t to, int64_t alive_at,
                           const struct store_cost_opts *opts, const struct store_cost_data *base,
                           const struct cost_index *node_ix, struct store_cost_data **out) {
    store_set_read_clusters(s, opts ? opts->clusters : NULL);
    enum cost_config default_config = opts ? opts->default_config : COST_FALLBACK;
    struct store_cost_data *d = xcalloc(1, sizeof *d);
    int64_t back = 0, life = 0;
    enum err rc = store_cost_task_bounds(s, &back, &life);
    if (rc == ERR_OK)
        rc = store_cost_tasks_window(s, d, from, to, back, life, default_config, node_ix, alive_at);
    if (rc != ERR_OK) {
        store_cost_free(d);
        return rc;
    }
    size_t nt = d->in.n_tasks, na = d->in.n_attempts;
    d->in = base->in; /* pools, nodes (with spells) and prices are base's */
    d->in.tasks = d->tasks;
    d->in.n_tasks = nt;
    d->in.attempts = d->attempts;
    d->in.n_attempts = na;
    *out = d;
    return ERR_OK;
}

enum err store_cost_load_tasks(struct store *s, int64_t from, int64_t to,
                               const struct store_cost_opts *opts,
                               const struct store_cost_data *base, const struct cost_index *node_ix,
                               struct store_cost_data **out) {
    return tasks_over(s, from, to, 0, opts, base, node_ix, out);
}

enum err store_cost_load_edge_tasks(struct store *s, int64_t edge,
                                    const struct store_cost_opts *opts,
                                    const struct store_cost_data *base,
                                    const struct cost_index *node_ix,
                                    struct store_cost_data **out) {
    return tasks_over(s, edge - 1, edge + 1, edge, opts, base, node_ix, out);
}
