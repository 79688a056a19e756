/* fleet — one watcher and one poller per --cluster (fleet.h, docs/fleet.md). */
#include "service/fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/xalloc.h"
#include "ingest/poll_do.h"
#include "ingest/watch_k8s.h"
#include "service/app.h"
#include "service/config.h"
#include "source/kube_auth.h"

struct member {
    struct kube_conn kc;
    bool have_kc;
    struct watch_k8s *watcher;
    struct poll_do *poller;
};

struct fleet {
    struct member m[APP_MAX_CLUSTERS];
    int n;
};

void fleet_watch_options(struct watch_k8s_options *o, const struct config *cfg,
                         const struct kube_conn *conn, const char *cluster) {
    memset(o, 0, sizeof *o);
    o->api_url = conn->url;
    o->token_file = conn->token_file;
    o->ca_file = conn->ca_file;
    o->conn = conn;
    o->ns = cfg->kube_namespace;
    o->job_selector = cfg->job_selector;
    o->resync_seconds = cfg->poll_interval > 0 ? cfg->poll_interval : 60;
    o->max_response = cfg->max_response;
    o->cluster = cluster;
}

/* Resolves the cluster's context and starts its watcher; a failure is the
 * cluster's (ac->k8s_error), never the fleet's. */
static void start_watcher(const struct fleet_deps *d, struct member *m, struct app_cluster *ac,
                          const char *context) {
    const struct config *cfg = d->cfg;
    const struct kube_flags kf = {
        .kubeconfig = cfg->kubeconfig, .context = context, .insecure_ok = cfg->kube_insecure};
    char err[300];
    if (kube_conn_resolve(&kf, d->getenv_fn, &m->kc, err, sizeof err) != ERR_OK) {
        snprintf(ac->k8s_error, sizeof ac->k8s_error, "%s", err);
        kube_conn_release(&m->kc);
        return;
    }
    m->have_kc = true;
    if (!ac->do_cluster_id[0] && m->kc.doks_cluster_id[0])
        snprintf(ac->do_cluster_id, sizeof ac->do_cluster_id, "%s", m->kc.doks_cluster_id);
    struct watch_k8s_options o;
    fleet_watch_options(&o, cfg, &m->kc, ac->name);
    if (watch_k8s_new(&o, d->writer, d->writer_lock, &m->watcher) != ERR_OK ||
        watch_k8s_start(m->watcher) != ERR_OK) {
        snprintf(ac->k8s_error, sizeof ac->k8s_error, "cannot start the Kubernetes watcher");
        watch_k8s_free(m->watcher);
        m->watcher = NULL;
        return;
    }
    ac->k8s_enabled = true;
}

static void start_poller(const struct fleet_deps *d, struct member *m, struct app_cluster *ac,
                         struct app *app, bool first) {
    const struct config *cfg = d->cfg;
    struct poll_do_options po = {
        .api_url = cfg->do_api_url,
        .token = d->do_token,
        .cluster_id = ac->do_cluster_id,
        .cluster = ac->name,
        .no_billing = !first,
        .spot_pools = cfg->spot_pools,
        .n_spot_pools = cfg->n_spot_pools,
        .spot_labels = cfg->spot_labels,
        .n_spot_labels = cfg->n_spot_labels,
        .poll_interval = cfg->poll_interval,
        .billing_interval = cfg->billing_interval,
        .sizes_interval = cfg->sizes_interval,
        .http = {.max_response = cfg->max_response,
                 .rate_per_minute = app->do_rate_per_minute,
                 .rate_per_hour = app->do_rate_per_hour},
    };
    if (poll_do_new(&po, d->writer, d->writer_lock, &m->poller) != ERR_OK ||
        poll_do_start(m->poller) != ERR_OK) {
        snprintf(ac->do_error, sizeof ac->do_error, "cannot start the DigitalOcean poller");
        poll_do_free(m->poller);
        m->poller = NULL;
        return;
    }
    ac->do_enabled = true;
}

