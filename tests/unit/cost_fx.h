/* cost_fx — the hand-built cost_input fixture of test_cost.c and
 * test_cost_v2.c (header only; include after cmocka.h): rows appended with
 * add_pool/add_node/add_task/add_attempt, run() computes, check_invariants()
 * asserts cost.h's sums, worked_example() is the docs' worked example.
 *
 * Times are offsets from T0 = 2026-03-02T00:00:00Z (a Monday, after per-second
 * billing began); money is µ$. Rates: $1.80/h = 1800000 µ$/h = 500 µ$/s;
 * $3.60/h = 1000 µ$/s. */
#ifndef SPOTLEDGER_TEST_COST_FX_H
#define SPOTLEDGER_TEST_COST_FX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "engine/cost.h"

#define T0 INT64_C(1772409600) /* 2026-03-02T00:00:00Z */
#define H 3600
#define DAY 86400

/* A small growable fixture: tests append rows, then compute. */
#define MAXN 64
struct fx {
    struct cost_pool pools[MAXN];
    struct cost_node nodes[MAXN];
    struct cost_task tasks[MAXN];
    struct cost_attempt attempts[MAXN];
    struct cost_price prices[MAXN];
    size_t np, nn, nt, na, nprices;
    bool own_prices; /* prices set by the case (else auto_prices) */
    struct cost_query q;
    struct cost_result *r;
};

static inline int fx_setup(void **state) {
    struct fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->q.from = T0;
    f->q.to = T0 + DAY;
    f->q.now = T0 + DAY;
    *state = f;
    return 0;
}

static inline int fx_teardown(void **state) {
    struct fx *f = *state;
    cost_result_free(f->r);
    free(f);
    return 0;
}

static inline int32_t add_pool(struct fx *f, const char *id, const char *size,
                               enum cost_capacity cap, int64_t price) {
    f->pools[f->np] = (struct cost_pool){
        .id = id, .name = id, .size = size, .capacity = cap, .price_hourly = price};
    return (int32_t)f->np++;
}

/* A node Ready at `ready` (offset), deleted at `del` (offset, -1 alive). */
static inline int32_t add_node(struct fx *f, const char *name, int32_t pool, int64_t price,
                               int64_t ready, int64_t del, int64_t gpu, int64_t cpu) {
    f->nodes[f->nn] = (struct cost_node){.name = name,
                                         .pool = pool,
                                         .price_hourly = price,
                                         .created_at = T0 + ready - 30,
                                         .ready_at = T0 + ready,
                                         .k8s_deleted_at = del >= 0 ? T0 + del : 0,
                                         .gpu_allocatable = gpu,
                                         .cpu_allocatable_milli = cpu};
    return (int32_t)f->nn++;
}

static inline int32_t add_task(struct fx *f, const char *uid, enum cost_config c,
                               enum cost_outcome o, int64_t completed) {
    f->tasks[f->nt] = (struct cost_task){.uid = uid,
                                         .ns = "batch",
                                         .config = c,
                                         .outcome = o,
                                         .completed_at = completed >= 0 ? T0 + completed : 0};
    return (int32_t)f->nt++;
}

/* An attempt scheduled at `sched`, container start `start`, ended at `fin`
 * (-1 unknown) with phase ph. GPU request 1. */
static inline struct cost_attempt *add_attempt(struct fx *f, int32_t task, int32_t node,
                                               int64_t sched, int64_t start, int64_t fin,
                                               enum cost_phase ph) {
    struct cost_attempt *a = &f->attempts[f->na++];
    *a = (struct cost_attempt){.uid = "a",
                               .task = task,
                               .node = node,
                               .gpu_request = 1,
                               .cpu_request_milli = 1000,
                               .created_at = T0 + sched - 1,
                               .scheduled_at = T0 + sched,
                               .started_at = start >= 0 ? T0 + start : 0,
                               .finished_at = fin >= 0 ? T0 + fin : 0,
                               .phase = ph,
                               .work_seconds = -1,
                               .restore_seconds = -1,
                               .checkpoint_seconds = -1};
    return a;
}

