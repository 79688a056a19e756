#include "store/store_read.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "store/store_cost_tasks.h"
#include "store/store_internal.h"

static const char SQL_SOURCE_NOW[] =
    "SELECT max(source_time) FROM poll_runs WHERE status = 'ok' AND source_time IS NOT NULL";

enum err store_source_now(struct store *s, int64_t *out) {
    uint64_t gen = 0;
    bool tracked = store_gen_current(s, &gen);
    int64_t now;
    if (tracked && store_memo_now(store_memo(s), gen, &now)) {
        if (now == INT64_MIN) /* no successful poll */
            return ERR_NOTFOUND;
        *out = now;
        return ERR_OK;
    }
    enum err rc = store_one_int(s, SQL_SOURCE_NOW, INT64_MIN, "source_now", &now);
    if (rc != ERR_OK)
        return rc;
    if (tracked)
        store_memo_set_now(store_memo(s), gen, now);
    if (now == INT64_MIN)
        return ERR_NOTFOUND;
    *out = now;
    return ERR_OK;
}

static const char SQL_POLL_STATS[] =
    "SELECT coalesce(sum(status = 'ok'), 0), coalesce(sum(status = 'error'), 0), "
    "coalesce(max(CASE WHEN status = 'ok' THEN finished_at END), 0), "
    "coalesce(sum(requests), 0), "
    "(SELECT finished_at - started_at FROM poll_runs WHERE source = ?1 AND status != 'running' "
    " ORDER BY id DESC LIMIT 1) "
    "FROM poll_runs WHERE source = ?1";

enum err store_poll_stats(struct store *s, const char *source, struct store_poll_stats *out) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_POLL_STATS, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, source);
    int r = sqlite3_step(st);
    if (r != SQLITE_ROW) {
        rc = store_fail(s, r, "poll_stats");
        sqlite3_reset(st);
        return rc;
    }
    out->ok = sqlite3_column_int64(st, 0);
    out->errors = sqlite3_column_int64(st, 1);
    out->last_success = sqlite3_column_int64(st, 2);
    out->requests = sqlite3_column_int64(st, 3);
    out->last_duration = sqlite3_column_int64(st, 4);
    sqlite3_reset(st);
    return ERR_OK;
}

static const char SQL_TASK_ATTEMPTS[] =
    "SELECT a.uid, a.name, a.node_name, coalesce(a.pool_id, n.pool_id), p.name, "
    " coalesce(n.capacity_type, p.capacity_type), a.reason, a.phase, a.exit_code "
    "FROM attempts a LEFT JOIN nodes n ON n.name = a.node_name "
    " LEFT JOIN node_pools p ON p.id = coalesce(a.pool_id, n.pool_id) "
    "WHERE a.task_uid = ?1 "
    "ORDER BY coalesce(a.scheduled_at, a.created_at, a.started_at), a.uid LIMIT ?2";

static bool attempt_row(sqlite3_stmt *st, void *rec, void *arg) {
    (void)arg;
    struct store_attempt_info *a = rec;
    store_column_copy(st, 0, a->uid, sizeof a->uid);
    store_column_copy(st, 1, a->name, sizeof a->name);
    store_column_copy(st, 2, a->node, sizeof a->node);
    store_column_copy(st, 3, a->pool_id, sizeof a->pool_id);
    store_column_copy(st, 4, a->pool, sizeof a->pool);
    store_column_copy(st, 5, a->capacity_type, sizeof a->capacity_type);
    store_column_copy(st, 6, a->reason, sizeof a->reason);
    store_column_copy(st, 7, a->phase, sizeof a->phase);
    a->has_exit_code = sqlite3_column_type(st, 8) != SQLITE_NULL;
    a->exit_code = sqlite3_column_int64(st, 8);
    return true;
}

enum err store_task_attempts(struct store *s, const char *task_uid, struct store_attempt_info *out,
                             size_t max, size_t *n) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_TASK_ATTEMPTS, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, task_uid);
    sqlite3_bind_int64(st, 2, (int64_t)max);
    return store_rows_into(s, st, out, sizeof *out, max, attempt_row, NULL, n, "task attempts");
}

static bool experiment_row(sqlite3_stmt *st, void *rec, void *arg) {
    (void)arg;
    store_column_copy(st, 0, rec, 256);
    return true;
}

static const char SQL_EXPERIMENTS[] =
    "SELECT DISTINCT experiment FROM tasks WHERE experiment IS NOT NULL AND experiment != '' "
    "AND " STORE_IN_CLUSTERS("cluster") " ORDER BY experiment LIMIT :max";

enum err store_experiments(struct store *s, const char *clusters, char (*out)[256], size_t max,
                           size_t *n) {
    store_set_read_clusters(s, clusters && *clusters ? clusters : NULL);
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_EXPERIMENTS, &st);
    if (rc != ERR_OK)
        return rc;
    sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":max"), (int64_t)max);
    return store_rows_into(s, st, out, sizeof *out, max, experiment_row, NULL, n, "experiments");
}

