#include "http/router.h"

#include <stdbool.h>
#include <string.h>

#include "http/api.h"
#include "http/api_cost.h"
#include "http/api_whatif.h"
#include "service/app.h"
#include "http/auth.h"
#include "service/config.h"
#include "http/health.h"
#include "http/metrics.h"
#include "http/static_files.h"

enum route_method { M_GET = 1 << 0, M_POST = 1 << 1 };

struct route {
    const char *path; /* exact match, or a prefix when it ends with '/' */
    unsigned methods;
    enum auth_level auth;
    void (*fn)(struct request *req, struct response *resp);
};

static const struct route routes[] = {
    {"/healthz", M_GET, AUTH_OPEN, health_live},
    {"/readyz", M_GET, AUTH_OPEN, health_ready},
    {"/metrics", M_GET, AUTH_METRICS, metrics_handle},
    {"/api/v1/status", M_GET, AUTH_READ, api_status},
    {"/api/v1/poll", M_POST, AUTH_ADMIN, api_poll_now},
    {"/api/v1/summary", M_GET, AUTH_READ, api_summary},
    {"/api/v1/whatif", M_GET, AUTH_READ, api_whatif},
    {"/api/v1/nodes", M_GET, AUTH_READ, api_nodes},
    {"/api/v1/pools", M_GET, AUTH_READ, api_pools},
    {"/api/v1/reclaims", M_GET, AUTH_READ, api_reclaims},
    {"/api/v1/tasks", M_GET, AUTH_READ, api_tasks},
    {"/api/v1/tasks/", M_GET, AUTH_READ, api_task},
    {"/api/v1/experiments", M_GET, AUTH_READ, api_experiments},
    {"/api/v1/timeseries", M_GET, AUTH_READ, api_timeseries},
    {"/api/v1/node_counts", M_GET, AUTH_READ, api_node_counts},
    {"/api/v1/export.csv", M_GET, AUTH_READ, api_export_csv},
    {"/api/v1/reconciliation", M_GET, AUTH_READ, api_reconciliation},
    {"/api/v1/exports", M_GET, AUTH_READ, api_exports},
    {"/api/v1/exports", M_POST, AUTH_ADMIN, api_export_run},
    {"/api/v1/advice", M_GET, AUTH_READ, api_advice},
};

static unsigned method_bit(const char *m) {
    if (strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0)
        return M_GET;
    if (strcmp(m, "POST") == 0)
        return M_POST;
    return 0;
}

static void allow_header(struct response *resp, unsigned methods) {
    const char *allow = (methods & M_GET) && (methods & M_POST) ? "GET, HEAD, POST"
                        : (methods & M_POST)                    ? "POST"
                                                                : "GET, HEAD";
    response_header(resp, "Allow", allow);
}

void router_security_headers(struct response *resp) {
    response_header(resp, "Content-Security-Policy",
                    "default-src 'self'; script-src 'self'; style-src 'self'; "
                    "img-src 'self' data:; connect-src 'self'; object-src 'none'; "
                    "base-uri 'none'; frame-ancestors 'none'; form-action 'self'");
    response_header(resp, "X-Content-Type-Options", "nosniff");
    response_header(resp, "Referrer-Policy", "no-referrer");
    response_header(resp, "X-Frame-Options", "DENY");
}

static bool path_matches(const struct route *r, const char *path) {
    size_t pl = strlen(r->path);
    if (r->path[pl - 1] == '/')
        return strncmp(r->path, path, pl) == 0 && path[pl];
    return strcmp(r->path, path) == 0;
}

static void dispatch(struct request *req, struct response *resp) {
    unsigned m = method_bit(req->method), allowed = 0;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (!path_matches(&routes[i], req->path))
            continue;
        allowed |= routes[i].methods;
        if (!(routes[i].methods & m))
            continue;
        enum auth_level lvl = routes[i].auth;
        if (lvl == AUTH_METRICS)
            lvl = req->app && req->app->cfg && req->app->cfg->metrics_open ? AUTH_OPEN : AUTH_READ;
        if (!auth_check(req, lvl, resp))
            return;
        if (req->too_many_params) {
            response_error(resp, 400, "too_many_parameters", "at most %d query parameters",
                           REQUEST_MAX_PARAMS);
            return;
        }
        routes[i].fn(req, resp);
        return;
    }
    if (allowed) {
        allow_header(resp, allowed);
        response_error(resp, 405, "method_not_allowed", "method %.16s is not allowed here",
                       req->method);
        return;
    }
    if (strncmp(req->path, "/api/", 5) == 0) {
        /* unknown API paths answer like known ones to strangers: no route probing */
        if (auth_check(req, AUTH_READ, resp))
            response_error(resp, 404, "not_found", "no such API route");
        return;
    }
    /* static files: GET only */
    if (m != M_GET) {
        allow_header(resp, M_GET);
        response_error(resp, 405, "method_not_allowed", "static files are read-only");
        return;
    }
    const struct config *cfg = req->app ? req->app->cfg : NULL;
    if (!cfg) {
        response_error(resp, 404, "not_found", "no such file");
        return;
    }
    if (strncmp(req->path, "/vendor/", 8) == 0) {
        /* only what web/ loads: --vendor-dir is a shared system directory */
        static const char *const vendor_files[] = {"chart.js/chart.min.js"};
        for (size_t i = 0; i < sizeof vendor_files / sizeof vendor_files[0]; i++) {
            if (strcmp(req->path + 8, vendor_files[i]) == 0) {
                static_serve(cfg->vendor_dir, vendor_files[i], resp);
                return;
            }
        }
        response_error(resp, 404, "not_found", "no such file");
        return;
    }
    const char *rel = req->path + 1;
    if (!*rel)
        rel = "index.html";
    static_serve(cfg->web_dir, rel, resp);
}

void router_handle(struct request *req, struct response *resp) {
    dispatch(req, resp);
    router_security_headers(resp);
}
