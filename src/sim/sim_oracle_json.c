/* sim_oracle_json — the oracle's result as JSON (orc_render_json, sim_oracle.h). */
#include "sim/sim_oracle_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/timeutil.h"
#include "base/xalloc.h"

/* ---- JSON ----------------------------------------------------------------- */

/* "key": v as put writes it, or null when v is ORC_NEVER (not known). */
static void k_or_null(struct jsonw *j, const char *key, int64_t v,
                      void (*put)(struct jsonw *, int64_t)) {
    jsonw_key(j, key);
    if (v == ORC_NEVER)
        jsonw_null(j);
    else
        put(j, v);
}

/* A percentage held in basis points: 1234 -> 12.34. */
static void put_percent(struct jsonw *j, int64_t bp) {
    jsonw_fixed(j, bp, 2);
}

/* The pools' indexes by id (the API lists pools by id). */
static int *pools_by_id(const struct orc_timeline *tl) {
    int *v = xcalloc((size_t)tl->npools + 1, sizeof *v);
    for (int i = 0; i < tl->npools; i++) {
        int k = i;
        for (; k > 0 && strcmp(tl->pools[v[k - 1]].id, tl->pools[i].id) > 0; k--)
            v[k] = v[k - 1];
        v[k] = i;
    }
    return v;
}

