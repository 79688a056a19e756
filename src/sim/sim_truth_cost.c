/* sim_truth_cost — see sim_truth_cost.h. */
#include "sim/sim_truth_cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/xalloc.h"
#include "engine/cost.h"
#include "query/report.h"
#include "sim/sim_billing.h"
#include "sim/sim_truth.h"

/* The cost engine's input for world w as known at time `at` (facts after `at`
 * are left out). Arrays are allocated; strings are loans into w (and into
 * task_uids, which owns the task uids). Release with truth_input_release. */
struct truth_input {
    struct cost_input in;
    char (*task_uids)[80];
    int *node_map;   /* world node -> input node, -1 if left out */
    int *pool_map;   /* world pool -> input pool */
    int64_t *spells; /* the nodes' NotReady spells, 2 * (SIM_MAX_SPELLS + 1) per world node */
};

/* t if it happened by `at`, else 0 (the cost engine's "unknown"). */
static int64_t by(int64_t t, int64_t at) {
    return t == SIM_NEVER || t > at ? 0 : t;
}

static int cmp_price(const void *a, const void *b) {
    const struct cost_price *x = a, *y = b;
    int c = strcmp(x->size, y->size);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* The first time node n stopped posting status at or after t (a spell or its
 * shutdown), SIM_NEVER if never. */
static int64_t first_not_ready_after(const struct sim_node *n, int64_t t) {
    int64_t first = n->notready_t >= t ? n->notready_t : SIM_NEVER;
    for (int k = 0; k < n->nspells; k++)
        if (n->spells[k].from >= t && n->spells[k].from < first)
            first = n->spells[k].from;
    return first;
}

static int64_t first_not_ready(const struct sim_node *n) {
    return first_not_ready_after(n, INT64_MIN);
}

static void truth_input_build(const struct sim_world *w, int64_t at, struct truth_input *ti) {
    const struct sim_scenario *sc = w->sc;
    memset(ti, 0, sizeof *ti);
    struct cost_pool *pools = xcalloc((size_t)w->npools + 1, sizeof *pools);
    struct cost_node *nodes = xcalloc((size_t)w->nnodes + 1, sizeof *nodes);
    struct cost_task *tasks = xcalloc((size_t)w->ntasks + 1, sizeof *tasks);
    struct cost_attempt *atts = xcalloc((size_t)w->npods + 1, sizeof *atts);
    ti->task_uids = xcalloc((size_t)w->ntasks + 1, sizeof *ti->task_uids);
    ti->node_map = xcalloc((size_t)w->nnodes + 1, sizeof *ti->node_map);
    ti->spells = xcalloc((size_t)(w->nnodes + 1) * 2 * (SIM_MAX_SPELLS + 1), sizeof *ti->spells);
    ti->pool_map = xcalloc((size_t)w->npools + 1, sizeof *ti->pool_map);
    size_t np = 0, nn = 0, nt = 0, na = 0;
    for (int i = 0; i < w->npools; i++) {
        const struct sim_pool *p = &w->pools[i];
        const struct sim_pool_spec *ps = &sc->pools[p->spec];
        ti->pool_map[i] = -1;
        if (p->created_t > at)
            continue;
        ti->pool_map[i] = (int)np;
        pools[np++] = (struct cost_pool){
            .id = p->id,
            .name = p->name,
            .size = ps->size,
            .capacity = ps->role == SIM_ROLE_SPOT ? COST_CAP_SPOT : COST_CAP_ON_DEMAND,
            .price_hourly = sim_billing_price_at(&sc->sizes[ps->size_idx], p->created_t, NULL),
            .deleted_at = by(p->gone_t, at),
            .signal_at = by(p->cordon_t, at),
        };
    }
    for (int i = 0; i < w->nnodes; i++) {
        const struct sim_node *n = &w->nodes[i];
        ti->node_map[i] = -1;
        /* DigitalOcean bills from Ready: a node that never got there costs nothing */
        if (n->ready_t == SIM_NEVER || n->ready_t > at)
            continue;
        ti->node_map[i] = (int)nn;
        /* every NotReady spell known by `at` (pairs; end 0: not Ready again) */
        int64_t *sp = &ti->spells[(size_t)i * 2 * (SIM_MAX_SPELLS + 1)];
        size_t ns = 0;
        bool open = false;
        for (int k = 0; k < n->nspells && n->spells[k].from <= at; k++) {
            sp[2 * ns] = n->spells[k].from;
            sp[2 * ns + 1] = n->spells[k].to <= at ? n->spells[k].to : 0;
            open = sp[2 * ns + 1] == 0;
            ns++;
        }
        if (n->notready_t <= at && !open) {
            sp[2 * ns] = n->notready_t;
            sp[2 * ns + 1] = 0;
            ns++;
        }
        nodes[nn++] = (struct cost_node){
            .spells = ns ? sp : NULL,
            .n_spells = ns,
            .name = n->name,
            .pool = ti->pool_map[n->pool],
            .price_hourly = sim_billing_rate(w, i),
            .created_at = by(n->created_t, at),
            .ready_at = by(n->ready_t, at),
            .k8s_deleted_at = n->reg_seq != SIM_NEVER ? by(n->deleted_t, at) : 0,
            .do_deleted_at = by(n->deleted_t, at),
            .not_ready_at = by(first_not_ready(n), at),
            .cordoned_at = by(n->cordon_t, at),
            .gpu_allocatable = n->gpus,
            .cpu_allocatable_milli = n->cpu_m,
        };
    }
    int *task_map = xcalloc((size_t)w->ntasks + 1, sizeof *task_map);
    for (int t = 0; t < w->ntasks; t++) {
        const struct sim_task *tk = &w->tasks[t];
        const struct sim_job *job = &w->jobs[tk->job];
        const struct sim_workload *wl = &sc->workloads[job->workload];
        task_map[t] = -1;
        if (job->created_t > at)
            continue;
        if (tk->index >= 0)
            snprintf(ti->task_uids[nt], sizeof ti->task_uids[nt], "%s/%d", job->uid, tk->index);
        else
            snprintf(ti->task_uids[nt], sizeof ti->task_uids[nt], "%s", job->uid);
        enum cost_outcome oc = COST_TASK_RUNNING;
        if (tk->done_t <= at && tk->outcome == SIM_OUT_SUCCEEDED)
            oc = COST_TASK_SUCCEEDED;
        else if (tk->done_t <= at && tk->outcome == SIM_OUT_FAILED)
            oc = COST_TASK_FAILED;
        task_map[t] = (int)nt;
        tasks[nt] = (struct cost_task){
            .uid = ti->task_uids[nt],
            .ns = sc->namespace_,
            .experiment = wl->experiment,
            .config = (enum cost_config)wl->configuration,
            .outcome = oc,
            .completed_at = oc == COST_TASK_RUNNING ? 0 : by(tk->done_t, at),
        };
        nt++;
    }
    for (int i = 0; i < w->npods; i++) {
        const struct sim_pod *p = &w->pods[i];
        if (p->created_t > at || task_map[p->task] < 0)
            continue;
        const struct sim_workload *wl = &sc->workloads[w->jobs[p->job].workload];
        bool sched = p->sched_t <= at;
        const struct sim_node *node = p->node >= 0 ? &w->nodes[p->node] : NULL;
        enum cost_phase phase = COST_PHASE_PENDING;
        if (p->fin_t <= at)
            phase = p->exit_code == 0 ? COST_PHASE_SUCCEEDED : COST_PHASE_FAILED;
        else if (p->gcfail_t <= at)
            phase = COST_PHASE_FAILED;
        else if (p->start_t <= at)
            phase = COST_PHASE_RUNNING;
        /* the pod-level NodeNotReady evidence: its node went NotReady while it ran */
        int64_t not_ready = 0;
        int64_t nr = node ? first_not_ready_after(node, p->sched_t) : SIM_NEVER;
        if (node && sched && nr <= at && nr < p->fin_t && nr < p->deleted_t)
            not_ready = nr;
        bool report = p->message && p->fin_t <= at;
        atts[na++] = (struct cost_attempt){
            .uid = p->uid,
            .task = task_map[p->task],
            .node = sched && p->node >= 0 ? ti->node_map[p->node] : -1,
            .gpu_request = wl->gpus,
            .cpu_request_milli = wl->cpu_m,
            .created_at = by(p->created_t, at),
            .scheduled_at = sched ? p->sched_t : 0,
            .started_at = by(p->start_t, at),
            .finished_at = by(p->fin_t, at),
            .deleted_at = by(p->deleted_t, at),
            .disruption_at = by(p->disrupt_t, at),
            .not_ready_at = not_ready,
            .reason = p->fin_t <= at ? p->fin_reason : NULL,
            .phase = phase,
            .work_seconds = report ? w->tasks[p->task].work : -1,
            .restore_seconds = report ? p->restore_s : -1,
            .checkpoint_seconds = report ? wl->checkpoint_seconds : -1,
        };
    }
    free(task_map);
    /* the price history: each size's price from the start, then each change known by `at` */
    size_t nprice = 0;
    struct cost_price *prices =
        xcalloc((size_t)sc->nsizes * (SIM_MAX_PRICE_CHANGES + 1) + 1, sizeof *prices);
    for (int z = 0; z < sc->nsizes; z++) {
        const struct sim_size *sz = &sc->sizes[z];
        prices[nprice++] = (struct cost_price){sz->slug, 0, sz->price_hourly, sz->gpus};
        for (int k = 0; k < sz->nchanges && sz->changes[k].at <= at; k++)
            prices[nprice++] = (struct cost_price){sz->slug, sz->changes[k].at,
                                                   sz->changes[k].price_hourly, sz->gpus};
    }
    qsort(prices, nprice, sizeof *prices, cmp_price);
    ti->in = (struct cost_input){pools, np, nodes, nn, tasks, nt, atts, na, prices, nprice};
}

static void truth_input_release(struct truth_input *ti) {
    free((void *)ti->in.pools);
    free((void *)ti->in.nodes);
    free((void *)ti->in.tasks);
    free((void *)ti->in.attempts);
    free((void *)ti->in.prices);
    free(ti->task_uids);
    free(ti->node_map);
    free(ti->spells);
    free(ti->pool_map);
    memset(ti, 0, sizeof *ti);
}

enum err sim_truth_render_cost(const struct sim_world *w, struct jsonw *j) {
    struct truth_input ti;
    truth_input_build(w, w->horizon, &ti);
    struct cost_query q = {.from = w->sc->start, .to = w->horizon, .now = w->horizon};
    /* every On-Demand size as the twin of "<slug>-spot", at its price in force at the
     * window's end, as spotledger's store gives the engine */
    const struct sim_scenario *sc = w->sc;
    struct cost_od_size *od = xcalloc((size_t)sc->nsizes + 1, sizeof *od);
    char(*twins)[80] = xcalloc((size_t)sc->nsizes + 1, sizeof *twins);
    for (int z = 0; z < sc->nsizes; z++) {
        const char *slug = sc->sizes[z].slug;
        size_t n = strlen(slug);
        if ((n > 5 && strcmp(slug + n - 5, "-spot") == 0) || n + 6 > sizeof twins[0])
            continue;
        size_t k = q.n_od_sizes++;
        snprintf(twins[k], sizeof twins[0], "%s-spot", slug);
        od[k] = (struct cost_od_size){twins[k], slug,
                                      sim_billing_price_at(&sc->sizes[z], w->horizon, NULL)};
    }
    q.od_sizes = od;
    struct cost_result *r = NULL;
    enum err rc = ERR_OK;
    if (q.to <= q.from) {
        jsonw_key(j, "cost");
        jsonw_null(j);
        goto out;
    }
    rc = cost_compute(&ti.in, &q, &r);
    if (rc != ERR_OK) {
        log_msg(LOG_ERROR, "truth: cost engine failed: %s", err_str(rc));
        goto out;
    }
    jsonw_key(j, "cost");
    jsonw_obj(j);
    struct buf part;
    buf_init(&part, 0);
    static const char *const keys[] = {"summary", "nodes", "pools", "reclaims"};
    for (int k = 0; k < 4 && rc == ERR_OK; k++) {
        buf_reset(&part);
        rc = k == 0   ? report_summary_json(r, &part)
             : k == 1 ? report_nodes_json(r, &part)
             : k == 2 ? report_pools_json(r, &part)
                      : report_reclaims_json(r, &part);
        if (rc == ERR_OK) {
            jsonw_key(j, keys[k]);
            jsonw_raw(j, buf_str(&part));
        }
    }
    buf_release(&part);
    jsonw_obj_end(j);
out:
    cost_result_free(r);
    truth_input_release(&ti);
    free(od);
    free(twins);
    return rc;
}
