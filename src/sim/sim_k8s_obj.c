/* sim_k8s_obj — see sim_k8s_obj.h: the kinds, object lookups, labels, the
 * JSON pieces every object shares, Events, and sim_obj_render's dispatch to the
 * Pod, Job and Node renderers (sim_k8s_render.h). Each render function reads facts through
 * V(seq) ("visible as of asof") and nothing else, so a watch event, a list page
 * and a GET of the same seq always agree. */
#include "sim/sim_k8s_obj.h"
#include "sim/sim_k8s_render.h"

#include "sim/sim_k8s_pdb.h"

#include <stdio.h>
#include <string.h>

/* Each kind's names: its own, its list's, its resource's (the path's plural), and
 * its apiVersion. */
static const struct kind_names {
    const char *kind, *list, *resource, *api_version;
} kind_names[SIM_K_COUNT] = {
    [SIM_K_POD] = {"Pod", "PodList", "pods", "v1"},
    [SIM_K_JOB] = {"Job", "JobList", "jobs", "batch/v1"},
    [SIM_K_NODE] = {"Node", "NodeList", "nodes", "v1"},
    [SIM_K_EVENT] = {"Event", "EventList", "events", "v1"},
    [SIM_K_PDB] = {"PodDisruptionBudget", "PodDisruptionBudgetList", "poddisruptionbudgets",
                   "policy/v1"},
};

/* The kind's names; an unknown kind is taken as an Event. */
static const struct kind_names *names_of(enum sim_kind kind) {
    return &kind_names[(unsigned)kind < SIM_K_COUNT ? kind : SIM_K_EVENT];
}

const char *sim_kind_name(enum sim_kind kind) {
    return names_of(kind)->kind;
}

const char *sim_kind_list_name(enum sim_kind kind) {
    return names_of(kind)->list;
}

const char *sim_kind_resource(enum sim_kind kind) {
    return names_of(kind)->resource;
}

