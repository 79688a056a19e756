/* sim_k8s_obj — see sim_k8s_obj.h. Each render function reads facts through
 * V(seq) ("visible as of asof") and nothing else, so a watch event, a list page
 * and a GET of the same seq always agree. */
#include "sim/sim_k8s_obj.h"

#include "sim/sim_k8s_pdb.h"

#include <stdio.h>
#include <string.h>

#define V(fact_seq) ((fact_seq) <= asof)

const char *sim_kind_name(enum sim_kind kind) {
    switch (kind) {
    case SIM_K_POD:
        return "Pod";
    case SIM_K_JOB:
        return "Job";
    case SIM_K_NODE:
        return "Node";
    case SIM_K_PDB:
        return "PodDisruptionBudget";
    default:
        return "Event";
    }
}

const char *sim_kind_api_version(enum sim_kind kind) {
    return kind == SIM_K_JOB ? "batch/v1" : kind == SIM_K_PDB ? "policy/v1" : "v1";
}

int sim_obj_count(const struct sim_world *w, enum sim_kind kind) {
    switch (kind) {
    case SIM_K_POD:
        return w->npods;
    case SIM_K_JOB:
        return w->njobs;
    case SIM_K_NODE:
        return w->nnodes;
    case SIM_K_PDB:
        return w->sc->nworkloads;
    default:
        return w->nevents;
    }
}

bool sim_obj_exists(const struct sim_world *w, enum sim_kind kind, int idx, int64_t asof) {
    switch (kind) {
    case SIM_K_POD:
        return V(w->pods[idx].created_seq) && !V(w->pods[idx].deleted_seq);
    case SIM_K_JOB:
        return V(w->jobs[idx].created_seq) && !V(w->jobs[idx].deleted_seq);
    case SIM_K_NODE:
        return V(w->nodes[idx].reg_seq) && !V(w->nodes[idx].deleted_seq);
    case SIM_K_PDB:
        return sim_pdb_exists(w, idx);
    default:
        return V(w->events[idx].seq) && !V(w->events[idx].deleted_seq);
    }
}

const char *sim_obj_namespace(const struct sim_world *w, enum sim_kind kind, int idx) {
    switch (kind) {
    case SIM_K_NODE:
        return "";
    case SIM_K_EVENT:
        return w->events[idx].ns;
    default:
        return w->sc->namespace_;
    }
}

const char *sim_obj_name(const struct sim_world *w, enum sim_kind kind, int idx) {
    switch (kind) {
    case SIM_K_POD:
        return w->pods[idx].name;
    case SIM_K_JOB:
        return w->jobs[idx].name;
    case SIM_K_NODE:
        return w->nodes[idx].name;
    case SIM_K_PDB:
        return w->sc->workloads[idx].name;
    default:
        return w->events[idx].name;
    }
}

int64_t sim_obj_rv(const struct sim_world *w, enum sim_kind kind, int idx, int64_t asof) {
    switch (kind) {
    case SIM_K_POD:
        return sim_seqs_at(&w->pods[idx].seqs, asof);
    case SIM_K_JOB:
        return sim_seqs_at(&w->jobs[idx].seqs, asof);
    case SIM_K_NODE:
        return sim_seqs_at(&w->nodes[idx].seqs, asof);
    case SIM_K_PDB:
        return 1;
    default:
        return V(w->events[idx].deleted_seq) ? w->events[idx].deleted_seq : w->events[idx].seq;
    }
}

static void add_label(struct sim_labels *l, const char *k, const char *v) {
    if (l->n < SIM_MAX_LABELS) {
        l->key[l->n] = k;
        l->value[l->n] = v;
        l->n++;
    }
}

/* Labels a Job puts on itself (and its template): configuration, experiment, app. */
static void workload_labels(const struct sim_workload *wl, struct sim_labels *l) {
    add_label(l, "app.kubernetes.io/name", wl->name);
    add_label(l, "spotledger.io/configuration", sim_config_name(wl->configuration));
    if (wl->experiment)
        add_label(l, "spotledger.io/experiment", wl->experiment);
}

void sim_obj_labels(const struct sim_world *w, enum sim_kind kind, int idx, struct sim_labels *l) {
    memset(l, 0, sizeof *l);
    if (kind == SIM_K_POD) {
        const struct sim_pod *p = &w->pods[idx];
        const struct sim_job *j = &w->jobs[p->job];
        const struct sim_task *tk = &w->tasks[p->task];
        workload_labels(&w->sc->workloads[j->workload], l);
        add_label(l, "batch.kubernetes.io/controller-uid", j->uid);
        add_label(l, "batch.kubernetes.io/job-name", j->name);
        add_label(l, "controller-uid", j->uid);
        add_label(l, "job-name", j->name);
        if (tk->index >= 0) {
            snprintf(l->idx, sizeof l->idx, "%d", tk->index);
            add_label(l, "batch.kubernetes.io/job-completion-index", l->idx);
        }
    } else if (kind == SIM_K_JOB) {
        workload_labels(&w->sc->workloads[w->jobs[idx].workload], l);
    } else if (kind == SIM_K_NODE) {
        const struct sim_node *n = &w->nodes[idx];
        const struct sim_pool *pool = &w->pools[n->pool];
        const struct sim_pool_spec *ps = &w->sc->pools[pool->spec];
        const struct sim_size *sz = &w->sc->sizes[ps->size_idx];
        add_label(l, "beta.kubernetes.io/arch", "amd64");
        add_label(l, "beta.kubernetes.io/instance-type", sz->slug);
        add_label(l, "beta.kubernetes.io/os", "linux");
        add_label(l, "doks.digitalocean.com/node-id", n->do_id);
        add_label(l, "doks.digitalocean.com/node-pool", pool->name);
        add_label(l, "doks.digitalocean.com/node-pool-id", pool->id);
        add_label(l, "doks.digitalocean.com/version", w->sc->k8s_version);
        add_label(l, "failure-domain.beta.kubernetes.io/region", w->sc->region);
        add_label(l, "kubernetes.io/arch", "amd64");
        add_label(l, "kubernetes.io/hostname", n->name);
        add_label(l, "kubernetes.io/os", "linux");
        add_label(l, "node.kubernetes.io/instance-type", sz->slug);
        add_label(l, "region", w->sc->region);
        add_label(l, "topology.kubernetes.io/region", w->sc->region);
        for (int k = 0; k < ps->nlabels; k++)
            add_label(l, ps->labels[k].key, ps->labels[k].value);
    }
}

