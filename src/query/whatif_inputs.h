/* whatif_inputs — the what-if planner's parameters measured on a window
 * (docs/whatif.md "What is measured"): from the engine's input and result of
 * the window (query/calc.h), no SQL of its own.
 *
 *  - reclaims_per_day: the main Spot size's reclaims / its Spot pools' life in
 *    the window (the checkpoint advice's exposure), per day;
 *  - replacement_delay: mean of the reclaims' replacement delays (else of
 *    their return to useful work);
 *  - reclaim_tail: mean of the reclaims' signal-to-gone seconds (a reclaimed
 *    node is billed that long after the cut);
 *  - checkpoint_seconds: the advice's mean reported checkpoint cost;
 *  - restore_seconds: mean of the task reports' restore_seconds (> 0);
 *  - checkpoint_interval: not in task reports; defaults to the advice's
 *    Young/Daly interval of the measured MTBR and checkpoint cost, else 0;
 *  - task lengths: work_seconds of each successful attempt of a task that
 *    succeeded in the window (its run time when it reported none);
 *  - attempt_overhead: mean scheduled-to-started of those attempts;
 *  - spot_price / on_demand_price: the main Spot size's list price at the
 *    window's last second, and its On-Demand twin's (calc's mapping);
 *  - gpus: the size's GPUs and the successful attempts' usual request;
 *  - idle: per configuration, the window's idle cost / allocated cost (the
 *    node time its pools carry beyond the attempts), in parts per 10^9;
 *  - tasks per replication: the window's successful tasks;
 *  - task mix, per configuration with a success in the window: its own
 *    successful tasks (their number and work), its application failure rate
 *    ((retries - interruptions + failed tasks) / (attempts - interruptions)),
 *    whether its task reports checkpoint at all, and for fallback the share
 *    of its successful tasks whose first attempt ran on the fallback pool;
 *  - arrivals: each measured length's task's first attempt creation, in s
 *    after the window's start (parallel to the lengths, shared and per mix);
 *  - spot_pool_nodes: the most Spot nodes of the main Spot size alive at once
 *    in the window (0 when none: every task on a pool of its own).
 * Every value carries its source (measured, default) and a detail line;
 * the HTTP layer marks the ones a request supplies. Thread rule: any thread. */
#ifndef SPOTLEDGER_WHATIF_INPUTS_H
#define SPOTLEDGER_WHATIF_INPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "plan/whatif.h"
#include "query/calc.h"

enum wi_source { WI_DEFAULT = 0, WI_MEASURED, WI_SUPPLIED };

enum wi_field {
    WI_RECLAIMS,
    WI_DELAY,
    WI_CKPT_INTERVAL,
    WI_RESTORE,
    WI_CKPT_SECONDS,
    WI_TASK,
    WI_SPOT_PRICE,
    WI_OD_PRICE,
    WI_FALLBACK,
    WI_OVERHEAD,
    WI_TAIL,
    WI_IDLE,
    WI_MIX,
    WI_POOL,
    WI_NFIELDS
};

struct wi_value {
    enum wi_source source;
    char detail[160];
};

struct wi_inputs {
    struct whatif_params p; /* p.lengths points into lengths */
    int64_t *lengths;       /* owned */
    size_t nlengths;
    int64_t *mix_lengths[WHATIF_NCONFIG];  /* owned; p.mix[c].lengths points here */
    int64_t *arrivals;                     /* owned, parallel to lengths; p.arrivals */
    int64_t *mix_arrivals[WHATIF_NCONFIG]; /* owned; p.mix[c].arrivals points here */
    struct wi_value v[WI_NFIELDS];
    const char *spot_size; /* borrowed from the calc; NULL none */
    /* the window's measured cost per successful task per configuration
     * (COST_NULL none), to set beside the planner's */
    int64_t measured[WHATIF_NCONFIG];
};

/* Name of a field as the API spells it ("reclaims_per_day", ...). */
const char *wi_field_name(enum wi_field f);
const char *wi_source_name(enum wi_source s);

/* Fills *out from the window's calc (c->data->in, c->res, c->od). ERR_NOMEM. */
enum err wi_measure(const struct calc *c, struct wi_inputs *out);
void wi_release(struct wi_inputs *in);

#endif
