/* poll_do — fetch, then write one transaction; see poll_do.h.
 * Invariant: pools/nodes are written only from a complete listing (every page
 * parsed), so a missing pool always means "gone", never "unreadable". */
#include "ingest/poll_do.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "source/do_api.h"
#include "source/pool_capacity.h"
#include "base/log.h"
#include "store/store_do.h"
#include "base/xalloc.h"

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
    char *warned[MAX_WARNED];
    int nwarned;
};

/* --- hooks ----------------------------------------------------------------------------- */

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t pd_now(void *ctx) {
    struct poll_do *p = ctx;
    return p->user_now ? p->user_now(p->user_ctx) : mono_ms();
}

static bool stopping(struct poll_do *p) {
    pthread_mutex_lock(&p->mu);
    bool s = p->stop;
    pthread_mutex_unlock(&p->mu);
    return s;
}

static bool pd_cancelled(void *ctx) {
    struct poll_do *p = ctx;
    return stopping(p) || (p->user_cancelled && p->user_cancelled(p->user_ctx));
}

/* Interruptible sleep: wakes early on poll_do_stop. */
static void pd_sleep(void *ctx, long ms) {
    struct poll_do *p = ctx;
    if (p->user_sleep) {
        p->user_sleep(p->user_ctx, ms);
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&p->mu);
    while (!p->stop && !p->wake && pthread_cond_timedwait(&p->cv, &p->mu, &ts) == 0)
        ;
    pthread_mutex_unlock(&p->mu);
}

/* --- lifecycle ----------------------------------------------------------------------- */

enum err poll_do_new(const struct poll_do_options *opt, struct store *writer,
                     pthread_mutex_t *writer_lock, struct poll_do **out) {
    if (!opt || !opt->api_url || !opt->token || !*opt->token || !opt->cluster_id || !writer ||
        !writer_lock)
        return ERR_INVAL;
    struct poll_do *p = xcalloc(1, sizeof *p);
    p->opt = *opt;
    p->api_url = xstrdup(opt->api_url);
    size_t ul = strlen(p->api_url);
    while (ul && p->api_url[ul - 1] == '/')
        p->api_url[--ul] = '\0';
    p->token = xstrdup(opt->token);
    p->cluster_id = xstrdup(opt->cluster_id);
    p->opt.api_url = p->api_url;
    p->opt.token = NULL; /* only p->token holds it */
    p->opt.cluster_id = p->cluster_id;
    if (opt->n_spot_pools > 0) {
        p->spot_pools = xcalloc((size_t)opt->n_spot_pools, sizeof *p->spot_pools);
        for (int i = 0; i < opt->n_spot_pools; i++)
            p->spot_pools[i] = xstrdup(opt->spot_pools[i]);
    }
    p->opt.spot_pools = p->spot_pools;
    if (opt->n_spot_labels > 0) {
        p->spot_labels = xcalloc((size_t)opt->n_spot_labels, sizeof *p->spot_labels);
        for (int i = 0; i < opt->n_spot_labels; i++) {
            p->spot_labels[i].key = xstrdup(opt->spot_labels[i].key);
            p->spot_labels[i].value = xstrdup(opt->spot_labels[i].value);
        }
    } else {
        p->spot_labels = xcalloc(2, sizeof *p->spot_labels);
        p->spot_labels[0].key = xstrdup("doks.digitalocean.com/capacity-type");
        p->spot_labels[0].value = xstrdup("spot");
        p->spot_labels[1].key = xstrdup("gpu-pool-type");
        p->spot_labels[1].value = xstrdup("spot");
        p->opt.n_spot_labels = 2;
    }
    p->opt.spot_labels = p->spot_labels;
    if (p->opt.poll_interval <= 0)
        p->opt.poll_interval = 60;
    if (p->opt.billing_interval <= 0)
        p->opt.billing_interval = 3600;
    if (p->opt.sizes_interval <= 0)
        p->opt.sizes_interval = 900;
    if (p->opt.max_pages <= 0)
        p->opt.max_pages = 100;
    p->db = writer;
    p->lock = writer_lock;
    pthread_mutex_init(&p->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);

    struct http_client_options ho = opt->http;
    p->user_sleep = ho.sleep_ms;
    p->user_now = ho.now_ms;
    p->user_cancelled = ho.cancelled;
    p->user_ctx = ho.sleep_ctx;
    ho.sleep_ms = pd_sleep;
    ho.now_ms = pd_now;
    ho.cancelled = pd_cancelled;
    ho.sleep_ctx = p;
    if (ho.rate_per_minute == 0)
        ho.rate_per_minute = POLL_DO_RATE_PER_MINUTE;
    if (ho.rate_per_hour == 0)
        ho.rate_per_hour = POLL_DO_RATE_PER_HOUR;
    if (ho.rate_per_minute < 0)
        ho.rate_per_minute = 0;
    if (ho.rate_per_hour < 0)
        ho.rate_per_hour = 0;
    if (ho.max_retries == 0)
        ho.max_retries = 3;
    enum err rc = http_client_new(&ho, &p->http);
    if (rc != ERR_OK) {
        poll_do_free(p);
        return rc;
    }
    *out = p;
    return ERR_OK;
}

