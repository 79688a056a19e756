/* kube_auth — Kubernetes endpoint resolution and a self-refreshing token file. */
#include "source/kube_auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/secret.h"
#include "base/log.h"
#include "base/xalloc.h"

static bool fits(char *dst, size_t cap, const char *src) {
    int n = snprintf(dst, cap, "%s", src ? src : "");
    return n >= 0 && (size_t)n < cap;
}

enum err kube_conn_resolve(const struct kube_flags *cfg, const char *(*getenv_fn)(const char *),
                           struct kube_conn *out, char *err, size_t errlen) {
    struct kube_conn c;
    memset(&c, 0, sizeof c);
    if (cfg->api_url && *cfg->api_url) {
        if (!fits(c.url, sizeof c.url, cfg->api_url)) {
            snprintf(err, errlen, "--kube-api-url is too long");
            return ERR_INVAL;
        }
    } else {
        const char *host = getenv_fn("KUBERNETES_SERVICE_HOST");
        const char *port = getenv_fn("KUBERNETES_SERVICE_PORT");
        if (!host || !*host) {
            snprintf(err, errlen,
                     "not in a cluster (KUBERNETES_SERVICE_HOST unset) and no "
                     "--kube-api-url");
            return ERR_INVAL;
        }
        bool v6 = strchr(host, ':') != NULL;
        int n = snprintf(c.url, sizeof c.url, "https://%s%s%s:%s", v6 ? "[" : "", host,
                         v6 ? "]" : "", port && *port ? port : "443");
        if (n < 0 || (size_t)n >= sizeof c.url) {
            snprintf(err, errlen, "KUBERNETES_SERVICE_HOST is too long");
            return ERR_INVAL;
        }
    }
    size_t n = strlen(c.url);
    while (n > 0 && c.url[n - 1] == '/')
        c.url[--n] = '\0';
    const char *tok = cfg->token_file;
    const char *ca = cfg->ca_file;
    if (cfg->in_cluster || !(cfg->api_url && *cfg->api_url)) {
        if (!tok)
            tok = KUBE_SA_DIR "/token";
        if (!ca)
            ca = KUBE_SA_DIR "/ca.crt";
    }
    if (!fits(c.token_file, sizeof c.token_file, tok) || !fits(c.ca_file, sizeof c.ca_file, ca)) {
        snprintf(err, errlen, "a --kube-*-file path is too long");
        return ERR_INVAL;
    }
    *out = c;
    return ERR_OK;
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

static void wipe(char *s) {
    if (s) {
        memset(s, 0, strlen(s));
        free(s);
    }
}

void kube_token_release(struct kube_token *t) {
    if (!t)
        return;
    free(t->path);
    wipe(t->token);
    memset(t, 0, sizeof *t);
}

void kube_token_invalidate(struct kube_token *t) {
    t->stale = true;
}

enum err kube_token_get(struct kube_token *t, const char **out) {
    if (!t->path) {
        *out = NULL;
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
    wipe(t->token);
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
