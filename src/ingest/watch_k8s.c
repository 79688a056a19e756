/* watch_k8s — list+watch informers (see watch_k8s.h for the state machine).
 *
 * Invariants: an informer's http client, token and parse state belong to its own
 * thread; the store is touched only under writer_lock, one transaction per list
 * page or watch event; `rv` (the resume point) only advances after the event that
 * carried it is committed. Every loop is bounded: pages by WATCH_MAX_PAGES, list
 * restarts by WATCH_MAX_LIST_RESTARTS, waits by the stop flag and backoff_max_ms.
 *
 * Request budget (README "Limits"): an upstream that ends every watch at once
 * (an empty 200, a 410, an error) or loops a list must not turn the informers
 * into a request storm. Per resource: the backoff returns to zero only after a
 * watch that delivered a line or lived healthy_watch_ms; watch starts draw from
 * a token bucket (start_burst at once, then one per start_gap_ms); relists that
 * the schedule did not ask for (after a 410 or a failed list) are capped at
 * max_relists_per_min, beyond which the relist waits for the next scheduled
 * resync; a list whose continue token repeats stops with an error; the lines
 * about these are rate-limited (one per resource per minute, with a count). */
#include "ingest/watch_k8s.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "source/http_client.h"
#include "source/k8s_api.h"
#include "source/kube_auth.h"
#include "base/log.h"
#include "store/store.h"
#include "store/store_k8s.h"
#include "base/xalloc.h"

#define WATCH_MAX_PAGES 100000
#define WATCH_MAX_LIST_RESTARTS 3
#define WATCH_MAX_RESOURCES 6
#define WATCH_RELIST_WINDOW_MS 60000
#define WATCH_MAX_RELISTS_CAP 16

struct resource {
    char name[32]; /* watch_state key: "jobs", "pods", "nodes", "events", "node-events" */
    enum k8s_kind kind;
    char path[512];       /* "/api/v1/namespaces/ns/pods" */
    char query[512];      /* "labelSelector=..." or "" (already escaped) */
    const char *scope_ns; /* namespace for relist deletion marks, NULL = all */
};

struct informer {
    struct watch_k8s *w;
    struct resource res;
    struct http_client *http;
    struct kube_token token;
    char rv[K8S_RV_MAX];      /* resume point: last applied event / bookmark / list */
    char list_rv[K8S_RV_MAX]; /* version of the last complete list */
    bool loaded;              /* persisted resume point read */
    pthread_t thread;
    bool running;
    /* request budget, informer thread only */
    int64_t start_tat;                        /* token bucket: theoretical arrival time */
    int64_t relist_at[WATCH_MAX_RELISTS_CAP]; /* starts of unscheduled relists (ring) */
    int relist_n;                             /* entries used in relist_at */
    struct log_limit log;                     /* storms of repeated lines */
};

struct watch_k8s {
    struct watch_k8s_options opt;
    char *api_url, *token_file, *ca_file, *ns, *job_selector;
    struct store *writer;
    pthread_mutex_t *writer_lock;
    struct informer inf[WATCH_MAX_RESOURCES];
    int n_inf;
    pthread_mutex_t mu; /* stop flag, stats, cond */
    pthread_cond_t cond;
    bool stop;
    bool started;
    struct watch_k8s_stats stats;
    unsigned rand_state;
};

/* --- small helpers ------------------------------------------------------------ */

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool stopping(struct watch_k8s *w) {
    pthread_mutex_lock(&w->mu);
    bool s = w->stop;
    pthread_mutex_unlock(&w->mu);
    return s;
}

static bool cancel_hook(void *ctx) {
    return stopping(ctx);
}

#define STAT_ADD(w, field, n)                                                                      \
    do {                                                                                           \
        pthread_mutex_lock(&(w)->mu);                                                              \
        (w)->stats.field += (n);                                                                   \
        pthread_mutex_unlock(&(w)->mu);                                                            \
    } while (0)

/* Waits ms or until stop; true when stopping. */
static bool wait_ms(struct watch_k8s *w, long ms) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        if (pthread_cond_timedwait(&w->cond, &w->mu, &until) != 0)
            break; /* ETIMEDOUT */
    }
    bool s = w->stop;
    pthread_mutex_unlock(&w->mu);
    return s;
}

static long next_backoff(struct watch_k8s *w, long cur) {
    long b = cur <= 0 ? w->opt.backoff_initial_ms : cur * 2;
    if (b > w->opt.backoff_max_ms)
        b = w->opt.backoff_max_ms;
    return b;
}

