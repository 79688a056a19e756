/* poll_do_internal — the DigitalOcean poller's state and the pieces its files
 * share (poll_do.h is the contract for callers; this header is internal to
 * src/ingest/poll_do*.c): the lifecycle, node pools and scheduling (poll_do.c),
 * the paged fetching and run errors (poll_do_fetch.c), billing (poll_do_billing.c).
 * Thread rule: the poller's own thread, except what poll_do.h says; the store
 * is written under p->lock. */
#ifndef SPOTLEDGER_POLL_DO_INTERNAL_H
#define SPOTLEDGER_POLL_DO_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "ingest/poll_do.h"
#include "source/do_api.h"
#include "source/http_client.h"
#include "store/store.h"

#define SCOPE_K8S "kubernetes:read"
#define SCOPE_SIZES "sizes:read"
#define SCOPE_BILLING "billing:read"
#define MAX_WARNED 32

struct poll_do {
    struct poll_do_options opt;
    char *api_url, *token, *cluster_id;
    char **spot_pools;
    struct config_pair *spot_labels;
    struct http_client *http;
    struct store *db;
    pthread_mutex_t *lock;
    char cluster[STORE_CLUSTER_MAX]; /* the rows' cluster (opt.cluster) */
    bool pools_dead; /* the last pools poll got nothing at all (cluster, pools, sizes) */
    /* user hooks (tests), wrapped by ours */
    void (*user_sleep)(void *ctx, long ms);
    int64_t (*user_now)(void *ctx);
    bool (*user_cancelled)(void *ctx);
    void *user_ctx;
    /* stop signalling */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool wake; /* poll_do_wake: poll everything now */
    bool stop;
    bool started;
    pthread_t thread;
    /* schedule state (poller thread only) */
    int64_t sizes_due_ms;
    int64_t cluster_due_ms;
    bool sizes_fetched;
    char account_urn[128]; /* "do:team:<uuid>" from GET /v2/account (poll_do_insights.c) */
    char *warned[MAX_WARNED];
    int nwarned;
};

/* Run-level error text: the first problem, plus a count of the others. */
struct run_err {
    char text[STORE_ERROR_MAX];
    int n;
    enum err first;
};

/* Generic page accumulation: each page's struct is appended to a vector. */
struct pages {
    const char *endpoint; /* for logs */
    int kind;             /* which parser */
    void *v;              /* array of page structs */
    size_t n, cap, elem;
    size_t skipped;
    char why[DO_API_WHY_MAX];
};

enum { K_SIZES, K_POOLS, K_INVOICES, K_ITEMS, K_HISTORY };

/* Takes the writer lock and points the writer at this poller's cluster. */
void poll_do_lock_writer(struct poll_do *p);

/* --- poll_do_fetch.c --- */

/* Records a problem of the run: the first one's text and error, then a count. */
void poll_do_run_fail(struct run_err *r, enum err e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Logs a slug without a known price once per poller lifetime. */
void poll_do_warn_once(struct poll_do *p, const char *what);
/* "spot" or "on-demand" for the pool by the configured rules (basis: why). */
const char *poll_do_capacity_of(const struct poll_do *p, const struct do_pool *pool,
                                const char **basis);
/* Frees the parsed pages. */
void poll_do_pages_release(struct pages *pg);
/* GETs path and every next page, parsing each with parser kind into pg (elem:
 * the page struct's size); *date: the first answer's Date. On failure pg is
 * released-safe and the problem is in r. */
enum err poll_do_fetch_pages(struct poll_do *p, const char *path, const char *scope, int kind,
                             size_t elem, struct pages *pg, int64_t *date, struct run_err *r);
/* GETs one document into resp (a problem goes to r; scope names a 403's missing scope). */
enum err poll_do_fetch_one(struct poll_do *p, const char *path, const char *scope,
                           struct http_response *resp, struct run_err *r);
/* Wall-clock seconds. */
int64_t poll_do_wall_now(void);
/* Records a run that could not be written (its own transaction). */
void poll_do_record_failed_run(struct poll_do *p, const char *source, int64_t started,
                               int64_t source_time, const char *error, int64_t requests);

/* --- poll_do_billing.c --- */

/* One billing run: invoices (the preview's items always, a final invoice's
 * once), billing history and balance, written in one transaction. */
enum err poll_do_billing(struct poll_do *p);

/* Billing insights (poll_do_insights.c): GET /v2/account for the team URN, then
 * every page of /v2/billing/{urn}/insights/{first of the month}/{today} (the account
 * response's Date), written with
 * a poll run of source 'do_insights' in its own transaction. It never fails the billing
 * poll: a token that may not read them (403, logged by the http client naming the
 * scope) leaves that run's error in GET /api/v1/status and the reconciliation
 * without insights. Not called when the billing poll got nothing at all (API down,
 * no billing:read): the billing run's error is recorded as the insights run's. */
void poll_do_insights(struct poll_do *p);

#endif
