/* do_token — the DigitalOcean token's sources in order (do_token.h). */
#include "source/do_token.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/secret.h"
#include "base/xalloc.h"
#include "source/yaml_json.h"

/* doctl's config: the current context's token. ERR_NOTFOUND when the file is
 * missing or holds none for that context. */
static enum err from_doctl(const char *path, const char *(*getenv_fn)(const char *), char **out,
                           char *source, size_t srclen, char *err, size_t errlen) {
    struct json_object *root = NULL;
    char inner[384];
    enum err rc = yaml_json_parse_file(path, &root, inner, sizeof inner);
    if (rc != ERR_OK) {
        snprintf(err, errlen, "doctl config: %s", inner);
        return rc;
    }
    const char *ctx = getenv_fn("DIGITALOCEAN_CONTEXT");
    if (!ctx || !*ctx)
        ctx = yaml_json_str(root, "context");
    const char *tok = NULL;
    if (!ctx || !*ctx || strcmp(ctx, "default") == 0) {
        ctx = "default";
        tok = yaml_json_str(root, "access-token");
    } else {
        struct json_object *ac = NULL;
        if (json_object_object_get_ex(root, "auth-contexts", &ac))
            tok = yaml_json_str(ac, ctx);
    }
    if (!tok || !*tok) {
        snprintf(err, errlen,
                 "doctl config '%s' holds no token for context '%s' (run `doctl auth init%s%s`)",
                 path, ctx, strcmp(ctx, "default") ? " --context " : "",
                 strcmp(ctx, "default") ? ctx : "");
        json_object_put(root);
        return ERR_NOTFOUND;
    }
    *out = xstrdup(tok);
    snprintf(source, srclen, "doctl config '%s' context '%s'", path, ctx);
    json_object_put(root);
    return ERR_OK;
}

enum err do_token_find(const char *token_file, const char *doctl_config,
                       const char *(*getenv_fn)(const char *), char **out, char *source,
                       size_t srclen, char *err, size_t errlen) {
    *out = NULL;
    if (errlen)
        err[0] = '\0';
    if (token_file && *token_file) {
        enum err rc = secret_read(token_file, out);
        if (rc != ERR_OK) {
            snprintf(err, errlen, "--do-token-file: cannot read '%s': %s", token_file,
                     rc == ERR_INVAL ? "file is empty" : err_str(rc));
            return rc;
        }
        snprintf(source, srclen, "--do-token-file '%s'", token_file);
        return ERR_OK;
    }
    static const char *const vars[] = {"DIGITALOCEAN_TOKEN", "DIGITALOCEAN_ACCESS_TOKEN"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv_fn(vars[i]);
        if (v && *v) {
            *out = xstrdup(v);
            snprintf(source, srclen, "%s", vars[i]);
            return ERR_OK;
        }
    }
    char def[512];
    const char *path = doctl_config;
    if (!path || !*path) {
        const char *xdg = getenv_fn("XDG_CONFIG_HOME"), *home = getenv_fn("HOME");
        if (xdg && *xdg)
            snprintf(def, sizeof def, "%s/doctl/config.yaml", xdg);
        else
            snprintf(def, sizeof def, "%s/.config/doctl/config.yaml", home ? home : "");
        path = def;
    }
    char derr[1024];
    enum err rc = from_doctl(path, getenv_fn, out, source, srclen, derr, sizeof derr);
    if (rc == ERR_OK)
        return ERR_OK;
    if (rc == ERR_NOTFOUND)
        snprintf(err, errlen,
                 "no DigitalOcean token: pass --do-token-file PATH, set DIGITALOCEAN_TOKEN or "
                 "DIGITALOCEAN_ACCESS_TOKEN, or run `doctl auth init` (%s)",
                 derr);
    else
        snprintf(err, errlen, "%s", derr);
    return rc;
}
