/* sim_oracle_json — the oracle's result as JSON (orc_render_json, sim_oracle.h). */
#include "sim/sim_oracle_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/timeutil.h"
#include "base/xalloc.h"

/* ---- JSON ----------------------------------------------------------------- */

static void kmoney_or_null(struct jsonw *j, const char *key, int64_t v) {
    jsonw_key(j, key);
    if (v == ORC_NEVER)
        jsonw_null(j);
    else
        jsonw_money(j, v);
}

static void kint_or_null(struct jsonw *j, const char *key, int64_t v) {
    jsonw_key(j, key);
    if (v == ORC_NEVER)
        jsonw_null(j);
    else
        jsonw_int(j, v);
}

static void ktime_or_null(struct jsonw *j, const char *key, int64_t v) {
    jsonw_key(j, key);
    if (v == ORC_NEVER)
        jsonw_null(j);
    else
        jsonw_time(j, v);
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
    jsonw_key(&j, "configurations");
    jsonw_arr(&j);
    for (int c = 0; c < ORC_NCONFIG; c++) {
        const struct orc_config_result *cr = &r->cfg[c];
        jsonw_obj(&j);
        jsonw_kstr(&j, "configuration", names[c]);
        jsonw_kstr(&j, "basis", "measured");
        jsonw_kint(&j, "tasks_succeeded", cr->tasks_succeeded);
        jsonw_kint(&j, "tasks_failed", cr->tasks_failed);
        jsonw_kint(&j, "attempts", cr->attempts);
        jsonw_kint(&j, "retries", cr->retries);
        jsonw_kint(&j, "interruptions", cr->interruptions);
        jsonw_kint(&j, "duplicates", cr->duplicates);
        jsonw_kint(&j, "duplicate_seconds", cr->duplicate_seconds);
        jsonw_kmoney(&j, "cost", cr->cost);
        kmoney_or_null(&j, "cost_per_successful_task", cr->cost_per_task);
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
        jsonw_obj_end(&j);
        jsonw_obj_end(&j);
    }
    jsonw_obj(&j);
    jsonw_kstr(&j, "configuration", "on-demand");
    jsonw_kstr(&j, "basis", "counterfactual");
    jsonw_kint(&j, "tasks_succeeded", r->cf_tasks);
    jsonw_kint(&j, "tasks_priced", r->cf_priced);
    jsonw_kint(&j, "tasks_unpriced", r->cf_unpriced);
    jsonw_kint(&j, "work_seconds", r->cf_work_seconds);
    jsonw_kmoney(&j, "cost", r->cf_cost);
    kmoney_or_null(&j, "cost_per_successful_task", r->cf_per_task);
    jsonw_obj_end(&j);
    jsonw_arr_end(&j);
    jsonw_kmoney(&j, "nodes_total_cost", r->nodes_total);
    jsonw_kmoney(&j, "allocated_cost", r->allocated_total);
    jsonw_kmoney(&j, "idle_cost", r->idle_total);
    jsonw_kmoney(&j, "unattributed_idle_cost", r->unattributed_total);
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
        ktime_or_null(&j, "first_signal_at", rc->signal_t);
        ktime_or_null(&j, "gone_at", rc->gone_t);
        ktime_or_null(&j, "fallback_ready_at", rc->replacement_ready_t);
        ktime_or_null(&j, "first_resumed_at", rc->resumed_t);
        kint_or_null(&j, "replacement_delay_seconds", rc->replacement_delay);
        kint_or_null(&j, "return_to_useful_work_seconds", rc->return_to_work);
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);
    jsonw_obj_end(&j);
    return j.rc;
}
