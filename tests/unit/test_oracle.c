/* test_oracle — property test: seeded random small clusters, the cost engine (in
 * process, through the store's writers and window loader as the service does)
 * against the independent oracle (src/sim/sim_oracle.c, docs/oracle.md).
 *
 * Each seed makes a random timeline (pools, some Spot by slug or only by label,
 * a list-price change, nodes with NotReady blips, reclaims, Jobs with retries,
 * partitions whose original finishes first, pending replacements, CPU pods on GPU
 * nodes, N-completion and Indexed Jobs, pods whose end is never reported). The
 * oracle reads the timeline; the engine reads what a watcher and a poller would
 * have stored: the Kubernetes objects as JSON (parsed by source/k8s_api) at each
 * change, with deletionTimestamp = request + grace as Kubernetes sets it, and
 * the DigitalOcean sizes, pools and nodes (and a reclaim's cordon on each node
 * its pool had at the signal). Every figure, reclaims included (docs/cost-model.md
 * "Spot pools and reclaims"), must be equal to the
 * micro-dollar. A difference prints the seed and the command that replays it:
 *   ORACLE_SEED=n build/san/tests/test_oracle
 * ORACLE_SEEDS=k runs k seeds (default 500) from ORACLE_FIRST (default 1). The
 * random cluster is drawn by oracle_gen.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/timeutil.h"
#include "engine/cost.h"
#include "model/settings.h"
#include "query/calc.h"
#include "sim/sim_oracle.h"
#include "source/do_api.h"
#include "source/k8s_api.h"
#include "store/store.h"
#include "store/store_do.h"
#include "store/store_k8s.h"

#include "oracle_gen.h"
#include "tmpdb.h"

/* ---- what a watcher and a poller would have stored ------------------------ */

static void ts(struct buf *b, const char *key, int64_t t) {
    char s[TIMEUTIL_RFC3339_MAX];
    timeutil_format_rfc3339(t, s);
    buf_printf(b, "\"%s\":\"%s\"", key, s);
}

static void put_json(struct store *s, enum k8s_kind kind, struct buf *b, int64_t deleted,
                     int64_t at) {
    struct k8s_object o;
    if (k8s_object_parse(buf_str(b), b->len, kind, &o) != ERR_OK)
        fail_msg("cannot parse %s", buf_str(b));
    assert_int_equal(store_k8s_put(s, &o, deleted, at), ERR_OK);
    k8s_object_release(&o);
}

/* Node n carries its pool's reclaim cordon at `at`: it existed at the signal. */
static bool cordoned(const struct gen *g, int n, int64_t at) {
    const struct orc_node *nd = &g->nodes[n];
    int64_t sig = g->pools[nd->pool].signal_t;
    return sig != NV && at >= sig && nd->created_t <= sig &&
           (nd->deleted_t == NV || nd->deleted_t > sig);
}

static void put_node(struct store *s, const struct gen *g, int n, int64_t at, bool deleted) {
    const struct orc_node *nd = &g->nodes[n];
    const struct orc_pool *pl = &g->pools[nd->pool];
    struct buf b;
    buf_init(&b, 0);
    buf_printf(&b, "{\"metadata\":{\"name\":\"%s\",\"uid\":\"uid-%s\",", nd->name, nd->name);
    ts(&b, "creationTimestamp", nd->created_t);
    buf_printf(&b,
               ",\"labels\":{\"doks.digitalocean.com/node-pool-id\":\"%s\","
               "\"doks.digitalocean.com/node-pool\":\"%s\"%s}},",
               pl->id, pl->name, pl->labels ? ",\"gpu-pool-type\":\"spot\"" : "");
    buf_printf(&b, "\"spec\":{\"providerID\":\"digitalocean://%d\"", 1000 + n);
    if (cordoned(g, n, at)) { /* the reclaim's cordon (docs/cost-model.md) */
        buf_puts(&b, ",\"unschedulable\":true,\"taints\":[{\"key\":"
                     "\"node.kubernetes.io/unschedulable\",\"effect\":\"NoSchedule\",");
        ts(&b, "timeAdded", pl->signal_t);
        buf_puts(&b, "}]");
    }
    buf_puts(&b, "},");
    buf_printf(&b, "\"status\":{\"allocatable\":{\"cpu\":\"%dm\"", nd->cpu_m);
    if (nd->gpus > 0)
        buf_printf(&b, ",\"nvidia.com/gpu\":\"%d\"", nd->gpus);
    const char *st = "False";
    int64_t since = nd->created_t;
    if (nd->ready_t != NV && at >= nd->ready_t) {
        st = "True";
        since = nd->ready_t;
        for (int k = 0; k < nd->nspells; k++) {
            if (at >= nd->spells[k].from) {
                st = "Unknown";
                since = nd->spells[k].from;
            }
            if (nd->spells[k].to != NV && at >= nd->spells[k].to) {
                st = "True";
                since = nd->spells[k].to;
            }
        }
    }
    buf_printf(&b, "},\"conditions\":[{\"type\":\"Ready\",\"status\":\"%s\",", st);
    ts(&b, "lastTransitionTime", since);
    buf_puts(&b, "}]}}");
    put_json(s, K8S_NODE, &b, deleted ? at : 0, at);
    buf_release(&b);
}

