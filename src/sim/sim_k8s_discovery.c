/* sim_k8s_discovery — discovery and OpenAPI documents of spotsim's Kubernetes
 * API (sim_k8s_serve.h): /version, /api, /apis, the group versions, /openapi. */
#include "sim/sim_k8s_serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "sim/sim_k8s_render.h"

static void api_resource(struct jsonw *j, const char *name, const char *singular, const char *kind,
                         bool namespaced, const char *shortname) {
    jsonw_obj(j);
    jsonw_kstr(j, "name", name);
    jsonw_kstr(j, "singularName", singular);
    jsonw_kbool(j, "namespaced", namespaced);
    jsonw_kstr(j, "kind", kind);
    jsonw_key(j, "verbs");
    jsonw_arr(j);
    jsonw_str(j, "get");
    jsonw_str(j, "list");
    jsonw_str(j, "watch");
    jsonw_arr_end(j);
    if (shortname) {
        jsonw_key(j, "shortNames");
        jsonw_arr(j);
        jsonw_str(j, shortname);
        jsonw_arr_end(j);
    }
    jsonw_obj_end(j);
}

/* {"groupVersion": gv, "version": "v1"} (every group serves v1 only). */
static void group_version(struct jsonw *j, const char *gv) {
    jsonw_obj(j);
    jsonw_kstr(j, "groupVersion", gv);
    jsonw_kstr(j, "version", "v1");
    jsonw_obj_end(j);
}

/* /openapi/v2 (Swagger 2.0) and /openapi/v3[/<group path>] (OpenAPI 3.0): valid
 * documents without schemas; spotsim does not publish models (README). */
static void openapi(char segs[K8S_MAX_SEGS][128], int n, struct jsonw *j) {
    jsonw_obj(j);
    if (strcmp(segs[1], "v2") == 0) {
        jsonw_kstr(j, "swagger", "2.0");
    } else if (n == 2) {
        static const char *const gv[] = {"api/v1", "apis/batch/v1", "apis/policy/v1"};
        jsonw_key(j, "paths");
        jsonw_obj(j);
        for (int k = 0; k < 3; k++) {
            char url[96];
            snprintf(url, sizeof url, "/openapi/v3/%s?hash=0", gv[k]);
            jsonw_key(j, gv[k]);
            jsonw_obj(j);
            jsonw_kstr(j, "serverRelativeURL", url);
            jsonw_obj_end(j);
        }
        jsonw_obj_end(j);
        jsonw_obj_end(j);
        return;
    } else {
        jsonw_kstr(j, "openapi", "3.0.0");
    }
    jsonw_key(j, "info");
    jsonw_obj(j);
    jsonw_kstr(j, "title", "Kubernetes");
    jsonw_kstr(j, "version", "v1.33.1");
    jsonw_obj_end(j);
    jsonw_key(j, "paths");
    jsonw_obj(j);
    jsonw_obj_end(j);
    if (strcmp(segs[1], "v2") == 0) {
        jsonw_key(j, "definitions");
        jsonw_obj(j);
        jsonw_obj_end(j);
    } else {
        jsonw_key(j, "components");
        jsonw_obj(j);
        jsonw_key(j, "schemas");
        jsonw_obj(j);
        jsonw_obj_end(j);
        jsonw_obj_end(j);
    }
    jsonw_obj_end(j);
}

bool sim_k8s_path(const char *path) {
    static const char *const roots[] = {"/version", "/api", "/apis", "/openapi"};
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        size_t l = strlen(roots[i]);
        if (strncmp(path, roots[i], l) == 0 && (path[l] == '\0' || path[l] == '/'))
            return true;
    }
    return false;
}

