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
};

static void line(struct report *r, const char *what, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void line(struct report *r, const char *what, bool ok, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(r->out, "%-12s %-4s %s\n", what, ok ? "ok" : "FAIL", msg);
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
    r->fixes[r->nfix++] = strdup(msg);
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

static void check_kube(const struct config *cfg, const char *(*getenv_fn)(const char *),
                       struct report *r, struct kube_conn *kc, bool *have_kc) {
    if (cfg->no_kube) {
        line(r, "kubernetes", true, "--no-kube: not watched (DigitalOcean only)");
        return;
    }
    char err[1024];
    const struct kube_flags kf = {.api_url = cfg->kube_api_url,
                                  .token_file = cfg->kube_token_file,
                                  .ca_file = cfg->kube_ca_file,
                                  .kubeconfig = cfg->kubeconfig,
                                  .context = cfg->kube_context,
                                  .insecure_ok = cfg->kube_insecure};
    if (kube_conn_resolve(&kf, getenv_fn, kc, err, sizeof err) != ERR_OK) {
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

static void check_do(const struct config *cfg, const char *(*getenv_fn)(const char *),
                     struct report *r, const struct kube_conn *kc) {
    char *tok = NULL, source[700], err[1200];
    if (do_token_find(cfg->do_token_file, cfg->doctl_config, getenv_fn, &tok, source, sizeof source,
                      err, sizeof err) != ERR_OK) {
        line(r, "digitalocean", false, "%s", err);
        fix(r, "%s", err);
        return;
    }
    struct http_client *c = client(NULL);
    struct http_response resp;
    http_response_init(&resp);
    /* reachability and the first scope in one request */
    struct do_cluster_brief *cl = calloc(DO_CLUSTERS_MAX, sizeof *cl);
    int ncl = 0;
    enum err rc = c && cl
                      ? do_clusters_list(c, cfg->do_api_url, tok, cl, DO_CLUSTERS_MAX, &ncl, &resp)
                      : ERR_NOMEM;
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
    bool k8s_scope = rc == ERR_OK;
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
    if (!k8s_scope)
        goto out; /* the cluster cannot be looked up without kubernetes:read */
    char names[2048];
    do_clusters_describe(cl, ncl, names, sizeof names);
    const char *id = cfg->cluster_id, *from = "--cluster-id";
    if (!id && kc && kc->doks_cluster_id[0]) {
        id = kc->doks_cluster_id;
        from = "the kubeconfig's DOKS server URL";
    }
    if (!id) {
        line(r, "cluster", false,
             "no --cluster-id, and the Kubernetes server URL is not a DOKS one");
        fix(r, "pass --cluster-id with one of this account's clusters: %s", names);
        goto out;
    }
    int found = -1;
    for (int i = 0; i < ncl; i++)
        if (strcmp(cl[i].id, id) == 0)
            found = i;
    if (found < 0) {
        line(r, "cluster", false, "%s (from %s) is not in this account", id, from);
        fix(r,
            "cluster '%s' (from %s) is not one of this account's clusters; pass --cluster-id "
            "with one of: %s",
            id, from, names);
        goto out;
    }
    line(r, "cluster", true, "%s (%s, %s; from %s)", cl[found].name, id, cl[found].region, from);
    check_pools(cfg, r, c, tok, id);
out:
    free(cl);
    http_response_release(&resp);
    http_client_free(c);
    secret_free(tok, 0);
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

int check_run(const struct config *cfg, const char *(*getenv_fn)(const char *), FILE *out) {
    struct report r = {.out = out};
    struct kube_conn kc;
    memset(&kc, 0, sizeof kc);
    bool have_kc = false;
    check_kube(cfg, getenv_fn, &r, &kc, &have_kc);
    check_do(cfg, getenv_fn, &r, have_kc ? &kc : NULL);
    check_db(cfg, &r);
    kube_conn_release(&kc);
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
