/* oracle_gen — one seeded random small cluster for test_oracle.c, as the
 * oracle's timeline (sim_oracle.h): pools (some Spot by slug, some only by
 * label), a list-price change, nodes with NotReady blips, reclaims, Jobs with
 * retries, partitions whose original finishes first, pending replacements, CPU
 * pods on GPU nodes, N-completion and Indexed Jobs, pods whose end is never
 * reported. gen_make(g, seed) draws it (splitmix64 from the seed), gen_timeline
 * hands it to the oracle. Static functions: include after cmocka.h, from one
 * test file. */
#ifndef SPOTLEDGER_TEST_ORACLE_GEN_H
#define SPOTLEDGER_TEST_ORACLE_GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sim/sim_oracle.h"

#include "splitmix.h"

#define NV ORC_NEVER
#define T0 1793577600LL /* 2026-11-02T00:00:00Z */
#define GRACE 30
#define MAXP 6
#define MAXN 10
#define MAXJ 10
#define MAXPOD 32

/* ---- one random cluster --------------------------------------------------- */
struct gen {
    int64_t horizon; /* now = end of the window */
    struct orc_size sizes[5];
    struct orc_price prices[8];
    int nprices;
    struct orc_pool pools[MAXP];
    char pool_id[MAXP][40], pool_name[MAXP][24];
    int npools;
    struct orc_node nodes[MAXN];
    char node_name[MAXN][24];
    int nnodes;
    struct orc_job jobs[MAXJ];
    char job_uid[MAXJ][40];
    int64_t index_done[MAXJ][4];
    int njobs;
    struct orc_pod pods[MAXPOD];
    char pod_uid[MAXPOD][40];
    int npods;
    struct orc_pair od[1];
    int nod;
};

static const struct orc_pair spot_labels[] = {{"doks.digitalocean.com/capacity-type", "spot"},
                                              {"gpu-pool-type", "spot"}};

/* Prices in µ$/h that make every per-second share exact (x 1/3600 x 1/8). */
static int64_t gpu_price(void) {
    return 28800 * rr(20, 150);
}

static int gpu_free_at(const struct gen *g, int node, int64_t a, int64_t b, int want) {
    int used = 0;
    for (int i = 0; i < g->npods; i++) {
        const struct orc_pod *p = &g->pods[i];
        if (p->node != node || p->sched_t == NV)
            continue;
        int64_t e = p->fin_t;
        if (p->removed_t < e)
            e = p->removed_t;
        if (g->nodes[node].deleted_t < e)
            e = g->nodes[node].deleted_t;
        if (p->sched_t < b && e > a)
            used += g->nodes[node].gpus > 0 ? p->gpu_req : p->cpu_m;
    }
    int cap = g->nodes[node].gpus > 0 ? g->nodes[node].gpus : g->nodes[node].cpu_m;
    return cap - used >= want;
}

