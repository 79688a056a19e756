/* kube_exec — runs a credential plugin and caches what it prints. Invariants:
 * the cached token is only ever copied out under the lock and wiped when
 * replaced; the child never inherits a pipe end it does not use; every wait is
 * bounded by the deadline. */
#include "source/kube_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/secret.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "source/yaml_json.h"

extern char **environ;

struct kube_exec {
    pthread_mutex_t mu;
    struct kube_exec_config cfg;
    struct kube_exec_options opt;
    char *cert_file, *key_file;
    char *token;    /* cached bearer token (secret), NULL */
    bool have;      /* a credential is cached */
    bool is_cert;   /* it is a client certificate */
    int64_t expiry; /* Unix seconds, 0 = none given */
    int runs;
};

static int64_t now_s(struct kube_exec *ex) {
    return ex->opt.now ? ex->opt.now(ex->opt.now_ctx) : (int64_t)time(NULL);
}

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct kube_exec *kube_exec_new(const struct kube_exec_config *cfg,
                                const struct kube_exec_options *opt) {
    struct kube_exec *ex = xcalloc(1, sizeof *ex);
    pthread_mutex_init(&ex->mu, NULL);
    kube_exec_config_copy(&ex->cfg, cfg);
    if (opt)
        ex->opt = *opt;
    if (ex->opt.timeout_ms <= 0)
        ex->opt.timeout_ms = KUBE_EXEC_TIMEOUT_MS;
    ex->cert_file = ex->opt.cert_file ? xstrdup(ex->opt.cert_file) : NULL;
    ex->key_file = ex->opt.key_file ? xstrdup(ex->opt.key_file) : NULL;
    return ex;
}

void kube_exec_free(struct kube_exec *ex) {
    if (!ex)
        return;
    kube_exec_config_clear(&ex->cfg);
    secret_free(ex->token, 0);
    free(ex->cert_file);
    free(ex->key_file);
    pthread_mutex_destroy(&ex->mu);
    free(ex);
}

const char *kube_exec_command(const struct kube_exec *ex) {
    return ex->cfg.command;
}

int kube_exec_runs(struct kube_exec *ex) {
    pthread_mutex_lock(&ex->mu);
    int n = ex->runs;
    pthread_mutex_unlock(&ex->mu);
    return n;
}

void kube_exec_invalidate(struct kube_exec *ex) {
    pthread_mutex_lock(&ex->mu);
    ex->have = false;
    pthread_mutex_unlock(&ex->mu);
}

/* --- running the plugin ---------------------------------------------------------- */

/* envp: ours minus the names the plugin's env overrides, then its env, then
 * KUBERNETES_EXEC_INFO (client-go sets it for every plugin). Caller frees. */
static char **build_env(const struct kube_exec_config *c) {
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = xcalloc(n + (size_t)c->n_env + 2, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool over = strncmp(environ[i], "KUBERNETES_EXEC_INFO=", 21) == 0;
        for (int j = 0; j < c->n_env && !over; j++) {
            size_t l = strlen(c->env_names[j]);
            over = strncmp(environ[i], c->env_names[j], l) == 0 && environ[i][l] == '=';
        }
        if (!over)
            env[k++] = xstrdup(environ[i]);
    }
    for (int j = 0; j < c->n_env; j++) {
        size_t l = strlen(c->env_names[j]) + strlen(c->env_values[j]) + 2;
        env[k] = xmalloc(l);
        snprintf(env[k++], l, "%s=%s", c->env_names[j], c->env_values[j]);
    }
    char info[256];
    snprintf(info, sizeof info,
             "KUBERNETES_EXEC_INFO={\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\","
             "\"spec\":{\"interactive\":false}}",
             c->api_version);
    env[k++] = xstrdup(info);
    env[k] = NULL;
    return env;
}

static void free_env(char **env) {
    for (size_t i = 0; env[i]; i++)
        secret_free(env[i], 0);
    free(env);
}

/* First line of s (at most 200 bytes) into out. */
static void first_line(const char *s, char *out, size_t cap) {
    size_t n = strcspn(s, "\r\n");
    if (n > 200)
        n = 200;
    snprintf(out, cap, "%.*s", (int)n, s);
}

/* Reads both pipes until EOF or the deadline. false on timeout or overflow
 * (why in err). */
