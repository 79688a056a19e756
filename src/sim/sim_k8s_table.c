/* sim_k8s_table — see sim_k8s_table.h. */
#include "sim/sim_k8s_table.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/timeutil.h"
#include "sim/sim_k8s_obj.h"
#include "sim/sim_k8s_render.h"

bool sim_table_wanted(const char *accept) {
    return accept && strstr(accept, "as=Table") != NULL;
}

void sim_table_age(int64_t s, char *out, size_t n) {
    if (s < 0)
        s = 0;
    int64_t m = s / 60, h = s / 3600, d = s / 86400;
    if (s < 120)
        snprintf(out, n, "%llds", (long long)s);
    else if (m < 10 && s % 60)
        snprintf(out, n, "%lldm%llds", (long long)m, (long long)(s % 60));
    else if (m < 180)
        snprintf(out, n, "%lldm", (long long)m);
    else if (h < 8 && m % 60)
        snprintf(out, n, "%lldh%lldm", (long long)h, (long long)(m % 60));
    else if (h < 48)
        snprintf(out, n, "%lldh", (long long)h);
    else if (h < 192 && h % 24)
        snprintf(out, n, "%lldd%lldh", (long long)d, (long long)(h % 24));
    else if (d < 730)
        snprintf(out, n, "%lldd", (long long)d);
    else
        snprintf(out, n, "%lldy", (long long)(d / 365));
}

struct col {
    const char *name, *type, *format;
    int priority;
};

static const struct col pod_cols[] = {{"Name", "string", "name", 0},
                                      {"Ready", "string", "", 0},
                                      {"Status", "string", "", 0},
                                      {"Restarts", "string", "", 0},
                                      {"Age", "string", "", 0},
                                      {"IP", "string", "", 1},
                                      {"Node", "string", "", 1},
                                      {"Nominated Node", "string", "", 1},
                                      {"Readiness Gates", "string", "", 1},
                                      {NULL, NULL, NULL, 0}};
static const struct col node_cols[] = {{"Name", "string", "name", 0},
                                       {"Status", "string", "", 0},
                                       {"Roles", "string", "", 0},
                                       {"Age", "string", "", 0},
                                       {"Version", "string", "", 0},
                                       {"Internal-IP", "string", "", 1},
                                       {"External-IP", "string", "", 1},
                                       {"OS-Image", "string", "", 1},
                                       {"Kernel-Version", "string", "", 1},
                                       {"Container-Runtime", "string", "", 1},
                                       {NULL, NULL, NULL, 0}};
static const struct col job_cols[] = {
    {"Name", "string", "name", 0}, {"Status", "string", "", 0},   {"Completions", "string", "", 0},
    {"Duration", "string", "", 0}, {"Age", "string", "", 0},      {"Containers", "string", "", 1},
    {"Images", "string", "", 1},   {"Selector", "string", "", 1}, {NULL, NULL, NULL, 0}};
static const struct col event_cols[] = {
    {"Last Seen", "string", "", 0}, {"Type", "string", "", 0},
    {"Reason", "string", "", 0},    {"Object", "string", "", 0},
    {"Subobject", "string", "", 1}, {"Source", "string", "", 1},
    {"Message", "string", "", 0},   {"First Seen", "string", "", 1},
    {"Count", "integer", "", 1},    {"Name", "string", "name", 1},
    {NULL, NULL, NULL, 0}};
static const struct col pdb_cols[] = {{"Name", "string", "name", 0},
                                      {"Min Available", "string", "", 0},
                                      {"Max Unavailable", "string", "", 0},
                                      {"Allowed Disruptions", "integer", "", 0},
                                      {"Age", "string", "", 0},
                                      {NULL, NULL, NULL, 0}};

static const struct col *cols_of(enum sim_kind kind) {
    switch (kind) {
    case SIM_K_POD:
        return pod_cols;
    case SIM_K_NODE:
        return node_cols;
    case SIM_K_JOB:
        return job_cols;
    case SIM_K_PDB:
        return pdb_cols;
    default:
        return event_cols;
    }
}

void sim_table_begin(struct jsonw *j, enum sim_kind kind, int64_t rv, const char *cont,
                     int64_t remaining) {
    jsonw_obj(j);
    jsonw_kstr(j, "kind", "Table");
    jsonw_kstr(j, "apiVersion", "meta.k8s.io/v1");
    jsonw_key(j, "metadata");
    jsonw_obj(j);
    sim_render_krv(j, rv);
    if (cont) {
        jsonw_kstr(j, "continue", cont);
        jsonw_kint(j, "remainingItemCount", remaining);
    }
    jsonw_obj_end(j);
    jsonw_key(j, "columnDefinitions");
    jsonw_arr(j);
    for (const struct col *c = cols_of(kind); c->name; c++) {
        jsonw_obj(j);
        jsonw_kstr(j, "name", c->name);
        jsonw_kstr(j, "type", c->type);
        jsonw_kstr(j, "format", c->format);
        jsonw_kstr(j, "description", "");
        jsonw_kint(j, "priority", c->priority);
        jsonw_obj_end(j);
    }
    jsonw_arr_end(j);
    jsonw_key(j, "rows");
    jsonw_arr(j);
}

