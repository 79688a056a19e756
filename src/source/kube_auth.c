/* kube_auth — Kubernetes endpoint resolution and a self-refreshing token. */
#include "source/kube_auth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/secret.h"
#include "base/xalloc.h"
#include "source/kubeconfig.h"

static bool fits(char *dst, size_t cap, const char *src) {
    int n = snprintf(dst, cap, "%s", src ? src : "");
    return n >= 0 && (size_t)n < cap;
}

static void trim_slashes(char *url) {
    size_t n = strlen(url);
    while (n > 0 && url[n - 1] == '/')
        url[--n] = '\0';
}

/* The written-credential files, by name inside tmp_dir. */
static const char *const TMP_FILES[] = {"ca.pem", "client.pem", "client-key.pem", "exec-cert.pem",
                                        "exec-key.pem"};

void kube_conn_release(struct kube_conn *c) {
    if (!c)
        return;
    kube_exec_free(c->exec);
    c->exec = NULL;
    secret_free(c->token, 0);
    c->token = NULL;
    if (c->tmp_dir[0]) {
        char p[512];
        for (size_t i = 0; i < sizeof TMP_FILES / sizeof TMP_FILES[0]; i++) {
            snprintf(p, sizeof p, "%s/%s", c->tmp_dir, TMP_FILES[i]);
            unlink(p);
        }
        rmdir(c->tmp_dir);
        c->tmp_dir[0] = '\0';
    }
}

/* Writes data as tmp_dir/name (0600), creating the private directory first; the
 * path into dst. */
static enum err put_private(struct kube_conn *c, const char *(*getenv_fn)(const char *),
                            const char *name, const char *data, size_t len, char *dst, size_t cap,
                            char *err, size_t errlen) {
    if (!c->tmp_dir[0]) {
        const char *t = getenv_fn("TMPDIR");
        snprintf(c->tmp_dir, sizeof c->tmp_dir, "%s/spotledger-kube-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(c->tmp_dir)) { /* mkdtemp makes it 0700 */
            snprintf(err, errlen, "cannot create a private directory under '%s': %s",
                     t && *t ? t : "/tmp", strerror(errno));
            c->tmp_dir[0] = '\0';
            return ERR_IO;
        }
    }
    if (snprintf(dst, cap, "%s/%s", c->tmp_dir, name) >= (int)cap ||
        secret_write_private(dst, data, len) != ERR_OK) {
        snprintf(err, errlen, "cannot write '%s/%s': %s", c->tmp_dir, name, strerror(errno));
        return ERR_IO;
    }
    return ERR_OK;
}

