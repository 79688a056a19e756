/* GET /api/v1/exports, GET /api/v1/export.csv, POST /api/v1/exports (admin). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/api.h"
#include "http/api_cost.h"
#include "service/app.h"
#include "service/config.h"
#include "query/export.h"
#include "service/exporter.h"
#include "base/jsonw.h"
#include "store/store_export.h"
#include "store/store_read.h"
#include "base/timeutil.h"
#include "base/xalloc.h"

#define EXPORTS_LIST_MAX 1000

void api_exports(struct request *req, struct response *resp) {
    if (!api_no_params(req, resp))
        return;
    if (!api_db_open(req, resp))
        return;
    struct store_export_row *rows = xcalloc(EXPORTS_LIST_MAX, sizeof *rows);
    size_t n = 0;
    enum err rc = store_export_list(req->db, rows, EXPORTS_LIST_MAX, &n);
    if (rc != ERR_OK) {
        free(rows);
        response_error(resp, 500, "database", "cannot list exports: %s", err_str(rc));
        return;
    }
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    jsonw_obj(&w);
    jsonw_key(&w, "exports");
    jsonw_arr(&w);
    for (size_t i = 0; i < n; i++) {
        char url[96];
        const char *base = strrchr(rows[i].path, '/');
        snprintf(url, sizeof url, "/api/v1/export.csv?week=%s&kind=%s", rows[i].week, rows[i].kind);
        jsonw_obj(&w);
        jsonw_kstr(&w, "week", rows[i].week);
        jsonw_kstr(&w, "kind", rows[i].kind);
        jsonw_kstr(&w, "file", base ? base + 1 : rows[i].path);
        jsonw_kint(&w, "bytes", rows[i].bytes);
        jsonw_kint(&w, "rows", rows[i].rows);
        jsonw_ktime(&w, "written_at", rows[i].written_at);
        jsonw_kstr(&w, "url", url);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    buf_putc(&resp->body, '\n');
    free(rows);
    response_json(resp, 200);
}

/* The file name's cluster part (docs/fleet.md): "-by-cluster", "-east+west" for
 * cluster=east,west (",east,west,"), "-clusters" when the list is long, "" the fleet. */
static void cluster_suffix(const char *clusters, bool by_cluster, char *out, size_t cap) {
    size_t len = strlen(clusters);
    const char *by = by_cluster ? "-by-cluster" : "";
    if (len < 3)
        snprintf(out, cap, "%s", by);
    else if (len - 2 + 1 + strlen(by) >= cap || len > 66)
        snprintf(out, cap, "%s-clusters", by);
    else {
        int n = snprintf(out, cap, "%s-%.*s", by, (int)(len - 2), clusters + 1);
        for (char *p = out + (n > 0 ? (size_t)n - (len - 2) : 0); *p; p++)
            if (*p == ',')
                *p = '+';
    }
}

