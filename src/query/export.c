#include "query/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/calc.h"
#include "base/csv.h"
#include "base/money.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "model/settings.h"
#include "store/store_read.h"

static const char *const kind_names[] = {"summary", "tasks"};

enum err export_kind_parse(const char *s, enum export_kind *out) {
    for (int i = 0; i < 2; i++)
        if (!strcmp(s, kind_names[i])) {
            *out = (enum export_kind)i;
            return ERR_OK;
        }
    return ERR_INVAL;
}

const char *export_kind_name(enum export_kind k) {
    return kind_names[k];
}

void export_file_name(int64_t week_start, enum export_kind kind, char *out, size_t len) {
    char wk[TIMEUTIL_ISOWEEK_MAX];
    timeutil_format_iso_week(week_start, wk);
    snprintf(out, len, "spotledger-%s-%s.csv", wk, kind_names[kind]);
}

/* ---- one writer for both formats -------------------------------------------
 * The rows are produced once (export_summary_rows, export_tasks_rows) into a
 * sink: the CSV sink prints them (base/csv), the .xlsx sink (export_xlsx.c)
 * types them. A NULL text and COST_NULL numbers are empty cells. */

static void csv_sink_header(void *ctx, const char *const *names) {
    struct csv *c = ctx;
    for (int i = 0; names[i]; i++)
        csv_text(c, names[i]);
    csv_end_record(c);
}
static void csv_sink_text(void *ctx, const char *s) {
    csv_text(ctx, s);
}
static void csv_sink_int(void *ctx, int64_t v) {
    if (v == COST_NULL)
        csv_text(ctx, NULL);
    else
        csv_int(ctx, v);
}
static void csv_sink_money(void *ctx, int64_t micro) {
    if (micro == COST_NULL)
        csv_text(ctx, NULL);
    else
        csv_money(ctx, micro);
}
/* basis points as a decimal percentage */
static void csv_sink_percent_bp(void *ctx, int64_t bp) {
    if (bp == COST_NULL) {
        csv_text(ctx, NULL);
        return;
    }
    char tmp[32];
    int64_t m = bp < 0 ? -bp : bp;
    snprintf(tmp, sizeof tmp, "%s%lld.%02lld", bp < 0 ? "-" : "", (long long)(m / 100),
             (long long)(m % 100));
    csv_number(ctx, tmp);
}
static void csv_sink_time(void *ctx, int64_t t) {
    csv_time(ctx, t);
}
static void csv_sink_end(void *ctx) {
    csv_end_record(ctx);
}

void export_csv_sink_init(struct export_sink *k, struct csv *c, struct buf *out) {
    csv_init(c, out);
    *k = (struct export_sink){.ctx = c,
                              .header = csv_sink_header,
                              .text = csv_sink_text,
                              .integer = csv_sink_int,
                              .money = csv_sink_money,
                              .percent_bp = csv_sink_percent_bp,
                              .time = csv_sink_time,
                              .end = csv_sink_end};
}

const char *const export_tasks_header[] = {
    "task_uid", "namespace", "name", "configuration", "experiment", "outcome", "attempts",
    "retries", "interruptions", "restore_seconds", "cost_usd", "wasted_cost_usd", "completed_at",
    /* added with the fleet (docs/fleet.md): appended so
       the earlier columns keep their places */
    "cluster", NULL};