void poll_do_free(struct poll_do *p) {
    if (!p)
        return;
    poll_do_stop(p);
    http_client_free(p->http);
    if (p->token) {
        memset(p->token, 0, strlen(p->token));
        free(p->token);
    }
    free(p->api_url);
    free(p->cluster_id);
    for (int i = 0; i < p->opt.n_spot_pools; i++)
        free(p->spot_pools[i]);
    free(p->spot_pools);
    for (int i = 0; i < p->opt.n_spot_labels; i++) {
        free(p->spot_labels[i].key);
        free(p->spot_labels[i].value);
    }
    free(p->spot_labels);
    for (int i = 0; i < p->nwarned; i++)
        free(p->warned[i]);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

uint64_t poll_do_requests(const struct poll_do *p) {
    return http_client_requests(p->http);
}

/* --- helpers ----------------------------------------------------------------------------- */

/* Run-level error text: the first problem, plus a count of the others. */
struct run_err {
    char text[STORE_ERROR_MAX];
    int n;
    enum err first;
};

__attribute__((format(printf, 3, 4))) static void run_fail(struct run_err *r, enum err e,
                                                           const char *fmt, ...) {
    if (r->n++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->text, sizeof r->text, fmt, ap);
        va_end(ap);
        r->first = e;
    }
}

static char *endpoint_url(struct poll_do *p, const char *path) {
    struct buf b;
    buf_init(&b, 0);
    buf_printf(&b, "%s%s", p->api_url, path);
    return buf_detach(&b, NULL);
}

/* Logs a slug without a known price once per poller lifetime. */
static void warn_once(struct poll_do *p, const char *what) {
    for (int i = 0; i < p->nwarned; i++)
        if (strcmp(p->warned[i], what) == 0)
            return;
    if (p->nwarned < MAX_WARNED)
        p->warned[p->nwarned++] = xstrdup(what);
    log_msg(LOG_WARN, "do: no price known for size '%s' yet; its nodes are priced when it is",
            what);
}

static const char *capacity_of(const struct poll_do *p, const struct do_pool *pool,
                               const char **basis) {
    return pool_capacity(pool, p->spot_pools, p->opt.n_spot_pools, p->spot_labels,
                         p->opt.n_spot_labels, basis);
}

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

static enum err on_page(void *ctx, const struct http_response *resp, char **next) {
    struct pages *pg = ctx;
    if (pg->n == pg->cap) {
        pg->cap = pg->cap ? pg->cap * 2 : 4;
        pg->v = xrealloc(pg->v, pg->cap * pg->elem);
    }
    void *slot = (char *)pg->v + pg->n * pg->elem;
    memset(slot, 0, pg->elem);
    const char *b = resp->body.data ? resp->body.data : "";
    size_t len = resp->body.len;
    char why[DO_API_WHY_MAX] = "";
    enum err e = ERR_PARSE;
    char **pnext = NULL;
    size_t skipped = 0;
    switch (pg->kind) {
    case K_SIZES: {
        struct do_sizes *l = slot;
        e = do_api_parse_sizes(b, len, l, why, sizeof why);
        pnext = &l->next;
        skipped = l->skipped;
        break;
    }
    case K_POOLS: {
        struct do_pools *l = slot;
        e = do_api_parse_pools(b, len, l, why, sizeof why);
        pnext = &l->next;
        break;
    }
    case K_INVOICES: {
        struct do_invoices *l = slot;
        e = do_api_parse_invoices(b, len, l, why, sizeof why);
        pnext = &l->next;
        skipped = l->skipped;
        break;
    }
    case K_ITEMS: {
        struct do_invoice_items *l = slot;
        e = do_api_parse_invoice_items(b, len, l, why, sizeof why);
        pnext = &l->next;
        break;
    }
    case K_HISTORY: {
        struct do_billing_history *l = slot;
        e = do_api_parse_billing_history(b, len, l, why, sizeof why);
        pnext = &l->next;
        skipped = l->skipped;
        break;
    }
    }
    if (e != ERR_OK) {
        snprintf(pg->why, sizeof pg->why, "page %zu: %.180s", pg->n + 1, why);
        return e;
    }
    pg->n++;
    if (skipped) {
        pg->skipped += skipped;
        if (!pg->why[0])
            snprintf(pg->why, sizeof pg->why, "%s", why);
    }
    if (*pnext) {
        *next = *pnext;
        *pnext = NULL;
    }
    return ERR_OK;
}