static const char *config_name(enum orc_config c) {
    return c == ORC_SPOT ? "spot" : c == ORC_FALLBACK ? "fallback" : "on-demand";
}

static void put_job(struct store *s, const struct gen *g, int j, int64_t at) {
    const struct orc_job *job = &g->jobs[j];
    int64_t created = NV;
    for (int i = 0; i < g->npods; i++)
        if (g->pods[i].job == j && g->pods[i].created_t - 1 < created)
            created = g->pods[i].created_t - 1;
    if (created == NV)
        created = T0;
    struct buf b;
    buf_init(&b, 0);
    buf_printf(&b, "{\"metadata\":{\"name\":\"%s\",\"uid\":\"%s\",\"namespace\":\"batch\",",
               job->name, job->uid);
    ts(&b, "creationTimestamp", created);
    buf_printf(&b, ",\"labels\":{\"spotledger.io/configuration\":\"%s\"}},",
               config_name(job->config));
    buf_printf(&b, "\"spec\":{\"completions\":%d,\"parallelism\":%d,\"backoffLimit\":6%s},",
               job->completions, job->completions,
               job->indexed ? ",\"completionMode\":\"Indexed\"" : "");
    buf_puts(&b, "\"status\":{");
    ts(&b, "startTime", created);
    if (job->indexed) {
        char set[32] = "";
        size_t off = 0;
        for (int k = 0; k < job->completions && off < sizeof set; k++)
            if (job->index_done_t[k] <= at)
                off += (size_t)snprintf(set + off, sizeof set - off, "%s%d", off ? "," : "", k);
        if (set[0])
            buf_printf(&b, ",\"completedIndexes\":\"%s\"", set);
    }
    if (job->complete_t <= at) {
        buf_puts(&b, ",\"conditions\":[{\"type\":\"Complete\",\"status\":\"True\",");
        ts(&b, "lastTransitionTime", job->complete_t);
        buf_puts(&b, "}],");
        ts(&b, "completionTime", job->complete_t);
    }
    buf_puts(&b, "}}");
    put_json(s, K8S_JOB, &b, 0, at);
    buf_release(&b);
}

