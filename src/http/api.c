#include "http/api.h"

#include <ctype.h>
#include <string.h>

#include "base/jsonw.h"
#include "store/store_read.h"

int64_t api_now(struct request *req) {
    int64_t t = 0;
    if (req->db && store_source_now(req->db, &t) == ERR_OK && t > 0)
        return t;
    return req->now;
}

static bool valid_name(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > API_NAME_MAX)
        return false;
    /* Kubernetes label values and namespace names: alphanumerics, '-', '_', '.' */
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.'))
            return false;
    }
    return true;
}

static bool bad(struct response *resp, const char *param, const char *why) {
    response_error(resp, 400, "bad_parameter", "%s: %s", param, why);
    return false;
}

/* "a,b" into ",a,b,": names of letters, digits, '-', '_', '.' (1..63 bytes), no
 * empty one; false when a name is bad or the list does not fit. */
static bool parse_clusters(const char *v, char *out, size_t cap) {
    size_t n = 0, len = 0;
    if (cap < 2 || !*v)
        return false;
    out[n++] = ',';
    for (const char *p = v;; p++) {
        if (*p == ',' || *p == '\0') {
            if (len == 0 || len > 63 || n + 1 >= cap)
                return false;
            out[n++] = ',';
            len = 0;
            if (!*p)
                break;
            continue;
        }
        if (!isalnum((unsigned char)*p) && !strchr("-_.", *p))
            return false;
        if (n + 2 >= cap)
            return false;
        out[n++] = *p;
        len++;
    }
    out[n] = '\0';
    return true;
}

bool api_json_done(struct response *resp, enum err rc) {
    if (rc != ERR_OK) {
        response_error(resp, 500, "internal", "cannot write the response");
        return false;
    }
    response_json(resp, 200);
    return true;
}

bool api_db_open(struct request *req, struct response *resp) {
    if (req->db)
        return true;
    response_error(resp, 503, "unavailable", "the database is not open");
    return false;
}

bool api_no_params(struct request *req, struct response *resp) {
    if (!req->nparams)
        return true;
    response_error(resp, 400, "bad_parameter", "unknown parameter '%.64s'", req->params[0].key);
    return false;
}

bool api_query_parse(struct request *req, struct response *resp, struct api_query *q,
                     const char *const *extra) {
    static const char *const common[] = {"window",     "from",      "to",      "configuration",
                                         "experiment", "namespace", "cluster", NULL};
    memset(q, 0, sizeof *q);
    for (int i = 0; i < req->nparams; i++) {
        const char *k = req->params[i].key;
        bool known = false;
        for (int j = 0; common[j] && !known; j++)
            known = strcmp(k, common[j]) == 0;
        for (int j = 0; extra && extra[j] && !known; j++)
            known = strcmp(k, extra[j]) == 0;
        if (!known && !strcmp(k, "aggregate")) /* docs/fleet.md */
            return bad(resp, "aggregate",
                       "by cluster only on summary, timeseries, experiments and export.csv "
                       "(kind=summary); ask this route once per cluster with cluster=NAME");
        if (!known) {
            response_error(resp, 400, "bad_parameter", "unknown parameter '%.64s'", k);
            return false;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(req->params[j].key, k) == 0) {
                response_error(resp, 400, "bad_parameter", "%.64s: given more than once", k);
                return false;
            }
    }
    int64_t now = api_now(req);
    const char *win = request_param(req, "window");
    const char *from = request_param(req, "from"), *to = request_param(req, "to");
    char why[160];
    if (win && (from || to))
        return bad(resp, "window", "use either window= or from=/to=, not both");
    if (win) {
        if (window_parse(win, now, &q->w, why, sizeof why) != ERR_OK)
            return bad(resp, "window", why);
    } else if (window_from_to(from, to, now, &q->w, why, sizeof why) != ERR_OK) {
        return bad(resp, from && strstr(why, "'from'") ? "from" : to ? "to" : "from", why);
    }
    const char *c = request_param(req, "configuration");
    if (c && strcmp(c, "spot") && strcmp(c, "fallback") && strcmp(c, "on-demand"))
        return bad(resp, "configuration", "expected spot, fallback or on-demand");
    q->configuration = c;
    const char *e = request_param(req, "experiment");
    if (e && !valid_name(e))
        return bad(resp, "experiment", "expected a label value (letters, digits, - _ .)");
    q->experiment = e;
    const char *ns = request_param(req, "namespace");
    if (ns && !valid_name(ns))
        return bad(resp, "namespace", "expected a namespace name");
    q->namespace_ = ns;
    return api_clusters_parse(req, resp, q->clusters, sizeof q->clusters);
}

bool api_clusters_parse(struct request *req, struct response *resp, char *out, size_t cap) {
    const char *cl = request_param(req, "cluster");
    if (cap)
        out[0] = '\0';
    if (cl && !parse_clusters(cl, out, cap))
        return bad(resp, "cluster",
                   "expected cluster names (letters, digits, - _ .) separated by commas");
    return true;
}

bool api_aggregate_parse(struct request *req, struct response *resp, bool *by_cluster) {
    const char *agg = request_param(req, "aggregate");
    *by_cluster = agg != NULL;
    if (agg && strcmp(agg, "cluster") != 0)
        return bad(resp, "aggregate", "expected cluster");
    return true;
}

void api_write_window(struct jsonw *w, const struct window *win) {
    jsonw_key(w, "window");
    jsonw_obj(w);
    jsonw_ktime(w, "from", win->from);
    jsonw_ktime(w, "to", win->to);
    jsonw_obj_end(w);
}