/* backoff with +-25% jitter */
static bool backoff_wait(struct watch_k8s *w, long b) {
    pthread_mutex_lock(&w->mu);
    unsigned r = w->rand_state = w->rand_state * 1103515245u + 12345u;
    pthread_mutex_unlock(&w->mu);
    long j = b / 4 > 0 ? (long)((r >> 8) % (unsigned long)(b / 2 + 1)) - b / 4 : 0;
    return wait_ms(w, b + j);
}

static int64_t seen_time(int64_t date) {
    return date > 0 ? date : (int64_t)time(NULL);
}

static void copy_rv(char *dst, const char *src) {
    snprintf(dst, K8S_RV_MAX, "%s", src ? src : "");
}

/* --- setup -------------------------------------------------------------------- */

static bool add_resource(struct watch_k8s *w, const char *name, enum k8s_kind kind,
                         const char *group, const char *ns, const char *plural, const char *query) {
    struct resource *r = &w->inf[w->n_inf].res;
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->kind = kind;
    int n = ns ? snprintf(r->path, sizeof r->path, "%s/namespaces/%s/%s", group, ns, plural)
               : snprintf(r->path, sizeof r->path, "%s/%s", group, plural);
    int q = snprintf(r->query, sizeof r->query, "%s", query ? query : "");
    if (n < 0 || (size_t)n >= sizeof r->path || q < 0 || (size_t)q >= sizeof r->query)
        return false;
    r->scope_ns = ns;
    w->n_inf++;
    return true;
}

static void opt_defaults(struct watch_k8s_options *o) {
    if (o->resync_seconds <= 0)
        o->resync_seconds = 60;
    if (o->watch_timeout_seconds <= 0)
        o->watch_timeout_seconds = o->resync_seconds < 300 ? o->resync_seconds : 300;
    if (o->idle_timeout_ms <= 0)
        o->idle_timeout_ms = 2000L * o->watch_timeout_seconds + 5000;
    if (o->page_limit <= 0)
        o->page_limit = 500;
    if (o->backoff_initial_ms <= 0)
        o->backoff_initial_ms = 500;
    if (o->backoff_max_ms <= 0)
        o->backoff_max_ms = 30000;
    if (o->backoff_max_ms < o->backoff_initial_ms)
        o->backoff_max_ms = o->backoff_initial_ms;
    if (o->request_timeout_ms <= 0)
        o->request_timeout_ms = 30000;
    if (o->max_response == 0)
        o->max_response = 64u << 20;
    if (o->max_line == 0)
        o->max_line = 8u << 20;
    long timeout_ms = 1000L * o->watch_timeout_seconds;
    if (o->healthy_watch_ms <= 0)
        o->healthy_watch_ms = timeout_ms / 2 < 10000 ? timeout_ms / 2 : 10000;
    if (o->start_gap_ms <= 0)
        o->start_gap_ms = timeout_ms / 4 < 250    ? 250
                          : timeout_ms / 4 > 5000 ? 5000
                                                  : timeout_ms / 4;
    if (o->start_burst <= 0)
        o->start_burst = 6;
    if (o->max_relists_per_min <= 0) /* at least as often as the schedule relists */
        o->max_relists_per_min = o->resync_seconds < 20 ? 60 / o->resync_seconds : 3;
    if (o->max_relists_per_min > WATCH_MAX_RELISTS_CAP)
        o->max_relists_per_min = WATCH_MAX_RELISTS_CAP;
}

static char *dup_opt(const char *s) {
    return s && *s ? xstrdup(s) : NULL;
}

