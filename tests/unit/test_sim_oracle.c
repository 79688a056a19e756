/* sim_oracle: the independent oracle on hand-computed cases (docs/oracle.md).
 * Every expected figure is arithmetic shown next to it, never the engine's: each
 * case lists its figures as rows {what, the oracle's, the hand arithmetic's}. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/timeutil.h"
#include "sim/sim_oracle.h"

#define N ORC_NEVER

static struct orc_pod pod(const char *uid, int job, int node, int64_t sched, int64_t start,
                          int64_t fin, int exit_code) {
    return (struct orc_pod){.uid = uid,
                            .job = job,
                            .index = -1,
                            .node = node,
                            .gpu_req = 1,
                            .cpu_m = 1000,
                            .created_t = sched == N ? 0 : sched,
                            .sched_t = sched,
                            .start_t = start,
                            .fin_t = fin,
                            .exit_code = exit_code,
                            .delreq_t = N,
                            .removed_t = N,
                            .disrupt_t = N,
                            .work_s = -1,
                            .restore_s = -1,
                            .checkpoint_s = -1};
}

static struct orc_node node(const char *name, int pool, int gpus, int64_t ready, int64_t del) {
    return (struct orc_node){.name = name,
                             .pool = pool,
                             .gpus = gpus,
                             .cpu_m = 8000,
                             .created_t = ready,
                             .ready_t = ready,
                             .deleted_t = del};
}

static struct orc_job job(const char *uid, enum orc_config c, int64_t complete) {
    return (struct orc_job){.uid = uid,
                            .name = uid,
                            .config = c,
                            .completions = 1,
                            .complete_t = complete,
                            .failed_t = N};
}

static const struct orc_size sizes[] = {
    {"gpu-x-spot", 1}, {"gpu-x", 1}, {"cpu", 0}, {"gpu-l40sx1", 1}, {"gpu-l40sx8", 8}};

/* A case's timeline: each array with its count, and the sizes above. */
static struct orc_timeline timeline(const struct orc_price *prices, int nprices,
                                    const struct orc_pool *pools, int npools,
                                    const struct orc_node *nodes, int nnodes,
                                    const struct orc_job *jobs, int njobs,
                                    const struct orc_pod *pods, int npods) {
    return (struct orc_timeline){.prices = prices,
                                 .nprices = nprices,
                                 .sizes = sizes,
                                 .nsizes = 5,
                                 .pools = pools,
                                 .npools = npools,
                                 .nodes = nodes,
                                 .nnodes = nnodes,
                                 .jobs = jobs,
                                 .njobs = njobs,
                                 .pods = pods,
                                 .npods = npods};
}

/* One expected figure: what it is, the oracle's value, the hand arithmetic's. */
struct fig {
    const char *what;
    int64_t got, want;
};

/* Checks every row of a case, naming the one that differs. */
static void check(const struct fig *figs, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (figs[i].got != figs[i].want)
            fail_msg("%s: %" PRId64 ", want %" PRId64, figs[i].what, figs[i].got, figs[i].want);
}

