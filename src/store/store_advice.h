/* store_advice — loads the setup advisor's input rows (advice.h) from SQLite,
 * owning every array and string. All of the advisor's SQL lives here.
 *
 * What is loaded for the window [since, until):
 *  - every node pool (alive and deleted: a reclaimed pool still maps its
 *    reclaims to a fallback pool) and every size;
 *  - nodes alive, or deleted at most a day before `since` (fallback node Ready
 *    times for the replacement delay; spotledger's own node);
 *  - reclaims detected in the window;
 *  - Jobs (one row per job uid, over all its completion indexes) with a task
 *    seen in the window that had not finished before it, at most
 *    STORE_ADVICE_MAX_JOBS (the most recently seen), with counts over all their
 *    attempts: attempts, interrupted (docs/cost-model.md "Interruptions", as
 *    cost.h decides it), checkpoint reports; tasks failed; outcomes lost (a task
 *    deleted while its outcome was still unknown);
 *  - the observed watch lag: the longest delay between an attempt's creation
 *    and its first sighting, over attempts created in the window after the
 *    watcher first stored one (-1 with none);
 *  - the cluster's name (else id) for doctl commands, preferring cluster_id.
 * Configuration labels are resolved here: NULL or unknown -> default_config.
 *  - PodDisruptionBudgets alive in the window whose selector spotledger reads
 *    (matchLabels only; table pdbs), each with the pods it selects that held a
 *    Spot node in the window (matched against the Job's pod template labels)
 *    and one such Spot pool.
 *
 * Errors: ERR_DB (logged once), ERR_BUSY. Thread rule: the thread owning s. */
#ifndef SPOTLEDGER_STORE_ADVICE_H
#define SPOTLEDGER_STORE_ADVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/advice.h"
#include "engine/cost.h"
#include "base/err.h"
#include "store/store.h"

#define STORE_ADVICE_MAX_JOBS 10000

struct store_advice_data {
    /* pools, sizes, nodes, reclaims, jobs, pdbs, watch_lag_seconds and cluster are
     * filled; the caller adds configuration, cost figures and self. */
    struct advice_input in;
    bool jobs_truncated; /* more Jobs matched than STORE_ADVICE_MAX_JOBS */
    /* owned storage */
    struct advice_pool *pools;
    struct advice_size *sizes;
    struct advice_node *nodes;
    struct advice_reclaim *reclaims;
    struct advice_job *jobs;
    struct advice_pdb *pdbs;
    struct store_arena *arena; /* the strings the arrays borrow */
};

/* *out is new on ERR_OK (store_advice_free); untouched on error. cluster_id
 * may be NULL. clusters: the fleet names read, as ",a,b," (docs/fleet.md
 * "cluster="); NULL or "" every cluster. Pools, nodes, reclaims, Jobs, PDBs, the
 * watch lag and the DigitalOcean cluster name are those clusters' (sizes are the
 * account's); a PDB selects only pods of its own cluster. */
enum err store_advice_load(struct store *s, int64_t since, int64_t until,
                           enum cost_config default_config, const char *cluster_id,
                           const char *clusters, struct store_advice_data **out);
void store_advice_free(struct store_advice_data *d);

#endif