void api_export_csv(struct request *req, struct response *resp) {
    static const char *const extra[] = {"week", "kind", "basis", "aggregate", NULL};
    const char *week = request_param(req, "week");
    const char *k = request_param(req, "kind");
    enum export_kind kind;
    if (!k || export_kind_parse(k, &kind) != ERR_OK) {
        response_error(resp, 400, "bad_parameter", "kind: expected summary or tasks");
        return;
    }
    int64_t from, to;
    char label[64];
    if (week) {
        if (request_param(req, "window") || request_param(req, "from") ||
            request_param(req, "to")) {
            response_error(resp, 400, "bad_parameter", "week: use either week= or a window");
            return;
        }
        if (timeutil_parse_iso_week(week, &from, &to) != ERR_OK) {
            response_error(resp, 400, "bad_parameter", "week: expected YYYY-Www, e.g. 2026-W48");
            return;
        }
        snprintf(label, sizeof label, "%s", week);
    } else {
        struct api_query q;
        if (!api_query_parse(req, resp, &q, extra))
            return;
        if (q.configuration || q.experiment || q.namespace_) {
            response_error(resp, 400, "bad_parameter",
                           "the CSV covers every configuration: drop the filters");
            return;
        }
        from = q.w.from;
        to = q.w.to;
        char a[TIMEUTIL_RFC3339_MAX], b[TIMEUTIL_RFC3339_MAX];
        timeutil_format_rfc3339(from, a);
        timeutil_format_rfc3339(to, b);
        snprintf(label, sizeof label, "%s/%s", a, b);
    }
    for (int i = 0; i < req->nparams; i++) {
        const char *key = req->params[i].key;
        if (week && strcmp(key, "week") && strcmp(key, "kind") && strcmp(key, "basis") &&
            strcmp(key, "cluster") && strcmp(key, "aggregate")) {
            response_error(resp, 400, "bad_parameter", "unknown parameter '%.64s'", key);
            return;
        }
    }
    bool completion, by_cluster;
    if (!api_basis_parse(req, resp, &completion) || !api_aggregate_parse(req, resp, &by_cluster))
        return;
    if (by_cluster && kind == EXPORT_TASKS) {
        response_error(resp, 400, "bad_parameter",
                       "aggregate: the tasks file has a row per task, each naming its cluster; "
                       "aggregate=cluster applies to kind=summary");
        return;
    }
    if (completion && kind == EXPORT_TASKS) {
        response_error(resp, 400, "bad_parameter",
                       "basis: the tasks file has one basis (each task's whole-life cost, in the "
                       "window it completed); basis=completion applies to kind=summary");
        return;
    }
    if (!api_db_open(req, resp))
        return;
    int64_t now = api_now(req);
    /* a window that is over is computed as of its end (a week exactly as the
     * weekly file), as the summary is: its bytes then depend only on the rows */
    int64_t as_of = now > to ? to : now;
    /* a closed window's file is kept in the response cache (the summary's 95 %
     * intervals resample every task of the window: computed once) */
    struct api_query cq;
    memset(&cq, 0, sizeof cq);
    cq.w.from = from;
    cq.w.to = to;
    /* cluster= narrows the rows (docs/fleet.md); the cache key carries it */
    if (!api_clusters_parse(req, resp, cq.clusters, sizeof cq.clusters))
        return;
    char key[96];
    snprintf(key, sizeof key, "csv|%s|%s%s", k, label, by_cluster ? "|by-cluster" : "");
    struct api_cache_slot slot;
    bool hit = api_cache_lookup_basis(req, resp, &cq, completion, key, &slot);
    struct export_opts o = {.completion = completion, .by_cluster = by_cluster};
    struct calc_settings local;
    enum err rc = hit ? ERR_OK
                      : export_build_opts(req->db, api_calc_settings(req, &cq, &local), kind, from,
                                          to, label, as_of, &o, &resp->body, NULL);
    if (rc == ERR_TOOBIG && completion) {
        response_error(resp, 400, "bad_parameter",
                       "basis: the tasks completed in this window ran over more than %d windows "
                       "of its length; ask for a longer window",
                       COST_BASIS_MAX_WINDOWS);
        return;
    }
    if (rc != ERR_OK) {
        response_error(resp, rc == ERR_DB || rc == ERR_BUSY ? 503 : 500, "internal",
                       "cannot build the CSV: %s", err_str(rc));
        return;
    }
    char disp[192];
    /* a completion-basis or cluster file never takes the weekly file's name */
    const char *sfx = completion ? "-completion" : "";
    char csfx[80];
    cluster_suffix(cq.clusters, by_cluster, csfx, sizeof csfx);
    if (week)
        snprintf(disp, sizeof disp, "attachment; filename=\"spotledger-%s-%s%s%s.csv\"", week, k,
                 csfx, sfx);
    else
        snprintf(disp, sizeof disp, "attachment; filename=\"spotledger-%s%s%s.csv\"", k, csfx, sfx);
    response_header(resp, "Content-Disposition", disp);
    resp->status = 200;
    resp->content_type = "text/csv; charset=utf-8; header=present";
    if (!hit)
        api_cache_store(req, resp, &slot);
}

void api_export_run(struct request *req, struct response *resp) {
    const char *week = request_param(req, "week");
    int64_t from, to;
    if (!week || timeutil_parse_iso_week(week, &from, &to) != ERR_OK) {
        response_error(resp, 400, "bad_parameter", "week: expected YYYY-Www, e.g. 2026-W48");
        return;
    }
    const struct config *cfg = req->app ? req->app->cfg : NULL;
    if (!cfg || !cfg->export_dir) {
        response_error(resp, 409, "not_configured", "no --export-dir: weekly files are off");
        return;
    }
    if (!req->db || !req->app->writer) {
        response_error(resp, 503, "unavailable", "the database is not open");
        return;
    }
    /* the week must be over by the SOURCE clock, never by api_now's wall-clock
     * fallback: before the first successful poll the rows are not there yet, and a
     * file written now would be recorded and never rewritten (as export_due) */
    int64_t now = 0;
    if (store_source_now(req->db, &now) != ERR_OK || now <= 0) {
        response_error(resp, 409, "no_source_time",
                       "no successful poll yet: cannot tell whether week %s is over", week);
        return;
    }
    if (to > now) {
        response_error(resp, 409, "week_open", "week %s is not over yet", week);
        return;
    }
    enum err rc = export_week(req->db, req->app, cfg->export_dir, from, now);
    if (rc != ERR_OK) {
        response_error(resp, 500, "export_failed", "the export failed: %s", err_str(rc));
        return;
    }
    buf_printf(&resp->body, "{\"week\":\"%s\",\"status\":\"written\"}\n", week);
    response_json(resp, 200);
}