/* The worked example (tests/unit/test_cost.c). */
static void test_worked_example(void **state) {
    (void)state;
    struct orc_price prices[] = {{"gpu-x-spot", 0, 1800000}, {"gpu-x", 0, 3600000}};
    struct orc_pool pools[] = {{"p-s", "spot", "gpu-x-spot", NULL, 0, N, N},
                               {"p-f", "fallback", "gpu-x", NULL, 0, N, N}};
    struct orc_node nodes[] = {node("S", 0, 1, 0, 7200), node("F", 1, 1, 0, 10800)};
    struct orc_job jobs[] = {job("J1", ORC_FALLBACK, 3660), job("J2", ORC_FALLBACK, 9000),
                             job("J3", ORC_FALLBACK, 3660)};
    struct orc_pod pods[] = {pod("a1", 0, 0, 0, 60, 3660, 0), pod("a2", 1, 0, 3700, 3760, N, 0),
                             pod("a3", 1, 1, 7260, 7320, 9000, 0),
                             pod("a4", 2, 1, 60, 60, 3660, 0)};
    pods[2].created_t = 7201;
    pods[2].restore_s = 120;
    struct orc_timeline tl = timeline(prices, 2, pools, 2, nodes, 2, jobs, 3, pods, 4);
    struct orc_result r;
    assert_int_equal(orc_compute(&tl, 0, 10800, 10800, &r), ERR_OK);
    const struct orc_config_result *f = &r.cfg[ORC_FALLBACK];
    const struct fig figs[] = {
        /* nodes: S 7200 s x $0.0005 = $3.60; F 10800 s x $0.001 = $10.80 */
        {"r.nodes[0].total", r.nodes[0].total, 3600000},
        {"r.nodes[1].total", r.nodes[1].total, 10800000},
        {"r.nodes_total", r.nodes_total, 14400000},
        /* allocated 1.83 + 1.75 + 1.74 + 3.60 = 8.92; idle 14.40 - 8.92 = 5.48 */
        {"r.allocated_total", r.allocated_total, 8920000},
        {"r.idle_total", r.idle_total, 5480000},
        {"r.nodes[0].idle", r.nodes[0].idle, 20000}, /* S: 40 s x $0.0005 */
        {"f->tasks_succeeded", f->tasks_succeeded, 3},
        {"f->attempts", f->attempts, 4},
        {"f->retries", f->retries, 1},
        {"f->interruptions", f->interruptions, 1},
        {"f->duplicates", f->duplicates, 0},
        {"f->wasted", f->wasted, 1750000}, /* 3500 s x $0.0005 */
        /* restore: a3's first 120 s after its start, at $0.001/s */
        {"f->restore", f->restore, 120000},
        {"f->useful", f->useful, 1830000 + 1740000 - 120000 + 3600000},
        {"f->cost", f->cost, 14400000},
        {"f->cost_per_task", f->cost_per_task, 4800000}, /* $14.40 / 3 */
        /* restore time of J2: (7320 - 7200) + 120 */
        {"f->restore_samples", f->restore_samples, 1},
        {"f->restore_total", f->restore_total, 240},
        /* counterfactual: (3600 + 1680 + 3600) s x $0.001 = $8.88; / 3 = $2.96 */
        {"r.cf_tasks", r.cf_tasks, 3},
        {"r.cf_priced", r.cf_priced, 3},
        {"r.cf_work_seconds", r.cf_work_seconds, 8880},
        {"r.cf_cost", r.cf_cost, 8880000},
        {"r.cf_per_task", r.cf_per_task, 2960000},
        {"r.unattributed_total", r.unattributed_total, 0},
    };
    check(figs, sizeof figs / sizeof *figs);
    orc_result_release(&r);
}

/* A partitioned kubelet: the original keeps running past its deletion request
 * (deletionTimestamp) and finishes first; it is the winner, the replacement a
 * duplicate for the 430 s both held a GPU. */
static void test_partition_original_finishes_first(void **state) {
    (void)state;
    struct orc_price prices[] = {{"gpu-x", 0, 3600000}};
    struct orc_pool pools[] = {{"p", "fallback", "gpu-x", NULL, 0, N, N}};
    struct orc_node nodes[] = {node("A", 0, 1, 0, N), node("B", 0, 1, 0, N)};
    nodes[0].spells[0] = (struct orc_spell){100, 400};
    nodes[0].nspells = 1;
    struct orc_job jobs[] = {job("J", ORC_FALLBACK, 600)};
    struct orc_pod pods[] = {pod("p1", 0, 0, 0, 0, 600, 0), pod("p2", 0, 1, 170, 175, 610, 143)};
    pods[0].delreq_t = 160; /* deletionTimestamp would say 190: not an end */
    pods[0].removed_t = 601;
    pods[1].created_t = 161;
    pods[1].reason = "Error";
    struct orc_timeline tl = timeline(prices, 1, pools, 1, nodes, 2, jobs, 1, pods, 2);
    struct orc_result r;
    assert_int_equal(orc_compute(&tl, 0, 1200, 1200, &r), ERR_OK);
    const struct orc_config_result *f = &r.cfg[ORC_FALLBACK];
    const struct fig figs[] = {
        {"f->useful", f->useful, 600000}, /* p1 holds 0..600 at $0.001/s */
        {"f->wasted", f->wasted, 440000}, /* p2 holds 170..610 */
        {"f->duplicates", f->duplicates, 1},
        {"f->duplicate_seconds", f->duplicate_seconds, 430}, /* 170..600 */
        {"f->interruptions", f->interruptions, 0},
        {"f->retries", f->retries, 1},
        {"r.nodes_total", r.nodes_total, 2400000}, /* 2 x 1200 s x $0.001 */
        {"f->cost", f->cost, 2400000},
        {"f->cost_per_task", f->cost_per_task, 2400000},
    };
    check(figs, sizeof figs / sizeof *figs);
    orc_result_release(&r);
}