static void write_labels(struct jsonw *j, const struct sim_labels *l) {
    jsonw_key(j, "labels");
    jsonw_obj(j);
    for (int i = 0; i < l->n; i++)
        jsonw_kstr(j, l->key[i], l->value[i]);
    jsonw_obj_end(j);
}

static void kind_header(struct jsonw *j, enum sim_kind kind, bool with_kind) {
    if (with_kind) {
        jsonw_kstr(j, "kind", sim_kind_name(kind));
        jsonw_kstr(j, "apiVersion", sim_kind_api_version(kind));
    }
}

static void krv(struct jsonw *j, int64_t rv) {
    char tmp[24];
    snprintf(tmp, sizeof tmp, "%lld", (long long)rv);
    jsonw_kstr(j, "resourceVersion", tmp);
}

static void quantity(struct jsonw *j, const char *key, int64_t milli) {
    char tmp[32];
    if (milli % 1000 == 0)
        snprintf(tmp, sizeof tmp, "%lld", (long long)(milli / 1000));
    else
        snprintf(tmp, sizeof tmp, "%lldm", (long long)milli);
    jsonw_kstr(j, key, tmp);
}

static void condition(struct jsonw *j, const char *type, const char *status, int64_t t,
                      const char *reason, const char *message, bool probe) {
    jsonw_obj(j);
    jsonw_kstr(j, "type", type);
    jsonw_kstr(j, "status", status);
    if (probe) {
        jsonw_key(j, "lastProbeTime");
        jsonw_null(j);
    }
    jsonw_ktime(j, "lastTransitionTime", t);
    if (reason)
        jsonw_kstr(j, "reason", reason);
    if (message)
        jsonw_kstr(j, "message", message);
    jsonw_obj_end(j);
}

/* --- pod spec (shared by Pods and Job templates) --- */

/* index >= 0: an Indexed Job's pod, which the Job controller gives
 * JOB_COMPLETION_INDEX and a hostname "<job>-<index>"; -1 for templates. */
static void pod_spec_body(struct jsonw *j, const struct sim_world *w, const struct sim_workload *wl,
                          const char *job_name, int index) {
    const struct sim_scenario *sc = w->sc;
    jsonw_key(j, "containers");
    jsonw_arr(j);
    jsonw_obj(j);
    jsonw_kstr(j, "name", "main");
    jsonw_kstr(j, "image", wl->image);
    if (index >= 0) {
        jsonw_key(j, "env");
        jsonw_arr(j);
        jsonw_obj(j);
        jsonw_kstr(j, "name", "JOB_COMPLETION_INDEX");
        jsonw_key(j, "valueFrom");
        jsonw_obj(j);
        jsonw_key(j, "fieldRef");
        jsonw_obj(j);
        jsonw_kstr(j, "apiVersion", "v1");
        jsonw_kstr(j, "fieldPath",
                   "metadata.annotations['batch.kubernetes.io/job-completion-index']");
        jsonw_obj_end(j);
        jsonw_obj_end(j);
        jsonw_obj_end(j);
        jsonw_arr_end(j);
    }
    jsonw_key(j, "resources");
    jsonw_obj(j);
    jsonw_key(j, "requests");
    jsonw_obj(j);
    quantity(j, "cpu", wl->cpu_m);
    if (wl->gpus)
        quantity(j, "nvidia.com/gpu", (int64_t)wl->gpus * 1000);
    jsonw_obj_end(j);
    if (wl->gpus) {
        jsonw_key(j, "limits");
        jsonw_obj(j);
        quantity(j, "nvidia.com/gpu", (int64_t)wl->gpus * 1000);
        jsonw_obj_end(j);
    }
    jsonw_obj_end(j);
    jsonw_kstr(j, "terminationMessagePath", "/dev/termination-log");
    jsonw_kstr(j, "terminationMessagePolicy", "File");
    jsonw_kstr(j, "imagePullPolicy", "IfNotPresent");
    jsonw_obj_end(j);
    jsonw_arr_end(j);
    jsonw_kstr(j, "restartPolicy", "Never");
    jsonw_kint(j, "terminationGracePeriodSeconds", SIM_POD_GRACE);
    jsonw_kstr(j, "dnsPolicy", "ClusterFirst");
    jsonw_kstr(j, "schedulerName", "default-scheduler");
    /* placement: required = the workload's pools; preferred = the first one */
    jsonw_key(j, "affinity");
    jsonw_obj(j);
    jsonw_key(j, "nodeAffinity");
    jsonw_obj(j);
    jsonw_key(j, "requiredDuringSchedulingIgnoredDuringExecution");
    jsonw_obj(j);
    jsonw_key(j, "nodeSelectorTerms");
    jsonw_arr(j);
    jsonw_obj(j);
    jsonw_key(j, "matchExpressions");
    jsonw_arr(j);
    jsonw_obj(j);
    jsonw_kstr(j, "key", "doks.digitalocean.com/node-pool");
    jsonw_kstr(j, "operator", "In");
    jsonw_key(j, "values");
    jsonw_arr(j);
    for (int k = 0; k < wl->npools; k++)
        jsonw_str(j, sc->pools[wl->pools[k]].name);
    jsonw_arr_end(j);
    jsonw_obj_end(j);
    jsonw_arr_end(j);
    jsonw_obj_end(j);
    jsonw_arr_end(j);
    jsonw_obj_end(j);
    if (wl->npools > 1) {
        jsonw_key(j, "preferredDuringSchedulingIgnoredDuringExecution");
        jsonw_arr(j);
        jsonw_obj(j);
        jsonw_kint(j, "weight", 100);
        jsonw_key(j, "preference");
        jsonw_obj(j);
        jsonw_key(j, "matchExpressions");
        jsonw_arr(j);
        jsonw_obj(j);
        jsonw_kstr(j, "key", "doks.digitalocean.com/node-pool");
        jsonw_kstr(j, "operator", "In");
        jsonw_key(j, "values");
        jsonw_arr(j);
        jsonw_str(j, sc->pools[wl->pools[0]].name);
        jsonw_arr_end(j);
        jsonw_obj_end(j);
        jsonw_arr_end(j);
        jsonw_obj_end(j);
        jsonw_obj_end(j);
        jsonw_arr_end(j);
    }
    jsonw_obj_end(j);
    jsonw_obj_end(j);
    jsonw_key(j, "tolerations");
    jsonw_arr(j);
    for (int k = 0; k < wl->npools; k++) {
        const struct sim_pool_spec *ps = &sc->pools[wl->pools[k]];
        for (int t = 0; t < ps->ntaints; t++) {
            jsonw_obj(j);
            jsonw_kstr(j, "key", ps->taints[t].key);
            jsonw_kstr(j, "operator", "Equal");
            jsonw_kstr(j, "value", ps->taints[t].value);
            jsonw_kstr(j, "effect", ps->taints[t].effect);
            jsonw_obj_end(j);
        }
    }
    static const char *const defaults[] = {"node.kubernetes.io/not-ready",
                                           "node.kubernetes.io/unreachable"};
    for (int k = 0; k < 2; k++) {
        jsonw_obj(j);
        jsonw_kstr(j, "key", defaults[k]);
        jsonw_kstr(j, "operator", "Exists");
        jsonw_kstr(j, "effect", "NoExecute");
        jsonw_kint(j, "tolerationSeconds", 300);
        jsonw_obj_end(j);
    }
    jsonw_arr_end(j);
    jsonw_kint(j, "priority", 0);
    if (index >= 0) {
        char host[96];
        snprintf(host, sizeof host, "%s-%d", job_name, index);
        jsonw_kstr(j, "hostname", host);
    }
}