static void pages_release(struct pages *pg) {
    for (size_t i = 0; i < pg->n; i++) {
        void *slot = (char *)pg->v + i * pg->elem;
        switch (pg->kind) {
        case K_SIZES:
            do_sizes_release(slot);
            break;
        case K_POOLS:
            do_pools_release(slot);
            break;
        case K_INVOICES:
            do_invoices_release(slot);
            break;
        case K_ITEMS:
            do_invoice_items_release(slot);
            break;
        case K_HISTORY:
            do_billing_history_release(slot);
            break;
        }
    }
    free(pg->v);
    memset(pg, 0, sizeof *pg);
}

/* Fetches every page of path. On failure logs once (parse problems; HTTP
 * failures were logged by http_client) and records it in r. */
static enum err fetch_pages(struct poll_do *p, const char *path, const char *scope, int kind,
                            size_t elem, struct pages *pg, int64_t *date, struct run_err *r) {
    memset(pg, 0, sizeof *pg);
    pg->endpoint = path;
    pg->kind = kind;
    pg->elem = elem;
    char *url = endpoint_url(p, path);
    struct http_response resp;
    http_response_init(&resp);
    int64_t d0 = 0;
    enum err e = http_client_get_pages(p->http, url, p->token, scope, p->opt.max_pages, on_page, pg,
                                       &resp, &d0);
    if (e != ERR_OK) {
        if (pg->why[0] && resp.status >= 200 && resp.status < 300) {
            log_msg(LOG_WARN, "do: GET '%s': %s", path, pg->why);
            run_fail(r, e, "GET %s: %s", path, pg->why);
        } else {
            run_fail(r, e, "GET %s: %s", path, resp.error[0] ? resp.error : err_str(e));
        }
    } else {
        if (pg->skipped) {
            log_msg(LOG_WARN, "do: GET '%s': skipped %zu bad entr%s: %s", path, pg->skipped,
                    pg->skipped == 1 ? "y" : "ies", pg->why);
        }
        *date = d0;
    }
    http_response_release(&resp);
    free(url);
    return e;
}

/* Fetches one object. */
static enum err fetch_one(struct poll_do *p, const char *path, const char *scope,
                          struct http_response *resp, struct run_err *r) {
    char *url = endpoint_url(p, path);
    enum err e = http_client_get(p->http, url, p->token, scope, resp);
    if (e != ERR_OK)
        run_fail(r, e, "GET %s: %s", path, resp->error[0] ? resp->error : err_str(e));
    free(url);
    return e;
}

static int64_t wall_now(void) {
    return (int64_t)time(NULL);
}

/* Records a run that wrote nothing else (its own transaction). */
static void record_failed_run(struct poll_do *p, const char *source, int64_t started,
                              int64_t source_time, const char *error, int64_t requests) {
    int64_t id;
    pthread_mutex_lock(p->lock);
    if (store_begin(p->db) == ERR_OK) {
        if (store_poll_begin(p->db, source, started, &id) == ERR_OK &&
            store_poll_end(p->db, id, wall_now(), source_time, error, requests, 0) == ERR_OK)
            store_commit(p->db);
        else
            store_rollback(p->db);
    }
    pthread_mutex_unlock(p->lock);
}

/* --- node pools ------------------------------------------------------------------------ */