/* CPU-only pods on GPU nodes have share 0; a GPU pool used only by them splits
 * its idle by held seconds (decisions.md 1). */
static void test_cpu_pods_on_gpu_nodes(void **state) {
    (void)state;
    struct orc_price prices[] = {{"gpu-x", 0, 3600000}, {"gpu-x-spot", 0, 1800000}};
    struct orc_pool pools[] = {{"p1", "a", "gpu-x", NULL, 0, N, N},
                               {"p2", "b", "gpu-x-spot", NULL, 0, N, N}};
    struct orc_node nodes[] = {node("G", 0, 1, 0, 3600), node("H", 1, 1, 0, 3600)};
    struct orc_job jobs[] = {job("a", ORC_FALLBACK, 3600), job("b", ORC_ON_DEMAND, 3600),
                             job("c", ORC_ON_DEMAND, 1800), job("d", ORC_SPOT, 3600)};
    struct orc_pod pods[] = {pod("a", 0, 0, 0, 0, 3600, 0), pod("b", 1, 0, 0, 0, 3600, 0),
                             pod("c", 2, 1, 0, 0, 1800, 0), pod("d", 3, 1, 0, 0, 3600, 0)};
    pods[1].gpu_req = pods[2].gpu_req = pods[3].gpu_req = 0;
    pods[1].cpu_m = 4000;
    struct orc_timeline tl = timeline(prices, 2, pools, 2, nodes, 2, jobs, 4, pods, 4);
    struct orc_result r;
    assert_int_equal(orc_compute(&tl, 0, 3600, 3600, &r), ERR_OK);
    const struct fig figs[] = {
        {"fallback cost", r.cfg[ORC_FALLBACK].cost, 3600000}, /* the GPU pod: all of G */
        /* H: $1.80 idle; on-demand held 1800 s, spot 3600 s -> 0.60 / 1.20 */
        {"on-demand cost", r.cfg[ORC_ON_DEMAND].cost, 600000},
        {"spot cost", r.cfg[ORC_SPOT].cost, 1200000},
        {"r.unattributed_total", r.unattributed_total, 0},
    };
    check(figs, sizeof figs / sizeof *figs);
    orc_result_release(&r);
}

/* 672 h per calendar month: March 2027 has 744 h; the last 72 h are free, and a
 * pod there costs $0; the used pool's idle still goes to its configuration. */
