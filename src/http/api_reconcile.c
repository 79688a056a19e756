/* Reconciliation on the API: the estimate (node-seconds x recorded rate, DO's
 * per-second rule) next to what DigitalOcean billed, per invoice period.
 * GET /api/v1/reconciliation?period=2026-11[&cluster=NAME[,NAME]], and the
 * "reconciliation" member of /api/v1/summary for the months the window touches
 * that an invoice covers (narrowed as the summary by cluster=, docs/fleet.md). */
#include <stdio.h>
#include <string.h>

#include "http/api.h"
#include "service/app.h"
#include "service/config.h"
#include "base/jsonw.h"
#include "engine/reconcile.h"
#include "store/store_do.h"
#include "base/timeutil.h"

static const char *kind_name(enum reconcile_line_kind k) {
    return k == RECONCILE_POOL ? "pool" : k == RECONCILE_CLUSTER ? "cluster" : "total";
}

static void write_result(struct jsonw *w, const struct reconcile_result *r) {
    jsonw_obj(w);
    jsonw_kstr(w, "period", r->period);
    jsonw_ktime(w, "from", r->period_start);
    jsonw_ktime(w, "to", r->period_end);
    jsonw_kbool(w, "has_invoice", r->has_invoice);
    jsonw_kbool(w, "invoice_preview", r->invoice_preview);
    jsonw_key(w, "lines");
    jsonw_arr(w);
    for (size_t i = 0; i < r->n_lines; i++) {
        const struct reconcile_line *l = &r->lines[i];
        jsonw_obj(w);
        jsonw_kstr(w, "kind", kind_name(l->kind));
        jsonw_kstr(w, "pool_id", l->pool_id[0] ? l->pool_id : NULL);
        jsonw_kstr(w, "pool", l->pool_name[0] ? l->pool_name : NULL);
        jsonw_kstr(w, "capacity_type", l->capacity_type[0] ? l->capacity_type : NULL);
        jsonw_kint(w, "nodes", l->nodes);
        jsonw_kint(w, "unpriced_nodes", l->unpriced_nodes);
        jsonw_kint(w, "node_seconds", l->node_seconds);
        jsonw_kmoney(w, "estimated", l->estimated);
        jsonw_kint(w, "items", l->items);
        jsonw_kmoney(w, "billed", l->billed);
        jsonw_kmoney(w, "difference", l->diff);
        /* the difference explained by DO's per-item rounding to cents, and the rest */
        jsonw_kmoney(w, "rounding", l->rounding);
        jsonw_kmoney(w, "unexplained", l->unexplained);
        jsonw_key(w, "difference_percent");
        if (l->diff_bp_valid)
            jsonw_fixed(w, l->diff_bp, 2);
        else
            jsonw_null(w);
        /* DigitalOcean's daily billing insights matched to the line, summed over the
         * period so far (0 points: none read, e.g. a token without billing:read) */
        jsonw_kint(w, "insight_points", l->insight_points);
        jsonw_kmoney(w, "insights", l->insights);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_kint(w, "unmatched_items", r->unmatched_items);
    jsonw_kmoney(w, "unmatched_amount", r->unmatched_amount);
    jsonw_kint(w, "unmatched_insights", r->unmatched_insights);
    jsonw_obj_end(w);
}

static const char *cluster_of(const struct request *req) {
    return req->app && req->app->cfg ? req->app->cfg->cluster_id : NULL;
}

enum err api_reconcile_period(struct request *req, const char *period, const char *clusters,
                              int64_t now, struct reconcile_result *r) {
    /* a cluster= selection, or a fleet of several clusters: their pools, nodes
     * and DigitalOcean clusters (docs/fleet.md); one cluster's service: as it was */
    if (clusters && *clusters)
        return store_do_reconcile_fleet(req->db, period, clusters, now, r);
    if (req->app && req->app->n_clusters > 1)
        return store_do_reconcile_fleet(req->db, period, NULL, now, r);
    return store_do_reconcile(req->db, period, cluster_of(req), now, r);
}

void api_reconcile_window(struct request *req, struct jsonw *w, int64_t from, int64_t to,
                          const char *clusters) {
    int written = 0;
    int64_t now = api_now(req);
    /* at most 24 months: a longer window lists the last 24 */
    int64_t m = timeutil_month_start(to - 1);
    for (int k = 0; k < 24 && m >= timeutil_month_start(from); k++) {
        char period[16];
        int64_t y;
        int mo, d;
        timeutil_civil_from_days(m / 86400, &y, &mo, &d);
        snprintf(period, sizeof period, "%04d-%02d", (int)y, mo);
        struct reconcile_result r;
        /* only a month with an invoice is listed: without one, its nodes (every
         * node of the cluster) are not loaded for nothing (docs/performance.md) */
        bool has = false;
        if (req->db && store_do_has_invoice(req->db, period, &has) == ERR_OK && has &&
            api_reconcile_period(req, period, clusters, now, &r) == ERR_OK) {
            if (r.has_invoice) {
                if (!written++)
                    jsonw_arr(w);
                write_result(w, &r);
            }
            reconcile_result_release(&r);
        }
        m = timeutil_month_start(m - 1);
    }
    if (written)
        jsonw_arr_end(w);
    else
        jsonw_null(w);
}

void api_reconciliation(struct request *req, struct response *resp) {
    const char *period = request_param(req, "period");
    int64_t a, b;
    if (!period || reconcile_period_bounds(period, &a, &b) != ERR_OK) {
        response_error(resp, 400, "bad_parameter", "period: expected YYYY-MM, e.g. 2026-11");
        return;
    }
    int periods = 0, clusters = 0;
    for (int i = 0; i < req->nparams; i++) {
        bool is_cluster = !strcmp(req->params[i].key, "cluster");
        if (strcmp(req->params[i].key, "period") && !is_cluster) {
            response_error(resp, 400, "bad_parameter", "unknown parameter '%.64s'",
                           req->params[i].key);
            return;
        }
        if (is_cluster ? ++clusters > 1 : ++periods > 1) { /* never pick one silently */
            response_error(resp, 400, "bad_parameter", "%s: given more than once",
                           is_cluster ? "cluster" : "period");
            return;
        }
    }
    char sel[API_CLUSTERS_MAX];
    if (!api_clusters_parse(req, resp, sel, sizeof sel))
        return;
    if (!api_db_open(req, resp))
        return;
    struct reconcile_result r;
    enum err rc = api_reconcile_period(req, period, sel, api_now(req), &r);
    if (rc != ERR_OK) {
        response_error(resp, 500, "database", "cannot reconcile: %s", err_str(rc));
        return;
    }
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    write_result(&w, &r);
    buf_putc(&resp->body, '\n');
    reconcile_result_release(&r);
    response_json(resp, w.rc == ERR_OK ? 200 : 500);
}
