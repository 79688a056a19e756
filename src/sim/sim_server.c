/* sim_server — see sim_server.h. Per-request state hangs on MHD's con_cls and is
 * freed by the completion callback (docs/style.md MHD 4); every MHD string is copied
 * into a struct request before use (docs/style.md MHD 1). */
#include "sim/sim_server.h"

#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "base/jsonw.h"
#include "base/log.h"
#include "base/request.h"
#include "sim/sim_authz.h"
#include "sim/sim_do_api.h"
#include "sim/sim_k8s_api.h"
#include "base/timeutil.h"
#include "base/xalloc.h"

struct sim_server {
    struct sim_server_options opt;
    struct MHD_Daemon *plain, *tls;
    uint16_t port, tls_port;
    atomic_bool stop;
    pthread_mutex_t rate_mu;
    int64_t minute_start_ms, minute_count;
    int64_t hour_start_ms, hour_count;
    int64_t do_requests, do_limited; /* counted DigitalOcean requests; of them answered 429 */
};

struct conn_state {
    bool https;
    struct buf body; /* a POST body (SelfSubjectAccessReview), capped */
};

#define SIM_MAX_BODY (64 * 1024)

static int64_t srv_now(void *ctx) {
    struct sim_server *s = ctx;
    return sim_clock_now(s->opt.clock);
}

/* --- helpers --- */

static bool token_ok(const char *auth, const char *want) {
    if (!auth || strncmp(auth, "Bearer ", 7) != 0)
        return false;
    const char *got = auth + 7;
    if (!*got)
        return false;
    if (!want)
        return true;
    size_t a = strlen(got), b = strlen(want);
    unsigned diff = (unsigned)(a ^ b);
    for (size_t i = 0; i < a && i < b; i++)
        diff |= (unsigned)(got[i] ^ want[i]);
    return diff == 0; /* constant time over the shorter length */
}

static bool sleep_unless_stopped(struct sim_server *s, int64_t ms) {
    int64_t end = sim_clock_real_ms() + ms;
    while (sim_clock_real_ms() < end) {
        if (atomic_load(&s->stop))
            return false;
        sim_clock_sleep_ms(20);
    }
    return true;
}

struct trunc_body {
    char *data;
    size_t len, cut;
};

static ssize_t trunc_read(void *cls, uint64_t pos, char *buf, size_t max) {
    struct trunc_body *t = cls;
    if (pos >= t->cut)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    size_t n = t->cut - (size_t)pos;
    if (n > max)
        n = max;
    memcpy(buf, t->data + pos, n);
    return (ssize_t)n;
}

static void trunc_free(void *cls) {
    struct trunc_body *t = cls;
    free(t->data);
    free(t);
}

struct watch_conn {
    struct sim_watch *wt;
    struct sim_watch_io io;
    struct sim_clock *clock; /* a paced clock's observer, one per open watch */
};

static ssize_t watch_read(void *cls, uint64_t pos, char *buf, size_t max) {
    (void)pos;
    struct watch_conn *wc = cls;
    ssize_t n = sim_watch_read(wc->wt, &wc->io, buf, max);
    if (n == -1)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (n < 0)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    return n;
}

static void watch_free(void *cls) {
    struct watch_conn *wc = cls;
    sim_clock_observer_off(wc->clock, (unsigned)sim_watch_kind(wc->wt));
    sim_watch_free(wc->wt);
    free(wc);
}

static void add_headers(struct MHD_Response *r, const struct response *resp, int64_t now) {
    char date[TIMEUTIL_HTTPDATE_MAX];
    timeutil_format_http_date(now, date);
    MHD_add_response_header(r, MHD_HTTP_HEADER_DATE, date);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, resp->content_type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    for (int i = 0; i < resp->nheaders; i++)
        MHD_add_response_header(r, resp->headers[i][0], resp->headers[i][1]);
}

static enum MHD_Result queue(struct MHD_Connection *conn, struct response *resp, int64_t now,
                             bool truncate) {
    struct MHD_Response *r;
    static char empty[1];
    if (truncate && resp->body.len > 1) {
        struct trunc_body *t = xcalloc(1, sizeof *t);
        t->data = buf_detach(&resp->body, &t->len);
        t->cut = t->len / 2;
        r = MHD_create_response_from_callback(t->len, 4096, trunc_read, t, trunc_free);
        if (!r)
            trunc_free(t);
    } else {
        r = MHD_create_response_from_buffer(
            resp->body.len, resp->body.data ? resp->body.data : empty, MHD_RESPMEM_MUST_COPY);
    }
    if (!r)
        return MHD_NO;
    add_headers(r, resp, now);
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)resp->status, r);
    MHD_destroy_response(r);
    return ret;
}

