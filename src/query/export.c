#include "query/export.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service/app.h"
#include "query/calc.h"
#include "base/csv.h"
#include "base/fileutil.h"
#include "base/log.h"
#include "base/money.h"
#include "store/store.h"
#include "store/store_export.h"
#include "store/store_read.h"
#include "base/timeutil.h"
#include "base/xalloc.h"

#define EXPORT_MAX_BYTES (512u * 1024 * 1024)

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

/* basis points as a decimal percentage, empty when unknown */
static void csv_bp(struct csv *c, int64_t bp) {
    if (bp == COST_NULL) {
        csv_text(c, NULL);
        return;
    }
    char tmp[32];
    int64_t m = bp < 0 ? -bp : bp;
    snprintf(tmp, sizeof tmp, "%s%lld.%02lld", bp < 0 ? "-" : "", (long long)(m / 100),
             (long long)(m % 100));
    csv_number(c, tmp);
}

static void csv_opt_money(struct csv *c, int64_t v) {
    if (v == COST_NULL)
        csv_text(c, NULL);
    else
        csv_money(c, v);
}

static void csv_opt_int(struct csv *c, int64_t v) {
    if (v == COST_NULL)
        csv_text(c, NULL);
    else
        csv_int(c, v);
}

static const char *const summary_header[] = {"period",
                                             "from",
                                             "to",
                                             "configuration",
                                             "basis",
                                             "tasks_succeeded",
                                             "tasks_failed",
                                             "tasks_running",
                                             "attempts",
                                             "retries",
                                             "interruptions",
                                             "duplicates",
                                             "cost_usd",
                                             "cost_per_successful_task_usd",
                                             "useful_cost_usd",
                                             "restore_cost_usd",
                                             "wasted_cost_usd",
                                             "running_cost_usd",
                                             "idle_cost_usd",
                                             "restore_seconds_total",
                                             "restore_seconds_p50",
                                             "restore_seconds_p95",
                                             "savings_vs_on_demand_percent",
                                             "break_even_overhead_percent",
                                             "measured_overhead_percent",
                                             NULL};

enum err export_summary_csv(const struct cost_result *r, const char *label, struct buf *out) {
    struct csv c;
    csv_init(&c, out);
    for (int i = 0; summary_header[i]; i++)
        csv_text(&c, summary_header[i]);
    csv_end_record(&c);
    for (int k = 0; k < COST_NCONFIG; k++) {
        const struct cost_config_result *cr = &r->configs[k];
        csv_text(&c, label);
        csv_time(&c, r->from);
        csv_time(&c, r->to);
        csv_text(&c, cost_config_name((enum cost_config)k));
        csv_text(&c, "measured");
        csv_int(&c, cr->tasks_succeeded);
        csv_int(&c, cr->tasks_failed);
        csv_int(&c, cr->tasks_running);
        csv_int(&c, cr->attempts);
        csv_int(&c, cr->retries);
        csv_int(&c, cr->interruptions);
        csv_int(&c, cr->duplicates);
        csv_money(&c, cr->cost);
        csv_opt_money(&c, cr->cost_per_successful_task);
        csv_money(&c, cr->useful_cost);
        csv_money(&c, cr->restore_cost);
        csv_money(&c, cr->wasted_cost);
        csv_money(&c, cr->running_cost);
        csv_money(&c, cr->idle_cost);
        csv_int(&c, cr->restore.total);
        csv_opt_int(&c, cr->restore.p50);
        csv_opt_int(&c, cr->restore.p95);
        csv_bp(&c, cr->savings_vs_on_demand_bp);
        csv_bp(&c, cr->break_even_overhead_bp);
        csv_bp(&c, cr->measured_overhead_bp);
        csv_end_record(&c);
    }
    const struct cost_counterfactual *cf = &r->counterfactual;
    csv_text(&c, label);
    csv_time(&c, r->from);
    csv_time(&c, r->to);
    csv_text(&c, "on-demand");
    csv_text(&c, "counterfactual");
    csv_int(&c, cf->tasks);     /* as the API's tasks_succeeded of this row */
    for (int i = 0; i < 6; i++) /* failed .. duplicates: not applicable */
        csv_text(&c, NULL);
    csv_money(&c, cf->cost);
    csv_opt_money(&c, cf->cost_per_successful_task);
    for (int i = 0; i < 11; i++)
        csv_text(&c, NULL);
    csv_end_record(&c);
    return c.rc;
}

