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

struct config;
struct store;

struct app {
    const struct config *cfg;
    char *api_token;   /* read token; NULL = reads are open (loopback only) */
    char *admin_token; /* admin token; NULL = admin routes refused */
    bool do_enabled;   /* a DigitalOcean poller is running */
    bool k8s_enabled;  /* a Kubernetes watcher is running */
    int64_t started_at;
    /* The single write connection (DESIGN.md "One writer"). Pollers and the
     * exporter hold writer_lock for the whole of each transaction. */
    struct store *writer;
    pthread_mutex_t writer_lock;
};

#endif
