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
#include "ingest/watch_k8s_internal.h"

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
#include "base/timeutil.h"
#include "base/xalloc.h"

/* --- small helpers ------------------------------------------------------------ */

bool watch_k8s_stopping(struct watch_k8s *w) {
    pthread_mutex_lock(&w->mu);
    bool s = w->stop;
    pthread_mutex_unlock(&w->mu);
    return s;
}

static bool cancel_hook(void *ctx) {
    return watch_k8s_stopping(ctx);
}

/* Waits ms or until stop; true when stopping. */
bool watch_k8s_wait_ms(struct watch_k8s *w, long ms) {
    struct timespec until = timeutil_mono_deadline(ms);
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        if (pthread_cond_timedwait(&w->cond, &w->mu, &until) != 0)
            break; /* ETIMEDOUT */
    }
    bool s = w->stop;
    pthread_mutex_unlock(&w->mu);
    return s;
}

long watch_k8s_next_backoff(struct watch_k8s *w, long cur) {
    long b = cur <= 0 ? w->opt.backoff_initial_ms : cur * 2;
    if (b > w->opt.backoff_max_ms)
        b = w->opt.backoff_max_ms;
    return b;
}

/* backoff with +-25% jitter */
bool watch_k8s_backoff_wait(struct watch_k8s *w, long b) {
    pthread_mutex_lock(&w->mu);
    unsigned r = w->rand_state = w->rand_state * 1103515245u + 12345u;
    pthread_mutex_unlock(&w->mu);
    long j = b / 4 > 0 ? (long)((r >> 8) % (unsigned long)(b / 2 + 1)) - b / 4 : 0;
    return watch_k8s_wait_ms(w, b + j);
}

int64_t watch_k8s_seen_time(int64_t date) {
    return date > 0 ? date : (int64_t)time(NULL);
}

int64_t watch_k8s_event_time(const struct http_response *r) {
    if (r->date <= 0)
        return (int64_t)time(NULL);
    int64_t open_ms = r->date_mono_ms > 0 ? timeutil_mono_ms() - r->date_mono_ms : 0;
    return r->date + (open_ms > 0 ? open_ms / 1000 : 0);
}

void watch_k8s_copy_rv(char *dst, const char *src) {
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

void watch_k8s_lock_writer(struct watch_k8s *w) {
    pthread_mutex_lock(w->writer_lock);
    store_set_cluster(w->writer, w->cluster); /* fits: checked by watch_k8s_new */
}

static char *dup_opt(const char *s) {
    return s && *s ? xstrdup(s) : NULL;
}

enum err watch_k8s_new(const struct watch_k8s_options *opt, struct store *writer,
                       pthread_mutex_t *writer_lock, struct watch_k8s **out) {
    if (!opt || !opt->api_url || !*opt->api_url || !writer || !writer_lock ||
        (opt->cluster && strlen(opt->cluster) >= STORE_CLUSTER_MAX))
        return ERR_INVAL;
    struct watch_k8s *w = xcalloc(1, sizeof *w);
    snprintf(w->cluster, sizeof w->cluster, "%s",
             opt->cluster && *opt->cluster ? opt->cluster : STORE_DEFAULT_CLUSTER);
    w->opt = *opt;
    w->opt.cluster = w->cluster;
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
    w->rand_state = (unsigned)timeutil_mono_ms();
    pthread_mutex_init(&w->mu, NULL);
    timeutil_mono_cond_init(&w->cond);

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
bool watch_k8s_wanted(struct informer *in, const struct k8s_object *o) {
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

/* --- public control ---------------------------------------------------------------------- */

enum err watch_k8s_sync_once(struct watch_k8s *w) {
    if (w->started)
        return ERR_BUSY;
    enum err first = ERR_OK;
    for (int i = 0; i < w->n_inf; i++) {
        enum err rc = watch_k8s_informer_list(&w->inf[i]);
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
        if (pthread_create(&w->inf[i].thread, NULL, watch_k8s_informer_main, &w->inf[i]) != 0) {
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
