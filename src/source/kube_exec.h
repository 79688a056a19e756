/* kube_exec — a client-go exec credential plugin (kubeconfig users[].user.exec,
 * client.authentication.k8s.io/v1 and v1beta1 ExecCredential), e.g.
 * `doctl kubernetes cluster kubeconfig exec-credential`.
 *
 * The command runs with its args and env on top of ours (posix_spawnp: a fork and
 * exec, no shell; a bare name is searched on PATH), KUBERNETES_EXEC_INFO set as
 * client-go sets it, stdin from /dev/null, bounded by KUBE_EXEC_TIMEOUT_MS
 * (then SIGKILL) and KUBE_EXEC_MAX_OUTPUT bytes of stdout. Its status.token, or
 * status.clientCertificateData + clientKeyData (written 0600 to cert_file and
 * key_file), is cached until status.expirationTimestamp (none: until rejected).
 * The token is never logged; a failing plugin's error names the command, its
 * exit status and the first line of its stderr (plus installHint when the
 * command is missing).
 *
 * Thread rule: one struct kube_exec is shared by every thread that talks to the
 * cluster; its functions lock internally, and at most one plugin runs at once. */
#ifndef SPOTLEDGER_KUBE_EXEC_H
#define SPOTLEDGER_KUBE_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "source/kubeconfig.h"

#define KUBE_EXEC_TIMEOUT_MS 30000
#define KUBE_EXEC_MAX_OUTPUT (1024 * 1024)
/* a credential this close to its expiry is renewed before use */
#define KUBE_EXEC_EXPIRY_SKEW_S 1

struct kube_exec;

struct kube_exec_options {
    const char *cert_file; /* where plugin-issued client certificates go (copied) */
    const char *key_file;
    long timeout_ms;           /* 0: KUBE_EXEC_TIMEOUT_MS */
    int64_t (*now)(void *ctx); /* wall clock, Unix seconds; NULL: time() */
    void *now_ctx;
};

/* Copies cfg. Runs nothing yet. */
struct kube_exec *kube_exec_new(const struct kube_exec_config *cfg,
                                const struct kube_exec_options *opt);
void kube_exec_free(struct kube_exec *ex);

/* A current credential. *token: a malloc'd copy of the bearer token (caller frees
 * with secret_free) or NULL when the plugin issued a client certificate instead
 * (then in cert_file/key_file). The plugin runs when nothing is cached, the cached
 * credential expires within KUBE_EXEC_EXPIRY_SKEW_S, or `rejected` (a token the
 * API answered 401 to) equals the cached token. `*is_cert` says which kind. On
 * failure err holds one line; ERR_NOTFOUND (command missing), ERR_IO (it could not
 * run, failed or timed out), ERR_PARSE (its output is not an ExecCredential). */
enum err kube_exec_get(struct kube_exec *ex, const char *rejected, char **token, bool *is_cert,
                       char *err, size_t errlen);

/* Forgets the cached credential (a 401 with a client certificate). */
void kube_exec_invalidate(struct kube_exec *ex);

/* How many times the plugin ran (tests, `spotledger check`). */
int kube_exec_runs(struct kube_exec *ex);

/* The command, for messages ("doctl"). */
const char *kube_exec_command(const struct kube_exec *ex);

#endif
