/* config — command-line flags and environment, validated once at start-up.
 *
 * Every flag --name has an environment twin SPOTLEDGER_NAME (dashes become
 * underscores); flags win over the environment. Where the DigitalOcean token
 * comes from (DIGITALOCEAN_TOKEN, doctl's config, ...) is source/do_token.h's
 * concern, where the Kubernetes API is source/kube_auth.h's. Secrets are never stored in the config
 * itself, only the paths to them; secret_read() loads one when needed. Nothing here is ever printed
 * except by config_usage().
 *
 * Thread rule: built in main() before any thread starts, read-only afterwards
 * (the one allowed global snapshot). */
#ifndef SPOTLEDGER_CONFIG_H
#define SPOTLEDGER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "base/log.h"
#include "base/secret.h"
#include "model/settings.h"

#define CONFIG_MAX_LIST 32

enum config_result {
    CONFIG_OK,   /* run the service */
    CONFIG_EXIT, /* --help or --version was asked: exit 0 */
    CONFIG_BAD,  /* invalid: print err, exit 2 */
};

struct config {
    char *listen; /* "127.0.0.1:8080" */
    char *listen_host;
    uint16_t listen_port; /* 0 = any free port */
    char *db;
    char *do_api_url;
    char *do_token_file;
    char *doctl_config; /* doctl's config.yaml (NULL: ~/.config/doctl/config.yaml) */
    char *cluster_id;
    /* --cluster NAME=TARGET (repeatable; docs/fleet.md): a fleet of clusters
     * instead of the single-cluster flags. key = NAME, value = TARGET: a
     * kubeconfig context, CONTEXT@UUID (a context and its DigitalOcean cluster
     * id), or a DigitalOcean cluster id alone (DigitalOcean only, no watcher). */
    struct config_pair clusters[CONFIG_MAX_LIST];
    int n_clusters;
    char *kubeconfig;   /* --kubeconfig PATH[:PATH...] */
    char *kube_context; /* --kube-context */
    bool kube_insecure; /* --kube-insecure */
    char *kube_api_url;
    char *kube_token_file;
    char *kube_ca_file;
    char *kube_namespace;
    char *job_selector;
    bool kube_in_cluster; /* no --kube-api-url: use the service account */
    bool no_kube;         /* --no-kube: DigitalOcean only, no Kubernetes watcher */
    bool compose_days;    /* compose windows from kept days (on; off: --no-compose-days) */
    bool no_compose_days; /* --no-compose-days */
    int poll_interval;    /* seconds, node pools and Kubernetes resync */
    int billing_interval; /* seconds */
    int sizes_interval;   /* seconds between /v2/sizes reads (list prices) */
    char *export_dir;     /* NULL: no weekly export */
    char *api_token_file;
    char *admin_token_file;
    bool metrics_open;
    char *default_configuration; /* "spot", "fallback" or "on-demand" */
    char *spot_pools[CONFIG_MAX_LIST];
    int n_spot_pools;
    struct config_pair spot_labels[CONFIG_MAX_LIST];
    int n_spot_labels;
    struct config_pair on_demand_sizes[CONFIG_MAX_LIST];
    int n_on_demand_sizes;
    char *ignore_advice[CONFIG_MAX_LIST];
    int n_ignore_advice;
    char *web_dir;
    char *vendor_dir; /* Chart.js and friends from Debian packages */
    enum log_level log_level;
    size_t max_body;     /* request body cap, bytes */
    size_t max_response; /* upstream response cap, bytes */
};

/* Parses argv (argv[0] skipped) and the environment through getenv_fn (getenv in
 * production; a fake in tests). On CONFIG_BAD, err holds one line naming the flag.
 * cfg is always left in a state config_release can free. */
enum config_result config_parse(struct config *cfg, int argc, char **argv,
                                const char *(*getenv_fn)(const char *name), char *err,
                                size_t errlen);
void config_release(struct config *cfg);
void config_usage(FILE *f);

/* Start-up rule for Kubernetes (README "Running it"): with --no-kube nothing
 * to check; otherwise --kube-api-url, --kubeconfig, KUBECONFIG, the in-cluster
 * service account (KUBERNETES_SERVICE_HOST) or ~/.kube/config (read through
 * getenv_fn) must be there. CONFIG_BAD
 * with one line naming what to pass when neither is. */
enum config_result config_check_kube(const struct config *cfg,
                                     const char *(*getenv_fn)(const char *name), char *err,
                                     size_t errlen);

#define CONFIG_CLUSTER_NAME_MAX 63 /* bytes of a --cluster NAME */

/* What a --cluster TARGET names (docs/fleet.md). */
struct config_cluster_target {
    char context[256]; /* kubeconfig context; "" = none (a cluster id alone) */
    char do_id[37];    /* DigitalOcean cluster id; "" = from the context's DOKS URL */
};
/* Splits TARGET: a UUID alone is a DigitalOcean cluster id; "CONTEXT@UUID" (the
 * last '@' followed by a UUID) a context and its id; anything else a context.
 * false when the context does not fit. */
bool config_cluster_target(const char *target, struct config_cluster_target *out);
/* True when s is a UUID (8-4-4-4-12 hex digits). */
bool config_is_uuid(const char *s);

/* True when the host is a loopback address (127.0.0.0/8, ::1, localhost). */
bool config_host_is_loopback(const char *host);

#define CONFIG_MIN_TOKEN_LEN 16
/* Checks a loaded API token (flag names it in the message): on a non-loopback
 * --listen it must hold at least CONFIG_MIN_TOKEN_LEN bytes. CONFIG_BAD with one
 * line in err otherwise; NULL token (not configured) is CONFIG_OK. */
enum config_result config_check_token(const struct config *cfg, const char *flag, const char *token,
                                      char *err, size_t errlen);

#endif
