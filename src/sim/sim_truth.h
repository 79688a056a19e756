/* sim_truth — the ground truth of a simulated world, computed from the engine's
 * exact facts (never from the HTTP API) and serialized deterministically: the
 * same scenario, seed and --until give byte-identical output.
 *
 * Contents (documented in src/sim/README.md "Ground truth"): per node its Ready
 * and deletion times, billable seconds and DO-billed micro-dollars (equal to the
 * invoice items); per attempt its pod, task, node, scheduled / started /
 * finished / deleted / end times, outcome and whether it was interrupted; per
 * task its outcome, configuration and experiment; per reclaim its timeline; and
 * totals per configuration that need no cost allocation; "oracle": the
 * independent oracle's figures over [start, until) (sim_oracle.h, docs/oracle.md),
 * which spotledger's answers are compared with. Nothing here runs the service's
 * own cost engine (issue 15: spotsim uses only base, model, plan and source).
 * Pure; thread rule: any thread. */
#ifndef SPOTLEDGER_SIM_TRUTH_H
#define SPOTLEDGER_SIM_TRUTH_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "sim/sim_world.h"

/* Appends the truth JSON (one object, newline-terminated) to out. ERR_TOOBIG if
 * out's cap is hit. */
enum err sim_truth_render(const struct sim_world *w, struct buf *out);
/* Writes it atomically (temp file, fsync, rename). ERR_IO on failure. */
enum err sim_truth_write(const char *path, const char *json, size_t len);
const char *sim_outcome_name(enum sim_outcome o);

/* The end of pod p's attempt on its node (docs/cost-model.md "Attempt
 * interval"): the earliest of container finish, pod deletion and node deletion;
 * SIM_NEVER if still on. */
int64_t sim_attempt_end(const struct sim_world *w, const struct sim_pod *p);

#endif
