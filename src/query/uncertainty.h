/* uncertainty — how sure the window's cost per successful task is, per
 * configuration, and whether Spot is really cheaper (docs/cost-model.md
 * "Uncertainty"): builds one bootstrap sample per configuration from a computed
 * window and runs engine/bootstrap over it.
 *
 * The sample of configuration C: every selected task of C that held a node in
 * the window or succeeded in it. Each task is charged C's cost (allocated +
 * idle) in proportion to its attempts' allocated cost in the window, so the
 * items sum to C's reported cost exactly and the full sample's statistic is the
 * reported cost per successful task; it counts its successes in the window (N
 * for an N-completion Job); tasks interrupted by the same reclaim form one block.
 * The paired Spot-vs-counterfactual difference prices each successful task's
 * winning attempt at the On-Demand rate (cost_attempt_result.counterfactual).
 *
 * Pure apart from memory; thread rule: any thread. */
#ifndef SPOTLEDGER_UNCERTAINTY_H
#define SPOTLEDGER_UNCERTAINTY_H

#include "base/err.h"
#include "engine/bootstrap.h"
#include "engine/cost.h"

/* Windows longer than this are not resampled (the bootstrap draws every task of
 * the window): the API answers null with a reason, the CSV empty cells. */
#define UNC_MAX_WINDOW_DAYS 35

/* Why a window has no intervals, in the words the summary, experiments and the
 * CSV all give: the intervals are drawn on the accrual basis only
 * (docs/uncertainty.md), and a window over UNC_MAX_WINDOW_DAYS is not resampled
 * (printf format, the day count its argument). */
#define UNC_REASON_COMPLETION "95% intervals are drawn on the accrual basis only"
#define UNC_REASON_LONG_FMT                                                                        \
    "windows longer than %d days are not resampled (the bootstrap draws every task)"

enum unc_diff {
    UNC_SPOT_VS_ON_DEMAND = 0,      /* measured Spot - measured pure On-Demand */
    UNC_FALLBACK_VS_ON_DEMAND,      /* measured fallback - measured pure On-Demand */
    UNC_SPOT_VS_COUNTERFACTUAL,     /* Spot - the same tasks priced On-Demand */
    UNC_FALLBACK_VS_COUNTERFACTUAL, /* fallback - the same tasks priced On-Demand */
};
#define UNC_NDIFF 4

struct unc_result {
    struct boot_params params;                   /* as used (defaults filled in) */
    struct boot_interval per_task[COST_NCONFIG]; /* cost per successful task */
    struct boot_interval diff[UNC_NDIFF];
};

/* Names for the API, CSV and metrics: "spot_vs_on_demand", ... */
const char *unc_diff_name(enum unc_diff d);

/* r must have been computed from in with q->want_attempts. p may be NULL
 * (defaults). ERR_INVAL without per-attempt results or on bad params; ERR_NOMEM. */
enum err unc_compute(const struct cost_input *in, const struct cost_query *q,
                     const struct cost_result *r, const struct boot_params *p,
                     struct unc_result *out);

/* The verdict a user reads for difference d of configuration `name` ("Spot",
 * "Fallback") against `other` ("pure On-Demand", "the same tasks On-Demand"),
 * with amounts in whole cents:
 *   "Spot cheaper than pure On-Demand (95% interval $0.21-$0.48 per task)"
 *   "Spot dearer than pure On-Demand (95% interval $0.10-$0.30 per task)"
 *   "Spot vs pure On-Demand: not distinguishable yet (95% interval -$0.10 to
 *    $0.30 per task): need about 40 more successful tasks"
 *   "Spot vs pure On-Demand: no interval (3 successful tasks, fewer than 5)" */
void unc_verdict_text(const struct boot_interval *d, const char *name, const char *other, char *out,
                      size_t size);

/* unc_verdict_text of u's difference d with the names the API uses ("Spot" vs
 * "pure On-Demand", "Fallback" vs "the same tasks at On-Demand rates", ...). */
void unc_diff_text(const struct unc_result *u, enum unc_diff d, char *out, size_t size);

/* Writes the "uncertainty" object of the summary (docs/uncertainty.md):
 *   {"method":"block bootstrap over tasks","confidence":0.95,"resamples":R,
 *    "seed":S,"min_successful_tasks":M,
 *    "cost_per_successful_task":{"spot":I,"fallback":I,"on-demand":I},
 *    "comparisons":[{"name":"spot_vs_on_demand","difference":I,
 *       "verdict":"cheaper"|"dearer"|"not_distinguishable"|null,
 *       "more_tasks_needed":N|null,"text":"..."}, ...]}
 * where I = {"point":$,"lo":$,"hi":$,"successful_tasks":n,"resamples_used":k,
 * "reason":null} or, without an interval, {"point":null,"lo":null,"hi":null,
 * "successful_tasks":n,"resamples_used":0,"reason":"..."}. */
struct jsonw;
void unc_write_json(const struct unc_result *u, struct jsonw *w);

#endif
