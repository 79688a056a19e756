/* app — the service-wide state every route may read.
 *
 * Built in main() before the server starts; fields are read-only afterwards
 * except where a field says otherwise (atomics or its own lock).
 * Thread rule: any thread may read. */
#ifndef SPOTLEDGER_APP_H
#define SPOTLEDGER_APP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "query/metrics_cache.h"
#include "model/settings.h"
#include "query/respcache.h"

struct config;
struct store;

#define APP_MAX_CLUSTERS 32
#define APP_MAX_WAKERS 4

/* What the service set up for one cluster of the fleet (docs/fleet.md), for
 * /api/v1/status and /metrics: filled before the server starts, read-only
 * afterwards (what happens later is in the poll runs of the cluster). */
struct app_cluster {
    char name[64];          /* fleet name ("default": the single-cluster flags) */
    char target[320];       /* --cluster TARGET as given; "" for the single cluster */
    char do_cluster_id[40]; /* DigitalOcean cluster id polled, "" none */
    bool k8s_enabled;       /* its watcher runs */
    bool do_enabled;        /* its DigitalOcean poller runs */
    char k8s_error[320];    /* why there is no watcher ("" = none needed or running) */
    char do_error[320];     /* why there is no poller */
};

struct app {
    const struct config *cfg;
    struct calc_settings calc; /* filled from cfg by app_use_config */
    char *api_token;           /* read token; NULL = reads are open (loopback only) */
    char *admin_token;         /* admin token; NULL = admin routes refused */
    bool do_enabled;           /* a DigitalOcean poller is running */
    bool k8s_enabled;          /* a Kubernetes watcher is running */
    /* the clusters (one, "default", without --cluster) and how the DigitalOcean
     * token's request budget is shared among their pollers */
    struct app_cluster clusters[APP_MAX_CLUSTERS];
    int n_clusters;
    int do_pollers;         /* pollers sharing the token */
    int do_rate_per_minute; /* each poller's share */
    int do_rate_per_hour;
    int64_t started_at;
    /* The single write connection (README: one writer). Pollers and the
     * exporter hold writer_lock for the whole of each transaction. */
    struct store *writer;
    pthread_mutex_t writer_lock;

    /* Poller wake-ups and shutdown (app_wait / app_wake / app_stop). */
    pthread_mutex_t wake_lock;
    pthread_cond_t wake_cond;
    uint64_t wake_gen; /* bumped by app_wake */
    bool stopping;     /* set once by app_stop */
    /* Called by app_wake: pollers with their own sleep (set up before threads). */
    void (*wakers[APP_MAX_WAKERS])(void *ctx);
    void *waker_ctx[APP_MAX_WAKERS];
    int n_wakers;
    struct metrics_cache metrics; /* closed weeks' counters for /metrics */
    struct respcache responses;   /* closed windows' API bodies (respcache.h) */
};

/* Sets app->cfg and fills the settings the lower layers take from it (calc).
 * Main thread, before any other thread starts; cfg must outlive app. */
void app_use_config(struct app *app, const struct config *cfg);

/* Registers fn(ctx) to be called by app_wake. Main thread, before the server. */
void app_add_waker(struct app *app, void (*fn)(void *ctx), void *ctx);

/* Initializes the locks and condition of a zeroed app. */
void app_init(struct app *app);
void app_release(struct app *app);
/* Sleeps up to `ms` milliseconds, or until app_wake (returns true) or app_stop
 * (returns true; check app_stopping). `seen_gen` is the caller's last seen wake
 * generation, updated. Any thread. */
bool app_wait(struct app *app, long ms, uint64_t *seen_gen);
/* Wakes every waiting poller now ("poll now"). */
void app_wake(struct app *app);
/* Asks every poller to stop and wakes them. */
void app_stop(struct app *app);
bool app_stopping(struct app *app);

#endif
