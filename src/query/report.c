/* report — cost_result -> JSON (contract and key list in report.h). */
#include "query/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/xalloc.h"

/* How knull writes a number that is not COST_NULL. */
enum knull_as { AS_INT, AS_MONEY, AS_PERCENT };

/* key: v as asked, or null when v is COST_NULL (report.h: "null when unknown"). */
static void knull(struct jsonw *w, const char *key, int64_t v, enum knull_as as) {
    jsonw_key(w, key);
    if (v == COST_NULL)
        jsonw_null(w);
    else if (as == AS_MONEY)
        jsonw_money(w, v);
    else if (as == AS_PERCENT)
        jsonw_fixed(w, v, 2); /* basis points -> percent with 2 decimals */
    else
        jsonw_int(w, v);
}

static const struct cost_pool_result *pool_row(const struct cost_result *r, int32_t pool) {
    if (r->n_pools == 0)
        return NULL;
    if (pool < 0 || (size_t)pool >= r->n_pools - 1)
        return &r->pools[r->n_pools - 1];
    return &r->pools[pool];
}

static void write_advice(struct jsonw *w, const struct cost_advice *a) {
    jsonw_obj(w);
    jsonw_kstr(w, "size", a->size);
    jsonw_kint(w, "reclaims", a->reclaims);
    jsonw_kint(w, "exposure_seconds", a->exposure_seconds);
    knull(w, "mean_time_between_reclaims_seconds", a->mtbr_seconds, AS_INT);
    jsonw_kint(w, "checkpoint_samples", a->checkpoint_samples);
    knull(w, "mean_checkpoint_seconds", a->mean_checkpoint_seconds, AS_INT);
    knull(w, "interval_seconds", a->interval_seconds, AS_INT);
    jsonw_obj_end(w);
}

static void write_reclaim(struct jsonw *w, const struct cost_reclaim *c) {
    jsonw_obj(w);
    jsonw_kstr(w, "pool_id", c->pool_id);
    jsonw_kstr(w, "pool", c->pool_name);
    jsonw_kstr(w, "size", c->size);
    jsonw_kint(w, "nodes", c->nodes);
    jsonw_ktime(w, "first_signal_at", c->first_signal_at);
    jsonw_ktime(w, "gone_at", c->gone_at);
    jsonw_ktime(w, "fallback_ready_at", c->fallback_ready_at);
    jsonw_ktime(w, "first_resumed_at", c->first_resumed_at);
    jsonw_ktime(w, "last_resumed_at", c->last_resumed_at);
    jsonw_kint(w, "tasks_interrupted", c->tasks_interrupted);
    jsonw_kint(w, "tasks_resumed", c->tasks_resumed);
    knull(w, "signal_to_gone_seconds", c->signal_to_gone_seconds, AS_INT);
    knull(w, "replacement_delay_seconds", c->replacement_delay_seconds, AS_INT);
    knull(w, "return_to_useful_work_seconds", c->return_to_useful_work_seconds, AS_INT);
    jsonw_obj_end(w);
}

/* Output order must not depend on the input's order (the store and the
 * simulator list pools and nodes differently): pools by id, nodes by name,
 * NULL ids last. The sorts use plain pointer arrays (qsort has no context). */
static int cmp_str_null_last(const char *a, const char *b) {
    if (!a || !b)
        return a ? -1 : b ? 1 : 0;
    return strcmp(a, b);
}

static int cmp_pool_ptr(const void *a, const void *b) {
    const struct cost_pool_result *x = *(const struct cost_pool_result *const *)a;
    const struct cost_pool_result *y = *(const struct cost_pool_result *const *)b;
    int c = cmp_str_null_last(x->id, y->id);
    return c ? c : (x > y) - (x < y);
}

static int cmp_node_ptr(const void *a, const void *b) {
    const struct cost_node_result *x = *(const struct cost_node_result *const *)a;
    const struct cost_node_result *y = *(const struct cost_node_result *const *)b;
    int c = cmp_str_null_last(x->name, y->name);
    return c ? c : (x > y) - (x < y);
}

/* r's pools in output order; caller frees. */
static const struct cost_pool_result **pools_sorted(const struct cost_result *r) {
    const struct cost_pool_result **v = xcalloc(r->n_pools + 1, sizeof *v);
    for (size_t i = 0; i < r->n_pools; i++)
        v[i] = &r->pools[i];
    if (r->n_pools > 1)
        qsort(v, r->n_pools, sizeof *v, cmp_pool_ptr);
    return v;
}

