/* GET /api/v1/status: the last poll of each source, its error, lag and counts;
 * which sources this process watches (kubernetes false with --no-kube); the
 * span of stored task data (data_first, data_latest: the dashboard's jump to
 * the latest window with data). */
#include <string.h>

#include "http/api.h"
#include "service/app.h"
#include "service/config.h"
#include "base/jsonw.h"
#include "store/store.h"
#include "store/store_export.h"
#include "ingest/poll_do.h"

/* The latest poll of source `name` (of one cluster; NULL: any) as the members
 * of an object already open. */
static void source_fields(struct request *req, struct jsonw *w, const char *name,
                          const char *cluster, int64_t now) {
    struct store_poll last, ok;
    bool have_last = store_poll_last_cluster(req->db, name, cluster, false, &last) == ERR_OK;
    bool have_ok = store_poll_last_cluster(req->db, name, cluster, true, &ok) == ERR_OK;
    jsonw_ktime(w, "last_poll", have_last ? last.finished_at : 0);
    jsonw_ktime(w, "last_success", have_ok ? ok.finished_at : 0);
    jsonw_kstr(w, "status", !have_last ? "never" : last.status);
    jsonw_kstr(w, "error", have_last && last.error[0] ? last.error : NULL);
    /* lag: how long ago (wall clock) the latest successful poll finished */
    jsonw_key(w, "lag_seconds");
    if (have_ok)
        jsonw_int(w, now - ok.finished_at);
    else
        jsonw_null(w);
    jsonw_ktime(w, "source_time", have_ok ? ok.source_time : 0);
    jsonw_kint(w, "requests", have_last ? last.requests : 0);
    jsonw_kint(w, "items", have_last ? last.items : 0);
}

static void source(struct request *req, struct jsonw *w, const char *name, int64_t now) {
    jsonw_obj(w);
    jsonw_kstr(w, "source", name);
    source_fields(req, w, name, NULL, now);
    jsonw_obj_end(w);
}

/* One side of a cluster: whether it runs, why not, and its latest poll. */
static void cluster_side(struct request *req, struct jsonw *w, const char *key, const char *src,
                         const struct app_cluster *c, bool enabled, const char *why) {
    jsonw_key(w, key);
    jsonw_obj(w);
    jsonw_key(w, "watching");
    jsonw_bool(w, enabled);
    jsonw_kstr(w, "not_watching_because", !enabled && why[0] ? why : NULL);
    source_fields(req, w, src, c->name, req->now);
    jsonw_obj_end(w);
}

/* docs/fleet.md: every cluster of the service, each side's state, and how the
 * DigitalOcean token's request budget is shared. */
static void clusters(struct request *req, struct jsonw *w) {
    const struct app *app = req->app;
    jsonw_key(w, "clusters");
    jsonw_arr(w);
    for (int i = 0; app && i < app->n_clusters; i++) {
        const struct app_cluster *c = &app->clusters[i];
        jsonw_obj(w);
        jsonw_kstr(w, "name", c->name);
        jsonw_kstr(w, "target", c->target[0] ? c->target : NULL);
        jsonw_kstr(w, "do_cluster_id", c->do_cluster_id[0] ? c->do_cluster_id : NULL);
        cluster_side(req, w, "kubernetes", "k8s", c, c->k8s_enabled, c->k8s_error);
        cluster_side(req, w, "digitalocean", "do", c, c->do_enabled, c->do_error);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "do_budget");
    jsonw_obj(w);
    jsonw_kint(w, "token_per_hour", POLL_DO_RATE_PER_HOUR);
    jsonw_kint(w, "token_per_minute", POLL_DO_RATE_PER_MINUTE);
    jsonw_kint(w, "pollers", app ? app->do_pollers : 0);
    jsonw_kint(w, "per_poller_per_hour", app ? app->do_rate_per_hour : 0);
    jsonw_kint(w, "per_poller_per_minute", app ? app->do_rate_per_minute : 0);
    jsonw_kstr(w, "shared",
               "the token's budget is divided equally among the clusters' pollers; the first "
               "poller also reads the account's billing");
    jsonw_obj_end(w);
}

void api_status(struct request *req, struct response *resp) {
    if (!api_db_open(req, resp))
        return;
    if (!api_no_params(req, resp))
        return;
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    jsonw_obj(&w);
    jsonw_ktime(&w, "now", api_now(req));
    jsonw_kstr(&w, "version", SPOTLEDGER_VERSION);
    int64_t first = 0, latest = 0;
    if (store_first_data_time(req->db, &first) != ERR_OK)
        first = 0;
    if (store_last_data_time(req->db, &latest) != ERR_OK)
        latest = 0;
    jsonw_ktime(&w, "data_first", first);
    jsonw_ktime(&w, "data_latest", latest);
    jsonw_key(&w, "watching");
    jsonw_obj(&w);
    jsonw_key(&w, "digitalocean");
    jsonw_bool(&w, req->app && req->app->do_enabled);
    jsonw_key(&w, "kubernetes");
    jsonw_bool(&w, req->app && req->app->k8s_enabled);
    jsonw_key(&w, "no_kube");
    jsonw_bool(&w, req->app && req->app->cfg && req->app->cfg->no_kube);
    jsonw_obj_end(&w);
    jsonw_key(&w, "sources");
    jsonw_arr(&w);
    /* do_insights: DigitalOcean billing insights, read with the billing poll; an
     * error there (e.g. 403, no billing:read or account:read) leaves the rest ok */
    const char *names[] = {"do", "do_billing", "k8s", "do_insights"};
    for (size_t i = 0; i < 4; i++)
        source(req, &w, names[i], req->now);
    jsonw_arr_end(&w);
    clusters(req, &w);
    jsonw_obj_end(&w);
    buf_putc(&resp->body, '\n');
    response_json(resp, 200);
}

void api_poll_now(struct request *req, struct response *resp) {
    if (!api_no_params(req, resp))
        return;
    if (!req->app) {
        response_error(resp, 503, "unavailable", "no pollers");
        return;
    }
    app_wake(req->app);
    buf_puts(&resp->body, "{\"status\":\"poll requested\"}\n");
    response_json(resp, 202);
}