static void put_pod(struct store *s, const struct gen *g, int i, int64_t at, bool deleted) {
    const struct orc_pod *p = &g->pods[i];
    const struct orc_job *job = &g->jobs[p->job];
    struct buf b;
    buf_init(&b, 0);
    buf_printf(&b, "{\"metadata\":{\"name\":\"%s\",\"uid\":\"%s\",\"namespace\":\"batch\",", p->uid,
               p->uid);
    ts(&b, "creationTimestamp", p->created_t);
    if (p->delreq_t <= at) { /* Kubernetes: request time + grace period, set once */
        buf_puts(&b, ",");
        ts(&b, "deletionTimestamp", p->delreq_t + GRACE);
        buf_printf(&b, ",\"deletionGracePeriodSeconds\":%d", GRACE);
    }
    buf_printf(&b,
               ",\"labels\":{\"batch.kubernetes.io/controller-uid\":\"%s\","
               "\"batch.kubernetes.io/job-name\":\"%s\"",
               job->uid, job->name);
    if (job->indexed)
        buf_printf(&b, ",\"batch.kubernetes.io/job-completion-index\":\"%d\"", p->index);
    buf_printf(&b,
               "},\"ownerReferences\":[{\"kind\":\"Job\",\"name\":\"%s\",\"uid\":\"%s\","
               "\"controller\":true}]},",
               job->name, job->uid);
    buf_puts(&b, "\"spec\":{");
    if (p->sched_t <= at)
        buf_printf(&b, "\"nodeName\":\"%s\",", g->nodes[p->node].name);
    buf_printf(&b,
               "\"containers\":[{\"name\":\"main\",\"resources\":{\"requests\":{\"cpu\":\"%dm\"",
               p->cpu_m);
    if (p->gpu_req > 0)
        buf_printf(&b, ",\"nvidia.com/gpu\":\"%d\"", p->gpu_req);
    buf_puts(&b, "}}}]},\"status\":{");
    bool fin = p->fin_t <= at;
    const char *phase = fin                ? (p->exit_code == 0 ? "Succeeded" : "Failed")
                        : p->start_t <= at ? "Running"
                                           : "Pending";
    if (deleted && !fin && p->sched_t <= at)
        phase = "Failed"; /* PodGC */
    buf_printf(&b, "\"phase\":\"%s\",\"conditions\":[", phase);
    if (p->sched_t <= at) {
        buf_puts(&b, "{\"type\":\"PodScheduled\",\"status\":\"True\",");
        ts(&b, "lastTransitionTime", p->sched_t);
        buf_puts(&b, "}");
    } else {
        buf_puts(&b,
                 "{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\",");
        ts(&b, "lastTransitionTime", p->created_t);
        buf_puts(&b, "}");
    }
    if (p->disrupt_t <= at) {
        buf_puts(&b, ",{\"type\":\"DisruptionTarget\",\"status\":\"True\",\"reason\":"
                     "\"DeletionByPodGC\",");
        ts(&b, "lastTransitionTime", p->disrupt_t);
        buf_puts(&b, "}");
    }
    buf_puts(&b, "]");
    if (p->start_t <= at) {
        buf_puts(&b, ",\"containerStatuses\":[{\"name\":\"main\",\"state\":{");
        if (fin) {
            buf_printf(&b, "\"terminated\":{\"exitCode\":%d,\"reason\":\"%s\",", p->exit_code,
                       p->reason);
            ts(&b, "startedAt", p->start_t);
            buf_puts(&b, ",");
            ts(&b, "finishedAt", p->fin_t);
            if (p->work_s >= 0)
                buf_printf(&b,
                           ",\"message\":\"{\\\"work_seconds\\\":%lld,\\\"restore_seconds\\\":"
                           "%lld,\\\"checkpoint_seconds\\\":%lld}\"",
                           (long long)p->work_s, (long long)p->restore_s,
                           (long long)p->checkpoint_s);
            buf_puts(&b, "}");
        } else {
            buf_puts(&b, "\"running\":{");
            ts(&b, "startedAt", p->start_t);
            buf_puts(&b, "}");
        }
        buf_puts(&b, "}}]");
    }
    buf_puts(&b, "}}");
    put_json(s, K8S_POD, &b, deleted ? at : 0, at);
    buf_release(&b);
}

