/* http_client — libcurl easy handle per thread, with pacing, retries, paging and
 * streaming. Invariants: every request goes through pace() first and is recorded
 * in the rate windows; the token is handed to curl only (CURLOPT_XOAUTH2_BEARER),
 * never formatted into any string of ours; resp->error never holds a body beyond
 * the short `id`/`message` of an error JSON. */
#include "source/http_client.h"

#include <ctype.h>
#include <curl/curl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/log.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "source/rate_window.h"

#ifndef SPOTLEDGER_VERSION
#define SPOTLEDGER_VERSION "dev"
#endif

#define BACKOFF_BASE_MS 500L
#define BACKOFF_MAX_MS 30000L
#define SERVER_WAIT_MAX_S 3600L
#define PACE_MAX_LOOPS 64

struct http_client {
    CURL *curl;
    struct http_client_options opt;
    char *ca_file, *client_cert, *client_key;
    char *user_agent;
    uint64_t requests;
    const char *post_body; /* http_client_post_json's body during that call, else NULL */
    struct rate_window minute, hour;
    int64_t last_request_ms;
    bool have_last;
    int64_t not_before_ms; /* from the server's rate-limit headers */
    uint64_t rng;
    char errbuf[CURL_ERROR_SIZE];
    /* failure and retry lines: a dead upstream must not flood the log
     * (README "Limits"); suppressed lines are counted in the next one */
    struct log_limit log;
};

#define HTTP_LOG_INTERVAL_MS 60000
#define HTTP_LOG_BURST 2

/* --- time and sleep hooks --------------------------------------------------------- */

