/* k8s_api — Kubernetes JSON -> structs. Every json_object here is owned by the
 * parse that created it and put before returning; strings kept past that are
 * copied (json-c strings are loans: json_object.h). */
#include "source/k8s_api.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "source/json_trim.h"
#include "source/k8s_pdb.h"

/* --- json helpers ------------------------------------------------------------ */

static json_object *jget(json_object *o, const char *k) {
    json_object *v = NULL;
    if (o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, k, &v))
        return v;
    return NULL;
}

/* jpath(o, "a", "b", NULL) = o.a.b or NULL */
static json_object *jpath(json_object *o, ...) {
    va_list ap;
    va_start(ap, o);
    const char *k;
    while (o && (k = va_arg(ap, const char *)) != NULL)
        o = jget(o, k);
    va_end(ap);
    return o;
}

static const char *jstr(json_object *o, const char *k) {
    json_object *v = jget(o, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static void copy_str(char *out, size_t cap, const char *s) {
    if (!s) {
        out[0] = '\0';
        return;
    }
    size_t n = strlen(s);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

static void jcopy(json_object *o, const char *k, char *out, size_t cap) {
    copy_str(out, cap, jstr(o, k));
}

static int64_t parse_time(const char *s) {
    int64_t t = 0;
    if (!s || !*s || timeutil_parse_rfc3339(s, strlen(s), &t) != ERR_OK)
        return 0;
    return t;
}

static int64_t jtime(json_object *o, const char *k) {
    return parse_time(jstr(o, k));
}

/* Integer fields only: json-c would coerce strings to 0 (STYLE.md json-c 3). */
static int64_t jint(json_object *o, const char *k, int64_t dflt) {
    json_object *v = jget(o, k);
    if (!v || !json_object_is_type(v, json_type_int))
        return dflt;
    errno = 0;
    int64_t x = json_object_get_int64(v);
    return errno ? dflt : x;
}

static bool jbool(json_object *o, const char *k) {
    json_object *v = jget(o, k);
    return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

static size_t jlen(json_object *arr) {
    return arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
}

static json_object *jidx(json_object *arr, size_t i) {
    return json_object_array_get_idx(arr, i);
}

static int64_t min_known(int64_t a, int64_t b) {
    if (a == 0)
        return b;
    if (b == 0)
        return a;
    return a < b ? a : b;
}

/* Parses a whole document with a deep tokener; trailing whitespace allowed. */
static enum err parse_doc(const char *buf, size_t len, json_object **out) {
    if (len > (size_t)INT_MAX - 1)
        return ERR_TOOBIG;
    json_tokener *tok = json_tokener_new_ex(K8S_JSON_DEPTH);
    if (!tok)
        return ERR_NOMEM;
    /* managedFields are never read: not built either (json_trim.h) */
    enum json_tokener_error je;
    json_object *o = json_trim_parse(tok, buf, len, &je);
    json_tokener_free(tok);
    if (!o) {
        log_msg(LOG_DEBUG, "k8s_api: json parse failed: %s", json_tokener_error_desc(je));
        return ERR_PARSE;
    }
    if (!json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return ERR_PARSE;
    }
    *out = o;
    return ERR_OK;
}

/* --- small parsers ----------------------------------------------------------- */

enum err k8s_quantity_milli(const char *s, int64_t *out) {
    if (!s)
        return ERR_PARSE;
    const char *p = s;
    bool neg = false;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    /* mantissa as integer digits + fraction digits (at most 9 kept) */
    int64_t whole = 0, frac = 0;
    int frac_digits = 0;
    bool any = false;
    while (isdigit((unsigned char)*p)) {
        if (whole > (INT64_MAX - 9) / 10)
            return ERR_PARSE;
        whole = whole * 10 + (*p++ - '0');
        any = true;
    }
    bool frac_rest = false; /* nonzero digits beyond what we keep: round up */
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            if (frac_digits < 9) {
                frac = frac * 10 + (*p - '0');
                frac_digits++;
            } else if (*p != '0') {
                frac_rest = true;
            }
            p++;
            any = true;
        }
    }
    if (!any)
        return ERR_PARSE;
    /* scale in powers of ten relative to milli (exp10) or binary multiplier */
    int exp10 = 3;
    int64_t bin = 1;
    if (*p == '\0') {
    } else if (strcmp(p, "m") == 0) {
        exp10 = 0;
    } else if (strcmp(p, "u") == 0) {
        exp10 = -3;
    } else if (strcmp(p, "n") == 0) {
        exp10 = -6;
    } else if (strcmp(p, "k") == 0) {
        exp10 = 6;
    } else if (strcmp(p, "M") == 0) {
        exp10 = 9;
    } else if (strcmp(p, "G") == 0) {
        exp10 = 12;
    } else if (strcmp(p, "T") == 0) {
        exp10 = 15;
    } else if (strcmp(p, "Ki") == 0) {
        bin = 1024;
    } else if (strcmp(p, "Mi") == 0) {
        bin = 1024LL * 1024;
    } else if (strcmp(p, "Gi") == 0) {
        bin = 1024LL * 1024 * 1024;
    } else if (strcmp(p, "Ti") == 0) {
        bin = 1024LL * 1024 * 1024 * 1024;
    } else if (*p == 'e' || *p == 'E') {
        char *end = NULL;
        errno = 0;
        long e = strtol(p + 1, &end, 10);
        if (errno || end == p + 1 || *end || e < -9 || e > 15)
            return ERR_PARSE;
        exp10 = 3 + (int)e;
    } else {
        return ERR_PARSE;
    }
    /* exact integer arithmetic: num = (whole*10^fd + frac) * bin, then * 10^(exp10 - fd) */
    int64_t pow10_fd = 1;
    for (int i = 0; i < frac_digits; i++)
        pow10_fd *= 10;
    if (whole > INT64_MAX / pow10_fd)
        return ERR_PARSE;
    int64_t num = whole * pow10_fd + frac;
    if (bin > 1 && num > INT64_MAX / bin)
        return ERR_PARSE;
    num *= bin;
    int shift = exp10 - frac_digits;
    bool remainder = frac_rest;
    while (shift > 0) {
        if (num > INT64_MAX / 10)
            return ERR_PARSE;
        num *= 10;
        shift--;
    }
    while (shift < 0) {
        if (num % 10)
            remainder = true;
        num /= 10;
        shift++;
    }
    if (remainder)
        num++; /* the API server rounds milli values up */
    *out = neg ? -num : num;
    return ERR_OK;
}

static bool report_number(json_object *v, int64_t *out) {
    if (!v)
        return false;
    if (json_object_is_type(v, json_type_int)) {
        errno = 0;
        int64_t x = json_object_get_int64(v);
        if (errno || x < 0)
            return false;
        *out = x;
        return true;
    }
    if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        if (!(d >= 0 && d < 9.0e15))
            return false;
        *out = (int64_t)d;
        return true;
    }
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        char *end = NULL;
        errno = 0;
        double d = strtod(s, &end);
        while (end && isspace((unsigned char)*end))
            end++;
        if (errno || end == s || !end || *end || !(d >= 0 && d < 9.0e15))
            return false;
        *out = (int64_t)d;
        return true;
    }
    return false;
}

