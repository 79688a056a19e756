/* sim_k8s_api — the Kubernetes API paths spotsim serves: discovery (/version,
 * /api, /apis, /api/v1, /apis/batch/v1), list / get / watch of pods, nodes,
 * events (core/v1) and jobs (batch/v1), cluster-wide and namespaced, with
 * limit/continue, labelSelector (k=v, k==v, k!=v, k, !k, k in (..), k notin (..)),
 * metadata.name / metadata.namespace fieldSelectors, resourceVersion and 410 Gone
 * for history older than the retention window.
 *
 * Lists are consistent snapshots: a continue token carries the list's seq, and
 * every page is rendered as of that seq. Watches replay log entries after the
 * requested resourceVersion up to the clock, then wait for the clock.
 * Thread rule: any thread; one sim_watch per connection. */
#ifndef SPOTLEDGER_SIM_K8S_API_H
#define SPOTLEDGER_SIM_K8S_API_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/request.h"
#include "sim/sim_fault.h"
#include "sim/sim_world.h"

struct sim_watch;

/* What a watch stream needs from its server while it runs. */
struct sim_watch_io {
    int64_t (*now)(void *ctx); /* simulated now */
    void *ctx;
    atomic_bool *stop;         /* server shutting down */
    struct sim_faults *faults; /* NULL: none */
    int64_t bookmark_ms;       /* real ms between BOOKMARKs (default 1000) */
};

/* Whether path is under a Kubernetes root: /version, /api, /apis, /openapi
 * (each with or without a trailing part, e.g. the Python client's "/version/"). */
bool sim_k8s_path(const char *path);

/* True if req->path is a Kubernetes path (then resp is filled, or *watch is set
 * for a streaming answer the caller feeds with sim_watch_read). `retention` is the
 * watch-history window in simulated seconds. */
bool sim_k8s_handle(const struct sim_world *w, const struct request *req, int64_t now,
                    int64_t retention, struct response *resp, struct sim_watch **watch);
/* The same, answering in the meta.k8s.io/v1 Table form when `accept` (the request's
 * Accept header, or NULL) asks for it (sim_k8s_table.h). */
bool sim_k8s_handle_accept(const struct sim_world *w, const struct request *req, int64_t now,
                           int64_t retention, const char *accept, struct response *resp,
                           struct sim_watch **watch);

/* Fills buf with up to max bytes of the stream. Blocks (bounded by the watch's
 * timeout and the stop flag) until there is something to send. Returns the
 * byte count (> 0), -1 at a clean end of stream, -2 to abort the connection
 * (an injected drop). */
ssize_t sim_watch_read(struct sim_watch *wt, const struct sim_watch_io *io, char *buf, size_t max);
void sim_watch_free(struct sim_watch *wt);
/* The kind a watch streams (enum sim_kind). */
int sim_watch_kind(const struct sim_watch *wt);

/* Kubernetes Status body (code, reason, message) into resp with that status. */
void sim_k8s_status(struct response *resp, int code, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* labelSelector support, exposed for tests. */
struct sim_selector;
enum err sim_selector_parse(const char *s, struct sim_selector **out);
bool sim_selector_match(const struct sim_selector *sel, const struct sim_world *w,
                        enum sim_kind kind, int idx);
void sim_selector_free(struct sim_selector *sel);

#endif
