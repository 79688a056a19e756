/* sim_oracle_int — the pieces of the oracle its files share (sim_oracle.h is the
 * contract; this header is internal to src/sim/sim_oracle*.c): the compute pass
 * (sim_oracle.c), the task groups and what is derived per pod
 * (sim_oracle_pod.c), the JSON rendering (sim_oracle_json.c). Like the rest of
 * the oracle, nothing here is shared with the cost engine. Thread rule: any
 * thread, no state. */
#ifndef SPOTLEDGER_SIM_ORACLE_INT_H
#define SPOTLEDGER_SIM_ORACLE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim_oracle.h"

enum kind { K_USEFUL = ORC_K_USEFUL, K_RESTORE, K_WASTED, K_RUNNING, K_N };

/* One task group: an Indexed Job's index (1 task) or a whole non-Indexed Job
 * (completions tasks). Its pods in creation order. */
struct group {
    int job, index, ntasks;
    int *pods;
    int npods;
    int64_t success_t, fail_t;
};

/* What the oracle derives per pod. */
struct podx {
    int64_t hold_from, hold_to; /* hold_to ORC_NEVER: still held at now */
    bool held, winner, interrupted, duplicate;
    int64_t lost_at;
    enum kind kind;
    int group;
};

static inline int64_t orc_min64(int64_t a, int64_t b) {
    return a < b ? a : b;
}

/* t is known, inside [from, to) and not after now. */
static inline bool orc_in_window(int64_t t, int64_t from, int64_t to, int64_t now) {
    return t != ORC_NEVER && t >= from && t < to && t <= now;
}

/* --- sim_oracle_pod.c --- */

/* Order of pods a and b by creation (uid breaks ties). */
int orc_cmp_created(const struct orc_timeline *tl, int a, int b);
/* Sorts the pod indexes v[0..n) by creation (insertion sort: small lists). */
void orc_sort_by_created(const struct orc_timeline *tl, int *v, int n);
/* The first pod of the group created after its a-th that started by now. */
const struct orc_pod *orc_next_started(const struct orc_timeline *tl, const struct group *gr, int a,
                                       int64_t now);
/* The pod's container finished by now with exit code 0. */
bool orc_succeeded(const struct orc_pod *p, int64_t now);
/* What pod i was by now: held interval, interruption and the time it was lost. */
void orc_derive_pod(const struct orc_timeline *tl, int i, int64_t now, struct podx *x);
/* The Kubernetes share numerator and the node denominator (docs/cost-model.md "share"). */
void orc_share_of(const struct orc_pod *p, const struct orc_node *n, int64_t *num, int64_t *den);
/* Least common multiple of a, b > 0. */
int64_t orc_lcm64(int64_t a, int64_t b);
/* The partial-task figures of r: a task holding a node in W, or finished in W,
 * that also held one outside W; or one holding a node in W not finished by W's end. */
void orc_partial_of(const struct orc_timeline *tl, const struct group *g, int ngroups,
                    const struct podx *px, struct orc_result *r);

/* --- sim_oracle_reclaim.c --- */

/* r's reclaims (docs/cost-model.md "Spot pools and reclaims"): the Spot pools
 * gone in W, by gone time, each with its timeline. Needs r->pools' spot flags. */
void orc_reclaims(const struct orc_timeline *tl, int64_t from, int64_t to, int64_t now,
                  const struct group *g, int ngroups, const struct podx *px, struct orc_result *r);

#endif