/* --- Pod --- */

/* "hostIP": ip and "hostIPs": [{"ip": ip}] (likewise podIP / podIPs). */
static void pod_ip(struct jsonw *j, const char *key, const char *ip) {
    char plural[16];
    snprintf(plural, sizeof plural, "%ss", key);
    jsonw_kstr(j, key, ip);
    jsonw_key(j, plural);
    jsonw_arr(j);
    jsonw_obj(j);
    jsonw_kstr(j, "ip", ip);
    jsonw_obj_end(j);
    jsonw_arr_end(j);
}

const char *sim_pod_phase(const struct sim_world *w, int idx, int64_t asof) {
    const struct sim_pod *p = &w->pods[idx];
    if (V(p->fin_seq))
        return p->exit_code == 0 ? "Succeeded" : "Failed";
    if (V(p->gcfail_seq))
        return "Failed";
    return V(p->start_seq) ? "Running" : "Pending";
}

bool sim_pod_ready(const struct sim_world *w, int idx, int64_t asof) {
    const struct sim_pod *p = &w->pods[idx];
    const struct sim_node *node = p->node >= 0 ? &w->nodes[p->node] : NULL;
    bool node_lost = node && V(node->notready_seq) && node->notready_t >= p->start_t;
    return V(p->start_seq) && !V(p->fin_seq) && !V(p->gcfail_seq) && !node_lost;
}

/* "<image>@sha256:<64 hex>": a digest-shaped id, a pure function of the image name
 * (FNV-1a rounds), so every pod of one image reports the same imageID. */
