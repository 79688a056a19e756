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

void poll_do_pages_release(struct pages *pg) {
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
