/* sim_k8s_obj — Kubernetes objects (Pod, Job, Node, core/v1 Event) of a
 * sim_world rendered as JSON "as of" a log seq, shaped like a real API server's
 * (as the upstream Kubernetes test objects show them): list items without kind/apiVersion, watch
 * objects with them, counters omitted when zero where Kubernetes omits them.
 * Pure functions of (world, object, seq); thread rule: any thread. */
#ifndef SPOTLEDGER_SIM_K8S_OBJ_H
#define SPOTLEDGER_SIM_K8S_OBJ_H

#include <stdbool.h>
#include <stdint.h>

#include "base/jsonw.h"
#include "sim/sim_world.h"

#define SIM_MAX_LABELS 32

/* An object's labels; values point into the world or into idx (this struct). */
struct sim_labels {
    int n;
    const char *key[SIM_MAX_LABELS];
    const char *value[SIM_MAX_LABELS];
    char idx[16];
};

/* Whether object idx of `kind` exists as of seq (created and not yet deleted). */
bool sim_obj_exists(const struct sim_world *w, enum sim_kind kind, int idx, int64_t asof);
/* Its namespace ("" for nodes) and name (loans into the world). */
const char *sim_obj_namespace(const struct sim_world *w, enum sim_kind kind, int idx);
const char *sim_obj_name(const struct sim_world *w, enum sim_kind kind, int idx);
/* The uid of a Pod, Job or Node ("" for the other kinds: what an Event's
 * involvedObject.uid names). */
const char *sim_obj_uid(const struct sim_world *w, enum sim_kind kind, int idx);
/* Its labels (static over its life). */
void sim_obj_labels(const struct sim_world *w, enum sim_kind kind, int idx, struct sim_labels *out);
/* resourceVersion as of seq. */
int64_t sim_obj_rv(const struct sim_world *w, enum sim_kind kind, int idx, int64_t asof);
/* Writes the object; with_kind adds kind/apiVersion (watch events, single GETs). */
void sim_obj_render(struct jsonw *j, const struct sim_world *w, enum sim_kind kind, int idx,
                    int64_t asof, bool with_kind);
/* A pod's status.phase and its Ready condition as of seq. */
const char *sim_pod_phase(const struct sim_world *w, int idx, int64_t asof);
bool sim_pod_ready(const struct sim_world *w, int idx, int64_t asof);
/* "Pod"/"v1", "Job"/"batch/v1", ... */
const char *sim_kind_name(enum sim_kind kind);
const char *sim_kind_api_version(enum sim_kind kind);
/* Its list's kind ("PodList", ...) and its resource, the plural of its paths ("pods", ...). */
const char *sim_kind_list_name(enum sim_kind kind);
const char *sim_kind_resource(enum sim_kind kind);
/* Number of objects of a kind in the world (existing or not). */
int sim_obj_count(const struct sim_world *w, enum sim_kind kind);

#endif