static void image_digest(const char *image, char *out, size_t n) {
    char hex[65];
    uint64_t h = 1469598103934665603ULL;
    for (int r = 0; r < 4; r++) {
        for (const char *c = image; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ULL;
        h = (h ^ (uint64_t)r) * 1099511628211ULL;
        snprintf(hex + r * 16, 17, "%016llx", (unsigned long long)h);
    }
    const char *at = strchr(image, '@');
    snprintf(out, n, "%.*s@sha256:%s", at ? (int)(at - image) : (int)strlen(image), image, hex);
}

/* The scheduler's FailedScheduling summary as of asof: how many nodes exist and
 * why none fits (outside the workload's pools, not ready or cordoned, or full). */
static void unschedulable_message(const struct sim_world *w, const struct sim_workload *wl,
                                  int64_t asof, char *out, size_t n) {
    int total = 0, affinity = 0, unready = 0, cordoned = 0, full = 0;
    for (int i = 0; i < w->nnodes; i++) {
        const struct sim_node *nd = &w->nodes[i];
        if (!sim_obj_exists(w, SIM_K_NODE, i, asof))
            continue;
        total++;
        bool in_pools = false;
        for (int k = 0; k < wl->npools; k++)
            if (w->pools[nd->pool].spec == wl->pools[k])
                in_pools = true;
        if (!in_pools)
            affinity++;
        else if (!V(nd->ready_seq) || V(nd->notready_seq))
            unready++;
        else if (V(nd->cordon_seq))
            cordoned++;
        else
            full++;
    }
    size_t len = (size_t)snprintf(out, n, "0/%d nodes are available:", total);
    const char *sep = "";
#define REASON(count, text)                                                                        \
    if ((count) > 0 && len < n) {                                                                  \
        len += (size_t)snprintf(out + len, n - len, "%s %d %s", sep, (count), (text));             \
        sep = ",";                                                                                 \
    }
    REASON(unready, "node(s) had untolerated taint {node.kubernetes.io/not-ready: }")
    REASON(full, "Insufficient nvidia.com/gpu")
    REASON(affinity, "node(s) didn't match Pod's node affinity/selector")
    REASON(cordoned, "node(s) were unschedulable")
#undef REASON
    if (len < n)
        snprintf(out + len, n - len,
                 ". preemption: 0/%d nodes are available: %d Preemption is not "
                 "helpful for scheduling.",
                 total, total);
}

static void render_pod(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                       bool with_kind) {
    const struct sim_pod *p = &w->pods[idx];
    const struct sim_job *job = &w->jobs[p->job];
    const struct sim_workload *wl = &w->sc->workloads[job->workload];
    const struct sim_task *tk = &w->tasks[p->task];
    const struct sim_node *node = p->node >= 0 ? &w->nodes[p->node] : NULL;
    bool sched = V(p->sched_seq), started = V(p->start_seq), fin = V(p->fin_seq);
    bool gcfail = V(p->gcfail_seq), disrupt = V(p->disrupt_seq), delreq = V(p->delreq_seq);
    bool node_lost = node && V(node->notready_seq) && node->notready_t >= p->start_t;
    jsonw_obj(j);
    kind_header(j, SIM_K_POD, with_kind);
    jsonw_key(j, "metadata");
    jsonw_obj(j);
    jsonw_kstr(j, "name", p->name);
    char gen[80];
    if (tk->index >= 0)
        snprintf(gen, sizeof gen, "%s-%d-", job->name, tk->index);
    else
        snprintf(gen, sizeof gen, "%s-", job->name);
    jsonw_kstr(j, "generateName", gen);
    jsonw_kstr(j, "namespace", w->sc->namespace_);
    jsonw_kstr(j, "uid", p->uid);
    krv(j, sim_seqs_at(&p->seqs, asof));
    jsonw_ktime(j, "creationTimestamp", p->created_t);
    struct sim_labels l;
    sim_obj_labels(w, SIM_K_POD, idx, &l);
    write_labels(j, &l);
    if (tk->index >= 0) {
        jsonw_key(j, "annotations");
        jsonw_obj(j);
        jsonw_kstr(j, "batch.kubernetes.io/job-completion-index", l.idx);
        jsonw_obj_end(j);
    }
    jsonw_key(j, "ownerReferences");
    jsonw_arr(j);
    jsonw_obj(j);
    jsonw_kstr(j, "apiVersion", "batch/v1");
    jsonw_kstr(j, "kind", "Job");
    jsonw_kstr(j, "name", job->name);
    jsonw_kstr(j, "uid", job->uid);
    jsonw_kbool(j, "controller", true);
    jsonw_kbool(j, "blockOwnerDeletion", true);
    jsonw_obj_end(j);
    jsonw_arr_end(j);
    if (delreq && w->kube_deletion) { /* set once at the request: request + grace */
        jsonw_ktime(j, "deletionTimestamp", p->delreq_t + p->delgrace);
        jsonw_kint(j, "deletionGracePeriodSeconds", p->delgrace);
    } else if (delreq) {
        jsonw_ktime(j, "deletionTimestamp", p->deleted_t);
        jsonw_kint(j, "deletionGracePeriodSeconds",
                   p->deleted_t == SIM_NEVER ? 30 : p->deleted_t - p->delreq_t);
    }
    jsonw_obj_end(j);

    jsonw_key(j, "spec");
    jsonw_obj(j);
    pod_spec_body(j, w, wl, job->name, tk->index);
    if (sched && node)
        jsonw_kstr(j, "nodeName", node->name);
    jsonw_obj_end(j);

    jsonw_key(j, "status");
    jsonw_obj(j);
    jsonw_kstr(j, "phase", sim_pod_phase(w, idx, asof));
    jsonw_key(j, "conditions");
    jsonw_arr(j);
    if (sched) {
        condition(j, "Initialized", "True", p->sched_t, NULL, NULL, true);
        bool terminal = fin || gcfail;
        if (started && !terminal && !node_lost) {
            condition(j, "Ready", "True", p->start_t, NULL, NULL, true);
            condition(j, "ContainersReady", "True", p->start_t, NULL, NULL, true);
        } else if (terminal) {
            int64_t t = fin ? p->fin_t : p->gcfail_t;
            if (node_lost && node->notready_t < t)
                t = node->notready_t;
            const char *why = fin && p->exit_code == 0 ? "PodCompleted" : "PodFailed";
            condition(j, "Ready", "False", t, why, NULL, true);
            condition(j, "ContainersReady", "False", t, why, NULL, true);
        } else if (node_lost) {
            condition(j, "Ready", "False", node->notready_t, NULL, NULL, true);
            condition(j, "ContainersReady", "True", p->start_t, NULL, NULL, true);
        } else {
            condition(j, "Ready", "False", p->sched_t, "ContainersNotReady",
                      "containers with unready status: [main]", true);
            condition(j, "ContainersReady", "False", p->sched_t, "ContainersNotReady",
                      "containers with unready status: [main]", true);
        }
        condition(j, "PodScheduled", "True", p->sched_t, NULL, NULL, true);
    } else if (V(p->unsched_seq)) {
        char why[256];
        unschedulable_message(w, wl, asof, why, sizeof why);
        condition(j, "PodScheduled", "False", p->unsched_t, "Unschedulable", why, true);
    }
    if (disrupt)
        condition(j, "DisruptionTarget", "True", p->disrupt_t, p->disrupt_reason, p->disrupt_msg,
                  true);
    jsonw_arr_end(j);
    if (node_lost && !fin && !gcfail) {
        /* the node lifecycle controller's words for a pod on an unreachable node */
        char msg[256];
        snprintf(msg, sizeof msg, "Node %s which was running pod %s is unresponsive", node->name,
                 p->name);
        jsonw_kstr(j, "reason", "NodeLost");
        jsonw_kstr(j, "message", msg);
    } else if (gcfail && !fin) {
        char msg[256];
        snprintf(msg, sizeof msg, "Node %s which was running pod %s was deleted", node->name,
                 p->name);
        jsonw_kstr(j, "reason", "NodeLost");
        jsonw_kstr(j, "message", msg);
    }
    if (sched && node) {
        char ip[32];
        snprintf(ip, sizeof ip, "10.116.%d.%d", (p->node / 250) % 250, p->node % 250 + 2);
        pod_ip(j, "hostIP", ip);
        if (started) {
            /* inside the node's podCIDR (render_node) */
            snprintf(ip, sizeof ip, "10.244.%d.%d", p->node % 256, idx % 120 + 2);
            pod_ip(j, "podIP", ip);
        }
        jsonw_ktime(j, "startTime", p->sched_t);
        jsonw_key(j, "containerStatuses");
        jsonw_arr(j);
        jsonw_obj(j);
        jsonw_kstr(j, "name", "main");
        jsonw_key(j, "state");
        jsonw_obj(j);
        char cid[96];
        snprintf(cid, sizeof cid, "containerd://%.8s%.4s%.4s%.4s%.12s", p->uid, p->uid + 9,
                 p->uid + 14, p->uid + 19, p->uid + 24);
        if (fin) {
            jsonw_key(j, "terminated");
            jsonw_obj(j);
            jsonw_kint(j, "exitCode", p->exit_code);
            jsonw_kstr(j, "reason", p->fin_reason);
            if (p->message)
                jsonw_kstr(j, "message", p->message);
            jsonw_ktime(j, "startedAt", p->start_t);
            jsonw_ktime(j, "finishedAt", p->fin_t);
            jsonw_kstr(j, "containerID", cid);
            jsonw_obj_end(j);
        } else if (started) {
            jsonw_key(j, "running");
            jsonw_obj(j);
            jsonw_ktime(j, "startedAt", p->start_t);
            jsonw_obj_end(j);
        } else {
            jsonw_key(j, "waiting");
            jsonw_obj(j);
            jsonw_kstr(j, "reason", "ContainerCreating");
            jsonw_obj_end(j);
        }
        jsonw_obj_end(j);
        jsonw_key(j, "lastState");
        jsonw_obj(j);
        jsonw_obj_end(j);
        jsonw_kbool(j, "ready", started && !fin && !gcfail && !node_lost);
        jsonw_kint(j, "restartCount", 0);
        jsonw_kstr(j, "image", wl->image);
        char image_id[256];
        image_digest(wl->image, image_id, sizeof image_id);
        jsonw_kstr(j, "imageID", started ? image_id : "");
        if (started)
            jsonw_kstr(j, "containerID", cid);
        jsonw_kbool(j, "started", started && !fin);
        jsonw_obj_end(j);
        jsonw_arr_end(j);
    }
    jsonw_kstr(j, "qosClass", "Burstable");
    jsonw_obj_end(j);
    jsonw_obj_end(j);
}

/* --- Job --- */

static void write_completed_indexes(struct jsonw *j, const struct sim_world *w,
                                    const struct sim_job *job, int64_t asof) {
    char out[1024];
    size_t len = 0;
    out[0] = '\0';
    int k = 0;
    while (k < job->ntasks) {
        if (!V(w->tasks[job->first_task + k].succeeded_seq)) {
            k++;
            continue;
        }
        int a = k;
        while (k + 1 < job->ntasks && V(w->tasks[job->first_task + k + 1].succeeded_seq))
            k++;
        int n = a == k ? snprintf(out + len, sizeof out - len, "%s%d", len ? "," : "", a)
                       : snprintf(out + len, sizeof out - len, "%s%d-%d", len ? "," : "", a, k);
        if (n < 0 || (size_t)n >= sizeof out - len)
            break;
        len += (size_t)n;
        k++;
    }
    if (len)
        jsonw_kstr(j, "completedIndexes", out);
}

static void render_job(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                       bool with_kind) {
    const struct sim_job *job = &w->jobs[idx];
    const struct sim_workload *wl = &w->sc->workloads[job->workload];
    jsonw_obj(j);
    kind_header(j, SIM_K_JOB, with_kind);
    jsonw_key(j, "metadata");
    jsonw_obj(j);
    jsonw_kstr(j, "name", job->name);
    jsonw_kstr(j, "namespace", w->sc->namespace_);
    jsonw_kstr(j, "uid", job->uid);
    krv(j, sim_seqs_at(&job->seqs, asof));
    jsonw_kint(j, "generation", 1);
    jsonw_ktime(j, "creationTimestamp", job->created_t);
    struct sim_labels l;
    sim_obj_labels(w, SIM_K_JOB, idx, &l);
    write_labels(j, &l);
    if (V(job->deleted_seq))
        jsonw_ktime(j, "deletionTimestamp", job->deleted_t);
    jsonw_obj_end(j);

    jsonw_key(j, "spec");
    jsonw_obj(j);
    jsonw_kint(j, "parallelism", job->ntasks);
    jsonw_kint(j, "completions", job->ntasks);
    if (wl->active_deadline > 0)
        jsonw_kint(j, "activeDeadlineSeconds", wl->active_deadline);
    jsonw_kint(j, "backoffLimit", wl->backoff_limit);
    if (wl->pod_failure_policy) {
        jsonw_key(j, "podFailurePolicy");
        jsonw_obj(j);
        jsonw_key(j, "rules");
        jsonw_arr(j);
        jsonw_obj(j);
        jsonw_kstr(j, "action", "Ignore");
        jsonw_key(j, "onPodConditions");
        jsonw_arr(j);
        jsonw_obj(j);
        jsonw_kstr(j, "type", "DisruptionTarget");
        jsonw_kstr(j, "status", "True");
        jsonw_obj_end(j);
        jsonw_arr_end(j);
        jsonw_obj_end(j);
        jsonw_arr_end(j);
        jsonw_obj_end(j);
    }
    jsonw_key(j, "selector");
    jsonw_obj(j);
    jsonw_key(j, "matchLabels");
    jsonw_obj(j);
    jsonw_kstr(j, "batch.kubernetes.io/controller-uid", job->uid);
    jsonw_obj_end(j);
    jsonw_obj_end(j);
    jsonw_key(j, "template");
    jsonw_obj(j);
    jsonw_key(j, "metadata");
    jsonw_obj(j);
    struct sim_labels tl;
    memset(&tl, 0, sizeof tl);
    workload_labels(wl, &tl);
    add_label(&tl, "batch.kubernetes.io/controller-uid", job->uid);
    add_label(&tl, "batch.kubernetes.io/job-name", job->name);
    add_label(&tl, "controller-uid", job->uid);
    add_label(&tl, "job-name", job->name);
    write_labels(j, &tl);
    jsonw_obj_end(j);
    jsonw_key(j, "spec");
    jsonw_obj(j);
    pod_spec_body(j, w, wl, job->name, -1);
    jsonw_obj_end(j);
    jsonw_obj_end(j);
    jsonw_kstr(j, "completionMode", wl->indexed ? "Indexed" : "NonIndexed");
    jsonw_kbool(j, "suspend", false);
    jsonw_kstr(j, "podReplacementPolicy",
               wl->pod_failure_policy ? "Failed" : "TerminatingOrFailed");
    jsonw_kint(j, "ttlSecondsAfterFinished", wl->ttl_after_finished);
    jsonw_obj_end(j);

    /* status: counters folded from the pods as of asof */
    int active = 0, ready = 0, succeeded = 0, failed = 0, terminating = 0;
    for (int k = 0; k < job->npods; k++) {
        const struct sim_pod *p = &w->pods[job->pods[k]];
        if (!V(p->created_seq))
            continue;
        bool fin = V(p->fin_seq), deleted = V(p->deleted_seq), gone = fin || V(p->gcfail_seq);
        if (fin && p->exit_code == 0)
            succeeded++;
        if (V(p->counted_seq))
            failed++;
        if (!gone && !deleted) {
            if (V(p->delreq_seq))
                terminating++;
            else {
                active++;
                if (V(p->start_seq))
                    ready++;
            }
        }
    }
    bool done = V(job->done_seq);
    jsonw_key(j, "status");
    jsonw_obj(j);
    if (done) {
        jsonw_key(j, "conditions");
        jsonw_arr(j);
        if (job->failed) {
            const char *msg = strcmp(job->fail_reason, "DeadlineExceeded") == 0
                                  ? "Job was active longer than specified deadline"
                                  : "Job has reached the specified backoff limit";
            condition(j, "FailureTarget", "True", job->done_t, job->fail_reason, msg, false);
            condition(j, "Failed", "True", job->done_t, job->fail_reason, msg, false);
        } else {
            const char *msg = "Reached expected number of succeeded pods";
            condition(j, "SuccessCriteriaMet", "True", job->done_t, "CompletionsReached", msg,
                      false);
            condition(j, "Complete", "True", job->done_t, "CompletionsReached", msg, false);
        }
        jsonw_arr_end(j);
    }
    jsonw_ktime(j, "startTime", job->created_t);
    if (done && !job->failed)
        jsonw_ktime(j, "completionTime", job->done_t);
    if (active)
        jsonw_kint(j, "active", active);
    if (succeeded)
        jsonw_kint(j, "succeeded", succeeded);
    if (failed)
        jsonw_kint(j, "failed", failed);
    jsonw_kint(j, "terminating", terminating);
    if (wl->indexed)
        write_completed_indexes(j, w, job, asof);
    jsonw_key(j, "uncountedTerminatedPods");
    jsonw_obj(j);
    jsonw_obj_end(j);
    jsonw_kint(j, "ready", ready);
    jsonw_obj_end(j);
    jsonw_obj_end(j);
}

/* --- Node --- */

static void taint(struct jsonw *j, const char *key, const char *value, const char *effect,
                  int64_t added) {
    jsonw_obj(j);
    jsonw_kstr(j, "key", key);
    if (value)
        jsonw_kstr(j, "value", value);
    jsonw_kstr(j, "effect", effect);
    if (added)
        jsonw_ktime(j, "timeAdded", added);
    jsonw_obj_end(j);
}

/* MemoryPressure, DiskPressure, PIDPressure (kubelet) and NetworkUnavailable (the
 * CNI): healthy from registration; Unknown once the node stopped posting status. */
static void node_pressure_conditions(struct jsonw *j, const struct sim_node *n, bool ready,
                                     bool lost) {
    static const char *const kube[3][3] = {
        {"MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
        {"DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
        {"PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"}};
    jsonw_obj(j);
    jsonw_kstr(j, "type", "NetworkUnavailable");
    jsonw_kstr(j, "status", ready || lost ? "False" : "True");
    jsonw_ktime(j, "lastHeartbeatTime", ready || lost ? n->ready_t : n->reg_t);
    jsonw_ktime(j, "lastTransitionTime", ready || lost ? n->ready_t : n->reg_t);
    jsonw_kstr(j, "reason", ready || lost ? "CiliumIsUp" : "NoRouteCreated");
    jsonw_kstr(j, "message",
               ready || lost ? "Cilium is running on this node" : "Node created without a route");
    jsonw_obj_end(j);
    for (int k = 0; k < 3; k++) {
        jsonw_obj(j);
        jsonw_kstr(j, "type", kube[k][0]);
        jsonw_kstr(j, "status", lost ? "Unknown" : "False");
        jsonw_ktime(j, "lastHeartbeatTime", lost ? n->notready_t : ready ? n->ready_t : n->reg_t);
        jsonw_ktime(j, "lastTransitionTime", lost ? n->notready_t : n->reg_t);
        jsonw_kstr(j, "reason", lost ? "NodeStatusUnknown" : kube[k][1]);
        jsonw_kstr(j, "message", lost ? "Kubelet stopped posting node status." : kube[k][2]);
        jsonw_obj_end(j);
    }
}

static void render_node(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                        bool with_kind) {
    const struct sim_node *n = &w->nodes[idx];
    const struct sim_pool_spec *ps = &w->sc->pools[w->pools[n->pool].spec];
    const struct sim_size *sz = &w->sc->sizes[ps->size_idx];
    bool cordoned = V(n->cordon_seq), ready = V(n->ready_seq), lost = V(n->notready_seq);
    jsonw_obj(j);
    kind_header(j, SIM_K_NODE, with_kind);
    jsonw_key(j, "metadata");
    jsonw_obj(j);
    jsonw_kstr(j, "name", n->name);
    jsonw_kstr(j, "uid", n->uid);
    krv(j, sim_seqs_at(&n->seqs, asof));
    jsonw_ktime(j, "creationTimestamp", n->reg_t);
    struct sim_labels l;
    sim_obj_labels(w, SIM_K_NODE, idx, &l);
    write_labels(j, &l);
    jsonw_key(j, "annotations");
    jsonw_obj(j);
    char csi[64];
    snprintf(csi, sizeof csi, "{\"dobs.csi.digitalocean.com\":\"%s\"}", n->droplet_id);
    jsonw_kstr(j, "csi.volume.kubernetes.io/nodeid", csi);
    jsonw_kstr(j, "node.alpha.kubernetes.io/ttl", "0");
    jsonw_kstr(j, "volumes.kubernetes.io/controller-managed-attach-detach", "true");
    jsonw_obj_end(j);
    if (V(n->deleted_seq))
        jsonw_ktime(j, "deletionTimestamp", n->deleted_t);
    jsonw_obj_end(j);

    jsonw_key(j, "spec");
    jsonw_obj(j);
    char provider[48];
    snprintf(provider, sizeof provider, "digitalocean://%s", n->droplet_id);
    jsonw_kstr(j, "providerID", provider);
    char cidr[32];
    snprintf(cidr, sizeof cidr, "10.244.%d.0/25", idx % 256);
    jsonw_kstr(j, "podCIDR", cidr);
    jsonw_key(j, "podCIDRs");
    jsonw_arr(j);
    jsonw_str(j, cidr);
    jsonw_arr_end(j);
    if (cordoned)
        jsonw_kbool(j, "unschedulable", true);
    if (ps->ntaints || cordoned || lost) {
        jsonw_key(j, "taints");
        jsonw_arr(j);
        for (int k = 0; k < ps->ntaints; k++)
            taint(j, ps->taints[k].key, ps->taints[k].value, ps->taints[k].effect, 0);
        char since[24];
        snprintf(since, sizeof since, "%lld", (long long)n->cordon_t);
        if (cordoned && n->cordon_by_ca)
            taint(j, "ToBeDeletedByClusterAutoscaler", since, "NoSchedule", 0);
        if (cordoned)
            taint(j, "node.kubernetes.io/unschedulable", NULL, "NoSchedule", n->cordon_t);
        if (lost) {
            taint(j, "node.kubernetes.io/unreachable", NULL, "NoSchedule", n->notready_t);
            taint(j, "node.kubernetes.io/unreachable", NULL, "NoExecute", n->notready_t);
        }
        jsonw_arr_end(j);
    }
    jsonw_obj_end(j);

    jsonw_key(j, "status");
    jsonw_obj(j);
    for (int pass = 0; pass < 2; pass++) {
        jsonw_key(j, pass ? "allocatable" : "capacity");
        jsonw_obj(j);
        quantity(j, "cpu", pass ? n->cpu_m : (int64_t)sz->vcpus * 1000);
        char mem[32];
        snprintf(mem, sizeof mem, "%lldKi",
                 (long long)sz->memory_mb * 1024 * (pass ? 90 : 100) / 100);
        jsonw_kstr(j, "memory", mem);
        if (n->gpus)
            quantity(j, "nvidia.com/gpu", (int64_t)n->gpus * 1000);
        jsonw_kstr(j, "pods", "110");
        jsonw_obj_end(j);
    }
    jsonw_key(j, "conditions");
    jsonw_arr(j);
    node_pressure_conditions(j, n, ready, lost);
    jsonw_obj(j);
    jsonw_kstr(j, "type", "Ready");
    if (lost) {
        jsonw_kstr(j, "status", "Unknown");
        jsonw_ktime(j, "lastHeartbeatTime", n->notready_t);
        jsonw_ktime(j, "lastTransitionTime", n->notready_t);
        jsonw_kstr(j, "reason", "NodeStatusUnknown");
        jsonw_kstr(j, "message", "Kubelet stopped posting node status.");
    } else if (ready) {
        jsonw_kstr(j, "status", "True");
        jsonw_ktime(j, "lastHeartbeatTime", n->ready_t);
        jsonw_ktime(j, "lastTransitionTime", n->ready_t);
        jsonw_kstr(j, "reason", "KubeletReady");
        jsonw_kstr(j, "message", "kubelet is posting ready status");
    } else {
        jsonw_kstr(j, "status", "False");
        jsonw_ktime(j, "lastHeartbeatTime", n->reg_t);
        jsonw_ktime(j, "lastTransitionTime", n->reg_t);
        jsonw_kstr(j, "reason", "KubeletNotReady");
        jsonw_kstr(j, "message", "container runtime network not ready: cni plugin not initialized");
    }
    jsonw_obj_end(j);
    jsonw_arr_end(j);
    jsonw_key(j, "addresses");
    jsonw_arr(j);
    char ip[32];
    snprintf(ip, sizeof ip, "10.116.%d.%d", (idx / 250) % 250, idx % 250 + 2);
    jsonw_obj(j);
    jsonw_kstr(j, "type", "InternalIP");
    jsonw_kstr(j, "address", ip);
    jsonw_obj_end(j);
    jsonw_obj(j);
    jsonw_kstr(j, "type", "Hostname");
    jsonw_kstr(j, "address", n->name);
    jsonw_obj_end(j);
    /* a documentation address (RFC 5737): never a real host */
    snprintf(ip, sizeof ip, "203.0.113.%d", idx % 254 + 1);
    jsonw_obj(j);
    jsonw_kstr(j, "type", "ExternalIP");
    jsonw_kstr(j, "address", ip);
    jsonw_obj_end(j);
    jsonw_arr_end(j);
    jsonw_key(j, "daemonEndpoints");
    jsonw_obj(j);
    jsonw_key(j, "kubeletEndpoint");
    jsonw_obj(j);
    jsonw_kint(j, "Port", 10250);
    jsonw_obj_end(j);
    jsonw_obj_end(j);
    jsonw_key(j, "nodeInfo");
    jsonw_obj(j);
    /* machineID / bootID / systemUUID: derived from the node's uid, stable per node */
    char hex[33];
    size_t h = 0;
    for (const char *c = n->uid; *c && h < 32; c++)
        if (*c != '-')
            hex[h++] = *c;
    hex[h] = '\0';
    jsonw_kstr(j, "machineID", hex);
    jsonw_kstr(j, "systemUUID", n->uid);
    jsonw_kstr(j, "bootID", n->do_id);
    jsonw_kstr(j, "kernelVersion", "6.1.0-31-amd64");
    jsonw_kstr(j, "osImage", "Debian GNU/Linux 12 (bookworm)");
    jsonw_kstr(j, "containerRuntimeVersion", "containerd://1.7.27");
    jsonw_kstr(j, "kubeletVersion", "v1.33.1");
    jsonw_kstr(j, "kubeProxyVersion", "v1.33.1");
    jsonw_kstr(j, "operatingSystem", "linux");
    jsonw_kstr(j, "architecture", "amd64");
    jsonw_obj_end(j);
    jsonw_obj_end(j);
    jsonw_obj_end(j);
}

/* --- Event (core/v1) --- */

static void render_event(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                         bool with_kind) {
    const struct sim_kevent *ev = &w->events[idx];
    jsonw_obj(j);
    kind_header(j, SIM_K_EVENT, with_kind);
    jsonw_key(j, "metadata");
    jsonw_obj(j);
    jsonw_kstr(j, "name", ev->name);
    jsonw_kstr(j, "namespace", ev->ns);
    jsonw_kstr(j, "uid", ev->uid);
    krv(j, sim_obj_rv(w, SIM_K_EVENT, idx, asof));
    jsonw_ktime(j, "creationTimestamp", ev->t);
    if (V(ev->deleted_seq))
        jsonw_ktime(j, "deletionTimestamp", ev->deleted_t);
    jsonw_obj_end(j);
    jsonw_key(j, "involvedObject");
    jsonw_obj(j);
    enum sim_kind k = (enum sim_kind)ev->obj_kind;
    jsonw_kstr(j, "kind", sim_kind_name(k));
    if (k != SIM_K_NODE)
        jsonw_kstr(j, "namespace", w->sc->namespace_);
    jsonw_kstr(j, "name", sim_obj_name(w, k, ev->obj));
    jsonw_kstr(j, "uid",
               k == SIM_K_POD   ? w->pods[ev->obj].uid
               : k == SIM_K_JOB ? w->jobs[ev->obj].uid
                                : w->nodes[ev->obj].uid);
    jsonw_kstr(j, "apiVersion", sim_kind_api_version(k));
    jsonw_obj_end(j);
    jsonw_kstr(j, "reason", ev->reason);
    jsonw_kstr(j, "message", ev->message);
    jsonw_key(j, "source");
    jsonw_obj(j);
    jsonw_kstr(j, "component", ev->component);
    if (ev->host && k == SIM_K_NODE)
        jsonw_kstr(j, "host", w->nodes[ev->obj].name);
    else if (ev->host && k == SIM_K_POD && w->pods[ev->obj].node >= 0)
        jsonw_kstr(j, "host", w->nodes[w->pods[ev->obj].node].name);
    jsonw_obj_end(j);
    jsonw_ktime(j, "firstTimestamp", ev->t);
    jsonw_ktime(j, "lastTimestamp", ev->t);
    jsonw_kint(j, "count", 1);
    jsonw_kstr(j, "type", ev->type);
    jsonw_key(j, "eventTime");
    jsonw_null(j);
    jsonw_kstr(j, "reportingComponent", ev->component);
    jsonw_kstr(j, "reportingInstance", "");
    jsonw_obj_end(j);
}

void sim_obj_render(struct jsonw *j, const struct sim_world *w, enum sim_kind kind, int idx,
                    int64_t asof, bool with_kind) {
    switch (kind) {
    case SIM_K_POD:
        render_pod(j, w, idx, asof, with_kind);
        break;
    case SIM_K_JOB:
        render_job(j, w, idx, asof, with_kind);
        break;
    case SIM_K_NODE:
        render_node(j, w, idx, asof, with_kind);
        break;
    case SIM_K_PDB:
        sim_pdb_render(j, w, idx, asof, with_kind);
        break;
    default:
        render_event(j, w, idx, asof, with_kind);
        break;
    }
}
