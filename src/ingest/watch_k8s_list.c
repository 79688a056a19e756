/* watch_k8s_list — the Kubernetes watcher's requests and its paged list of a
 * resource, one transaction per page, with the resume point (watch_k8s_internal.h). */
#include "ingest/watch_k8s_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/timeutil.h"
#include "base/xalloc.h"
#include "store/store_k8s.h"

/* --- requests ---------------------------------------------------------------------- */

enum err watch_k8s_request_token(struct informer *in, const char **tok) {
    return kube_token_get(&in->token, tok);
}

static enum err get_with_auth(struct informer *in, const char *url, struct http_response *resp) {
    const char *tok = NULL;
    enum err rc = watch_k8s_request_token(in, &tok);
    if (rc != ERR_OK)
        return rc;
    rc = http_client_get(in->http, url, tok, "kubernetes:read", resp);
    if (rc == ERR_AUTH && kube_token_refreshable(&in->token)) {
        /* the token may have been rotated since we read it */
        STAT_ADD(in->w, auth_retries, 1);
        kube_token_invalidate(&in->token);
        if ((rc = watch_k8s_request_token(in, &tok)) != ERR_OK)
            return rc;
        rc = http_client_get(in->http, url, tok, "kubernetes:read", resp);
    }
    return rc;
}

enum err watch_k8s_build_url(struct informer *in, struct buf *u, bool watch, const char *cont) {
    struct watch_k8s *w = in->w;
    buf_reset(u);
    enum err rc = buf_printf(u, "%s%s?", w->api_url, in->res.path);
    if (rc == ERR_OK && in->res.query[0])
        rc = buf_printf(u, "%s&", in->res.query);
    if (rc != ERR_OK)
        return rc;
    if (watch) {
        char *rv = http_client_escape(in->rv);
        rc = buf_printf(u, "watch=1&allowWatchBookmarks=true&resourceVersion=%s&timeoutSeconds=%d",
                        rv, w->opt.watch_timeout_seconds);
        free(rv);
    } else {
        rc = buf_printf(u, "limit=%d", w->opt.page_limit);
        if (rc == ERR_OK && cont) {
            char *c = http_client_escape(cont);
            rc = buf_printf(u, "&continue=%s", c);
            free(c);
        }
    }
    return rc;
}

/* Applies one list page in one transaction. */
static enum err apply_page(struct informer *in, const struct k8s_list *l, bool first, bool last,
                           int64_t date, uint64_t *items) {
    struct watch_k8s *w = in->w;
    struct store *s = w->writer;
    int64_t seen = watch_k8s_seen_time(date);
    uint64_t skipped = 0, vanished = 0;
    watch_k8s_lock_writer(w);
    enum err rc = store_begin(s);
    if (rc == ERR_OK && first)
        rc = store_k8s_seen_reset(s, in->res.kind);
    for (size_t i = 0; rc == ERR_OK && i < l->n; i++) {
        const struct k8s_object *o = &l->items[i];
        if (in->res.kind != K8S_EVENT)
            rc = store_k8s_seen_add(s, in->res.kind, k8s_object_meta(o)->uid);
        if (rc != ERR_OK)
            break;
        if (!watch_k8s_wanted(in, o)) {
            skipped++;
            continue;
        }
        rc = store_k8s_put(s, o, 0, seen);
    }
    if (rc == ERR_OK && last) {
        int64_t marked = 0;
        /* a list of a selector-narrowed kind cannot tell "gone" from "unselected" */
        bool narrowed = in->res.kind == K8S_JOB && w->job_selector;
        if (in->res.kind != K8S_EVENT && !narrowed && date > 0)
            rc = store_k8s_mark_vanished(s, in->res.kind, in->res.scope_ns, date, &marked);
        vanished = (uint64_t)marked;
        if (rc == ERR_OK)
            rc = store_k8s_watch_set(s, in->res.name, in->rv[0] ? in->rv : l->resource_version,
                                     seen);
    }
    if (rc == ERR_OK)
        rc = store_commit(s);
    if (rc != ERR_OK)
        store_rollback(s);
    pthread_mutex_unlock(w->writer_lock);
    if (rc == ERR_OK) {
        *items += l->n - skipped;
        pthread_mutex_lock(&w->mu);
        w->stats.pages++;
        w->stats.skipped += skipped;
        w->stats.vanished += vanished;
        pthread_mutex_unlock(&w->mu);
    }
    return rc;
}