bool sim_k8s_discovery(const struct sim_world *w, char segs[K8S_MAX_SEGS][128], int n, int64_t now,
                       struct response *resp) {
    struct jsonw j;
    buf_reset(&resp->body);
    jsonw_init(&j, &resp->body);
    resp->status = 200;
    if (n == 1 && strcmp(segs[0], "version") == 0) {
        jsonw_obj(&j);
        jsonw_kstr(&j, "major", "1");
        jsonw_kstr(&j, "minor", "33");
        jsonw_kstr(&j, "gitVersion", "v1.33.1");
        jsonw_kstr(&j, "gitCommit", "spotsim");
        jsonw_kstr(&j, "gitTreeState", "clean");
        jsonw_ktime(&j, "buildDate", w->sc->start);
        jsonw_kstr(&j, "goVersion", "go1.24.2");
        jsonw_kstr(&j, "compiler", "gc");
        jsonw_kstr(&j, "platform", "linux/amd64");
        jsonw_obj_end(&j);
        return true;
    }
    if (n >= 2 && strcmp(segs[0], "openapi") == 0) {
        openapi(segs, n, &j);
        return true;
    }
    if (n == 1 && strcmp(segs[0], "api") == 0) {
        jsonw_obj(&j);
        jsonw_kstr(&j, "kind", "APIVersions");
        jsonw_key(&j, "versions");
        jsonw_arr(&j);
        jsonw_str(&j, "v1");
        jsonw_arr_end(&j);
        jsonw_key(&j, "serverAddressByClientCIDRs");
        jsonw_arr(&j);
        jsonw_obj(&j);
        jsonw_kstr(&j, "clientCIDR", "0.0.0.0/0");
        jsonw_kstr(&j, "serverAddress", "127.0.0.1:443");
        jsonw_obj_end(&j);
        jsonw_arr_end(&j);
        jsonw_obj_end(&j);
        return true;
    }
    if (n == 1 && strcmp(segs[0], "apis") == 0) {
        jsonw_obj(&j);
        jsonw_kstr(&j, "kind", "APIGroupList");
        jsonw_kstr(&j, "apiVersion", "v1");
        jsonw_key(&j, "groups");
        jsonw_arr(&j);
        static const char *const groups[][2] = {{"batch", "batch/v1"}, {"policy", "policy/v1"}};
        for (int g = 0; g < 2; g++) {
            jsonw_obj(&j);
            jsonw_kstr(&j, "name", groups[g][0]);
            jsonw_key(&j, "versions");
            jsonw_arr(&j);
            group_version(&j, groups[g][1]);
            jsonw_arr_end(&j);
            jsonw_key(&j, "preferredVersion");
            group_version(&j, groups[g][1]);
            jsonw_obj_end(&j);
        }
        jsonw_arr_end(&j);
        jsonw_obj_end(&j);
        return true;
    }
    if ((n == 2 && strcmp(segs[0], "api") == 0 && strcmp(segs[1], "v1") == 0) ||
        (n == 3 && strcmp(segs[0], "apis") == 0 &&
         (strcmp(segs[1], "batch") == 0 || strcmp(segs[1], "policy") == 0) &&
         strcmp(segs[2], "v1") == 0)) {
        bool core = n == 2, policy = !core && segs[1][0] == 'p';
        jsonw_obj(&j);
        jsonw_kstr(&j, "kind", "APIResourceList");
        jsonw_kstr(&j, "apiVersion", "v1");
        jsonw_kstr(&j, "groupVersion", core ? "v1" : policy ? "policy/v1" : "batch/v1");
        jsonw_key(&j, "resources");
        jsonw_arr(&j);
        if (core) {
            api_resource(&j, "events", "event", "Event", true, "ev");
            api_resource(&j, "namespaces", "namespace", "Namespace", false, "ns");
            api_resource(&j, "nodes", "node", "Node", false, "no");
            api_resource(&j, "pods", "pod", "Pod", true, "po");
        } else if (policy) {
            api_resource(&j, "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget",
                         true, "pdb");
        } else {
            api_resource(&j, "jobs", "job", "Job", true, NULL);
        }
        jsonw_arr_end(&j);
        jsonw_obj_end(&j);
        return true;
    }
    if (n == 3 && strcmp(segs[0], "api") == 0 && strcmp(segs[2], "namespaces") == 0) {
        static const char *const nss[] = {"default", "kube-system"};
        jsonw_obj(&j);
        jsonw_kstr(&j, "kind", "NamespaceList");
        jsonw_kstr(&j, "apiVersion", "v1");
        jsonw_key(&j, "metadata");
        jsonw_obj(&j);
        sim_render_krv(&j, sim_world_seq_at(w, now));
        jsonw_obj_end(&j);
        jsonw_key(&j, "items");
        jsonw_arr(&j);
        for (int k = 0; k < 3; k++) {
            const char *name = k < 2 ? nss[k] : w->sc->namespace_;
            if (k == 2 && (strcmp(name, "default") == 0 || strcmp(name, "kube-system") == 0))
                continue;
            jsonw_obj(&j);
            jsonw_key(&j, "metadata");
            jsonw_obj(&j);
            jsonw_kstr(&j, "name", name);
            jsonw_kstr(&j, "resourceVersion", "1");
            jsonw_ktime(&j, "creationTimestamp", w->sc->start - 86400);
            jsonw_obj_end(&j);
            jsonw_key(&j, "status");
            jsonw_obj(&j);
            jsonw_kstr(&j, "phase", "Active");
            jsonw_obj_end(&j);
            jsonw_obj_end(&j);
        }
        jsonw_arr_end(&j);
        jsonw_obj_end(&j);
        return true;
    }
    return false;
}

/* group: "" (core), "batch" or "policy". */