static const char *const tasks_header[] = {"task_uid",        "namespace",  "name",
                                           "configuration",   "experiment", "outcome",
                                           "attempts",        "retries",    "interruptions",
                                           "restore_seconds", "cost_usd",   "wasted_cost_usd",
                                           "completed_at",    NULL};

enum err export_tasks_csv(const struct cost_input *in, const char *const *names,
                          const struct taskview_row *rows, size_t n, struct buf *out) {
    static const char *const outcomes[] = {"running", "succeeded", "failed"};
    struct csv c;
    csv_init(&c, out);
    for (int i = 0; tasks_header[i]; i++)
        csv_text(&c, tasks_header[i]);
    csv_end_record(&c);
    for (size_t i = 0; i < n && c.rc == ERR_OK; i++) {
        const struct taskview_row *row = &rows[i];
        const struct cost_task *t = &in->tasks[row->task];
        csv_text(&c, t->uid);
        csv_text(&c, t->ns);
        csv_text(&c, names ? names[row->task] : NULL);
        csv_text(&c, cost_config_name(t->config));
        csv_text(&c, t->experiment);
        csv_text(&c, outcomes[t->outcome]);
        csv_int(&c, row->attempts);
        csv_int(&c, row->retries);
        csv_int(&c, row->interruptions);
        csv_int(&c, row->restore_seconds);
        csv_money(&c, row->cost);
        csv_money(&c, row->wasted_cost);
        csv_time(&c, t->outcome == COST_TASK_RUNNING ? 0 : t->completed_at);
        csv_end_record(&c);
    }
    return c.rc;
}

enum err export_build(struct store *db, struct app *app, enum export_kind kind, int64_t from,
                      int64_t to, const char *label, int64_t now, struct buf *out, int64_t *rows) {
    const struct calc_settings *cfg = app ? &app->calc : NULL;
    struct calc c;
    enum err rc;
    if (kind == EXPORT_SUMMARY) {
        struct cost_query q;
        memset(&q, 0, sizeof q);
        q.from = from;
        q.to = to;
        q.now = now;
        rc = calc_run(db, cfg, from, to, &q, &c);
        if (rc != ERR_OK)
            return rc;
        rc = export_summary_csv(c.res, label, out);
        if (rows)
            *rows = COST_NCONFIG + 1;
        calc_release(&c);
        return rc;
    }
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
        rc = export_tasks_csv(&c.data->in, c.data->task_names, tr, n, out);
        if (rows)
            *rows = (int64_t)n;
    }
    free(tr);
    calc_release(&c);
    return rc;
}

