/* sim_record — see sim_record.h. */
#include "sim/sim_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

static const struct orc_pair default_spot_labels[] = {
    {"doks.digitalocean.com/capacity-type", "spot"},
    {"gpu-pool-type", "spot"},
};

/* t if it happened by `at`, else ORC_NEVER. */
static int64_t by(int64_t t, int64_t at) {
    return t == SIM_NEVER || t > at ? ORC_NEVER : t;
}

static char *join_labels(const struct sim_pool_spec *ps) {
    size_t len = 1;
    for (int k = 0; k < ps->nlabels; k++)
        len += strlen(ps->labels[k].key) + strlen(ps->labels[k].value) + 2;
    char *s = xcalloc(len, 1);
    size_t off = 0; /* len counts every byte written below, so each call fits */
    for (int k = 0; k < ps->nlabels; k++)
        off +=
            (size_t)snprintf(s + off, len - off, "%s=%s\n", ps->labels[k].key, ps->labels[k].value);
    return s;
}

void sim_record_build(const struct sim_world *w, int64_t at, struct sim_record *r) {
    const struct sim_scenario *sc = w->sc;
    memset(r, 0, sizeof *r);
    r->prices = xcalloc((size_t)sc->nsizes * (SIM_MAX_PRICE_CHANGES + 1) + 1, sizeof *r->prices);
    r->sizes = xcalloc((size_t)sc->nsizes + 1, sizeof *r->sizes);
    int nprices = 0;
    for (int i = 0; i < sc->nsizes; i++) {
        const struct sim_size *sz = &sc->sizes[i];
        r->prices[nprices++] = (struct orc_price){sz->slug, INT64_MIN, sz->price_hourly};
        for (int k = 0; k < sz->nchanges && sz->changes[k].at <= at; k++)
            r->prices[nprices++] =
                (struct orc_price){sz->slug, sz->changes[k].at, sz->changes[k].price_hourly};
        r->sizes[i] = (struct orc_size){sz->slug, sz->gpus};
    }
    r->pools = xcalloc((size_t)w->npools + 1, sizeof *r->pools);
    r->labels = xcalloc((size_t)w->npools + 1, sizeof *r->labels);
    for (int i = 0; i < w->npools; i++) {
        const struct sim_pool *p = &w->pools[i];
        const struct sim_pool_spec *ps = &sc->pools[p->spec];
        r->labels[i] = join_labels(ps);
        r->pools[i] = (struct orc_pool){
            .id = p->id,
            .name = p->name,
            .size = ps->size,
            .labels = r->labels[i],
            .created_t = p->created_t,
            .signal_t = by(p->cordon_t, at),
            .gone_t = by(p->gone_t, at),
        };
    }
    r->nodes = xcalloc((size_t)w->nnodes + 1, sizeof *r->nodes);
    int nn = 0;
    for (int i = 0; i < w->nnodes; i++) {
        const struct sim_node *n = &w->nodes[i];
        struct orc_node *o = &r->nodes[nn++];
        *o = (struct orc_node){
            .name = n->name,
            .pool = n->pool,
            .labels = r->labels[n->pool], /* spotsim's Nodes carry their pool's labels */
            .gpus = n->gpus,
            .cpu_m = n->cpu_m,
            .created_t = n->created_t,
            .ready_t = by(n->ready_t, at),
            .deleted_t = by(n->deleted_t, at),
        };
        bool open = false; /* a scenario spell still open at `at` */
        for (int k = 0; k < n->nspells && o->nspells < ORC_MAX_SPELLS; k++) {
            if (n->spells[k].from > at)
                break;
            o->spells[o->nspells++] =
                (struct orc_spell){n->spells[k].from, by(n->spells[k].to, at)};
            open = o->spells[o->nspells - 1].to == ORC_NEVER;
        }
        /* the shutdown: a spell of its own unless the node was already unreachable */
        if (n->notready_t <= at && n->notready_t != SIM_NEVER && !open &&
            o->nspells < ORC_MAX_SPELLS)
            o->spells[o->nspells++] = (struct orc_spell){n->notready_t, ORC_NEVER};
    }
    r->jobs = xcalloc((size_t)w->njobs + 1, sizeof *r->jobs);
    r->index_done = xcalloc((size_t)w->ntasks + 1, sizeof *r->index_done);
    for (int j = 0; j < w->njobs; j++) {
        const struct sim_job *job = &w->jobs[j];
        const struct sim_workload *wl = &sc->workloads[job->workload];
        bool indexed = wl->indexed && job->ntasks > 1;
        int64_t done = by(job->done_t, at);
        r->jobs[j] = (struct orc_job){
            .uid = job->uid,
            .name = job->name,
            .config = (enum orc_config)wl->configuration,
            .completions = job->ntasks,
            .indexed = indexed,
            .complete_t = job->failed ? ORC_NEVER : done,
            .failed_t = job->failed ? done : ORC_NEVER,
            .index_done_t = indexed ? &r->index_done[job->first_task] : NULL,
        };
        for (int k = 0; k < job->ntasks; k++) {
            const struct sim_task *tk = &w->tasks[job->first_task + k];
            r->index_done[job->first_task + k] =
                tk->outcome == SIM_OUT_SUCCEEDED ? by(tk->done_t, at) : ORC_NEVER;
        }
    }
    r->pods = xcalloc((size_t)w->npods + 1, sizeof *r->pods);
    int np = 0;
    for (int i = 0; i < w->npods; i++) {
        const struct sim_pod *p = &w->pods[i];
        if (p->created_t > at)
            continue;
        const struct sim_job *job = &w->jobs[p->job];
        const struct sim_workload *wl = &sc->workloads[job->workload];
        const struct sim_task *tk = &w->tasks[p->task];
        bool sched = p->node >= 0 && p->sched_t <= at;
        bool fin = p->fin_t <= at;
        bool report = fin && p->message;
        r->pods[np++] = (struct orc_pod){
            .uid = p->uid,
            .job = p->job,
            .index = r->jobs[p->job].indexed ? tk->index : -1,
            .node = sched ? p->node : -1,
            .gpu_req = wl->gpus,
            .cpu_m = wl->cpu_m,
            .created_t = p->created_t,
            .sched_t = sched ? p->sched_t : ORC_NEVER,
            .start_t = by(p->start_t, at),
            .fin_t = by(p->fin_t, at),
            .exit_code = fin ? p->exit_code : 0,
            .reason = fin ? p->fin_reason : NULL,
            .delreq_t = by(p->delreq_t, at),
            .removed_t = by(p->deleted_t, at),
            .disrupt_t = by(p->disrupt_t, at),
            .work_s = report ? tk->work : -1,
            .restore_s = report ? p->restore_s : -1,
            .checkpoint_s = report ? wl->checkpoint_seconds : -1,
        };
    }
    r->tl = (struct orc_timeline){
        .prices = r->prices,
        .nprices = nprices,
        .sizes = r->sizes,
        .nsizes = sc->nsizes,
        .pools = r->pools,
        .npools = w->npools,
        .nodes = r->nodes,
        .nnodes = nn,
        .jobs = r->jobs,
        .njobs = w->njobs,
        .pods = r->pods,
        .npods = np,
        .spot_labels = default_spot_labels,
        .nspot_labels = 2,
    };
}

void sim_record_release(struct sim_record *r) {
    for (int i = 0; i < r->tl.npools; i++)
        free(r->labels[i]);
    free(r->labels);
    free(r->prices);
    free(r->sizes);
    free(r->pools);
    free(r->nodes);
    free(r->jobs);
    free(r->pods);
    free(r->index_done);
    memset(r, 0, sizeof *r);
}

enum err sim_record_oracle_json(const struct sim_world *w, struct buf *out) {
    if (w->horizon <= w->sc->start)
        return buf_puts(out, "null");
    struct sim_record rec;
    sim_record_build(w, w->horizon, &rec);
    struct orc_result res;
    enum err rc = orc_compute(&rec.tl, w->sc->start, w->horizon, w->horizon, &res);
    if (rc == ERR_OK)
        rc = orc_render_json(&rec.tl, &res, out);
    orc_result_release(&res);
    sim_record_release(&rec);
    return rc;
}
