/* kubeconfig — merge and resolve kubeconfig files. Invariants: the parsed files
 * live only inside kubeconfig_load; everything returned is copied (heap strings
 * owned by struct kubeconfig_auth); secret strings are zeroed before free. */
#include "source/kubeconfig.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/secret.h"
#include "base/xalloc.h"
#include "source/yaml_json.h"

struct kfile {
    struct json_object *root; /* NULL: empty file */
    char *path;
    char *dir; /* for relative paths */
};

struct kset {
    struct kfile f[KUBECONFIG_MAX_FILES];
    int n;
};

void kube_exec_config_copy(struct kube_exec_config *dst, const struct kube_exec_config *src) {
    memset(dst, 0, sizeof *dst);
    dst->api_version = xstrdup(src->api_version);
    dst->command = xstrdup(src->command);
    for (int i = 0; i < src->n_args; i++)
        dst->args[i] = xstrdup(src->args[i]);
    dst->n_args = src->n_args;
    for (int i = 0; i < src->n_env; i++) {
        dst->env_names[i] = xstrdup(src->env_names[i]);
        dst->env_values[i] = xstrdup(src->env_values[i]);
    }
    dst->n_env = src->n_env;
    dst->install_hint = src->install_hint ? xstrdup(src->install_hint) : NULL;
}

void kube_exec_config_clear(struct kube_exec_config *e) {
    free(e->api_version);
    free(e->command);
    for (int i = 0; i < e->n_args; i++)
        free(e->args[i]);
    for (int i = 0; i < e->n_env; i++) {
        free(e->env_names[i]);
        secret_free(e->env_values[i], 0); /* env values may hold secrets */
    }
    free(e->install_hint);
    memset(e, 0, sizeof *e);
}

void kube_exec_config_free(struct kube_exec_config *e) {
    if (!e)
        return;
    kube_exec_config_clear(e);
    free(e);
}

void kubeconfig_auth_release(struct kubeconfig_auth *a) {
    if (!a)
        return;
    char *plain[] = {a->context, a->cluster,    a->user,      a->ns,       a->server,    a->ca_file,
                     a->ca_data, a->token_file, a->cert_file, a->key_file, a->cert_data, a->source};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        free(plain[i]);
    secret_free(a->token, 0);
    secret_free(a->key_data, a->key_data_len);
    kube_exec_config_free(a->exec);
    memset(a, 0, sizeof *a);
}

/* --- base64 ------------------------------------------------------------------------ */

static int b64_value(int c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

enum err kubeconfig_base64_decode(const char *in, char **out, size_t *out_len) {
    size_t n = strlen(in);
    char *o = xmalloc(n / 4 * 3 + 4);
    size_t k = 0;
    unsigned acc = 0;
    int bits = 0, pad = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)in[i];
        if (isspace(c))
            continue;
        if (c == '=') {
            pad++;
            continue;
        }
        int v = b64_value(c);
        if (v < 0 || pad) { /* a foreign byte, or data after padding */
            free(o);
            return ERR_PARSE;
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[k++] = (char)((acc >> bits) & 0xFF);
        }
    }
    if (bits >= 6 || pad > 2) { /* a lone trailing sextet cannot be a whole byte */
        free(o);
        return ERR_PARSE;
    }
    o[k] = '\0';
    *out = o;
    *out_len = k;
    return ERR_OK;
}

/* --- helpers over the json-c tree ---------------------------------------------------- */

static struct json_object *obj_at(struct json_object *o, const char *key) {
    struct json_object *v;
    if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_object))
        return NULL;
    return v;
}

/* The first file's entry `name` in list `list` (clusters/users/contexts), its
 * inner object `inner`; *file = the index of that file. NULL when absent. */
static struct json_object *find_named(const struct kset *s, const char *list, const char *inner,
                                      const char *name, int *file) {
    for (int i = 0; i < s->n; i++) {
        struct json_object *arr;
        if (!s->f[i].root || !json_object_object_get_ex(s->f[i].root, list, &arr) ||
            !json_object_is_type(arr, json_type_array))
            continue;
        size_t n = json_object_array_length(arr);
        for (size_t j = 0; j < n; j++) {
            struct json_object *e = json_object_array_get_idx(arr, j);
            const char *nm = yaml_json_str(e, "name");
            if (nm && strcmp(nm, name) == 0) {
                *file = i;
                struct json_object *in = obj_at(e, inner);
                /* a named entry without its body is an empty one */
                return in ? in : e;
            }
        }
    }
    return NULL;
}