/* DigitalOcean's rate limit in real time. The headers describe the limit that
 * actually answers 429: the per-minute one when set (ratelimit-limit = requests
 * per minute, ratelimit-reset = the real Unix second the minute window ends),
 * else the hourly one. consume = false (a 401) reports without counting. */
static bool rate_check(struct sim_server *s, struct response *resp, bool consume) {
    int64_t real = sim_clock_real_ms();
    int limit_h = s->opt.rate_per_hour > 0 ? s->opt.rate_per_hour : 5000;
    pthread_mutex_lock(&s->rate_mu);
    if (real - s->minute_start_ms >= 60000) {
        s->minute_start_ms = real;
        s->minute_count = 0;
    }
    if (real - s->hour_start_ms >= 3600000) {
        s->hour_start_ms = real;
        s->hour_count = 0;
    }
    bool per_minute = s->opt.rate_per_minute > 0;
    bool over = per_minute && s->minute_count >= s->opt.rate_per_minute;
    if (!over && consume) {
        s->minute_count++;
        s->hour_count++;
    }
    if (consume) {
        s->do_requests++;
        s->do_limited += over;
    }
    int64_t limit = per_minute ? s->opt.rate_per_minute : limit_h;
    int64_t remaining = limit - (per_minute ? s->minute_count : s->hour_count);
    int64_t window_end_ms = per_minute ? s->minute_start_ms + 60000 : s->hour_start_ms + 3600000;
    int64_t reset_in = (window_end_ms - real + 999) / 1000;
    int64_t retry = (s->minute_start_ms + 60000 - real + 999) / 1000;
    pthread_mutex_unlock(&s->rate_mu);
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%lld", (long long)limit);
    response_header(resp, "ratelimit-limit", tmp);
    snprintf(tmp, sizeof tmp, "%lld", (long long)(remaining > 0 ? remaining : 0));
    response_header(resp, "ratelimit-remaining", tmp);
    snprintf(tmp, sizeof tmp, "%lld", (long long)(time(NULL) + reset_in));
    response_header(resp, "ratelimit-reset", tmp);
    if (over && consume) {
        snprintf(tmp, sizeof tmp, "%lld", (long long)(retry > 0 ? retry : 1));
        response_header(resp, "retry-after", tmp);
        sim_do_error(resp, 429, "too_many_requests", "API rate limit exceeded.");
        return false;
    }
    return true;
}

static void sim_status(struct sim_server *s, int64_t now, struct response *resp) {
    const struct sim_world *w = s->opt.world;
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    jsonw_ktime(&j, "now", now);
    jsonw_ktime(&j, "start", w->sc->start);
    jsonw_ktime(&j, "until", w->horizon);
    jsonw_kbool(&j, "done", now >= w->horizon);
    jsonw_kint(&j, "speed", s->opt.clock->speed);
    jsonw_kint(&j, "seed", (int64_t)w->seed);
    jsonw_kint(&j, "resource_version", sim_world_seq_at(w, now));
    jsonw_kstr(&j, "cluster_id", w->cluster_id);
    jsonw_kint(&j, "log_entries", w->nlog);
    pthread_mutex_lock(&s->rate_mu);
    jsonw_kint(&j, "do_requests", s->do_requests);
    jsonw_kint(&j, "do_rate_limited", s->do_limited);
    pthread_mutex_unlock(&s->rate_mu);
    if (s->opt.faults) {
        jsonw_key(&j, "faults_injected");
        jsonw_obj(&j);
        pthread_mutex_lock(&s->opt.faults->mu);
        for (int k = 0; k < SIM_FAULT_COUNT; k++)
            jsonw_kint(&j, sim_fault_name((enum sim_fault_kind)k), s->opt.faults->injected[k]);
        pthread_mutex_unlock(&s->opt.faults->mu);
        jsonw_obj_end(&j);
    }
    if (s->opt.clock->pace_cap_ns) { /* --pace-watches: how often, how long the clock stood */
        struct sim_clock_pace_stats ps = sim_clock_pace_stats(s->opt.clock);
        jsonw_key(&j, "pacing");
        jsonw_obj(&j);
        jsonw_kint(&j, "stands", ps.stands);
        jsonw_kint(&j, "stood_ms", ps.stood_ms);
        jsonw_kint(&j, "longest_ms", ps.longest_ms);
        jsonw_kint(&j, "capped", ps.capped);
        jsonw_kint(&j, "over_budget", ps.over_budget);
        jsonw_obj_end(&j);
    }
    jsonw_obj_end(&j);
}