static const char SQL_MARKS[] = "SELECT coalesce(sum(n), 0), count(*) FROM change_marks "
                                "WHERE day = 0 OR (day >= ?1 AND day <= ?2)";
/* schema/010: facts that span days, counted where their span meets [?1, ?2];
 * schema/011: billing facts, likewise (a window's reconciliation) */
static const char SQL_SPANS[] = "SELECT coalesce(sum(n), 0), count(*) FROM change_spans "
                                "WHERE lo <= ?2 AND hi >= ?1";
static const char SQL_BILLING[] = "SELECT coalesce(sum(n), 0), count(*) FROM billing_spans "
                                  "WHERE lo <= ?2 AND hi >= ?1";

enum err store_window_version(struct store *s, int64_t from, int64_t to, int64_t out[2]) {
    uint64_t gen = 0;
    bool tracked = store_gen_current(s, &gen);
    if (tracked && store_memo_window(store_memo(s), gen, from, to, out))
        return ERR_OK;
    /* how far facts reach: the longest attempt (span) and task (life) */
    int64_t span, life;
    enum err rc = store_cost_task_bounds(s, &span, &life);
    if (rc != ERR_OK)
        return rc;
    int64_t lo = from - span - life - 86400, hi = to + life + 86400;
    int64_t v[2] = {0, 0};
    const char *const sql[3] = {SQL_MARKS, SQL_SPANS, SQL_BILLING};
    for (int k = 0; k < 3 && rc == ERR_OK; k++) {
        sqlite3_stmt *st;
        if ((rc = store_stmt_window(s, sql[k], lo < 0 ? 0 : lo / 86400, hi / 86400, &st)) != ERR_OK)
            return rc;
        int r = sqlite3_step(st);
        if (r == SQLITE_ROW) {
            v[0] += sqlite3_column_int64(st, 0);
            v[1] += sqlite3_column_int64(st, 1);
        } else {
            rc = store_fail(s, r, "window version");
        }
        sqlite3_reset(st);
    }
    if (rc == ERR_OK) {
        out[0] = v[0];
        out[1] = v[1];
        if (tracked)
            store_memo_set_window(store_memo(s), gen, from, to, out);
    }
    return rc;
}

/* ---- per-day versions (store_day_versions) ---------------------------------- */

static const char SQL_MARKS_BY_DAY[] = "SELECT day, n FROM change_marks "
                                       "WHERE day = 0 OR (day >= ?1 AND day <= ?2) ORDER BY day";

/* First index in day[0..n) with day[i] >= d. */
static size_t lower(const int64_t *day, size_t n, int64_t d) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (day[mid] < d)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A span's end and its weight, sortable by the end. */
struct span_end {
    int64_t day, n;
};

static int cmp_end(const void *a, const void *b) {
    const struct span_end *x = a, *y = b;
    return (x->day > y->day) - (x->day < y->day);
}

/* The spans (schema/010) that meet [lo, hi], sorted by first day (by_lo) and by
 * last day (by_hi), each with prefix sums of n (pre_*[i] = Σ n of entries before
 * i): a day's reach [a, b] meets every span except those starting after b and
 * those ending before a, two disjoint sets counted by binary search. */
struct spans {
    struct span_end *by_lo, *by_hi;
    int64_t *pre_lo, *pre_hi, total;
    size_t n;
};

static const char SQL_SPANS_ALL[] =
    "SELECT lo, hi, n FROM change_spans WHERE lo <= ?2 AND hi >= ?1";

static enum err spans_load(struct store *s, int64_t lo, int64_t hi, struct spans *sp) {
    memset(sp, 0, sizeof *sp);
    sqlite3_stmt *st;
    enum err rc = store_stmt_window(s, SQL_SPANS_ALL, lo, hi, &st);
    if (rc != ERR_OK)
        return rc;
    size_t cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        if (sp->n == cap) {
            cap = cap ? cap * 2 : 64;
            sp->by_lo = xrealloc(sp->by_lo, cap * sizeof *sp->by_lo);
            sp->by_hi = xrealloc(sp->by_hi, cap * sizeof *sp->by_hi);
        }
        int64_t n = sqlite3_column_int64(st, 2);
        sp->by_lo[sp->n] = (struct span_end){sqlite3_column_int64(st, 0), n};
        sp->by_hi[sp->n] = (struct span_end){sqlite3_column_int64(st, 1), n};
        sp->total += n;
        sp->n++;
    }
    rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, "change spans");
    sqlite3_reset(st);
    if (sp->n) {
        qsort(sp->by_lo, sp->n, sizeof *sp->by_lo, cmp_end);
        qsort(sp->by_hi, sp->n, sizeof *sp->by_hi, cmp_end);
    }
    sp->pre_lo = xcalloc(sp->n + 1, sizeof *sp->pre_lo);
    sp->pre_hi = xcalloc(sp->n + 1, sizeof *sp->pre_hi);
    for (size_t i = 0; i < sp->n; i++) {
        sp->pre_lo[i + 1] = sp->pre_lo[i] + sp->by_lo[i].n;
        sp->pre_hi[i + 1] = sp->pre_hi[i] + sp->by_hi[i].n;
    }
    return rc;
}