/* The money of one configuration on the basis asked for: the accrual result's,
 * or the completion basis' (bc not NULL). */
struct basis_money {
    int64_t tasks, cost, per_task, allocated, useful, restore, wasted, running, idle;
    int64_t savings_bp, overhead_bp;
};

/* cost_config_result and cost_basis_config name these members alike. */
#define BASIS_MONEY(x)                                                                             \
    (struct basis_money) {                                                                         \
        (x)->tasks_succeeded, (x)->cost, (x)->cost_per_successful_task, (x)->allocated_cost,       \
            (x)->useful_cost, (x)->restore_cost, (x)->wasted_cost, (x)->running_cost,              \
            (x)->idle_cost, (x)->savings_vs_on_demand_bp, (x)->measured_overhead_bp                \
    }

static struct basis_money money_of(const struct cost_config_result *c,
                                   const struct cost_basis_config *bc) {
    return bc ? BASIS_MONEY(bc) : BASIS_MONEY(c);
}

static void write_config(struct jsonw *w, const struct cost_result *r,
                         const struct cost_config_result *c, const struct cost_basis_config *bc) {
    struct basis_money m = money_of(c, bc);
    jsonw_obj(w);
    jsonw_kstr(w, "configuration", cost_config_name(c->config));
    jsonw_kstr(w, "basis", "measured");
    jsonw_kint(w, "tasks_succeeded", m.tasks);
    jsonw_kint(w, "tasks_failed", c->tasks_failed);
    jsonw_kint(w, "tasks_running", c->tasks_running);
    jsonw_kint(w, "attempts", c->attempts);
    jsonw_kint(w, "retries", c->retries);
    jsonw_kint(w, "interruptions", c->interruptions);
    jsonw_kint(w, "duplicates", c->duplicates);
    jsonw_kint(w, "duplicate_seconds", c->duplicate_seconds);
    jsonw_kmoney(w, "cost", m.cost);
    knull(w, "cost_per_successful_task", m.per_task, AS_MONEY);
    jsonw_kmoney(w, "allocated_cost", m.allocated);
    jsonw_kmoney(w, "useful_cost", m.useful);
    jsonw_kmoney(w, "restore_cost", m.restore);
    jsonw_kmoney(w, "wasted_cost", m.wasted);
    jsonw_kmoney(w, "running_cost", m.running);
    jsonw_kmoney(w, "idle_cost", m.idle);
    jsonw_key(w, "restore_seconds");
    jsonw_obj(w);
    jsonw_kint(w, "samples", c->restore.samples);
    jsonw_kint(w, "total", c->restore.total);
    knull(w, "p50", c->restore.p50, AS_INT);
    knull(w, "p95", c->restore.p95, AS_INT);
    jsonw_obj_end(w);
    jsonw_key(w, "node_seconds_by_pool");
    jsonw_arr(w);
    const struct cost_pool_result **order = pools_sorted(r);
    for (size_t k = 0; k < r->n_pools; k++) {
        size_t p = (size_t)(order[k] - r->pools);
        if (!c->pool_seconds || c->pool_seconds[p] == 0)
            continue;
        jsonw_obj(w);
        jsonw_kstr(w, "pool_id", r->pools[p].id);
        jsonw_kstr(w, "pool", r->pools[p].name);
        jsonw_kint(w, "seconds", c->pool_seconds[p]);
        jsonw_obj_end(w);
    }
    free(order);
    jsonw_arr_end(w);
    jsonw_kmoney(w, "useful_cost_at_on_demand", c->useful_at_on_demand);
    jsonw_kint(w, "counterfactual_tasks", c->counterfactual_tasks);
    jsonw_kmoney(w, "counterfactual_cost", c->counterfactual_cost);
    knull(w, "savings_vs_on_demand_percent", m.savings_bp, AS_PERCENT);
    knull(w, "break_even_overhead_percent", c->break_even_overhead_bp, AS_PERCENT);
    knull(w, "measured_overhead_percent", m.overhead_bp, AS_PERCENT);
    jsonw_key(w, "checkpoint_advice");
    if (c->advice >= 0 && (size_t)c->advice < r->n_advice)
        write_advice(w, &r->advice[c->advice]);
    else
        jsonw_null(w);
    jsonw_kbool(w, "partial", c->partial);
    jsonw_obj_end(w);
}