static void put_do(struct store *s, const struct gen *g, int64_t at) {
    /* sizes as listed at `at` */
    for (int z = 0; z < 5; z++) {
        int64_t price = -1, from = INT64_MIN;
        for (int k = 0; k < g->nprices; k++)
            if (strcmp(g->prices[k].size, g->sizes[z].slug) == 0 && g->prices[k].from <= at &&
                g->prices[k].from >= from) {
                from = g->prices[k].from;
                price = g->prices[k].price_hourly;
            }
        struct do_size ds = {.slug = (char *)g->sizes[z].slug,
                             .vcpus = 4,
                             .memory_mb = 8192,
                             .gpu_count = g->sizes[z].gpus,
                             .gpu_vram_gb = -1,
                             .price_hourly = price,
                             .price_monthly = price * 672,
                             .available = true};
        assert_int_equal(store_do_upsert_size(s, &ds, at, NULL), ERR_OK);
    }
    /* pools and nodes listed at `at` */
    struct do_pool pools[MAXP];
    struct do_node dn[MAXP][MAXN];
    char lk[] = "gpu-pool-type", lv[] = "spot", running[] = "running";
    struct do_label lab = {lk, lv};
    char ids[MAXN][16], drop[MAXN][16];
    size_t np = 0;
    for (int p = 0; p < g->npools; p++) {
        const struct orc_pool *pl = &g->pools[p];
        if (pl->created_t > at || pl->gone_t <= at)
            continue;
        struct do_pool *dp = &pools[np++];
        *dp = (struct do_pool){.id = (char *)pl->id,
                               .name = (char *)pl->name,
                               .size = (char *)pl->size,
                               .count = 1,
                               .labels = pl->labels ? &lab : NULL,
                               .n_labels = pl->labels ? 1 : 0,
                               .nodes = dn[p]};
        for (int n = 0; n < g->nnodes; n++) {
            const struct orc_node *nd = &g->nodes[n];
            if (nd->pool != p || nd->created_t > at || nd->deleted_t <= at)
                continue;
            snprintf(ids[n], sizeof ids[n], "do-%d", n);
            snprintf(drop[n], sizeof drop[n], "%d", 1000 + n);
            dn[p][dp->n_nodes++] = (struct do_node){.id = ids[n],
                                                    .name = (char *)nd->name,
                                                    .state = running,
                                                    .droplet_id = drop[n],
                                                    .created_at = nd->created_t,
                                                    .updated_at = nd->created_t};
        }
        /* what poll_do's capacity rule says: slug, then the pool's labels */
        bool spot = strstr(pl->size, "-spot") != NULL || pl->labels != NULL;
        int64_t price = -1;
        assert_int_equal(store_do_size_price(s, pl->size, &price), ERR_OK);
        assert_int_equal(store_do_upsert_pool(s, "cluster", dp, spot ? "spot" : "on-demand",
                                              spot ? (pl->labels ? "label" : "slug") : "default",
                                              price, at),
                         ERR_OK);
        for (size_t k = 0; k < dp->n_nodes; k++)
            assert_int_equal(
                store_do_upsert_node(s, dp, &dp->nodes[k], spot ? "spot" : "on-demand", price, at),
                ERR_OK);
    }
    struct do_pools all = {.v = pools, .n = np};
    assert_int_equal(store_do_mark_vanished(s, "cluster", &all, at, NULL, NULL), ERR_OK);
}

struct ev {
    int64_t t;
    int kind; /* 0 DO poll, 1 node, 2 job, 3 pod */
    int idx;
    bool deleted;
};

static int ev_cmp(const void *a, const void *b) {
    const struct ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    return x->idx - y->idx;
}

static void store_gen(struct store *s, const struct gen *g) {
    struct ev *ev = calloc(1024, sizeof *ev);
    int n = 0;
    int64_t now = T0 + g->horizon;
#define ADD(T, K, I, D)                                                                            \
    do {                                                                                           \
        if ((T) != NV && (T) <= now && n < 1024)                                                   \
            ev[n++] = (struct ev){(T), (K), (I), (D)};                                             \
    } while (0)
    /* the poller: at the start, at every node creation (sizes re-read), at every
     * change a DO list shows */
    ADD(T0, 0, 0, false);
    for (int k = 0; k < g->nprices; k++)
        ADD(g->prices[k].from, 0, 0, false);
    for (int i = 0; i < g->nnodes; i++) {
        const struct orc_node *nd = &g->nodes[i];
        ADD(nd->created_t, 0, 0, false);
        ADD(nd->deleted_t, 0, 0, false);
        ADD(nd->created_t, 1, i, false);
        ADD(nd->ready_t, 1, i, false);
        for (int k = 0; k < nd->nspells; k++) {
            ADD(nd->spells[k].from, 1, i, false);
            ADD(nd->spells[k].to, 1, i, false);
        }
        if (cordoned(g, i, g->pools[nd->pool].signal_t))
            ADD(g->pools[nd->pool].signal_t, 1, i, false);
        ADD(nd->deleted_t, 1, i, true);
    }
    for (int p = 0; p < g->npools; p++)
        ADD(g->pools[p].gone_t, 0, 0, false);
    for (int j = 0; j < g->njobs; j++) {
        int64_t c = NV;
        for (int i = 0; i < g->npods; i++)
            if (g->pods[i].job == j && g->pods[i].created_t - 1 < c)
                c = g->pods[i].created_t - 1;
        ADD(c == NV ? T0 : c, 2, j, false);
        ADD(g->jobs[j].complete_t, 2, j, false);
        if (g->jobs[j].indexed)
            for (int k = 0; k < g->jobs[j].completions; k++)
                ADD(g->jobs[j].index_done_t[k], 2, j, false);
    }
    for (int i = 0; i < g->npods; i++) {
        const struct orc_pod *p = &g->pods[i];
        ADD(p->created_t, 3, i, false);
        ADD(p->sched_t, 3, i, false);
        ADD(p->start_t, 3, i, false);
        ADD(p->disrupt_t, 3, i, false);
        ADD(p->delreq_t, 3, i, false);
        ADD(p->fin_t, 3, i, false);
        ADD(p->removed_t, 3, i, true);
    }
#undef ADD
    qsort(ev, (size_t)n, sizeof *ev, ev_cmp);
    assert_int_equal(store_begin(s), ERR_OK);
    for (int k = 0; k < n; k++) {
        const struct ev *e = &ev[k];
        if (e->kind == 0)
            put_do(s, g, e->t);
        else if (e->kind == 1)
            put_node(s, g, e->idx, e->t, e->deleted);
        else if (e->kind == 2)
            put_job(s, g, e->idx, e->t);
        else
            put_pod(s, g, e->idx, e->t, e->deleted);
    }
    assert_int_equal(store_commit(s), ERR_OK);
    free(ev);
}