static bool file_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Fills c from a resolved kubeconfig context. */
static enum err from_kubeconfig(const struct kube_flags *f, const char *paths,
                                const char *(*getenv_fn)(const char *), struct kube_conn *c,
                                char *err, size_t errlen) {
    struct kubeconfig_auth a;
    enum err rc = kubeconfig_load(paths, f->context, &a, err, errlen);
    if (rc != ERR_OK)
        return rc;
    snprintf(c->source, sizeof c->source, "kubeconfig '%s' context '%s'", a.source, a.context);
    if (!fits(c->url, sizeof c->url, a.server) || !fits(c->ca_file, sizeof c->ca_file, a.ca_file) ||
        !fits(c->token_file, sizeof c->token_file, a.token_file) ||
        !fits(c->cert_file, sizeof c->cert_file, a.cert_file) ||
        !fits(c->key_file, sizeof c->key_file, a.key_file)) {
        snprintf(err, errlen, "kubeconfig '%s': a server URL or file path is too long", a.source);
        rc = ERR_INVAL;
        goto out;
    }
    trim_slashes(c->url);
    if (!kubeconfig_doks_cluster_id(c->url, c->doks_cluster_id))
        c->doks_cluster_id[0] = '\0';
    if (a.insecure && !f->insecure_ok) {
        snprintf(err, errlen,
                 "kubeconfig '%s': cluster '%s' sets insecure-skip-tls-verify; add its CA "
                 "(certificate-authority-data), or pass --kube-insecure to accept an unverified "
                 "connection",
                 a.source, a.cluster);
        rc = ERR_INVAL;
        goto out;
    }
    if (a.insecure) {
        c->insecure = true;
        log_msg(LOG_WARN,
                "kube_auth: --kube-insecure: the API server's certificate of cluster '%s' is NOT "
                "verified (anyone on the path can read the credentials)",
                a.cluster);
    }
    if (a.ca_data && (rc = put_private(c, getenv_fn, "ca.pem", a.ca_data, a.ca_data_len, c->ca_file,
                                       sizeof c->ca_file, err, errlen)) != ERR_OK)
        goto out;
    if (a.cert_data && (rc = put_private(c, getenv_fn, "client.pem", a.cert_data, a.cert_data_len,
                                         c->cert_file, sizeof c->cert_file, err, errlen)) != ERR_OK)
        goto out;
    if (a.key_data && (rc = put_private(c, getenv_fn, "client-key.pem", a.key_data, a.key_data_len,
                                        c->key_file, sizeof c->key_file, err, errlen)) != ERR_OK)
        goto out;
    if (a.token) {
        c->token = a.token;
        a.token = NULL;
    }
    if (a.exec) {
        /* the plugin's files live in the private directory too: make it now */
        char cert[512], key[512];
        if ((rc = put_private(c, getenv_fn, "exec-cert.pem", "", 0, cert, sizeof cert, err,
                              errlen)) != ERR_OK ||
            (rc = put_private(c, getenv_fn, "exec-key.pem", "", 0, key, sizeof key, err, errlen)) !=
                ERR_OK)
            goto out;
        struct kube_exec_options eo = {.cert_file = cert, .key_file = key};
        c->exec = kube_exec_new(a.exec, &eo);
        char *tok = NULL;
        bool is_cert = false;
        char eerr[512];
        rc = kube_exec_get(c->exec, NULL, &tok, &is_cert, eerr, sizeof eerr);
        secret_free(tok, 0);
        if (rc != ERR_OK) {
            snprintf(err, errlen, "kubeconfig '%s' user '%s': %s", a.source, a.user, eerr);
            goto out;
        }
        if (is_cert) {
            fits(c->cert_file, sizeof c->cert_file, cert);
            fits(c->key_file, sizeof c->key_file, key);
        }
    }
    log_msg(LOG_INFO, "kube_auth: %s: server %s, %s", c->source, c->url,
            c->exec            ? "exec plugin credentials"
            : c->token         ? "a bearer token"
            : c->token_file[0] ? "a token file"
            : c->cert_file[0]  ? "a client certificate"
                               : "no credentials");
out:
    kubeconfig_auth_release(&a);
    return rc;
}

enum err kube_conn_resolve(const struct kube_flags *cfg, const char *(*getenv_fn)(const char *),
                           struct kube_conn *out, char *err, size_t errlen) {
    struct kube_conn *c = out;
    memset(c, 0, sizeof *c);
    if (cfg->api_url && *cfg->api_url) {
        if (!fits(c->url, sizeof c->url, cfg->api_url)) {
            snprintf(err, errlen, "--kube-api-url is too long");
            return ERR_INVAL;
        }
        trim_slashes(c->url);
        if (!fits(c->token_file, sizeof c->token_file, cfg->token_file) ||
            !fits(c->ca_file, sizeof c->ca_file, cfg->ca_file)) {
            snprintf(err, errlen, "a --kube-*-file path is too long");
            return ERR_INVAL;
        }
        snprintf(c->source, sizeof c->source, "--kube-api-url");
        if (!kubeconfig_doks_cluster_id(c->url, c->doks_cluster_id))
            c->doks_cluster_id[0] = '\0';
        return ERR_OK;
    }
    const char *env_kc = getenv_fn("KUBECONFIG");
    if (cfg->kubeconfig && *cfg->kubeconfig)
        return from_kubeconfig(cfg, cfg->kubeconfig, getenv_fn, c, err, errlen);
    if (env_kc && *env_kc)
        return from_kubeconfig(cfg, env_kc, getenv_fn, c, err, errlen);
    const char *host = getenv_fn("KUBERNETES_SERVICE_HOST");
    if (host && *host) {
        const char *port = getenv_fn("KUBERNETES_SERVICE_PORT");
        bool v6 = strchr(host, ':') != NULL;
        int n = snprintf(c->url, sizeof c->url, "https://%s%s%s:%s", v6 ? "[" : "", host,
                         v6 ? "]" : "", port && *port ? port : "443");
        if (n < 0 || (size_t)n >= sizeof c->url) {
            snprintf(err, errlen, "KUBERNETES_SERVICE_HOST is too long");
            return ERR_INVAL;
        }
        if (!fits(c->token_file, sizeof c->token_file,
                  cfg->token_file ? cfg->token_file : KUBE_SA_DIR "/token") ||
            !fits(c->ca_file, sizeof c->ca_file,
                  cfg->ca_file ? cfg->ca_file : KUBE_SA_DIR "/ca.crt")) {
            snprintf(err, errlen, "a --kube-*-file path is too long");
            return ERR_INVAL;
        }
        snprintf(c->source, sizeof c->source, "in-cluster service account");
        return ERR_OK;
    }
    const char *home = getenv_fn("HOME");
    char def[512] = "";
    if (home && *home && snprintf(def, sizeof def, "%s/.kube/config", home) < (int)sizeof def &&
        file_exists(def))
        return from_kubeconfig(cfg, def, getenv_fn, c, err, errlen);
    snprintf(err, errlen,
             "no Kubernetes API: not in a cluster (KUBERNETES_SERVICE_HOST unset), no "
             "kubeconfig (KUBECONFIG unset, no ~/.kube/config); pass --kubeconfig PATH, or "
             "--kube-api-url URL --kube-token-file PATH --kube-ca-file PATH, or --no-kube to "
             "account DigitalOcean only");
    return ERR_INVAL;
}

