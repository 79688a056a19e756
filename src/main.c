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
#include "service/check.h"
#include "service/config.h"
#include "service/daykeeper.h"
#include "service/exporter.h"
#include "service/fleet.h"
#include "source/do_clusters.h"
#include "source/do_token.h"
#include "source/kube_auth.h"
#include "base/log.h"
#include "base/stopsig.h"
#include "ingest/poll_do.h"
#include "http/server.h"
#include "store/store.h"
#include "ingest/watch_k8s.h"

static const char *real_getenv(const char *name) {
    return getenv(name);
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

/* The DigitalOcean token (source/do_token.h) into *tok, or NULL when none is
 * found and none was named (the pollers are off: logged). -1 (printed) when the
 * token named by --do-token-file or --doctl-config cannot be read. */
static int find_token(const struct config *cfg, char **tok) {
    char tsrc[700], err[1024];
    *tok = NULL;
    if (do_token_find(cfg->do_token_file, cfg->doctl_config, real_getenv, tok, tsrc, sizeof tsrc,
                      err, sizeof err) != ERR_OK) {
        *tok = NULL;
        if (cfg->do_token_file || cfg->doctl_config) {
            fprintf(stderr, "spotledger: %s\n", err);
            return -1;
        }
        log_msg(LOG_WARN, "main: DigitalOcean poller off: %s", err);
        return 0;
    }
    log_msg(LOG_INFO, "main: DigitalOcean token from %s", tsrc);
    return 0;
}

/* No --cluster-id: the DOKS server URL's, else stop naming the account's clusters.
 * 0 with *id set, -1 (printed) otherwise. */
static int find_cluster_id(const struct config *cfg, const struct kube_conn *kc, const char *tok,
                           const char **id) {
    *id = cfg->cluster_id;
    if (*id)
        return 0;
    if (kc && kc->doks_cluster_id[0]) {
        *id = kc->doks_cluster_id;
        log_msg(LOG_INFO, "main: cluster id %s from the DOKS API server URL", *id);
        return 0;
    }
    struct http_client *c = NULL;
    struct http_response resp;
    http_response_init(&resp);
    struct do_cluster_brief *cl = calloc(DO_CLUSTERS_MAX, sizeof *cl);
    int n = 0;
    char names[2048] = "";
    enum err rc = cl && http_client_new(NULL, &c) == ERR_OK
                      ? do_clusters_list(c, cfg->do_api_url, tok, cl, DO_CLUSTERS_MAX, &n, &resp)
                      : ERR_NOMEM;
    if (rc == ERR_OK) {
        do_clusters_describe(cl, n, names, sizeof names);
        fprintf(stderr, "spotledger: no --cluster-id; pass one of this account's clusters: %s\n",
                names);
    } else {
        fprintf(stderr,
                "spotledger: no --cluster-id, and the account's clusters cannot be listed (%s); "
                "pass --cluster-id UUID\n",
                resp.error[0] ? resp.error : err_str(rc));
    }
    free(cl);
    http_response_release(&resp);
    http_client_free(c);
    return -1;
}

int main(int argc, char **argv) {
    struct config cfg;
    char err[1024];
    bool check = argc > 1 && strcmp(argv[1], "check") == 0;
    if (check) {
        argv[1] = argv[0];
        argv++;
        argc--;
    }
    enum config_result cr = config_parse(&cfg, argc, argv, real_getenv, err, sizeof err);
    if (cr != CONFIG_OK) {
        if (cr == CONFIG_BAD)
            fprintf(stderr, "spotledger: %s\n", err);
        config_release(&cfg);
        return cr == CONFIG_EXIT ? 0 : 2;
    }
    if (check) {
        /* the report is the output: only warnings and worse go to the log */
        log_set_level(cfg.log_level > LOG_WARN ? cfg.log_level : LOG_WARN);
        curl_global_init(CURL_GLOBAL_ALL);
        int rc = check_run(&cfg, real_getenv, stdout);
        curl_global_cleanup();
        config_release(&cfg);
        return rc;
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
    sigset_t stop_set;
    stopsig_block(&stop_set);

    /* before any thread starts (docs/style.md curl 1) */
    curl_global_init(CURL_GLOBAL_ALL);

    int status = 1;
    struct store *db = NULL;
    struct server *srv = NULL;
    struct watch_k8s *k8s = NULL;
    struct poll_do *do_poller = NULL;
    struct exporter *exporter = NULL;
    struct daykeeper *keeper = NULL;
    struct fleet *fleet = NULL;
    int migrated = 0;
    struct kube_conn kc;
    memset(&kc, 0, sizeof kc);
    bool have_kc = false;
    if (store_open(cfg.db, STORE_WRITER, &db, &migrated) != ERR_OK) {
        fprintf(stderr, "spotledger: --db: cannot open '%s'\n", cfg.db);
        goto out;
    }
    app.writer = db;
    log_msg(LOG_INFO, "main: database '%s' ready (%d migration%s applied)", cfg.db, migrated,
            migrated == 1 ? "" : "s");

    if (cfg.n_clusters > 0) {
        /* a fleet (docs/fleet.md): a cluster that cannot start says why in
         * /api/v1/status and never stops the others */
        char *tok = NULL;
        if (find_token(&cfg, &tok) != 0)
            goto out;
        struct fleet_deps fd = {.cfg = &cfg,
                                .getenv_fn = real_getenv,
                                .writer = db,
                                .writer_lock = &app.writer_lock,
                                .do_token = tok};
        enum err frc = fleet_start(&fd, &app, &fleet);
        free_secret(tok); /* each poller keeps its own copy */
        if (frc != ERR_OK) {
            fprintf(stderr, "spotledger: cannot start the fleet\n");
            goto out;
        }
        goto serve;
    }

    /* Kubernetes watcher (before the server reads app): in-cluster or --kube-api-url
     * (config_check_kube made sure one is there), none with --no-kube */
    struct watch_k8s_options ko;
    const struct kube_flags kf = {.api_url = cfg.kube_api_url,
                                  .token_file = cfg.kube_token_file,
                                  .ca_file = cfg.kube_ca_file,
                                  .kubeconfig = cfg.kubeconfig,
                                  .context = cfg.kube_context,
                                  .insecure_ok = cfg.kube_insecure};
    if (cfg.no_kube) {
        log_msg(LOG_INFO, "main: --no-kube: DigitalOcean only, no Kubernetes watcher");
    } else if (kube_conn_resolve(&kf, real_getenv, &kc, err, sizeof err) != ERR_OK) {
        fprintf(stderr, "spotledger: %s\n", err);
        goto out;
    } else {
        have_kc = true;
        fleet_watch_options(&ko, &cfg, &kc, NULL);
        if (watch_k8s_new(&ko, db, &app.writer_lock, &k8s) != ERR_OK ||
            watch_k8s_start(k8s) != ERR_OK) {
            fprintf(stderr, "spotledger: cannot start the Kubernetes watcher\n");
            goto out;
        }
        app.k8s_enabled = true;
    }

    /* DigitalOcean poller: needs a token (source/do_token.h) and a cluster */
    char *tok = NULL;
    const char *cluster_id = NULL;
    if (find_token(&cfg, &tok) != 0) {
        goto out;
    } else if (!tok) {
        /* no token: find_token said why */
    } else if (find_cluster_id(&cfg, have_kc ? &kc : NULL, tok, &cluster_id) != 0) {
        free_secret(tok);
        goto out;
    } else {
        struct poll_do_options po = {
            .api_url = cfg.do_api_url,
            .token = tok,
            .cluster_id = cluster_id,
            .spot_pools = cfg.spot_pools,
            .n_spot_pools = cfg.n_spot_pools,
            .spot_labels = cfg.spot_labels,
            .n_spot_labels = cfg.n_spot_labels,
            .poll_interval = cfg.poll_interval,
            .billing_interval = cfg.billing_interval,
            .sizes_interval = cfg.sizes_interval,
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
    /* the single cluster, for /api/v1/status's per-cluster view */
    app.n_clusters = 1;
    snprintf(app.clusters[0].name, sizeof app.clusters[0].name, "%s", STORE_DEFAULT_CLUSTER);
    snprintf(app.clusters[0].do_cluster_id, sizeof app.clusters[0].do_cluster_id, "%s",
             cluster_id ? cluster_id : "");
    app.clusters[0].k8s_enabled = app.k8s_enabled;
    app.clusters[0].do_enabled = app.do_enabled;
    app.do_pollers = app.do_enabled ? 1 : 0;
    app.do_rate_per_minute = POLL_DO_RATE_PER_MINUTE;
    app.do_rate_per_hour = POLL_DO_RATE_PER_HOUR;

serve:

    if (cfg.export_dir && export_start(&app, cfg.db, cfg.export_dir, &exporter) != ERR_OK) {
        fprintf(stderr, "spotledger: --export-dir: cannot use '%s'\n", cfg.export_dir);
        goto out;
    }

    /* closed days' partial sums, kept off the request path (docs/performance.md) */
    if (cfg.compose_days && daykeeper_start(&app, cfg.db, &keeper) != ERR_OK) {
        fprintf(stderr, "spotledger: cannot start the closed days' background pass\n");
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
    fleet_free(fleet);
    export_stop(exporter);
    daykeeper_stop(keeper); /* before the writer closes */
    store_free(db);
    kube_conn_release(&kc); /* after the watcher: it borrowed kc */
    curl_global_cleanup();
    free_secret(app.api_token);
    free_secret(app.admin_token);
    config_release(&cfg);
    app_release(&app);
    return status;
}
