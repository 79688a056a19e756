#include "service/config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/xalloc.h"

enum opt_kind { OPT_STR, OPT_INT, OPT_BOOL, OPT_LIST, OPT_PAIRS, OPT_HELP, OPT_VERSION };

struct opt {
    const char *name; /* without the leading "--" */
    enum opt_kind kind;
    size_t offset;    /* into struct config */
    size_t count_off; /* OPT_LIST / OPT_PAIRS: the counter */
    const char *arg;
    const char *help;
};

#define OFF(f) offsetof(struct config, f)

static const struct opt opts[] = {
    {"listen", OPT_STR, OFF(listen), 0, "HOST:PORT", "address to serve on (127.0.0.1:8080)"},
    {"db", OPT_STR, OFF(db), 0, "PATH", "SQLite database (./spotledger.db)"},
    {"do-api-url", OPT_STR, OFF(do_api_url), 0, "URL",
     "DigitalOcean API (https://api.digitalocean.com)"},
    {"do-token-file", OPT_STR, OFF(do_token_file), 0, "PATH",
     "DigitalOcean token file (else DIGITALOCEAN_TOKEN, DIGITALOCEAN_ACCESS_TOKEN, doctl)"},
    {"doctl-config", OPT_STR, OFF(doctl_config), 0, "PATH",
     "doctl's config for the token (~/.config/doctl/config.yaml)"},
    {"cluster-id", OPT_STR, OFF(cluster_id), 0, "UUID",
     "DOKS cluster to watch (from a DOKS kubeconfig server URL)"},
    {"cluster", OPT_PAIRS, OFF(clusters), OFF(n_clusters), "NAME=CONTEXT_OR_ID",
     "one cluster of a fleet: kubeconfig context, CONTEXT@UUID or DO cluster id (repeatable)"},
    {"kubeconfig", OPT_STR, OFF(kubeconfig), 0, "PATH[:PATH]",
     "kubeconfig file(s) (KUBECONFIG, else in-cluster, else ~/.kube/config)"},
    {"kube-context", OPT_STR, OFF(kube_context), 0, "NAME",
     "kubeconfig context (its current-context)"},
    {"kube-insecure", OPT_BOOL, OFF(kube_insecure), 0, NULL,
     "accept insecure-skip-tls-verify from the kubeconfig (warned)"},
    {"kube-api-url", OPT_STR, OFF(kube_api_url), 0, "URL",
     "Kubernetes API, instead of a kubeconfig"},
    {"kube-token-file", OPT_STR, OFF(kube_token_file), 0, "PATH",
     "Kubernetes bearer token file (re-read when it changes)"},
    {"kube-ca-file", OPT_STR, OFF(kube_ca_file), 0, "PATH", "CA bundle for the Kubernetes API"},
    {"compose-days", OPT_BOOL, OFF(compose_days), 0, NULL,
     "answer windows of 2+ days from kept closed days' partial sums (the default; "
     "docs/performance.md)"},
    {"no-compose-days", OPT_BOOL, OFF(no_compose_days), 0, NULL,
     "compute every window directly: no closed days kept or composed"},
    {"no-kube", OPT_BOOL, OFF(no_kube), 0, NULL,
     "no Kubernetes watcher: account DigitalOcean only (the dashboard says so)"},
    {"kube-namespace", OPT_STR, OFF(kube_namespace), 0, "NS", "watch one namespace only"},
    {"job-selector", OPT_STR, OFF(job_selector), 0, "SELECTOR", "label selector for Jobs"},
    {"poll-interval", OPT_INT, OFF(poll_interval), 0, "SECONDS",
     "node pool poll and resync interval (60)"},
    {"billing-interval", OPT_INT, OFF(billing_interval), 0, "SECONDS",
     "billing poll interval (3600)"},
    {"sizes-interval", OPT_INT, OFF(sizes_interval), 0, "SECONDS",
     "list price (/v2/sizes) poll interval (900)"},
    {"export-dir", OPT_STR, OFF(export_dir), 0, "DIR", "write weekly CSV files here"},
    {"api-token-file", OPT_STR, OFF(api_token_file), 0, "PATH",
     "read token for the dashboard, API and CSV"},
    {"admin-token-file", OPT_STR, OFF(admin_token_file), 0, "PATH",
     "admin token (poll now, re-export)"},
    {"metrics-open", OPT_BOOL, OFF(metrics_open), 0, NULL, "serve /metrics without a token"},
    {"default-configuration", OPT_STR, OFF(default_configuration), 0, "NAME",
     "configuration of unlabelled Jobs: spot|fallback|on-demand (fallback)"},
    {"spot-pool", OPT_LIST, OFF(spot_pools), OFF(n_spot_pools), "POOL_ID",
     "treat this node pool as spot (repeatable)"},
    {"spot-label", OPT_PAIRS, OFF(spot_labels), OFF(n_spot_labels), "KEY=VALUE",
     "a label marking spot pools/nodes (repeatable)"},
    {"on-demand-size", OPT_PAIRS, OFF(on_demand_sizes), OFF(n_on_demand_sizes), "SPOT=OD",
     "On-Demand size matching a spot size (repeatable)"},
    {"ignore-advice", OPT_LIST, OFF(ignore_advice), OFF(n_ignore_advice), "RULE[:POOL]",
     "silence an advisor rule (repeatable)"},
    {"web-dir", OPT_STR, OFF(web_dir), 0, "DIR", "dashboard files (web/)"},
    {"vendor-dir", OPT_STR, OFF(vendor_dir), 0, "DIR",
     "served under /vendor/ (/usr/share/javascript)"},
    {"log-level", OPT_STR, 0, 0, "LEVEL", "debug|info|warn|error (info)"},
    {"help", OPT_HELP, 0, 0, NULL, "show this help and exit"},
    {"version", OPT_VERSION, 0, 0, NULL, "show the version and exit"},
};
#define NOPTS (sizeof opts / sizeof opts[0])