enum err orc_render_json(const struct orc_timeline *tl, const struct orc_result *r,
                         struct buf *out) {
    static const char *const names[ORC_NCONFIG] = {"spot", "fallback", "on-demand"};
    struct jsonw j;
    jsonw_init(&j, out);
    jsonw_obj(&j);
    jsonw_key(&j, "window");
    jsonw_obj(&j);
    jsonw_ktime(&j, "from", r->from);
    jsonw_ktime(&j, "to", r->to);
    jsonw_obj_end(&j);
    jsonw_ktime(&j, "now", r->now);
    jsonw_kstr(&j, "cost_basis", "accrual");
    bool partial = false;
    for (int c = 0; c < ORC_NCONFIG; c++)
        partial = partial || r->cfg[c].partial;
    jsonw_kbool(&j, "partial", partial);
    int *by_id = pools_by_id(tl);
    jsonw_key(&j, "configurations");
    jsonw_arr(&j);
    for (int c = 0; c < ORC_NCONFIG; c++) {
        const struct orc_config_result *cr = &r->cfg[c];
        jsonw_obj(&j);
        jsonw_kstr(&j, "configuration", names[c]);
        jsonw_kstr(&j, "basis", "measured");
        jsonw_kint(&j, "tasks_succeeded", cr->tasks_succeeded);
        jsonw_kint(&j, "tasks_failed", cr->tasks_failed);
        jsonw_kint(&j, "tasks_running", cr->tasks_running);
        jsonw_kint(&j, "attempts", cr->attempts);
        jsonw_kint(&j, "retries", cr->retries);
        jsonw_kint(&j, "interruptions", cr->interruptions);
        jsonw_kint(&j, "duplicates", cr->duplicates);
        jsonw_kint(&j, "duplicate_seconds", cr->duplicate_seconds);
        jsonw_kmoney(&j, "cost", cr->cost);
        k_or_null(&j, "cost_per_successful_task", cr->cost_per_task, jsonw_money);
        jsonw_kmoney(&j, "allocated_cost", cr->allocated);
        jsonw_kmoney(&j, "useful_cost", cr->useful);
        jsonw_kmoney(&j, "restore_cost", cr->restore);
        jsonw_kmoney(&j, "wasted_cost", cr->wasted);
        jsonw_kmoney(&j, "running_cost", cr->running);
        jsonw_kmoney(&j, "idle_cost", cr->idle);
        jsonw_key(&j, "restore_seconds");
        jsonw_obj(&j);
        jsonw_kint(&j, "samples", cr->restore_samples);
        jsonw_kint(&j, "total", cr->restore_total);
        k_or_null(&j, "p50", cr->restore_p50, jsonw_int);
        k_or_null(&j, "p95", cr->restore_p95, jsonw_int);
        jsonw_obj_end(&j);
        jsonw_key(&j, "node_seconds_by_pool");
        jsonw_arr(&j);
        for (int k = 0; k < tl->npools; k++) {
            int p = by_id[k];
            int64_t secs = r->pool_cfg_secs[p * ORC_NCONFIG + c];
            if (secs == 0)
                continue;
            jsonw_obj(&j);
            jsonw_kstr(&j, "pool_id", tl->pools[p].id);
            jsonw_kstr(&j, "pool", tl->pools[p].name);
            jsonw_kint(&j, "seconds", secs);
            jsonw_obj_end(&j);
        }
        jsonw_arr_end(&j);
        jsonw_kint(&j, "counterfactual_tasks", cr->cf_tasks);
        jsonw_kmoney(&j, "counterfactual_cost", cr->cf_cost);
        k_or_null(&j, "savings_vs_on_demand_percent", cr->savings_bp, put_percent);
        k_or_null(&j, "measured_overhead_percent", cr->overhead_bp, put_percent);
        jsonw_kbool(&j, "partial", cr->partial);
        jsonw_obj_end(&j);
    }
    jsonw_obj(&j);
    jsonw_kstr(&j, "configuration", "on-demand");
    jsonw_kstr(&j, "basis", "counterfactual");
    jsonw_kint(&j, "tasks_succeeded", r->cf_tasks);
    jsonw_kint(&j, "tasks_priced", r->cf_priced);
    jsonw_kint(&j, "tasks_unpriced", r->cf_unpriced);
    jsonw_kint(&j, "tasks_reported_work", r->cf_reported);
    jsonw_kint(&j, "tasks_run_time", r->cf_runtime);
    jsonw_kint(&j, "work_seconds", r->cf_work_seconds);
    jsonw_kmoney(&j, "cost", r->cf_cost);
    k_or_null(&j, "cost_per_successful_task", r->cf_per_task, jsonw_money);
    jsonw_obj_end(&j);
    jsonw_arr_end(&j);
    jsonw_kmoney(&j, "nodes_total_cost", r->nodes_total);
    jsonw_kmoney(&j, "allocated_cost", r->allocated_total);
    jsonw_kmoney(&j, "idle_cost", r->idle_total);
    jsonw_kmoney(&j, "unattributed_idle_cost", r->unattributed_total);
    jsonw_kmoney(&j, "excluded_cost", r->excluded);
    jsonw_kint(&j, "attempts_unscheduled", r->attempts_unscheduled);
    jsonw_key(&j, "pools");
    jsonw_arr(&j);
    for (int p = 0; p < tl->npools; p++) {
        const struct orc_pool_result *pr = &r->pools[p];
        jsonw_obj(&j);
        jsonw_kstr(&j, "pool_id", tl->pools[p].id);
        jsonw_kstr(&j, "pool", tl->pools[p].name);
        jsonw_kstr(&j, "size", tl->pools[p].size);
        jsonw_kstr(&j, "capacity_type", pr->spot ? "spot" : "on-demand");
        jsonw_kint(&j, "nodes", pr->nodes);
        jsonw_kint(&j, "node_seconds", pr->seconds);
        jsonw_kmoney(&j, "cost", pr->total);
        jsonw_kmoney(&j, "allocated_cost", pr->allocated);
        jsonw_kmoney(&j, "idle_cost", pr->idle);
        jsonw_kmoney(&j, "unattributed_idle_cost", pr->unattributed);
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);
    jsonw_key(&j, "nodes");
    jsonw_arr(&j);
    for (int n = 0; n < tl->nnodes; n++) {
        const struct orc_node_result *nr = &r->nodes[n];
        if (nr->seconds == 0 && nr->total == 0)
            continue;
        jsonw_obj(&j);
        jsonw_kstr(&j, "name", tl->nodes[n].name);
        jsonw_kstr(&j, "pool_id", tl->pools[tl->nodes[n].pool].id);
        jsonw_kstr(&j, "pool", tl->pools[tl->nodes[n].pool].name);
        jsonw_ktime(&j, "billable_start", tl->nodes[n].ready_t);
        k_or_null(&j, "deleted_at",
                  tl->nodes[n].deleted_t <= r->now ? tl->nodes[n].deleted_t : ORC_NEVER,
                  jsonw_time);
        jsonw_kmoney(&j, "price_hourly", nr->rate);
        jsonw_kint(&j, "billable_seconds", nr->seconds);
        jsonw_kmoney(&j, "cost", nr->total);
        jsonw_kmoney(&j, "allocated_cost", nr->allocated);
        jsonw_kmoney(&j, "idle_cost", nr->idle);
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);
    jsonw_key(&j, "reclaims");
    jsonw_arr(&j);
    for (int i = 0; i < r->nreclaims; i++) {
        const struct orc_reclaim *rc = &r->reclaims[i];
        jsonw_obj(&j);
        jsonw_kstr(&j, "pool_id", tl->pools[rc->pool].id);
        jsonw_kstr(&j, "pool", tl->pools[rc->pool].name);
        jsonw_kstr(&j, "size", tl->pools[rc->pool].size);
        jsonw_kint(&j, "nodes", rc->nodes);
        k_or_null(&j, "first_signal_at", rc->signal_t, jsonw_time);
        k_or_null(&j, "gone_at", rc->gone_t, jsonw_time);
        k_or_null(&j, "fallback_ready_at", rc->replacement_ready_t, jsonw_time);
        k_or_null(&j, "first_resumed_at", rc->resumed_t, jsonw_time);
        k_or_null(&j, "last_resumed_at", rc->last_resumed_t, jsonw_time);
        jsonw_kint(&j, "tasks_interrupted", rc->tasks_interrupted);
        jsonw_kint(&j, "tasks_resumed", rc->tasks_resumed);
        k_or_null(&j, "signal_to_gone_seconds", rc->signal_to_gone, jsonw_int);
        k_or_null(&j, "replacement_delay_seconds", rc->replacement_delay, jsonw_int);
        k_or_null(&j, "return_to_useful_work_seconds", rc->return_to_work, jsonw_int);
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);
    jsonw_obj_end(&j);
    free(by_id);
    return j.rc;
}