static void gen_make(struct gen *g, uint64_t seed) {
    memset(g, 0, sizeof *g);
    rs = seed * 0x2545F4914F6CDD1DULL + 1;
    g->horizon = rr(2, 8) * 1800;
    g->sizes[0] = (struct orc_size){"gpu-a1-spot", 1};
    g->sizes[1] = (struct orc_size){"gpu-a1", 1};
    g->sizes[2] = (struct orc_size){"gpu-b2", 2};
    g->sizes[3] = (struct orc_size){"gpu-a8", 8};
    g->sizes[4] = (struct orc_size){"cpu-4", 0};
    for (int i = 0; i < 5; i++)
        g->prices[g->nprices++] =
            (struct orc_price){g->sizes[i].slug, T0, i == 4 ? 3600 * rr(1, 40) : gpu_price()};
    if (chance(40)) /* a list-price change mid-window */
        g->prices[g->nprices++] =
            (struct orc_price){g->sizes[rr(0, 3)].slug, T0 + rr(60, g->horizon - 60), gpu_price()};
    if (chance(30)) {
        g->od[0] = (struct orc_pair){"gpu-b2", "gpu-a8"};
        g->nod = 1;
    }
    /* pools: a spot pool by slug, maybe a spot pool only by label, an on-demand GPU pool,
     * maybe a CPU pool */
    const char *psize[MAXP];
    int np = 0;
    psize[np++] = "gpu-a1-spot";
    if (chance(60))
        psize[np++] = "gpu-b2"; /* labelled spot */
    psize[np++] = chance(50) ? "gpu-a1" : "gpu-a8";
    if (chance(50))
        psize[np++] = "cpu-4";
    for (int p = 0; p < np; p++) {
        snprintf(g->pool_id[p], sizeof g->pool_id[p], "pool-%d-%llu", p, (unsigned long long)seed);
        snprintf(g->pool_name[p], sizeof g->pool_name[p], "pool%d", p);
        g->pools[p] = (struct orc_pool){g->pool_id[p], g->pool_name[p], psize[p], NULL, T0, NV, NV};
        if (strcmp(psize[p], "gpu-b2") == 0)
            g->pools[p].labels = "gpu-pool-type=spot\n";
    }
    g->npools = np;
    /* nodes */
    for (int p = 0; p < np; p++) {
        int k = (int)rr(1, 2);
        for (int i = 0; i < k && g->nnodes < MAXN; i++) {
            int n = g->nnodes++;
            snprintf(g->node_name[n], sizeof g->node_name[n], "node-%d", n);
            struct orc_node *nd = &g->nodes[n];
            int gi = 0;
            for (int s = 0; s < 5; s++)
                if (strcmp(g->sizes[s].slug, psize[p]) == 0)
                    gi = s;
            int64_t c = T0 + (chance(60) ? 0 : rr(0, g->horizon / 2));
            *nd = (struct orc_node){.name = g->node_name[n],
                                    .pool = p,
                                    .gpus = g->sizes[gi].gpus,
                                    .cpu_m = 4000,
                                    .created_t = c,
                                    .ready_t = chance(5) ? NV : c + rr(0, 300),
                                    .deleted_t = NV};
            if (chance(15) && nd->ready_t != NV) /* a short-lived node (minimum charge) */
                nd->deleted_t = nd->ready_t + rr(1, 120);
            else if (chance(25))
                nd->deleted_t = c + rr(600, g->horizon);
            if (nd->deleted_t != NV && nd->deleted_t > T0 + g->horizon)
                nd->deleted_t = NV;
            if (nd->ready_t != NV && nd->ready_t >= T0 + g->horizon)
                nd->ready_t = NV;
            /* NotReady blips, then maybe a last spell until deletion */
            int64_t t = nd->ready_t;
            for (int b = 0; nd->ready_t != NV && b < 3 && chance(30); b++) {
                int64_t from = t + rr(60, 1200), to = from + rr(5, 120);
                if (to >= (nd->deleted_t == NV ? T0 + g->horizon : nd->deleted_t))
                    break;
                nd->spells[nd->nspells++] = (struct orc_spell){from, to};
                t = to;
            }
            if (nd->deleted_t != NV && nd->deleted_t - 30 > t && chance(50))
                nd->spells[nd->nspells++] = (struct orc_spell){nd->deleted_t - 30, NV};
        }
    }
    /* a reclaim: the slug-spot pool gone with its nodes */
    if (chance(40)) {
        int64_t gone = T0 + rr(g->horizon / 4, g->horizon - 60);
        g->pools[0].signal_t = gone - 30;
        g->pools[0].gone_t = gone;
        for (int n = 0; n < g->nnodes; n++) {
            struct orc_node *nd = &g->nodes[n];
            if (nd->pool != 0 || nd->created_t >= gone - 30)
                continue;
            if (nd->deleted_t == NV || nd->deleted_t > gone) {
                nd->deleted_t = gone;
                if (nd->ready_t != NV && nd->ready_t >= gone)
                    nd->ready_t = NV;
                int s = nd->nspells;
                while (s > 0 && nd->spells[s - 1].from >= gone - 30)
                    s--;
                nd->nspells = s;
                if (s > 0 && nd->spells[s - 1].to == NV)
                    nd->spells[s - 1].to = gone - 30;
                /* a node Ready only after the signal was never Ready-then-NotReady:
                 * no spell (seed 1038, docs/oracle.md) */
                if (nd->ready_t != NV && nd->ready_t < gone - 30 &&
                    (s == 0 || nd->spells[s - 1].to < gone - 30))
                    nd->spells[nd->nspells++] = (struct orc_spell){gone - 30, NV};
            }
        }
    }
    /* jobs and their pods */
    int nj = (int)rr(1, MAXJ);
    for (int j = 0; j < nj; j++) {
        struct orc_job *job = &g->jobs[g->njobs];
        snprintf(g->job_uid[g->njobs], sizeof g->job_uid[0], "job-%d-%llu", g->njobs,
                 (unsigned long long)seed);
        int kind = (int)rr(0, 9); /* 0-6 plain, 7-8 N-completion, 9 Indexed */
        *job = (struct orc_job){.uid = g->job_uid[g->njobs],
                                .name = g->job_uid[g->njobs],
                                .config = (enum orc_config)rr(0, 2),
                                .completions = kind >= 7 ? (int)rr(2, 3) : 1,
                                .indexed = kind == 9,
                                .complete_t = NV,
                                .failed_t = NV,
                                .index_done_t = g->index_done[g->njobs]};
        for (int i = 0; i < 4; i++)
            g->index_done[g->njobs][i] = NV;
        int jidx = g->njobs++;
        int64_t created = T0 + rr(0, g->horizon - 600);
        int gpu = chance(15) ? 0 : (int)rr(1, 2);
        int cpu = (int)rr(1, 4) * 1000;
        int ntask = job->completions;
        int succeeded = 0;
        int64_t last_ok = 0;
        for (int task = 0; task < ntask; task++) {
            int64_t t = created + 1;
            int attempts = (int)rr(1, 3);
            bool done = false;
            for (int a = 0; a < attempts && !done && g->npods < MAXPOD; a++) {
                int i = g->npods;
                snprintf(g->pod_uid[i], sizeof g->pod_uid[0], "pod-%d-%llu", i,
                         (unsigned long long)seed);
                struct orc_pod *p = &g->pods[i];
                *p = (struct orc_pod){.uid = g->pod_uid[i],
                                      .job = jidx,
                                      .index = job->indexed ? task : -1,
                                      .node = -1,
                                      .gpu_req = gpu,
                                      .cpu_m = cpu,
                                      .created_t = t,
                                      .sched_t = NV,
                                      .start_t = NV,
                                      .fin_t = NV,
                                      .delreq_t = NV,
                                      .removed_t = NV,
                                      .disrupt_t = NV,
                                      .work_s = -1,
                                      .restore_s = -1,
                                      .checkpoint_s = -1};
                if (t >= T0 + g->horizon - 5)
                    break;
                g->npods++;
                /* schedule on a random node that is Ready, not in a spell, and free */
                int64_t s = t + rr(0, 200);
                int64_t run = rr(60, 3600);
                int tries = 0, node = -1;
                while (tries++ < 8 && node < 0) {
                    int n = (int)rr(0, g->nnodes - 1);
                    const struct orc_node *nd = &g->nodes[n];
                    if (nd->ready_t == NV || s < nd->ready_t || nd->deleted_t <= s)
                        continue;
                    bool in_spell = false;
                    for (int k = 0; k < nd->nspells; k++)
                        if (s >= nd->spells[k].from && s < nd->spells[k].to)
                            in_spell = true;
                    if (in_spell)
                        continue;
                    if (!gpu_free_at(g, n, s, s + run + 400, nd->gpus > 0 ? gpu : cpu))
                        continue;
                    if (nd->gpus == 0 && gpu > 0)
                        continue;
                    node = n;
                }
                if (node < 0 || s >= T0 + g->horizon) {
                    /* a pending pod: never scheduled; maybe deleted later */
                    if (chance(50)) {
                        p->delreq_t = s + rr(60, 900);
                        p->removed_t = p->delreq_t;
                    }
                    t = (p->removed_t != NV ? p->removed_t : s) + 1;
                    continue;
                }
                const struct orc_node *nd = &g->nodes[node];
                p->node = node;
                p->sched_t = s;
                p->start_t = s + rr(0, 60);
                int64_t fin = p->start_t + run;
                bool fails = chance(20);
                /* a spell or the node's deletion while it runs */
                int64_t lost = NV;
                for (int k = 0; k < nd->nspells; k++)
                    if (nd->spells[k].from >= p->start_t && nd->spells[k].from < fin &&
                        nd->spells[k].to == NV)
                        lost = nd->spells[k].from;
                if (nd->deleted_t != NV && nd->deleted_t <= fin) {
                    /* its node goes: the container's end is never reported; PodGC removes it */
                    if (chance(50))
                        p->disrupt_t = nd->deleted_t - rr(1, 20) > s ? nd->deleted_t - 10 : NV;
                    if (p->disrupt_t != NV && p->disrupt_t <= s)
                        p->disrupt_t = NV;
                    p->removed_t = nd->deleted_t + 40;
                    p->delreq_t = nd->deleted_t + 40;
                    (void)lost;
                } else if (chance(10)) {
                    /* a partition: the deletion is requested, a replacement starts, and
                     * the original may still finish first (its end is seen late) */
                    p->delreq_t = p->start_t + rr(10, run / 2 + 10);
                    p->fin_t = fin;
                    p->exit_code = fails ? 1 : 0;
                    p->reason = fails ? "Error" : "Completed";
                    p->removed_t = fin + rr(0, 30);
                } else {
                    p->fin_t = fin;
                    p->exit_code = fails ? 1 : 0;
                    p->reason = fails ? "Error" : "Completed";
                    if (chance(30)) {
                        p->delreq_t = fin + rr(1, 600);
                        p->removed_t = p->delreq_t + rr(0, GRACE);
                    }
                    if (!fails && chance(30)) {
                        p->work_s = rr(1, run);
                        p->restore_s = a > 0 ? rr(0, 30) : 0;
                        p->checkpoint_s = rr(1, 20);
                    }
                }
                /* past now: unknown */
                int64_t now = T0 + g->horizon;
                if (p->start_t > now)
                    p->start_t = NV;
                if (p->fin_t > now)
                    p->fin_t = NV, p->reason = NULL, p->exit_code = 0, p->work_s = -1,
                    p->restore_s = -1, p->checkpoint_s = -1;
                if (p->removed_t > now)
                    p->removed_t = NV;
                if (p->delreq_t > now)
                    p->delreq_t = NV;
                if (p->disrupt_t > now)
                    p->disrupt_t = NV;
                if (p->fin_t != NV && p->exit_code == 0) {
                    done = true;
                    succeeded++;
                    if (p->fin_t > last_ok)
                        last_ok = p->fin_t;
                    if (job->indexed)
                        g->index_done[jidx][task] = p->fin_t;
                }
                /* the next attempt: after the delete request (a replacement), or after the end */
                int64_t next = p->delreq_t != NV && p->delreq_t < (p->fin_t == NV ? NV : p->fin_t)
                                   ? p->delreq_t + 1
                                   : (p->fin_t != NV        ? p->fin_t + 10
                                      : p->removed_t != NV  ? p->removed_t + 1
                                      : nd->deleted_t != NV ? nd->deleted_t + 1
                                                            : NV);
                if (next == NV)
                    break;
                t = next;
            }
        }
        if (succeeded >= ntask && last_ok + 1 <= T0 + g->horizon)
            job->complete_t = last_ok + 1;
        else if (chance(30) && g->npods > 0 && job->complete_t == NV)
            job->failed_t = NV; /* still running */
    }
}

static void gen_timeline(const struct gen *g, struct orc_timeline *tl) {
    *tl = (struct orc_timeline){.prices = g->prices,
                                .nprices = g->nprices,
                                .sizes = g->sizes,
                                .nsizes = 5,
                                .pools = g->pools,
                                .npools = g->npools,
                                .nodes = g->nodes,
                                .nnodes = g->nnodes,
                                .jobs = g->jobs,
                                .njobs = g->njobs,
                                .pods = g->pods,
                                .npods = g->npods,
                                .spot_labels = spot_labels,
                                .nspot_labels = 2,
                                .od_sizes = g->od,
                                .nod_sizes = g->nod};
}

#endif