enum err export_week(struct store *db, struct app *app, const char *dir, int64_t week_start,
                     int64_t now) {
    char label[TIMEUTIL_ISOWEEK_MAX];
    timeutil_format_iso_week(week_start, label);
    for (int k = 0; k < 2; k++) {
        struct buf b;
        buf_init(&b, EXPORT_MAX_BYTES);
        int64_t rows = 0;
        /* a closed week is computed as of its end, so re-exports are identical */
        int64_t as_of = week_start + 7 * 86400;
        enum err rc = export_build(db, app, (enum export_kind)k, week_start, as_of, label,
                                   now < as_of ? now : as_of, &b, &rows);
        char name[96];
        export_file_name(week_start, (enum export_kind)k, name, sizeof name);
        if (rc == ERR_OK)
            rc = fileutil_write_atomic(dir, name, b.data ? b.data : "", b.len);
        if (rc == ERR_OK) {
            struct store_export_row row;
            memset(&row, 0, sizeof row);
            snprintf(row.week, sizeof row.week, "%s", label);
            snprintf(row.kind, sizeof row.kind, "%s", kind_names[k]);
            snprintf(row.path, sizeof row.path, "%s/%s", dir, name);
            row.bytes = (int64_t)b.len;
            row.rows = rows;
            row.written_at = now;
            pthread_mutex_lock(&app->writer_lock);
            rc = store_export_put(app->writer, &row);
            pthread_mutex_unlock(&app->writer_lock);
        }
        buf_release(&b);
        if (rc != ERR_OK) {
            log_msg(LOG_ERROR, "export: week '%s' %s failed: %s", label, kind_names[k],
                    err_str(rc));
            return rc;
        }
    }
    log_msg(LOG_INFO, "export: wrote week '%s'", label);
    return ERR_OK;
}

/* ---- the background exporter ------------------------------------------------ */

struct exporter {
    struct app *app;
    char *db_path;
    char *dir;
    pthread_t thread;
    bool started;
};

static void export_due(struct exporter *e, struct store *db) {
    int64_t now = 0, first = 0;
    if (store_source_now(db, &now) != ERR_OK || store_first_data_time(db, &first) != ERR_OK)
        return; /* no data yet */
    int y, w;
    timeutil_iso_week(first, &y, &w);
    int64_t ws;
    if (timeutil_iso_week_start(y, w, &ws) != ERR_OK)
        return;
    for (; ws + 7 * 86400 <= now && !app_stopping(e->app); ws += 7 * 86400) {
        char label[TIMEUTIL_ISOWEEK_MAX], name[96], path[1024];
        struct store_export_row row;
        timeutil_format_iso_week(ws, label);
        bool have = true;
        for (int k = 0; k < 2; k++) {
            export_file_name(ws, (enum export_kind)k, name, sizeof name);
            snprintf(path, sizeof path, "%s/%s", e->dir, name);
            FILE *f = fopen(path, "rb");
            if (f)
                fclose(f);
            if (!f || store_export_get(db, label, kind_names[k], &row) != ERR_OK)
                have = false;
        }
        if (!have && export_week(db, e->app, e->dir, ws, now) != ERR_OK)
            return; /* try again next round */
    }
}

static void *export_main(void *arg) {
    struct exporter *e = arg;
    uint64_t gen = 0;
    while (!app_stopping(e->app)) {
        struct store *db = NULL;
        if (store_open(e->db_path, STORE_READER, &db, NULL) == ERR_OK) {
            export_due(e, db);
            store_free(db);
        }
        app_wait(e->app, 60 * 1000L, &gen);
    }
    return NULL;
}

enum err export_start(struct app *app, const char *db_path, const char *dir,
                      struct exporter **out) {
    if (fileutil_ensure_dir(dir) != ERR_OK)
        return ERR_IO;
    int cleaned = fileutil_clean_temporaries(dir);
    if (cleaned)
        log_msg(LOG_WARN, "export: removed %d partial file%s left by an interrupted write", cleaned,
                cleaned == 1 ? "" : "s");
    struct exporter *e = xcalloc(1, sizeof *e);
    e->app = app;
    e->db_path = xstrdup(db_path);
    e->dir = xstrdup(dir);
    if (pthread_create(&e->thread, NULL, export_main, e) != 0) {
        free(e->db_path);
        free(e->dir);
        free(e);
        return ERR_NOMEM;
    }
    e->started = true;
    *out = e;
    return ERR_OK;
}

void export_stop(struct exporter *e) {
    if (!e)
        return;
    app_stop(e->app);
    if (e->started)
        pthread_join(e->thread, NULL);
    free(e->db_path);
    free(e->dir);
    free(e);
}