static void test_month_cap(void **state) {
    (void)state;
    int64_t m = timeutil_days_from_civil(2027, 3, 1) * 86400;
    int64_t e = timeutil_days_from_civil(2027, 4, 1) * 86400;
    struct orc_price prices[] = {{"gpu-x-spot", 0, 1000000}};
    struct orc_pool pools[] = {{"p", "s", "gpu-x-spot", NULL, 0, N, N}};
    struct orc_node nodes[] = {node("S", 0, 1, m, e)};
    struct orc_job jobs[] = {job("a", ORC_SPOT, m + 36000), job("b", ORC_SPOT, m + 710 * 3600)};
    struct orc_pod pods[] = {pod("a", 0, 0, m, m, m + 36000, 0),
                             pod("b", 1, 0, m + 700 * 3600, m + 700 * 3600, m + 710 * 3600, 0)};
    pods[0].created_t = m;
    pods[1].created_t = m + 700 * 3600;
    struct orc_timeline tl = timeline(prices, 1, pools, 1, nodes, 1, jobs, 2, pods, 2);
    struct orc_result r;
    assert_int_equal(orc_compute(&tl, m, e, e, &r), ERR_OK);
    const struct fig figs[] = {
        {"r.nodes[0].seconds", r.nodes[0].seconds, 672 * 3600},
        {"r.nodes_total", r.nodes_total, 672000000},       /* 672 h x $1 */
        {"spot useful", r.cfg[ORC_SPOT].useful, 10000000}, /* a: 10 h; b: free hours */
        {"spot cost", r.cfg[ORC_SPOT].cost, 672000000},    /* idle $662 is spot's */
        {"spot cost_per_task", r.cfg[ORC_SPOT].cost_per_task, 336000000},
        {"r.unattributed_total", r.unattributed_total, 0},
    };
    check(figs, sizeof figs / sizeof *figs);
    orc_result_release(&r);
}

/* One rule for a node's billed amount: rate x max(60 s, seconds), at least $0.01. */
static void test_minimum_charge(void **state) {
    (void)state;
    struct orc_price prices[] = {{"cpu", 0, 18000}, {"gpu-x", 0, 3600000}};
    struct orc_pool pools[] = {{"p", "sys", "cpu", NULL, 0, N, N},
                               {"q", "g", "gpu-x", NULL, 0, N, N}};
    struct orc_node nodes[] = {node("C", 0, 0, 0, 30), node("G", 1, 1, 0, 30),
                               node("never-ready", 1, 1, 0, 500)};
    nodes[2].ready_t = N;
    struct orc_timeline tl = timeline(prices, 2, pools, 2, nodes, 3, NULL, 0, NULL, 0);
    struct orc_result r;
    assert_int_equal(orc_compute(&tl, 0, 3600, 3600, &r), ERR_OK);
    const struct fig whole[] = {
        {"r.nodes[0].total", r.nodes[0].total, 10000}, /* 60 s x $0.000005 = $0.0003 < $0.01 */
        {"r.nodes[1].total", r.nodes[1].total, 60000}, /* 60 s x $0.001 */
        {"r.nodes[2].total", r.nodes[2].total, 0},     /* never Ready: never billed */
        {"r.nodes[1].seconds", r.nodes[1].seconds, 60},
        {"r.unattributed_total", r.unattributed_total, 70000},
    };
    check(whole, sizeof whole / sizeof *whole);
    orc_result_release(&r);
    /* windows: the 60 s fall from Ready on ([0, 60)); the floor lands with the
     * last billed second (59): C is 40 s x 5 µ$ = 200 µ$ in [0, 40), and
     * 20 s x 5 µ$ + (10000 - 300) = 9800 µ$ in [40, 3600) */
    assert_int_equal(orc_compute(&tl, 0, 40, 3600, &r), ERR_OK);
    const struct fig first[] = {
        {"[0, 40) r.nodes[0].total", r.nodes[0].total, 200},
        {"[0, 40) r.nodes[1].total", r.nodes[1].total, 40000},
    };
    check(first, sizeof first / sizeof *first);
    orc_result_release(&r);
    assert_int_equal(orc_compute(&tl, 40, 3600, 3600, &r), ERR_OK);
    const struct fig rest[] = {
        {"[40, 3600) r.nodes[0].total", r.nodes[0].total, 9800},
        {"[40, 3600) r.nodes[1].total", r.nodes[1].total, 20000},
    };
    check(rest, sizeof rest / sizeof *rest);
    orc_result_release(&r);
    /* a node still alive gets no floor yet: C Ready at 0, now 30 -> 60 s x 5 µ$ */
    nodes[0].deleted_t = N;
    assert_int_equal(orc_compute(&tl, 0, 3600, 30, &r), ERR_OK);
    const struct fig alive[] = {
        {"now 30 r.nodes[0].total", r.nodes[0].total, 300},
        {"now 30 r.unattributed_total", r.unattributed_total, 60300}, /* and G's 60 s */
    };
    check(alive, sizeof alive / sizeof *alive);
    orc_result_release(&r);
}

