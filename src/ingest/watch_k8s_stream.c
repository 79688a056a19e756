/* watch_k8s_stream — the Kubernetes watcher's watch stream (one transaction per
 * event, 410 Gone, BOOKMARKs) and each informer's loop with its request budget
 * (watch_k8s_internal.h). */
#include "ingest/watch_k8s_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/timeutil.h"
#include "base/xalloc.h"
#include "store/store_k8s.h"

/* --- watching -------------------------------------------------------------------------- */

struct stream_ctx {
    struct informer *in;
    struct http_response *resp; /* its Date is filled as soon as headers arrive */
    enum err err;               /* a store failure stops the stream */
    bool gone;                  /* ERROR event with code 410 */
    bool error_event;
    uint64_t lines; /* events and bookmarks applied */
};

static bool on_line(void *ctx, const char *line, size_t len) {
    struct stream_ctx *sc = ctx;
    struct informer *in = sc->in;
    struct watch_k8s *w = in->w;
    if (watch_k8s_stopping(w))
        return false;
    if (len == 0)
        return true;
    struct k8s_watch_event ev;
    if (k8s_watch_parse(line, len, in->res.kind, &ev) != ERR_OK) {
        STAT_ADD(w, bad_lines, 1);
        log_msg(LOG_WARN, "watch_k8s: %s: unparsable watch line skipped (%zu bytes)", in->res.name,
                len);
        return true;
    }
    if (ev.type == K8S_ERROR) {
        sc->error_event = true;
        sc->gone = ev.status.code == 410;
        log_msg(sc->gone ? LOG_INFO : LOG_WARN, "watch_k8s: %s: watch ERROR %lld %s: %s",
                in->res.name, (long long)ev.status.code, ev.status.reason, ev.status.message);
        k8s_watch_event_release(&ev);
        return false;
    }
    struct store *s = w->writer;
    int64_t at = watch_k8s_event_time(sc->resp);
    enum err rc = ERR_OK;
    bool skipped = false;
    watch_k8s_lock_writer(w);
    if (ev.type == K8S_BOOKMARK) {
        rc = store_k8s_watch_set(s, in->res.name, ev.resource_version, at);
    } else {
        rc = store_begin(s);
        if (rc == ERR_OK) {
            if (watch_k8s_wanted(in, &ev.obj)) {
                int64_t deleted = 0;
                /* a removal is recorded at the event's source time (the
                 * stream's Date plus its age), never at deletionTimestamp
                 * (docs/cost-model.md) */
                if (ev.type == K8S_DELETED)
                    deleted = at;
                rc = store_k8s_put(s, &ev.obj, deleted, at);
            } else {
                skipped = true;
            }
        }
        if (rc == ERR_OK && ev.resource_version[0])
            rc = store_k8s_watch_set(s, in->res.name, ev.resource_version, at);
        if (rc == ERR_OK)
            rc = store_commit(s);
        if (rc != ERR_OK)
            store_rollback(s);
    }
    pthread_mutex_unlock(w->writer_lock);
    if (rc != ERR_OK) {
        sc->err = rc;
        k8s_watch_event_release(&ev);
        return false;
    }
    if (ev.resource_version[0])
        watch_k8s_copy_rv(in->rv, ev.resource_version);
    sc->lines++;
    pthread_mutex_lock(&w->mu);
    if (ev.type == K8S_BOOKMARK)
        w->stats.bookmarks++;
    else if (skipped)
        w->stats.skipped++;
    else
        w->stats.events++;
    pthread_mutex_unlock(&w->mu);
    k8s_watch_event_release(&ev);
    return true;
}

enum watch_end { WATCH_CLOSED, WATCH_GONE, WATCH_ERROR, WATCH_STOPPED };

/* How a watch went, for the backoff: *progress when it delivered a line or lived
 * healthy_watch_ms. */
static enum watch_end informer_watch(struct informer *in, bool *progress) {
    struct watch_k8s *w = in->w;
    struct buf url;
    buf_init(&url, 0);
    if (watch_k8s_build_url(in, &url, true, NULL) != ERR_OK) {
        buf_release(&url);
        return WATCH_ERROR;
    }
    struct http_response resp;
    http_response_init(&resp);
    struct stream_ctx sc = {.in = in, .resp = &resp};
    const char *tok = NULL;
    enum err rc = watch_k8s_request_token(in, &tok);
    STAT_ADD(w, watches, 1);
    int64_t started = timeutil_mono_ms();
    if (rc == ERR_OK)
        rc = http_client_stream(in->http, buf_str(&url), tok, w->opt.idle_timeout_ms,
                                w->opt.max_line, on_line, &sc, &resp);
    if (rc == ERR_AUTH && kube_token_refreshable(&in->token)) {
        STAT_ADD(w, auth_retries, 1);
        kube_token_invalidate(&in->token);
    }
    http_response_release(&resp);
    buf_release(&url);
    *progress = sc.lines > 0 || timeutil_mono_ms() - started >= w->opt.healthy_watch_ms;
    if (watch_k8s_stopping(w))
        return WATCH_STOPPED;
    if (sc.gone || rc == ERR_GONE)
        return WATCH_GONE;
    if (sc.err != ERR_OK || sc.error_event || rc != ERR_OK)
        return WATCH_ERROR;
    return WATCH_CLOSED;
}

