/* sim_k8s_serve — the parts of spotsim's Kubernetes API (sim_k8s_api.h is the
 * contract for callers; this header is internal to src/sim/sim_k8s_*.c):
 * routing, list and get (sim_k8s_api.c), field selectors (sim_k8s_select.c,
 * beside the label selectors), watches (sim_k8s_watch.c), discovery and
 * OpenAPI (sim_k8s_discovery.c). Thread rule: any thread; all read the
 * immutable world. */
#ifndef SPOTLEDGER_SIM_K8S_SERVE_H
#define SPOTLEDGER_SIM_K8S_SERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim_k8s_api.h"
#include "sim/sim_world.h"

#define K8S_MAX_SEGS 8 /* path segments at most, each < 128 bytes */

/* What a request addresses. */
struct k8s_target {
    enum sim_kind kind;
    const char *ns;   /* NULL: all namespaces */
    const char *name; /* NULL: the collection */
};

/* --- sim_k8s_api.c --- */

/* The object is in t's namespace and matches the label and field selectors as of asof. */
bool sim_k8s_matches(const struct sim_world *w, const struct k8s_target *t,
                     const struct sim_selector *sel, const char *fsel, enum sim_kind kind, int idx,
                     int64_t asof);
/* The oldest resourceVersion still served (older: 410 Gone). */
int64_t sim_k8s_oldest_rv(const struct sim_world *w, int64_t now, int64_t retention);
/* A resourceVersion parameter; *ok false when malformed. */
int64_t sim_k8s_parse_rv(const char *s, bool *ok);
/* A boolean query parameter: 1 true, 0 false, -1 malformed. */
int sim_k8s_parse_bool(const char *s);

/* --- sim_k8s_select.c: field selectors (metadata.name, metadata.namespace, ...) --- */

/* Object idx of kind matches the fieldSelector fsel (NULL/empty: everything). */
bool sim_k8s_field_match(const char *fsel, const struct sim_world *w, enum sim_kind kind, int idx,
                         int64_t asof);
/* fsel names only fields kind supports (else the API answers 400). */
bool sim_k8s_field_selector_ok(const char *fsel, const struct sim_world *w, enum sim_kind kind);

/* --- sim_k8s_watch.c --- */

/* Starts a watch of t from the request's resourceVersion: *out is set, or resp
 * holds the error (takes ownership of sel). */
void sim_k8s_do_watch(const struct sim_world *w, const struct request *req,
                      const struct k8s_target *t, int64_t now, int64_t retention,
                      struct sim_selector *sel, const char *fsel, bool table, struct response *resp,
                      struct sim_watch **out);

/* --- sim_k8s_discovery.c --- */

/* Answers /version, /api, /apis, /api/v1, the group versions and /openapi when
 * segs[0..n) is one of them (then true, resp filled). */
bool sim_k8s_discovery(const struct sim_world *w, char segs[K8S_MAX_SEGS][128], int n, int64_t now,
                       struct response *resp);

#endif