/* ---- comparison ----------------------------------------------------------- */

static int ndiff;
static void diff(uint64_t seed, const char *what, int64_t want, int64_t got) {
    if (want == got)
        return;
    if (ndiff < 400000)
        printf("seed %llu: %s: oracle %lld, engine %lld\n", (unsigned long long)seed, what,
               (long long)want, (long long)got);
    ndiff++;
}

static int64_t nul(int64_t v) {
    return v == COST_NULL ? NV : v;
}

/* Reclaims (docs/cost-model.md "Spot pools and reclaims"): the same pools, in
 * the order of gone time then pool, and every figure of each. */
static void compare_reclaims(uint64_t seed, const struct orc_timeline *tl,
                             const struct orc_result *want, const struct cost_result *r) {
    char what[96];
    diff(seed, "reclaims.count", want->nreclaims, (int64_t)r->n_reclaims);
    for (int i = 0; i < want->nreclaims && (size_t)i < r->n_reclaims; i++) {
        const struct orc_reclaim *o = &want->reclaims[i];
        const struct cost_reclaim *e = &r->reclaims[i];
        const char *id = tl->pools[o->pool].id;
#define CMPR(name, w, gv)                                                                          \
    do {                                                                                           \
        snprintf(what, sizeof what, "reclaim %s.%s", id, name);                                    \
        diff(seed, what, (w), (gv));                                                               \
    } while (0)
        CMPR("pool", 0, e->pool_id && strcmp(e->pool_id, id) == 0 ? 0 : 1);
        CMPR("nodes", o->nodes, e->nodes);
        CMPR("first_signal_at", o->signal_t, e->first_signal_at ? e->first_signal_at : NV);
        CMPR("gone_at", o->gone_t, e->gone_at ? e->gone_at : NV);
        CMPR("fallback_ready_at", o->replacement_ready_t,
             e->fallback_ready_at ? e->fallback_ready_at : NV);
        CMPR("first_resumed_at", o->resumed_t, e->first_resumed_at ? e->first_resumed_at : NV);
        CMPR("last_resumed_at", o->last_resumed_t, e->last_resumed_at ? e->last_resumed_at : NV);
        CMPR("tasks_interrupted", o->tasks_interrupted, e->tasks_interrupted);
        CMPR("tasks_resumed", o->tasks_resumed, e->tasks_resumed);
        CMPR("signal_to_gone_seconds", o->signal_to_gone, nul(e->signal_to_gone_seconds));
        CMPR("replacement_delay_seconds", o->replacement_delay, nul(e->replacement_delay_seconds));
        CMPR("return_to_useful_work_seconds", o->return_to_work,
             nul(e->return_to_useful_work_seconds));
#undef CMPR
    }
}

