/* kube_auth — where the Kubernetes API is and how to authenticate to it.
 *
 * kube_conn_resolve, in this order (README "Point it at your cluster"):
 *   1. --kube-api-url (with --kube-token-file / --kube-ca-file);
 *   2. --kubeconfig PATH[:PATH...], else $KUBECONFIG (merged as kubectl merges,
 *      source/kubeconfig.h), context --kube-context or the current-context;
 *   3. the in-cluster service account (KUBERNETES_SERVICE_HOST/PORT, the token and
 *      ca.crt under /var/run/secrets/kubernetes.io/serviceaccount/);
 *   4. ~/.kube/config when it exists.
 * From a kubeconfig: server, CA (file or -data), insecure-skip-tls-verify (only
 * with --kube-insecure, warned), token / tokenFile, client certificate + key
 * (file or -data), exec plugin (source/kube_exec.h, run once here so a missing or
 * failing plugin stops start-up with its message). -data contents go to 0600
 * files in a private 0700 directory under $TMPDIR (libcurl-gnutls takes no
 * in-memory certificates), removed by kube_conn_release.
 *
 * struct kube_token: the bearer token of one thread. From a file it is re-read
 * whenever the file changes (inode, size or mtime: kubelet rotates projected
 * tokens by an atomic rename), when kube_token_invalidate was called (after a
 * 401), or at least every KUBE_TOKEN_REREAD_S seconds; from an exec plugin it is
 * the plugin's cached credential, re-run on expiry or after a 401. Never logged.
 *
 * Thread rule: kube_conn_resolve/release at start-up and exit on one thread; one
 * struct kube_token per thread (they share the connection's exec plugin). */
#ifndef SPOTLEDGER_KUBE_AUTH_H
#define SPOTLEDGER_KUBE_AUTH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "base/err.h"
#include "source/kube_exec.h"

#define KUBE_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"
#define KUBE_TOKEN_REREAD_S 60

struct kube_conn {
    char url[512];            /* "https://10.0.0.1:443", no trailing slash */
    char token_file[512];     /* "" = no token file */
    char ca_file[512];        /* "" = system CAs */
    char cert_file[512];      /* client certificate, "" = none */
    char key_file[512];       /* its key */
    char *token;              /* a static bearer token (kubeconfig `token`), secret; NULL */
    bool insecure;            /* TLS unverified (kubeconfig + --kube-insecure) */
    struct kube_exec *exec;   /* owned exec plugin, NULL */
    char tmp_dir[256];        /* private directory of written credentials, "" = none */
    char source[640];         /* for logs: "kubeconfig '...' context '...'" etc. */
    char doks_cluster_id[37]; /* from a DOKS server URL, "" otherwise */
};

/* The Kubernetes flags (README "Configuration reference"); NULL = not given. */
struct kube_flags {
    const char *api_url;    /* --kube-api-url */
    const char *token_file; /* --kube-token-file */
    const char *ca_file;    /* --kube-ca-file */
    const char *kubeconfig; /* --kubeconfig (else $KUBECONFIG, ~/.kube/config) */
    const char *context;    /* --kube-context (else current-context) */
    bool insecure_ok;       /* --kube-insecure */
};

/* Fills *out (release with kube_conn_release, also after a failure). ERR_INVAL
 * (one line in err naming what to pass) when no source is found, a value does
 * not fit, or insecure-skip-tls-verify without --kube-insecure; kubeconfig and
 * exec plugin errors as there. getenv_fn is getenv in production. */
enum err kube_conn_resolve(const struct kube_flags *cfg, const char *(*getenv_fn)(const char *),
                           struct kube_conn *out, char *err, size_t errlen);
/* Removes written credential files, frees the plugin, wipes the token. */
void kube_conn_release(struct kube_conn *c);

struct kube_token {
    char *path;             /* NULL: no token file */
    const char *fixed;      /* a static token (borrowed), NULL */
    struct kube_exec *exec; /* a plugin (borrowed, shared), NULL */
    char *token;            /* current value, NULL until read */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    int64_t read_at; /* monotonic seconds of the last read */
    bool stale;
};

/* path NULL or "" = no token file (kube_token_get then yields NULL). Never fails. */
void kube_token_init(struct kube_token *t, const char *path);
/* A token from a static value (fixed), a file (path) or a plugin (exec), the
 * first of them given (client-go's order); fixed and exec are borrowed and must
 * outlive t. */
void kube_token_init_src(struct kube_token *t, const char *path, const char *fixed,
                         struct kube_exec *exec);
/* True when a 401 may be cured by asking again (a file or a plugin). */
bool kube_token_refreshable(const struct kube_token *t);
void kube_token_release(struct kube_token *t);
/* Forces a re-read at the next get (after a 401). */
void kube_token_invalidate(struct kube_token *t);
/* *out = current token (loan valid until the next call on t) or NULL when none
 * is configured (or the plugin issued a client certificate). ERR_IO/ERR_INVAL/ERR_TOOBIG
 * (secret_read) if the file cannot be read and no earlier value exists; with an earlier value it is
 * kept (logged). A plugin's errors as kube_exec_get (logged there). */
enum err kube_token_get(struct kube_token *t, const char **out);

#endif
