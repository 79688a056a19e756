/* fleet — the clusters of a service started with --cluster NAME=TARGET
 * (docs/fleet.md): one Kubernetes watcher and one DigitalOcean poller per
 * cluster, every one writing through the single writer under its cluster's
 * name.
 *
 * A cluster whose kubeconfig context cannot be resolved, whose DigitalOcean
 * cluster id is not known, or whose watcher/poller cannot start is recorded in
 * app->clusters (why, per cluster) and skipped: it never stops the others. A
 * cluster that goes down later shows in its own poll runs. The DigitalOcean
 * token is the account's: its request budget (POLL_DO_RATE_PER_MINUTE / _HOUR)
 * is divided equally among the pollers, and only the first poller reads the
 * account's billing.
 *
 * Thread rule: fleet_start and fleet_free on the main thread, before the server
 * starts and after it stopped. */
#ifndef SPOTLEDGER_FLEET_H
#define SPOTLEDGER_FLEET_H

#include <pthread.h>

#include "base/err.h"

struct app;
struct config;
struct store;
struct fleet;

struct fleet_deps {
    const struct config *cfg;
    const char *(*getenv_fn)(const char *name); /* getenv in production */
    struct store *writer;                       /* app->writer */
    pthread_mutex_t *writer_lock;
    const char *do_token; /* the account's token; NULL: no DigitalOcean pollers */
};

/* Sets up and starts every cluster of d->cfg->clusters, filling app->clusters,
 * app->n_clusters and the budget fields, and registers one waker for all the
 * pollers. ERR_OK even when some (or every) cluster could not start: each says
 * why in app->clusters. ERR_NOMEM only. */
enum err fleet_start(const struct fleet_deps *d, struct app *app, struct fleet **out);
/* Stops and joins every watcher and poller, releases the connections. NULL is
 * a no-op. */
void fleet_free(struct fleet *f);

struct watch_k8s_options;
struct kube_conn;
/* The watcher's options from the flags and a resolved connection, for the
 * cluster named (NULL: the default). Everything is borrowed: it must outlive
 * watch_k8s_new, which copies what it keeps. */
void fleet_watch_options(struct watch_k8s_options *o, const struct config *cfg,
                         const struct kube_conn *conn, const char *cluster);

#endif