void export_tasks_rows(const struct cost_input *in, const char *const *names,
                       const char *const *clusters, const struct taskview_row *rows, size_t n,
                       const struct export_sink *k) {
    static const char *const outcomes[] = {"running", "succeeded", "failed"};
    void *x = k->ctx;
    k->header(x, export_tasks_header);
    for (size_t i = 0; i < n; i++) {
        const struct taskview_row *row = &rows[i];
        const struct cost_task *t = &in->tasks[row->task];
        k->text(x, t->uid);
        k->text(x, t->ns);
        k->text(x, names ? names[row->task] : NULL);
        k->text(x, cost_config_name(t->config));
        k->text(x, t->experiment);
        k->text(x, outcomes[t->outcome]);
        k->integer(x, row->attempts);
        k->integer(x, row->retries);
        k->integer(x, row->interruptions);
        k->integer(x, row->restore_seconds);
        k->money(x, row->cost);
        k->money(x, row->wasted_cost);
        k->time(x, t->outcome == COST_TASK_RUNNING ? 0 : t->completed_at);
        k->text(x, clusters ? clusters[row->task] : NULL);
        k->end(x);
    }
}

enum err export_tasks_csv(const struct cost_input *in, const char *const *names,
                          const char *const *clusters, const struct taskview_row *rows, size_t n,
                          struct buf *out) {
    struct csv c;
    struct export_sink k;
    export_csv_sink_init(&k, &c, out);
    export_tasks_rows(in, names, clusters, rows, n, &k);
    return c.rc;
}

/* The summary of [from, to) on o's basis with its intervals, to every sink.
 * The intervals are drawn from the accrual window's tasks (docs/uncertainty.md);
 * on the completion basis their cells are empty and say so. */
static enum err summary_sinks(struct store *db, const struct calc_settings *cfg, int64_t from,
                              int64_t to, const char *label, int64_t now,
                              const struct export_opts *o, bool no_header,
                              const struct export_sink *const *sinks, int nsinks) {
    struct calc c;
    struct cost_query q;
    memset(&q, 0, sizeof q);
    q.from = from;
    q.to = to;
    q.now = now;
    bool completion = o && o->completion;
    int resamples = o ? o->resamples : 0;
    struct cost_completion comp;
    struct unc_result unc;
    /* the cluster cell names the selection ",a,b," as "a,b" (docs/fleet.md) */
    char cluster[EXPORT_CLUSTER_CELL_MAX] = "";
    if (cfg && cfg->clusters && cfg->clusters[0] == ',' && cfg->clusters[1]) {
        snprintf(cluster, sizeof cluster, "%s", cfg->clusters + 1);
        size_t len = strlen(cluster);
        if (len && cluster[len - 1] == ',')
            cluster[len - 1] = '\0';
    }
    struct export_summary_extra e = {
        .comp = completion ? &comp : NULL, .cluster = cluster, .no_header = no_header};
    char why[96];
    enum err rc;
    if (completion) {
        rc = calc_completion(db, cfg, from, to, &q, &c, &comp);
        e.unc_reason = UNC_REASON_COMPLETION;
    } else {
        if (to - from > (int64_t)UNC_MAX_WINDOW_DAYS * 86400) {
            resamples = -1;
            snprintf(why, sizeof why, "windows longer than %d days are not resampled",
                     UNC_MAX_WINDOW_DAYS);
            e.unc_reason = why;
        }
        q.want_attempts = resamples >= 0; /* the bootstrap reads per-task figures */
        rc = calc_run(db, cfg, from, to, &q, &c);
    }
    if (rc != ERR_OK)
        return rc;
    if (!completion && resamples >= 0) {
        struct boot_params p = {.resamples = resamples};
        rc = unc_compute(&c.data->in, &q, c.res, &p, &unc);
        e.unc = rc == ERR_OK ? &unc : NULL;
    }
    if (rc == ERR_OK)
        for (int i = 0; i < nsinks; i++)
            export_summary_rows(c.res, label, &e, sinks[i]);
    calc_release(&c);
    return rc;
}

/* The summary rows of each cluster holding pools, nodes or tasks (narrowed by
 * cfg->clusters), sorted by name, under one header: each cluster's rows are the
 * file of cluster=NAME (docs/fleet.md). */
