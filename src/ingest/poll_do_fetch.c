/* poll_do_fetch — the DigitalOcean poller's paged GETs (every page parsed or the
 * listing is incomplete), its run errors and failed-run records (poll_do_internal.h). */
#include "ingest/poll_do_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "source/pool_capacity.h"
#include "store/store_do.h"

/* --- helpers ----------------------------------------------------------------------------- */

void poll_do_run_fail(struct run_err *r, enum err e, const char *fmt, ...) {
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
void poll_do_warn_once(struct poll_do *p, const char *what) {
    for (int i = 0; i < p->nwarned; i++)
        if (strcmp(p->warned[i], what) == 0)
            return;
    if (p->nwarned < MAX_WARNED)
        p->warned[p->nwarned++] = xstrdup(what);
    log_msg(LOG_WARN, "do: no price known for size '%s' yet; its nodes are priced when it is",
            what);
}

const char *poll_do_capacity_of(const struct poll_do *p, const struct do_pool *pool,
                                const char **basis) {
    return pool_capacity(pool, p->spot_pools, p->opt.n_spot_pools, p->spot_labels,
                         p->opt.n_spot_labels, basis);
}

/* The page parsers by kind (K_*): every DigitalOcean list page is {v, n, skipped,
 * next} (model/do.h); parse leaves *next pointing at the page's next link. */
#define PAGE_KIND(name)                                                                            \
    static enum err parse_##name(const char *b, size_t len, void *slot, char *why, size_t wl,      \
                                 char ***next, size_t *skipped) {                                  \
        struct do_##name *l = slot;                                                                \
        enum err e = do_api_parse_##name(b, len, l, why, wl);                                      \
        *next = &l->next;                                                                          \
        *skipped = l->skipped;                                                                     \
        return e;                                                                                  \
    }                                                                                              \
    static void release_##name(void *slot) {                                                       \
        do_##name##_release(slot);                                                                 \
    }
PAGE_KIND(sizes)
PAGE_KIND(pools)
PAGE_KIND(invoices)
PAGE_KIND(invoice_items)
PAGE_KIND(billing_history)

static const struct {
    enum err (*parse)(const char *b, size_t len, void *slot, char *why, size_t wl, char ***next,
                      size_t *skipped);
    void (*release)(void *slot);
} page_kinds[] = {
    [K_SIZES] = {parse_sizes, release_sizes},
    [K_POOLS] = {parse_pools, release_pools},
    [K_INVOICES] = {parse_invoices, release_invoices},
    [K_ITEMS] = {parse_invoice_items, release_invoice_items},
    [K_HISTORY] = {parse_billing_history, release_billing_history},
};

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
    char **pnext = NULL;
    size_t skipped = 0;
    enum err e = page_kinds[pg->kind].parse(b, len, slot, why, sizeof why, &pnext, &skipped);
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

void poll_do_pages_release(struct pages *pg) {
    for (size_t i = 0; i < pg->n; i++) {
        void *slot = (char *)pg->v + i * pg->elem;
        page_kinds[pg->kind].release(slot);
    }
    free(pg->v);
    memset(pg, 0, sizeof *pg);
}

/* Fetches every page of path. On failure logs once (parse problems; HTTP
 * failures were logged by http_client) and records it in r. */
enum err poll_do_fetch_pages(struct poll_do *p, const char *path, const char *scope, int kind,
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
            poll_do_run_fail(r, e, "GET %s: %s", path, pg->why);
        } else {
            poll_do_run_fail(r, e, "GET %s: %s", path, resp.error[0] ? resp.error : err_str(e));
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
enum err poll_do_fetch_one(struct poll_do *p, const char *path, const char *scope,
                           struct http_response *resp, struct run_err *r) {
    char *url = endpoint_url(p, path);
    enum err e = http_client_get(p->http, url, p->token, scope, resp);
    if (e != ERR_OK)
        poll_do_run_fail(r, e, "GET %s: %s", path, resp->error[0] ? resp->error : err_str(e));
    free(url);
    return e;
}

int64_t poll_do_wall_now(void) {
    return (int64_t)time(NULL);
}

/* Records a run that wrote nothing else (its own transaction). */
void poll_do_record_failed_run(struct poll_do *p, const char *source, int64_t started,
                               int64_t source_time, const char *error, int64_t requests) {
    int64_t id;
    poll_do_lock_writer(p);
    if (store_begin(p->db) == ERR_OK) {
        if (store_poll_begin(p->db, source, started, &id) == ERR_OK &&
            store_poll_end(p->db, id, poll_do_wall_now(), source_time, error, requests, 0) ==
                ERR_OK)
            store_commit(p->db);
        else
            store_rollback(p->db);
    }
    pthread_mutex_unlock(p->lock);
}
