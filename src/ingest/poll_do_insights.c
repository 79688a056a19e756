/* poll_do_insights — DigitalOcean billing insights; see poll_do_internal.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "ingest/poll_do_internal.h"
#include "source/do_insights.h"
#include "store/store_insights.h"

/* The team URN from GET /v2/account, asked every billing poll (one request an
 * hour): its Date header is the source's "today" (spotsim's simulated clock;
 * DigitalOcean's own), which bounds the insights range. */
static bool account_urn(struct poll_do *p, int64_t *today, struct run_err *r) {
    struct http_response resp;
    http_response_init(&resp);
    bool ok = poll_do_fetch_one(p, "/v2/account", "account:read", &resp, r) == ERR_OK;
    if (ok && do_insights_account_urn(resp.body.data ? resp.body.data : "", resp.body.len,
                                      p->account_urn, sizeof p->account_urn) != ERR_OK) {
        poll_do_run_fail(r, ERR_PARSE, "GET /v2/account: no team uuid");
        ok = false;
    }
    *today = resp.date ? resp.date : poll_do_wall_now();
    http_response_release(&resp);
    return ok;
}

static void day_str(int64_t t, char out[16]) {
    int64_t y;
    int m, d;
    timeutil_civil_from_days(t / 86400, &y, &m, &d);
    snprintf(out, 16, "%04d-%02d-%02d", (int)y, m, d);
}

/* Every page into *out (bounded by max_pages); false (out empty) on any failure. */
static bool fetch(struct poll_do *p, struct do_insights *out, int64_t *date, struct run_err *r) {
    memset(out, 0, sizeof *out);
    int64_t now;
    if (!account_urn(p, &now, r))
        return false;
    char from[16], to[16];
    day_str(timeutil_month_start(now), from);
    day_str(now, to);
    char *urn = http_client_escape(p->account_urn);
    bool ok = true;
    int64_t pages = 1;
    for (int64_t page = 1; ok && page <= pages && page <= p->opt.max_pages; page++) {
        char path[512];
        snprintf(path, sizeof path, "/v2/billing/%s/insights/%s/%s?page=%lld&per_page=200", urn,
                 from, to, (long long)page);
        struct http_response resp;
        http_response_init(&resp);
        struct do_insights l;
        char why[DO_API_WHY_MAX] = "";
        ok = poll_do_fetch_one(p, path, SCOPE_BILLING, &resp, r) == ERR_OK;
        if (ok && do_insights_parse(resp.body.data ? resp.body.data : "", resp.body.len, &l, why,
                                    sizeof why) != ERR_OK) {
            log_msg(LOG_WARN, "do: GET billing insights: %s", why);
            poll_do_run_fail(r, ERR_PARSE, "GET billing insights: %s", why);
            ok = false;
        }
        if (ok && !*date)
            *date = resp.date;
        http_response_release(&resp);
        if (!ok)
            break;
        pages = l.total_pages > 0 ? l.total_pages : 1;
        out->v = xrealloc(out->v, (out->n + l.n + 1) * sizeof *out->v);
        memcpy(out->v + out->n, l.v, l.n * sizeof *l.v);
        out->n += l.n;
        free(l.v); /* its strings now belong to out */
    }
    free(urn);
    if (!ok)
        do_insights_release(out);
    return ok;
}

void poll_do_insights(struct poll_do *p) {
    int64_t started = poll_do_wall_now(), date = 0;
    uint64_t req0 = http_client_requests(p->http);
    struct run_err r = {0};
    struct do_insights ins;
    bool have = fetch(p, &ins, &date, &r);
    int64_t seen = date ? date : poll_do_wall_now(), id = 0;
    poll_do_lock_writer(p);
    enum err rc = store_begin(p->db);
    if (rc == ERR_OK)
        rc = store_poll_begin(p->db, "do_insights", started, &id);
    for (size_t i = 0; rc == ERR_OK && have && i < ins.n; i++)
        rc = store_insights_put(p->db, &ins.v[i], seen);
    if (rc == ERR_OK)
        rc = store_poll_end(p->db, id, poll_do_wall_now(), date, r.n ? r.text : NULL,
                            (int64_t)(http_client_requests(p->http) - req0),
                            have ? (int64_t)ins.n : 0);
    if (rc == ERR_OK)
        rc = store_commit(p->db);
    if (rc != ERR_OK)
        store_rollback(p->db);
    pthread_mutex_unlock(p->lock);
    if (rc != ERR_OK)
        log_msg(LOG_WARN, "do: billing insights not stored: %s", err_str(rc));
    if (have)
        do_insights_release(&ins);
}
