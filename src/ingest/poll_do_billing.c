/* poll_do_billing — the DigitalOcean poller's billing run (poll_do_internal.h):
 * fetch invoices, their items, billing history and balance, then write them in
 * one transaction. */
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

/* --- billing ----------------------------------------------------------------------------- */

/* The items of one invoice, every page parsed. */
struct fetched_items {
    char *uuid;
    struct pages pages;
};

/* What one billing run fetched (have_*: that part was read completely). */
struct billing_fetch {
    struct pages inv, hist;
    int64_t inv_date, hist_date, bal_date;
    bool have_inv, have_hist, have_bal;
    struct fetched_items *fi;
    size_t nfi, capfi;
    struct do_balance bal;
};

/* The items of every invoice listed: the preview always (it changes), a final
 * invoice only when the store has none of its items yet. */
static void fetch_invoice_items(struct poll_do *p, struct billing_fetch *f, struct run_err *r) {
    for (size_t i = 0; f->have_inv && i < f->inv.n; i++) {
        const struct do_invoices *l = (const struct do_invoices *)f->inv.v + i;
        for (size_t j = 0; j < l->n; j++) {
            bool has = false;
            if (!l->v[j].preview) {
                poll_do_lock_writer(p);
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
            if (poll_do_fetch_pages(p, path, SCOPE_BILLING, K_ITEMS,
                                    sizeof(struct do_invoice_items), &pg, &d, r) != ERR_OK) {
                poll_do_pages_release(&pg);
                continue;
            }
            if (f->nfi == f->capfi) {
                f->capfi = f->capfi ? f->capfi * 2 : 4;
                f->fi = xrealloc(f->fi, f->capfi * sizeof *f->fi);
            }
            f->fi[f->nfi].uuid = xstrdup(l->v[j].uuid);
            f->fi[f->nfi].pages = pg;
            f->nfi++;
        }
    }
}

/* GET /v2/customers/my/balance into f->bal. */
static void fetch_balance(struct poll_do *p, struct billing_fetch *f, struct run_err *r) {
    struct http_response resp;
    http_response_init(&resp);
    const char *path = "/v2/customers/my/balance";
    if (poll_do_fetch_one(p, path, SCOPE_BILLING, &resp, r) == ERR_OK) {
        char why[DO_API_WHY_MAX];
        if (do_api_parse_balance(resp.body.data ? resp.body.data : "", resp.body.len, &f->bal, why,
                                 sizeof why) == ERR_OK) {
            f->have_bal = true;
            f->bal_date = resp.date ? resp.date : poll_do_wall_now();
        } else {
            log_msg(LOG_WARN, "do: GET '%s': %s", path, why);
            poll_do_run_fail(r, ERR_PARSE, "GET %s: %s", path, why);
        }
    }
    http_response_release(&resp);
}

/* Replaces the items of invoice fi (all its pages as one list, ordinals
 * continuing across pages); *items += their number. Under the writer lock. */
static enum err write_invoice_items(struct poll_do *p, const struct fetched_items *fi,
                                    int64_t *items) {
    size_t total = 0;
    for (size_t k = 0; k < fi->pages.n; k++)
        total += ((const struct do_invoice_items *)fi->pages.v)[k].n;
    struct do_invoice_item *all = xcalloc(total ? total : 1, sizeof *all);
    size_t m = 0;
    for (size_t k = 0; k < fi->pages.n; k++) {
        const struct do_invoice_items *l = (const struct do_invoice_items *)fi->pages.v + k;
        memcpy(all + m, l->v, l->n * sizeof *l->v);
        m += l->n;
    }
    enum err rc = store_do_replace_invoice_items(p->db, fi->uuid, all, m);
    *items += (int64_t)m;
    free(all);
    return rc;
}

/* Writes what was fetched and the run's record (poll started at started, req0
 * requests before it) in one transaction; rolled back on any error. */
static enum err write_billing(struct poll_do *p, const struct billing_fetch *f, int64_t started,
                              uint64_t req0, int64_t source_time, const struct run_err *r) {
    int64_t items = 0, id = 0;
    enum err rc;
    poll_do_lock_writer(p);
    if ((rc = store_begin(p->db)) == ERR_OK)
        rc = store_poll_begin(p->db, "do_billing", started, &id);
    for (size_t i = 0; rc == ERR_OK && f->have_inv && i < f->inv.n; i++) {
        const struct do_invoices *l = (const struct do_invoices *)f->inv.v + i;
        for (size_t j = 0; rc == ERR_OK && j < l->n; j++, items++)
            rc = store_do_upsert_invoice(p->db, &l->v[j], f->inv_date);
    }
    for (size_t i = 0; rc == ERR_OK && i < f->nfi; i++)
        rc = write_invoice_items(p, &f->fi[i], &items);
    for (size_t i = 0; rc == ERR_OK && f->have_hist && i < f->hist.n; i++) {
        const struct do_billing_history *l = (const struct do_billing_history *)f->hist.v + i;
        for (size_t j = 0; rc == ERR_OK && j < l->n; j++, items++)
            rc = store_do_add_billing_entry(p->db, &l->v[j]);
    }
    if (rc == ERR_OK && f->have_bal) {
        rc = store_do_add_balance(p->db, &f->bal, f->bal_date);
        items++;
    }
    if (rc == ERR_OK)
        rc = store_poll_end(p->db, id, poll_do_wall_now(), source_time, r->n ? r->text : NULL,
                            (int64_t)(http_client_requests(p->http) - req0), items);
    if (rc == ERR_OK)
        rc = store_commit(p->db);
    if (rc != ERR_OK)
        store_rollback(p->db);
    pthread_mutex_unlock(p->lock);
    return rc;
}

enum err poll_do_billing(struct poll_do *p) {
    int64_t started = poll_do_wall_now();
    uint64_t req0 = http_client_requests(p->http);
    struct run_err r = {0};
    struct billing_fetch f = {0};
    f.have_inv =
        poll_do_fetch_pages(p, "/v2/customers/my/invoices?per_page=200", SCOPE_BILLING, K_INVOICES,
                            sizeof(struct do_invoices), &f.inv, &f.inv_date, &r) == ERR_OK;
    fetch_invoice_items(p, &f, &r);
    f.have_hist = poll_do_fetch_pages(p, "/v2/customers/my/billing_history?per_page=200",
                                      SCOPE_BILLING, K_HISTORY, sizeof(struct do_billing_history),
                                      &f.hist, &f.hist_date, &r) == ERR_OK;
    fetch_balance(p, &f, &r);
    int64_t source_time = f.inv_date ? f.inv_date : f.hist_date ? f.hist_date : f.bal_date;
    if (!f.inv_date)
        f.inv_date = source_time ? source_time : poll_do_wall_now();
    enum err rc = write_billing(p, &f, started, req0, source_time, &r);
    if (rc != ERR_OK) {
        poll_do_run_fail(&r, rc, "store: %s", err_str(rc));
        poll_do_record_failed_run(p, "do_billing", started, source_time, r.text,
                                  (int64_t)(http_client_requests(p->http) - req0));
    }
    for (size_t i = 0; i < f.nfi; i++) {
        free(f.fi[i].uuid);
        poll_do_pages_release(&f.fi[i].pages);
    }
    free(f.fi);
    poll_do_pages_release(&f.inv);
    poll_do_pages_release(&f.hist);
    /* an API that answered none of the billing endpoints (down, or no billing:read)
     * is not asked for insights too: the insights run records why */
    if (f.have_inv || f.have_hist || f.have_bal)
        poll_do_insights(p);
    else
        poll_do_record_failed_run(p, "do_insights", started, 0, r.text, 0);
    return r.n ? r.first : ERR_OK;
}