/* First index in v[0..n) with v[i].day >= d. */
static size_t lower_end(const struct span_end *v, size_t n, int64_t d) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].day < d)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Σ n and count of the spans meeting [a, b] (a <= b). */
static void spans_meeting(const struct spans *sp, int64_t a, int64_t b, int64_t *sum,
                          int64_t *cnt) {
    size_t after = lower_end(sp->by_lo, sp->n, b + 1); /* lo > b: [after, n) */
    size_t before = lower_end(sp->by_hi, sp->n, a);    /* hi < a: [0, before) */
    *sum = sp->total - (sp->pre_lo[sp->n] - sp->pre_lo[after]) - sp->pre_hi[before];
    *cnt = (int64_t)sp->n - (int64_t)(sp->n - after) - (int64_t)before;
}

static void spans_free(struct spans *sp) {
    free(sp->by_lo);
    free(sp->by_hi);
    free(sp->pre_lo);
    free(sp->pre_hi);
}

static void day_range(int64_t d, int64_t span, int64_t life, int64_t *lo_d, int64_t *hi_d) {
    int64_t lo = d * 86400 - span - life - 86400, hi = (d + 1) * 86400 + life + 86400;
    *lo_d = lo < 0 ? 0 : lo / 86400;
    *hi_d = hi / 86400;
}

enum err store_day_versions(struct store *s, int64_t d0, int64_t d1, int64_t (*out)[2]) {
    if (d1 <= d0 || d1 - d0 > 4000 || d0 < 0)
        return ERR_INVAL;
    int64_t span, life;
    enum err rc = store_cost_task_bounds(s, &span, &life);
    if (rc != ERR_OK)
        return rc;
    int64_t lo0, hi0, lo1, hi1;
    day_range(d0, span, life, &lo0, &hi0);
    day_range(d1 - 1, span, life, &lo1, &hi1);
    sqlite3_stmt *st;
    if ((rc = store_stmt_window(s, SQL_MARKS_BY_DAY, lo0, hi1, &st)) != ERR_OK)
        return rc;
    int64_t *day = NULL, *pre = NULL; /* pre[i] = Σ n of rows before i */
    size_t n = 0, cap = 0;
    int64_t n0 = 0;
    bool have0 = false;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t d = sqlite3_column_int64(st, 0), v = sqlite3_column_int64(st, 1);
        if (d == 0) {
            have0 = true;
            n0 = v;
            if (lo0 > 0)
                continue; /* counted apart: day 0 is in every version */
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            day = xrealloc(day, cap * sizeof *day);
            pre = xrealloc(pre, (cap + 1) * sizeof *pre);
        }
        if (n == 0)
            pre[0] = 0;
        day[n] = d;
        pre[n + 1] = pre[n] + v;
        n++;
    }
    rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, "day versions");
    sqlite3_reset(st);
    struct spans sp;
    if (rc == ERR_OK)
        rc = spans_load(s, lo0, hi1, &sp);
    else
        memset(&sp, 0, sizeof sp);
    for (int64_t d = d0; rc == ERR_OK && d < d1; d++) {
        int64_t lo_d, hi_d;
        day_range(d, span, life, &lo_d, &hi_d);
        size_t a = lower(day, n, lo_d), b = lower(day, n, hi_d + 1);
        int64_t sum = n ? pre[b] - pre[a] : 0, cnt = (int64_t)(b - a);
        /* day 0 when it is outside [lo_d, hi_d] (store_window_version's OR) */
        if (have0 && lo_d > 0) {
            sum += n0;
            cnt++;
        }
        int64_t ssum, scnt;
        spans_meeting(&sp, lo_d, hi_d, &ssum, &scnt);
        out[d - d0][0] = sum + ssum;
        out[d - d0][1] = cnt + scnt;
    }
    spans_free(&sp);
    free(day);
    free(pre);
    return rc;
}

static const char SQL_CLUSTER_NAMES[] =
    "SELECT cluster FROM node_pools UNION SELECT cluster FROM nodes "
    "UNION SELECT cluster FROM tasks ORDER BY 1";

enum err store_cluster_names(struct store *s, const char *clusters,
                             char (*out)[STORE_CLUSTER_NAME_MAX], size_t max, size_t *n) {
    sqlite3_stmt *st;
    *n = 0;
    enum err rc = store_stmt(s, SQL_CLUSTER_NAMES, &st);
    if (rc != ERR_OK)
        return rc;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW && *n < max) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        size_t len = c ? strlen(c) : 0;
        if (!len || len >= STORE_CLUSTER_NAME_MAX)
            continue;
        if (clusters) { /* ",a,b," holds ",c," */
            const char *p = strstr(clusters, c);
            bool in = false;
            for (; p && !in; p = strstr(p + 1, c))
                in = p > clusters && p[-1] == ',' && p[len] == ',';
            if (!in)
                continue;
        }
        memcpy(out[*n], c, len + 1);
        (*n)++;
    }
    rc = r == SQLITE_ROW || r == SQLITE_DONE ? ERR_OK : store_fail(s, r, "cluster names");
    sqlite3_reset(st);
    return rc;
}