static bool drain(int fo, int fe, struct buf *out, char *ebuf, size_t ecap, int64_t deadline,
                  const char *cmd, char *err, size_t errlen) {
    size_t elen = 0;
    bool open_o = true, open_e = true;
    char chunk[4096];
    while (open_o || open_e) {
        int64_t left = deadline - mono_ms();
        if (left <= 0) {
            snprintf(err, errlen, "exec plugin '%s' did not finish in time (killed)", cmd);
            return false;
        }
        struct pollfd p[2] = {{.fd = open_o ? fo : -1, .events = POLLIN},
                              {.fd = open_e ? fe : -1, .events = POLLIN}};
        int r = poll(p, 2, (int)(left > 1000 ? 1000 : left));
        if (r < 0 && errno != EINTR)
            return false;
        for (int i = 0; i < 2 && r > 0; i++) {
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t got = read(p[i].fd, chunk, sizeof chunk);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                if (i == 0)
                    open_o = false;
                else
                    open_e = false;
                continue;
            }
            if (i == 0) {
                if (buf_append(out, chunk, (size_t)got) != ERR_OK) {
                    snprintf(err, errlen, "exec plugin '%s' printed more than %d bytes", cmd,
                             KUBE_EXEC_MAX_OUTPUT);
                    return false;
                }
            } else if (elen + 1 < ecap) {
                size_t take = (size_t)got < ecap - 1 - elen ? (size_t)got : ecap - 1 - elen;
                memcpy(ebuf + elen, chunk, take);
                elen += take;
                ebuf[elen] = '\0';
            }
        }
    }
    return true;
}

static void cloexec(int fd) {
    fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
}

/* Runs the plugin; its stdout into out. */
static enum err run(struct kube_exec *ex, struct buf *out, char *err, size_t errlen) {
    const struct kube_exec_config *c = &ex->cfg;
    char *argv[KUBECONFIG_MAX_ARGS + 2];
    argv[0] = c->command;
    for (int i = 0; i < c->n_args; i++)
        argv[i + 1] = c->args[i];
    argv[c->n_args + 1] = NULL;
    int po[2], pe[2];
    if (pipe(po) != 0)
        return ERR_IO;
    if (pipe(pe) != 0) {
        close(po[0]);
        close(po[1]);
        return ERR_IO;
    }
    cloexec(po[0]);
    cloexec(po[1]);
    cloexec(pe[0]);
    cloexec(pe[1]);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1); /* dup2 clears FD_CLOEXEC */
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    char **env = build_env(c);
    pid_t pid = 0;
    int sr = posix_spawnp(&pid, c->command, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    free_env(env);
    close(po[1]);
    close(pe[1]);
    if (sr != 0) {
        close(po[0]);
        close(pe[0]);
        if (c->install_hint)
            snprintf(err, errlen, "exec plugin '%s' cannot run: %s (%s)", c->command, strerror(sr),
                     c->install_hint);
        else
            snprintf(err, errlen, "exec plugin '%s' cannot run: %s", c->command, strerror(sr));
        return sr == ENOENT ? ERR_NOTFOUND : ERR_IO;
    }
    char ebuf[512] = "";
    int64_t deadline = mono_ms() + ex->opt.timeout_ms;
    bool ok = drain(po[0], pe[0], out, ebuf, sizeof ebuf, deadline, c->command, err, errlen);
    close(po[0]);
    close(pe[0]);
    if (!ok)
        kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!ok)
        return ERR_IO;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char line[256];
        first_line(ebuf, line, sizeof line);
        if (WIFEXITED(st))
            snprintf(err, errlen, "exec plugin '%s' exited with status %d%s%s", c->command,
                     WEXITSTATUS(st), line[0] ? ": " : "", line);
        else
            snprintf(err, errlen, "exec plugin '%s' was killed by signal %d", c->command,
                     WTERMSIG(st));
        return ERR_IO;
    }
    return ERR_OK;
}

