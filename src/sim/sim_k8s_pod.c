/* sim_k8s_pod — Pods as kube-apiserver renders them, and the pod spec they share
 * with Job templates (sim_k8s_render.h). */
#include "sim/sim_k8s_render.h"

#include <stdio.h>
#include <string.h>

/* --- pod spec (shared by Pods and Job templates) --- */

/* "matchExpressions": the node pool is one of the workload's first npools. */
static void pool_match(struct jsonw *j, const struct sim_scenario *sc,
                       const struct sim_workload *wl, int npools) {
    jsonw_key(j, "matchExpressions");
    jsonw_arr(j);
    jsonw_obj(j);
    jsonw_kstr(j, "key", "doks.digitalocean.com/node-pool");
    jsonw_kstr(j, "operator", "In");
    jsonw_key(j, "values");
    jsonw_arr(j);
    for (int k = 0; k < npools; k++)
        jsonw_str(j, sc->pools[wl->pools[k]].name);
    jsonw_arr_end(j);
    jsonw_obj_end(j);
    jsonw_arr_end(j);
}

/* index >= 0: an Indexed Job's pod, which the Job controller gives
 * JOB_COMPLETION_INDEX and a hostname "<job>-<index>"; -1 for templates. */
void sim_render_pod_spec_body(struct jsonw *j, const struct sim_world *w,
                              const struct sim_workload *wl, const char *job_name, int index) {
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
    sim_render_quantity(j, "cpu", wl->cpu_m);
    if (wl->gpus)
        sim_render_quantity(j, "nvidia.com/gpu", (int64_t)wl->gpus * 1000);
    jsonw_obj_end(j);
    if (wl->gpus) {
        jsonw_key(j, "limits");
        jsonw_obj(j);
        sim_render_quantity(j, "nvidia.com/gpu", (int64_t)wl->gpus * 1000);
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
    pool_match(j, sc, wl, wl->npools);
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
        pool_match(j, sc, wl, 1);
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
    int64_t lost_t = node ? sim_node_lost_since(node, asof) : SIM_NEVER;
    bool node_lost = lost_t != SIM_NEVER && lost_t >= p->start_t;
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
        else if (!V(nd->ready_seq) || sim_node_lost_since(nd, asof) != SIM_NEVER)
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

void sim_render_pod(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                    bool with_kind) {
    const struct sim_pod *p = &w->pods[idx];
    const struct sim_job *job = &w->jobs[p->job];
    const struct sim_workload *wl = &w->sc->workloads[job->workload];
    const struct sim_task *tk = &w->tasks[p->task];
    const struct sim_node *node = p->node >= 0 ? &w->nodes[p->node] : NULL;
    bool sched = V(p->sched_seq), started = V(p->start_seq), fin = V(p->fin_seq);
    bool gcfail = V(p->gcfail_seq), disrupt = V(p->disrupt_seq), delreq = V(p->delreq_seq);
    int64_t lost_t = node ? sim_node_lost_since(node, asof) : SIM_NEVER;
    bool node_lost = lost_t != SIM_NEVER && lost_t >= p->start_t;
    sim_render_begin(j, SIM_K_POD, with_kind, p->name);
    char gen[80];
    if (tk->index >= 0)
        snprintf(gen, sizeof gen, "%s-%d-", job->name, tk->index);
    else
        snprintf(gen, sizeof gen, "%s-", job->name);
    jsonw_kstr(j, "generateName", gen);
    jsonw_kstr(j, "namespace", w->sc->namespace_);
    jsonw_kstr(j, "uid", p->uid);
    sim_render_krv(j, sim_seqs_at(&p->seqs, asof));
    jsonw_ktime(j, "creationTimestamp", p->created_t);
    struct sim_labels l;
    sim_render_obj_labels(j, w, SIM_K_POD, idx, &l);
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
    sim_render_pod_spec_body(j, w, wl, job->name, tk->index);
    if (sched && node)
        jsonw_kstr(j, "nodeName", node->name);
    jsonw_obj_end(j);

    jsonw_key(j, "status");
    jsonw_obj(j);
    jsonw_kstr(j, "phase", sim_pod_phase(w, idx, asof));
    jsonw_key(j, "conditions");
    jsonw_arr(j);
    if (sched) {
        sim_render_condition(j, "Initialized", "True", p->sched_t, NULL, NULL, true);
        bool terminal = fin || gcfail;
        if (started && !terminal && !node_lost) {
            sim_render_condition(j, "Ready", "True", p->start_t, NULL, NULL, true);
            sim_render_condition(j, "ContainersReady", "True", p->start_t, NULL, NULL, true);
        } else if (terminal) {
            int64_t t = fin ? p->fin_t : p->gcfail_t;
            if (node_lost && lost_t < t)
                t = lost_t;
            const char *why = fin && p->exit_code == 0 ? "PodCompleted" : "PodFailed";
            sim_render_condition(j, "Ready", "False", t, why, NULL, true);
            sim_render_condition(j, "ContainersReady", "False", t, why, NULL, true);
        } else if (node_lost) {
            sim_render_condition(j, "Ready", "False", lost_t, NULL, NULL, true);
            sim_render_condition(j, "ContainersReady", "True", p->start_t, NULL, NULL, true);
        } else {
            sim_render_condition(j, "Ready", "False", p->sched_t, "ContainersNotReady",
                                 "containers with unready status: [main]", true);
            sim_render_condition(j, "ContainersReady", "False", p->sched_t, "ContainersNotReady",
                                 "containers with unready status: [main]", true);
        }
        sim_render_condition(j, "PodScheduled", "True", p->sched_t, NULL, NULL, true);
    } else if (V(p->unsched_seq)) {
        char why[256];
        unschedulable_message(w, wl, asof, why, sizeof why);
        sim_render_condition(j, "PodScheduled", "False", p->unsched_t, "Unschedulable", why, true);
    }
    if (disrupt)
        sim_render_condition(j, "DisruptionTarget", "True", p->disrupt_t, p->disrupt_reason,
                             p->disrupt_msg, true);
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