enum err watch_k8s_new(const struct watch_k8s_options *opt, struct store *writer,
                       pthread_mutex_t *writer_lock, struct watch_k8s **out) {
    if (!opt || !opt->api_url || !*opt->api_url || !writer || !writer_lock)
        return ERR_INVAL;
    struct watch_k8s *w = xcalloc(1, sizeof *w);
    w->opt = *opt;
    opt_defaults(&w->opt);
    w->api_url = xstrdup(opt->api_url);
    size_t n = strlen(w->api_url);
    while (n > 0 && w->api_url[n - 1] == '/')
        w->api_url[--n] = '\0';
    w->token_file = dup_opt(opt->token_file);
    w->ca_file = dup_opt(opt->ca_file);
    w->ns = dup_opt(opt->ns);
    w->job_selector = dup_opt(opt->job_selector);
    w->opt.api_url = w->api_url;
    w->opt.token_file = w->token_file;
    w->opt.ca_file = w->ca_file;
    w->opt.ns = w->ns;
    w->opt.job_selector = w->job_selector;
    w->writer = writer;
    w->writer_lock = writer_lock;
    w->rand_state = (unsigned)mono_ms();
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cond, &ca);
    pthread_condattr_destroy(&ca);

    char jobq[512] = "", podq[256], evq[256] = "";
    if (w->job_selector) {
        char *esc = http_client_escape(w->job_selector);
        snprintf(jobq, sizeof jobq, "labelSelector=%s", esc);
        free(esc);
    }
    /* pods of Jobs only: the job controller labels every pod it creates */
    char *esc = http_client_escape(K8S_LABEL_CONTROLLER_UID);
    snprintf(podq, sizeof podq, "labelSelector=%s", esc);
    free(esc);
    const char *evgroup = opt->events_v1 ? "/apis/events.k8s.io/v1" : "/api/v1";
    bool ok =
        add_resource(w, "nodes", K8S_NODE, "/api/v1", NULL, "nodes", NULL) &&
        add_resource(w, "jobs", K8S_JOB, "/apis/batch/v1", w->ns, "jobs", jobq) &&
        add_resource(w, "pods", K8S_POD, "/api/v1", w->ns, "pods", podq) &&
        add_resource(w, "events", K8S_EVENT, evgroup, w->ns, "events", evq) &&
        add_resource(w, "pdbs", K8S_PDB, "/apis/policy/v1", w->ns, "poddisruptionbudgets", NULL);
    if (ok && w->ns && strcmp(w->ns, "default") != 0) {
        /* Node events live in "default" whatever namespace the Jobs use */
        char *f =
            http_client_escape(opt->events_v1 ? "regarding.kind=Node" : "involvedObject.kind=Node");
        snprintf(evq, sizeof evq, "fieldSelector=%s", f);
        free(f);
        ok = add_resource(w, "node-events", K8S_EVENT, evgroup, "default", "events", evq);
    }
    if (!ok) {
        log_msg(LOG_ERROR, "watch_k8s: namespace or selector too long");
        watch_k8s_free(w);
        return ERR_INVAL;
    }
    struct http_client_options ho = {
        .connect_timeout_ms = 5000,
        .timeout_ms = w->opt.request_timeout_ms,
        .max_response = w->opt.max_response,
        .ca_file = w->ca_file,
        .client_cert = opt->conn && opt->conn->cert_file[0] ? opt->conn->cert_file : NULL,
        .client_key = opt->conn && opt->conn->key_file[0] ? opt->conn->key_file : NULL,
        .insecure = opt->conn && opt->conn->insecure,
        .max_retries = 2,
        .sleep_ctx = w,
        .cancelled = cancel_hook,
    };
    for (int i = 0; i < w->n_inf; i++) {
        struct informer *in = &w->inf[i];
        in->w = w;
        pthread_mutex_init(&in->log.mu, NULL);
        in->log.interval_ms = WATCH_RELIST_WINDOW_MS;
        in->log.burst = 1;
        kube_token_init_src(&in->token, w->token_file, opt->conn ? opt->conn->token : NULL,
                            opt->conn ? opt->conn->exec : NULL);
        if (http_client_new(&ho, &in->http) != ERR_OK) {
            watch_k8s_free(w);
            return ERR_NOMEM;
        }
    }
    *out = w;
    return ERR_OK;
}

void watch_k8s_free(struct watch_k8s *w) {
    if (!w)
        return;
    watch_k8s_stop(w);
    for (int i = 0; i < w->n_inf; i++) {
        http_client_free(w->inf[i].http);
        kube_token_release(&w->inf[i].token);
        pthread_mutex_destroy(&w->inf[i].log.mu);
    }
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->mu);
    free(w->api_url);
    free(w->token_file);
    free(w->ca_file);
    free(w->ns);
    free(w->job_selector);
    free(w);
}

void watch_k8s_stats(struct watch_k8s *w, struct watch_k8s_stats *out) {
    pthread_mutex_lock(&w->mu);
    *out = w->stats;
    pthread_mutex_unlock(&w->mu);
}

/* --- applying objects ----------------------------------------------------------- */

/* Whether an object is stored at all; called under the writer lock. */
static bool wanted(struct informer *in, const struct k8s_object *o) {
    struct watch_k8s *w = in->w;
    if (o->kind == K8S_EVENT)
        return k8s_event_is_relevant(&o->u.event);
    if (o->kind == K8S_POD) {
        if (!o->u.pod.job_uid[0])
            return false;
        if (w->job_selector) {
            /* only pods of selected Jobs; the next resync catches a pod whose Job
             * arrived later on the other thread */
            bool known = false;
            if (store_k8s_job_known(w->writer, o->u.pod.job_uid, &known) != ERR_OK)
                return true;
            return known;
        }
    }
    return true;
}

/* --- requests ---------------------------------------------------------------------- */