static enum err summary_by_cluster(struct store *db, const struct calc_settings *cfg, int64_t from,
                                   int64_t to, const char *label, int64_t now,
                                   const struct export_opts *o,
                                   const struct export_sink *const *sinks, int nsinks,
                                   int64_t *rows) {
    char(*names)[STORE_CLUSTER_NAME_MAX] = xcalloc(EXPORT_CLUSTERS_MAX, sizeof *names);
    size_t n = 0;
    enum err rc =
        store_cluster_names(db, cfg ? cfg->clusters : NULL, names, EXPORT_CLUSTERS_MAX, &n);
    if (rc == ERR_OK && n == 0)
        for (int i = 0; i < nsinks; i++)
            sinks[i]->header(sinks[i]->ctx, export_summary_header);
    struct calc_settings one;
    if (cfg)
        one = *cfg;
    else
        memset(&one, 0, sizeof one);
    char sel[STORE_CLUSTER_NAME_MAX + 2];
    for (size_t i = 0; i < n && rc == ERR_OK; i++) {
        snprintf(sel, sizeof sel, ",%s,", names[i]);
        one.clusters = sel;
        rc = summary_sinks(db, &one, from, to, label, now, o, i > 0, sinks, nsinks);
    }
    free(names);
    if (rc == ERR_OK && rows)
        *rows = (int64_t)n * (COST_NCONFIG + 1);
    return rc;
}

/* Computes the rows of one kind for [from, to) once and hands them to every sink. */
enum err export_build_sinks(struct store *db, const struct calc_settings *cfg,
                            enum export_kind kind, int64_t from, int64_t to, const char *label,
                            int64_t now, const struct export_opts *o,
                            const struct export_sink *const *sinks, int nsinks, int64_t *rows) {
    struct calc c;
    enum err rc;
    if (kind == EXPORT_SUMMARY && o && o->by_cluster)
        return summary_by_cluster(db, cfg, from, to, label, now, o, sinks, nsinks, rows);
    if (kind == EXPORT_SUMMARY) {
        rc = summary_sinks(db, cfg, from, to, label, now, o, false, sinks, nsinks);
        if (rc == ERR_OK && rows)
            *rows = COST_NCONFIG + 1;
        return rc;
    }
    if (o && o->completion)
        return ERR_INVAL; /* the tasks file has one basis (README "CSV exports") */
    rc = calc_task_life(db, cfg, from, to, now, &c);
    if (rc != ERR_OK)
        return rc;
    struct taskview_filter f = {.from = from, .to = to, .outcome = -1};
    struct taskview_row *tr = NULL;
    size_t n = 0;
    rc = taskview_build(&c.data->in, c.res, &f, &tr, &n);
    if (rc == ERR_OK) {
        /* oldest first: a ledger reads forward */
        taskview_sort(&c.data->in, tr, n, TASKVIEW_BY_COMPLETED, false);
        for (int i = 0; i < nsinks; i++)
            export_tasks_rows(&c.data->in, c.data->task_names, c.data->task_clusters, tr, n,
                              sinks[i]);
        if (rows)
            *rows = (int64_t)n;
    }
    free(tr);
    calc_release(&c);
    return rc;
}

enum err export_build_opts(struct store *db, const struct calc_settings *cfg, enum export_kind kind,
                           int64_t from, int64_t to, const char *label, int64_t now,
                           const struct export_opts *o, struct buf *out, int64_t *rows) {
    struct csv c;
    struct export_sink k;
    export_csv_sink_init(&k, &c, out);
    const struct export_sink *sinks[] = {&k};
    enum err rc = export_build_sinks(db, cfg, kind, from, to, label, now, o, sinks, 1, rows);
    return rc != ERR_OK ? rc : c.rc;
}

enum err export_build(struct store *db, const struct calc_settings *cfg, enum export_kind kind,
                      int64_t from, int64_t to, const char *label, int64_t now, struct buf *out,
                      int64_t *rows) {
    return export_build_opts(db, cfg, kind, from, to, label, now, NULL, out, rows);
}
