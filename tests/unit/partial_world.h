/* partial_world — a seeded random small cluster over a week, as cost_input
 * arrays (tests/unit/test_partial.c, test_compose.c): spot pools by slug, one
 * reclaimed, On-Demand GPU pools, a CPU pool, a list-price change, nodes with
 * NotReady spells, alive nodes, tasks of the three configurations with retries,
 * interruptions, N-completion Jobs, restore and work reports, running tasks and
 * open attempts; render() writes every JSON body of a result. Static functions:
 * include after cmocka.h, from one test file each. */
#ifndef SPOTLEDGER_PARTIAL_WORLD_H
#define SPOTLEDGER_PARTIAL_WORLD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "engine/cost.h"
#include "query/report.h"

#include "splitmix.h"

#define T0 INT64_C(1772409600) /* 2026-03-02T00:00:00Z */
#define DAY 86400
#define H 3600

#define NP 5
#define MAXN 14
#define MAXT 48
#define MAXA (MAXT * 4)

struct world {
    struct cost_pool pools[NP];
    struct cost_node nodes[MAXN];
    int64_t spells[MAXN][4];
    struct cost_task tasks[MAXT];
    struct cost_attempt attempts[MAXA];
    struct cost_price prices[4];
    char names[MAXN + MAXT + MAXA][24];
    struct cost_input in;
    int64_t now;
};

static const char *name(struct world *w, int *k, const char *pfx, int i) {
    snprintf(w->names[*k], sizeof w->names[0], "%s%d", pfx, i);
    return w->names[(*k)++];
}

