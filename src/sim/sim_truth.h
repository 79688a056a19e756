/* sim_truth — the ground truth of a simulated world, computed from the engine's
 * exact facts (never from the HTTP API) and serialized deterministically: the
 * same scenario, seed and --until give byte-identical output.
 *
 * Contents (documented in src/sim/README.md "Ground truth"): per node its Ready
 * and deletion times, billable seconds and DO-billed micro-dollars (equal to the
 * invoice items); per attempt its pod, task, node, scheduled / started /
 * finished / deleted / end times, outcome and whether it was interrupted; per
 * task its outcome, configuration and experiment; per reclaim its timeline; and
 * totals per configuration that need no cost allocation; and "cost": the cost
 * engine (cost.h) run over [start, until) on an input filled from the same exact
 * facts, serialized with report.h (summary, nodes, pools, reclaims).
 * Pure; thread rule: any thread. */
#ifndef SPOTLEDGER_SIM_TRUTH_H
#define SPOTLEDGER_SIM_TRUTH_H

#include "base/buf.h"
#include "engine/cost.h"
#include "base/err.h"
#include "sim/sim_world.h"

/* The cost engine's input for world w as known at time `at` (facts after `at`
 * are left out). Arrays are allocated; strings are loans into w (and into
 * keep, which owns the task uids). Release with sim_truth_input_release. */
struct sim_truth_input {
    struct cost_input in;
    char (*task_uids)[80];
    int *node_map;   /* world node -> input node, -1 if left out */
    int *pool_map;   /* world pool -> input pool */
    int64_t *spells; /* the nodes' NotReady spells, 2 * (SIM_MAX_SPELLS + 1) per world node */
};
void sim_truth_input_build(const struct sim_world *w, int64_t at, struct sim_truth_input *out);
void sim_truth_input_release(struct sim_truth_input *ti);

/* Appends the truth JSON (one object, newline-terminated) to out. ERR_TOOBIG if
 * out's cap is hit. */
enum err sim_truth_render(const struct sim_world *w, struct buf *out);
/* Writes it atomically (temp file, fsync, rename). ERR_IO on failure. */
enum err sim_truth_write(const char *path, const char *json, size_t len);
const char *sim_outcome_name(enum sim_outcome o);

#endif