/* A Spot pool known only by its label; --on-demand-size to an 8-GPU size (per-GPU
 * rate); the list price doubles mid-week: each task at the price of its run. */
static void test_label_spot_od_size_price_change(void **state) {
    (void)state;
    struct orc_price prices[] = {
        {"gpu-l40sx1", 0, 500000}, {"gpu-l40sx8", 0, 8000000}, {"gpu-l40sx8", 10000, 16000000}};
    struct orc_pool pools[] = {{"p", "l40", "gpu-l40sx1", "gpu-pool-type=spot\n", 0, N, N}};
    struct orc_node nodes[] = {node("L", 0, 1, 0, N)};
    struct orc_job jobs[] = {job("a", ORC_SPOT, 3600), job("b", ORC_SPOT, 23600)};
    struct orc_pod pods[] = {pod("a", 0, 0, 0, 0, 3600, 0), pod("b", 1, 0, 20000, 20000, 23600, 0)};
    const struct orc_pair labels[] = {{"gpu-pool-type", "spot"}};
    const struct orc_pair od[] = {{"gpu-l40sx1", "gpu-l40sx8"}};
    struct orc_timeline tl = timeline(prices, 3, pools, 1, nodes, 1, jobs, 2, pods, 2);
    tl.spot_labels = labels;
    tl.nspot_labels = 1;
    tl.od_sizes = od;
    tl.nod_sizes = 1;
    assert_true(orc_pool_is_spot(&tl, 0));
    struct orc_result r;
    assert_int_equal(orc_compute(&tl, 0, 30000, 30000, &r), ERR_OK);
    const struct fig figs[] = {
        /* a: 3600 s x 1 GPU x $8/h / 8 = $1; b: 3600 s x $16/h / 8 = $2 */
        {"r.cf_cost", r.cf_cost, 3000000},
        {"r.cf_per_task", r.cf_per_task, 1500000},
        /* the node's own rate is locked when it was created: $0.50/h x 30000 s */
        {"r.nodes_total", r.nodes_total, 4166667},
    };
    check(figs, sizeof figs / sizeof *figs);
    orc_result_release(&r);
}

/* A non-Indexed Job with completions 2 is 2 tasks: the first 2 pods to succeed
 * win; the third pod is a retry, and a duplicate while 3 pods were held. */
static void test_n_completions(void **state) {
    (void)state;
    struct orc_price prices[] = {{"gpu-x", 0, 3600000}};
    struct orc_pool pools[] = {{"p", "f", "gpu-x", NULL, 0, N, N}};
    struct orc_node nodes[] = {node("A", 0, 1, 0, N), node("B", 0, 1, 0, N), node("C", 0, 1, 0, N)};
    struct orc_job jobs[] = {job("J", ORC_FALLBACK, 120)};
    jobs[0].completions = 2;
    struct orc_pod pods[] = {pod("q1", 0, 0, 0, 0, 100, 0), pod("q2", 0, 1, 0, 0, 150, 0),
                             pod("q3", 0, 2, 0, 0, 120, 0)};
    struct orc_timeline tl = timeline(prices, 1, pools, 1, nodes, 3, jobs, 1, pods, 3);
    struct orc_result r;
    assert_int_equal(orc_compute(&tl, 0, 200, 200, &r), ERR_OK);
    const struct orc_config_result *f = &r.cfg[ORC_FALLBACK];
    const struct fig figs[] = {
        {"f->tasks_succeeded", f->tasks_succeeded, 2},
        {"f->retries", f->retries, 1},
        {"f->useful", f->useful, 220000},    /* q1 100 s + q3 120 s */
        {"f->wasted", f->wasted, 150000},    /* q2 finished last: not a winner */
        {"f->duplicates", f->duplicates, 1}, /* q3, while q1 and q2 ran: 0..100 */
        {"f->duplicate_seconds", f->duplicate_seconds, 100},
    };
    check(figs, sizeof figs / sizeof *figs);
    orc_result_release(&r);
}