static void make_world(struct world *w, uint64_t seed) {
    memset(w, 0, sizeof *w);
    rs = seed * 7919 + 1;
    int k = 0;
    static const char *sizes[NP] = {"gpu-a-spot", "gpu-a", "gpu-b-spot", "cpu-x", "gpu-b"};
    for (int p = 0; p < NP; p++) {
        struct cost_pool *pl = &w->pools[p];
        pl->id = name(w, &k, "pool-", p);
        pl->name = pl->id;
        pl->size = sizes[p];
        pl->capacity = strstr(sizes[p], "-spot") ? COST_CAP_SPOT : COST_CAP_ON_DEMAND;
        pl->price_hourly = p == 3 ? 100000 : rr(1000000, 4000000);
    }
    w->pools[2].deleted_at = T0 + rr(2 * DAY, 5 * DAY); /* a reclaimed spot pool */
    w->pools[2].signal_at = w->pools[2].deleted_at - rr(60, 1800);
    /* price history: gpu-a changes once, gpu-b has one row, both 1-2 GPUs */
    w->prices[0] = (struct cost_price){"gpu-a", T0 - DAY, 2000000, 1};
    w->prices[1] = (struct cost_price){"gpu-a", T0 + rr(DAY, 4 * DAY), rr(1500000, 3000000), 1};
    w->prices[2] = (struct cost_price){"gpu-b", T0 + rr(0, DAY), 5000000, 2};
    w->in.prices = w->prices;
    w->in.n_prices = 3;
    w->now = T0 + 7 * DAY;
    int nn = (int)rr(6, MAXN);
    for (int i = 0; i < nn; i++) {
        struct cost_node *n = &w->nodes[i];
        n->name = name(w, &k, "node-", i);
        n->pool = chance(5) ? -1 : (int32_t)rr(0, NP - 1);
        n->price_hourly = chance(30) ? 0 : rr(500000, 4000000);
        n->created_at = T0 + rr(-DAY, 5 * DAY);
        n->ready_at = chance(90) ? n->created_at + rr(0, 300) : 0;
        int64_t life = chance(10) ? rr(10, 59) : rr(H, 3 * DAY);
        if (!chance(20))
            n->k8s_deleted_at = n->created_at + life;
        if (chance(30))
            n->do_deleted_at = n->created_at + life + rr(-120, 600);
        if (n->pool == 2) { /* the reclaim: every node gone near the pool */
            n->created_at = T0 + rr(0, DAY);
            n->ready_at = n->created_at + 60;
            n->k8s_deleted_at = w->pools[2].deleted_at - rr(0, 500);
        }
        n->gpu_allocatable = n->pool == 3 ? 0 : rr(1, 2);
        n->cpu_allocatable_milli = chance(90) ? 8000 : 0;
        if (chance(30))
            n->cordoned_at = n->created_at + rr(H, 2 * DAY);
        if (chance(40)) {
            int64_t a = n->created_at + rr(600, DAY);
            w->spells[i][0] = a;
            w->spells[i][1] = chance(70) ? a + rr(30, 900) : 0;
            n->spells = w->spells[i];
            n->n_spells = 1;
            n->not_ready_at = a;
        }
    }
    int nt = (int)rr(10, MAXT), na = 0;
    for (int t = 0; t < nt; t++) {
        struct cost_task *task = &w->tasks[t];
        task->uid = name(w, &k, "task-", t);
        task->ns = chance(50) ? "ns-a" : "ns-b";
        task->experiment = chance(50) ? "exp" : NULL;
        task->config = (enum cost_config)rr(0, 2);
        task->completions = chance(15) ? rr(2, 3) : 1;
        int64_t start = T0 + rr(-DAY, 6 * DAY);
        int64_t t_end = start;
        int natt = (int)rr(1, 4);
        for (int j = 0; j < natt && na < MAXA; j++) {
            struct cost_attempt *a = &w->attempts[na++];
            a->uid = name(w, &k, "pod-", na);
            a->task = t;
            a->node = chance(8) ? -1 : (int32_t)rr(0, nn - 1);
            a->gpu_request = chance(10) ? 0 : rr(1, 2);
            a->cpu_request_milli = rr(500, 8000);
            a->created_at = start + rr(0, H);
            if (a->node >= 0) { /* a pod runs on a node that exists then */
                const struct cost_node *n = &w->nodes[a->node];
                int64_t e = n->k8s_deleted_at ? n->k8s_deleted_at : n->created_at + 3 * DAY;
                if (n->do_deleted_at && n->do_deleted_at < e)
                    e = n->do_deleted_at;
                a->created_at =
                    n->created_at + rr(0, e - n->created_at > 1 ? e - n->created_at - 1 : 0);
            }
            a->scheduled_at = a->node >= 0 && chance(90) ? a->created_at + rr(0, 600) : 0;
            a->started_at = a->node >= 0 && chance(90) ? a->created_at + rr(0, 900) : 0;
            int64_t dur = rr(60, 2 * DAY);
            int r = (int)rr(0, 9);
            if (r < 5) {
                a->phase = COST_PHASE_SUCCEEDED;
                a->finished_at = a->created_at + dur;
            } else if (r < 7) {
                a->phase = COST_PHASE_FAILED;
                a->finished_at = chance(70) ? a->created_at + dur : 0;
                a->terminal_at = a->created_at + dur + rr(0, 60);
                a->reason = chance(50) ? "Evicted" : "Error";
                a->disruption_at = chance(40) ? a->created_at + dur - rr(0, 60) : 0;
            } else if (r < 8) {
                a->phase = COST_PHASE_RUNNING; /* open unless removed */
                a->deleted_at = chance(50) ? a->created_at + dur : 0;
            } else {
                a->phase = COST_PHASE_UNKNOWN;
                a->deleted_at = a->created_at + dur;
                a->delete_requested_at = chance(50) ? a->deleted_at - rr(0, 30) : 0;
            }
            a->not_ready_at = chance(10) ? a->created_at + rr(0, dur) : 0;
            a->work_seconds = chance(50) ? rr(0, dur) : -1;
            a->restore_seconds = chance(40) ? rr(0, 600) : -1;
            a->checkpoint_seconds = chance(30) ? rr(10, 300) : -1;
            if (a->created_at + dur > t_end)
                t_end = a->created_at + dur;
            start = a->created_at + rr(0, dur + H);
        }
        int o = (int)rr(0, 9);
        task->outcome = o < 7 ? COST_TASK_SUCCEEDED : o < 9 ? COST_TASK_FAILED : COST_TASK_RUNNING;
        if (task->outcome == COST_TASK_RUNNING && chance(70))
            task->outcome = COST_TASK_SUCCEEDED; /* running tasks: few, as in a real week */
        if (task->outcome != COST_TASK_RUNNING)
            task->completed_at = t_end + rr(0, 120);
    }
    w->in.pools = w->pools;
    w->in.n_pools = NP;
    w->in.nodes = w->nodes;
    w->in.n_nodes = (size_t)nn;
    w->in.tasks = w->tasks;
    w->in.n_tasks = (size_t)nt;
    w->in.attempts = w->attempts;
    w->in.n_attempts = (size_t)na;
}

/* Every body a window's figures are shown in, one after the other. */
static void render(const struct cost_result *r, struct buf *b) {
    buf_reset(b);
    assert_int_equal(report_summary_json(r, b), ERR_OK);
    assert_int_equal(report_pools_json(r, b), ERR_OK);
    assert_int_equal(report_nodes_json(r, b), ERR_OK);
    assert_int_equal(report_reclaims_json(r, b), ERR_OK);
}

#endif