/* Parses the ExecCredential in out and caches it. Called with the lock held. */
static enum err take(struct kube_exec *ex, const struct buf *out, char *err, size_t errlen) {
    const char *cmd = ex->cfg.command;
    struct json_tokener *tk = json_tokener_new_ex(32);
    if (!tk)
        return ERR_NOMEM;
    struct json_object *o = json_tokener_parse_ex(tk, buf_str(out), (int)out->len);
    bool complete = json_tokener_get_error(tk) == json_tokener_success;
    json_tokener_free(tk);
    struct json_object *status = NULL;
    const char *kind = yaml_json_str(o, "kind"), *api = yaml_json_str(o, "apiVersion");
    if (!complete || !kind || strcmp(kind, "ExecCredential") != 0 ||
        !json_object_object_get_ex(o, "status", &status) ||
        !json_object_is_type(status, json_type_object)) {
        json_object_put(o);
        snprintf(err, errlen, "exec plugin '%s' did not print an ExecCredential with a status",
                 cmd);
        return ERR_PARSE;
    }
    if (!api || strcmp(api, ex->cfg.api_version) != 0) {
        snprintf(err, errlen, "exec plugin '%s' answered apiVersion '%s', configured '%s'", cmd,
                 api ? api : "", ex->cfg.api_version);
        json_object_put(o);
        return ERR_PARSE;
    }
    const char *tok = yaml_json_str(status, "token"),
               *exp = yaml_json_str(status, "expirationTimestamp");
    const char *cert = yaml_json_str(status, "clientCertificateData"),
               *key = yaml_json_str(status, "clientKeyData");
    int64_t expiry = 0;
    enum err rc = ERR_OK;
    if (exp && timeutil_parse_rfc3339(exp, strlen(exp), &expiry) != ERR_OK) {
        snprintf(err, errlen, "exec plugin '%s': expirationTimestamp '%.40s' is not RFC 3339", cmd,
                 exp);
        rc = ERR_PARSE;
    } else if (tok && *tok) {
        secret_free(ex->token, 0);
        ex->token = xstrdup(tok);
        ex->is_cert = false;
    } else if (cert && *cert && key && *key) {
        if (!ex->cert_file || !ex->key_file ||
            secret_write_private(ex->cert_file, cert, strlen(cert)) != ERR_OK ||
            secret_write_private(ex->key_file, key, strlen(key)) != ERR_OK) {
            snprintf(err, errlen, "exec plugin '%s': cannot store its client certificate", cmd);
            rc = ERR_IO;
        } else {
            secret_free(ex->token, 0);
            ex->token = NULL;
            ex->is_cert = true;
        }
    } else {
        snprintf(err, errlen,
                 "exec plugin '%s' printed neither status.token nor clientCertificateData and "
                 "clientKeyData",
                 cmd);
        rc = ERR_PARSE;
    }
    json_object_put(o);
    if (rc != ERR_OK)
        return rc;
    ex->have = true;
    ex->expiry = expiry;
    if (expiry) {
        char when[TIMEUTIL_RFC3339_MAX];
        timeutil_format_rfc3339(expiry, when);
        log_msg(LOG_INFO, "kube_exec: '%s' issued a %s valid until %s", cmd,
                ex->is_cert ? "client certificate" : "token", when);
    } else {
        log_msg(LOG_INFO, "kube_exec: '%s' issued a %s without expiry", cmd,
                ex->is_cert ? "client certificate" : "token");
    }
    return ERR_OK;
}

enum err kube_exec_get(struct kube_exec *ex, const char *rejected, char **token, bool *is_cert,
                       char *err, size_t errlen) {
    *token = NULL;
    *is_cert = false;
    if (errlen)
        err[0] = '\0';
    pthread_mutex_lock(&ex->mu);
    bool fresh = ex->have && !(ex->expiry && now_s(ex) + KUBE_EXEC_EXPIRY_SKEW_S >= ex->expiry) &&
                 !(rejected && ex->token && strcmp(rejected, ex->token) == 0);
    enum err rc = ERR_OK;
    if (!fresh) {
        struct buf out;
        buf_init(&out, KUBE_EXEC_MAX_OUTPUT);
        ex->runs++;
        rc = run(ex, &out, err, errlen);
        if (rc == ERR_OK)
            rc = take(ex, &out, err, errlen);
        if (out.data)
            memset(out.data, 0, out.len);
        buf_release(&out);
        if (rc != ERR_OK) {
            ex->have = false;
            log_msg(LOG_WARN, "kube_exec: %s", err);
        }
    }
    if (rc == ERR_OK) {
        *is_cert = ex->is_cert;
        *token = ex->token ? xstrdup(ex->token) : NULL;
    }
    pthread_mutex_unlock(&ex->mu);
    return rc;
}