void sim_table_end(struct jsonw *j) {
    jsonw_arr_end(j);
    jsonw_obj_end(j);
}

/* --- reading the rendered object --- */

static json_object *at(json_object *o, const char *path) {
    char key[64];
    while (o && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        json_object *next = NULL;
        if (json_object_is_type(o, json_type_array)) {
            o = json_object_array_get_idx(o, (size_t)(key[0] - '0'));
        } else if (json_object_object_get_ex(o, key, &next)) {
            o = next;
        } else {
            return NULL;
        }
        path += n + (path[n] == '.');
    }
    return o;
}

static const char *str(json_object *o, const char *path, const char *def) {
    json_object *v = at(o, path);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : def;
}

static int64_t num(json_object *o, const char *path) {
    json_object *v = at(o, path);
    return v ? json_object_get_int64(v) : 0;
}

static int64_t when(json_object *o, const char *path) {
    const char *s = str(o, path, NULL);
    int64_t t = 0;
    if (s && timeutil_parse_rfc3339(s, strlen(s), &t) != ERR_OK)
        t = 0;
    return t;
}

/* The condition of `type` in o.status.conditions, or NULL. */
static json_object *condition(json_object *o, const char *type) {
    json_object *cs = at(o, "status.conditions");
    size_t n = cs && json_object_is_type(cs, json_type_array) ? json_object_array_length(cs) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(cs, i);
        if (strcmp(str(c, "type", ""), type) == 0)
            return c;
    }
    return NULL;
}

static void age_cell(struct jsonw *j, json_object *o, const char *path, int64_t now) {
    char a[32];
    int64_t t = when(o, path);
    if (t)
        sim_table_age(now - t, a, sizeof a);
    else
        snprintf(a, sizeof a, "<unknown>");
    jsonw_str(j, a);
}

static void address(json_object *o, const char *type, char *out, size_t n) {
    json_object *as = at(o, "status.addresses");
    size_t k = as && json_object_is_type(as, json_type_array) ? json_object_array_length(as) : 0;
    snprintf(out, n, "<none>");
    for (size_t i = 0; i < k; i++) {
        json_object *a = json_object_array_get_idx(as, i);
        if (strcmp(str(a, "type", ""), type) == 0)
            snprintf(out, n, "%s", str(a, "address", "<none>"));
    }
}

static void pod_cells(struct jsonw *j, json_object *o, int64_t now) {
    const char *phase = str(o, "status.phase", "Pending");
    const char *status = str(o, "status.reason", phase);
    json_object *cs = at(o, "status.containerStatuses.0");
    if (cs && at(cs, "state.waiting"))
        status = str(cs, "state.waiting.reason", status);
    else if (cs && at(cs, "state.terminated"))
        status = str(cs, "state.terminated.reason", status);
    if (at(o, "metadata.deletionTimestamp") && !at(o, "status.reason"))
        status = "Terminating";
    bool ready = cs && json_object_get_boolean(at(cs, "ready"));
    jsonw_str(j, str(o, "metadata.name", ""));
    jsonw_str(j, ready ? "1/1" : "0/1");
    jsonw_str(j, status);
    jsonw_str(j, "0");
    age_cell(j, o, "metadata.creationTimestamp", now);
    jsonw_str(j, str(o, "status.podIP", "<none>"));
    jsonw_str(j, str(o, "spec.nodeName", "<none>"));
    jsonw_str(j, "<none>");
    jsonw_str(j, "<none>");
}

static void node_cells(struct jsonw *j, json_object *o, int64_t now) {
    json_object *rc = condition(o, "Ready");
    const char *rs = rc ? str(rc, "status", "Unknown") : "Unknown";
    char status[64], ip[64];
    snprintf(status, sizeof status, "%s%s",
             strcmp(rs, "True") == 0    ? "Ready"
             : strcmp(rs, "False") == 0 ? "NotReady"
                                        : "NotReady",
             at(o, "spec.unschedulable") ? ",SchedulingDisabled" : "");
    jsonw_str(j, str(o, "metadata.name", ""));
    jsonw_str(j, status);
    jsonw_str(j, "<none>");
    age_cell(j, o, "metadata.creationTimestamp", now);
    jsonw_str(j, str(o, "status.nodeInfo.kubeletVersion", ""));
    address(o, "InternalIP", ip, sizeof ip);
    jsonw_str(j, ip);
    address(o, "ExternalIP", ip, sizeof ip);
    jsonw_str(j, ip);
    jsonw_str(j, str(o, "status.nodeInfo.osImage", "<unknown>"));
    jsonw_str(j, str(o, "status.nodeInfo.kernelVersion", "<unknown>"));
    jsonw_str(j, str(o, "status.nodeInfo.containerRuntimeVersion", "<unknown>"));
}