/* A request the service account may not make (--deny-verb). */
static bool k8s_denied(const struct sim_authz *a, const struct request *req, const char *url) {
    if (!a || !a->n_verbs)
        return false;
    const char *w = request_param(req, "watch");
    char verb[16], res[64];
    bool watch = w && (strcmp(w, "1") == 0 || strcmp(w, "true") == 0);
    return sim_authz_k8s_request(url, watch, verb, res) && sim_authz_k8s_denied(a, verb, res);
}

static enum MHD_Result collect_param(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value) {
    (void)kind;
    request_add_param(cls, key, value);
    return MHD_YES;
}

/* The world a DigitalOcean request is about (sim_server_options.do_worlds). */
static const struct sim_world *do_world(const struct sim_server *s, const char *url) {
    static const char pre[] = "/v2/kubernetes/clusters/";
    if (s->opt.n_do_worlds <= 0 || strncmp(url, pre, sizeof pre - 1) != 0)
        return s->opt.world;
    const char *id = url + sizeof pre - 1;
    size_t n = strcspn(id, "/?");
    for (int i = 0; i < s->opt.n_do_worlds; i++) {
        const char *c = s->opt.do_worlds[i]->cluster_id;
        if (strlen(c) == n && strncmp(c, id, n) == 0)
            return s->opt.do_worlds[i];
    }
    return s->opt.world;
}