static int64_t mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec;
}

void kube_token_init(struct kube_token *t, const char *path) {
    memset(t, 0, sizeof *t);
    t->path = path && *path ? xstrdup(path) : NULL;
    t->stale = true;
}

void kube_token_init_src(struct kube_token *t, const char *path, const char *fixed,
                         struct kube_exec *exec) {
    /* client-go: a token takes precedence over tokenFile; the plugin comes last */
    bool has_fixed = fixed && *fixed;
    kube_token_init(t, has_fixed ? NULL : path);
    t->fixed = has_fixed ? fixed : NULL;
    t->exec = has_fixed || t->path ? NULL : exec;
}

bool kube_token_refreshable(const struct kube_token *t) {
    return t->path || t->exec;
}

/* The plugin's current credential; a stale token (401) is handed back as the
 * rejected one, so of several threads only the first re-runs the plugin. */
static enum err exec_get(struct kube_token *t, const char **out) {
    if (t->stale && !t->token && t->read_at)
        kube_exec_invalidate(t->exec); /* a rejected client certificate */
    char *tok = NULL, err[512];
    bool is_cert = false;
    enum err rc =
        kube_exec_get(t->exec, t->stale ? t->token : NULL, &tok, &is_cert, err, sizeof err);
    if (rc != ERR_OK)
        return rc;
    secret_free(t->token, 0);
    t->token = tok;
    t->stale = false;
    t->read_at = mono_s() | 1; /* non-zero: a credential was handed out */
    *out = t->token;
    return ERR_OK;
}

void kube_token_release(struct kube_token *t) {
    if (!t)
        return;
    free(t->path);
    secret_free(t->token, 0);
    memset(t, 0, sizeof *t);
}

void kube_token_invalidate(struct kube_token *t) {
    t->stale = true;
}

enum err kube_token_get(struct kube_token *t, const char **out) {
    if (t->exec)
        return exec_get(t, out);
    if (!t->path) {
        *out = t->fixed;
        return ERR_OK;
    }
    struct stat st;
    bool changed = true;
    if (stat(t->path, &st) == 0)
        changed = st.st_dev != t->dev || st.st_ino != t->ino || st.st_size != t->size ||
                  st.st_mtim.tv_sec != t->mtime.tv_sec || st.st_mtim.tv_nsec != t->mtime.tv_nsec;
    if (t->token && !t->stale && !changed && mono_s() - t->read_at < KUBE_TOKEN_REREAD_S) {
        *out = t->token;
        return ERR_OK;
    }
    char *tok = NULL;
    enum err rc = secret_read(t->path, &tok);
    if (rc != ERR_OK) {
        if (t->token) {
            log_msg(LOG_WARN, "kube_auth: cannot re-read token file '%s': %s; keeping the old one",
                    t->path, err_str(rc));
            *out = t->token;
            return ERR_OK;
        }
        log_msg(LOG_ERROR, "kube_auth: cannot read token file '%s': %s", t->path, err_str(rc));
        return rc;
    }
    if (t->token && strcmp(t->token, tok) != 0)
        log_msg(LOG_INFO, "kube_auth: token file '%s' changed, using the new token", t->path);
    secret_free(t->token, 0);
    t->token = tok;
    if (stat(t->path, &st) == 0) {
        t->dev = st.st_dev;
        t->ino = st.st_ino;
        t->size = st.st_size;
        t->mtime = st.st_mtim;
    }
    t->read_at = mono_s();
    t->stale = false;
    *out = t->token;
    return ERR_OK;
}
