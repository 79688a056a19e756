#include "sim/sim_fault.h"

#include <string.h>

#include "base/money.h"

void sim_faults_init(struct sim_faults *f, uint64_t seed) {
    memset(f, 0, sizeof *f);
    plan_rng_seed(&f->rng, seed ^ 0x5eedfa017ULL);
    pthread_mutex_init(&f->mu, NULL);
    f->slow_ms = 35000;
    f->retry_after = 1;
}

void sim_faults_release(struct sim_faults *f) {
    pthread_mutex_destroy(&f->mu);
}

enum err sim_fault_rule_parse(const char *s, struct sim_fault_rule *out) {
    struct sim_fault_rule r = {0, 0};
    if (!s || !*s)
        return ERR_PARSE;
    if (strchr(s, '.')) {
        int64_t micro;
        if (money_parse(s, strlen(s), MONEY_ROUND, &micro) != ERR_OK || micro < 0 ||
            micro > 1000000)
            return ERR_PARSE;
        r.ppm = micro;
    } else {
        int64_t micro;
        if (money_parse(s, strlen(s), 0, &micro) != ERR_OK || micro < 0 ||
            micro > 1000000000LL * MONEY_MICRO)
            return ERR_PARSE;
        r.count = micro / MONEY_MICRO;
    }
    *out = r;
    return ERR_OK;
}

bool sim_fault_hit(struct sim_faults *f, enum sim_fault_kind kind) {
    const struct sim_fault_rule *r = &f->rule[kind];
    if (r->ppm == 0 && r->count == 0)
        return false;
    pthread_mutex_lock(&f->mu);
    int64_t n = f->chances[kind]++;
    bool hit = n < r->count || (r->ppm > 0 && plan_rng_chance_ppm(&f->rng, r->ppm));
    if (hit)
        f->injected[kind]++;
    pthread_mutex_unlock(&f->mu);
    return hit;
}

uint64_t sim_fault_pick(struct sim_faults *f, uint64_t n) {
    pthread_mutex_lock(&f->mu);
    uint64_t x = plan_rng_below(&f->rng, n);
    pthread_mutex_unlock(&f->mu);
    return x;
}

bool sim_faults_any(const struct sim_faults *f) {
    for (int k = 0; k < SIM_FAULT_COUNT; k++)
        if (f->rule[k].ppm || f->rule[k].count)
            return true;
    return false;
}

const char *sim_fault_name(enum sim_fault_kind kind) {
    static const char *const names[] = {"429",        "5xx",       "slow",     "truncate",
                                        "watch_drop", "watch_410", "watch_dup"};
    return kind < SIM_FAULT_COUNT ? names[kind] : "?";
}
