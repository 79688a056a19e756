/* sim_truth_cost — the truth's "cost" member (sim_truth.h): the service's own
 * cost engine (engine/cost.h) run over [start, until) on an input filled from
 * the world's exact facts, serialized with query/report.h (summary, nodes,
 * pools, reclaims). e2e tests compare every field of spotledger's answers with
 * it: what spotledger ingested must give the engine the same input.
 *
 * The one place spotsim reaches into the service's layers (src/layers.txt): it
 * stays until the independent oracle (sim_oracle.h) computes every field it
 * covers (the oracle has no checkpoint advice, restore percentiles, excluded
 * cost, per-pool node seconds, break-even and savings percentages, reclaim task
 * counts). Pure; thread rule: any thread. */
#ifndef SPOTLEDGER_SIM_TRUTH_COST_H
#define SPOTLEDGER_SIM_TRUTH_COST_H

#include "base/err.h"
#include "base/jsonw.h"
#include "sim/sim_world.h"

/* Writes "cost": {"summary":..., "nodes":..., "pools":..., "reclaims":...} into
 * the open object of j (null for an empty window). */
enum err sim_truth_render_cost(const struct sim_world *w, struct jsonw *j);

#endif
