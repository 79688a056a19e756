/* sim_truth — see sim_truth.h. */
#include "sim/sim_truth.h"

#include "base/jsonw.h"
#include "sim/sim_billing.h"
#include "sim/sim_file.h"
#include "sim/sim_record.h"

const char *sim_outcome_name(enum sim_outcome o) {
    static const char *const names[] = {
        [SIM_OUT_PENDING] = "pending",         [SIM_OUT_RUNNING] = "running",
        [SIM_OUT_SUCCEEDED] = "succeeded",     [SIM_OUT_FAILED] = "failed",
        [SIM_OUT_INTERRUPTED] = "interrupted", [SIM_OUT_KILLED] = "killed"};
    return (unsigned)o < sizeof names / sizeof names[0] && names[o] ? names[o] : "?";
}

static void ktime_or_null(struct jsonw *j, const char *key, int64_t t, int64_t horizon) {
    if (t == SIM_NEVER || t > horizon) {
        jsonw_key(j, key);
        jsonw_null(j);
    } else {
        jsonw_ktime(j, key, t);
    }
}

static int64_t min3(int64_t a, int64_t b, int64_t c) {
    int64_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* Adds node n's billed amount and billable seconds up to h to *billed and *secs. */
static void node_billing(const struct sim_world *w, int n, int64_t h, int64_t *billed,
                         int64_t *secs) {
    struct sim_bill_item items[SIM_BILL_MAX_MONTHS];
    int k = sim_billing_node(w, n, h, items, SIM_BILL_MAX_MONTHS);
    for (int q = 0; q < k; q++) {
        *billed += items[q].amount;
        *secs += items[q].seconds;
    }
}

int64_t sim_attempt_end(const struct sim_world *w, const struct sim_pod *p) {
    int64_t node_del = p->node >= 0 ? w->nodes[p->node].deleted_t : SIM_NEVER;
    return min3(p->fin_t, p->deleted_t, node_del);
}

enum err sim_truth_render(const struct sim_world *w, struct buf *out) {
    const struct sim_scenario *sc = w->sc;
    int64_t h = w->horizon;
    struct jsonw j;
    jsonw_init(&j, out);
    jsonw_obj(&j);
    jsonw_kint(&j, "spotsim_truth", 1);
    jsonw_kint(&j, "seed", (int64_t)w->seed);
    jsonw_ktime(&j, "start", sc->start);
    jsonw_ktime(&j, "until", h);
    jsonw_kstr(&j, "cluster_id", w->cluster_id);
    jsonw_kstr(&j, "namespace", sc->namespace_);

    /* pools, nodes, billing */
    int64_t total_billed = 0;
    jsonw_key(&j, "pools");
    jsonw_arr(&j);
    for (int i = 0; i < w->npools; i++) {
        const struct sim_pool *p = &w->pools[i];
        const struct sim_pool_spec *ps = &sc->pools[p->spec];
        int64_t billed = 0, secs = 0;
        int nodes = 0;
        for (int n = 0; n < w->nnodes; n++) {
            if (w->nodes[n].pool != i)
                continue;
            nodes++;
            node_billing(w, n, h, &billed, &secs);
        }
        jsonw_obj(&j);
        jsonw_kstr(&j, "id", p->id);
        jsonw_kstr(&j, "name", p->name);
        jsonw_kstr(&j, "size", ps->size);
        jsonw_kstr(&j, "role", sim_role_name(ps->role));
        const char *price_text;
        sim_billing_price_at(&sc->sizes[ps->size_idx], p->created_t, &price_text);
        jsonw_kstr(&j, "price_hourly", price_text);
        jsonw_ktime(&j, "created_at", p->created_t);
        ktime_or_null(&j, "reclaimed_at", p->cordon_t, h);
        ktime_or_null(&j, "gone_at", p->gone_t, h);
        jsonw_kint(&j, "nodes", nodes);
        jsonw_kint(&j, "billable_seconds", secs);
        jsonw_kmoney(&j, "billed", billed);
        jsonw_obj_end(&j);
        total_billed += billed;
    }
    jsonw_arr_end(&j);
    jsonw_key(&j, "nodes");
    jsonw_arr(&j);
    for (int n = 0; n < w->nnodes; n++) {
        const struct sim_node *nd = &w->nodes[n];
        if (nd->created_t > h)
            continue;
        int64_t billed = 0, secs = 0;
        node_billing(w, n, h, &billed, &secs);
        jsonw_obj(&j);
        jsonw_kstr(&j, "name", nd->name);
        jsonw_kstr(&j, "uid", nd->uid);
        jsonw_kstr(&j, "do_node_id", nd->do_id);
        jsonw_kstr(&j, "droplet_id", nd->droplet_id);
        jsonw_kstr(&j, "pool", w->pools[nd->pool].name);
        jsonw_kstr(&j, "pool_id", w->pools[nd->pool].id);
        jsonw_kint(&j, "gpus", nd->gpus);
        jsonw_kmoney(&j, "price_hourly", sim_billing_rate(w, n));
        jsonw_ktime(&j, "created_at", nd->created_t);
        ktime_or_null(&j, "ready_at", nd->ready_t, h);
        ktime_or_null(&j, "deleted_at", nd->deleted_t, h);
        jsonw_kbool(&j, "reclaimed",
                    w->pools[nd->pool].reclaimed && !nd->cordon_by_ca && nd->cordon_t <= h);
        jsonw_kint(&j, "billable_seconds", secs);
        jsonw_kmoney(&j, "billed", billed);
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);
    jsonw_kmoney(&j, "billed_total", total_billed);

    /* tasks and attempts */
    jsonw_key(&j, "tasks");
    jsonw_arr(&j);
    for (int t = 0; t < w->ntasks; t++) {
        const struct sim_task *tk = &w->tasks[t];
        const struct sim_job *job = &w->jobs[tk->job];
        const struct sim_workload *wl = &sc->workloads[job->workload];
        jsonw_obj(&j);
        jsonw_kstr(&j, "job", job->name);
        jsonw_kstr(&j, "job_uid", job->uid);
        if (tk->index >= 0)
            jsonw_kint(&j, "index", tk->index);
        jsonw_kstr(&j, "configuration", sim_config_name(wl->configuration));
        jsonw_kstr(&j, "experiment", wl->experiment);
        jsonw_ktime(&j, "created_at", job->created_t);
        jsonw_kstr(&j, "outcome", sim_outcome_name(tk->outcome));
        ktime_or_null(&j, "finished_at", tk->done_t, h);
        jsonw_kint(&j, "work_seconds", tk->work);
        jsonw_kint(&j, "attempts", tk->attempts);
        jsonw_kint(&j, "interruptions", tk->interruptions);
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);
    jsonw_key(&j, "attempts");
    jsonw_arr(&j);
    for (int i = 0; i < w->npods; i++) {
        const struct sim_pod *p = &w->pods[i];
        const struct sim_task *tk = &w->tasks[p->task];
        jsonw_obj(&j);
        jsonw_kstr(&j, "pod", p->name);
        jsonw_kstr(&j, "uid", p->uid);
        jsonw_kstr(&j, "job", w->jobs[p->job].name);
        if (tk->index >= 0)
            jsonw_kint(&j, "index", tk->index);
        jsonw_kint(&j, "attempt", p->attempt);
        jsonw_kstr(&j, "node",
                   p->node >= 0 && p->sched_t != SIM_NEVER ? w->nodes[p->node].name : NULL);
        jsonw_kstr(&j, "pool",
                   p->node >= 0 && p->sched_t != SIM_NEVER ? w->pools[w->nodes[p->node].pool].name
                                                           : NULL);
        jsonw_ktime(&j, "created_at", p->created_t);
        ktime_or_null(&j, "scheduled_at", p->sched_t, h);
        ktime_or_null(&j, "started_at", p->start_t, h);
        ktime_or_null(&j, "finished_at", p->fin_t, h);
        ktime_or_null(&j, "disrupted_at", p->disrupt_t, h);
        ktime_or_null(&j, "deleted_at", p->deleted_t, h);
        ktime_or_null(&j, "end_at", p->sched_t == SIM_NEVER ? SIM_NEVER : sim_attempt_end(w, p), h);
        jsonw_kstr(&j, "outcome", sim_outcome_name(p->outcome));
        jsonw_kbool(&j, "interrupted", p->interrupted);
        if (p->fin_t != SIM_NEVER)
            jsonw_kint(&j, "exit_code", p->exit_code);
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);

    /* reclaims */
    jsonw_key(&j, "reclaims");
    jsonw_arr(&j);
    for (int r = 0; r < w->nreclaims; r++) {
        const struct sim_reclaim *rc = &w->reclaims[r];
        jsonw_obj(&j);
        jsonw_kstr(&j, "pool", w->pools[rc->pool].name);
        jsonw_kstr(&j, "pool_id", w->pools[rc->pool].id);
        jsonw_ktime(&j, "first_signal", rc->signal_t);
        ktime_or_null(&j, "pool_gone", rc->gone_t, h);
        ktime_or_null(&j, "first_fallback_ready", rc->fallback_ready_t, h);
        ktime_or_null(&j, "first_interrupted_running_again", rc->resumed_t, h);
        jsonw_kint(&j, "interrupted_attempts", rc->interrupted);
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);

    /* totals per configuration */
    jsonw_key(&j, "configurations");
    jsonw_arr(&j);
    for (int c = SIM_CFG_SPOT; c <= SIM_CFG_ON_DEMAND; c++) {
        int64_t tasks = 0, ok = 0, failed = 0, open = 0, attempts = 0, retries = 0, intr = 0;
        for (int t = 0; t < w->ntasks; t++) {
            const struct sim_task *tk = &w->tasks[t];
            if ((int)sc->workloads[w->jobs[tk->job].workload].configuration != c)
                continue;
            tasks++;
            ok += tk->outcome == SIM_OUT_SUCCEEDED;
            failed += tk->outcome == SIM_OUT_FAILED;
            open += tk->outcome != SIM_OUT_SUCCEEDED && tk->outcome != SIM_OUT_FAILED;
            attempts += tk->attempts;
            retries += tk->attempts > 1 ? tk->attempts - 1 : 0;
            intr += tk->interruptions;
        }
        jsonw_obj(&j);
        jsonw_kstr(&j, "configuration", sim_config_name((enum sim_config)c));
        jsonw_kint(&j, "tasks", tasks);
        jsonw_kint(&j, "succeeded", ok);
        jsonw_kint(&j, "failed", failed);
        jsonw_kint(&j, "unfinished", open);
        jsonw_kint(&j, "attempts", attempts);
        jsonw_kint(&j, "retries", retries);
        jsonw_kint(&j, "interruptions", intr);
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);
    /* the independent oracle (docs/oracle.md): what the cost engine must agree with */
    struct buf part;
    buf_init(&part, 0);
    enum err rc = sim_record_oracle_json(w, &part);
    if (rc == ERR_OK) {
        jsonw_key(&j, "oracle");
        jsonw_raw(&j, buf_str(&part));
    }
    buf_release(&part);
    jsonw_obj_end(&j);
    buf_putc(out, '\n');
    return rc != ERR_OK ? rc : j.rc;
}

enum err sim_truth_write(const char *path, const char *json, size_t len) {
    return sim_file_write("truth", path, json, len);
}