static enum err write_pools(struct poll_do *p, const struct do_cluster *cluster,
                            int64_t cluster_date, struct pages *sizes, int64_t sizes_date,
                            struct pages *pools, int64_t date, int64_t *items) {
    enum err rc = ERR_OK;
    int64_t n = 0;
    if (cluster && (rc = store_do_upsert_cluster(p->db, cluster, cluster_date)) != ERR_OK)
        return rc;
    n += cluster != NULL;
    for (size_t i = 0; sizes && i < sizes->n; i++) {
        const struct do_sizes *l = (const struct do_sizes *)sizes->v + i;
        for (size_t j = 0; j < l->n; j++) {
            bool changed = false;
            if ((rc = store_do_upsert_size(p->db, &l->v[j], sizes_date, &changed)) != ERR_OK)
                return rc;
            if (changed)
                log_msg(LOG_INFO, "do: size '%s' price is now %lld micro-dollars/hour",
                        l->v[j].slug, (long long)l->v[j].price_hourly);
            n++;
        }
    }
    if (!pools) {
        *items = n;
        return ERR_OK;
    }
    /* all pages as one listing, for vanish detection */
    size_t total = 0;
    for (size_t i = 0; i < pools->n; i++)
        total += ((const struct do_pools *)pools->v)[i].n;
    struct do_pools all = {0};
    all.v = xcalloc(total ? total : 1, sizeof *all.v);
    for (size_t i = 0; i < pools->n; i++) {
        const struct do_pools *l = (const struct do_pools *)pools->v + i;
        memcpy(all.v + all.n, l->v, l->n * sizeof *l->v); /* shallow: borrowed */
        all.n += l->n;
    }
    for (size_t i = 0; i < all.n; i++) {
        const struct do_pool *pool = &all.v[i];
        const char *basis;
        const char *cap = capacity_of(p, pool, &basis);
        int64_t price = -1;
        enum err pe = store_do_size_price(p->db, pool->size, &price);
        if (pe == ERR_NOTFOUND) {
            price = -1;
            warn_once(p, pool->size);
        } else if (pe != ERR_OK) {
            rc = pe;
            goto out;
        }
        if ((rc = store_do_upsert_pool(p->db, p->cluster_id, pool, cap, basis, price, date)) !=
            ERR_OK)
            goto out;
        n++;
        for (size_t j = 0; j < pool->n_nodes; j++) {
            if ((rc = store_do_upsert_node(p->db, pool, &pool->nodes[j], cap, price, date)) !=
                ERR_OK)
                goto out;
            n++;
        }
    }
    int pg = 0, ng = 0;
    if ((rc = store_do_mark_vanished(p->db, p->cluster_id, &all, date, &pg, &ng)) != ERR_OK)
        goto out;
    if (pg || ng)
        log_msg(LOG_INFO, "do: %d pool%s and %d node%s no longer listed", pg, pg == 1 ? "" : "s",
                ng, ng == 1 ? "" : "s");
out:
    free(all.v);
    *items = n;
    return rc;
}

/* True when some pool's size has no recorded price (so sizes are fetched now). */
static bool pools_need_prices(struct poll_do *p, struct pages *pools) {
    bool need = false;
    pthread_mutex_lock(p->lock);
    for (size_t i = 0; i < pools->n && !need; i++) {
        const struct do_pools *l = (const struct do_pools *)pools->v + i;
        for (size_t j = 0; j < l->n && !need; j++) {
            int64_t h;
            if (store_do_size_price(p->db, l->v[j].size, &h) == ERR_NOTFOUND)
                need = true;
        }
    }
    pthread_mutex_unlock(p->lock);
    return need;
}

static enum err poll_pools(struct poll_do *p, bool force_sizes) {
    int64_t started = wall_now();
    uint64_t req0 = http_client_requests(p->http);
    struct run_err r = {0};
    struct pages sizes = {0}, pools = {0};
    struct do_cluster cluster = {0};
    bool have_cluster = false, have_sizes = false, have_pools = false;
    int64_t cluster_date = 0, sizes_date = 0, pools_date = 0;
    int64_t now = pd_now(p);

