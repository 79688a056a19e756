/* kube_auth — where the Kubernetes API is and how to authenticate to it.
 *
 * kube_conn_resolve: --kube-api-url / --kube-token-file / --kube-ca-file when
 * given, else the in-cluster service account (KUBERNETES_SERVICE_HOST/PORT, the
 * token and ca.crt under /var/run/secrets/kubernetes.io/serviceaccount/).
 *
 * struct kube_token: a bearer token read from a file and re-read whenever the file
 * changes (inode, size or mtime: kubelet rotates projected tokens by an atomic
 * rename), when kube_token_invalidate was called (after a 401), or at least every
 * KUBE_TOKEN_REREAD_S seconds. The token is never logged.
 *
 * Thread rule: kube_conn_resolve at start-up; one struct kube_token per thread. */
#ifndef SPOTLEDGER_KUBE_AUTH_H
#define SPOTLEDGER_KUBE_AUTH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "base/err.h"

#define KUBE_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"
#define KUBE_TOKEN_REREAD_S 60

struct kube_conn {
    char url[512];        /* "https://10.0.0.1:443", no trailing slash */
    char token_file[512]; /* "" = no token */
    char ca_file[512];    /* "" = system CAs */
};

/* The Kubernetes flags (README "Configuration reference"); NULL = not given. */
struct kube_flags {
    const char *api_url;    /* --kube-api-url; NULL/"": in-cluster */
    const char *token_file; /* --kube-token-file */
    const char *ca_file;    /* --kube-ca-file */
    bool in_cluster;        /* no --kube-api-url: use the service account */
};

/* ERR_INVAL (message in err) when in-cluster but KUBERNETES_SERVICE_HOST is unset,
 * or a value does not fit. getenv_fn is getenv in production. */
enum err kube_conn_resolve(const struct kube_flags *cfg, const char *(*getenv_fn)(const char *),
                           struct kube_conn *out, char *err, size_t errlen);

struct kube_token {
    char *path;  /* NULL: no token */
    char *token; /* current value, NULL until read */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    int64_t read_at; /* monotonic seconds of the last read */
    bool stale;
};

/* path NULL or "" = no token (kube_token_get then yields NULL). Never fails. */
void kube_token_init(struct kube_token *t, const char *path);
void kube_token_release(struct kube_token *t);
/* Forces a re-read at the next get (after a 401). */
void kube_token_invalidate(struct kube_token *t);
/* *out = current token (loan valid until the next call on t) or NULL when no
 * path is configured. ERR_IO/ERR_INVAL/ERR_TOOBIG (secret_read) if the file cannot
 * be read and no earlier value exists; with an earlier value it is kept (logged). */
enum err kube_token_get(struct kube_token *t, const char **out);

#endif
