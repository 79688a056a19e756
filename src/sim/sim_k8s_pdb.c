/* sim_k8s_pdb — see sim_k8s_pdb.h. */
#include "sim/sim_k8s_pdb.h"

#include <stdio.h>

#include "sim/sim_k8s_obj.h"
#include "sim/sim_k8s_render.h"

bool sim_pdb_exists(const struct sim_world *w, int idx) {
    const struct sim_workload *wl = &w->sc->workloads[idx];
    return wl->pdb_min_available >= 0 || wl->pdb_max_unavailable >= 0;
}

void sim_pdb_render(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                    bool with_kind) {
    const struct sim_workload *wl = &w->sc->workloads[idx];
    int expected = 0, healthy = 0;
    for (int i = 0; i < w->npods; i++) {
        if (w->jobs[w->pods[i].job].workload != idx || !sim_obj_exists(w, SIM_K_POD, i, asof))
            continue;
        const char *phase = sim_pod_phase(w, i, asof);
        if (phase[0] == 'S' || phase[0] == 'F') /* Succeeded / Failed: not counted */
            continue;
        expected++;
        healthy += sim_pod_ready(w, i, asof);
    }
    int desired =
        wl->pdb_min_available >= 0 ? wl->pdb_min_available : expected - wl->pdb_max_unavailable;
    if (desired < 0)
        desired = 0;
    int allowed = healthy - desired > 0 ? healthy - desired : 0;
    sim_render_begin(j, SIM_K_PDB, with_kind, wl->name);
    jsonw_kstr(j, "namespace", w->sc->namespace_);
    char uid[37];
    /* stable per seed and workload: 8-4-4-4-12 hex from both */
    unsigned long long h = 1469598103934665603ULL ^ (unsigned long long)w->seed;
    for (const char *c = wl->name; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    snprintf(uid, sizeof uid, "%08llx-%04llx-4%03llx-8%03llx-%012llx", h >> 32, (h >> 16) & 0xffff,
             h & 0xfff, (h >> 20) & 0xfff, (h * 1099511628211ULL) & 0xffffffffffffULL);
    jsonw_kstr(j, "uid", uid);
    sim_render_krv(j, 1);
    jsonw_kint(j, "generation", 1);
    jsonw_ktime(j, "creationTimestamp", w->sc->start - 86400);
    jsonw_obj_end(j);
    jsonw_key(j, "spec");
    jsonw_obj(j);
    if (wl->pdb_min_available >= 0)
        jsonw_kint(j, "minAvailable", wl->pdb_min_available);
    else
        jsonw_kint(j, "maxUnavailable", wl->pdb_max_unavailable);
    jsonw_key(j, "selector");
    jsonw_obj(j);
    jsonw_key(j, "matchLabels");
    jsonw_obj(j);
    jsonw_kstr(j, "app.kubernetes.io/name", wl->name);
    jsonw_obj_end(j);
    jsonw_obj_end(j);
    jsonw_obj_end(j);
    jsonw_key(j, "status");
    jsonw_obj(j);
    jsonw_kint(j, "observedGeneration", 1);
    jsonw_kint(j, "disruptionsAllowed", allowed);
    jsonw_kint(j, "currentHealthy", healthy);
    jsonw_kint(j, "desiredHealthy", desired);
    jsonw_kint(j, "expectedPods", expected);
    jsonw_key(j, "conditions");
    jsonw_arr(j);
    jsonw_obj(j);
    jsonw_kstr(j, "type", "DisruptionAllowed");
    jsonw_kstr(j, "status", allowed > 0 ? "True" : "False");
    jsonw_kint(j, "observedGeneration", 1);
    jsonw_ktime(j, "lastTransitionTime", w->sc->start - 86400);
    jsonw_kstr(j, "reason", allowed > 0 ? "SufficientPods" : "InsufficientPods");
    jsonw_kstr(j, "message", "");
    jsonw_obj_end(j);
    jsonw_arr_end(j);
    jsonw_obj_end(j);
    jsonw_obj_end(j);
}