/* Repeated NotReady blips: the loss happened in the last spell, not the first. */
static void test_notready_blips(void **state) {
    (void)state;
    struct orc_price prices[] = {{"gpu-x-spot", 0, 1800000}, {"gpu-x", 0, 3600000}};
    struct orc_pool pools[] = {{"s", "s", "gpu-x-spot", NULL, 0, 500, 530},
                               {"f", "f", "gpu-x", NULL, 0, N, N}};
    struct orc_node nodes[] = {node("S", 0, 1, 0, 530), node("F", 1, 1, 520, N)};
    nodes[0].spells[0] = (struct orc_spell){100, 110};
    nodes[0].spells[1] = (struct orc_spell){500, N};
    nodes[0].nspells = 2;
    struct orc_job jobs[] = {job("J", ORC_FALLBACK, 700)};
    struct orc_pod pods[] = {pod("a", 0, 0, 0, 10, N, 0), pod("b", 0, 1, 540, 600, 700, 0)};
    pods[1].created_t = 531;
    struct orc_timeline tl = timeline(prices, 2, pools, 2, nodes, 2, jobs, 1, pods, 2);
    struct orc_result r;
    assert_int_equal(orc_compute(&tl, 0, 1000, 1000, &r), ERR_OK);
    const struct orc_config_result *f = &r.cfg[ORC_FALLBACK];
    const struct fig figs[] = {
        {"f->interruptions", f->interruptions, 1},
        {"f->restore_samples", f->restore_samples, 1},
        {"f->restore_total", f->restore_total, 100}, /* 600 - 500 */
        {"r.nreclaims", r.nreclaims, 1},
    };
    check(figs, sizeof figs / sizeof *figs);
    const struct orc_reclaim *rc = &r.reclaims[0];
    const struct fig reclaim[] = {
        {"rc->replacement_delay", rc->replacement_delay, 20}, /* F Ready 520 - signal 500 */
        {"rc->return_to_work", rc->return_to_work, 100},
    };
    check(reclaim, sizeof reclaim / sizeof *reclaim);
    orc_result_release(&r);
}

/* The figures the truth's engine-run "cost" section used to give (docs/oracle.md
 * "What it computes"): restore percentiles, running tasks, unscheduled attempts,
 * per-configuration counterfactual, savings and overhead, the counterfactual's
 * reported / run-time split, a reclaim's nodes and task counts, each node's times.
 * Window [0, 10800), now 10800. Spot pool s (gpu-x-spot, $1.80/h = 500 µ$/s):
 * S0 Ready 100, deleted 1000 (a scale-down); S1, S2 Ready 0, deleted 7050 (the
 * reclaim: signal 7000, gone 7050). Pool f (gpu-x, $3.60/h = 1000 µ$/s): F1, F2
 * Ready 0, never deleted. Four spot tasks:
 *   J1: a1 on S1 100..7050 (DisruptionTarget 7000), a2 on F1 7100, start 7200,
 *       finishes 9000: J1 complete 9000;
 *   J2: b1 on S2 200..7050 (DisruptionTarget 7000), b2 created 7060 on F2 7100,
 *       start 7500, still running;
 *   J3: c1 on F2 300..3900 (reports work_seconds 3000): complete 3900;
 *   J4: d1 created 8000, never scheduled. */
