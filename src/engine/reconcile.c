/* reconcile — pure estimated-vs-billed comparison; see reconcile.h. */
#include "engine/reconcile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/money.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "model/billing.h"

enum err reconcile_period_bounds(const char *period, int64_t *start, int64_t *end) {
    if (!period || strlen(period) != 7 || period[4] != '-')
        return ERR_PARSE;
    for (int i = 0; i < 7; i++)
        if (i != 4 && (period[i] < '0' || period[i] > '9'))
            return ERR_PARSE;
    int y = (period[0] - '0') * 1000 + (period[1] - '0') * 100 + (period[2] - '0') * 10 +
            (period[3] - '0');
    int m = (period[5] - '0') * 10 + (period[6] - '0');
    if (m < 1 || m > 12)
        return ERR_PARSE;
    int64_t s = timeutil_days_from_civil(y, m, 1) * 86400;
    *start = s;
    *end = timeutil_next_month_start(s);
    return ERR_OK;
}

int64_t reconcile_node_seconds(int64_t start, int64_t end, int64_t now, int64_t ps, int64_t pe) {
    return billing_node_seconds(start, end, now, ps, pe);
}

static bool eq(const char *a, const char *b) {
    return a && b && *a && strcmp(a, b) == 0;
}

static long find_pool(const struct reconcile_input *in, const char *id) {
    for (size_t i = 0; i < in->n_pools; i++)
        if (eq(in->pools[i].id, id))
            return (long)i;
    return -1;
}

/* Index of the pool an item belongs to, -2 for the cluster line, -1 unmatched. */
static long match_item(const struct reconcile_input *in, const struct reconcile_item *it) {
    long p = find_pool(in, it->resource_uuid);
    if (p >= 0)
        return p;
    for (size_t i = 0; i < in->n_nodes; i++) {
        const struct reconcile_node *n = &in->nodes[i];
        if (eq(n->droplet_id, it->resource_id) || eq(n->do_id, it->resource_uuid) ||
            eq(n->name, it->description)) {
            p = find_pool(in, n->pool_id);
            if (p >= 0)
                return p;
        }
    }
    bool cluster =
        eq(in->cluster_id, it->resource_uuid) || eq(in->cluster_name, it->group_description);
    for (size_t i = 0; i < in->n_fleet && !cluster; i++)
        cluster = eq(in->fleet_ids[i], it->resource_uuid) ||
                  eq(in->fleet_names[i], it->group_description);
    if (!cluster)
        return -1;
    size_t best_len = 0;
    long best = -2;
    for (size_t i = 0; i < in->n_pools; i++) {
        const char *name = in->pools[i].name;
        if (name && *name && it->description && strstr(it->description, name) &&
            strlen(name) > best_len) {
            best_len = strlen(name);
            best = (long)i;
        }
    }
    return best;
}

static void finish_line(struct reconcile_line *l) {
    l->diff = l->billed - l->estimated;
    l->unexplained = l->diff - l->rounding;
    l->diff_bp_valid = l->estimated != 0;
    l->diff_bp = 0;
    if (l->diff_bp_valid && money_muldiv(l->diff, 10000, l->estimated, &l->diff_bp) != ERR_OK)
        l->diff_bp_valid = false;
}

