/* export_summary — the rows of the weekly summary file (export.h,
 * README "CSV exports"): one per configuration, then the counterfactual. */
#include <stdio.h>
#include <string.h>

#include "base/csv.h"
#include "query/export.h"

const char *const export_summary_header[] = {
    "period", "from", "to", "configuration", "basis", "tasks_succeeded", "tasks_failed",
    "tasks_running", "attempts", "retries", "interruptions", "duplicates", "cost_usd",
    "cost_per_successful_task_usd", "useful_cost_usd", "restore_cost_usd", "wasted_cost_usd",
    "running_cost_usd", "idle_cost_usd", "restore_seconds_total", "restore_seconds_p50",
    "restore_seconds_p95", "savings_vs_on_demand_percent", "break_even_overhead_percent",
    "measured_overhead_percent",
    /* added after the first release: appended so
       the earlier columns keep their places */
    "cost_basis", "cost_per_successful_task_low_usd", "cost_per_successful_task_high_usd",
    "interval_reason", "difference_vs_counterfactual_low_usd",
    "difference_vs_counterfactual_high_usd", "verdict_vs_counterfactual",
    "difference_vs_on_demand_low_usd", "difference_vs_on_demand_high_usd", "verdict_vs_on_demand",
    /* added with the fleet (docs/fleet.md), appended as well */
    "cluster", NULL};

/* The columns after measured_overhead_percent that hold intervals. */
#define INTERVAL_COLUMNS 9

/* low, high of an interval (empty cells without one) */
static void interval_cells(const struct boot_interval *b, const struct export_sink *k) {
    k->money(k->ctx, b && b->ok ? b->lo : COST_NULL);
    k->money(k->ctx, b && b->ok ? b->hi : COST_NULL);
}

/* difference low, high and the verdict text of one comparison of configuration c */
static void diff_cells(const struct export_summary_extra *e, int d, const struct export_sink *k) {
    if (d < 0 || !e || !e->unc) {
        interval_cells(NULL, k);
        k->text(k->ctx, NULL);
        return;
    }
    char text[256];
    interval_cells(&e->unc->diff[d], k);
    unc_diff_text(e->unc, (enum unc_diff)d, text, sizeof text);
    k->text(k->ctx, text);
}

static void interval_row(const struct export_summary_extra *e, int c, const struct export_sink *k) {
    static const int vs_cf[COST_NCONFIG] = {UNC_SPOT_VS_COUNTERFACTUAL,
                                            UNC_FALLBACK_VS_COUNTERFACTUAL, -1};
    static const int vs_od[COST_NCONFIG] = {UNC_SPOT_VS_ON_DEMAND, UNC_FALLBACK_VS_ON_DEMAND, -1};
    const struct boot_interval *pt = e && e->unc ? &e->unc->per_task[c] : NULL;
    interval_cells(pt, k);
    if (pt)
        k->text(k->ctx, pt->ok ? NULL : pt->reason);
    else
        k->text(k->ctx, e && e->unc_reason ? e->unc_reason : NULL);
    diff_cells(e, vs_cf[c], k);
    diff_cells(e, vs_od[c], k);
}

void export_summary_rows(const struct cost_result *r, const char *label,
                         const struct export_summary_extra *e, const struct export_sink *k) {
    void *x = k->ctx;
    const struct cost_completion *comp = e ? e->comp : NULL;
    const char *cost_basis = comp ? "completion" : "accrual";
    const char *cluster = e && e->cluster && *e->cluster ? e->cluster : NULL;
    if (!e || !e->no_header)
        k->header(x, export_summary_header);
    for (int i = 0; i < COST_NCONFIG; i++) {
        const struct cost_config_result *cr = &r->configs[i];
        /* the completion basis replaces the money of the tasks succeeding in
         * the window (as the API's summary: src/query/report.h) */
        const struct cost_basis_config *bc = comp ? &comp->configs[i] : NULL;
        k->text(x, label);
        k->time(x, r->from);
        k->time(x, r->to);
        k->text(x, cost_config_name((enum cost_config)i));
        k->text(x, "measured");
        k->integer(x, bc ? bc->tasks_succeeded : cr->tasks_succeeded);
        k->integer(x, cr->tasks_failed);
        k->integer(x, cr->tasks_running);
        k->integer(x, cr->attempts);
        k->integer(x, cr->retries);
        k->integer(x, cr->interruptions);
        k->integer(x, cr->duplicates);
        k->money(x, bc ? bc->cost : cr->cost);
        k->money(x, bc ? bc->cost_per_successful_task : cr->cost_per_successful_task);
        k->money(x, bc ? bc->useful_cost : cr->useful_cost);
        k->money(x, bc ? bc->restore_cost : cr->restore_cost);
        k->money(x, bc ? bc->wasted_cost : cr->wasted_cost);
        k->money(x, bc ? bc->running_cost : cr->running_cost);
        k->money(x, bc ? bc->idle_cost : cr->idle_cost);
        k->integer(x, cr->restore.total);
        k->integer(x, cr->restore.p50);
        k->integer(x, cr->restore.p95);
        k->percent_bp(x, bc ? bc->savings_vs_on_demand_bp : cr->savings_vs_on_demand_bp);
        k->percent_bp(x, cr->break_even_overhead_bp);
        k->percent_bp(x, bc ? bc->measured_overhead_bp : cr->measured_overhead_bp);
        k->text(x, cost_basis);
        interval_row(e, i, k);
        k->text(x, cluster);
        k->end(x);
    }
    /* the counterfactual prices the winners of the tasks completed in the
     * window: the same figure on both bases */
    const struct cost_counterfactual *cf = &r->counterfactual;
    k->text(x, label);
    k->time(x, r->from);
    k->time(x, r->to);
    k->text(x, "on-demand");
    k->text(x, "counterfactual");
    k->integer(x, cf->tasks);   /* as the API's tasks_succeeded of this row */
    for (int i = 0; i < 6; i++) /* failed .. duplicates: not applicable */
        k->text(x, NULL);
    k->money(x, cf->cost);
    k->money(x, cf->cost_per_successful_task);
    for (int i = 0; i < 11; i++)
        k->text(x, NULL);
    k->text(x, cost_basis);
    for (int i = 0; i < INTERVAL_COLUMNS; i++)
        k->text(x, NULL);
    k->text(x, cluster);
    k->end(x);
}

enum err export_summary_csv(const struct cost_result *r, const char *label,
                            const struct export_summary_extra *e, struct buf *out) {
    struct csv c;
    struct export_sink k;
    export_csv_sink_init(&k, &c, out);
    export_summary_rows(r, label, e, &k);
    return c.rc;
}