static void test_engine_section_figures(void **state) {
    (void)state;
    struct orc_price prices[] = {{"gpu-x-spot", 0, 1800000}, {"gpu-x", 0, 3600000}};
    struct orc_pool pools[] = {{"p-s", "s", "gpu-x-spot", NULL, 0, 7000, 7050},
                               {"p-f", "f", "gpu-x", NULL, 0, N, N}};
    struct orc_node nodes[] = {node("S0", 0, 1, 100, 1000), node("S1", 0, 1, 0, 7050),
                               node("S2", 0, 1, 0, 7050), node("F1", 1, 1, 0, N),
                               node("F2", 1, 1, 0, N)};
    struct orc_job jobs[] = {job("J1", ORC_SPOT, 9000), job("J2", ORC_SPOT, N),
                             job("J3", ORC_SPOT, 3900), job("J4", ORC_SPOT, N)};
    struct orc_pod pods[] = {
        pod("a1", 0, 1, 100, 100, N, 0),    pod("a2", 0, 3, 7100, 7200, 9000, 0),
        pod("b1", 1, 2, 200, 200, N, 0),    pod("b2", 1, 4, 7100, 7500, N, 0),
        pod("c1", 2, 4, 300, 300, 3900, 0), pod("d1", 3, -1, N, N, N, 0)};
    pods[0].disrupt_t = pods[2].disrupt_t = 7000;
    pods[3].created_t = 7060;
    pods[4].work_s = 3000;
    pods[5].created_t = 8000;
    struct orc_timeline tl = timeline(prices, 2, pools, 2, nodes, 5, jobs, 4, pods, 6);
    struct orc_result r;
    assert_int_equal(orc_compute(&tl, 0, 10800, 10800, &r), ERR_OK);
    const struct orc_config_result *s = &r.cfg[ORC_SPOT];
    const struct orc_config_result *f = &r.cfg[ORC_FALLBACK];
    const struct fig figs[] = {
        /* nodes: S0 900 s x 500 = 450000; S1, S2 7050 x 500 = 3525000 each; F1, F2
         * 10800 x 1000 = 10800000 each: 29100000 */
        {"r.nodes_total", r.nodes_total, 29100000},
        /* allocated: wasted a1 6950 x 500 + b1 6850 x 500 = 6900000; useful a2 1900 x
         * 1000 + c1 3600 x 1000 = 5500000; running b2 3700 x 1000 = 3700000; idle:
         * 29100000 - 16100000 = 13000000, all spot's (the only configuration) */
        {"s->wasted", s->wasted, 6900000},
        {"s->useful", s->useful, 5500000},
        {"s->running", s->running, 3700000},
        {"s->idle", s->idle, 13000000},
        {"s->cost", s->cost, 29100000},
        {"s->tasks_succeeded", s->tasks_succeeded, 2},
        {"s->cost_per_task", s->cost_per_task, 14550000}, /* 29100000 / 2 */
        /* J2 has not finished and held S2 and F2 in W; J4 held nothing */
        {"s->tasks_running", s->tasks_running, 1},
        {"s->partial", s->partial, true}, /* J2 holds F2 at W's end, unfinished */
        {"r.attempts_unscheduled", r.attempts_unscheduled, 1}, /* d1 */
        {"s->attempts", s->attempts, 6},
        {"s->retries", s->retries, 2}, /* a2, b2 */
        /* restore samples: J1 7200 - 7000 = 200, J2 7500 - 7000 = 500; nearest rank:
         * p50 = rank ceil(0.5 x 2) = 1 -> 200, p95 = rank ceil(0.95 x 2) = 2 -> 500 */
        {"s->restore_samples", s->restore_samples, 2},
        {"s->restore_total", s->restore_total, 700},
        {"s->restore_p50", s->restore_p50, 200},
        {"s->restore_p95", s->restore_p95, 500},
        {"f->restore_p50", f->restore_p50, ORC_NEVER},
        /* overhead: (wasted 6900000 + restore 0 + idle 13000000) / useful 5500000 =
         * 3.618181.. -> 36182 bp */
        {"s->overhead_bp", s->overhead_bp, 36182},
        {"f->overhead_bp", f->overhead_bp, ORC_NEVER}, /* no useful cost */
        /* counterfactual: a2 on f (its own size, $3.60/h per GPU) by run time 9000 -
         * 7200 = 1800 s -> 1800000; c1 by its report 3000 s -> 3000000 */
        {"r.cf_reported", r.cf_reported, 1},
        {"r.cf_runtime", r.cf_runtime, 1},
        {"r.cf_work_seconds", r.cf_work_seconds, 4800},
        {"s->cf_tasks", s->cf_tasks, 2},
        {"s->cf_cost", s->cf_cost, 4800000},
        {"f->cf_tasks", f->cf_tasks, 0},
        /* savings: cf per task 2400000, cost per task 14550000: (2400000 - 14550000) /
         * 2400000 = -5.0625 -> -50625 bp */
        {"s->savings_bp", s->savings_bp, -50625},
        {"f->savings_bp", f->savings_bp, ORC_NEVER},
        {"r.excluded", r.excluded, 0},
        /* share-weighted charged seconds by pool (each pod 1 GPU of 1): f: a2 1900 + c1
         * 3600 + b2 3700 = 9200; s: a1 6950 + b1 6850 = 13800 */
        {"pool f spot seconds", r.pool_cfg_secs[1 * ORC_NCONFIG + ORC_SPOT], 9200},
        {"pool s spot seconds", r.pool_cfg_secs[0 * ORC_NCONFIG + ORC_SPOT], 13800},
        {"pool f fallback seconds", r.pool_cfg_secs[1 * ORC_NCONFIG + ORC_FALLBACK], 0},
        /* the reclaim of s: S1 and S2 (S0 ended 6050 s before it was gone, over an
         * hour); J1 and J2 interrupted, both resumed (7200, 7500) */
        {"r.nreclaims", r.nreclaims, 1},
    };
    check(figs, sizeof figs / sizeof *figs);
    const struct orc_reclaim *rc = &r.reclaims[0];
    const struct fig reclaim[] = {
        {"rc->nodes", rc->nodes, 2},
        {"rc->signal_to_gone", rc->signal_to_gone, 50},
        {"rc->tasks_interrupted", rc->tasks_interrupted, 2},
        {"rc->tasks_resumed", rc->tasks_resumed, 2},
        {"rc->resumed_t", rc->resumed_t, 7200},
        {"rc->last_resumed_t", rc->last_resumed_t, 7500},
        {"rc->replacement_delay", rc->replacement_delay, ORC_NEVER}, /* F1, F2 Ready before */
    };
    check(reclaim, sizeof reclaim / sizeof *reclaim);
    /* as JSON, keyed like the REST API */
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(orc_render_json(&tl, &r, &b), ERR_OK);
    const char *want[] = {
        "\"tasks_running\":1",
        "\"p50\":200,\"p95\":500",
        "\"measured_overhead_percent\":361.82",
        "\"savings_vs_on_demand_percent\":-506.25",
        "\"counterfactual_cost\":4.8",
        "\"tasks_reported_work\":1",
        "\"attempts_unscheduled\":1",
        "\"last_resumed_at\":\"1970-01-01T02:05:00Z\"",
        "\"billable_start\":\"1970-01-01T00:01:40Z\"",
        "\"deleted_at\":\"1970-01-01T00:16:40Z\"",
        "\"signal_to_gone_seconds\":50",
        "\"node_seconds_by_pool\":[{\"pool_id\":\"p-f\",\"pool\":\"f\",\"seconds\":9200},"
        "{\"pool_id\":\"p-s\",\"pool\":\"s\",\"seconds\":13800}]"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(buf_str(&b), want[i]))
            fail_msg("no %s in %s", want[i], buf_str(&b));
    buf_release(&b);
    orc_result_release(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_partition_original_finishes_first),
        cmocka_unit_test(test_cpu_pods_on_gpu_nodes),
        cmocka_unit_test(test_month_cap),
        cmocka_unit_test(test_minimum_charge),
        cmocka_unit_test(test_label_spot_od_size_price_change),
        cmocka_unit_test(test_n_completions),
        cmocka_unit_test(test_notready_blips),
        cmocka_unit_test(test_engine_section_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