/* Names of every context, for messages ("a, b, c"), truncated to cap. */
static void context_names(const struct kset *s, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    for (int i = 0; i < s->n; i++) {
        struct json_object *arr;
        if (!s->f[i].root || !json_object_object_get_ex(s->f[i].root, "contexts", &arr) ||
            !json_object_is_type(arr, json_type_array))
            continue;
        for (size_t j = 0; j < json_object_array_length(arr); j++) {
            const char *nm = yaml_json_str(json_object_array_get_idx(arr, j), "name");
            if (!nm)
                continue;
            int w = snprintf(out + k, cap - k, "%s%s", k ? ", " : "", nm);
            if (w < 0 || (size_t)w >= cap - k)
                return;
            k += (size_t)w;
        }
    }
    if (!k)
        snprintf(out, cap, "none");
}

/* A path from file i: absolute as is, relative against the file's directory. */
static char *resolve_path(const struct kset *s, int i, const char *p) {
    if (!p || !*p)
        return NULL;
    if (p[0] == '/' || !s->f[i].dir)
        return xstrdup(p);
    size_t n = strlen(s->f[i].dir) + strlen(p) + 2;
    char *r = xmalloc(n);
    snprintf(r, n, "%s/%s", s->f[i].dir, p);
    return r;
}

static char *dup_or_null(const char *s) {
    return s && *s ? xstrdup(s) : NULL;
}

static void kset_release(struct kset *s) {
    for (int i = 0; i < s->n; i++) {
        json_object_put(s->f[i].root);
        free(s->f[i].path);
        free(s->f[i].dir);
    }
    s->n = 0;
}

static enum err kset_load(struct kset *s, const char *paths, char *err, size_t errlen) {
    char *copy = xstrdup(paths);
    enum err rc = ERR_OK;
    char *save = copy;
    for (char *p = copy; p && rc == ERR_OK; p = save) {
        char *colon = strchr(p, ':');
        save = colon ? colon + 1 : NULL;
        if (colon)
            *colon = '\0';
        if (!*p)
            continue;
        if (s->n >= KUBECONFIG_MAX_FILES) {
            snprintf(err, errlen, "kubeconfig: more than %d files listed", KUBECONFIG_MAX_FILES);
            rc = ERR_INVAL;
            break;
        }
        struct json_object *root = NULL;
        char inner[384];
        enum err r = yaml_json_parse_file(p, &root, inner, sizeof inner);
        if (r == ERR_NOTFOUND)
            continue; /* kubectl skips listed files that do not exist */
        if (r != ERR_OK) {
            snprintf(err, errlen, "kubeconfig: %s", inner);
            rc = r;
            break;
        }
        if (root && !json_object_is_type(root, json_type_object)) {
            json_object_put(root);
            snprintf(err, errlen, "kubeconfig: '%s' is not a kubeconfig (not a mapping)", p);
            rc = ERR_PARSE;
            break;
        }
        struct kfile *f = &s->f[s->n++];
        f->root = root;
        f->path = xstrdup(p);
        const char *slash = strrchr(p, '/');
        f->dir = slash ? xstrndup(p, slash == p ? 1 : (size_t)(slash - p)) : NULL;
    }
    free(copy);
    if (rc == ERR_OK && s->n == 0) {
        snprintf(err, errlen,
                 "kubeconfig: no file of '%s' exists (run `doctl kubernetes cluster kubeconfig "
                 "save CLUSTER`, or pass --kubeconfig PATH)",
                 paths);
        rc = ERR_NOTFOUND;
    }
    return rc;
}

/* --- exec --------------------------------------------------------------------------- */