    if (!p->cluster_id[0]) /* never: checked at new */
        return ERR_INVAL;
    char path[512];
    if (now >= p->cluster_due_ms) {
        snprintf(path, sizeof path, "/v2/kubernetes/clusters/%s", p->cluster_id);
        struct http_response resp;
        http_response_init(&resp);
        if (fetch_one(p, path, SCOPE_K8S, &resp, &r) == ERR_OK) {
            char why[DO_API_WHY_MAX];
            if (do_api_parse_cluster(resp.body.data ? resp.body.data : "", resp.body.len, &cluster,
                                     why, sizeof why) == ERR_OK) {
                have_cluster = true;
                cluster_date = resp.date ? resp.date : wall_now();
                p->cluster_due_ms = now + (int64_t)p->opt.billing_interval * 1000;
            } else {
                log_msg(LOG_WARN, "do: GET '%s': %s", path, why);
                run_fail(&r, ERR_PARSE, "GET %s: %s", path, why);
            }
        }
        http_response_release(&resp);
    }
    snprintf(path, sizeof path, "/v2/kubernetes/clusters/%s/node_pools?per_page=200",
             p->cluster_id);
    have_pools = fetch_pages(p, path, SCOPE_K8S, K_POOLS, sizeof(struct do_pools), &pools,
                             &pools_date, &r) == ERR_OK;
    if (force_sizes || !p->sizes_fetched || now >= p->sizes_due_ms ||
        (have_pools && pools_need_prices(p, &pools))) {
        have_sizes = fetch_pages(p, "/v2/sizes?per_page=200", SCOPE_SIZES, K_SIZES,
                                 sizeof(struct do_sizes), &sizes, &sizes_date, &r) == ERR_OK;
        if (have_sizes) {
            p->sizes_fetched = true;
            p->sizes_due_ms = now + (int64_t)p->opt.sizes_interval * 1000;
        }
    }
    if (!sizes_date)
        sizes_date = pools_date ? pools_date : wall_now();
    if (!pools_date)
        pools_date = wall_now();
    int64_t source_time = have_pools ? pools_date : cluster_date;

    /* one transaction: the batch and its poll_runs row */
    int64_t items = 0, id = 0;
    enum err rc;
    pthread_mutex_lock(p->lock);
    if ((rc = store_begin(p->db)) == ERR_OK &&
        (rc = store_poll_begin(p->db, "do", started, &id)) == ERR_OK &&
        (rc = write_pools(p, have_cluster ? &cluster : NULL, cluster_date,
                          have_sizes ? &sizes : NULL, sizes_date, have_pools ? &pools : NULL,
                          pools_date, &items)) == ERR_OK &&
        (rc = store_poll_end(p->db, id, wall_now(), source_time, r.n ? r.text : NULL,
                             (int64_t)(http_client_requests(p->http) - req0), items)) == ERR_OK)
        rc = store_commit(p->db);
    if (rc != ERR_OK)
        store_rollback(p->db);
    pthread_mutex_unlock(p->lock);
    if (rc != ERR_OK) {
        run_fail(&r, rc, "store: %s", err_str(rc));
        record_failed_run(p, "do", started, source_time, r.text,
                          (int64_t)(http_client_requests(p->http) - req0));
    }
    pages_release(&sizes);
    pages_release(&pools);
    do_cluster_release(&cluster);
    p->pools_dead = !have_cluster && !have_pools && !have_sizes;
    if (r.n)
        log_msg(LOG_DEBUG, "do: poll done with %d problem%s", r.n, r.n == 1 ? "" : "s");
    return r.n ? r.first : ERR_OK;
}

/* --- billing ----------------------------------------------------------------------------- */

struct fetched_items {
    char *uuid;
    struct pages pages;
};