void config_usage(FILE *f) {
    fprintf(f, "usage: spotledger [OPTIONS]\n"
               "       spotledger check [OPTIONS]   (can these settings work? exit 0 if so)\n\n"
               "Cost per successful task on DOKS Spot, Spot+fallback and On-Demand.\n"
               "Every --flag also reads SPOTLEDGER_FLAG from the environment; flags win.\n\n");
    for (size_t i = 0; i < NOPTS; i++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", opts[i].name, opts[i].arg ? " " : "",
                 opts[i].arg ? opts[i].arg : "");
        fprintf(f, "  %-34s %s\n", left, opts[i].help);
    }
}

static void errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static void set_str(char **slot, const char *v) {
    free(*slot);
    *slot = xstrdup(v);
}

static bool parse_int(const char *v, long min, long max, long *out) {
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < min || n > max)
        return false;
    *out = n;
    return true;
}

static bool parse_pair(const char *v, char sep, struct config_pair *p) {
    const char *eq = strchr(v, sep);
    if (!eq || eq == v || !eq[1])
        return false;
    p->key = xstrndup(v, (size_t)(eq - v));
    p->value = xstrdup(eq + 1);
    return true;
}

/* Applies one option value. from_env: values of list options from the env are
 * comma-separated. */
static enum config_result apply(struct config *cfg, const struct opt *o, const char *v,
                                bool from_env, char *err, size_t errlen) {
    char *base = (char *)cfg;
    switch (o->kind) {
    case OPT_STR:
        if (strcmp(o->name, "log-level") == 0) {
            if (log_level_parse(v, &cfg->log_level) != ERR_OK) {
                errf(err, errlen, "--log-level: expected debug|info|warn|error, got '%s'", v);
                return CONFIG_BAD;
            }
            return CONFIG_OK;
        }
        if (!*v) {
            errf(err, errlen, "--%s: empty value", o->name);
            return CONFIG_BAD;
        }
        set_str((char **)(base + o->offset), v);
        return CONFIG_OK;
    case OPT_INT: {
        long n;
        if (!parse_int(v, 1, 86400 * 7, &n)) {
            errf(err, errlen, "--%s: expected a whole number of seconds (1..604800), got '%s'",
                 o->name, v);
            return CONFIG_BAD;
        }
        *(int *)(base + o->offset) = (int)n;
        return CONFIG_OK;
    }
    case OPT_BOOL:
        if (!from_env || !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes")) {
            *(bool *)(base + o->offset) = true;
        } else if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no") || !*v) {
            *(bool *)(base + o->offset) = false;
        } else {
            errf(err, errlen, "--%s: expected true or false, got '%s'", o->name, v);
            return CONFIG_BAD;
        }
        return CONFIG_OK;
    case OPT_LIST:
    case OPT_PAIRS: {
        int *count = (int *)(base + o->count_off);
        char *copy = xstrdup(v);
        char *item = copy;
        enum config_result r = CONFIG_OK;
        /* one value from a flag; comma-separated values from the environment */
        for (;;) {
            char *next = from_env ? strchr(item, ',') : NULL;
            if (next)
                *next = '\0';
            if (*item) {
                if (*count >= CONFIG_MAX_LIST) {
                    errf(err, errlen, "--%s: at most %d values", o->name, CONFIG_MAX_LIST);
                    r = CONFIG_BAD;
                    break;
                }
                if (o->kind == OPT_LIST) {
                    ((char **)(base + o->offset))[(*count)++] = xstrdup(item);
                } else {
                    struct config_pair *p = (struct config_pair *)(base + o->offset) + *count;
                    if (!parse_pair(item, '=', p)) {
                        errf(err, errlen, "--%s: expected %s, got '%s'", o->name, o->arg, item);
                        r = CONFIG_BAD;
                        break;
                    }
                    (*count)++;
                }
            }
            if (!next)
                break;
            item = next + 1;
        }
        free(copy);
        return r;
    }
    case OPT_HELP:
    case OPT_VERSION:
        return CONFIG_EXIT;
    }
    return CONFIG_BAD;
}

