/* poll_do — fetch, then write one transaction; see poll_do.h.
 * Invariant: pools/nodes are written only from a complete listing (every page
 * parsed), so a missing pool always means "gone", never "unreadable". */
#include "ingest/poll_do.h"
#include "ingest/poll_do_internal.h"

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
#include "base/timeutil.h"
#include "base/xalloc.h"

/* --- hooks ----------------------------------------------------------------------------- */

static int64_t pd_now(void *ctx) {
    struct poll_do *p = ctx;
    return p->user_now ? p->user_now(p->user_ctx) : timeutil_mono_ms();
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
    struct timespec ts = timeutil_mono_deadline(ms);
    pthread_mutex_lock(&p->mu);
    while (!p->stop && !p->wake && pthread_cond_timedwait(&p->cv, &p->mu, &ts) == 0)
        ;
    pthread_mutex_unlock(&p->mu);
}

void poll_do_lock_writer(struct poll_do *p) {
    pthread_mutex_lock(p->lock);
    store_set_cluster(p->db, p->cluster); /* fits: checked by poll_do_new */
}

/* --- lifecycle ----------------------------------------------------------------------- */

enum err poll_do_new(const struct poll_do_options *opt, struct store *writer,
                     pthread_mutex_t *writer_lock, struct poll_do **out) {
    if (!opt || !opt->api_url || !opt->token || !*opt->token || !opt->cluster_id || !writer ||
        !writer_lock || (opt->cluster && strlen(opt->cluster) >= STORE_CLUSTER_MAX))
        return ERR_INVAL;
    struct poll_do *p = xcalloc(1, sizeof *p);
    p->opt = *opt;
    snprintf(p->cluster, sizeof p->cluster, "%s",
             opt->cluster && *opt->cluster ? opt->cluster : STORE_DEFAULT_CLUSTER);
    p->opt.cluster = p->cluster;
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
    timeutil_mono_cond_init(&p->cv);

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
        const char *cap = poll_do_capacity_of(p, pool, &basis);
        int64_t price = -1;
        enum err pe = store_do_size_price(p->db, pool->size, &price);
        if (pe == ERR_NOTFOUND) {
            price = -1;
            poll_do_warn_once(p, pool->size);
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
    poll_do_lock_writer(p);
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
    int64_t started = poll_do_wall_now();
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
        if (poll_do_fetch_one(p, path, SCOPE_K8S, &resp, &r) == ERR_OK) {
            char why[DO_API_WHY_MAX];
            if (do_api_parse_cluster(resp.body.data ? resp.body.data : "", resp.body.len, &cluster,
                                     why, sizeof why) == ERR_OK) {
                have_cluster = true;
                cluster_date = resp.date ? resp.date : poll_do_wall_now();
                p->cluster_due_ms = now + (int64_t)p->opt.billing_interval * 1000;
            } else {
                log_msg(LOG_WARN, "do: GET '%s': %s", path, why);
                poll_do_run_fail(&r, ERR_PARSE, "GET %s: %s", path, why);
            }
        }
        http_response_release(&resp);
    }
    snprintf(path, sizeof path, "/v2/kubernetes/clusters/%s/node_pools?per_page=200",
             p->cluster_id);
    have_pools = poll_do_fetch_pages(p, path, SCOPE_K8S, K_POOLS, sizeof(struct do_pools), &pools,
                                     &pools_date, &r) == ERR_OK;
    if (force_sizes || !p->sizes_fetched || now >= p->sizes_due_ms ||
        (have_pools && pools_need_prices(p, &pools))) {
        have_sizes =
            poll_do_fetch_pages(p, "/v2/sizes?per_page=200", SCOPE_SIZES, K_SIZES,
                                sizeof(struct do_sizes), &sizes, &sizes_date, &r) == ERR_OK;
        if (have_sizes) {
            p->sizes_fetched = true;
            p->sizes_due_ms = now + (int64_t)p->opt.sizes_interval * 1000;
        }
    }
    if (!sizes_date)
        sizes_date = pools_date ? pools_date : poll_do_wall_now();
    if (!pools_date)
        pools_date = poll_do_wall_now();
    int64_t source_time = have_pools ? pools_date : cluster_date;

    /* one transaction: the batch and its poll_runs row */
    int64_t items = 0, id = 0;
    enum err rc;
    poll_do_lock_writer(p);
    if ((rc = store_begin(p->db)) == ERR_OK &&
        (rc = store_poll_begin(p->db, "do", started, &id)) == ERR_OK &&
        (rc = write_pools(p, have_cluster ? &cluster : NULL, cluster_date,
                          have_sizes ? &sizes : NULL, sizes_date, have_pools ? &pools : NULL,
                          pools_date, &items)) == ERR_OK &&
        (rc = store_poll_end(p->db, id, poll_do_wall_now(), source_time, r.n ? r.text : NULL,
                             (int64_t)(http_client_requests(p->http) - req0), items)) == ERR_OK)
        rc = store_commit(p->db);
    if (rc != ERR_OK)
        store_rollback(p->db);
    pthread_mutex_unlock(p->lock);
    if (rc != ERR_OK) {
        poll_do_run_fail(&r, rc, "store: %s", err_str(rc));
        poll_do_record_failed_run(p, "do", started, source_time, r.text,
                                  (int64_t)(http_client_requests(p->http) - req0));
    }
    poll_do_pages_release(&sizes);
    poll_do_pages_release(&pools);
    do_cluster_release(&cluster);
    p->pools_dead = !have_cluster && !have_pools && !have_sizes;
    if (r.n)
        log_msg(LOG_DEBUG, "do: poll done with %d problem%s", r.n, r.n == 1 ? "" : "s");
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
        e = poll_do_billing(p);
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
            if (!p->opt.no_billing) {
                poll_do_once(p, POLL_DO_BILLING);
                polls++;
            }
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