static enum err poll_billing(struct poll_do *p) {
    int64_t started = wall_now();
    uint64_t req0 = http_client_requests(p->http);
    struct run_err r = {0};
    struct pages inv = {0}, hist = {0};
    int64_t inv_date = 0, hist_date = 0;
    bool have_inv =
        fetch_pages(p, "/v2/customers/my/invoices?per_page=200", SCOPE_BILLING, K_INVOICES,
                    sizeof(struct do_invoices), &inv, &inv_date, &r) == ERR_OK;
    /* items: the preview always (it changes), final invoices once */
    size_t nfi = 0, capfi = 0;
    struct fetched_items *fi = NULL;
    for (size_t i = 0; have_inv && i < inv.n; i++) {
        const struct do_invoices *l = (const struct do_invoices *)inv.v + i;
        for (size_t j = 0; j < l->n; j++) {
            bool has = false;
            if (!l->v[j].preview) {
                pthread_mutex_lock(p->lock);
                enum err he = store_do_invoice_has_items(p->db, l->v[j].uuid, &has);
                pthread_mutex_unlock(p->lock);
                if (he != ERR_OK)
                    has = false;
            }
            if (has)
                continue;
            char *esc = http_client_escape(l->v[j].uuid);
            char path[512];
            snprintf(path, sizeof path, "/v2/customers/my/invoices/%s?per_page=200", esc);
            free(esc);
            struct pages pg;
            int64_t d;
            if (fetch_pages(p, path, SCOPE_BILLING, K_ITEMS, sizeof(struct do_invoice_items), &pg,
                            &d, &r) != ERR_OK) {
                pages_release(&pg);
                continue;
            }
            if (nfi == capfi) {
                capfi = capfi ? capfi * 2 : 4;
                fi = xrealloc(fi, capfi * sizeof *fi);
            }
            fi[nfi].uuid = xstrdup(l->v[j].uuid);
            fi[nfi].pages = pg;
            nfi++;
        }
    }
    bool have_hist =
        fetch_pages(p, "/v2/customers/my/billing_history?per_page=200", SCOPE_BILLING, K_HISTORY,
                    sizeof(struct do_billing_history), &hist, &hist_date, &r) == ERR_OK;
    struct do_balance bal;
    bool have_bal = false;
    int64_t bal_date = 0;
    {
        struct http_response resp;
        http_response_init(&resp);
        const char *path = "/v2/customers/my/balance";
        if (fetch_one(p, path, SCOPE_BILLING, &resp, &r) == ERR_OK) {
            char why[DO_API_WHY_MAX];
            if (do_api_parse_balance(resp.body.data ? resp.body.data : "", resp.body.len, &bal, why,
                                     sizeof why) == ERR_OK) {
                have_bal = true;
                bal_date = resp.date ? resp.date : wall_now();
            } else {
                log_msg(LOG_WARN, "do: GET '%s': %s", path, why);
                run_fail(&r, ERR_PARSE, "GET %s: %s", path, why);
            }
        }
        http_response_release(&resp);
    }
    int64_t source_time = inv_date ? inv_date : hist_date ? hist_date : bal_date;
    if (!inv_date)
        inv_date = source_time ? source_time : wall_now();

    int64_t items = 0, id = 0;
    enum err rc;
    pthread_mutex_lock(p->lock);
    if ((rc = store_begin(p->db)) == ERR_OK)
        rc = store_poll_begin(p->db, "do_billing", started, &id);
    for (size_t i = 0; rc == ERR_OK && have_inv && i < inv.n; i++) {
        const struct do_invoices *l = (const struct do_invoices *)inv.v + i;
        for (size_t j = 0; rc == ERR_OK && j < l->n; j++, items++)
            rc = store_do_upsert_invoice(p->db, &l->v[j], inv_date);
    }
    for (size_t i = 0; rc == ERR_OK && i < nfi; i++) {
        /* all pages of one invoice as one list, ordinals continuing across pages */
        size_t total = 0;
        for (size_t k = 0; k < fi[i].pages.n; k++)
            total += ((const struct do_invoice_items *)fi[i].pages.v)[k].n;
        struct do_invoice_item *all = xcalloc(total ? total : 1, sizeof *all);
        size_t m = 0;
        for (size_t k = 0; k < fi[i].pages.n; k++) {
            const struct do_invoice_items *l = (const struct do_invoice_items *)fi[i].pages.v + k;
            memcpy(all + m, l->v, l->n * sizeof *l->v);
            m += l->n;
        }
        rc = store_do_replace_invoice_items(p->db, fi[i].uuid, all, m);
        items += (int64_t)m;
        free(all);
    }
    for (size_t i = 0; rc == ERR_OK && have_hist && i < hist.n; i++) {
        const struct do_billing_history *l = (const struct do_billing_history *)hist.v + i;
        for (size_t j = 0; rc == ERR_OK && j < l->n; j++, items++)
            rc = store_do_add_billing_entry(p->db, &l->v[j]);
    }
    if (rc == ERR_OK && have_bal) {
        rc = store_do_add_balance(p->db, &bal, bal_date);
        items++;
    }
    if (rc == ERR_OK)
        rc = store_poll_end(p->db, id, wall_now(), source_time, r.n ? r.text : NULL,
                            (int64_t)(http_client_requests(p->http) - req0), items);
    if (rc == ERR_OK)
        rc = store_commit(p->db);
    if (rc != ERR_OK)
        store_rollback(p->db);
    pthread_mutex_unlock(p->lock);
    if (rc != ERR_OK) {
        run_fail(&r, rc, "store: %s", err_str(rc));
        record_failed_run(p, "do_billing", started, source_time, r.text,
                          (int64_t)(http_client_requests(p->http) - req0));
    }
    for (size_t i = 0; i < nfi; i++) {
        free(fi[i].uuid);
        pages_release(&fi[i].pages);
    }
    free(fi);
    pages_release(&inv);
    pages_release(&hist);
    return r.n ? r.first : ERR_OK;
}

