/* k8s_api_obj — Kubernetes Jobs, Pods, Nodes and Events: JSON -> the structs of
 * k8s_api.h (k8s_api_json.h). Strings kept are copied. */
#include "source/k8s_api_json.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "source/k8s_pdb.h"

/* --- objects ----------------------------------------------------------------- */

static enum err parse_meta(json_object *o, struct k8s_meta *m) {
    json_object *md = k8s_jget(o, "metadata");
    memset(m, 0, sizeof *m);
    m->deletion_grace = -1;
    k8s_jcopy(md, "uid", m->uid, sizeof m->uid);
    k8s_jcopy(md, "name", m->name, sizeof m->name);
    k8s_jcopy(md, "namespace", m->ns, sizeof m->ns);
    k8s_jcopy(md, "resourceVersion", m->resource_version, sizeof m->resource_version);
    m->created_at = k8s_jtime(md, "creationTimestamp");
    m->deletion_at = k8s_jtime(md, "deletionTimestamp");
    m->deletion_grace = k8s_jint(md, "deletionGracePeriodSeconds", -1);
    return m->uid[0] ? ERR_OK : ERR_PARSE;
}

static char *compact_json(json_object *o) {
    return xstrdup(
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* Adds a borrowed value under key, taking a reference (json_object_object_add
 * takes ownership only on success: docs/style.md json-c 1). */
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
    json_object *tpl = k8s_jpath(job, "spec", "template", "spec", NULL);
    add_ref(spec, "nodeSelector", k8s_jget(tpl, "nodeSelector"));
    json_object *na = k8s_jpath(tpl, "affinity", "nodeAffinity", NULL);
    add_ref(
        spec, "requiredNodeAffinity",
        k8s_jpath(na, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms", NULL));
    add_ref(spec, "preferredNodeAffinity",
            k8s_jget(na, "preferredDuringSchedulingIgnoredDuringExecution"));
    add_ref(spec, "tolerations", k8s_jget(tpl, "tolerations"));
    add_pod_labels(spec, k8s_jpath(job, "spec", "template", "metadata", "labels", NULL));
    json_object *ign =
        k8s_jget(k8s_jpath(job, "metadata", "annotations", NULL), K8S_ANNOTATION_IGNORE_ADVICE);
    if (!ign)
        ign = k8s_jget(k8s_jpath(job, "spec", "template", "metadata", "annotations", NULL),
                       K8S_ANNOTATION_IGNORE_ADVICE);
    if (ign && json_object_is_type(ign, json_type_string))
        add_ref(spec, "ignoreAdvice", ign);
    char *s = compact_json(spec);
    json_object_put(spec);
    return s;
}

static void parse_job(json_object *o, struct k8s_job *j) {
    json_object *labels = k8s_jpath(o, "metadata", "labels", NULL);
    k8s_jcopy(labels, K8S_LABEL_CONFIGURATION, j->configuration, sizeof j->configuration);
    k8s_jcopy(labels, K8S_LABEL_EXPERIMENT, j->experiment, sizeof j->experiment);
    json_object *spec = k8s_jget(o, "spec");
    json_object *st = k8s_jget(o, "status");
    j->backoff_limit = k8s_jint(spec, "backoffLimit", -1);
    j->active_deadline = k8s_jint(spec, "activeDeadlineSeconds", -1);
    j->ttl_after_finished = k8s_jint(spec, "ttlSecondsAfterFinished", -1);
    j->completions = k8s_jint(spec, "completions", -1);
    const char *mode = k8s_jstr(spec, "completionMode");
    j->indexed = mode && strcmp(mode, "Indexed") == 0;
    json_object *pfp = k8s_jget(spec, "podFailurePolicy");
    j->has_pod_failure_policy = pfp && json_object_is_type(pfp, json_type_object);
    json_object *rules = k8s_jget(pfp, "rules");
    for (size_t i = 0; i < k8s_jlen(rules); i++) {
        json_object *r = k8s_jidx(rules, i);
        const char *action = k8s_jstr(r, "action");
        if (!action || strcmp(action, "Ignore") != 0)
            continue;
        json_object *conds = k8s_jget(r, "onPodConditions");
        for (size_t k = 0; k < k8s_jlen(conds); k++) {
            const char *type = k8s_jstr(k8s_jidx(conds, k), "type");
            const char *status = k8s_jstr(k8s_jidx(conds, k), "status");
            if (type && strcmp(type, "DisruptionTarget") == 0 &&
                (!status || strcmp(status, "False") != 0))
                j->pfp_ignores_disruption = true;
        }
    }
    j->started_at = k8s_jtime(st, "startTime");
    json_object *conds = k8s_jget(st, "conditions");
    for (size_t i = 0; i < k8s_jlen(conds); i++) {
        json_object *c = k8s_jidx(conds, i);
        const char *type = k8s_jstr(c, "type"), *status = k8s_jstr(c, "status");
        if (!type || !status || strcmp(status, "True") != 0)
            continue;
        enum k8s_outcome oc = strcmp(type, "Complete") == 0 ? K8S_SUCCEEDED
                              : strcmp(type, "Failed") == 0 ? K8S_FAILED
                                                            : K8S_RUNNING;
        if (oc == K8S_RUNNING)
            continue;
        j->outcome = oc;
        k8s_jcopy(c, "reason", j->outcome_reason, sizeof j->outcome_reason);
        j->completed_at = k8s_jtime(c, "lastTransitionTime");
        if (!j->completed_at)
            j->completed_at = k8s_jtime(c, "lastProbeTime");
    }
    if (j->outcome == K8S_SUCCEEDED && !j->completed_at)
        j->completed_at = k8s_jtime(st, "completionTime");
    const char *ci = k8s_jstr(st, "completedIndexes");
    const char *fi = k8s_jstr(st, "failedIndexes");
    j->completed_indexes = ci && *ci ? xstrdup(ci) : NULL;
    j->failed_indexes = fi && *fi ? xstrdup(fi) : NULL;
    j->spec_json = job_spec_json(o);
}

/* Sum of GPU (count) and CPU (milli) requests of one container; extended
 * resources default their request to the limit. */
static void container_requests(json_object *c, int64_t *gpu, int64_t *cpu) {
    static const char *const gpus[] = {"nvidia.com/gpu", "amd.com/gpu"};
    json_object *req = k8s_jpath(c, "resources", "requests", NULL);
    json_object *lim = k8s_jpath(c, "resources", "limits", NULL);
    *gpu = 0;
    *cpu = 0;
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        const char *q = k8s_jstr(req, gpus[i]);
        if (!q)
            q = k8s_jstr(lim, gpus[i]);
        int64_t m;
        if (q && k8s_quantity_milli(q, &m) == ERR_OK && m > 0)
            *gpu += (m + 999) / 1000;
    }
    const char *q = k8s_jstr(req, "cpu");
    if (!q)
        q = k8s_jstr(lim, "cpu");
    int64_t m;
    if (q && k8s_quantity_milli(q, &m) == ERR_OK && m > 0)
        *cpu = m;
}

static void parse_pod(json_object *o, struct k8s_pod *p) {
    json_object *md = k8s_jget(o, "metadata");
    json_object *labels = k8s_jget(md, "labels");
    json_object *owners = k8s_jget(md, "ownerReferences");
    for (size_t i = 0; i < k8s_jlen(owners); i++) {
        json_object *r = k8s_jidx(owners, i);
        const char *kind = k8s_jstr(r, "kind");
        if (kind && strcmp(kind, "Job") == 0 && k8s_jbool(r, "controller")) {
            k8s_jcopy(r, "uid", p->job_uid, sizeof p->job_uid);
            k8s_jcopy(r, "name", p->job_name, sizeof p->job_name);
        }
    }
    if (!p->job_uid[0]) {
        const char *u = k8s_jstr(labels, K8S_LABEL_CONTROLLER_UID);
        if (!u)
            u = k8s_jstr(labels, "controller-uid");
        k8s_copy_str(p->job_uid, sizeof p->job_uid, u);
        const char *n = k8s_jstr(labels, "batch.kubernetes.io/job-name");
        k8s_copy_str(p->job_name, sizeof p->job_name, n ? n : k8s_jstr(labels, "job-name"));
    }
    p->completion_index = -1;
    const char *idx = k8s_jstr(labels, K8S_LABEL_COMPLETION_INDEX);
    if (!idx)
        idx = k8s_jstr(k8s_jget(md, "annotations"), K8S_LABEL_COMPLETION_INDEX);
    if (idx) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(idx, &end, 10);
        if (!errno && end != idx && !*end && v >= 0)
            p->completion_index = v;
    }
    json_object *spec = k8s_jget(o, "spec");
    k8s_jcopy(spec, "nodeName", p->node_name, sizeof p->node_name);
    int64_t gpu = 0, cpu = 0, g, c;
    json_object *cs = k8s_jget(spec, "containers");
    for (size_t i = 0; i < k8s_jlen(cs); i++) {
        container_requests(k8s_jidx(cs, i), &g, &c);
        gpu += g;
        cpu += c;
    }
    /* effective request: max(sum of containers, largest init container) */
    json_object *ics = k8s_jget(spec, "initContainers");
    for (size_t i = 0; i < k8s_jlen(ics); i++) {
        container_requests(k8s_jidx(ics, i), &g, &c);
        if (g > gpu)
            gpu = g;
        if (c > cpu)
            cpu = c;
    }
    p->gpu_request = gpu;
    p->cpu_request_milli = cpu;

    json_object *st = k8s_jget(o, "status");
    k8s_jcopy(st, "phase", p->phase, sizeof p->phase);
    k8s_jcopy(st, "reason", p->reason, sizeof p->reason);
    json_object *conds = k8s_jget(st, "conditions");
    for (size_t i = 0; i < k8s_jlen(conds); i++) {
        json_object *cd = k8s_jidx(conds, i);
        const char *type = k8s_jstr(cd, "type"), *status = k8s_jstr(cd, "status");
        if (!type || !status || strcmp(status, "True") != 0)
            continue;
        if (strcmp(type, "PodScheduled") == 0) {
            p->scheduled_at = k8s_jtime(cd, "lastTransitionTime");
        } else if (strcmp(type, "DisruptionTarget") == 0) {
            p->disruption_at = k8s_jtime(cd, "lastTransitionTime");
            k8s_jcopy(cd, "reason", p->disruption_reason, sizeof p->disruption_reason);
        }
    }
    json_object *statuses = k8s_jget(st, "containerStatuses");
    size_t n = k8s_jlen(statuses), terminated = 0;
    int64_t finished = 0;
    const char *message = NULL;
    for (size_t i = 0; i < n; i++) {
        json_object *s = k8s_jidx(statuses, i);
        json_object *run = k8s_jpath(s, "state", "running", NULL);
        json_object *term = k8s_jpath(s, "state", "terminated", NULL);
        json_object *last = k8s_jpath(s, "lastState", "terminated", NULL);
        p->started_at = k8s_min_known(p->started_at, k8s_jtime(run, "startedAt"));
        p->started_at = k8s_min_known(p->started_at, k8s_jtime(term, "startedAt"));
        p->started_at = k8s_min_known(p->started_at, k8s_jtime(last, "startedAt"));
        if (!term)
            continue;
        terminated++;
        int64_t f = k8s_jtime(term, "finishedAt");
        if (f > finished)
            finished = f;
        int64_t code = k8s_jint(term, "exitCode", -1);
        if (code >= 0 && code <= INT_MAX) {
            if (!p->has_exit_code || (p->exit_code == 0 && code != 0))
                p->exit_code = (int)code;
            p->has_exit_code = true;
        }
        const char *m = k8s_jstr(term, "message");
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
    json_object *labels = k8s_jpath(o, "metadata", "labels", NULL);
    k8s_jcopy(labels, K8S_LABEL_POOL_ID, nd->pool_id, sizeof nd->pool_id);
    k8s_jcopy(labels, K8S_LABEL_POOL_NAME, nd->pool_name, sizeof nd->pool_name);
    nd->labels_json = labels ? compact_json(labels) : xstrdup("{}");
    json_object *spec = k8s_jget(o, "spec");
    const char *pid = k8s_jstr(spec, "providerID");
    static const char prefix[] = "digitalocean://";
    if (pid && strncmp(pid, prefix, sizeof prefix - 1) == 0)
        k8s_copy_str(nd->droplet_id, sizeof nd->droplet_id, pid + sizeof prefix - 1);
    nd->unschedulable = k8s_jbool(spec, "unschedulable");
    json_object *taints = k8s_jget(spec, "taints");
    for (size_t i = 0; i < k8s_jlen(taints); i++) {
        const char *key = k8s_jstr(k8s_jidx(taints, i), "key");
        if (key && strcmp(key, "node.kubernetes.io/unschedulable") == 0)
            nd->cordoned_at =
                k8s_min_known(nd->cordoned_at, k8s_jtime(k8s_jidx(taints, i), "timeAdded"));
    }
    json_object *alloc = k8s_jpath(o, "status", "allocatable", NULL);
    nd->gpu_allocatable = -1;
    nd->cpu_allocatable_milli = -1;
    int64_t m;
    const char *q = k8s_jstr(alloc, "cpu");
    if (q && k8s_quantity_milli(q, &m) == ERR_OK)
        nd->cpu_allocatable_milli = m;
    if (alloc) {
        int64_t gpus = 0;
        const char *g1 = k8s_jstr(alloc, "nvidia.com/gpu"), *g2 = k8s_jstr(alloc, "amd.com/gpu");
        if (g1 && k8s_quantity_milli(g1, &m) == ERR_OK)
            gpus += m / 1000;
        if (g2 && k8s_quantity_milli(g2, &m) == ERR_OK)
            gpus += m / 1000;
        nd->gpu_allocatable = gpus;
    }
    json_object *conds = k8s_jpath(o, "status", "conditions", NULL);
    for (size_t i = 0; i < k8s_jlen(conds); i++) {
        json_object *c = k8s_jidx(conds, i);
        const char *type = k8s_jstr(c, "type");
        if (type && strcmp(type, "Ready") == 0) {
            k8s_jcopy(c, "status", nd->ready_status, sizeof nd->ready_status);
            nd->ready_since = k8s_jtime(c, "lastTransitionTime");
        }
    }
}

static void parse_event(json_object *o, struct k8s_event *e) {
    json_object *obj = k8s_jget(o, "involvedObject");
    bool v1 = obj != NULL;
    if (!obj)
        obj = k8s_jget(o, "regarding");
    k8s_jcopy(obj, "kind", e->object_kind, sizeof e->object_kind);
    k8s_jcopy(obj, "name", e->object_name, sizeof e->object_name);
    k8s_jcopy(obj, "uid", e->object_uid, sizeof e->object_uid);
    k8s_jcopy(obj, "namespace", e->object_ns, sizeof e->object_ns);
    k8s_jcopy(o, "reason", e->reason, sizeof e->reason);
    k8s_jcopy(o, "type", e->type, sizeof e->type);
    const char *msg = k8s_jstr(o, v1 ? "message" : "note");
    e->message = msg ? xstrdup(msg) : NULL;
    const char *src = k8s_jstr(o, v1 ? "reportingComponent" : "reportingController");
    if (!src || !*src)
        src = k8s_jstr(k8s_jget(o, v1 ? "source" : "deprecatedSource"), "component");
    k8s_copy_str(e->source, sizeof e->source, src);
    json_object *series = k8s_jget(o, "series");
    e->first_at = k8s_jtime(o, v1 ? "firstTimestamp" : "deprecatedFirstTimestamp");
    if (!e->first_at)
        e->first_at = k8s_jtime(o, "eventTime");
    if (!e->first_at)
        e->first_at = e->meta.created_at;
    e->last_at = k8s_jtime(series, "lastObservedTime");
    if (!e->last_at)
        e->last_at = k8s_jtime(o, v1 ? "lastTimestamp" : "deprecatedLastTimestamp");
    if (!e->last_at)
        e->last_at = e->first_at;
    e->count = k8s_jint(series, "count", -1);
    if (e->count < 0)
        e->count = k8s_jint(o, v1 ? "count" : "deprecatedCount", -1);
    if (e->count < 0)
        e->count = 1;
}

enum err k8s_parse_object(json_object *o, enum k8s_kind kind, struct k8s_object *out) {
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
