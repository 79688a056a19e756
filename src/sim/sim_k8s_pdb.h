/* sim_k8s_pdb — policy/v1 PodDisruptionBudgets: one per workload that sets
 * pdb_min_available or pdb_max_unavailable in the scenario, named after the
 * workload, in the scenario's namespace, selecting the workload's pods
 * (app.kubernetes.io/name). The object is static (created before the start);
 * its status (expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed)
 * is computed from the pods as of the rendered seq. spotsim never refuses an
 * eviction for a PDB: a Spot reclaim ignores PDBs (src/sim/README.md).
 * Pure; thread rule: any thread. */
#ifndef SPOTLEDGER_SIM_K8S_PDB_H
#define SPOTLEDGER_SIM_K8S_PDB_H

#include <stdbool.h>
#include <stdint.h>

#include "base/jsonw.h"
#include "sim/sim_world.h"

/* Whether workload idx has a PDB. */
bool sim_pdb_exists(const struct sim_world *w, int idx);
/* Writes the PDB of workload idx as of seq asof. */
void sim_pdb_render(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                    bool with_kind);

#endif