static const struct opt *find_opt(const char *name, size_t len) {
    for (size_t i = 0; i < NOPTS; i++)
        if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
            return &opts[i];
    return NULL;
}

bool config_host_is_loopback(const char *host) {
    if (strcmp(host, "localhost") == 0 || strcmp(host, "::1") == 0 || strcmp(host, "[::1]") == 0)
        return true;
    struct in_addr a;
    return inet_pton(AF_INET, host, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

static enum config_result split_listen(struct config *cfg, char *err, size_t errlen) {
    const char *l = cfg->listen;
    const char *colon = strrchr(l, ':');
    long port;
    if (!colon || colon == l || !parse_int(colon + 1, 0, 65535, &port)) {
        errf(err, errlen, "--listen: expected HOST:PORT (e.g. 127.0.0.1:8080), got '%s'", l);
        return CONFIG_BAD;
    }
    free(cfg->listen_host);
    if (l[0] == '[' && colon[-1] == ']')
        cfg->listen_host = xstrndup(l + 1, (size_t)(colon - l - 2));
    else
        cfg->listen_host = xstrndup(l, (size_t)(colon - l));
    cfg->listen_port = (uint16_t)port;
    return CONFIG_OK;
}

bool config_is_uuid(const char *s) {
    static const char pat[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
    for (size_t i = 0; i < sizeof pat - 1; i++) {
        if (pat[i] == '-' ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
            return false;
    }
    return s[sizeof pat - 1] == '\0';
}

bool config_cluster_target(const char *target, struct config_cluster_target *out) {
    memset(out, 0, sizeof *out);
    if (config_is_uuid(target)) {
        snprintf(out->do_id, sizeof out->do_id, "%s", target);
        return true;
    }
    const char *at = strrchr(target, '@');
    size_t clen = strlen(target);
    if (at && at != target && config_is_uuid(at + 1)) {
        snprintf(out->do_id, sizeof out->do_id, "%s", at + 1);
        clen = (size_t)(at - target);
    }
    if (clen >= sizeof out->context)
        return false;
    memcpy(out->context, target, clen);
    out->context[clen] = '\0';
    return true;
}

/* --cluster: names of letters, digits, '.', '_' and '-', unique; targets that
 * parse; none of the single-cluster connection flags beside them. */
static enum config_result check_clusters(const struct config *cfg, char *err, size_t errlen) {
    if (cfg->n_clusters == 0)
        return CONFIG_OK;
    const char *single = cfg->cluster_id        ? "cluster-id"
                         : cfg->kube_context    ? "kube-context"
                         : cfg->kube_api_url    ? "kube-api-url"
                         : cfg->kube_token_file ? "kube-token-file"
                         : cfg->kube_ca_file    ? "kube-ca-file"
                                                : NULL;
    if (single) {
        errf(err, errlen,
             "--cluster: conflicts with --%s (a single-cluster flag); name each cluster's "
             "context or id in its --cluster",
             single);
        return CONFIG_BAD;
    }
    for (int i = 0; i < cfg->n_clusters; i++) {
        const char *name = cfg->clusters[i].key;
        size_t n = strlen(name);
        bool ok = n > 0 && n <= CONFIG_CLUSTER_NAME_MAX;
        for (size_t j = 0; ok && j < n; j++)
            ok = isalnum((unsigned char)name[j]) || strchr("._-", name[j]);
        if (!ok) {
            errf(err, errlen,
                 "--cluster: name '%.80s': expected 1 to %d letters, digits, '.', '_' or '-'", name,
                 CONFIG_CLUSTER_NAME_MAX);
            return CONFIG_BAD;
        }
        for (int j = 0; j < i; j++) {
            if (strcmp(cfg->clusters[j].key, name) == 0) {
                errf(err, errlen, "--cluster: '%s' is named twice", name);
                return CONFIG_BAD;
            }
        }
        struct config_cluster_target t;
        if (!config_cluster_target(cfg->clusters[i].value, &t)) {
            errf(err, errlen, "--cluster %s: the context name is too long", name);
            return CONFIG_BAD;
        }
    }
    return CONFIG_OK;
}

static void set_defaults(struct config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->listen = xstrdup("127.0.0.1:8080");
    cfg->db = xstrdup("./spotledger.db");
    cfg->do_api_url = xstrdup("https://api.digitalocean.com");
    cfg->poll_interval = 60;
    cfg->billing_interval = 3600;
    cfg->sizes_interval = 900;
    cfg->default_configuration = xstrdup("fallback");
    cfg->web_dir = xstrdup("web");
    cfg->vendor_dir = xstrdup("/usr/share/javascript");
    cfg->log_level = LOG_INFO;
    cfg->max_body = 64 * 1024;
    cfg->max_response = 64 * 1024 * 1024;
    cfg->compose_days = true;
}

enum config_result config_parse(struct config *cfg, int argc, char **argv,
                                const char *(*getenv_fn)(const char *name), char *err,
                                size_t errlen) {
    set_defaults(cfg);
    err[0] = '\0';
    bool seen[NOPTS] = {false};
    enum config_result r;

    /* flags first, remembering which were given, so env only fills the rest */
    struct {
        const struct opt *o;
        const char *v;
    } given[256];
    int ngiven = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0) {
            errf(err, errlen, "unexpected argument '%s' (see --help)", a);
            return CONFIG_BAD;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const struct opt *o = find_opt(name, nlen);
        if (!o) {
            errf(err, errlen, "unknown flag '--%.*s' (see --help)", (int)(nlen > 64 ? 64 : nlen),
                 name);
            return CONFIG_BAD;
        }
        if (o->kind == OPT_HELP) {
            config_usage(stdout);
            return CONFIG_EXIT;
        }
        if (o->kind == OPT_VERSION) {
            printf("spotledger %s\n", SPOTLEDGER_VERSION);
            return CONFIG_EXIT;
        }
        const char *v;
        if (o->kind == OPT_BOOL) {
            if (eq) {
                errf(err, errlen, "--%s takes no value", o->name);
                return CONFIG_BAD;
            }
            v = "1";
        } else if (eq) {
            v = eq + 1;
        } else if (i + 1 < argc) {
            v = argv[++i];
        } else {
            errf(err, errlen, "--%s needs a value (%s)", o->name, o->arg);
            return CONFIG_BAD;
        }
        if (ngiven >= 256) {
            errf(err, errlen, "too many arguments");
            return CONFIG_BAD;
        }
        given[ngiven].o = o;
        given[ngiven].v = v;
        ngiven++;
        seen[o - opts] = true;
    }
    for (size_t i = 0; i < NOPTS; i++) {
        if (seen[i] || opts[i].kind == OPT_HELP || opts[i].kind == OPT_VERSION)
            continue;
        char env[64] = "SPOTLEDGER_";
        size_t n = strlen(env);
        for (const char *p = opts[i].name; *p && n < sizeof env - 1; p++)
            env[n++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
        env[n] = '\0';
        const char *v = getenv_fn(env);
        if (v && (r = apply(cfg, &opts[i], v, true, err, errlen)) != CONFIG_OK) {
            /* name the variable rather than the flag */
            char tmp[512];
            snprintf(tmp, sizeof tmp, "%s (from %s)", err, env);
            snprintf(err, errlen, "%s", tmp);
            return CONFIG_BAD;
        }
    }
    for (int i = 0; i < ngiven; i++)
        if ((r = apply(cfg, given[i].o, given[i].v, false, err, errlen)) != CONFIG_OK)
            return r;

    if ((r = split_listen(cfg, err, errlen)) != CONFIG_OK)
        return r;
    const char *dc = cfg->default_configuration;
    if (strcmp(dc, "spot") && strcmp(dc, "fallback") && strcmp(dc, "on-demand")) {
        errf(err, errlen, "--default-configuration: expected spot|fallback|on-demand, got '%s'",
             dc);
        return CONFIG_BAD;
    }
    if (strncmp(cfg->do_api_url, "http://", 7) && strncmp(cfg->do_api_url, "https://", 8)) {
        errf(err, errlen, "--do-api-url: expected an http:// or https:// URL, got '%s'",
             cfg->do_api_url);
        return CONFIG_BAD;
    }
    if (cfg->kube_api_url && strncmp(cfg->kube_api_url, "http://", 7) &&
        strncmp(cfg->kube_api_url, "https://", 8)) {
        errf(err, errlen, "--kube-api-url: expected an http:// or https:// URL, got '%s'",
             cfg->kube_api_url);
        return CONFIG_BAD;
    }
    if (cfg->no_kube && (cfg->kube_api_url || cfg->kubeconfig)) {
        errf(err, errlen, "--no-kube: conflicts with --%s; pass one of them",
             cfg->kube_api_url ? "kube-api-url" : "kubeconfig");
        return CONFIG_BAD;
    }
    if ((r = check_clusters(cfg, err, errlen)) != CONFIG_OK)
        return r;
    if (cfg->no_compose_days)
        cfg->compose_days = false;
    cfg->kube_in_cluster = cfg->kube_api_url == NULL && !cfg->no_kube && cfg->n_clusters == 0;
    if (!config_host_is_loopback(cfg->listen_host) && !cfg->api_token_file) {
        errf(err, errlen,
             "--listen: '%s' is not a loopback address; refusing to serve without "
             "--api-token-file",
             cfg->listen);
        return CONFIG_BAD;
    }
    return CONFIG_OK;
}

enum config_result config_check_kube(const struct config *cfg,
                                     const char *(*getenv_fn)(const char *name), char *err,
                                     size_t errlen) {
    if (cfg->no_kube || (cfg->kube_api_url && *cfg->kube_api_url) || cfg->kubeconfig)
        return CONFIG_OK;
    bool contexts = cfg->n_clusters == 0;
    for (int i = 0; i < cfg->n_clusters; i++) {
        struct config_cluster_target t;
        contexts |= config_cluster_target(cfg->clusters[i].value, &t) && t.context[0];
    }
    if (!contexts) /* cluster ids alone: DigitalOcean only */
        return CONFIG_OK;
    const char *host = getenv_fn("KUBERNETES_SERVICE_HOST");
    const char *kc = getenv_fn("KUBECONFIG");
    if ((host && *host) || (kc && *kc))
        return CONFIG_OK;
    const char *home = getenv_fn("HOME");
    char def[512];
    struct stat st;
    if (home && *home && snprintf(def, sizeof def, "%s/.kube/config", home) < (int)sizeof def &&
        stat(def, &st) == 0)
        return CONFIG_OK;
    errf(err, errlen,
         "no Kubernetes API: not in a cluster (KUBERNETES_SERVICE_HOST unset), no kubeconfig "
         "(KUBECONFIG unset, no ~/.kube/config); pass --kubeconfig PATH, or --kube-api-url URL "
         "--kube-token-file PATH --kube-ca-file PATH, or --no-kube to account DigitalOcean only");
    return CONFIG_BAD;
}

static void free_pairs(struct config_pair *v, int n) {
    for (int i = 0; i < n; i++) {
        free(v[i].key);
        free(v[i].value);
    }
}

void config_release(struct config *cfg) {
    char **strs[] = {&cfg->listen,         &cfg->listen_host,      &cfg->db,
                     &cfg->do_api_url,     &cfg->do_token_file,    &cfg->cluster_id,
                     &cfg->kube_api_url,   &cfg->kube_token_file,  &cfg->kube_ca_file,
                     &cfg->kube_namespace, &cfg->job_selector,     &cfg->export_dir,
                     &cfg->api_token_file, &cfg->admin_token_file, &cfg->default_configuration,
                     &cfg->web_dir,        &cfg->vendor_dir,       &cfg->kubeconfig,
                     &cfg->kube_context,   &cfg->doctl_config};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        free(*strs[i]);
        *strs[i] = NULL;
    }
    for (int i = 0; i < cfg->n_spot_pools; i++)
        free(cfg->spot_pools[i]);
    for (int i = 0; i < cfg->n_ignore_advice; i++)
        free(cfg->ignore_advice[i]);
    free_pairs(cfg->spot_labels, cfg->n_spot_labels);
    free_pairs(cfg->on_demand_sizes, cfg->n_on_demand_sizes);
    free_pairs(cfg->clusters, cfg->n_clusters);
    cfg->n_clusters = 0;
    cfg->n_spot_pools = cfg->n_ignore_advice = cfg->n_spot_labels = cfg->n_on_demand_sizes = 0;
}

enum config_result config_check_token(const struct config *cfg, const char *flag, const char *token,
                                      char *err, size_t errlen) {
    if (!token || config_host_is_loopback(cfg->listen_host))
        return CONFIG_OK;
    if (strlen(token) >= CONFIG_MIN_TOKEN_LEN)
        return CONFIG_OK;
    errf(err, errlen,
         "--%s: the token holds %zu bytes; serving on '%s' (not loopback) needs at least %d", flag,
         strlen(token), cfg->listen, CONFIG_MIN_TOKEN_LEN);
    return CONFIG_BAD;
}
