/* export_notes — the text beside the weekly files (export.h: export_notes_parts). */
#include "query/export.h"

/* in parts: one string literal may not exceed what ISO C requires (4095) */
static const char notes_intro[] =
    "spotledger weekly files: what the columns mean\n"
    "\n"
    "Each ISO week (Monday 00:00 UTC to the next Monday) has two files, each as CSV and as .xlsx:\n"
    "spotledger-YYYY-Www-summary (one row per configuration) and spotledger-YYYY-Www-tasks (one "
    "row "
    "per task).\n"
    "Times are UTC, written 2026-11-09 00:00:00 so spreadsheets read them as dates (the .xlsx "
    "holds "
    "date-time cells).\n"
    "Money is US dollars, exact to the micro-dollar (six decimals in the CSV; currency cells in "
    "the "
    ".xlsx). Percentages are percentage points (17.54 means 17.54 %).\n"
    "A closed week is computed as of its end: re-exporting it gives the same figures.\n"
    "\n";

static const char notes_summary[] =
    "Summary file\n"
    "period, from, to: the ISO week and its bounds; 'to' is excluded.\n"
    "configuration: spot (Spot only), fallback (Spot with an On-Demand fallback pool), on-demand.\n"
    "basis: measured = what this cluster actually ran and paid in the week. counterfactual (the "
    "last row, on-demand) = the same successful spot and fallback work re-priced at On-Demand "
    "rates: what pure On-Demand would have cost; only tasks_succeeded, cost_usd and "
    "cost_per_successful_task_usd apply to it, the other cells are empty on purpose.\n"
    "tasks_succeeded, tasks_failed, tasks_running: tasks by outcome, counted in the week they "
    "completed (running: still running at the week's end).\n"
    "attempts: pods started for the tasks; retries: attempts after the first; interruptions: "
    "attempts lost to a Spot reclaim or node loss; duplicates: attempts running while another "
    "attempt of the same task already held the work.\n"
    "cost_usd: everything the configuration cost in the week = useful + restore + wasted + "
    "running + idle.\n"
    "cost_per_successful_task_usd: cost_usd / tasks_succeeded (empty without a success) - the "
    "headline figure.\n"
    "useful_cost_usd: node time of successful attempts; restore_cost_usd: their first "
    "restore_seconds after an interruption (reloading a checkpoint); wasted_cost_usd: attempts "
    "that failed or were interrupted; running_cost_usd: attempts still running; idle_cost_usd: "
    "the configuration's share of node time no task used.\n"
    "restore_seconds_total, _p50, _p95: time from an interruption to useful work again "
    "(nearest-rank percentiles; empty without samples).\n"
    "savings_vs_on_demand_percent: how much cheaper per successful task than the counterfactual "
    "On-Demand price of the same work.\n"
    "break_even_overhead_percent: how much lost work, idle and restore time the configuration can "
    "add on top of its useful work before On-Demand becomes cheaper; "
    "measured_overhead_percent: what it actually added in the week.\n";

static const char notes_added[] =
    "cost_basis: accrual (the weekly files) = the money spent in the week: attempts cut at the "
    "week's bounds plus the week's idle; it adds up to the invoices. completion (only when asked "
    "for: GET /api/v1/export.csv?...&kind=summary&basis=completion) = the tasks that succeeded in "
    "the week with the whole cost of all their attempts and their share of idle in the weeks "
    "they ran; then tasks_succeeded and the money columns (cost_usd to idle_cost_usd, "
    "savings_vs_on_demand_percent, measured_overhead_percent) are completion figures, the other "
    "counts stay as above. Never add rows of the two bases together.\n"
    "cost_per_successful_task_low_usd, _high_usd: the 95 % interval of the cost per successful "
    "task by a block bootstrap over the week's tasks (2000 resamples, fixed seed: the same rows "
    "give the same interval; tasks hit by one reclaim are drawn together). Empty, with "
    "interval_reason saying why, below 5 successful tasks (never a made-up number) and on the "
    "completion basis (intervals are drawn on the accrual basis only).\n"
    "difference_vs_counterfactual_low_usd, _high_usd, verdict_vs_counterfactual (spot and "
    "fallback rows): the 95 % interval of the cost per successful task minus the same tasks "
    "priced at On-Demand rates (negative: cheaper), and the verdict in words, e.g. 'Spot cheaper "
    "than the same tasks at On-Demand rates (95% interval $0.21-$0.48 per task)' or 'not "
    "distinguishable yet ...: need about N more successful tasks'. "
    "difference_vs_on_demand_low_usd, _high_usd, verdict_vs_on_demand: the same against the "
    "measured pure On-Demand row. Empty without an interval; the verdict then gives the reason.\n"
    "\n";

static const char notes_tasks[] =
    "Tasks file\n"
    "task_uid, namespace, name: the Kubernetes Job (an Indexed Job is one task per completion "
    "index: <job uid>/<index>).\n"
    "configuration, experiment: the Job's spotledger.io labels; outcome: succeeded, failed or "
    "running.\n"
    "attempts, retries, interruptions, restore_seconds: as above, for this task.\n"
    "cost_usd: the node time of all its attempts over its whole life (idle time is not spread "
    "onto single tasks; it is in the summary); wasted_cost_usd: the part spent on attempts that "
    "did not succeed.\n"
    "completed_at: when it finished (empty while running). A task is listed once, in the week it "
    "completed.\n"
    "\n"
    "Text cells that begin with = + - @ are written with a leading apostrophe in the CSV so a "
    "spreadsheet never runs them as formulas; the .xlsx stores them as plain text.\n";

const char *const export_notes_parts[] = {notes_intro, notes_summary, notes_added, notes_tasks,
                                          NULL};