static void write_counterfactual(struct jsonw *w, const struct cost_counterfactual *cf) {
    char desc[320];
    snprintf(desc, sizeof desc,
             "successful spot and fallback tasks completed in the window, re-priced as "
             "work_seconds x share x the On-Demand rate of their size (work_seconds reported "
             "for %lld tasks, run time for %lld; %lld tasks without an On-Demand rate left out)",
             (long long)cf->tasks_reported_work, (long long)cf->tasks_run_time,
             (long long)cf->tasks_unpriced);
    jsonw_obj(w);
    jsonw_kstr(w, "configuration", "on-demand");
    jsonw_kstr(w, "basis", "counterfactual");
    jsonw_kstr(w, "basis_description", desc);
    jsonw_kint(w, "tasks_succeeded", cf->tasks);
    jsonw_kint(w, "tasks_priced", cf->tasks_priced);
    jsonw_kint(w, "tasks_unpriced", cf->tasks_unpriced);
    jsonw_kint(w, "tasks_reported_work", cf->tasks_reported_work);
    jsonw_kint(w, "tasks_run_time", cf->tasks_run_time);
    jsonw_kint(w, "work_seconds", cf->work_seconds);
    jsonw_kmoney(w, "cost", cf->cost);
    knull(w, "cost_per_successful_task", cf->cost_per_successful_task, AS_MONEY);
    jsonw_obj_end(w);
}

static void write_node(struct jsonw *w, const struct cost_result *r,
                       const struct cost_node_result *n) {
    const struct cost_pool_result *p = pool_row(r, n->pool);
    jsonw_obj(w);
    jsonw_kstr(w, "name", n->name);
    jsonw_kstr(w, "pool_id", p ? p->id : NULL);
    jsonw_kstr(w, "pool", p && n->pool >= 0 ? p->name : NULL);
    jsonw_kmoney(w, "price_hourly", n->rate_hourly);
    jsonw_ktime(w, "billable_start", n->billable_start);
    jsonw_ktime(w, "deleted_at", n->deleted_at);
    jsonw_kint(w, "billable_seconds", n->seconds);
    jsonw_kmoney(w, "cost", n->total);
    jsonw_kmoney(w, "allocated_cost", n->allocated);
    jsonw_kmoney(w, "idle_cost", n->idle);
    jsonw_obj_end(w);
}

static void write_pool(struct jsonw *w, const struct cost_pool_result *p) {
    jsonw_obj(w);
    jsonw_kstr(w, "pool_id", p->id);
    jsonw_kstr(w, "pool", p->name);
    jsonw_kstr(w, "size", p->size);
    jsonw_kstr(w, "capacity_type", cost_capacity_name(p->capacity));
    knull(w, "on_demand_price_hourly", p->od_price_hourly ? p->od_price_hourly : COST_NULL,
          AS_MONEY);
    jsonw_kint(w, "nodes", p->nodes);
    jsonw_kint(w, "node_seconds", p->seconds);
    jsonw_kmoney(w, "cost", p->total);
    jsonw_kmoney(w, "allocated_cost", p->allocated);
    jsonw_kmoney(w, "idle_cost", p->idle);
    jsonw_kmoney(w, "unattributed_idle_cost", p->unattributed_idle);
    jsonw_obj_end(w);
}

/* Writes one JSON document, body's, after out's content; a failed write leaves out
 * as it was. comp: the completion basis (summary only, may be NULL). */
typedef void write_body_fn(struct jsonw *w, const struct cost_result *r,
                           const struct cost_completion *comp);
static enum err write_doc(const struct cost_result *r, const struct cost_completion *comp,
                          struct buf *out, write_body_fn *body) {
    if (!r || !out)
        return ERR_INVAL;
    size_t mark = out->len;
    struct jsonw w;
    jsonw_init(&w, out);
    body(&w, r, comp);
    if (w.rc != ERR_OK && out->data) {
        out->len = mark;
        out->data[mark] = '\0';
    }
    return w.rc;
}

enum err report_summary_json(const struct cost_result *r, struct buf *out) {
    return report_summary_basis_json(r, NULL, out);
}

