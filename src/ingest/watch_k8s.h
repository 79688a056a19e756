/* watch_k8s — the Kubernetes informers: Jobs, Pods of Jobs, Nodes, Events and
 * policy/v1 PodDisruptionBudgets (for the advisor's pdb-blocks-drain rule), listed
 * and watched in the style of client-go, written through the single writer.
 *
 * Per resource (one thread each once started):
 *   1. LIST in pages (limit/continue; a 410 on a continue token restarts the list),
 *      each page applied in one BEGIN IMMEDIATE transaction under the writer lock;
 *      after the last page, objects of that kind the store knows but the list no
 *      longer shows get the list's Date as deletion time ("diff against the
 *      cache"); a poll_runs row (source 'k8s') records the list.
 *   2. WATCH with allowWatchBookmarks from the last resourceVersion seen: each
 *      event is applied in its own transaction together with the new resume point
 *      (watch_state), so an event is either stored and passed, or replayed.
 *      Bookmarks only move the resume point. A dropped stream resumes from the last
 *      version; a 410 (HTTP status or ERROR event) falls back to the last list's
 *      version, else relists; other errors back off exponentially (with jitter).
 *   3. Every resync_seconds the resource is relisted (periodic resync); the watch's
 *      own resume point is kept so deletions in between are still replayed.
 * On start the resume point persisted by an earlier run is kept across the first
 * list, so a restarted watcher replays what happened while it was down (if the API
 * server still has it) and loses nothing the cluster still shows.
 *
 * Times: object timestamps; a DELETED object's deletionTimestamp, else the Date of
 * the watch response. Stopping: the stop flag is checked between lines, requests
 * and backoff waits; an idle stream ends within watch_timeout_seconds.
 *
 * Thread rule: new/sync_once/start/stop/free from one controlling thread; stats
 * from any thread. */
#ifndef SPOTLEDGER_WATCH_K8S_H
#define SPOTLEDGER_WATCH_K8S_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct store;
struct kube_conn;

struct watch_k8s_options {
    const char *api_url;    /* "https://host:port" (copied) */
    const char *token_file; /* NULL/"": no Authorization (copied) */
    const char *ca_file;    /* NULL/"": system CAs (copied) */
    /* NULL, or the resolved connection for a static token, an exec plugin, a
     * client certificate and --kube-insecure (borrowed: must outlive the watcher) */
    const struct kube_conn *conn;
    const char *ns;           /* NULL/"": all namespaces (copied) */
    const char *job_selector; /* label selector for Jobs, NULL: all (copied) */
    /* fleet name of the cluster (store_set_cluster), NULL: the default; copied,
     * at most STORE_CLUSTER_MAX - 1 bytes (ERR_INVAL otherwise) */
    const char *cluster;
    bool events_v1;            /* events.k8s.io/v1 instead of core/v1 Events */
    int resync_seconds;        /* periodic relist; default 60 */
    int watch_timeout_seconds; /* server-side timeoutSeconds; default min(resync, 300) */
    long idle_timeout_ms;      /* a stream silent this long is dropped; default 2 x timeout */
    int page_limit;            /* default 500 */
    long backoff_initial_ms;   /* default 500 */
    long backoff_max_ms;       /* default 30000 */
    long request_timeout_ms;   /* LIST total timeout; default 30000 */
    size_t max_response;       /* LIST page cap; default 64 MiB */
    size_t max_line;           /* watch line cap; default 8 MiB */
    /* request budget per resource (README "Limits"); 0 = the default */
    long healthy_watch_ms;   /* a watch this long resets the backoff; min(10 s, timeout/2) */
    long start_gap_ms;       /* watch starts: one per gap...; clamp(timeout/4, 250, 5000) */
    int start_burst;         /* ...after this many at once; default 6 */
    int max_relists_per_min; /* unscheduled relists (410, failed list); 3, 60/resync if more */
};

struct watch_k8s_stats {
    uint64_t lists;   /* complete lists */
    uint64_t pages;   /* list pages applied */
    uint64_t watches; /* watch requests */
    uint64_t events;  /* ADDED/MODIFIED/DELETED applied */
    uint64_t bookmarks;
    uint64_t gone;         /* 410s (list continue, watch status or ERROR event) */
    uint64_t errors;       /* failed requests or transactions (then backoff) */
    uint64_t bad_lines;    /* unparsable watch lines, skipped */
    uint64_t skipped;      /* objects not stored (irrelevant events, pods of unselected jobs) */
    uint64_t vanished;     /* objects marked deleted by a relist */
    uint64_t auth_retries; /* 401/403 answered by re-reading the token */
};

struct watch_k8s;

/* Creates the informers (no thread, no request yet). writer/lock are borrowed and
 * must outlive the watcher. ERR_INVAL (no api_url), ERR_NOMEM. */
enum err watch_k8s_new(const struct watch_k8s_options *opt, struct store *writer,
                       pthread_mutex_t *writer_lock, struct watch_k8s **out);
/* Stops (if started) and frees. NULL is a no-op. */
void watch_k8s_free(struct watch_k8s *w);

/* Lists every resource once, on the calling thread (tests, --once). Returns the
 * first error (every resource is still attempted). Not while started. */
enum err watch_k8s_sync_once(struct watch_k8s *w);

/* One thread per resource. ERR_BUSY if already started, ERR_NOMEM. */
enum err watch_k8s_start(struct watch_k8s *w);
/* Asks the threads to stop and joins them. Safe when not started. */
void watch_k8s_stop(struct watch_k8s *w);

void watch_k8s_stats(struct watch_k8s *w, struct watch_k8s_stats *out);

#endif