static enum err parse_exec(const struct kset *s, int fi, struct json_object *ex,
                           struct kube_exec_config **out, char *err, size_t errlen) {
    const char *cmd = yaml_json_str(ex, "command");
    const char *api = yaml_json_str(ex, "apiVersion");
    if (!cmd || !*cmd) {
        snprintf(err, errlen, "kubeconfig '%s': users[].user.exec has no command", s->f[fi].path);
        return ERR_PARSE;
    }
    if (!api || (strcmp(api, "client.authentication.k8s.io/v1") != 0 &&
                 strcmp(api, "client.authentication.k8s.io/v1beta1") != 0)) {
        snprintf(err, errlen,
                 "kubeconfig '%s': exec apiVersion '%s' is not supported (use "
                 "client.authentication.k8s.io/v1 or v1beta1)",
                 s->f[fi].path, api ? api : "");
        return ERR_INVAL;
    }
    struct kube_exec_config *e = xcalloc(1, sizeof *e);
    e->api_version = xstrdup(api);
    /* kubectl: a command with a path separator is relative to the kubeconfig */
    e->command = strchr(cmd, '/') ? resolve_path(s, fi, cmd) : xstrdup(cmd);
    e->install_hint = dup_or_null(yaml_json_str(ex, "installHint"));
    struct json_object *arr;
    if (json_object_object_get_ex(ex, "args", &arr) && json_object_is_type(arr, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(arr); i++) {
            struct json_object *a = json_object_array_get_idx(arr, i);
            if (e->n_args >= KUBECONFIG_MAX_ARGS) {
                snprintf(err, errlen, "kubeconfig '%s': exec has more than %d args", s->f[fi].path,
                         KUBECONFIG_MAX_ARGS);
                kube_exec_config_free(e);
                return ERR_INVAL;
            }
            e->args[e->n_args++] = xstrdup(a ? json_object_get_string(a) : "");
        }
    }
    if (json_object_object_get_ex(ex, "env", &arr) && json_object_is_type(arr, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(arr); i++) {
            struct json_object *a = json_object_array_get_idx(arr, i);
            const char *nm = yaml_json_str(a, "name"), *val = yaml_json_str(a, "value");
            if (!nm || !*nm)
                continue;
            if (e->n_env >= KUBECONFIG_MAX_ARGS) {
                snprintf(err, errlen, "kubeconfig '%s': exec has more than %d env entries",
                         s->f[fi].path, KUBECONFIG_MAX_ARGS);
                kube_exec_config_free(e);
                return ERR_INVAL;
            }
            e->env_names[e->n_env] = xstrdup(nm);
            e->env_values[e->n_env++] = xstrdup(val ? val : "");
        }
    }
    *out = e;
    return ERR_OK;
}

/* --- resolve ------------------------------------------------------------------------- */

static enum err decode_field(const struct kset *s, int fi, struct json_object *o, const char *key,
                             char **out, size_t *len, char *err, size_t errlen) {
    const char *v = yaml_json_str(o, key);
    if (!v || !*v)
        return ERR_OK;
    if (kubeconfig_base64_decode(v, out, len) != ERR_OK) {
        snprintf(err, errlen, "kubeconfig '%s': %s is not valid base64", s->f[fi].path, key);
        return ERR_PARSE;
    }
    return ERR_OK;
}

static enum err resolve_user(const struct kset *s, int fi, struct json_object *u,
                             struct kubeconfig_auth *a, char *err, size_t errlen) {
    if (obj_at(u, "auth-provider")) {
        snprintf(err, errlen,
                 "kubeconfig '%s': user '%s' uses an auth-provider, which is not supported; use "
                 "a token, a client certificate or an exec plugin",
                 s->f[fi].path, a->user);
        return ERR_INVAL;
    }
    if (yaml_json_str(u, "username") || yaml_json_str(u, "password")) {
        snprintf(err, errlen,
                 "kubeconfig '%s': user '%s' uses username/password, which is not supported; use "
                 "a token, a client certificate or an exec plugin",
                 s->f[fi].path, a->user);
        return ERR_INVAL;
    }
    a->token = dup_or_null(yaml_json_str(u, "token"));
    a->token_file = resolve_path(s, fi, yaml_json_str(u, "tokenFile"));
    a->cert_file = resolve_path(s, fi, yaml_json_str(u, "client-certificate"));
    a->key_file = resolve_path(s, fi, yaml_json_str(u, "client-key"));
    enum err rc;
    if ((rc = decode_field(s, fi, u, "client-certificate-data", &a->cert_data, &a->cert_data_len,
                           err, errlen)) != ERR_OK ||
        (rc = decode_field(s, fi, u, "client-key-data", &a->key_data, &a->key_data_len, err,
                           errlen)) != ERR_OK)
        return rc;
    bool cert = a->cert_file || a->cert_data, key = a->key_file || a->key_data;
    if (cert != key) {
        snprintf(err, errlen, "kubeconfig '%s': user '%s' has a client %s without its %s",
                 s->f[fi].path, a->user, cert ? "certificate" : "key",
                 cert ? "key" : "certificate");
        return ERR_PARSE;
    }
    struct json_object *ex = obj_at(u, "exec");
    if (ex && (rc = parse_exec(s, fi, ex, &a->exec, err, errlen)) != ERR_OK)
        return rc;
    return ERR_OK;
}

