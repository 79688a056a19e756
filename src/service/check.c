/* check — the `spotledger check` report (check.h). Invariants: every problem
 * adds exactly one fix line; a probe that cannot run (its prerequisite failed)
 * adds none of its own, so each planted problem yields one precise fix. */
#include "service/check.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/jsonw.h"
#include "base/secret.h"
#include "source/do_api.h"
#include "source/do_clusters.h"
#include "source/do_token.h"
#include "source/http_client.h"
#include "source/kube_auth.h"
#include "source/pool_capacity.h"
#include "store/store.h"

#define CHECK_MAX_FIXES 32

struct report {
    FILE *out;
    char *fixes[CHECK_MAX_FIXES];
    int nfix;
    const char *cluster; /* the --cluster NAME the lines are about; NULL: none */
};

static void line(struct report *r, const char *what, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void line(struct report *r, const char *what, bool ok, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(r->out, "%-12s %-4s %s%s%s\n", what, ok ? "ok" : "FAIL", r->cluster ? r->cluster : "",
            r->cluster ? ": " : "", msg);
}

static void fix(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fix(struct report *r, const char *fmt, ...) {
    if (r->nfix >= CHECK_MAX_FIXES)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char full[1200];
    snprintf(full, sizeof full, "%s%s%s%s", r->cluster ? "cluster " : "",
             r->cluster ? r->cluster : "", r->cluster ? ": " : "", msg);
    r->fixes[r->nfix++] = strdup(full);
}

static struct http_client *client(const struct kube_conn *kc) {
    struct http_client_options o = {
        .connect_timeout_ms = 5000,
        .timeout_ms = 15000,
        .max_response = 8u * 1024 * 1024,
        .max_retries = 1,
        .ca_file = kc && kc->ca_file[0] ? kc->ca_file : NULL,
        .client_cert = kc && kc->cert_file[0] ? kc->cert_file : NULL,
        .client_key = kc && kc->key_file[0] ? kc->key_file : NULL,
        .insecure = kc && kc->insecure,
    };
    struct http_client *c = NULL;
    return http_client_new(&o, &c) == ERR_OK ? c : NULL;
}

/* --- Kubernetes ------------------------------------------------------------------- */

struct need {
    const char *group, *resource;
};

static const struct need NEEDS[] = {{"", "nodes"},
                                    {"batch", "jobs"},
                                    {"", "pods"},
                                    {"", "events"},
                                    {"policy", "poddisruptionbudgets"}};
static const char *const VERBS[] = {"list", "watch"};

/* One SelfSubjectAccessReview; *allowed from its status. */
static enum err ssar(struct http_client *c, const char *url, const char *tok, const char *ns,
                     const struct need *n, const char *verb, bool *allowed,
                     struct http_response *resp) {
    struct buf body;
    buf_init(&body, 4096);
    struct jsonw j;
    jsonw_init(&j, &body); /* escapes --kube-namespace, whatever it holds */
    jsonw_obj(&j);
    jsonw_kstr(&j, "apiVersion", "authorization.k8s.io/v1");
    jsonw_kstr(&j, "kind", "SelfSubjectAccessReview");
    jsonw_key(&j, "spec");
    jsonw_obj(&j);
    jsonw_key(&j, "resourceAttributes");
    jsonw_obj(&j);
    jsonw_kstr(&j, "verb", verb);
    jsonw_kstr(&j, "group", n->group);
    jsonw_kstr(&j, "resource", n->resource);
    if (ns)
        jsonw_kstr(&j, "namespace", ns);
    jsonw_obj_end(&j);
    jsonw_obj_end(&j);
    jsonw_obj_end(&j);
    char u[700];
    snprintf(u, sizeof u, "%s/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", url);
    enum err rc = http_client_post_json(c, u, tok, buf_str(&body), resp);
    buf_release(&body);
    if (rc != ERR_OK)
        return rc;
    struct json_object *o = json_tokener_parse(buf_str(&resp->body)), *st, *al;
    *allowed = o && json_object_object_get_ex(o, "status", &st) &&
               json_object_object_get_ex(st, "allowed", &al) &&
               json_object_is_type(al, json_type_boolean) && json_object_get_boolean(al);
    json_object_put(o);
    return ERR_OK;
}

/* The Kubernetes API of the connection kf names: reachable, the credentials
 * accepted, the watcher's verbs allowed (cfg: --kube-namespace). */
static void check_kube(const struct config *cfg, const struct kube_flags *kf,
                       const char *(*getenv_fn)(const char *), struct report *r,
                       struct kube_conn *kc, bool *have_kc) {
    char err[1024];
    if (kube_conn_resolve(kf, getenv_fn, kc, err, sizeof err) != ERR_OK) {
        line(r, "kubernetes", false, "%s", err);
        fix(r, "%s", err);
        return;
    }
    *have_kc = true;
    struct http_client *c = client(kc);
    struct kube_token t;
    kube_token_init_src(&t, kc->token_file, kc->token, kc->exec);
    struct http_response resp;
    http_response_init(&resp);
    const char *tok = NULL;
    char u[700];
    snprintf(u, sizeof u, "%s/version", kc->url);
    enum err rc = c ? kube_token_get(&t, &tok) : ERR_NOMEM;
    if (rc == ERR_OK)
        rc = http_client_get(c, u, tok, "kubernetes", &resp);
    if (rc == ERR_AUTH && kube_token_refreshable(&t)) {
        kube_token_invalidate(&t);
        if (kube_token_get(&t, &tok) == ERR_OK)
            rc = http_client_get(c, u, tok, "kubernetes", &resp);
    }
    const char *via = kc->exec           ? "exec plugin"
                      : tok              ? "bearer token"
                      : kc->cert_file[0] ? "client certificate"
                                         : "no credentials";
    if (rc == ERR_HTTP && resp.status == 0) {
        line(r, "kubernetes", false, "%s (%s): unreachable: %s", kc->url, kc->source, resp.error);
        fix(r,
            "the Kubernetes API at %s is unreachable (%s): check the network/VPN and the server "
            "URL in %s",
            kc->url, resp.error, kc->source);
        goto out;
    }
    if (rc == ERR_AUTH) {
        line(r, "kubernetes", false, "%s (%s): credentials refused (%s)", kc->url, kc->source, via);
        fix(r,
            "the Kubernetes API refused the credentials from %s: refresh them (`doctl "
            "kubernetes cluster kubeconfig save CLUSTER`) or fix --kube-token-file",
            kc->source);
        goto out;
    }
    if (rc != ERR_OK) {
        line(r, "kubernetes", false, "%s: %s", kc->url, resp.error[0] ? resp.error : err_str(rc));
        fix(r, "the Kubernetes API at %s answered %ld: check the server URL in %s", kc->url,
            resp.status, kc->source);
        goto out;
    }
    line(r, "kubernetes", true, "%s (%s, %s)", kc->url, kc->source, via);
    const char *ns = cfg->kube_namespace;
    char missing[512] = "";
    size_t k = 0;
    bool ssar_failed = false;
    for (size_t i = 0; i < sizeof NEEDS / sizeof NEEDS[0] && !ssar_failed; i++)
        for (size_t v = 0; v < 2; v++) {
            bool allowed = false;
            if (kube_token_get(&t, &tok) != ERR_OK ||
                ssar(c, kc->url, tok, ns, &NEEDS[i], VERBS[v], &allowed, &resp) != ERR_OK) {
                line(r, "rbac", false, "cannot ask SelfSubjectAccessReview: %s", resp.error);
                fix(r,
                    "the API server refused a SelfSubjectAccessReview (%s): check that the "
                    "API is Kubernetes 1.19+ and the credentials are current",
                    resp.error);
                ssar_failed = true;
                break;
            }
            if (!allowed) {
                line(r, "rbac", false, "cannot %s %s%s%s%s", VERBS[v], NEEDS[i].resource,
                     NEEDS[i].group[0] ? " (" : "", NEEDS[i].group, NEEDS[i].group[0] ? ")" : "");
                int w = snprintf(missing + k, sizeof missing - k, "%s%s %s", k ? ", " : "",
                                 VERBS[v], NEEDS[i].resource);
                if (w > 0 && (size_t)w < sizeof missing - k)
                    k += (size_t)w;
            }
        }
    if (!ssar_failed && k)
        fix(r,
            "grant the watcher's identity %s: kubectl apply -k deploy/kubernetes (ClusterRole "
            "spotledger), or add these verbs to its role",
            missing);
    else if (!ssar_failed)
        line(r, "rbac", true, "list, watch on nodes, jobs, pods, events, poddisruptionbudgets%s%s",
             ns ? " in namespace " : "", ns ? ns : "");
out:
    http_response_release(&resp);
    kube_token_release(&t);
    http_client_free(c);
}

/* --- DigitalOcean ----------------------------------------------------------------- */

struct scope_probe {
    const char *scope, *path;
};

static void check_pools(const struct config *cfg, struct report *r, struct http_client *c,
                        const char *tok, const char *cluster) {
    char u[700];
    snprintf(u, sizeof u, "%s/v2/kubernetes/clusters/%s/node_pools", cfg->do_api_url, cluster);
    struct http_response resp;
    http_response_init(&resp);
    if (http_client_get(c, u, tok, "kubernetes:read", &resp) != ERR_OK) {
        http_response_release(&resp);
        return; /* the scope or cluster line already says why */
    }
    struct do_pools pools;
    memset(&pools, 0, sizeof pools);
    char why[256];
    if (do_api_parse_pools(buf_str(&resp.body), resp.body.len, &pools, why, sizeof why) != ERR_OK) {
        line(r, "pools", false, "cannot read the node pools: %s", why);
        fix(r, "the node pool list of cluster %s is unreadable (%s): report it", cluster, why);
        http_response_release(&resp);
        return;
    }
    struct config_pair defaults[2] = {
        {(char *)"doks.digitalocean.com/capacity-type", (char *)"spot"},
        {(char *)"gpu-pool-type", (char *)"spot"}};
    const struct config_pair *labels = cfg->n_spot_labels ? cfg->spot_labels : defaults;
    int nl = cfg->n_spot_labels ? cfg->n_spot_labels : 2;
    int spot = 0;
    for (size_t i = 0; i < pools.n; i++) {
        const struct do_pool *p = &pools.v[i];
        const char *basis;
        const char *cap = pool_capacity(p, cfg->spot_pools, cfg->n_spot_pools, labels, nl, &basis);
        static const char *const why_of[][2] = {
            {"flag", "named by --spot-pool"},
            {"slug", "its size slug ends in -spot"},
            {"label", "it carries a spot label"},
            {"default", "no --spot-pool, -spot size or spot label"}};
        const char *reason = "";
        for (size_t j = 0; j < 4; j++)
            if (strcmp(why_of[j][0], basis) == 0)
                reason = why_of[j][1];
        spot += strcmp(cap, "spot") == 0;
        line(r, "pool", true, "%s (%s, %s, %lld node%s): %s, %s", p->name ? p->name : "",
             p->id ? p->id : "", p->size ? p->size : "", (long long)p->count,
             p->count == 1 ? "" : "s", strcmp(cap, "spot") == 0 ? "Spot" : "On-Demand", reason);
    }
    line(r, "pools", true, "%zu pool%s, %d taken for Spot", pools.n, pools.n == 1 ? "" : "s", spot);
    do_pools_release(&pools);
    http_response_release(&resp);
}

/* The account's side, once for every cluster: the token, the API, its scopes
 * and the account's clusters. */
struct do_account {
    char *tok;
    char source[700];
    struct http_client *c;
    struct do_cluster_brief *cl;
    int ncl;
    char names[2048]; /* the account's clusters, described */
};

static void do_account_release(struct do_account *a) {
    free(a->cl);
    http_client_free(a->c);
    secret_free(a->tok, 0);
}

/* True when the clusters can be looked up (the API answered with kubernetes:read). */
static bool check_do_account(const struct config *cfg, const char *(*getenv_fn)(const char *),
                             struct report *r, struct do_account *a) {
    char err[1200];
    if (do_token_find(cfg->do_token_file, cfg->doctl_config, getenv_fn, &a->tok, a->source,
                      sizeof a->source, err, sizeof err) != ERR_OK) {
        line(r, "digitalocean", false, "%s", err);
        fix(r, "%s", err);
        return false;
    }
    const char *tok = a->tok, *source = a->source;
    struct http_client *c = a->c = client(NULL);
    struct http_response resp;
    http_response_init(&resp);
    /* reachability and the first scope in one request */
    struct do_cluster_brief *cl = a->cl = calloc(DO_CLUSTERS_MAX, sizeof *cl);
    enum err rc =
        c && cl ? do_clusters_list(c, cfg->do_api_url, tok, cl, DO_CLUSTERS_MAX, &a->ncl, &resp)
                : ERR_NOMEM;
    bool k8s_scope = false;
    if (rc == ERR_HTTP && resp.status == 0) {
        line(r, "digitalocean", false, "%s: unreachable: %s", cfg->do_api_url, resp.error);
        fix(r, "the DigitalOcean API at %s is unreachable (%s): check the network and --do-api-url",
            cfg->do_api_url, resp.error);
        goto out;
    }
    if (rc == ERR_AUTH && resp.status == 401) {
        line(r, "digitalocean", false, "the token from %s was refused (401)", source);
        fix(r,
            "the DigitalOcean token from %s is invalid or expired: create one with "
            "kubernetes:read, billing:read, sizes:read and pass it (--do-token-file or "
            "`doctl auth init`)",
            source);
        goto out;
    }
    line(r, "digitalocean", true, "%s, token from %s", cfg->do_api_url, source);
    static const struct scope_probe probes[] = {{"sizes:read", "/v2/sizes?per_page=1"},
                                                {"billing:read", "/v2/customers/my/balance"}};
    char missing[128] = "";
    k8s_scope = rc == ERR_OK;
    if (rc == ERR_AUTH)
        snprintf(missing, sizeof missing, "kubernetes:read");
    for (size_t i = 0; i < 2; i++) {
        char u[700];
        snprintf(u, sizeof u, "%s%s", cfg->do_api_url, probes[i].path);
        if (http_client_get(c, u, tok, probes[i].scope, &resp) == ERR_AUTH) {
            size_t k = strlen(missing);
            snprintf(missing + k, sizeof missing - k, "%s%s", k ? ", " : "", probes[i].scope);
        }
    }
    if (missing[0]) {
        line(r, "scopes", false, "the token lacks %s", missing);
        fix(r,
            "the DigitalOcean token from %s lacks %s: create a custom-scoped token with "
            "kubernetes:read, billing:read and sizes:read (Control Panel > API > Tokens) and "
            "pass it (--do-token-file or `doctl auth init`)",
            source, missing);
    } else {
        line(r, "scopes", true, "kubernetes:read, sizes:read, billing:read");
    }
    if (k8s_scope) /* the clusters cannot be looked up without kubernetes:read */
        do_clusters_describe(cl, a->ncl, a->names, sizeof a->names);
out:
    http_response_release(&resp);
    return k8s_scope;
}

/* The DigitalOcean cluster id (from `from`; NULL: none found) is one of the
 * account's, and its pools. flag: the flag that passes one. */
static void check_do_cluster(const struct config *cfg, struct report *r, const struct do_account *a,
                             const char *id, const char *from, const char *flag) {
    if (!id) {
        line(r, "cluster", false, "no %s, and the Kubernetes server URL is not a DOKS one", flag);
        fix(r, "pass %s with one of this account's clusters: %s", flag, a->names);
        return;
    }
    int found = -1;
    for (int i = 0; i < a->ncl; i++)
        if (strcmp(a->cl[i].id, id) == 0)
            found = i;
    if (found < 0) {
        line(r, "cluster", false, "%s (from %s) is not in this account", id, from);
        fix(r,
            "cluster '%s' (from %s) is not one of this account's clusters; pass %s "
            "with one of: %s",
            id, from, flag, a->names);
        return;
    }
    line(r, "cluster", true, "%s (%s, %s; from %s)", a->cl[found].name, id, a->cl[found].region,
         from);
    check_pools(cfg, r, a->c, a->tok, id);
}

/* --- database ----------------------------------------------------------------------- */

static void check_db(const struct config *cfg, struct report *r) {
    struct stat st;
    if (stat(cfg->db, &st) != 0) {
        line(r, "database", true, "%s does not exist yet (created on the first run)", cfg->db);
        return;
    }
    struct store *s = NULL;
    int v = 0;
    if (store_open(cfg->db, STORE_READER, &s, NULL) != ERR_OK ||
        store_schema_version(s, &v) != ERR_OK) {
        line(r, "database", false, "%s cannot be opened", cfg->db);
        fix(r,
            "--db '%s' is not a readable spotledger database: move it aside or pass another "
            "--db",
            cfg->db);
        store_free(s);
        return;
    }
    int latest = store_latest_version();
    char polls[256] = "";
    size_t k = 0;
    static const char *const sources[] = {"k8s", "do"};
    for (size_t i = 0; i < 2; i++) {
        struct store_poll p;
        int w;
        if (store_poll_last(s, sources[i], false, &p) == ERR_OK)
            w = snprintf(polls + k, sizeof polls - k, "; last %s poll %s", sources[i], p.status);
        else
            w = snprintf(polls + k, sizeof polls - k, "; no %s poll yet", sources[i]);
        if (w > 0 && (size_t)w < sizeof polls - k)
            k += (size_t)w;
    }
    if (v > latest) {
        line(r, "database", false, "%s: schema %d is newer than this binary's %d", cfg->db, v,
             latest);
        fix(r, "--db '%s' was written by a newer spotledger (schema %d): upgrade this binary",
            cfg->db, v);
    } else {
        line(r, "database", true, "%s: schema %d%s%s", cfg->db, v,
             v < latest ? " (migrated on the next run)" : "", polls);
    }
    store_free(s);
}

/* The single-cluster flags: one Kubernetes connection, --cluster-id. */
static void check_single(const struct config *cfg, const char *(*getenv_fn)(const char *),
                         struct report *r) {
    struct kube_conn kc;
    memset(&kc, 0, sizeof kc);
    bool have_kc = false;
    const struct kube_flags kf = {.api_url = cfg->kube_api_url,
                                  .token_file = cfg->kube_token_file,
                                  .ca_file = cfg->kube_ca_file,
                                  .kubeconfig = cfg->kubeconfig,
                                  .context = cfg->kube_context,
                                  .insecure_ok = cfg->kube_insecure};
    if (cfg->no_kube)
        line(r, "kubernetes", true, "--no-kube: not watched (DigitalOcean only)");
    else
        check_kube(cfg, &kf, getenv_fn, r, &kc, &have_kc);
    struct do_account a;
    memset(&a, 0, sizeof a);
    if (check_do_account(cfg, getenv_fn, r, &a)) {
        const char *id = cfg->cluster_id, *from = "--cluster-id";
        if (!id && have_kc && kc.doks_cluster_id[0]) {
            id = kc.doks_cluster_id;
            from = "the kubeconfig's DOKS server URL";
        }
        check_do_cluster(cfg, r, &a, id, from, "--cluster-id");
    }
    do_account_release(&a);
    kube_conn_release(&kc);
}

/* --cluster NAME=TARGET (docs/fleet.md): each cluster's Kubernetes access and
 * DigitalOcean cluster, every line and fix naming it; one cluster's failure
 * does not stop the others' checks. The account's token once. */
static void check_fleet(const struct config *cfg, const char *(*getenv_fn)(const char *),
                        struct report *r) {
    int n = cfg->n_clusters;
    struct kube_conn *kc = calloc((size_t)n, sizeof *kc);
    bool *have = calloc((size_t)n, sizeof *have);
    struct config_cluster_target *t = calloc((size_t)n, sizeof *t);
    if (!kc || !have || !t) {
        line(r, "clusters", false, "out of memory");
        fix(r, "out of memory: retry");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        r->cluster = cfg->clusters[i].key;
        if (!config_cluster_target(cfg->clusters[i].value, &t[i])) /* checked by config_parse */
            continue;
        const struct kube_flags kf = {.kubeconfig = cfg->kubeconfig,
                                      .context = t[i].context,
                                      .insecure_ok = cfg->kube_insecure};
        if (!t[i].context[0])
            line(r, "kubernetes", true, "a DigitalOcean cluster id alone: not watched");
        else if (cfg->no_kube)
            line(r, "kubernetes", true, "--no-kube: not watched (DigitalOcean only)");
        else
            check_kube(cfg, &kf, getenv_fn, r, &kc[i], &have[i]);
    }
    r->cluster = NULL;
    struct do_account a;
    memset(&a, 0, sizeof a);
    if (check_do_account(cfg, getenv_fn, r, &a)) {
        for (int i = 0; i < n; i++) {
            r->cluster = cfg->clusters[i].key;
            char from[CONFIG_CLUSTER_NAME_MAX + 320]; /* "--cluster NAME" or a context name */
            snprintf(from, sizeof from, "--cluster %s", cfg->clusters[i].key);
            const char *id = t[i].do_id[0] ? t[i].do_id : NULL;
            if (!id && have[i] && kc[i].doks_cluster_id[0]) {
                id = kc[i].doks_cluster_id;
                snprintf(from, sizeof from, "the DOKS server URL of context %s", t[i].context);
            }
            check_do_cluster(cfg, r, &a, id, from, "--cluster NAME=CONTEXT@CLUSTER_ID");
        }
        r->cluster = NULL;
    }
    do_account_release(&a);
out:
    for (int i = 0; kc && i < n; i++)
        kube_conn_release(&kc[i]);
    free(kc);
    free(have);
    free(t);
}

int check_run(const struct config *cfg, const char *(*getenv_fn)(const char *), FILE *out) {
    struct report r = {.out = out};
    if (cfg->n_clusters > 0)
        check_fleet(cfg, getenv_fn, &r);
    else
        check_single(cfg, getenv_fn, &r);
    check_db(cfg, &r);
    if (r.nfix == 0)
        fprintf(out, "all good: spotledger can run with these settings\n");
    else
        fprintf(out, "%d problem%s:\n", r.nfix, r.nfix == 1 ? "" : "s");
    for (int i = 0; i < r.nfix; i++) {
        fprintf(out, "fix: %s\n", r.fixes[i]);
        free(r.fixes[i]);
    }
    fflush(out);
    return r.nfix == 0 ? 0 : 1;
}
