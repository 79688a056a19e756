/* main — wiring only: configuration, signals, store, server, pollers. */
#include <curl/curl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service/app.h"
#include "service/config.h"
#include "service/exporter.h"
#include "source/kube_auth.h"
#include "base/log.h"
#include "ingest/poll_do.h"
#include "http/server.h"
#include "store/store.h"
#include "ingest/watch_k8s.h"

static const char *real_getenv(const char *name) {
    return getenv(name);
}

/* The watcher's options from the flags and the resolved connection (borrowed:
 * they must outlive watch_k8s_new, which copies what it keeps). */
static void watch_k8s_options_from_config(struct watch_k8s_options *o, const struct config *cfg,
                                          const struct kube_conn *conn) {
    memset(o, 0, sizeof *o);
    o->api_url = conn->url;
    o->token_file = conn->token_file;
    o->ca_file = conn->ca_file;
    o->ns = cfg->kube_namespace;
    o->job_selector = cfg->job_selector;
    o->resync_seconds = cfg->poll_interval > 0 ? cfg->poll_interval : 60;
    o->max_response = cfg->max_response;
}

static void free_secret(char *s) {
    if (s) {
        memset(s, 0, strlen(s));
        free(s);
    }
}

static int load_token(const char *flag, const char *path, char **out) {
    if (!path)
        return 0;
    enum err rc = secret_read(path, out);
    if (rc != ERR_OK) {
        fprintf(stderr, "spotledger: --%s: cannot read '%s': %s\n", flag, path,
                rc == ERR_INVAL ? "file is empty" : err_str(rc));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    struct config cfg;
    char err[512];
    enum config_result cr = config_parse(&cfg, argc, argv, real_getenv, err, sizeof err);
    if (cr != CONFIG_OK) {
        if (cr == CONFIG_BAD)
            fprintf(stderr, "spotledger: %s\n", err);
        config_release(&cfg);
        return cr == CONFIG_EXIT ? 0 : 2;
    }
    if (config_check_kube(&cfg, real_getenv, err, sizeof err) != CONFIG_OK) {
        fprintf(stderr, "spotledger: %s\n", err);
        config_release(&cfg);
        return 2;
    }
    log_set_level(cfg.log_level);
#ifdef __GLIBC__
    /* A window's rows are a few large arrays, freed after each request: keep them
     * in mmap'd chunks that go back to the system (a fixed threshold stops glibc
     * from raising it after the first free), and few arenas for the server's
     * threads, so resident memory follows the current request, not the largest
     * one ever served (mallopt(3)). */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_ARENA_MAX, 2);
#endif

    struct app app;
    memset(&app, 0, sizeof app);
    app_init(&app);
    app_use_config(&app, &cfg);
    app.started_at = (int64_t)time(NULL);
    if (load_token("api-token-file", cfg.api_token_file, &app.api_token) != 0 ||
        load_token("admin-token-file", cfg.admin_token_file, &app.admin_token) != 0) {
        free_secret(app.api_token);
        config_release(&cfg);
        app_release(&app);
        return 2;
    }
    if (config_check_token(&cfg, "api-token-file", app.api_token, err, sizeof err) != CONFIG_OK ||
        config_check_token(&cfg, "admin-token-file", app.admin_token, err, sizeof err) !=
            CONFIG_OK) {
        fprintf(stderr, "spotledger: %s\n", err);
        free_secret(app.api_token);
        free_secret(app.admin_token);
        config_release(&cfg);
        app_release(&app);
        return 2;
    }

    /* signals: SIGPIPE ignored (MHD and curl leave it to us); SIGTERM/SIGINT are
     * blocked in every thread and collected by sigwait below */
    signal(SIGPIPE, SIG_IGN);
    sigset_t stop_set;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGTERM);
    sigaddset(&stop_set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_set, NULL);

    /* before any thread starts (STYLE.md curl 1) */
    curl_global_init(CURL_GLOBAL_ALL);

    int status = 1;
    struct store *db = NULL;
    struct server *srv = NULL;
    struct watch_k8s *k8s = NULL;
    struct poll_do *do_poller = NULL;
    struct exporter *exporter = NULL;
    int migrated = 0;
    if (store_open(cfg.db, STORE_WRITER, &db, &migrated) != ERR_OK) {
        fprintf(stderr, "spotledger: --db: cannot open '%s'\n", cfg.db);
        goto out;
    }
    app.writer = db;
    log_msg(LOG_INFO, "main: database '%s' ready (%d migration%s applied)", cfg.db, migrated,
            migrated == 1 ? "" : "s");

    /* Kubernetes watcher (before the server reads app): in-cluster or --kube-api-url
     * (config_check_kube made sure one is there), none with --no-kube */
    struct kube_conn kc;
    struct watch_k8s_options ko;
    const struct kube_flags kf = {.api_url = cfg.kube_api_url,
                                  .token_file = cfg.kube_token_file,
                                  .ca_file = cfg.kube_ca_file,
                                  .in_cluster = cfg.kube_in_cluster};
    if (cfg.no_kube) {
        log_msg(LOG_INFO, "main: --no-kube: DigitalOcean only, no Kubernetes watcher");
    } else if (kube_conn_resolve(&kf, real_getenv, &kc, err, sizeof err) != ERR_OK) {
        fprintf(stderr, "spotledger: %s\n", err);
        goto out;
    } else {
        watch_k8s_options_from_config(&ko, &cfg, &kc);
        if (watch_k8s_new(&ko, db, &app.writer_lock, &k8s) != ERR_OK ||
            watch_k8s_start(k8s) != ERR_OK) {
            fprintf(stderr, "spotledger: cannot start the Kubernetes watcher\n");
            goto out;
        }
        app.k8s_enabled = true;
    }

    /* DigitalOcean poller: needs a cluster and a token (file, else DIGITALOCEAN_TOKEN) */
    if (cfg.cluster_id && (cfg.do_token_file || cfg.do_token_from_env)) {
        char *tok = NULL;
        if (cfg.do_token_file) {
            if (load_token("do-token-file", cfg.do_token_file, &tok) != 0)
                goto out;
        } else {
            tok = strdup(getenv("DIGITALOCEAN_TOKEN"));
        }
        struct poll_do_options po = {
            .api_url = cfg.do_api_url,
            .token = tok,
            .cluster_id = cfg.cluster_id,
            .spot_pools = cfg.spot_pools,
            .n_spot_pools = cfg.n_spot_pools,
            .spot_labels = cfg.spot_labels,
            .n_spot_labels = cfg.n_spot_labels,
            .poll_interval = cfg.poll_interval,
            .billing_interval = cfg.billing_interval,
            .http = {.max_response = cfg.max_response},
        };
        enum err prc = tok ? poll_do_new(&po, db, &app.writer_lock, &do_poller) : ERR_NOMEM;
        free_secret(tok);
        if (prc != ERR_OK || poll_do_start(do_poller) != ERR_OK) {
            fprintf(stderr, "spotledger: cannot start the DigitalOcean poller\n");
            goto out;
        }
        app.do_enabled = true;
        app_add_waker(&app, poll_do_wake, do_poller);
    }

    if (cfg.export_dir && export_start(&app, cfg.db, cfg.export_dir, &exporter) != ERR_OK) {
        fprintf(stderr, "spotledger: --export-dir: cannot use '%s'\n", cfg.export_dir);
        goto out;
    }

    struct server_options so = {
        .host = cfg.listen_host,
        .port = cfg.listen_port,
        .db_path = cfg.db,
        .max_body = cfg.max_body,
        .threads = 4,
        .app = &app,
    };
    if (server_start(&so, &srv) != ERR_OK) {
        fprintf(stderr, "spotledger: --listen: cannot serve on '%s'\n", cfg.listen);
        goto out;
    }
    log_msg(LOG_INFO, "main: listening on http://%s:%u/", cfg.listen_host,
            (unsigned)server_port(srv));
    /* machine-readable line for scripts that started us on port 0 */
    printf("spotledger: listening on %s:%u\n", cfg.listen_host, (unsigned)server_port(srv));
    fflush(stdout);

    int sig = 0;
    sigwait(&stop_set, &sig);
    log_msg(LOG_INFO, "main: %s received, stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
    status = 0;

out:
    app_stop(&app);
    watch_k8s_free(k8s); /* joins its threads before the writer closes */
    server_stop(srv, 1500);
    poll_do_free(do_poller); /* stops and joins before the store closes */
    export_stop(exporter);
    store_free(db);
    curl_global_cleanup();
    free_secret(app.api_token);
    free_secret(app.admin_token);
    config_release(&cfg);
    app_release(&app);
    return status;
}