static enum MHD_Result handle(struct sim_server *s, struct MHD_Connection *conn,
                              struct conn_state *cs, const char *url, const char *method) {
    struct request req;
    request_init(&req);
    req.method = xstrdup(method);
    req.path = xstrdup(url);
    const char *auth =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (auth && strlen(auth) < 4096)
        req.authorization = xstrdup(auth);
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_param, &req);
    if (cs->body.len)
        buf_append(&req.body, cs->body.data, cs->body.len);
    const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    char base[300];
    snprintf(base, sizeof base, "%s://%s", cs->https ? "https" : "http",
             host && strlen(host) < 256 ? host : "127.0.0.1");

    struct response resp;
    response_init(&resp);
    bool is_do = strncmp(url, "/v2/", 4) == 0;
    bool is_k8s = sim_k8s_path(url);
    /* --hold: the first request for pods (list or watch) starts the clock, or
     * SIM_CLOCK_HOLD_AFTER_TOUCH_MS after the first Kubernetes request: a client
     * whose node informer asks first must not lose the pods of the first
     * simulated minutes (at --speed 4000 a second is an hour) */
    if (is_k8s) {
        size_t ul = strlen(url);
        if (ul >= 5 && strcmp(url + ul - 5, "/pods") == 0)
            sim_clock_release(s->opt.clock);
        else
            sim_clock_touch(s->opt.clock);
    }
    int64_t now = sim_clock_now(s->opt.clock);
    bool truncate = false;
    struct sim_watch *wt = NULL;
    if (strcmp(url, "/healthz") == 0) {
        resp.content_type = "text/plain";
        buf_puts(&resp.body, "ok\n");
    } else if (strcmp(url, "/sim/status") == 0) {
        sim_status(s, now, &resp);
    } else if (strcmp(url, "/sim/truth") == 0) {
        if (s->opt.truth_json)
            buf_puts(&resp.body, s->opt.truth_json);
        else
            response_error(&resp, 404, "not_found", "no ground truth");
        response_header(&resp, "X-Spotsim-Complete",
                        now >= s->opt.world->horizon ? "true" : "false");
    } else if (is_do || is_k8s) {
        bool authed = token_ok(req.authorization, is_do ? s->opt.do_token : s->opt.kube_token);
        struct sim_faults *f = s->opt.faults;
        if (!authed) {
            if (is_do) {
                rate_check(s, &resp, false);
                sim_do_error(&resp, 401, "unauthorized", "Unable to authenticate you.");
            } else
                sim_k8s_status(&resp, 401, "Unauthorized", "Unauthorized");
        } else if (is_k8s && sim_authz_is_ssar(method, url)) {
            resp.status = 201;
            resp.content_type = "application/json";
            if (sim_authz_ssar(s->opt.authz, req.body.data, req.body.len, &resp.body) != ERR_OK)
                sim_k8s_status(&resp, 400, "BadRequest", "not a SelfSubjectAccessReview");
        } else if (is_do && sim_authz_do_denied(s->opt.authz, url)) {
            rate_check(s, &resp, true);
            sim_do_error(&resp, 403, "forbidden",
                         "You are not authorized to perform this operation.");
        } else if (is_k8s && k8s_denied(s->opt.authz, &req, url)) {
            sim_k8s_status(&resp, 403, "Forbidden", "%s", "forbidden by spotsim --deny-verb");
        } else if (is_do && !rate_check(s, &resp, true)) {
            /* 429 already in resp */
        } else if (f && sim_fault_hit(f, SIM_FAULT_429)) {
            char ra[24];
            snprintf(ra, sizeof ra, "%lld", (long long)f->retry_after);
            response_header(&resp, "retry-after", ra);
            if (is_do)
                sim_do_error(&resp, 429, "too_many_requests", "API rate limit exceeded.");
            else
                sim_k8s_status(&resp, 429, "TooManyRequests",
                               "Too many requests, please try again later.");
        } else if (f && sim_fault_hit(f, SIM_FAULT_5XX)) {
            int code = sim_fault_pick(f, 2) ? 503 : 500;
            if (is_do)
                sim_do_error(&resp, code, code == 500 ? "server_error" : "service_unavailable",
                             code == 500 ? "Unexpected server-side error"
                                         : "The service is temporarily unavailable.");
            else
                sim_k8s_status(&resp, code, code == 500 ? "InternalError" : "ServiceUnavailable",
                               "injected failure");
        } else {
            if (f && sim_fault_hit(f, SIM_FAULT_SLOW) && !sleep_unless_stopped(s, f->slow_ms)) {
                response_release(&resp);
                request_release(&req);
                return MHD_NO;
            }
            now = sim_clock_now(s->opt.clock);
            if (is_do)
                sim_do_handle_account(do_world(s, url), s->opt.do_worlds, s->opt.n_do_worlds, &req,
                                      now, base, &resp);
            else
                sim_k8s_handle_accept(s->opt.world, &req, now, s->opt.retention, accept, &resp,
                                      &wt);
            truncate = !wt && resp.status == 200 && f && sim_fault_hit(f, SIM_FAULT_TRUNCATE);
        }
    } else {
        resp.status = 404;
        sim_do_error(&resp, 404, "not_found",
                     "The resource you were accessing could not be found.");
    }
    enum MHD_Result ret;
    if (wt) {
        struct watch_conn *wc = xcalloc(1, sizeof *wc);
        wc->wt = wt;
        wc->io = (struct sim_watch_io){srv_now, s, &s->stop, s->opt.faults, s->opt.bookmark_ms};
        wc->clock = s->opt.clock;
        sim_clock_observer_on(wc->clock, (unsigned)sim_watch_kind(wt));
        struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024,
                                                                   watch_read, wc, watch_free);
        if (!r) {
            watch_free(wc);
            ret = MHD_NO;
        } else {
            add_headers(r, &resp, now);
            ret = MHD_queue_response(conn, 200, r);
            MHD_destroy_response(r);
        }
    } else {
        ret = queue(conn, &resp, now, truncate);
    }
    log_msg(LOG_DEBUG, "sim: %s '%s' -> %d", method, url, resp.status);
    response_release(&resp);
    request_release(&req);
    return ret;
}