static enum err resolve(const struct kset *s, const char *context, struct kubeconfig_auth *a,
                        char *err, size_t errlen) {
    char names[256];
    const char *ctx = context && *context ? context : NULL;
    for (int i = 0; !ctx && i < s->n; i++) {
        const char *cc = yaml_json_str(s->f[i].root, "current-context");
        if (cc && *cc)
            ctx = cc;
    }
    if (!ctx) {
        context_names(s, names, sizeof names);
        snprintf(err, errlen,
                 "kubeconfig '%s': no current-context; pass --kube-context NAME (contexts: %s)",
                 s->f[0].path, names);
        return ERR_NOTFOUND;
    }
    int cfi = 0, clfi = 0, ufi = 0;
    struct json_object *c = find_named(s, "contexts", "context", ctx, &cfi);
    if (!c) {
        context_names(s, names, sizeof names);
        snprintf(err, errlen,
                 "kubeconfig: no context '%s' (contexts: %s); pass --kube-context NAME", ctx,
                 names);
        return ERR_NOTFOUND;
    }
    a->context = xstrdup(ctx);
    a->source = xstrdup(s->f[cfi].path);
    a->cluster = dup_or_null(yaml_json_str(c, "cluster"));
    a->user = dup_or_null(yaml_json_str(c, "user"));
    a->ns = dup_or_null(yaml_json_str(c, "namespace"));
    struct json_object *cl =
        a->cluster ? find_named(s, "clusters", "cluster", a->cluster, &clfi) : NULL;
    if (!cl) {
        snprintf(err, errlen,
                 "kubeconfig '%s': context '%s' names cluster '%s', which is not defined",
                 a->source, ctx, a->cluster ? a->cluster : "");
        return ERR_NOTFOUND;
    }
    const char *server = yaml_json_str(cl, "server");
    if (!server || (strncmp(server, "https://", 8) != 0 && strncmp(server, "http://", 7) != 0)) {
        snprintf(err, errlen, "kubeconfig '%s': cluster '%s' has no http(s) server URL",
                 s->f[clfi].path, a->cluster);
        return ERR_PARSE;
    }
    a->server = xstrdup(server);
    a->ca_file = resolve_path(s, clfi, yaml_json_str(cl, "certificate-authority"));
    const char *ins = yaml_json_str(cl, "insecure-skip-tls-verify");
    a->insecure = ins && (strcmp(ins, "true") == 0 || strcmp(ins, "True") == 0);
    enum err rc = decode_field(s, clfi, cl, "certificate-authority-data", &a->ca_data,
                               &a->ca_data_len, err, errlen);
    if (rc != ERR_OK)
        return rc;
    if (!a->user)
        return ERR_OK; /* no credentials: anonymous */
    struct json_object *u = find_named(s, "users", "user", a->user, &ufi);
    if (!u) {
        snprintf(err, errlen, "kubeconfig '%s': context '%s' names user '%s', which is not defined",
                 a->source, ctx, a->user);
        return ERR_NOTFOUND;
    }
    return resolve_user(s, ufi, u, a, err, errlen);
}

enum err kubeconfig_load(const char *paths, const char *context, struct kubeconfig_auth *out,
                         char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (errlen)
        err[0] = '\0';
    struct kset s;
    memset(&s, 0, sizeof s);
    enum err rc = kset_load(&s, paths ? paths : "", err, errlen);
    if (rc == ERR_OK)
        rc = resolve(&s, context, out, err, errlen);
    if (rc != ERR_OK)
        kubeconfig_auth_release(out);
    kset_release(&s);
    return rc;
}

bool kubeconfig_doks_cluster_id(const char *server, char out[37]) {
    static const char suffix[] = ".k8s.ondigitalocean.com";
    if (!server || strncmp(server, "https://", 8) != 0)
        return false;
    const char *h = server + 8;
    for (int i = 0; i < 36; i++) {
        int c = (unsigned char)h[i];
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? c != '-' : !isxdigit(c))
            return false;
    }
    const char *rest = h + 36;
    size_t sl = sizeof suffix - 1;
    if (strncmp(rest, suffix, sl) != 0 || (rest[sl] != '\0' && rest[sl] != ':' && rest[sl] != '/'))
        return false;
    for (int i = 0; i < 36; i++)
        out[i] = (char)tolower((unsigned char)h[i]);
    out[36] = '\0';
    return true;
}