/* "Poll now" for every poller of the fleet (one app waker). */
static void wake_all(void *ctx) {
    struct fleet *f = ctx;
    for (int i = 0; i < f->n; i++)
        if (f->m[i].poller)
            poll_do_wake(f->m[i].poller);
}

/* The budget of the account's token divided among n pollers (at least 1 each). */
static int share(int budget, int n) {
    int each = n > 0 ? budget / n : budget;
    return each > 0 ? each : 1;
}

enum err fleet_start(const struct fleet_deps *d, struct app *app, struct fleet **out) {
    const struct config *cfg = d->cfg;
    struct fleet *f = xcalloc(1, sizeof *f);
    int n = cfg->n_clusters < APP_MAX_CLUSTERS ? cfg->n_clusters : APP_MAX_CLUSTERS;
    app->n_clusters = n;
    /* first the Kubernetes side: a context's DOKS URL may name its DO id */
    for (int i = 0; i < n; i++) {
        struct app_cluster *ac = &app->clusters[i];
        memset(ac, 0, sizeof *ac);
        snprintf(ac->name, sizeof ac->name, "%s", cfg->clusters[i].key);
        snprintf(ac->target, sizeof ac->target, "%s", cfg->clusters[i].value);
        struct config_cluster_target t;
        if (!config_cluster_target(cfg->clusters[i].value, &t)) /* checked by config_parse */
            continue;
        snprintf(ac->do_cluster_id, sizeof ac->do_cluster_id, "%s", t.do_id);
        if (!t.context[0])
            snprintf(ac->k8s_error, sizeof ac->k8s_error,
                     "a DigitalOcean cluster id alone: no Kubernetes watcher");
        else if (cfg->no_kube)
            snprintf(ac->k8s_error, sizeof ac->k8s_error, "--no-kube");
        else
            start_watcher(d, &f->m[i], ac, t.context);
        if (ac->k8s_enabled)
            app->k8s_enabled = true;
        else
            log_msg(LOG_WARN, "fleet: cluster '%s': no Kubernetes watcher: %s", ac->name,
                    ac->k8s_error);
    }
    f->n = n;
    /* then one poller per cluster with a DO id, sharing the token's budget */
    int pollers = 0;
    for (int i = 0; i < n && d->do_token; i++)
        pollers += app->clusters[i].do_cluster_id[0] != '\0';
    app->do_pollers = pollers;
    app->do_rate_per_minute = share(POLL_DO_RATE_PER_MINUTE, pollers);
    app->do_rate_per_hour = share(POLL_DO_RATE_PER_HOUR, pollers);
    bool first = true;
    for (int i = 0; i < n; i++) {
        struct app_cluster *ac = &app->clusters[i];
        if (!d->do_token) {
            snprintf(ac->do_error, sizeof ac->do_error, "no DigitalOcean token");
        } else if (!ac->do_cluster_id[0]) {
            snprintf(ac->do_error, sizeof ac->do_error,
                     "no DigitalOcean cluster id: the context's server is not a DOKS URL; pass "
                     "--cluster %s=CONTEXT@UUID",
                     cfg->clusters[i].key); /* not ac->name: same object as the destination */
        } else {
            start_poller(d, &f->m[i], ac, app, first);
            first = first && !ac->do_enabled;
        }
        if (ac->do_enabled)
            app->do_enabled = true;
        else
            log_msg(LOG_WARN, "fleet: cluster '%s': no DigitalOcean poller: %s", ac->name,
                    ac->do_error);
    }
    log_msg(LOG_INFO, "fleet: %d cluster%s, %d DigitalOcean poller%s sharing %d requests/h", n,
            n == 1 ? "" : "s", pollers, pollers == 1 ? "" : "s", POLL_DO_RATE_PER_HOUR);
    app_add_waker(app, wake_all, f);
    *out = f;
    return ERR_OK;
}

void fleet_free(struct fleet *f) {
    if (!f)
        return;
    for (int i = 0; i < f->n; i++) {
        watch_k8s_free(f->m[i].watcher); /* joins before the connection goes */
        poll_do_free(f->m[i].poller);
        if (f->m[i].have_kc)
            kube_conn_release(&f->m[i].kc);
    }
    free(f);
}