static int64_t now_ms(struct http_client *c) {
    if (c->opt.now_ms)
        return c->opt.now_ms(c->opt.sleep_ctx);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(struct http_client *c, long ms) {
    if (ms <= 0)
        return;
    if (c->opt.sleep_ms) {
        c->opt.sleep_ms(c->opt.sleep_ctx, ms);
        return;
    }
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static bool cancelled(struct http_client *c) {
    return c->opt.cancelled && c->opt.cancelled(c->opt.sleep_ctx);
}

static uint64_t rng_next(struct http_client *c) {
    /* xorshift64*: jitter only, not security */
    uint64_t x = c->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    c->rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Waits until one more request is allowed, then records it. ERR_BUSY if cancelled. */
static enum err pace(struct http_client *c) {
    for (int loop = 0; loop < PACE_MAX_LOOPS; loop++) {
        if (cancelled(c))
            return ERR_BUSY;
        int64_t now = now_ms(c);
        int64_t wait = rate_window_wait(&c->minute, 60000, now);
        int64_t w = rate_window_wait(&c->hour, 3600000, now);
        if (w > wait)
            wait = w;
        if (c->have_last) {
            int64_t gap = 0;
            if (c->opt.rate_per_minute > 0)
                gap = 60000 / c->opt.rate_per_minute;
            if (c->opt.rate_per_hour > 0 &&
                rate_window_recent(&c->hour, 3600000, now) * 2 >= c->opt.rate_per_hour) {
                int64_t g = 3600000 / c->opt.rate_per_hour;
                if (g > gap)
                    gap = g;
            }
            if (c->last_request_ms + gap - now > wait)
                wait = c->last_request_ms + gap - now;
        }
        if (c->not_before_ms - now > wait)
            wait = c->not_before_ms - now;
        if (wait <= 0) {
            rate_window_push(&c->minute, now);
            rate_window_push(&c->hour, now);
            c->last_request_ms = now;
            c->have_last = true;
            c->requests++;
            return ERR_OK;
        }
        log_msg(LOG_DEBUG, "http: pacing, waiting %lld ms", (long long)wait);
        sleep_ms(c, (long)wait);
    }
    /* the clock hook does not advance: a programming error in a test */
    log_msg(LOG_ERROR, "http: pacing did not converge (clock not advancing?)");
    return ERR_BUSY;
}

/* Applies ratelimit-remaining / ratelimit-reset of a response. */
static void note_server_limits(struct http_client *c, const struct http_response *r) {
    if (r->ratelimit_remaining < 0 || r->ratelimit_reset <= 0 || r->date <= 0)
        return;
    int64_t secs = r->ratelimit_reset - r->date;
    if (secs < 0)
        secs = 0;
    if (secs > SERVER_WAIT_MAX_S)
        secs = SERVER_WAIT_MAX_S;
    int64_t until = 0;
    if (r->ratelimit_remaining == 0)
        until = now_ms(c) + secs * 1000;
    else if (r->ratelimit_remaining < 10)
        /* nearly out: one request per expiry of the oldest one */
        until = now_ms(c) + (secs > 0 ? secs * 1000 : 1000);
    if (until > c->not_before_ms) {
        c->not_before_ms = until;
        log_msg(LOG_INFO, "http: rate limit nearly used (%ld left), slowing down for %lld s",
                r->ratelimit_remaining, (long long)secs);
    }
}

/* --- lifecycle ------------------------------------------------------------------------ */

enum err http_client_new(const struct http_client_options *opt, struct http_client **out) {
    CURL *curl = curl_easy_init();
    if (!curl) {
        log_msg(LOG_ERROR, "http: curl_easy_init failed");
        return ERR_NOMEM;
    }
    struct http_client *c = xcalloc(1, sizeof *c);
    pthread_mutex_init(&c->log.mu, NULL);
    c->log.interval_ms = HTTP_LOG_INTERVAL_MS;
    c->log.burst = HTTP_LOG_BURST;
    c->curl = curl;
    if (opt)
        c->opt = *opt;
    if (c->opt.connect_timeout_ms <= 0)
        c->opt.connect_timeout_ms = 5000;
    if (c->opt.timeout_ms <= 0)
        c->opt.timeout_ms = 30000;
    if (c->opt.max_response == 0)
        c->opt.max_response = 64u * 1024 * 1024;
    if (!opt)
        c->opt.max_retries = 4;
    if (c->opt.max_retries < 0)
        c->opt.max_retries = 0;
    c->ca_file = c->opt.ca_file ? xstrdup(c->opt.ca_file) : NULL;
    c->client_cert = c->opt.client_cert ? xstrdup(c->opt.client_cert) : NULL;
    c->client_key = c->opt.client_key ? xstrdup(c->opt.client_key) : NULL;
    c->user_agent =
        xstrdup(c->opt.user_agent ? c->opt.user_agent : "spotledger/" SPOTLEDGER_VERSION);
    c->opt.ca_file = c->ca_file;
    c->opt.user_agent = c->user_agent;
    c->opt.client_cert = c->client_cert;
    c->opt.client_key = c->client_key;
    rate_window_init(&c->minute, c->opt.rate_per_minute);
    rate_window_init(&c->hour, c->opt.rate_per_hour);
    c->rng = (uint64_t)(uintptr_t)c ^ (uint64_t)time(NULL) ^ 0x9E3779B97F4A7C15ULL;
    if (!c->rng)
        c->rng = 1;
    *out = c;
    return ERR_OK;
}

void http_client_free(struct http_client *c) {
    if (!c)
        return;
    curl_easy_cleanup(c->curl);
    pthread_mutex_destroy(&c->log.mu);
    free(c->ca_file);
    free(c->client_cert);
    free(c->client_key);
    free(c->user_agent);
    rate_window_release(&c->minute);
    rate_window_release(&c->hour);
    free(c);
}

uint64_t http_client_requests(const struct http_client *c) {
    return c->requests;
}

void http_response_init(struct http_response *r) {
    memset(r, 0, sizeof *r);
    buf_init(&r->body, 0);
    r->retry_after = -1;
    r->ratelimit_remaining = -1;
}

void http_response_release(struct http_response *r) {
    buf_release(&r->body);
}

/* Forgets what the response headers said. */
static void headers_reset(struct http_response *r) {
    r->date = 0;
    r->date_mono_ms = 0;
    r->retry_after = -1;
    r->ratelimit_remaining = -1;
    r->ratelimit_reset = 0;
    r->content_type[0] = '\0';
}

/* Clears per-attempt fields; keeps the body storage. */
static void response_reset(struct http_response *r, size_t max) {
    buf_reset(&r->body);
    r->body.max = max;
    r->status = 0;
    headers_reset(r);
    r->error[0] = '\0';
}

/* --- curl callbacks ------------------------------------------------------------------- */

struct xfer {
    struct http_client *c;
    struct http_response *resp;
    bool toobig;
    /* streaming */
    bool streaming;
    bool stream_ok; /* status known to be 2xx */
    bool status_known;
    bool stopped;
    struct buf line;
    bool (*on_line)(void *ctx, const char *line, size_t len);
    void *ctx;
    int64_t last_data_ms; /* real monotonic clock: curl's transfer is real */
    long idle_ms;
    bool idle;
    bool cancel; /* the cancel hook asked to stop */
};

/* curl calls this at least about once a second, also while idle
 * (CURLOPT_XFERINFOFUNCTION.md); non-zero aborts with CURLE_ABORTED_BY_CALLBACK.
 * Used instead of CURLOPT_LOW_SPEED_TIME, whose speed is averaged over seconds of
 * earlier traffic and so misses a stream that went quiet after a burst. */
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow) {
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    struct xfer *x = ud;
    if (x->idle_ms > 0 && timeutil_mono_ms() - x->last_data_ms > x->idle_ms) {
        x->idle = true;
        return 1;
    }
    /* a stop request ends a long watch at once instead of at its next event */
    if (x->streaming && cancelled(x->c)) {
        x->cancel = true;
        return 1;
    }
    return 0;
}

static bool header_is(const char *p, size_t n, const char *name, const char **val, size_t *vlen) {
    size_t k = strlen(name);
    if (n <= k || strncasecmp(p, name, k) != 0 || p[k] != ':')
        return false;
    const char *v = p + k + 1;
    const char *e = p + n;
    while (v < e && (*v == ' ' || *v == '\t'))
        v++;
    while (e > v && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t'))
        e--;
    *val = v;
    *vlen = (size_t)(e - v);
    return true;
}

static bool parse_long(const char *v, size_t n, long long *out) {
    char tmp[32];
    if (n == 0 || n >= sizeof tmp)
        return false;
    memcpy(tmp, v, n);
    tmp[n] = '\0';
    char *end = NULL;
    long long x = strtoll(tmp, &end, 10);
    if (end == tmp || *end != '\0' || x < 0)
        return false;
    *out = x;
    return true;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud) {
    struct xfer *x = ud;
    struct http_response *r = x->resp;
    size_t n = size * nmemb;
    if (x->streaming)
        x->last_data_ms = timeutil_mono_ms();
    const char *v;
    size_t vn;
    long long num;
    char tmp[64];
    if (n >= 5 && strncmp(p, "HTTP/", 5) == 0) {
        /* a new response (e.g. after 100 Continue): forget the previous headers */
        headers_reset(r);
    } else if (header_is(p, n, "date", &v, &vn)) {
        if (vn < sizeof tmp) {
            memcpy(tmp, v, vn);
            tmp[vn] = '\0';
            int64_t t;
            if (timeutil_parse_http_date(tmp, &t) == ERR_OK) {
                r->date = t;
                r->date_mono_ms = timeutil_mono_ms();
            }
        }
    } else if (header_is(p, n, "retry-after", &v, &vn)) {
        /* the delay-seconds form only; an HTTP-date falls back to reset/backoff */
        if (parse_long(v, vn, &num))
            r->retry_after = num > SERVER_WAIT_MAX_S ? SERVER_WAIT_MAX_S : (long)num;
    } else if (header_is(p, n, "ratelimit-remaining", &v, &vn)) {
        if (parse_long(v, vn, &num))
            r->ratelimit_remaining = num > 1000000000 ? 1000000000 : (long)num;
    } else if (header_is(p, n, "ratelimit-reset", &v, &vn)) {
        if (parse_long(v, vn, &num))
            r->ratelimit_reset = (int64_t)num;
    } else if (header_is(p, n, "content-type", &v, &vn)) {
        if (vn >= sizeof r->content_type)
            vn = sizeof r->content_type - 1;
        memcpy(r->content_type, v, vn);
        r->content_type[vn] = '\0';
    }
    return n;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud) {
    struct xfer *x = ud;
    size_t n = size * nmemb;
    if (x->streaming)
        x->last_data_ms = timeutil_mono_ms();
    if (x->streaming && !x->status_known) {
        long st = 0;
        curl_easy_getinfo(x->c->curl, CURLINFO_RESPONSE_CODE, &st);
        x->status_known = true;
        x->stream_ok = st >= 200 && st < 300;
    }
    if (!x->streaming || !x->stream_ok) {
        if (buf_append(&x->resp->body, p, n) != ERR_OK) {
            x->toobig = true;
            return 0; /* CURLE_WRITE_ERROR (CURLOPT_WRITEFUNCTION.md) */
        }
        return n;
    }
    size_t i = 0;
    while (i < n) {
        const char *nl = memchr(p + i, '\n', n - i);
        size_t chunk = nl ? (size_t)(nl - (p + i)) : n - i;
        if (buf_append(&x->line, p + i, chunk) != ERR_OK) {
            x->toobig = true;
            return 0;
        }
        i += chunk;
        if (!nl)
            break;
        i++; /* the newline */
        size_t len = x->line.len;
        if (len && x->line.data[len - 1] == '\r')
            x->line.data[--len] = '\0';
        bool more = x->on_line(x->ctx, len ? x->line.data : "", len);
        buf_reset(&x->line);
        if (!more) {
            x->stopped = true;
            return 0;
        }
    }
    return n;
}

/* --- one attempt ------------------------------------------------------------------- */

static void setup(struct http_client *c, const char *url, const char *token, struct xfer *x,
                  struct curl_slist *hdrs) {
    CURL *h = c->curl;
    /* options are sticky (curl_easy_setopt.md): start clean; the connection cache stays */
    curl_easy_reset(h);
    c->errbuf[0] = '\0';
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->opt.connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
    curl_easy_setopt(h, CURLOPT_USERAGENT, c->user_agent);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
    if (c->ca_file)
        curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
    if (c->post_body)
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, c->post_body); /* not copied: outlives the call */
    if (c->client_cert && c->client_key) {
        /* files, not the _BLOB options: GnuTLS is not among their backends
         * (CURLOPT_SSLCERT_BLOB.md, CURLOPT_SSLKEY_BLOB.md, CURLOPT_CAINFO_BLOB.md) */
        curl_easy_setopt(h, CURLOPT_SSLCERT, c->client_cert);
        curl_easy_setopt(h, CURLOPT_SSLKEY, c->client_key);
    }
    if (c->opt.insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (token) {
        /* curl copies the string; it never appears in our logs or errors */
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
        curl_easy_setopt(h, CURLOPT_XOAUTH2_BEARER, token);
    }
}

/* Performs one GET; returns the status (0: transport failure, text in resp->error). */
static long attempt(struct http_client *c, const char *url, const char *token,
                    struct http_response *resp, bool *toobig) {
    *toobig = false;
    response_reset(resp, c->opt.max_response);
    if (c->opt.transport) {
        long st = c->opt.transport(c->opt.transport_ctx, url, resp);
        resp->status = st;
        if (st == 0 && !resp->error[0])
            snprintf(resp->error, sizeof resp->error, "transport error");
        return st;
    }
    struct xfer x = {.c = c, .resp = resp};
    struct curl_slist *hdrs = curl_slist_append(NULL, "Accept: application/json");
    if (c->post_body)
        hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
    setup(c, url, token, &x, hdrs);
    curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, c->opt.timeout_ms);
    CURLcode cc = curl_easy_perform(c->curl);
    curl_slist_free_all(hdrs);
    long st = 0;
    if (cc == CURLE_OK) {
        curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &st);
        resp->status = st;
        return st;
    }
    if (x.toobig) {
        *toobig = true;
        snprintf(resp->error, sizeof resp->error, "response larger than %zu bytes",
                 c->opt.max_response);
        return 0;
    }
    snprintf(resp->error, sizeof resp->error, "%.100s%s%.140s", curl_easy_strerror(cc),
             c->errbuf[0] ? ": " : "", c->errbuf);
    return 0;
}

/* Copies a short printable excerpt of an error JSON's id/message (never the whole
 * body) into out. */
static void error_detail(const struct http_response *r, char *out, size_t cap) {
    out[0] = '\0';
    if (!r->body.len)
        return;
    json_object *o = json_tokener_parse(buf_str(&r->body));
    json_object *id = NULL, *msg = NULL;
    if (o && json_object_is_type(o, json_type_object)) {
        json_object_object_get_ex(o, "id", &id);
        json_object_object_get_ex(o, "message", &msg);
        if (!msg)
            json_object_object_get_ex(o, "reason", &msg); /* Kubernetes Status */
    }
    const char *ids =
        id && json_object_is_type(id, json_type_string) ? json_object_get_string(id) : "";
    const char *ms =
        msg && json_object_is_type(msg, json_type_string) ? json_object_get_string(msg) : "";
    if (*ids || *ms)
        snprintf(out, cap, " (%s%s%.120s)", ids, *ids && *ms ? ": " : "", ms);
    for (char *p = out; *p; p++)
        if (!isprint((unsigned char)*p))
            *p = '?';
    json_object_put(o);
}

static enum err map_status(long st, const char *scope, struct http_response *r) {
    char detail[160];
    if (st >= 200 && st < 300)
        return ERR_OK;
    error_detail(r, detail, sizeof detail);
    enum err e = ERR_HTTP;
    if (st == 401 || st == 403) {
        e = ERR_AUTH;
        if (scope)
            snprintf(r->error, sizeof r->error,
                     "HTTP %ld%s: the token is missing or lacks the '%s' scope", st, detail, scope);
        else
            snprintf(r->error, sizeof r->error, "HTTP %ld%s: the token was refused", st, detail);
        return e;
    }
    if (st == 404)
        e = ERR_NOTFOUND;
    else if (st == 410)
        e = ERR_GONE;
    else if (st == 429)
        e = ERR_BUSY;
    snprintf(r->error, sizeof r->error, "HTTP %ld%s", st, detail);
    return e;
}

static long backoff_ms(struct http_client *c, int retry) {
    long base = BACKOFF_BASE_MS;
    for (int i = 0; i < retry && base < BACKOFF_MAX_MS; i++)
        base *= 2;
    if (base > BACKOFF_MAX_MS)
        base = BACKOFF_MAX_MS;
    /* "equal jitter": half fixed, half random */
    return base / 2 + (long)(rng_next(c) % (uint64_t)(base / 2 + 1));
}

static void log_failure(struct http_client *c, const char *url, enum err e,
                        const struct http_response *r) {
    enum log_level lv = (e == ERR_NOTFOUND || e == ERR_GONE) ? LOG_INFO : LOG_WARN;
    unsigned long dropped = 0;
    if (log_enabled(lv) && log_limit_take(&c->log, log_now_ms(), &dropped))
        log_msg(lv, "http: GET '%s' failed: %s (%lu similar lines suppressed before)", url,
                r->error[0] ? r->error : err_str(e), dropped);
}

enum err http_client_post_json(struct http_client *c, const char *url, const char *token,
                               const char *body, struct http_response *resp) {
    c->post_body = body;
    enum err rc = http_client_get(c, url, token, NULL, resp);
    c->post_body = NULL;
    return rc;
}

enum err http_client_get(struct http_client *c, const char *url, const char *token,
                         const char *scope, struct http_response *resp) {
    resp->attempts = 0;
    enum err e = ERR_HTTP;
    for (int retry = 0;; retry++) {
        if ((e = pace(c)) != ERR_OK) {
            response_reset(resp, c->opt.max_response);
            snprintf(resp->error, sizeof resp->error, "cancelled");
            return e;
        }
        bool toobig;
        long st = attempt(c, url, token, resp, &toobig);
        resp->attempts++;
        if (st)
            note_server_limits(c, resp);
        if (toobig) {
            e = ERR_TOOBIG;
            break;
        }
        if (st >= 200 && st < 300)
            return ERR_OK;
        bool retryable = st == 0 || st == 429 || st >= 500;
        e = st ? map_status(st, scope, resp) : ERR_HTTP;
        if (!retryable || retry >= c->opt.max_retries)
            break;
        long wait = backoff_ms(c, retry);
        if (st == 429) {
            if (resp->retry_after >= 0)
                wait = resp->retry_after * 1000L;
            else if (resp->ratelimit_reset > 0 && resp->date > 0 &&
                     resp->ratelimit_reset > resp->date)
                wait = (long)(resp->ratelimit_reset - resp->date) * 1000L;
            if (wait > SERVER_WAIT_MAX_S * 1000L)
                wait = SERVER_WAIT_MAX_S * 1000L;
            if (wait < 1000)
                wait = 1000;
        }
        unsigned long dropped = 0;
        if (log_enabled(LOG_INFO) && log_limit_take(&c->log, log_now_ms(), &dropped))
            log_msg(LOG_INFO,
                    "http: GET '%s': %s; retry %d/%d in %ld ms (%lu similar lines suppressed "
                    "before)",
                    url, resp->error[0] ? resp->error : "error", retry + 1, c->opt.max_retries,
                    wait, dropped);
        sleep_ms(c, wait);
    }
    log_failure(c, url, e, resp);
    return e;
}

/* --- paging ---------------------------------------------------------------------------- */

/* Length of "scheme://authority" of url, 0 if it has none. */
static size_t origin_len(const char *url) {
    const char *p = strstr(url, "://");
    if (!p)
        return 0;
    p += 3;
    size_t n = strcspn(p, "/?#");
    return (size_t)(p + n - url);
}

/* next rebased onto base's origin (path and query kept). Caller frees. */
static char *rebase(const char *base, const char *next) {
    size_t bo = origin_len(base);
    const char *path = next;
    size_t no = origin_len(next);
    if (no) {
        if (no == bo && strncasecmp(base, next, bo) == 0)
            return xstrdup(next);
        path = next + no;
    }
    struct buf b;
    buf_init(&b, 0);
    buf_append(&b, base, bo);
    if (*path != '/')
        buf_putc(&b, '/');
    buf_puts(&b, path);
    return buf_detach(&b, NULL);
}

static uint64_t fnv1a(const char *p, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

enum err http_client_get_pages(struct http_client *c, const char *url, const char *token,
                               const char *scope, int max_pages,
                               enum err (*on_page)(void *ctx, const struct http_response *resp,
                                                   char **next),
                               void *ctx, struct http_response *resp, int64_t *first_date) {
    char **seen = xcalloc((size_t)(max_pages > 0 ? max_pages : 1), sizeof *seen);
    int nseen = 0;
    char *cur = xstrdup(url);
    uint64_t prev_hash = 0;
    size_t prev_len = 0;
    enum err e = ERR_OK;
    int64_t date0 = 0;
    for (;;) {
        if (nseen >= max_pages) {
            snprintf(resp->error, sizeof resp->error, "more than %d pages", max_pages);
            log_msg(LOG_WARN, "http: GET '%s' stopped: %s", url, resp->error);
            free(cur);
            e = ERR_TOOBIG;
            break;
        }
        for (int i = 0; i < nseen; i++) {
            if (strcmp(seen[i], cur) == 0) {
                snprintf(resp->error, sizeof resp->error, "pagination loop at page %d", nseen + 1);
                log_msg(LOG_WARN, "http: GET '%s' stopped: %s", cur, resp->error);
                free(cur);
                e = ERR_PARSE;
                goto out;
            }
        }
        seen[nseen++] = cur;
        if ((e = http_client_get(c, cur, token, scope, resp)) != ERR_OK)
            break;
        if (nseen == 1)
            date0 = resp->date;
        uint64_t h = fnv1a(resp->body.data ? resp->body.data : "", resp->body.len);
        if (nseen > 1 && h == prev_hash && resp->body.len == prev_len) {
            snprintf(resp->error, sizeof resp->error, "pagination loop: page %d repeats", nseen);
            log_msg(LOG_WARN, "http: GET '%s' stopped: %s", cur, resp->error);
            e = ERR_PARSE;
            break;
        }
        prev_hash = h;
        prev_len = resp->body.len;
        char *next = NULL;
        if ((e = on_page(ctx, resp, &next)) != ERR_OK) {
            free(next);
            break;
        }
        if (!next)
            break;
        cur = rebase(url, next);
        free(next);
    }
out:
    for (int i = 0; i < nseen; i++)
        free(seen[i]);
    free(seen);
    if (e == ERR_OK && first_date)
        *first_date = date0;
    return e;
}

/* --- streaming ------------------------------------------------------------------------- */

enum err http_client_stream(struct http_client *c, const char *url, const char *token,
                            long idle_timeout_ms, size_t max_line,
                            bool (*on_line)(void *ctx, const char *line, size_t len), void *ctx,
                            struct http_response *resp) {
    response_reset(resp, c->opt.max_response);
    resp->attempts = 0;
    enum err e = pace(c);
    if (e != ERR_OK) {
        snprintf(resp->error, sizeof resp->error, "cancelled");
        return e;
    }
    resp->attempts = 1;
    struct xfer x = {.c = c, .resp = resp, .streaming = true, .on_line = on_line, .ctx = ctx};
    buf_init(&x.line, max_line);
    struct curl_slist *hdrs = curl_slist_append(NULL, "Accept: application/json");
    setup(c, url, token, &x, hdrs);
    x.idle_ms = idle_timeout_ms > 0 ? idle_timeout_ms : 60000;
    x.last_data_ms = timeutil_mono_ms();
    curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, 0L);
    curl_easy_setopt(c->curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c->curl, CURLOPT_XFERINFODATA, &x);
    CURLcode cc = curl_easy_perform(c->curl);
    curl_slist_free_all(hdrs);
    long st = 0;
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &st);
    resp->status = st;
    if (st)
        note_server_limits(c, resp);
    if (x.stopped) {
        e = ERR_OK;
    } else if (x.cancel) {
        e = ERR_BUSY;
        snprintf(resp->error, sizeof resp->error, "cancelled");
    } else if (x.toobig) {
        e = ERR_TOOBIG;
        snprintf(resp->error, sizeof resp->error, "%s larger than %zu bytes",
                 x.stream_ok ? "line" : "response", x.stream_ok ? max_line : c->opt.max_response);
    } else if (x.idle) {
        e = ERR_HTTP;
        snprintf(resp->error, sizeof resp->error, "stream idle for more than %ld ms", x.idle_ms);
    } else if (cc != CURLE_OK) {
        e = ERR_HTTP;
        snprintf(resp->error, sizeof resp->error, "%.100s%s%.140s", curl_easy_strerror(cc),
                 c->errbuf[0] ? ": " : "", c->errbuf);
    } else {
        e = map_status(st, NULL, resp);
    }
    buf_release(&x.line);
    if (e != ERR_OK && !x.cancel)
        log_failure(c, url, e, resp);
    return e;
}

/* --- escaping ---------------------------------------------------------------------------- */

char *http_client_escape(const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    struct buf b;
    buf_init(&b, 0);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' || *p == '~') {
            buf_putc(&b, (char)*p);
        } else {
            char t[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            buf_append(&b, t, 3);
        }
    }
    return buf_detach(&b, NULL);
}