static void summary_body(struct jsonw *w, const struct cost_result *r,
                         const struct cost_completion *comp) {
    jsonw_obj(w);
    jsonw_key(w, "window");
    jsonw_obj(w);
    jsonw_ktime(w, "from", r->from);
    jsonw_ktime(w, "to", r->to);
    jsonw_obj_end(w);
    jsonw_ktime(w, "now", r->now);
    jsonw_kstr(w, "cost_basis", comp ? "completion" : "accrual");
    jsonw_kstr(w, "cost_basis_description",
               comp ? "the tasks that succeeded in the window, each with the whole cost of all its "
                      "attempts and its share of idle in the windows they ran (also before the "
                      "window); node, pool and reconciliation totals stay on the accrual basis"
                    : "the money spent in the window: attempts clipped to the window and the "
                      "window's idle (reconciles to invoices)");
    jsonw_kbool(w, "partial", r->partial);
    if (comp) {
        jsonw_key(w, "completion_span");
        jsonw_obj(w);
        jsonw_ktime(w, "from", comp->span_from);
        jsonw_ktime(w, "to", comp->span_to);
        jsonw_kint(w, "windows", comp->windows);
        jsonw_obj_end(w);
    }
    jsonw_key(w, "configurations");
    jsonw_arr(w);
    for (int c = 0; c < COST_NCONFIG; c++)
        if (r->configs[c].selected)
            write_config(w, r, &r->configs[c], comp ? &comp->configs[c] : NULL);
    if (r->configs[COST_SPOT].selected || r->configs[COST_FALLBACK].selected)
        write_counterfactual(w, &r->counterfactual);
    jsonw_arr_end(w);
    jsonw_kmoney(w, "nodes_total_cost", r->nodes_total);
    jsonw_kmoney(w, "allocated_cost", r->allocated_total);
    jsonw_kmoney(w, "idle_cost", r->idle_total);
    jsonw_kmoney(w, "unattributed_idle_cost", r->unattributed_idle);
    jsonw_kmoney(w, "excluded_cost", r->excluded_cost);
    jsonw_kint(w, "attempts_unscheduled", r->attempts_unscheduled);
    jsonw_key(w, "reclaims");
    jsonw_arr(w);
    for (size_t i = 0; i < r->n_reclaims; i++)
        write_reclaim(w, &r->reclaims[i]);
    jsonw_arr_end(w);
    jsonw_key(w, "checkpoint_advice");
    jsonw_arr(w);
    for (size_t i = 0; i < r->n_advice; i++)
        write_advice(w, &r->advice[i]);
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static void nodes_body(struct jsonw *w, const struct cost_result *r,
                       const struct cost_completion *comp) {
    (void)comp;
    jsonw_arr(w);
    const struct cost_node_result **order = xcalloc(r->n_nodes + 1, sizeof *order);
    for (size_t i = 0; i < r->n_nodes; i++)
        order[i] = &r->nodes[i];
    if (r->n_nodes > 1)
        qsort(order, r->n_nodes, sizeof *order, cmp_node_ptr);
    for (size_t i = 0; i < r->n_nodes; i++)
        if (order[i]->seconds > 0)
            write_node(w, r, order[i]);
    free(order);
    jsonw_arr_end(w);
}

static void reclaims_body(struct jsonw *w, const struct cost_result *r,
                          const struct cost_completion *comp) {
    (void)comp;
    jsonw_arr(w);
    for (size_t i = 0; i < r->n_reclaims; i++)
        write_reclaim(w, &r->reclaims[i]);
    jsonw_arr_end(w);
}

static void pools_body(struct jsonw *w, const struct cost_result *r,
                       const struct cost_completion *comp) {
    (void)comp;
    jsonw_arr(w);
    const struct cost_pool_result **order = pools_sorted(r);
    for (size_t p = 0; p < r->n_pools; p++) {
        const struct cost_pool_result *pr = order[p];
        if (pr->pool < 0 && pr->nodes == 0)
            continue; /* the unknown pool, unused */
        write_pool(w, pr);
    }
    free(order);
    jsonw_arr_end(w);
}

enum err report_summary_basis_json(const struct cost_result *r, const struct cost_completion *comp,
                                   struct buf *out) {
    return write_doc(r, comp, out, summary_body);
}

enum err report_nodes_json(const struct cost_result *r, struct buf *out) {
    return write_doc(r, NULL, out, nodes_body);
}

enum err report_reclaims_json(const struct cost_result *r, struct buf *out) {
    return write_doc(r, NULL, out, reclaims_body);
}

enum err report_pools_json(const struct cost_result *r, struct buf *out) {
    return write_doc(r, NULL, out, pools_body);
}
