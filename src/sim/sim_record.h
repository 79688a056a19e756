/* sim_record — what spotsim really did, as the plain record the oracle reads
 * (sim_oracle.h): every node's provisioning / Ready / NotReady / deletion
 * seconds, every pod's creation, scheduling, container run, deletion request
 * and removal, every Job's completions, every list price in force. Built from
 * the simulation's own facts (sim_world.h), never from its HTTP API.
 * Thread rule: any thread; the record borrows strings from the world. */
#ifndef SPOTLEDGER_SIM_RECORD_H
#define SPOTLEDGER_SIM_RECORD_H

#include "sim/sim_oracle.h"
#include "sim/sim_world.h"

struct sim_record {
    struct orc_timeline tl;
    /* owned storage behind tl */
    struct orc_price *prices;
    struct orc_size *sizes;
    struct orc_pool *pools;
    struct orc_node *nodes;
    struct orc_job *jobs;
    struct orc_pod *pods;
    int64_t *index_done;
    char **labels; /* per pool, "k=v\n..." */
    char **node_labels;
};

/* The record of world w as known at `at` (facts after `at` are ORC_NEVER), with
 * spotledger's default settings (the spot labels of docs/cost-model.md). */
void sim_record_build(const struct sim_world *w, int64_t at, struct sim_record *out);
void sim_record_release(struct sim_record *r);

/* The oracle over [sc->start, horizon) as JSON (sim_oracle.h), appended to out. */
enum err sim_record_oracle_json(const struct sim_world *w, struct buf *out);

#endif
