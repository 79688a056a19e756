/* watch_k8s_internal — the Kubernetes watcher's state and the pieces its files
 * share (watch_k8s.h is the contract for callers and describes the state
 * machine; this header is internal to src/ingest/watch_k8s*.c): set-up, waits
 * and public control (watch_k8s.c), the paged list (watch_k8s_list.c), the
 * watch stream and each informer's loop with its request budget
 * (watch_k8s_stream.c). Thread rule: an informer's fields belong to its thread;
 * w->stop, w->stats and w->cond are guarded by w->mu; the store is written
 * under w->writer_lock. */
#ifndef SPOTLEDGER_WATCH_K8S_INTERNAL_H
#define SPOTLEDGER_WATCH_K8S_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/log.h"
#include "ingest/watch_k8s.h"
#include "source/http_client.h"
#include "source/k8s_api.h"
#include "source/kube_auth.h"
#include "store/store.h"

#define WATCH_MAX_PAGES 100000
#define WATCH_MAX_LIST_RESTARTS 3
#define WATCH_MAX_RESOURCES 6
#define WATCH_RELIST_WINDOW_MS 60000
#define WATCH_MAX_RELISTS_CAP 16

/* One watched resource: its path and query, and its watch_state key. */
struct resource {
    char name[32]; /* watch_state key: "jobs", "pods", "nodes", "events", "node-events" */
    enum k8s_kind kind;
    char path[512];       /* "/api/v1/namespaces/ns/pods" */
    char query[512];      /* "labelSelector=..." or "" (already escaped) */
    const char *scope_ns; /* namespace for relist deletion marks, NULL = all */
};

/* The list+watch loop of one resource, on its own thread. */
struct informer {
    struct watch_k8s *w;
    struct resource res;
    struct http_client *http;
    struct kube_token token;
    char rv[K8S_RV_MAX];      /* resume point: last applied event / bookmark / list */
    char list_rv[K8S_RV_MAX]; /* version of the last complete list */
    bool loaded;              /* persisted resume point read */
    pthread_t thread;
    bool running;
    /* request budget, informer thread only */
    int64_t start_tat;                        /* token bucket: theoretical arrival time */
    int64_t relist_at[WATCH_MAX_RELISTS_CAP]; /* starts of unscheduled relists (ring) */
    int relist_n;                             /* entries used in relist_at */
    struct log_limit log;                     /* storms of repeated lines */
};

/* The watcher: its informers and the shared stop flag, stats and wake-up. */
struct watch_k8s {
    struct watch_k8s_options opt;
    char *api_url, *token_file, *ca_file, *ns, *job_selector;
    struct store *writer;
    pthread_mutex_t *writer_lock;
    char cluster[STORE_CLUSTER_MAX]; /* the rows' cluster (opt.cluster) */
    struct informer inf[WATCH_MAX_RESOURCES];
    int n_inf;
    pthread_mutex_t mu; /* stop flag, stats, cond */
    pthread_cond_t cond;
    bool stop;
    bool started;
    struct watch_k8s_stats stats;
    unsigned rand_state;
};

/* Adds n to w->stats.field under w->mu. */
#define STAT_ADD(w, field, n)                                                                      \
    do {                                                                                           \
        pthread_mutex_lock(&(w)->mu);                                                              \
        (w)->stats.field += (n);                                                                   \
        pthread_mutex_unlock(&(w)->mu);                                                            \
    } while (0)

/* --- watch_k8s.c --- */

/* Takes the writer lock and points the writer at this watcher's cluster. */
void watch_k8s_lock_writer(struct watch_k8s *w);
/* The stop flag (under w->mu). */
bool watch_k8s_stopping(struct watch_k8s *w);
/* Waits ms or until stopped; false when stopped. */
bool watch_k8s_wait_ms(struct watch_k8s *w, long ms);
/* The next backoff after cur: backoff_initial_ms, then doubling, capped at backoff_max_ms. */
long watch_k8s_next_backoff(struct watch_k8s *w, long cur);
/* Waits b ms with a jitter of +-b/4; false when stopped. */
bool watch_k8s_backoff_wait(struct watch_k8s *w, long b);
/* When a change was seen: the answer's Date, else the wall clock. */
int64_t watch_k8s_seen_time(int64_t date);
/* When a watch event arriving now happened: the stream's Date plus the time the
 * stream has been open since (a watch lives for minutes; its Date is when it
 * began), else the wall clock. */
int64_t watch_k8s_event_time(const struct http_response *r);
/* Copies a resourceVersion into a K8S_RV_MAX buffer (truncating). */
void watch_k8s_copy_rv(char *dst, const char *src);
/* The object is worth storing: a relevant Event, a pod of a Job (of a selected
 * Job when a Job selector is set), anything else. */
bool watch_k8s_wanted(struct informer *in, const struct k8s_object *o);

/* --- watch_k8s_list.c --- */

/* The Bearer token for the next request (kube_token_get). */
enum err watch_k8s_request_token(struct informer *in, const char **tok);
/* The list (watch false; cont: the continue token or NULL) or watch URL of the
 * informer's resource into u. */
enum err watch_k8s_build_url(struct informer *in, struct buf *u, bool watch, const char *cont);
/* A complete list of the resource, one transaction per page; after the last page
 * the objects it did not hold are marked vanished; advances the resume point. */
enum err watch_k8s_informer_list(struct informer *in);

/* --- watch_k8s_stream.c --- */

/* The informer's thread: list, then watch from the resume point, relisting on
 * 410 and at each resync, within the request budget, until stopped. */
void *watch_k8s_informer_main(void *arg);

#endif
