#include "http/health.h"

#include <stdio.h>

#include "service/app.h"
#include "service/config.h"
#include "base/jsonw.h"
#include "store/store.h"

void health_live(struct request *req, struct response *resp) {
    (void)req;
    buf_puts(&resp->body, "{\"status\":\"ok\"}\n");
    response_json(resp, 200);
}

/* One source's readiness: a successful poll no older than 3 intervals. */
static bool source_ready(struct request *req, struct jsonw *w, const char *source, int interval) {
    struct store_poll p;
    jsonw_key(w, source);
    jsonw_obj(w);
    enum err rc = store_poll_last(req->db, source, true, &p);
    bool ok = false;
    if (rc == ERR_NOTFOUND) {
        jsonw_kstr(w, "status", "waiting");
        jsonw_kstr(w, "reason", "no successful poll yet");
    } else if (rc != ERR_OK) {
        jsonw_kstr(w, "status", "error");
        jsonw_kstr(w, "reason", "cannot read poll history");
    } else {
        int64_t age = req->now - p.finished_at;
        ok = age <= 3 * (int64_t)interval;
        jsonw_kstr(w, "status", ok ? "ok" : "stale");
        jsonw_ktime(w, "last_success", p.finished_at);
        jsonw_kint(w, "age_seconds", age);
        if (!ok) {
            char why[96];
            snprintf(why, sizeof why, "last successful poll is older than 3 x %d s", interval);
            jsonw_kstr(w, "reason", why);
        }
    }
    jsonw_obj_end(w);
    return ok;
}

void health_ready(struct request *req, struct response *resp) {
    struct jsonw w;
    bool ready = true;
    jsonw_init(&w, &resp->body);
    jsonw_obj(&w);
    jsonw_key(&w, "checks");
    jsonw_obj(&w);
    jsonw_key(&w, "database");
    jsonw_obj(&w);
    int v = 0;
    if (!req->db || store_schema_version(req->db, &v) != ERR_OK) {
        ready = false;
        jsonw_kstr(&w, "status", "error");
        jsonw_kstr(&w, "reason", "database not open");
    } else {
        jsonw_kstr(&w, "status", "ok");
        jsonw_kint(&w, "schema_version", v);
    }
    jsonw_obj_end(&w);
    const struct app *app = req->app;
    if (req->db && app && app->do_enabled)
        ready &= source_ready(req, &w, "do", app->cfg->poll_interval);
    if (req->db && app && app->k8s_enabled)
        ready &= source_ready(req, &w, "k8s", app->cfg->poll_interval);
    jsonw_obj_end(&w);
    jsonw_kstr(&w, "status", ready ? "ready" : "not ready");
    jsonw_obj_end(&w);
    buf_putc(&resp->body, '\n');
    response_json(resp, ready ? 200 : 503);
}