static void job_cells(struct jsonw *j, json_object *o, int64_t now) {
    json_object *done = condition(o, "Complete"), *failed = condition(o, "Failed");
    const char *status = "Running";
    if (done && strcmp(str(done, "status", ""), "True") == 0)
        status = "Complete";
    else if (failed && strcmp(str(failed, "status", ""), "True") == 0)
        status = "Failed";
    char comp[32], dur[32], sel[128];
    snprintf(comp, sizeof comp, "%lld/%lld", (long long)num(o, "status.succeeded"),
             (long long)num(o, "spec.completions"));
    int64_t start = when(o, "status.startTime"), end = when(o, "status.completionTime");
    if (start)
        sim_table_age((end ? end : now) - start, dur, sizeof dur);
    else
        dur[0] = '\0';
    snprintf(sel, sizeof sel, "batch.kubernetes.io/controller-uid=%s", str(o, "metadata.uid", ""));
    jsonw_str(j, str(o, "metadata.name", ""));
    jsonw_str(j, status);
    jsonw_str(j, comp);
    jsonw_str(j, dur);
    age_cell(j, o, "metadata.creationTimestamp", now);
    jsonw_str(j, str(o, "spec.template.spec.containers.0.name", ""));
    jsonw_str(j, str(o, "spec.template.spec.containers.0.image", ""));
    jsonw_str(j, sel);
}

static void event_cells(struct jsonw *j, json_object *o, int64_t now) {
    char obj[256], src[160];
    const char *kind = str(o, "involvedObject.kind", "");
    char lower[32];
    size_t k = 0;
    for (; kind[k] && k < sizeof lower - 1; k++)
        lower[k] = (char)(kind[k] >= 'A' && kind[k] <= 'Z' ? kind[k] - 'A' + 'a' : kind[k]);
    lower[k] = '\0';
    snprintf(obj, sizeof obj, "%s/%s", lower, str(o, "involvedObject.name", ""));
    snprintf(src, sizeof src, "%s%s%s", str(o, "source.component", ""),
             at(o, "source.host") ? ", " : "", str(o, "source.host", ""));
    age_cell(j, o, "lastTimestamp", now);
    jsonw_str(j, str(o, "type", ""));
    jsonw_str(j, str(o, "reason", ""));
    jsonw_str(j, obj);
    jsonw_str(j, str(o, "involvedObject.fieldPath", ""));
    jsonw_str(j, src);
    jsonw_str(j, str(o, "message", ""));
    age_cell(j, o, "firstTimestamp", now);
    jsonw_int(j, num(o, "count") ? num(o, "count") : 1);
    jsonw_str(j, str(o, "metadata.name", ""));
}

static void pdb_cells(struct jsonw *j, json_object *o, int64_t now) {
    char v[24];
    jsonw_str(j, str(o, "metadata.name", ""));
    json_object *mn = at(o, "spec.minAvailable"), *mx = at(o, "spec.maxUnavailable");
    snprintf(v, sizeof v, "%lld", (long long)json_object_get_int64(mn));
    jsonw_str(j, mn ? v : "N/A");
    snprintf(v, sizeof v, "%lld", (long long)json_object_get_int64(mx));
    jsonw_str(j, mx ? v : "N/A");
    jsonw_int(j, num(o, "status.disruptionsAllowed"));
    age_cell(j, o, "metadata.creationTimestamp", now);
}

void sim_table_row(struct jsonw *j, const struct sim_world *w, enum sim_kind kind, int idx,
                   int64_t asof, int64_t now) {
    struct buf b;
    buf_init(&b, 4096);
    struct jsonw oj;
    jsonw_init(&oj, &b);
    sim_obj_render(&oj, w, kind, idx, asof, true);
    json_object *o = json_tokener_parse(buf_str(&b));
    jsonw_obj(j);
    jsonw_key(j, "cells");
    jsonw_arr(j);
    switch (kind) {
    case SIM_K_POD:
        pod_cells(j, o, now);
        break;
    case SIM_K_NODE:
        node_cells(j, o, now);
        break;
    case SIM_K_JOB:
        job_cells(j, o, now);
        break;
    case SIM_K_PDB:
        pdb_cells(j, o, now);
        break;
    default:
        event_cells(j, o, now);
        break;
    }
    jsonw_arr_end(j);
    jsonw_key(j, "object");
    jsonw_raw(j, buf_str(&b));
    jsonw_obj_end(j);
    json_object_put(o);
    buf_release(&b);
}