/* ORACLE_DUMP=1: the timeline, relative to T0 (-1 = never). */
static int64_t rel(int64_t t) {
    return t == NV ? -1 : t - T0;
}
static void dump(const struct gen *g) {
    printf("horizon %lld\n", (long long)g->horizon);
    for (int k = 0; k < g->nprices; k++)
        printf("price %s from %lld %lld\n", g->prices[k].size, (long long)rel(g->prices[k].from),
               (long long)g->prices[k].price_hourly);
    for (int p = 0; p < g->npools; p++)
        printf("pool %d %s %s signal %lld gone %lld\n", p, g->pools[p].size,
               g->pools[p].labels ? "labelled" : "", (long long)rel(g->pools[p].signal_t),
               (long long)rel(g->pools[p].gone_t));
    for (int n = 0; n < g->nnodes; n++) {
        const struct orc_node *nd = &g->nodes[n];
        printf("node %d pool %d gpus %d created %lld ready %lld deleted %lld spells", n, nd->pool,
               nd->gpus, (long long)rel(nd->created_t), (long long)rel(nd->ready_t),
               (long long)rel(nd->deleted_t));
        for (int k = 0; k < nd->nspells; k++)
            printf(" [%lld,%lld)", (long long)rel(nd->spells[k].from),
                   (long long)rel(nd->spells[k].to));
        printf("\n");
    }
    for (int j = 0; j < g->njobs; j++)
        printf("job %d %s completions %d%s complete %lld\n", j, config_name(g->jobs[j].config),
               g->jobs[j].completions, g->jobs[j].indexed ? " indexed" : "",
               (long long)rel(g->jobs[j].complete_t));
    for (int i = 0; i < g->npods; i++) {
        const struct orc_pod *p = &g->pods[i];
        printf("pod %d job %d idx %d node %d gpu %d cpu %d created %lld sched %lld start %lld fin "
               "%lld "
               "exit %d delreq %lld removed %lld disrupt %lld work %lld restore %lld\n",
               i, p->job, p->index, p->node, p->gpu_req, p->cpu_m, (long long)rel(p->created_t),
               (long long)rel(p->sched_t), (long long)rel(p->start_t), (long long)rel(p->fin_t),
               p->exit_code, (long long)rel(p->delreq_t), (long long)rel(p->removed_t),
               (long long)rel(p->disrupt_t), (long long)p->work_s, (long long)p->restore_s);
    }
}

/* What Kubernetes can show: a NotReady spell starts after the node was Ready
 * (else the watcher never sees it Ready while the record bills it). */
static void check_spells(uint64_t seed, const struct gen *g) {
    for (int n = 0; n < g->nnodes; n++)
        for (int k = 0; k < g->nodes[n].nspells; k++)
            if (g->nodes[n].ready_t == NV || g->nodes[n].spells[k].from <= g->nodes[n].ready_t) {
                printf("seed %llu: generator: %s NotReady at %lld, Ready at %lld\n",
                       (unsigned long long)seed, g->nodes[n].name,
                       (long long)g->nodes[n].spells[k].from, (long long)g->nodes[n].ready_t);
                ndiff++;
            }
}

/* How often the halves exercised the completion basis (the test must not pass
 * on windows where both bases trivially agree). */
static int n_halves, n_partial, n_moved;

/* Both bases on each half of the horizon (a window of half the length: the
 * completion basis reads the other half too), and the partial flag. */
static void compare_halves(uint64_t seed, struct store *s, const struct calc_settings *cs,
                           const struct orc_timeline *tl, int64_t from, int64_t mid, int64_t to,
                           int64_t now) {
    static const char *const cn[] = {"spot", "fallback", "on-demand"};
    const int64_t win[2][2] = {{from, mid}, {mid, to}};
    char what[96];
    for (int h = 0; h < 2; h++) {
        struct orc_completion oc[ORC_NCONFIG];
        struct orc_result ow;
        assert_int_equal(orc_completion(tl, win[h][0], win[h][1], now, oc), ERR_OK);
        assert_int_equal(orc_compute(tl, win[h][0], win[h][1], now, &ow), ERR_OK);
        struct cost_query q = {.from = win[h][0], .to = win[h][1], .now = now};
        struct calc c;
        struct cost_completion cc;
        enum err rc = calc_completion(s, cs, q.from, q.to, &q, &c, &cc);
        if (rc != ERR_OK) {
            printf("seed %llu: half %d: completion failed: %s\n", (unsigned long long)seed, h,
                   err_str(rc));
            ndiff++;
            orc_result_release(&ow);
            continue;
        }
        for (int k = 0; k < ORC_NCONFIG; k++) {
            const struct orc_completion *o = &oc[k];
            const struct cost_basis_config *e = &cc.configs[k];
#define CMPH(name, w, gv)                                                                          \
    do {                                                                                           \
        snprintf(what, sizeof what, "half %d %s.%s", h, cn[k], name);                              \
        diff(seed, what, (w), (gv));                                                               \
    } while (0)
            CMPH("completion.tasks", o->tasks, e->tasks_succeeded);
            CMPH("completion.cost", o->cost, e->cost);
            CMPH("completion.useful_cost", o->useful, e->useful_cost);
            CMPH("completion.restore_cost", o->restore, e->restore_cost);
            CMPH("completion.wasted_cost", o->wasted, e->wasted_cost);
            CMPH("completion.running_cost", o->running, e->running_cost);
            CMPH("completion.idle_cost", o->idle, e->idle_cost);
            CMPH("completion.cost_per_successful_task", o->cost_per_task,
                 nul(e->cost_per_successful_task));
            CMPH("accrual.cost", ow.cfg[k].cost, c.res->configs[k].cost);
            CMPH("partial", ow.cfg[k].partial, c.res->configs[k].partial);
#undef CMPH
            n_moved += o->cost != ow.cfg[k].cost;
        }
        n_halves++;
        n_partial += c.res->partial;
        orc_result_release(&ow);
        calc_release(&c);
    }
}