struct daemon_ctx {
    struct sim_server *s;
    bool https;
};

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls) {
    struct daemon_ctx *dc = cls;
    (void)version;
    if (!*con_cls) {
        struct conn_state *cs = xcalloc(1, sizeof *cs);
        cs->https = dc->https;
        buf_init(&cs->body, SIM_MAX_BODY);
        *con_cls = cs;
        return MHD_YES;
    }
    if (*upload_data_size) {
        /* kept for a SelfSubjectAccessReview; beyond the cap it is cut (then not JSON) */
        struct conn_state *cs = *con_cls;
        buf_append(&cs->body, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }
    return handle(dc->s, conn, *con_cls, url, method);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)conn;
    (void)toe;
    struct conn_state *cs = *con_cls;
    if (cs)
        buf_release(&cs->body);
    free(*con_cls);
    *con_cls = NULL;
}

static void mhd_logger(void *cls, const char *fmt, va_list ap) {
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    log_msg(LOG_DEBUG, "sim: libmicrohttpd: %s", line);
}

static struct MHD_Daemon *start_daemon(struct sim_server *s, uint16_t port, bool https,
                                       struct daemon_ctx *dc, uint16_t *bound) {
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    char ports[8];
    snprintf(ports, sizeof ports, "%u", (unsigned)port);
    int gai = getaddrinfo(s->opt.host, ports, &hints, &ai);
    if (gai != 0 || !ai) {
        log_msg(LOG_ERROR, "sim: cannot resolve '%s': %s", s->opt.host, gai_strerror(gai));
        return NULL;
    }
    dc->s = s;
    dc->https = https;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                     MHD_USE_ERROR_LOG | MHD_USE_SUPPRESS_DATE_NO_CLOCK | MHD_USE_POLL |
                     (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0) | (https ? MHD_USE_TLS : 0);
    struct MHD_Daemon *d;
    if (https)
        d = MHD_start_daemon(
            flags, port, NULL, NULL, on_request, dc, MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, s,
            MHD_OPTION_SOCK_ADDR, ai->ai_addr, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
            MHD_OPTION_CONNECTION_LIMIT, (unsigned)256, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
            s, MHD_OPTION_HTTPS_MEM_KEY, s->opt.tls->key_pem, MHD_OPTION_HTTPS_MEM_CERT,
            s->opt.tls->cert_pem, MHD_OPTION_END);
    else
        d = MHD_start_daemon(flags, port, NULL, NULL, on_request, dc, MHD_OPTION_EXTERNAL_LOGGER,
                             mhd_logger, s, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                             MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
                             MHD_OPTION_CONNECTION_LIMIT, (unsigned)256,
                             MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!d) {
        log_msg(LOG_ERROR, "sim: cannot listen on '%s' port %u%s", s->opt.host, (unsigned)port,
                https ? " (TLS)" : "");
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    *bound = info ? info->port : port;
    return d;
}

struct sim_server_storage {
    struct sim_server s;
    struct daemon_ctx plain, tls;
};

enum err sim_server_start(const struct sim_server_options *opt, struct sim_server **out) {
    struct sim_server_storage *st = xcalloc(1, sizeof *st);
    struct sim_server *s = &st->s;
    s->opt = *opt;
    atomic_store(&s->stop, false);
    pthread_mutex_init(&s->rate_mu, NULL);
    s->minute_start_ms = s->hour_start_ms = sim_clock_real_ms();
    s->plain = start_daemon(s, opt->port, false, &st->plain, &s->port);
    if (!s->plain)
        goto fail;
    if (opt->tls) {
        if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
            log_msg(LOG_ERROR, "sim: this libmicrohttpd has no TLS support");
            goto fail;
        }
        s->tls = start_daemon(s, opt->tls_port, true, &st->tls, &s->tls_port);
        if (!s->tls)
            goto fail;
    }
    *out = s;
    return ERR_OK;
fail:
    if (s->plain)
        MHD_stop_daemon(s->plain);
    pthread_mutex_destroy(&s->rate_mu);
    free(st);
    return ERR_IO;
}

uint16_t sim_server_port(const struct sim_server *s) {
    return s->port;
}

uint16_t sim_server_tls_port(const struct sim_server *s) {
    return s->tls_port;
}

void sim_server_stop(struct sim_server *s) {
    if (!s)
        return;
    atomic_store(&s->stop, true);
    if (s->tls)
        MHD_stop_daemon(s->tls);
    if (s->plain)
        MHD_stop_daemon(s->plain);
    pthread_mutex_destroy(&s->rate_mu);
    free(s); /* s is the first member of its storage struct */
}