static enum err request_token(struct informer *in, const char **tok) {
    return kube_token_get(&in->token, tok);
}

static enum err get_with_auth(struct informer *in, const char *url, struct http_response *resp) {
    const char *tok = NULL;
    enum err rc = request_token(in, &tok);
    if (rc != ERR_OK)
        return rc;
    rc = http_client_get(in->http, url, tok, "kubernetes:read", resp);
    if (rc == ERR_AUTH && kube_token_refreshable(&in->token)) {
        /* the token may have been rotated since we read it */
        STAT_ADD(in->w, auth_retries, 1);
        kube_token_invalidate(&in->token);
        if ((rc = request_token(in, &tok)) != ERR_OK)
            return rc;
        rc = http_client_get(in->http, url, tok, "kubernetes:read", resp);
    }
    return rc;
}

static enum err build_url(struct informer *in, struct buf *u, bool watch, const char *cont) {
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
    int64_t seen = seen_time(date);
    uint64_t skipped = 0, vanished = 0;
    pthread_mutex_lock(w->writer_lock);
    enum err rc = store_begin(s);
    if (rc == ERR_OK && first)
        rc = store_k8s_seen_reset(s, in->res.kind);
    for (size_t i = 0; rc == ERR_OK && i < l->n; i++) {
        const struct k8s_object *o = &l->items[i];
        if (in->res.kind != K8S_EVENT)
            rc = store_k8s_seen_add(s, in->res.kind, k8s_object_meta(o)->uid);
        if (rc != ERR_OK)
            break;
        if (!wanted(in, o)) {
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
    pthread_mutex_lock(w->writer_lock);
    enum err rc = store_k8s_watch_get(w->writer, in->res.name, rv, sizeof rv);
    pthread_mutex_unlock(w->writer_lock);
    if (rc == ERR_OK) {
        copy_rv(in->rv, rv);
        log_msg(LOG_INFO, "watch_k8s: %s: resuming from resourceVersion %s", in->res.name, rv);
    }
    in->loaded = true;
}

/* A complete paginated LIST, recorded as a poll run. */
static enum err informer_list(struct informer *in) {
    struct watch_k8s *w = in->w;
    load_resume_point(in);
    int64_t run_id = 0;
    pthread_mutex_lock(w->writer_lock);
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
        if (stopping(w)) {
            rc = ERR_BUSY;
            break;
        }
        if (pages >= WATCH_MAX_PAGES) {
            rc = ERR_TOOBIG;
            break;
        }
        if ((rc = build_url(in, &url, false, cont)) != ERR_OK)
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
        copy_rv(list_rv, l.resource_version);
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
        pthread_mutex_lock(w->writer_lock);
        store_poll_end(w->writer, run_id, (int64_t)time(NULL), date, rc == ERR_OK ? NULL : errtext,
                       requests, (int64_t)items);
        pthread_mutex_unlock(w->writer_lock);
    }
    if (rc == ERR_OK) {
        copy_rv(in->list_rv, list_rv);
        if (!in->rv[0])
            copy_rv(in->rv, list_rv);
        STAT_ADD(w, lists, 1);
        log_msg(LOG_DEBUG, "watch_k8s: %s: listed %llu object(s) at resourceVersion %s",
                in->res.name, (unsigned long long)items, list_rv);
    } else if (rc != ERR_BUSY) {
        STAT_ADD(w, errors, 1);
        unsigned long dropped = 0;
        if (log_limit_take(&in->log, mono_ms(), &dropped))
            log_msg(LOG_WARN, "watch_k8s: %s (%lu similar lines suppressed before)", errtext,
                    dropped);
    }
    return rc;
}

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
    if (stopping(w))
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
    int64_t date = sc->resp->date;
    enum err rc = ERR_OK;
    bool skipped = false;
    pthread_mutex_lock(w->writer_lock);
    if (ev.type == K8S_BOOKMARK) {
        rc = store_k8s_watch_set(s, in->res.name, ev.resource_version, seen_time(date));
    } else {
        rc = store_begin(s);
        if (rc == ERR_OK) {
            if (wanted(in, &ev.obj)) {
                int64_t deleted = 0;
                /* a removal is recorded at the event's source time (the
                 * stream's Date), never at deletionTimestamp (docs/cost-model.md) */
                if (ev.type == K8S_DELETED)
                    deleted = seen_time(date);
                rc = store_k8s_put(s, &ev.obj, deleted, seen_time(date));
            } else {
                skipped = true;
            }
        }
        if (rc == ERR_OK && ev.resource_version[0])
            rc = store_k8s_watch_set(s, in->res.name, ev.resource_version, seen_time(date));
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
        copy_rv(in->rv, ev.resource_version);
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
    if (build_url(in, &url, true, NULL) != ERR_OK) {
        buf_release(&url);
        return WATCH_ERROR;
    }
    struct http_response resp;
    http_response_init(&resp);
    struct stream_ctx sc = {.in = in, .resp = &resp};
    const char *tok = NULL;
    enum err rc = request_token(in, &tok);
    STAT_ADD(w, watches, 1);
    int64_t started = mono_ms();
    if (rc == ERR_OK)
        rc = http_client_stream(in->http, buf_str(&url), tok, w->opt.idle_timeout_ms,
                                w->opt.max_line, on_line, &sc, &resp);
    if (rc == ERR_AUTH && kube_token_refreshable(&in->token)) {
        STAT_ADD(w, auth_retries, 1);
        kube_token_invalidate(&in->token);
    }
    http_response_release(&resp);
    buf_release(&url);
    *progress = sc.lines > 0 || mono_ms() - started >= w->opt.healthy_watch_ms;
    if (stopping(w))
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
    int64_t now = mono_ms();
    int64_t allowed = in->start_tat - (int64_t)(w->opt.start_burst - 1) * w->opt.start_gap_ms;
    if (now < allowed && wait_ms(w, (long)(allowed - now)))
        return true;
    now = mono_ms();
    in->start_tat = (in->start_tat > now ? in->start_tat : now) + w->opt.start_gap_ms;
    return false;
}

/* Whether an unscheduled relist may start now (fewer than max_relists_per_min in
 * the last minute); records it when so. */
static bool relist_allowed(struct informer *in) {
    struct watch_k8s *w = in->w;
    int64_t now = mono_ms();
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
    if (log_limit_take(&in->log, mono_ms(), &dropped))
        log_msg(LOG_INFO, "watch_k8s: %s: %s (%lu similar lines suppressed before)", in->res.name,
                what, dropped);
}

static void *informer_main(void *arg) {
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
    while (!stopping(w)) {
        if (budget && need_list && !scheduled && !relist_allowed(in)) {
            /* over the relist cap: the next scheduled resync relists */
            storm_log(in, "relist cap reached, waiting for the scheduled resync");
            int64_t left = next_resync - mono_ms();
            if (left > 0 && wait_ms(w, (long)left))
                break;
            scheduled = true;
            continue;
        }
        if (need_list) {
            enum err rc = informer_list(in);
            if (rc == ERR_BUSY && stopping(w))
                break;
            if (rc != ERR_OK) {
                scheduled = false;
                backoff = next_backoff(w, backoff);
                if (backoff_wait(w, backoff))
                    break;
                continue;
            }
            need_list = false;
            next_resync = mono_ms() + (int64_t)w->opt.resync_seconds * 1000;
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
                copy_rv(in->rv, in->list_rv);
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
            backoff = next_backoff(w, backoff);
            if (backoff_wait(w, backoff))
                break;
        }
        if (mono_ms() >= next_resync) {
            need_list = true;
            scheduled = true;
        }
    }
    return NULL;
}

/* --- public control ---------------------------------------------------------------------- */

enum err watch_k8s_sync_once(struct watch_k8s *w) {
    if (w->started)
        return ERR_BUSY;
    enum err first = ERR_OK;
    for (int i = 0; i < w->n_inf; i++) {
        enum err rc = informer_list(&w->inf[i]);
        if (rc != ERR_OK && first == ERR_OK)
            first = rc;
    }
    return first;
}

enum err watch_k8s_start(struct watch_k8s *w) {
    if (w->started)
        return ERR_BUSY;
    pthread_mutex_lock(&w->mu);
    w->stop = false;
    pthread_mutex_unlock(&w->mu);
    w->started = true;
    for (int i = 0; i < w->n_inf; i++) {
        if (pthread_create(&w->inf[i].thread, NULL, informer_main, &w->inf[i]) != 0) {
            log_msg(LOG_ERROR, "watch_k8s: cannot start the %s thread", w->inf[i].res.name);
            watch_k8s_stop(w);
            return ERR_NOMEM;
        }
        w->inf[i].running = true;
    }
    log_msg(LOG_INFO, "watch_k8s: watching %d resource(s) at '%s'", w->n_inf, w->api_url);
    return ERR_OK;
}

void watch_k8s_stop(struct watch_k8s *w) {
    if (!w || !w->started)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->mu);
    for (int i = 0; i < w->n_inf; i++) {
        if (w->inf[i].running)
            pthread_join(w->inf[i].thread, NULL);
        w->inf[i].running = false;
    }
    w->started = false;
}
