#include "query/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/calc.h"
#include "base/csv.h"
#include "base/money.h"
#include "base/timeutil.h"

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

enum err export_build(struct store *db, const struct calc_settings *cfg, enum export_kind kind,
                      int64_t from, int64_t to, const char *label, int64_t now, struct buf *out,
                      int64_t *rows) {
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