/* The size list every case prices its counterfactual from, unless it sets
 * its own: each pool's size at its price since forever, with the GPU count of
 * its first node (the sizes spotledger would have read from /v2/sizes). */
static inline void auto_prices(struct fx *f) {
    f->nprices = 0;
    for (size_t p = 0; p < f->np; p++) {
        int64_t gpus = 0;
        for (size_t n = 0; n < f->nn && !gpus; n++)
            if (f->nodes[n].pool == (int32_t)p)
                gpus = f->nodes[n].gpu_allocatable;
        f->prices[f->nprices++] = (struct cost_price){.size = f->pools[p].size,
                                                      .at = 0,
                                                      .price_hourly = f->pools[p].price_hourly,
                                                      .gpus = gpus};
    }
}

static inline enum err run(struct fx *f) {
    if (!f->own_prices)
        auto_prices(f);
    struct cost_input in = {f->pools, f->np,       f->nodes, f->nn,     f->tasks,
                            f->nt,    f->attempts, f->na,    f->prices, f->nprices};
    cost_result_free(f->r);
    f->r = NULL;
    return cost_compute(&in, &f->q, &f->r);
}

/* Σ configuration costs + excluded + unattributed == Σ node totals; per node
 * allocated + idle == total. Checked after every computation below. */
static inline void check_invariants(const struct cost_result *r) {
    int64_t sum = r->excluded_cost + r->unattributed_idle, nodes = 0;
    for (int c = 0; c < COST_NCONFIG; c++) {
        const struct cost_config_result *cr = &r->configs[c];
        sum += cr->cost;
        assert_int_equal(cr->cost, cr->useful_cost + cr->restore_cost + cr->wasted_cost +
                                       cr->running_cost + cr->idle_cost);
    }
    for (size_t i = 0; i < r->n_nodes; i++) {
        assert_int_equal(r->nodes[i].allocated + r->nodes[i].idle, r->nodes[i].total);
        assert_true(r->nodes[i].idle >= 0);
        nodes += r->nodes[i].total;
    }
    assert_int_equal(nodes, r->nodes_total);
    assert_int_equal(sum, r->nodes_total);
    assert_int_equal(r->allocated_total + r->idle_total, r->nodes_total);
}

/* ---- the worked example ------------------------------------------------------- */

static inline void worked_example(struct fx *f) {
    int32_t sp = add_pool(f, "pool-spot", "gpu-x-spot", COST_CAP_SPOT, 1800000);
    int32_t fp = add_pool(f, "pool-fb", "gpu-x", COST_CAP_ON_DEMAND, 3600000);
    f->pools[sp].name = "gpu-spot";
    f->pools[fp].name = "gpu-fallback";
    f->pools[sp].deleted_at = T0 + 7230; /* the poll after the reclaim */
    int32_t s = add_node(f, "S", sp, 1800000, 0, 7200, 1, 8000);
    int32_t n = add_node(f, "F", fp, 3600000, 0, 10800, 1, 8000);
    int32_t j1 = add_task(f, "J1", COST_FALLBACK, COST_TASK_SUCCEEDED, 3660);
    int32_t j2 = add_task(f, "J2", COST_FALLBACK, COST_TASK_SUCCEEDED, 9000);
    int32_t j3 = add_task(f, "J3", COST_FALLBACK, COST_TASK_SUCCEEDED, 3660);
    add_attempt(f, j1, s, 0, 60, 3660, COST_PHASE_SUCCEEDED);
    struct cost_attempt *a = add_attempt(f, j2, s, 3700, 3760, -1, COST_PHASE_FAILED);
    a->deleted_at = T0 + 7200; /* gone with its node */
    a = add_attempt(f, j2, n, 7260, 7320, 9000, COST_PHASE_SUCCEEDED);
    a->restore_seconds = 120;
    add_attempt(f, j3, n, 60, 60, 3660, COST_PHASE_SUCCEEDED);
}

#endif