enum k8s_report_status k8s_task_report_parse(const char *msg, size_t len,
                                             struct k8s_task_report *out) {
    struct k8s_task_report r = {-1, -1, -1};
    *out = r;
    if (!msg)
        return K8S_REPORT_NONE;
    size_t a = 0, b = len;
    while (a < b && isspace((unsigned char)msg[a]))
        a++;
    while (b > a && isspace((unsigned char)msg[b - 1]))
        b--;
    if (a == b)
        return K8S_REPORT_NONE;
    const char *open = memchr(msg + a, '{', b - a);
    const char *close = NULL;
    for (size_t i = b; i > a; i--) {
        if (msg[i - 1] == '}') {
            close = msg + i - 1;
            break;
        }
    }
    if (!open || !close || close < open)
        return K8S_REPORT_BAD;
    json_object *o = NULL;
    if (parse_doc(open, (size_t)(close - open) + 1, &o) != ERR_OK)
        return K8S_REPORT_BAD;
    int ok = 0;
    ok += report_number(jget(o, "work_seconds"), &r.work_seconds);
    ok += report_number(jget(o, "restore_seconds"), &r.restore_seconds);
    ok += report_number(jget(o, "checkpoint_seconds"), &r.checkpoint_seconds);
    json_object_put(o);
    if (!ok)
        return K8S_REPORT_BAD;
    *out = r;
    return K8S_REPORT_OK;
}