enum err reconcile_compute(const struct reconcile_input *in, int64_t now,
                           struct reconcile_result *out) {
    if (in->period_end <= in->period_start)
        return ERR_INVAL;
    size_t np = in->n_pools;
    struct reconcile_line *pl = xcalloc(np + 2, sizeof *pl);
    struct reconcile_line cl = {.kind = RECONCILE_CLUSTER};
    struct reconcile_result r;
    memset(&r, 0, sizeof r);
    enum err e = ERR_OK;
    for (size_t i = 0; i < np; i++) {
        pl[i].kind = RECONCILE_POOL;
        snprintf(pl[i].pool_id, sizeof pl[i].pool_id, "%s", in->pools[i].id ? in->pools[i].id : "");
        snprintf(pl[i].pool_name, sizeof pl[i].pool_name, "%s",
                 in->pools[i].name ? in->pools[i].name : "");
        snprintf(pl[i].capacity_type, sizeof pl[i].capacity_type, "%s",
                 in->pools[i].capacity_type ? in->pools[i].capacity_type : "");
    }
    for (size_t i = 0; i < in->n_nodes; i++) {
        const struct reconcile_node *n = &in->nodes[i];
        int64_t secs =
            reconcile_node_seconds(n->start, n->end, now, in->period_start, in->period_end);
        if (secs == 0)
            continue;
        long p = find_pool(in, n->pool_id);
        struct reconcile_line *l = p >= 0 ? &pl[p] : &cl;
        l->nodes++;
        l->node_seconds += secs;
        if (n->price_hourly < 0) {
            l->unpriced_nodes++;
            continue;
        }
        int64_t cost;
        if ((e = billing_node_amount(n->price_hourly, n->start, n->end, now, in->period_start,
                                     in->period_end, &cost)) != ERR_OK)
            goto out;
        l->estimated += cost;
        /* DigitalOcean bills each node-month item in whole cents */
        int64_t cents;
        if ((e = money_muldiv(cost, 1, 10000, &cents)) != ERR_OK)
            goto out;
        l->rounding += cents * 10000 - cost;
    }
    for (size_t i = 0; i < in->n_items; i++) {
        const struct reconcile_item *it = &in->items[i];
        long p = match_item(in, it);
        if (p == -1) {
            r.unmatched_items++;
            r.unmatched_amount += it->amount;
            continue;
        }
        struct reconcile_line *l = p >= 0 ? &pl[p] : &cl;
        l->items++;
        l->billed += it->amount;
    }
    for (size_t i = 0; i < in->n_insights; i++) {
        const struct reconcile_item *it = &in->insights[i];
        long p = match_item(in, it);
        if (p == -1) {
            r.unmatched_insights++;
            continue;
        }
        struct reconcile_line *l = p >= 0 ? &pl[p] : &cl;
        l->insight_points++;
        l->insights += it->amount;
    }
    r.lines = xcalloc(np + 2, sizeof *r.lines);
    struct reconcile_line total = {.kind = RECONCILE_TOTAL};
    for (size_t i = 0; i < np; i++) {
        if (!pl[i].nodes && !pl[i].items && !pl[i].insight_points)
            continue;
        finish_line(&pl[i]);
        r.lines[r.n_lines++] = pl[i];
    }
    finish_line(&cl);
    r.lines[r.n_lines++] = cl;
    for (size_t i = 0; i < r.n_lines; i++) {
        total.nodes += r.lines[i].nodes;
        total.unpriced_nodes += r.lines[i].unpriced_nodes;
        total.node_seconds += r.lines[i].node_seconds;
        total.estimated += r.lines[i].estimated;
        total.rounding += r.lines[i].rounding;
        total.items += r.lines[i].items;
        total.billed += r.lines[i].billed;
        total.insight_points += r.lines[i].insight_points;
        total.insights += r.lines[i].insights;
    }
    finish_line(&total);
    r.lines[r.n_lines++] = total;
    memcpy(r.period, in->period, sizeof r.period);
    r.period[sizeof r.period - 1] = '\0';
    r.period_start = in->period_start;
    r.period_end = in->period_end;
    r.has_invoice = in->invoice_uuid != NULL;
    r.invoice_preview = in->invoice_preview;
out:
    free(pl);
    if (e != ERR_OK) {
        reconcile_result_release(&r);
        return e;
    }
    *out = r;
    return ERR_OK;
}

void reconcile_result_release(struct reconcile_result *r) {
    free(r->lines);
    memset(r, 0, sizeof *r);
}

static void free_items(struct reconcile_item *v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(v[i].product);
        free(v[i].resource_uuid);
        free(v[i].resource_id);
        free(v[i].group_description);
        free(v[i].description);
    }
    free(v);
}

void reconcile_input_release(struct reconcile_input *in) {
    for (size_t i = 0; i < in->n_pools; i++) {
        free(in->pools[i].id);
        free(in->pools[i].name);
        free(in->pools[i].capacity_type);
    }
    for (size_t i = 0; i < in->n_nodes; i++) {
        free(in->nodes[i].name);
        free(in->nodes[i].do_id);
        free(in->nodes[i].droplet_id);
        free(in->nodes[i].pool_id);
    }
    free_items(in->items, in->n_items);
    free_items(in->insights, in->n_insights);
    free(in->pools);
    free(in->nodes);
    free(in->cluster_id);
    free(in->cluster_name);
    for (size_t i = 0; i < in->n_fleet; i++) {
        free(in->fleet_ids[i]);
        free(in->fleet_names[i]);
    }
    free(in->fleet_ids);
    free(in->fleet_names);
    free(in->invoice_uuid);
    memset(in, 0, sizeof *in);
}
