/* kubeconfig — reads kubeconfig files (README "Point it at your cluster") and
 * resolves one context into what a client needs: server, CA, credentials.
 *
 * Several files (KUBECONFIG=a:b:c) merge as kubectl merges them
 * (k8s.io/client-go/tools/clientcmd loader): for clusters, users and contexts
 * the first file to define a name wins, current-context comes from the first file
 * that sets it; a listed file that does not exist is skipped, but at least one
 * must exist. Relative file paths inside a file (certificate-authority,
 * client-certificate, client-key, tokenFile, an exec command holding '/') are
 * resolved against that file's directory. `-data` fields are base64 and are
 * returned decoded. Secrets (token, client key data) are never logged; the
 * caller wipes them through kubeconfig_auth_release.
 *
 * Thread rule: any thread; the structs belong to their caller. */
#ifndef SPOTLEDGER_KUBECONFIG_H
#define SPOTLEDGER_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define KUBECONFIG_MAX_FILES 16
#define KUBECONFIG_MAX_ARGS 64

/* users[].user.exec: a credential plugin (client.authentication.k8s.io). */
struct kube_exec_config {
    char *api_version; /* "client.authentication.k8s.io/v1" or ".../v1beta1" */
    char *command;     /* as written, or resolved against the file's directory */
    char *args[KUBECONFIG_MAX_ARGS];
    int n_args;
    char *env_names[KUBECONFIG_MAX_ARGS];
    char *env_values[KUBECONFIG_MAX_ARGS];
    int n_env;
    char *install_hint; /* NULL if absent */
};

/* One resolved context; NULL strings are absent. */
struct kubeconfig_auth {
    char *context, *cluster, *user, *ns;
    char *server;  /* clusters[].cluster.server */
    char *ca_file; /* certificate-authority */
    char *ca_data; /* certificate-authority-data, decoded (PEM) */
    size_t ca_data_len;
    bool insecure;    /* insecure-skip-tls-verify: true */
    char *token;      /* users[].user.token (secret) */
    char *token_file; /* users[].user.tokenFile */
    char *cert_file;  /* client-certificate */
    char *key_file;   /* client-key */
    char *cert_data;  /* client-certificate-data, decoded */
    size_t cert_data_len;
    char *key_data; /* client-key-data, decoded (secret) */
    size_t key_data_len;
    struct kube_exec_config *exec; /* NULL: no plugin */
    char *source;                  /* the file the context came from (for messages) */
};

/* Loads `paths` (one path, or several joined by ':') and resolves `context`
 * (NULL/"": the merged current-context). ERR_NOTFOUND when no listed file exists
 * or the context/cluster/user it names is missing; ERR_PARSE for malformed YAML,
 * a bad base64 field, or a shape that is not a kubeconfig; ERR_INVAL for an
 * unsupported auth (auth-provider, username/password) or too many files/args.
 * err gets one line naming the file and what to do. On ERR_OK release *out with
 * kubeconfig_auth_release (also safe on a zeroed struct). */
enum err kubeconfig_load(const char *paths, const char *context, struct kubeconfig_auth *out,
                         char *err, size_t errlen);
void kubeconfig_auth_release(struct kubeconfig_auth *a);
/* Frees e and everything it holds (env values are wiped). NULL is a no-op. */
void kube_exec_config_free(struct kube_exec_config *e);
/* Frees what e holds and zeroes it (e itself stays). */
void kube_exec_config_clear(struct kube_exec_config *e);
/* Deep copy into dst (overwritten, not freed first). */
void kube_exec_config_copy(struct kube_exec_config *dst, const struct kube_exec_config *src);

/* Decodes standard base64 (padding optional, whitespace ignored). *out is
 * NUL-terminated for convenience, *out_len excludes it. ERR_PARSE on other bytes. */
enum err kubeconfig_base64_decode(const char *in, char **out, size_t *out_len);

/* The DOKS cluster UUID of a server URL "https://<uuid>.k8s.ondigitalocean.com[:port]"
 * into out (37 bytes); false for any other URL. */
bool kubeconfig_doks_cluster_id(const char *server, char out[37]);

#endif