/* --- objects ----------------------------------------------------------------- */

static enum err parse_meta(json_object *o, struct k8s_meta *m) {
    json_object *md = jget(o, "metadata");
    memset(m, 0, sizeof *m);
    m->deletion_grace = -1;
    jcopy(md, "uid", m->uid, sizeof m->uid);
    jcopy(md, "name", m->name, sizeof m->name);
    jcopy(md, "namespace", m->ns, sizeof m->ns);
    jcopy(md, "resourceVersion", m->resource_version, sizeof m->resource_version);
    m->created_at = jtime(md, "creationTimestamp");
    m->deletion_at = jtime(md, "deletionTimestamp");
    m->deletion_grace = jint(md, "deletionGracePeriodSeconds", -1);
    return m->uid[0] ? ERR_OK : ERR_PARSE;
}

static char *compact_json(json_object *o) {
    return xstrdup(
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* Adds a borrowed value under key, taking a reference (json_object_object_add
 * takes ownership only on success: STYLE.md json-c 1). */
static void add_ref(json_object *dst, const char *key, json_object *v) {
    if (!v || json_object_is_type(v, json_type_null))
        return;
    json_object *ref = json_object_get(v);
    if (json_object_object_add(dst, key, ref) != 0)
        json_object_put(ref);
}

/* The pod template's labels as "podLabels" (PodDisruptionBudget selectors match
 * them), without the job controller's per-Job ones (controller-uid, job-name,
 * batch.kubernetes.io/...) that no PDB of a Job's pods can select in advance. */
static void add_pod_labels(json_object *dst, json_object *labels) {
    if (!labels || !json_object_is_type(labels, json_type_object))
        return;
    json_object *keep = json_object_new_object();
    if (!keep)
        return;
    json_object_object_foreach(labels, key, val) {
        if (!json_object_is_type(val, json_type_string) || strcmp(key, "controller-uid") == 0 ||
            strcmp(key, "job-name") == 0 || strncmp(key, "batch.kubernetes.io/", 20) == 0)
            continue;
        add_ref(keep, key, val);
    }
    if (json_object_object_length(keep) == 0 || json_object_object_add(dst, "podLabels", keep) != 0)
        json_object_put(keep);
}

static char *job_spec_json(json_object *job) {
    json_object *spec = json_object_new_object();
    if (!spec)
        return xstrdup("{}");
    json_object *tpl = jpath(job, "spec", "template", "spec", NULL);
    add_ref(spec, "nodeSelector", jget(tpl, "nodeSelector"));
    json_object *na = jpath(tpl, "affinity", "nodeAffinity", NULL);
    add_ref(spec, "requiredNodeAffinity",
            jpath(na, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms", NULL));
    add_ref(spec, "preferredNodeAffinity",
            jget(na, "preferredDuringSchedulingIgnoredDuringExecution"));
    add_ref(spec, "tolerations", jget(tpl, "tolerations"));
    add_pod_labels(spec, jpath(job, "spec", "template", "metadata", "labels", NULL));
    json_object *ign =
        jget(jpath(job, "metadata", "annotations", NULL), K8S_ANNOTATION_IGNORE_ADVICE);
    if (!ign)
        ign = jget(jpath(job, "spec", "template", "metadata", "annotations", NULL),
                   K8S_ANNOTATION_IGNORE_ADVICE);
    if (ign && json_object_is_type(ign, json_type_string))
        add_ref(spec, "ignoreAdvice", ign);
    char *s = compact_json(spec);
    json_object_put(spec);
    return s;
}

static void parse_job(json_object *o, struct k8s_job *j) {
    json_object *labels = jpath(o, "metadata", "labels", NULL);
    jcopy(labels, K8S_LABEL_CONFIGURATION, j->configuration, sizeof j->configuration);
    jcopy(labels, K8S_LABEL_EXPERIMENT, j->experiment, sizeof j->experiment);
    json_object *spec = jget(o, "spec");
    json_object *st = jget(o, "status");
    j->backoff_limit = jint(spec, "backoffLimit", -1);
    j->active_deadline = jint(spec, "activeDeadlineSeconds", -1);
    j->ttl_after_finished = jint(spec, "ttlSecondsAfterFinished", -1);
    j->completions = jint(spec, "completions", -1);
    const char *mode = jstr(spec, "completionMode");
    j->indexed = mode && strcmp(mode, "Indexed") == 0;
    json_object *pfp = jget(spec, "podFailurePolicy");
    j->has_pod_failure_policy = pfp && json_object_is_type(pfp, json_type_object);
    json_object *rules = jget(pfp, "rules");
    for (size_t i = 0; i < jlen(rules); i++) {
        json_object *r = jidx(rules, i);
        const char *action = jstr(r, "action");
        if (!action || strcmp(action, "Ignore") != 0)
            continue;
        json_object *conds = jget(r, "onPodConditions");
        for (size_t k = 0; k < jlen(conds); k++) {
            const char *type = jstr(jidx(conds, k), "type");
            const char *status = jstr(jidx(conds, k), "status");
            if (type && strcmp(type, "DisruptionTarget") == 0 &&
                (!status || strcmp(status, "False") != 0))
                j->pfp_ignores_disruption = true;
        }
    }
    j->started_at = jtime(st, "startTime");
    json_object *conds = jget(st, "conditions");
    for (size_t i = 0; i < jlen(conds); i++) {
        json_object *c = jidx(conds, i);
        const char *type = jstr(c, "type"), *status = jstr(c, "status");
        if (!type || !status || strcmp(status, "True") != 0)
            continue;
        enum k8s_outcome oc = strcmp(type, "Complete") == 0 ? K8S_SUCCEEDED
                              : strcmp(type, "Failed") == 0 ? K8S_FAILED
                                                            : K8S_RUNNING;
        if (oc == K8S_RUNNING)
            continue;
        j->outcome = oc;
        jcopy(c, "reason", j->outcome_reason, sizeof j->outcome_reason);
        j->completed_at = jtime(c, "lastTransitionTime");
        if (!j->completed_at)
            j->completed_at = jtime(c, "lastProbeTime");
    }
    if (j->outcome == K8S_SUCCEEDED && !j->completed_at)
        j->completed_at = jtime(st, "completionTime");
    const char *ci = jstr(st, "completedIndexes");
    const char *fi = jstr(st, "failedIndexes");
    j->completed_indexes = ci && *ci ? xstrdup(ci) : NULL;
    j->failed_indexes = fi && *fi ? xstrdup(fi) : NULL;
    j->spec_json = job_spec_json(o);
}

/* Sum of GPU (count) and CPU (milli) requests of one container; extended
 * resources default their request to the limit. */
static void container_requests(json_object *c, int64_t *gpu, int64_t *cpu) {
    static const char *const gpus[] = {"nvidia.com/gpu", "amd.com/gpu"};
    json_object *req = jpath(c, "resources", "requests", NULL);
    json_object *lim = jpath(c, "resources", "limits", NULL);
    *gpu = 0;
    *cpu = 0;
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        const char *q = jstr(req, gpus[i]);
        if (!q)
            q = jstr(lim, gpus[i]);
        int64_t m;
        if (q && k8s_quantity_milli(q, &m) == ERR_OK && m > 0)
            *gpu += (m + 999) / 1000;
    }
    const char *q = jstr(req, "cpu");
    if (!q)
        q = jstr(lim, "cpu");
    int64_t m;
    if (q && k8s_quantity_milli(q, &m) == ERR_OK && m > 0)
        *cpu = m;
}

static void parse_pod(json_object *o, struct k8s_pod *p) {
    json_object *md = jget(o, "metadata");
    json_object *labels = jget(md, "labels");
    json_object *owners = jget(md, "ownerReferences");
    for (size_t i = 0; i < jlen(owners); i++) {
        json_object *r = jidx(owners, i);
        const char *kind = jstr(r, "kind");
        if (kind && strcmp(kind, "Job") == 0 && jbool(r, "controller")) {
            jcopy(r, "uid", p->job_uid, sizeof p->job_uid);
            jcopy(r, "name", p->job_name, sizeof p->job_name);
        }
    }
    if (!p->job_uid[0]) {
        const char *u = jstr(labels, K8S_LABEL_CONTROLLER_UID);
        if (!u)
            u = jstr(labels, "controller-uid");
        copy_str(p->job_uid, sizeof p->job_uid, u);
        const char *n = jstr(labels, "batch.kubernetes.io/job-name");
        copy_str(p->job_name, sizeof p->job_name, n ? n : jstr(labels, "job-name"));
    }
    p->completion_index = -1;
    const char *idx = jstr(labels, K8S_LABEL_COMPLETION_INDEX);
    if (!idx)
        idx = jstr(jget(md, "annotations"), K8S_LABEL_COMPLETION_INDEX);
    if (idx) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(idx, &end, 10);
        if (!errno && end != idx && !*end && v >= 0)
            p->completion_index = v;
    }
    json_object *spec = jget(o, "spec");
    jcopy(spec, "nodeName", p->node_name, sizeof p->node_name);
    int64_t gpu = 0, cpu = 0, g, c;
    json_object *cs = jget(spec, "containers");
    for (size_t i = 0; i < jlen(cs); i++) {
        container_requests(jidx(cs, i), &g, &c);
        gpu += g;
        cpu += c;
    }
    /* effective request: max(sum of containers, largest init container) */
    json_object *ics = jget(spec, "initContainers");
    for (size_t i = 0; i < jlen(ics); i++) {
        container_requests(jidx(ics, i), &g, &c);
        if (g > gpu)
            gpu = g;
        if (c > cpu)
            cpu = c;
    }
    p->gpu_request = gpu;
    p->cpu_request_milli = cpu;

    json_object *st = jget(o, "status");
    jcopy(st, "phase", p->phase, sizeof p->phase);
    jcopy(st, "reason", p->reason, sizeof p->reason);
    json_object *conds = jget(st, "conditions");
    for (size_t i = 0; i < jlen(conds); i++) {
        json_object *cd = jidx(conds, i);
        const char *type = jstr(cd, "type"), *status = jstr(cd, "status");
        if (!type || !status || strcmp(status, "True") != 0)
            continue;
        if (strcmp(type, "PodScheduled") == 0) {
            p->scheduled_at = jtime(cd, "lastTransitionTime");
        } else if (strcmp(type, "DisruptionTarget") == 0) {
            p->disruption_at = jtime(cd, "lastTransitionTime");
            jcopy(cd, "reason", p->disruption_reason, sizeof p->disruption_reason);
        }
    }
    json_object *statuses = jget(st, "containerStatuses");
    size_t n = jlen(statuses), terminated = 0;
    int64_t finished = 0;
    const char *message = NULL;
    for (size_t i = 0; i < n; i++) {
        json_object *s = jidx(statuses, i);
        json_object *run = jpath(s, "state", "running", NULL);
        json_object *term = jpath(s, "state", "terminated", NULL);
        json_object *last = jpath(s, "lastState", "terminated", NULL);
        p->started_at = min_known(p->started_at, jtime(run, "startedAt"));
        p->started_at = min_known(p->started_at, jtime(term, "startedAt"));
        p->started_at = min_known(p->started_at, jtime(last, "startedAt"));
        if (!term)
            continue;
        terminated++;
        int64_t f = jtime(term, "finishedAt");
        if (f > finished)
            finished = f;
        int64_t code = jint(term, "exitCode", -1);
        if (code >= 0 && code <= INT_MAX) {
            if (!p->has_exit_code || (p->exit_code == 0 && code != 0))
                p->exit_code = (int)code;
            p->has_exit_code = true;
        }
        const char *m = jstr(term, "message");
        if (m && *m && !message)
            message = m;
    }
    if (n > 0 && terminated == n)
        p->finished_at = finished;
    p->report_status = K8S_REPORT_NONE;
    p->report.work_seconds = p->report.restore_seconds = p->report.checkpoint_seconds = -1;
    if (message)
        p->report_status = k8s_task_report_parse(message, strlen(message), &p->report);
}

static void parse_node(json_object *o, struct k8s_node *nd) {
    json_object *labels = jpath(o, "metadata", "labels", NULL);
    jcopy(labels, K8S_LABEL_POOL_ID, nd->pool_id, sizeof nd->pool_id);
    jcopy(labels, K8S_LABEL_POOL_NAME, nd->pool_name, sizeof nd->pool_name);
    nd->labels_json = labels ? compact_json(labels) : xstrdup("{}");
    json_object *spec = jget(o, "spec");
    const char *pid = jstr(spec, "providerID");
    static const char prefix[] = "digitalocean://";
    if (pid && strncmp(pid, prefix, sizeof prefix - 1) == 0)
        copy_str(nd->droplet_id, sizeof nd->droplet_id, pid + sizeof prefix - 1);
    nd->unschedulable = jbool(spec, "unschedulable");
    json_object *taints = jget(spec, "taints");
    for (size_t i = 0; i < jlen(taints); i++) {
        const char *key = jstr(jidx(taints, i), "key");
        if (key && strcmp(key, "node.kubernetes.io/unschedulable") == 0)
            nd->cordoned_at = min_known(nd->cordoned_at, jtime(jidx(taints, i), "timeAdded"));
    }
    json_object *alloc = jpath(o, "status", "allocatable", NULL);
    nd->gpu_allocatable = -1;
    nd->cpu_allocatable_milli = -1;
    int64_t m;
    const char *q = jstr(alloc, "cpu");
    if (q && k8s_quantity_milli(q, &m) == ERR_OK)
        nd->cpu_allocatable_milli = m;
    if (alloc) {
        int64_t gpus = 0;
        const char *g1 = jstr(alloc, "nvidia.com/gpu"), *g2 = jstr(alloc, "amd.com/gpu");
        if (g1 && k8s_quantity_milli(g1, &m) == ERR_OK)
            gpus += m / 1000;
        if (g2 && k8s_quantity_milli(g2, &m) == ERR_OK)
            gpus += m / 1000;
        nd->gpu_allocatable = gpus;
    }
    json_object *conds = jpath(o, "status", "conditions", NULL);
    for (size_t i = 0; i < jlen(conds); i++) {
        json_object *c = jidx(conds, i);
        const char *type = jstr(c, "type");
        if (type && strcmp(type, "Ready") == 0) {
            jcopy(c, "status", nd->ready_status, sizeof nd->ready_status);
            nd->ready_since = jtime(c, "lastTransitionTime");
        }
    }
}

static void parse_event(json_object *o, struct k8s_event *e) {
    json_object *obj = jget(o, "involvedObject");
    bool v1 = obj != NULL;
    if (!obj)
        obj = jget(o, "regarding");
    jcopy(obj, "kind", e->object_kind, sizeof e->object_kind);
    jcopy(obj, "name", e->object_name, sizeof e->object_name);
    jcopy(obj, "uid", e->object_uid, sizeof e->object_uid);
    jcopy(obj, "namespace", e->object_ns, sizeof e->object_ns);
    jcopy(o, "reason", e->reason, sizeof e->reason);
    jcopy(o, "type", e->type, sizeof e->type);
    const char *msg = jstr(o, v1 ? "message" : "note");
    e->message = msg ? xstrdup(msg) : NULL;
    const char *src = jstr(o, v1 ? "reportingComponent" : "reportingController");
    if (!src || !*src)
        src = jstr(jget(o, v1 ? "source" : "deprecatedSource"), "component");
    copy_str(e->source, sizeof e->source, src);
    json_object *series = jget(o, "series");
    e->first_at = jtime(o, v1 ? "firstTimestamp" : "deprecatedFirstTimestamp");
    if (!e->first_at)
        e->first_at = jtime(o, "eventTime");
    if (!e->first_at)
        e->first_at = e->meta.created_at;
    e->last_at = jtime(series, "lastObservedTime");
    if (!e->last_at)
        e->last_at = jtime(o, v1 ? "lastTimestamp" : "deprecatedLastTimestamp");
    if (!e->last_at)
        e->last_at = e->first_at;
    e->count = jint(series, "count", -1);
    if (e->count < 0)
        e->count = jint(o, v1 ? "count" : "deprecatedCount", -1);
    if (e->count < 0)
        e->count = 1;
}

static enum err parse_object(json_object *o, enum k8s_kind kind, struct k8s_object *out) {
    memset(out, 0, sizeof *out);
    out->kind = kind;
    if (!o || !json_object_is_type(o, json_type_object))
        return ERR_PARSE;
    struct k8s_meta m;
    if (parse_meta(o, &m) != ERR_OK)
        return ERR_PARSE;
    switch (kind) {
    case K8S_JOB:
        out->u.job.meta = m;
        parse_job(o, &out->u.job);
        break;
    case K8S_POD:
        out->u.pod.meta = m;
        parse_pod(o, &out->u.pod);
        break;
    case K8S_NODE:
        out->u.node.meta = m;
        parse_node(o, &out->u.node);
        break;
    case K8S_EVENT:
        out->u.event.meta = m;
        parse_event(o, &out->u.event);
        break;
    case K8S_PDB:
        out->u.pdb.meta = m;
        k8s_pdb_fill(o, &out->u.pdb);
        break;
    }
    return ERR_OK;
}

void k8s_object_release(struct k8s_object *o) {
    if (!o)
        return;
    switch (o->kind) {
    case K8S_JOB:
        free(o->u.job.completed_indexes);
        free(o->u.job.failed_indexes);
        free(o->u.job.spec_json);
        break;
    case K8S_NODE:
        free(o->u.node.labels_json);
        break;
    case K8S_EVENT:
        free(o->u.event.message);
        break;
    case K8S_PDB:
        k8s_pdb_release(&o->u.pdb);
        break;
    case K8S_POD:
        break;
    }
    memset(&o->u, 0, sizeof o->u);
}

enum err k8s_object_parse(const char *buf, size_t len, enum k8s_kind kind, struct k8s_object *out) {
    json_object *o = NULL;
    enum err rc = parse_doc(buf, len, &o);
    if (rc != ERR_OK)
        return rc;
    struct k8s_object obj;
    rc = parse_object(o, kind, &obj);
    json_object_put(o);
    if (rc == ERR_OK)
        *out = obj;
    return rc;
}

enum err k8s_list_parse(const char *buf, size_t len, enum k8s_kind kind, struct k8s_list *out) {
    json_object *o = NULL;
    enum err rc = parse_doc(buf, len, &o);
    if (rc != ERR_OK)
        return rc;
    /* "items": null is an empty list (get_ex succeeds with a NULL value) */
    json_object *items = NULL;
    bool has_items = json_object_object_get_ex(o, "items", &items);
    if (!has_items || (items && !json_object_is_type(items, json_type_array))) {
        json_object_put(o);
        return ERR_PARSE;
    }
    struct k8s_list l;
    memset(&l, 0, sizeof l);
    l.kind = kind;
    json_object *md = jget(o, "metadata");
    jcopy(md, "resourceVersion", l.resource_version, sizeof l.resource_version);
    const char *cont = jstr(md, "continue");
    l.continue_token = cont && *cont ? xstrdup(cont) : NULL;
    l.remaining = jint(md, "remainingItemCount", -1);
    size_t n = jlen(items);
    l.items = n ? xcalloc(n, sizeof *l.items) : NULL;
    for (size_t i = 0; i < n; i++) {
        if (parse_object(jidx(items, i), kind, &l.items[l.n]) == ERR_OK)
            l.n++;
        else
            l.skipped++;
    }
    json_object_put(o);
    if (l.skipped)
        log_msg(LOG_WARN, "k8s_api: %zu %s list item%s without uid skipped", l.skipped,
                k8s_kind_name(kind), l.skipped == 1 ? "" : "s");
    *out = l;
    return ERR_OK;
}

void k8s_list_release(struct k8s_list *l) {
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        k8s_object_release(&l->items[i]);
    free(l->items);
    free(l->continue_token);
    memset(l, 0, sizeof *l);
}

static void parse_status_obj(json_object *o, struct k8s_status *s) {
    memset(s, 0, sizeof *s);
    s->code = jint(o, "code", -1);
    jcopy(o, "reason", s->reason, sizeof s->reason);
    jcopy(o, "message", s->message, sizeof s->message);
}

enum err k8s_status_parse(const char *buf, size_t len, struct k8s_status *out) {
    json_object *o = NULL;
    enum err rc = parse_doc(buf, len, &o);
    if (rc != ERR_OK)
        return rc;
    const char *kind = jstr(o, "kind");
    if (!kind || strcmp(kind, "Status") != 0) {
        json_object_put(o);
        return ERR_PARSE;
    }
    parse_status_obj(o, out);
    json_object_put(o);
    return ERR_OK;
}

enum err k8s_watch_parse(const char *line, size_t len, enum k8s_kind kind,
                         struct k8s_watch_event *out) {
    json_object *o = NULL;
    enum err rc = parse_doc(line, len, &o);
    if (rc != ERR_OK)
        return rc;
    struct k8s_watch_event ev;
    memset(&ev, 0, sizeof ev);
    ev.obj.kind = kind;
    const char *type = jstr(o, "type");
    json_object *obj = jget(o, "object");
    rc = ERR_OK;
    if (!type || !obj) {
        rc = ERR_PARSE;
    } else if (strcmp(type, "ERROR") == 0) {
        ev.type = K8S_ERROR;
        parse_status_obj(obj, &ev.status);
    } else if (strcmp(type, "BOOKMARK") == 0) {
        ev.type = K8S_BOOKMARK;
        jcopy(jget(obj, "metadata"), "resourceVersion", ev.resource_version,
              sizeof ev.resource_version);
        if (!ev.resource_version[0])
            rc = ERR_PARSE;
    } else {
        if (strcmp(type, "ADDED") == 0)
            ev.type = K8S_ADDED;
        else if (strcmp(type, "MODIFIED") == 0)
            ev.type = K8S_MODIFIED;
        else if (strcmp(type, "DELETED") == 0)
            ev.type = K8S_DELETED;
        else
            rc = ERR_PARSE;
        if (rc == ERR_OK)
            rc = parse_object(obj, kind, &ev.obj);
        if (rc == ERR_OK)
            copy_str(ev.resource_version, sizeof ev.resource_version,
                     k8s_object_meta(&ev.obj)->resource_version);
    }
    json_object_put(o);
    if (rc != ERR_OK)
        return rc;
    *out = ev;
    return ERR_OK;
}

void k8s_watch_event_release(struct k8s_watch_event *ev) {
    if (!ev)
        return;
    if (ev->type == K8S_ADDED || ev->type == K8S_MODIFIED || ev->type == K8S_DELETED)
        k8s_object_release(&ev->obj);
}

bool k8s_event_is_relevant(const struct k8s_event *e) {
    static const char *const pod_reasons[] = {
        "NodeNotReady",
        "TaintManagerEviction",
        "Evicted",
        "Preempted",
        "Preempting",
        "Killing",
        "NodeShutdown",
        "Shutdown",
        "Terminated",
        "TriggeredScaleUp",
        "NotTriggerScaleUp",
        "DeletingNode",
        "RemovingNode",
        "NodeLost",
        "EvictionThresholdMet",
    };
    if (strcmp(e->object_kind, "Node") == 0)
        return true;
    if (strcmp(e->object_kind, "Pod") != 0)
        return false;
    for (size_t i = 0; i < sizeof pod_reasons / sizeof pod_reasons[0]; i++)
        if (strcmp(e->reason, pod_reasons[i]) == 0)
            return true;
    return false;
}
