/* sim_fault — injected failures, decided by their own seeded PRNG so the
 * simulation's stream is untouched. Each kind is off, a probability (ppm) or a
 * count (the first N chances hit). Counters of what was injected are kept for
 * /sim/status and tests.
 * Thread rule: any thread (a mutex guards the generator and counters). */
#ifndef SPOTLEDGER_SIM_FAULT_H
#define SPOTLEDGER_SIM_FAULT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "plan/rng.h"

enum sim_fault_kind {
    SIM_FAULT_429,        /* 429 Too Many Requests with retry-after */
    SIM_FAULT_5XX,        /* 500 or 503 */
    SIM_FAULT_SLOW,       /* answer only after slow_ms (past a client timeout) */
    SIM_FAULT_TRUNCATE,   /* close the connection half-way through the body */
    SIM_FAULT_WATCH_DROP, /* drop a watch stream after an event */
    SIM_FAULT_WATCH_410,  /* answer a watch with an ERROR 410 Expired event */
    SIM_FAULT_WATCH_DUP,  /* send a watch event twice */
    SIM_FAULT_COUNT,
};

struct sim_fault_rule {
    int64_t ppm;   /* probability per chance, parts per million */
    int64_t count; /* > 0: the first `count` chances hit (then ppm applies) */
};

struct sim_faults {
    struct sim_fault_rule rule[SIM_FAULT_COUNT];
    int64_t slow_ms;
    int64_t retry_after; /* seconds in 429 answers */
    struct plan_rng rng;
    pthread_mutex_t mu;
    int64_t chances[SIM_FAULT_COUNT];
    int64_t injected[SIM_FAULT_COUNT];
};

void sim_faults_init(struct sim_faults *f, uint64_t seed);
void sim_faults_release(struct sim_faults *f);
/* Parses "0.05" (a probability) or "3" (a count) into a rule. ERR_PARSE otherwise. */
enum err sim_fault_rule_parse(const char *s, struct sim_fault_rule *out);
/* One chance for a fault of this kind: true if it must be injected. */
bool sim_fault_hit(struct sim_faults *f, enum sim_fault_kind kind);
/* A uniform pick in [0, n) from the fault generator (e.g. 500 or 503). */
uint64_t sim_fault_pick(struct sim_faults *f, uint64_t n);
/* Whether any rule is active. */
bool sim_faults_any(const struct sim_faults *f);
const char *sim_fault_name(enum sim_fault_kind kind);

#endif