/* --- scheduling ---------------------------------------------------------------------------- */

enum err poll_do_once(struct poll_do *p, enum poll_do_what what) {
    enum err first = ERR_OK, e;
    if (what & (POLL_DO_POOLS | POLL_DO_SIZES)) {
        e = poll_pools(p, (what & POLL_DO_SIZES) != 0);
        if (first == ERR_OK)
            first = e;
    }
    if (what & POLL_DO_BILLING) {
        e = poll_billing(p);
        if (first == ERR_OK)
            first = e;
    }
    return first;
}

/* The wait after a pools poll: the interval; after `fails` polls in a row that
 * got nothing at all (the API looks dead; a partial failure does not count),
 * doubled for each, up to 16 intervals or 10 minutes, whichever is less (never
 * less than the interval), so a dead API is asked less and less often and a
 * fast demo interval still recovers quickly (README "Limits"). */
#define POLL_DO_FAIL_WAIT_MAX_MS (600 * 1000LL)
static int64_t next_wait_ms(int interval_s, int fails) {
    int64_t d = (int64_t)interval_s * 1000;
    int64_t cap = 16 * d < POLL_DO_FAIL_WAIT_MAX_MS ? 16 * d : POLL_DO_FAIL_WAIT_MAX_MS;
    if (cap < d)
        cap = d;
    for (int i = 0; i < fails && d < cap; i++)
        d *= 2;
    return d < cap ? d : cap;
}

int poll_do_run(struct poll_do *p) {
    int polls = 0, pools_fails = 0;
    int64_t next_pools = pd_now(p), next_billing = next_pools;
    log_msg(LOG_INFO, "do: polling cluster '%s' every %d s (billing every %d s)", p->cluster_id,
            p->opt.poll_interval, p->opt.billing_interval);
    while (!pd_cancelled(p)) {
        int64_t now = pd_now(p);
        if (now >= next_pools) {
            /* the schedule starts from the poll's start, so pacing waits inside a
             * slow poll shorten the next wait instead of adding to it */
            poll_do_once(p, POLL_DO_POOLS);
            pools_fails = p->pools_dead ? pools_fails + 1 : 0;
            next_pools = now + next_wait_ms(p->opt.poll_interval, pools_fails);
            polls++;
        }
        if (pd_cancelled(p))
            break;
        now = pd_now(p);
        if (now >= next_billing) {
            next_billing = now + (int64_t)p->opt.billing_interval * 1000;
            poll_do_once(p, POLL_DO_BILLING);
            polls++;
        }
        now = pd_now(p);
        int64_t next = next_pools < next_billing ? next_pools : next_billing;
        if (next > now)
            pd_sleep(p, (long)(next - now));
        pthread_mutex_lock(&p->mu);
        if (p->wake) {
            p->wake = false;
            next_pools = next_billing = 0;
        }
        pthread_mutex_unlock(&p->mu);
    }
    return polls;
}

static void *thread_main(void *arg) {
    poll_do_run(arg);
    return NULL;
}

enum err poll_do_start(struct poll_do *p) {
    if (p->started)
        return ERR_INVAL;
    if (pthread_create(&p->thread, NULL, thread_main, p) != 0) {
        log_msg(LOG_ERROR, "do: cannot start the poller thread");
        return ERR_NOMEM;
    }
    p->started = true;
    return ERR_OK;
}

void poll_do_wake(void *ctx) {
    struct poll_do *p = ctx;
    pthread_mutex_lock(&p->mu);
    p->wake = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void poll_do_stop(struct poll_do *p) {
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (p->started) {
        pthread_join(p->thread, NULL);
        p->started = false;
    }
}