static void load_resume_point(struct informer *in) {
    if (in->loaded)
        return;
    struct watch_k8s *w = in->w;
    char rv[K8S_RV_MAX];
    watch_k8s_lock_writer(w);
    enum err rc = store_k8s_watch_get(w->writer, in->res.name, rv, sizeof rv);
    pthread_mutex_unlock(w->writer_lock);
    if (rc == ERR_OK) {
        watch_k8s_copy_rv(in->rv, rv);
        log_msg(LOG_INFO, "watch_k8s: %s: resuming from resourceVersion %s", in->res.name, rv);
    }
    in->loaded = true;
}

/* A complete paginated LIST, recorded as a poll run. */
enum err watch_k8s_informer_list(struct informer *in) {
    struct watch_k8s *w = in->w;
    load_resume_point(in);
    int64_t run_id = 0;
    watch_k8s_lock_writer(w);
    enum err prc = store_poll_begin(w->writer, "k8s", (int64_t)time(NULL), &run_id);
    pthread_mutex_unlock(w->writer_lock);
    struct http_response resp;
    http_response_init(&resp);
    struct buf url;
    buf_init(&url, 0);
    char *cont = NULL;
    uint64_t items = 0;
    int64_t date = 0;
    int requests = 0, restarts = 0, pages = 0;
    char list_rv[K8S_RV_MAX] = "";
    enum err rc = ERR_OK;
    for (;;) {
        if (watch_k8s_stopping(w)) {
            rc = ERR_BUSY;
            break;
        }
        if (pages >= WATCH_MAX_PAGES) {
            rc = ERR_TOOBIG;
            break;
        }
        if ((rc = watch_k8s_build_url(in, &url, false, cont)) != ERR_OK)
            break;
        requests++;
        rc = get_with_auth(in, buf_str(&url), &resp);
        if (rc == ERR_GONE && cont && restarts < WATCH_MAX_LIST_RESTARTS) {
            /* the continue token expired: start the list again, consistently */
            STAT_ADD(w, gone, 1);
            restarts++;
            free(cont);
            cont = NULL;
            pages = 0;
            continue;
        }
        if (rc != ERR_OK)
            break;
        if (pages == 0)
            date = resp.date;
        struct k8s_list l;
        rc = k8s_list_parse(resp.body.data ? resp.body.data : "", resp.body.len, in->res.kind, &l);
        if (rc != ERR_OK) {
            log_msg(LOG_WARN, "watch_k8s: %s: list page is not a List: %s", in->res.name,
                    err_str(rc));
            break;
        }
        if (l.continue_token && cont && strcmp(l.continue_token, cont) == 0) {
            /* a server that answers the same token again would be followed forever */
            log_msg(LOG_WARN, "watch_k8s: %s: the list's continue token did not change, stopping",
                    in->res.name);
            snprintf(resp.error, sizeof resp.error, "the continue token repeated");
            k8s_list_release(&l);
            rc = ERR_PARSE;
            break;
        }
        bool last = l.continue_token == NULL;
        rc = apply_page(in, &l, pages == 0, last, date, &items);
        pages++;
        watch_k8s_copy_rv(list_rv, l.resource_version);
        free(cont);
        cont = l.continue_token ? xstrdup(l.continue_token) : NULL;
        k8s_list_release(&l);
        if (rc != ERR_OK || last)
            break;
    }
    free(cont);
    buf_release(&url);
    char errtext[300] = "";
    if (rc != ERR_OK)
        snprintf(errtext, sizeof errtext, "%s list: %s%s%s", in->res.name, err_str(rc),
                 resp.error[0] ? ": " : "", resp.error);
    http_response_release(&resp);
    if (prc == ERR_OK) {
        watch_k8s_lock_writer(w);
        store_poll_end(w->writer, run_id, (int64_t)time(NULL), date, rc == ERR_OK ? NULL : errtext,
                       requests, (int64_t)items);
        pthread_mutex_unlock(w->writer_lock);
    }
    if (rc == ERR_OK) {
        watch_k8s_copy_rv(in->list_rv, list_rv);
        if (!in->rv[0])
            watch_k8s_copy_rv(in->rv, list_rv);
        STAT_ADD(w, lists, 1);
        log_msg(LOG_DEBUG, "watch_k8s: %s: listed %llu object(s) at resourceVersion %s",
                in->res.name, (unsigned long long)items, list_rv);
    } else if (rc != ERR_BUSY) {
        STAT_ADD(w, errors, 1);
        unsigned long dropped = 0;
        if (log_limit_take(&in->log, timeutil_mono_ms(), &dropped))
            log_msg(LOG_WARN, "watch_k8s: %s (%lu similar lines suppressed before)", errtext,
                    dropped);
    }
    return rc;
}