static int run_seed(uint64_t seed) {
    struct gen *g = calloc(1, sizeof *g);
    gen_make(g, seed);
    if (getenv("ORACLE_DUMP"))
        dump(g);
    int64_t from = T0, to = T0 + g->horizon, now = to;
    struct orc_timeline tl;
    gen_timeline(g, &tl);
    struct orc_result want;
    assert_int_equal(orc_compute(&tl, from, to, now, &want), ERR_OK);

    char path[64];
    snprintf(path, sizeof path,
             access("/dev/shm", W_OK) == 0 ? "/dev/shm/test_oracle_XXXXXX"
                                           : "/tmp/test_oracle_XXXXXX");
    struct store *s = NULL;
    assert_int_equal(tmpdb_open(path, &s), 0);
    store_gen(s, g);
    char ods[] = "gpu-b2", odd[] = "gpu-a8";
    struct config_pair od = {ods, odd};
    struct calc_settings cs = {.on_demand_sizes = &od, .n_on_demand_sizes = (size_t)g->nod};
    struct cost_query q = {.from = from, .to = to, .now = now};
    struct calc c;
    enum err rc = calc_run(s, &cs, from, to, &q, &c);
    int before = ndiff;
    check_spells(seed, g);
    if (rc != ERR_OK) {
        printf("seed %llu: engine failed: %s\n", (unsigned long long)seed, err_str(rc));
        ndiff++;
    } else {
        const struct cost_result *r = c.res;
        static const char *const cn[] = {"spot", "fallback", "on-demand"};
        char what[96];
#define CMP(name, w, gv)                                                                           \
    do {                                                                                           \
        snprintf(what, sizeof what, "%s.%s", cn[k], name);                                         \
        diff(seed, what, (w), (gv));                                                               \
    } while (0)
        for (int k = 0; k < 3; k++) {
            const struct orc_config_result *o = &want.cfg[k];
            const struct cost_config_result *e = &r->configs[k];
            CMP("tasks_succeeded", o->tasks_succeeded, e->tasks_succeeded);
            CMP("tasks_failed", o->tasks_failed, e->tasks_failed);
            CMP("attempts", o->attempts, e->attempts);
            CMP("retries", o->retries, e->retries);
            CMP("interruptions", o->interruptions, e->interruptions);
            CMP("duplicates", o->duplicates, e->duplicates);
            CMP("cost", o->cost, e->cost);
            CMP("allocated_cost", o->allocated, e->allocated_cost);
            CMP("useful_cost", o->useful, e->useful_cost);
            CMP("restore_cost", o->restore, e->restore_cost);
            CMP("wasted_cost", o->wasted, e->wasted_cost);
            CMP("running_cost", o->running, e->running_cost);
            CMP("idle_cost", o->idle, e->idle_cost);
            CMP("cost_per_successful_task", o->cost_per_task, nul(e->cost_per_successful_task));
            CMP("restore_seconds.samples", o->restore_samples, e->restore.samples);
            CMP("restore_seconds.total", o->restore_total, e->restore.total);
            /* the figures the truth's engine-run section used to give (docs/oracle.md) */
            CMP("tasks_running", o->tasks_running, e->tasks_running);
            CMP("restore_seconds.p50", o->restore_p50, nul(e->restore.p50));
            CMP("restore_seconds.p95", o->restore_p95, nul(e->restore.p95));
            CMP("counterfactual_tasks", o->cf_tasks, e->counterfactual_tasks);
            CMP("counterfactual_cost", o->cf_cost, e->counterfactual_cost);
            CMP("measured_overhead_bp", o->overhead_bp, nul(e->measured_overhead_bp));
            CMP("savings_vs_on_demand_bp", o->savings_bp, nul(e->savings_vs_on_demand_bp));
        }
#undef CMP
        diff(seed, "counterfactual.tasks", want.cf_tasks, r->counterfactual.tasks);
        diff(seed, "counterfactual.priced", want.cf_priced, r->counterfactual.tasks_priced);
        diff(seed, "counterfactual.unpriced", want.cf_unpriced, r->counterfactual.tasks_unpriced);
        diff(seed, "counterfactual.work_seconds", want.cf_work_seconds,
             r->counterfactual.work_seconds);
        diff(seed, "counterfactual.cost", want.cf_cost, r->counterfactual.cost);
        diff(seed, "counterfactual.per_task", want.cf_per_task,
             nul(r->counterfactual.cost_per_successful_task));
        diff(seed, "counterfactual.tasks_reported_work", want.cf_reported,
             r->counterfactual.tasks_reported_work);
        diff(seed, "counterfactual.tasks_run_time", want.cf_runtime,
             r->counterfactual.tasks_run_time);
        diff(seed, "attempts_unscheduled", want.attempts_unscheduled, r->attempts_unscheduled);
        diff(seed, "excluded_cost", want.excluded, r->excluded_cost);
        diff(seed, "nodes_total", want.nodes_total, r->nodes_total);
        diff(seed, "allocated_total", want.allocated_total, r->allocated_total);
        diff(seed, "idle_total", want.idle_total, r->idle_total);
        diff(seed, "unattributed_idle", want.unattributed_total, r->unattributed_idle);
        for (int n = 0; n < g->nnodes; n++) {
            int64_t got = 0;
            for (size_t k = 0; k < r->n_nodes; k++)
                if (r->nodes[k].name && strcmp(r->nodes[k].name, g->nodes[n].name) == 0)
                    got = r->nodes[k].total;
            snprintf(what, sizeof what, "node %s total", g->nodes[n].name);
            diff(seed, what, want.nodes[n].total, got);
        }
        compare_reclaims(seed, &tl, &want, r);
        /* node seconds by pool, per configuration */
        for (int p = 0; p < tl.npools; p++) {
            size_t k = 0;
            while (k < r->n_pools &&
                   !(r->pools[k].id && strcmp(r->pools[k].id, tl.pools[p].id) == 0))
                k++;
            for (int cf = 0; cf < 3; cf++) {
                int64_t got = k < r->n_pools && r->configs[cf].pool_seconds
                                  ? r->configs[cf].pool_seconds[r->pools[k].pool]
                                  : 0;
                snprintf(what, sizeof what, "%s.node_seconds_by_pool %s", cn[cf], tl.pools[p].id);
                diff(seed, what, want.pool_cfg_secs[p * ORC_NCONFIG + cf], got);
            }
        }
        calc_release(&c);
        compare_halves(seed, s, &cs, &tl, from, from + g->horizon / 2, to, now);
    }
    if (ndiff > before)
        printf("seed %llu: %d differences; replay: ORACLE_SEED=%llu build/san/tests/test_oracle\n",
               (unsigned long long)seed, ndiff - before, (unsigned long long)seed);
    store_free(s);
    tmpdb_unlink(path);
    orc_result_release(&want);
    free(g);
    return ndiff > before;
}

static void test_engine_equals_oracle(void **state) {
    (void)state;
    const char *one = getenv("ORACLE_SEED");
    const char *count = getenv("ORACLE_SEEDS");
    const char *first = getenv("ORACLE_FIRST");
    uint64_t a = one ? strtoull(one, NULL, 10) : first ? strtoull(first, NULL, 10) : 1;
    uint64_t n = one ? 1 : count ? strtoull(count, NULL, 10) : 500;
    int bad = 0;
    log_set_level(LOG_WARN);
    for (uint64_t seed = a; seed < a + n; seed++)
        bad += run_seed(seed);
    printf("test_oracle: %llu seeds, %d with differences, %d differences in all\n",
           (unsigned long long)n, bad, ndiff);
    printf("test_oracle: %d half windows, %d partial, %d configuration costs where the "
           "completion basis differs from the accrual basis\n",
           n_halves, n_partial, n_moved);
    assert_int_equal(ndiff, 0);
    if (n >= 100) { /* enough seeds: both bases must have been told apart */
        assert_true(n_partial > 0);
        assert_true(n_moved > 0);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_equals_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
