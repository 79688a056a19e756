/* report — a cost_result as the JSON bodies of the REST API.
 *
 * Serialization only: every figure comes from cost_compute (cost.h); nothing is
 * computed here except formatting. Money is printed exactly from micro-dollars
 * (jsonw_money: 4800000 -> 4.8, 4213 -> 0.004213); percentages are basis points
 * printed with two decimals (-6216 -> -62.16); times are RFC 3339 UTC strings;
 * unknown values (COST_NULL, time 0) are null. Keys always appear, in the order
 * below, so consumers (dashboard, spotsim's truth file, CSV export) can rely on
 * them. Thread rule: any thread (one buf per caller).
 *
 * GET /api/v1/summary — report_summary_json:
 * {"window":{"from":T,"to":T}, "now":T,
 *  "cost_basis":"accrual"|"completion", "cost_basis_description":S,
 *  "partial":B,                  the window cuts a task in two (cost.h)
 *  "completion_span":{"from":T,"to":T,"windows":N},   completion basis only:
 *                                the grid windows its tasks ran in
 *  "configurations":[            one per selected configuration, in the order
 *                                spot, fallback, on-demand, each (on the
 *                                completion basis tasks_succeeded and the money
 *                                fields marked * are the completion figures):
 *   {"configuration":"spot"|"fallback"|"on-demand", "basis":"measured",
 *    "tasks_succeeded":N, "tasks_failed":N, "tasks_running":N,
 *    "attempts":N, "retries":N, "interruptions":N, "duplicates":N,
 *    "duplicate_seconds":N,
 *    "cost":$*, "cost_per_successful_task":$|null*,
 *    "allocated_cost":$*, "useful_cost":$*, "restore_cost":$*, "wasted_cost":$*,
 *    "running_cost":$*, "idle_cost":$*,
 *    "restore_seconds":{"samples":N,"total":N,"p50":N|null,"p95":N|null},
 *    "node_seconds_by_pool":[{"pool_id":S|null,"pool":S,"seconds":N}],
 *    "useful_cost_at_on_demand":$,
 *    "counterfactual_tasks":N, "counterfactual_cost":$,
 *    "savings_vs_on_demand_percent":P|null*,
 *    "break_even_overhead_percent":P|null, "measured_overhead_percent":P|null*,
 *    "checkpoint_advice":ADVICE|null, "partial":B},
 *   ... and, when spot or fallback is selected, last:
 *   {"configuration":"on-demand", "basis":"counterfactual", "basis_description":S,
 *    "tasks_succeeded":N, "tasks_priced":N, "tasks_unpriced":N,
 *    "tasks_reported_work":N, "tasks_run_time":N, "work_seconds":N,
 *    "cost":$, "cost_per_successful_task":$|null}],
 *  "nodes_total_cost":$, "allocated_cost":$, "idle_cost":$,
 *  "unattributed_idle_cost":$, "excluded_cost":$,
 *  "attempts_unscheduled":N,
 *  "reclaims":[RECLAIM...], "checkpoint_advice":[ADVICE...]}
 *
 * ADVICE  = {"size":S, "reclaims":N, "exposure_seconds":N,
 *            "mean_time_between_reclaims_seconds":N|null, "checkpoint_samples":N,
 *            "mean_checkpoint_seconds":N|null, "interval_seconds":N|null}
 * RECLAIM = {"pool_id":S, "pool":S|null, "size":S|null, "nodes":N,
 *            "first_signal_at":T|null, "gone_at":T, "fallback_ready_at":T|null,
 *            "first_resumed_at":T|null, "last_resumed_at":T|null,
 *            "tasks_interrupted":N, "tasks_resumed":N,
 *            "signal_to_gone_seconds":N|null, "replacement_delay_seconds":N|null,
 *            "return_to_useful_work_seconds":N|null}
 * NODE    = {"name":S, "pool_id":S|null, "pool":S|null, "price_hourly":$,
 *            "billable_start":T|null, "deleted_at":T|null, "billable_seconds":N,
 *            "cost":$, "allocated_cost":$, "idle_cost":$}
 * POOL    = {"pool_id":S|null, "pool":S|null, "size":S|null,
 *            "capacity_type":"spot"|"on-demand", "on_demand_price_hourly":$|null,
 *            "nodes":N, "node_seconds":N, "cost":$, "allocated_cost":$,
 *            "idle_cost":$, "unattributed_idle_cost":$}
 *
 * Order never depends on the input's order: pools (and node_seconds_by_pool)
 * by pool id, nodes by name, reclaims by gone_at.
 *
 * Every function appends one JSON value to out. On error out is left as it was
 * (truncated back). Errors: ERR_TOOBIG when out's cap is hit, ERR_INVAL when r is
 * NULL. */
#ifndef SPOTLEDGER_REPORT_H
#define SPOTLEDGER_REPORT_H

#include "base/buf.h"
#include "engine/cost.h"

/* The /api/v1/summary object on the accrual basis. */
enum err report_summary_json(const struct cost_result *r, struct buf *out);
/* The same on the completion basis when comp is not NULL (cost_completion of
 * the same query), else on the accrual basis. */
enum err report_summary_basis_json(const struct cost_result *r, const struct cost_completion *comp,
                                   struct buf *out);
/* /api/v1/nodes: [NODE...] for nodes with billable seconds in the window. */
enum err report_nodes_json(const struct cost_result *r, struct buf *out);
/* /api/v1/reclaims: [RECLAIM...] in gone_at order. */
enum err report_reclaims_json(const struct cost_result *r, struct buf *out);
/* /api/v1/pools: [POOL...] for every input pool, then the unknown pool (nodes
 * without a known pool) if it had billable seconds. */
enum err report_pools_json(const struct cost_result *r, struct buf *out);

#endif