/* Waits for a watch start from the resource's token bucket (GCRA: start_burst
 * starts at once, then one per start_gap_ms). True when stopping. */
static bool start_budget_wait(struct informer *in) {
    struct watch_k8s *w = in->w;
    int64_t now = timeutil_mono_ms();
    int64_t allowed = in->start_tat - (int64_t)(w->opt.start_burst - 1) * w->opt.start_gap_ms;
    if (now < allowed && watch_k8s_wait_ms(w, (long)(allowed - now)))
        return true;
    now = timeutil_mono_ms();
    in->start_tat = (in->start_tat > now ? in->start_tat : now) + w->opt.start_gap_ms;
    return false;
}

/* Whether an unscheduled relist may start now (fewer than max_relists_per_min in
 * the last minute); records it when so. */
static bool relist_allowed(struct informer *in) {
    struct watch_k8s *w = in->w;
    int64_t now = timeutil_mono_ms();
    int n = 0;
    for (int i = 0; i < in->relist_n; i++)
        if (now - in->relist_at[i] < WATCH_RELIST_WINDOW_MS)
            in->relist_at[n++] = in->relist_at[i];
    in->relist_n = n;
    if (n >= w->opt.max_relists_per_min)
        return false;
    in->relist_at[in->relist_n++] = now;
    return true;
}

/* One rate-limited INFO line about the resource (storm-prone events). */
static void storm_log(struct informer *in, const char *what) {
    unsigned long dropped = 0;
    if (log_limit_take(&in->log, timeutil_mono_ms(), &dropped))
        log_msg(LOG_INFO, "watch_k8s: %s: %s (%lu similar lines suppressed before)", in->res.name,
                what, dropped);
}

void *watch_k8s_informer_main(void *arg) {
    struct informer *in = arg;
    struct watch_k8s *w = in->w;
    long backoff = 0;
    int idle_ends = 0; /* watches in a row that ended without progress */
    bool need_list = true, scheduled = true;
    /* a resync under 20 s (the demo's and the tests' accelerated clusters, where a
     * pod lives seconds) keeps reconnecting at once after a clean end or a 410, as
     * before the budget: it could lose short-lived pods there (e2e_truth short-ttl) */
    bool budget = w->opt.resync_seconds >= 20;
    int64_t next_resync = 0;
    while (!watch_k8s_stopping(w)) {
        if (budget && need_list && !scheduled && !relist_allowed(in)) {
            /* over the relist cap: the next scheduled resync relists */
            storm_log(in, "relist cap reached, waiting for the scheduled resync");
            int64_t left = next_resync - timeutil_mono_ms();
            if (left > 0 && watch_k8s_wait_ms(w, (long)left))
                break;
            scheduled = true;
            continue;
        }
        if (need_list) {
            enum err rc = watch_k8s_informer_list(in);
            if (rc == ERR_BUSY && watch_k8s_stopping(w))
                break;
            if (rc != ERR_OK) {
                scheduled = false;
                backoff = watch_k8s_next_backoff(w, backoff);
                if (watch_k8s_backoff_wait(w, backoff))
                    break;
                continue;
            }
            need_list = false;
            next_resync = timeutil_mono_ms() + (int64_t)w->opt.resync_seconds * 1000;
        }
        if (budget && start_budget_wait(in))
            break;
        bool progress = false;
        enum watch_end end = informer_watch(in, &progress);
        if (end == WATCH_STOPPED)
            break;
        /* the backoff restarts only after a watch that did something; one watch
         * that ends without progress (an expired version, a proxy's idle cut) is
         * retried at once, the next ones back off */
        if (progress) {
            backoff = 0;
            idle_ends = 0;
        } else {
            idle_ends++;
        }
        if (end == WATCH_GONE) {
            STAT_ADD(w, gone, 1);
            if (in->list_rv[0] && strcmp(in->rv, in->list_rv) != 0) {
                /* too old to replay from: continue from the last list instead */
                storm_log(in, "resourceVersion expired, watching from the last list");
                watch_k8s_copy_rv(in->rv, in->list_rv);
            } else {
                storm_log(in, "resourceVersion expired, relisting");
                in->rv[0] = '\0';
                in->list_rv[0] = '\0';
                need_list = true;
                scheduled = false;
            }
        } else if (end == WATCH_ERROR) {
            STAT_ADD(w, errors, 1);
        } else if (!progress) {
            storm_log(in, "the watch ended at once without a line, backing off");
        }
        if (!budget && end != WATCH_ERROR)
            backoff = 0;
        if ((budget && idle_ends > 1) || end == WATCH_ERROR) {
            backoff = watch_k8s_next_backoff(w, backoff);
            if (watch_k8s_backoff_wait(w, backoff))
                break;
        }
        if (timeutil_mono_ms() >= next_resync) {
            need_list = true;
            scheduled = true;
        }
    }
    return NULL;
}