const char *sim_kind_api_version(enum sim_kind kind) {
    return names_of(kind)->api_version;
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

/* An object's name and uid ("" for PDBs and Events, which no Event names). */
struct obj_ids {
    const char *name, *uid;
};

static struct obj_ids obj_ids(const struct sim_world *w, enum sim_kind kind, int idx) {
    switch (kind) {
    case SIM_K_POD:
        return (struct obj_ids){w->pods[idx].name, w->pods[idx].uid};
    case SIM_K_JOB:
        return (struct obj_ids){w->jobs[idx].name, w->jobs[idx].uid};
    case SIM_K_NODE:
        return (struct obj_ids){w->nodes[idx].name, w->nodes[idx].uid};
    case SIM_K_PDB:
        return (struct obj_ids){w->sc->workloads[idx].name, ""};
    default:
        return (struct obj_ids){w->events[idx].name, ""};
    }
}

const char *sim_obj_name(const struct sim_world *w, enum sim_kind kind, int idx) {
    return obj_ids(w, kind, idx).name;
}

const char *sim_obj_uid(const struct sim_world *w, enum sim_kind kind, int idx) {
    return obj_ids(w, kind, idx).uid;
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

void sim_render_add_label(struct sim_labels *l, const char *k, const char *v) {
    if (l->n < SIM_MAX_LABELS) {
        l->key[l->n] = k;
        l->value[l->n] = v;
        l->n++;
    }
}

/* Labels a Job puts on itself (and its template): configuration, experiment, app. */
void sim_render_workload_labels(const struct sim_workload *wl, struct sim_labels *l) {
    sim_render_add_label(l, "app.kubernetes.io/name", wl->name);
    sim_render_add_label(l, "spotledger.io/configuration", sim_config_name(wl->configuration));
    if (wl->experiment)
        sim_render_add_label(l, "spotledger.io/experiment", wl->experiment);
}

void sim_obj_labels(const struct sim_world *w, enum sim_kind kind, int idx, struct sim_labels *l) {
    memset(l, 0, sizeof *l);
    if (kind == SIM_K_POD) {
        const struct sim_pod *p = &w->pods[idx];
        const struct sim_job *j = &w->jobs[p->job];
        const struct sim_task *tk = &w->tasks[p->task];
        sim_render_workload_labels(&w->sc->workloads[j->workload], l);
        sim_render_add_label(l, "batch.kubernetes.io/controller-uid", j->uid);
        sim_render_add_label(l, "batch.kubernetes.io/job-name", j->name);
        sim_render_add_label(l, "controller-uid", j->uid);
        sim_render_add_label(l, "job-name", j->name);
        if (tk->index >= 0) {
            snprintf(l->idx, sizeof l->idx, "%d", tk->index);
            sim_render_add_label(l, "batch.kubernetes.io/job-completion-index", l->idx);
        }
    } else if (kind == SIM_K_JOB) {
        sim_render_workload_labels(&w->sc->workloads[w->jobs[idx].workload], l);
    } else if (kind == SIM_K_NODE) {
        const struct sim_node *n = &w->nodes[idx];
        const struct sim_pool *pool = &w->pools[n->pool];
        const struct sim_pool_spec *ps = &w->sc->pools[pool->spec];
        const struct sim_size *sz = &w->sc->sizes[ps->size_idx];
        sim_render_add_label(l, "beta.kubernetes.io/arch", "amd64");
        sim_render_add_label(l, "beta.kubernetes.io/instance-type", sz->slug);
        sim_render_add_label(l, "beta.kubernetes.io/os", "linux");
        sim_render_add_label(l, "doks.digitalocean.com/node-id", n->do_id);
        sim_render_add_label(l, "doks.digitalocean.com/node-pool", pool->name);
        sim_render_add_label(l, "doks.digitalocean.com/node-pool-id", pool->id);
        sim_render_add_label(l, "doks.digitalocean.com/version", w->sc->k8s_version);
        sim_render_add_label(l, "failure-domain.beta.kubernetes.io/region", w->sc->region);
        sim_render_add_label(l, "kubernetes.io/arch", "amd64");
        sim_render_add_label(l, "kubernetes.io/hostname", n->name);
        sim_render_add_label(l, "kubernetes.io/os", "linux");
        sim_render_add_label(l, "node.kubernetes.io/instance-type", sz->slug);
        sim_render_add_label(l, "region", w->sc->region);
        sim_render_add_label(l, "topology.kubernetes.io/region", w->sc->region);
        for (int k = 0; k < ps->nlabels; k++)
            sim_render_add_label(l, ps->labels[k].key, ps->labels[k].value);
    }
}

void sim_render_write_labels(struct jsonw *j, const struct sim_labels *l) {
    jsonw_key(j, "labels");
    jsonw_obj(j);
    for (int i = 0; i < l->n; i++)
        jsonw_kstr(j, l->key[i], l->value[i]);
    jsonw_obj_end(j);
}

void sim_render_obj_labels(struct jsonw *j, const struct sim_world *w, enum sim_kind kind, int idx,
                           struct sim_labels *l) {
    sim_obj_labels(w, kind, idx, l);
    sim_render_write_labels(j, l);
}

void sim_render_begin(struct jsonw *j, enum sim_kind kind, bool with_kind, const char *name) {
    jsonw_obj(j);
    if (with_kind) {
        jsonw_kstr(j, "kind", sim_kind_name(kind));
        jsonw_kstr(j, "apiVersion", sim_kind_api_version(kind));
    }
    jsonw_key(j, "metadata");
    jsonw_obj(j);
    jsonw_kstr(j, "name", name);
}

void sim_render_krv(struct jsonw *j, int64_t rv) {
    char tmp[24];
    snprintf(tmp, sizeof tmp, "%lld", (long long)rv);
    jsonw_kstr(j, "resourceVersion", tmp);
}

void sim_render_quantity(struct jsonw *j, const char *key, int64_t milli) {
    char tmp[32];
    if (milli % 1000 == 0)
        snprintf(tmp, sizeof tmp, "%lld", (long long)(milli / 1000));
    else
        snprintf(tmp, sizeof tmp, "%lldm", (long long)milli);
    jsonw_kstr(j, key, tmp);
}

void sim_render_condition(struct jsonw *j, const char *type, const char *status, int64_t t,
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

/* --- Event (core/v1) --- */

static void render_event(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                         bool with_kind) {
    const struct sim_kevent *ev = &w->events[idx];
    sim_render_begin(j, SIM_K_EVENT, with_kind, ev->name);
    jsonw_kstr(j, "namespace", ev->ns);
    jsonw_kstr(j, "uid", ev->uid);
    sim_render_krv(j, sim_obj_rv(w, SIM_K_EVENT, idx, asof));
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
    jsonw_kstr(j, "uid", sim_obj_uid(w, k, ev->obj));
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

/* Writes object idx of one kind (sim_k8s_render.h, sim_k8s_pdb.h; Events above). */
typedef void render_fn(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                       bool with_kind);

void sim_obj_render(struct jsonw *j, const struct sim_world *w, enum sim_kind kind, int idx,
                    int64_t asof, bool with_kind) {
    static render_fn *const render[SIM_K_COUNT] = {
        [SIM_K_POD] = sim_render_pod, [SIM_K_JOB] = sim_render_job, [SIM_K_NODE] = sim_render_node,
        [SIM_K_EVENT] = render_event, [SIM_K_PDB] = sim_pdb_render,
    };
    render[(unsigned)kind < SIM_K_COUNT ? kind : SIM_K_EVENT](j, w, idx, asof, with_kind);
}
