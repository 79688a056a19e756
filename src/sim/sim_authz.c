/* sim_authz — denied DigitalOcean scopes and Kubernetes verbs (sim_authz.h). */
#include "sim/sim_authz.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "base/jsonw.h"

static const char *const SCOPES[] = {"kubernetes:read", "billing:read", "sizes:read",
                                     "account:read", "droplet:read"};

enum err sim_authz_deny_scope(struct sim_authz *a, const char *scope) {
    bool known = false;
    for (size_t i = 0; i < sizeof SCOPES / sizeof *SCOPES; i++)
        known = known || strcmp(scope, SCOPES[i]) == 0;
    if (!known)
        return ERR_INVAL;
    if (a->n_scopes >= SIM_AUTHZ_MAX)
        return ERR_TOOBIG;
    snprintf(a->scopes[a->n_scopes++], sizeof a->scopes[0], "%s", scope);
    return ERR_OK;
}

enum err sim_authz_deny_verb(struct sim_authz *a, const char *vr) {
    const char *colon = strchr(vr, ':');
    if (!colon || colon == vr || !colon[1] || strlen(colon + 1) >= sizeof a->resources[0])
        return ERR_INVAL;
    size_t vl = (size_t)(colon - vr);
    if (!((vl == 3 && strncmp(vr, "get", 3) == 0) || (vl == 4 && strncmp(vr, "list", 4) == 0) ||
          (vl == 5 && strncmp(vr, "watch", 5) == 0)))
        return ERR_INVAL;
    if (a->n_verbs >= SIM_AUTHZ_MAX)
        return ERR_TOOBIG;
    snprintf(a->verbs[a->n_verbs], sizeof a->verbs[0], "%.*s", (int)vl, vr);
    snprintf(a->resources[a->n_verbs++], sizeof a->resources[0], "%s", colon + 1);
    return ERR_OK;
}

const char *sim_authz_do_scope(const char *path) {
    if (strncmp(path, "/v2/", 4) != 0)
        return NULL;
    const char *p = path + 4;
    if (strncmp(p, "kubernetes/", 11) == 0)
        return "kubernetes:read";
    if (strncmp(p, "customers/my/", 13) == 0 || strncmp(p, "billing/", 8) == 0)
        return "billing:read";
    if (strcmp(p, "sizes") == 0)
        return "sizes:read";
    if (strcmp(p, "account") == 0)
        return "account:read";
    if (strncmp(p, "droplets", 8) == 0)
        return "droplet:read";
    return NULL;
}

bool sim_authz_do_denied(const struct sim_authz *a, const char *path) {
    const char *s = a ? sim_authz_do_scope(path) : NULL;
    for (int i = 0; s && i < a->n_scopes; i++)
        if (strcmp(a->scopes[i], s) == 0)
            return true;
    return false;
}

bool sim_authz_k8s_request(const char *path, bool watch, char verb[16], char resource[64]) {
    char segs[8][128];
    int n = 0;
    const char *p = path;
    while (*p && n < 8) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        size_t l = strcspn(p, "/");
        if (l >= sizeof segs[0])
            return false;
        memcpy(segs[n], p, l);
        segs[n++][l] = '\0';
        p += l;
    }
    if (*p)
        return false;
    /* /api/v1/...  or  /apis/GROUP/VERSION/... */
    int i;
    if (n >= 2 && strcmp(segs[0], "api") == 0)
        i = 2;
    else if (n >= 3 && strcmp(segs[0], "apis") == 0)
        i = 3;
    else
        return false;
    if (i + 1 < n && strcmp(segs[i], "namespaces") == 0 && i + 2 < n)
        i += 2;
    if (i >= n)
        return false;
    snprintf(resource, 64, "%.63s", segs[i]); /* as snprintf cuts it; -O0 warns otherwise */
    if (i + 1 < n)
        snprintf(verb, 16, "get");
    else
        snprintf(verb, 16, "%s", watch ? "watch" : "list");
    return true;
}

bool sim_authz_k8s_denied(const struct sim_authz *a, const char *verb, const char *resource) {
    for (int i = 0; a && i < a->n_verbs; i++)
        if (strcmp(a->verbs[i], verb) == 0 && strcmp(a->resources[i], resource) == 0)
            return true;
    return false;
}

bool sim_authz_is_ssar(const char *method, const char *path) {
    return strcmp(method, "POST") == 0 &&
           strcmp(path, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews") == 0;
}

static const char *jstr(struct json_object *o, const char *key) {
    struct json_object *v;
    if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

enum err sim_authz_ssar(const struct sim_authz *a, const char *body, size_t len, struct buf *out) {
    struct json_tokener *tk = json_tokener_new_ex(16);
    if (!tk)
        return ERR_NOMEM;
    struct json_object *o = json_tokener_parse_ex(tk, body ? body : "", (int)len);
    bool ok = json_tokener_get_error(tk) == json_tokener_success;
    json_tokener_free(tk);
    struct json_object *spec = NULL, *ra = NULL;
    if (!ok || !json_object_object_get_ex(o, "spec", &spec) ||
        !json_object_object_get_ex(spec, "resourceAttributes", &ra)) {
        json_object_put(o);
        return ERR_PARSE;
    }
    const char *verb = jstr(ra, "verb"), *res = jstr(ra, "resource");
    const char *group = jstr(ra, "group"), *ns = jstr(ra, "namespace");
    bool denied = verb && res && sim_authz_k8s_denied(a, verb, res);
    struct jsonw j;
    jsonw_init(&j, out);
    jsonw_obj(&j);
    jsonw_kstr(&j, "kind", "SelfSubjectAccessReview");
    jsonw_kstr(&j, "apiVersion", "authorization.k8s.io/v1");
    jsonw_key(&j, "metadata");
    jsonw_obj(&j);
    jsonw_obj_end(&j);
    jsonw_key(&j, "spec");
    jsonw_obj(&j);
    jsonw_key(&j, "resourceAttributes");
    jsonw_obj(&j);
    jsonw_kstr(&j, "verb", verb ? verb : "");
    jsonw_kstr(&j, "group", group ? group : "");
    jsonw_kstr(&j, "resource", res ? res : "");
    if (ns)
        jsonw_kstr(&j, "namespace", ns);
    jsonw_obj_end(&j);
    jsonw_obj_end(&j);
    jsonw_key(&j, "status");
    jsonw_obj(&j);
    jsonw_kbool(&j, "allowed", !denied);
    if (denied)
        jsonw_kstr(&j, "reason", "spotsim --deny-verb");
    jsonw_obj_end(&j);
    jsonw_obj_end(&j);
    json_object_put(o);
    return ERR_OK;
}
