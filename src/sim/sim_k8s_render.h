/* sim_k8s_render — the pieces of spotsim's Kubernetes object rendering (callers
 * use sim_k8s_obj.h; this header is internal to src/sim/sim_k8s_*.c): the JSON
 * parts every object shares (sim_k8s_obj.c) and one renderer per kind: Pods and
 * the pod spec Job templates share (sim_k8s_pod.c), Jobs (sim_k8s_job.c), Nodes
 * (sim_k8s_node.c).
 *
 * A renderer reads facts through V(seq) ("visible as of asof", a variable in
 * scope) and nothing else, so a watch event, a list page and a GET of the same
 * seq always agree. Thread rule: any thread; the world is immutable. */
#ifndef SPOTLEDGER_SIM_K8S_RENDER_H
#define SPOTLEDGER_SIM_K8S_RENDER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/jsonw.h"
#include "sim/sim_k8s_obj.h"
#include "sim/sim_world.h"

#define V(fact_seq) ((fact_seq) <= asof)

/* --- sim_k8s_obj.c --- */

/* Appends label k=v to l. */
void sim_render_add_label(struct sim_labels *l, const char *k, const char *v);
/* The labels every object of workload wl carries. */
void sim_render_workload_labels(const struct sim_workload *wl, struct sim_labels *l);
/* "labels": {...} of l. */
void sim_render_write_labels(struct jsonw *j, const struct sim_labels *l);
/* Object idx's labels (sim_obj_labels) into l, and written as "labels". */
void sim_render_obj_labels(struct jsonw *j, const struct sim_world *w, enum sim_kind kind, int idx,
                           struct sim_labels *l);
/* Opens an object of kind: {, "kind" and "apiVersion" when with_kind, then
 * "metadata":{"name":name — the caller writes the rest of its metadata. */
void sim_render_begin(struct jsonw *j, enum sim_kind kind, bool with_kind, const char *name);
/* "resourceVersion": rv as a string. */
void sim_render_krv(struct jsonw *j, int64_t rv);
/* key: a Kubernetes quantity of milli units ("2", "500m"). */
void sim_render_quantity(struct jsonw *j, const char *key, int64_t milli);
/* One entry of status.conditions (probe: with lastProbeTime). */
void sim_render_condition(struct jsonw *j, const char *type, const char *status, int64_t t,
                          const char *reason, const char *message, bool probe);

/* --- one renderer per kind: the object idx as of asof ("kind" when with_kind) --- */

/* The pod spec of workload wl (a Job's template when job_name; index: the
 * completion index, -1 none). */
void sim_render_pod_spec_body(struct jsonw *j, const struct sim_world *w,
                              const struct sim_workload *wl, const char *job_name, int index);
void sim_render_pod(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                    bool with_kind);
void sim_render_job(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                    bool with_kind);
void sim_render_node(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                     bool with_kind);

#endif
