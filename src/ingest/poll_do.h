/* poll_do — the DigitalOcean poller: node pools every poll interval, billing
 * every billing interval, sizes (prices) every sizes interval or when a pool's
 * size has no known price.
 *
 * One poll = fetch everything first (paged, through its own http_client), then
 * write the batch in ONE BEGIN IMMEDIATE transaction under the writer lock, with a
 * poll_runs row (source 'do' for pools/sizes, 'do_billing' for billing). Nothing
 * is deleted: a pool or node missing from a complete, well-formed node-pool
 * listing gets its deletion time = that response's Date; a spot pool that
 * vanished becomes a reclaim. A failed or malformed node-pool listing writes no
 * pool or node (so it can never fake a deletion) and marks the run 'error'; a
 * failed billing endpoint is skipped (its earlier rows stay) and named in the
 * run's error. Each problem is logged once, with the endpoint.
 *
 * Capacity type of a pool (first match): its id given with --spot-pool (basis
 * 'flag'), a size slug ending in "-spot" ('slug'), a pool label equal to one of
 * the spot labels ('label'; defaults doks.digitalocean.com/capacity-type=spot and
 * gpu-pool-type=spot when none are configured); else on-demand ('default').
 * Node price = the size's latest recorded price at the node's first sighting
 * (kept afterwards: spot prices lock at creation).
 *
 * The token is copied, used only as curl's bearer, zeroed on free; it is never
 * logged nor stored.
 *
 * Thread rule: poll_do_once/poll_do_run on one thread at a time (the poller
 * thread, or a test); poll_do_stop from any thread. */
#ifndef SPOTLEDGER_POLL_DO_H
#define SPOTLEDGER_POLL_DO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/settings.h"
#include "base/err.h"
#include "source/http_client.h"
#include "store/store.h"

#define POLL_DO_RATE_PER_MINUTE 250
#define POLL_DO_RATE_PER_HOUR 5000

struct poll_do_options {
    const char *api_url;    /* "https://api.digitalocean.com" (no trailing slash needed) */
    const char *token;      /* copied */
    const char *cluster_id; /* copied */
    /* fleet name of the cluster (store_set_cluster), NULL: the default; copied,
     * at most STORE_CLUSTER_MAX - 1 bytes (ERR_INVAL otherwise) */
    const char *cluster;
    /* true: billing (invoices, history, balance, insights) is the account's and
     * another poller of the same token reads it; this one polls its pools only */
    bool no_billing;
    char *const *spot_pools;
    int n_spot_pools;
    const struct config_pair *spot_labels; /* none: the two defaults */
    int n_spot_labels;
    int poll_interval;    /* seconds; default 60 */
    int billing_interval; /* seconds; default 3600 */
    int sizes_interval;   /* seconds; default 900 */
    int max_pages;        /* per listing; default 100 */
    /* Passed to the client (timeouts, cap, hooks, transport seam). rate_per_* of 0
     * become DigitalOcean's 250/min and 5000/h; a negative value disables. The
     * hooks' ctx is sleep_ctx; the poller adds its own stop flag to `cancelled`. */
    struct http_client_options http;
};

struct poll_do;

enum poll_do_what {
    POLL_DO_POOLS = 1 << 0,   /* cluster (when due) + node pools; sizes when due */
    POLL_DO_BILLING = 1 << 1, /* invoices (+ items), billing history, balance */
    POLL_DO_SIZES = 1 << 2,   /* force /v2/sizes now */
};

/* writer and lock are borrowed (app->writer, app->writer_lock) and must outlive
 * the poller. ERR_INVAL without api_url/token/cluster_id; ERR_NOMEM. */
enum err poll_do_new(const struct poll_do_options *opt, struct store *writer,
                     pthread_mutex_t *writer_lock, struct poll_do **out);
/* Stops (if running) and frees. NULL is a no-op. */
void poll_do_free(struct poll_do *p);

/* One poll now, on the calling thread. ERR_OK when every requested part
 * succeeded; otherwise the first error (the run is recorded as 'error' with the
 * reason, and whatever succeeded is written). */
enum err poll_do_once(struct poll_do *p, enum poll_do_what what);

/* The scheduling loop: polls when due, sleeps (via the hooks) in between, until
 * poll_do_stop or the `cancelled` hook. Returns the number of polls done. */
int poll_do_run(struct poll_do *p);

/* Starts poll_do_run on its own thread. */
enum err poll_do_start(struct poll_do *p);
/* Asks the loop to stop, wakes it, joins the thread (if started). Idempotent. */
void poll_do_stop(struct poll_do *p);
/* "Poll now": the running poller polls pools and billing at once (any thread;
 * ctx is the struct poll_do, so it can be an app waker). */
void poll_do_wake(void *ctx);

/* Requests sent so far (all endpoints). */
uint64_t poll_do_requests(const struct poll_do *p);

#endif
