/* sim_k8s_node — Nodes as kube-apiserver renders them: labels, taints, capacity,
 * conditions, addresses (sim_k8s_render.h). */
#include "sim/sim_k8s_render.h"

#include <stdio.h>
#include <string.h>

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
                                     int64_t lost_t) {
    bool lost = lost_t != SIM_NEVER;
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
        jsonw_ktime(j, "lastHeartbeatTime", lost ? lost_t : ready ? n->ready_t : n->reg_t);
        jsonw_ktime(j, "lastTransitionTime", lost ? lost_t : n->reg_t);
        jsonw_kstr(j, "reason", lost ? "NodeStatusUnknown" : kube[k][1]);
        jsonw_kstr(j, "message", lost ? "Kubelet stopped posting node status." : kube[k][2]);
        jsonw_obj_end(j);
    }
}

void sim_render_node(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                     bool with_kind) {
    const struct sim_node *n = &w->nodes[idx];
    const struct sim_pool_spec *ps = &w->sc->pools[w->pools[n->pool].spec];
    const struct sim_size *sz = &w->sc->sizes[ps->size_idx];
    bool cordoned = V(n->cordon_seq), ready = V(n->ready_seq);
    int64_t lost_t = sim_node_lost_since(n, asof), ready_since = sim_node_ready_since(n, asof);
    bool lost = lost_t != SIM_NEVER;
    sim_render_begin(j, SIM_K_NODE, with_kind, n->name);
    jsonw_kstr(j, "uid", n->uid);
    sim_render_krv(j, sim_seqs_at(&n->seqs, asof));
    jsonw_ktime(j, "creationTimestamp", n->reg_t);
    struct sim_labels l;
    sim_render_obj_labels(j, w, SIM_K_NODE, idx, &l);
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
            taint(j, "node.kubernetes.io/unreachable", NULL, "NoSchedule", lost_t);
            taint(j, "node.kubernetes.io/unreachable", NULL, "NoExecute", lost_t);
        }
        jsonw_arr_end(j);
    }
    jsonw_obj_end(j);

    jsonw_key(j, "status");
    jsonw_obj(j);
    for (int pass = 0; pass < 2; pass++) {
        jsonw_key(j, pass ? "allocatable" : "capacity");
        jsonw_obj(j);
        sim_render_quantity(j, "cpu", pass ? n->cpu_m : (int64_t)sz->vcpus * 1000);
        char mem[32];
        snprintf(mem, sizeof mem, "%lldKi",
                 (long long)sz->memory_mb * 1024 * (pass ? 90 : 100) / 100);
        jsonw_kstr(j, "memory", mem);
        if (n->gpus)
            sim_render_quantity(j, "nvidia.com/gpu", (int64_t)n->gpus * 1000);
        jsonw_kstr(j, "pods", "110");
        jsonw_obj_end(j);
    }
    jsonw_key(j, "conditions");
    jsonw_arr(j);
    node_pressure_conditions(j, n, ready, lost_t);
    jsonw_obj(j);
    jsonw_kstr(j, "type", "Ready");
    if (lost) {
        jsonw_kstr(j, "status", "Unknown");
        jsonw_ktime(j, "lastHeartbeatTime", lost_t);
        jsonw_ktime(j, "lastTransitionTime", lost_t);
        jsonw_kstr(j, "reason", "NodeStatusUnknown");
        jsonw_kstr(j, "message", "Kubelet stopped posting node status.");
    } else if (ready) {
        jsonw_kstr(j, "status", "True");
        jsonw_ktime(j, "lastHeartbeatTime", ready_since);
        jsonw_ktime(j, "lastTransitionTime", ready_since);
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
    sim_node_private_ip(idx, ip);
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
