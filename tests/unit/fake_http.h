/* fake_http — an in-process libmicrohttpd server on 127.0.0.1, port 0, for the
 * tests of http_client and the DigitalOcean poller (docs/style.md 21).
 *
 * Routes are matched in order on "path" (any query) or "path?query" (exact);
 * a route with `times` > 0 is used that many times, then the next match applies
 * (e.g. a 500 once, then the fixture). Requests are recorded (URL, Authorization
 * presence/value match) under a mutex; nothing asserts in the MHD threads
 * (docs/style.md 22). Slow replies sleep in small steps and stop when the server stops,
 * so every wait is bounded. Header-only: every function is static and marked
 * unused so a test may use any subset. */
#ifndef SPOTLEDGER_TEST_FAKE_HTTP_H
#define SPOTLEDGER_TEST_FAKE_HTTP_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_MAX_ROUTES 64
#define FAKE_MAX_REQS 4096
#define FAKE_UNUSED __attribute__((unused))

struct fake_route {
    char path[256];
    int status;
    char *body; /* owned */
    size_t len;
    const char *content_type; /* default application/json */
    const char *hdr_name[4];
    const char *hdr_value[4];
    int delay_ms; /* before answering (bounded, interrupted by stop) */
    int times;    /* 0 = forever */
    int served;
    /* streaming: body is sent line by line with stream_gap_ms between lines */
    bool stream;
    int stream_gap_ms;
};

struct fake_server {
    struct MHD_Daemon *d;
    unsigned port;
    char base[64];
    pthread_mutex_t mu;
    struct fake_route routes[FAKE_MAX_ROUTES];
    int nroutes;
    const char *date; /* fixed Date header, NULL = MHD's own */
    const char *expect_token;
    atomic_int stopping;
    /* recorded */
    int nreq;
    char *urls[FAKE_MAX_REQS];
    int auth_ok;  /* requests carrying "Bearer <expect_token>" */
    int auth_bad; /* requests with another or no Authorization */
    int unmatched;
};

FAKE_UNUSED static void fake_sleep_ms(struct fake_server *f, int ms) {
    for (int i = 0; i < ms / 10 + 1 && !atomic_load(&f->stopping); i++) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

struct fake_arg_ctx {
    char *q;
    size_t cap;
    size_t len;
};

static enum MHD_Result fake_collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                        const char *value) {
    (void)kind;
    struct fake_arg_ctx *a = cls;
    int n = snprintf(a->q + a->len, a->cap - a->len, "%s%s%s%s", a->len ? "&" : "", key,
                     value ? "=" : "", value ? value : "");
    if (n > 0 && (size_t)n < a->cap - a->len)
        a->len += (size_t)n;
    return MHD_YES;
}

struct fake_stream {
    struct fake_server *f;
    const char *p;
    size_t left;
    int gap_ms;
    bool first;
};

static ssize_t fake_stream_read(void *cls, uint64_t pos, char *out, size_t max) {
    (void)pos;
    struct fake_stream *s = cls;
    if (!s->left || atomic_load(&s->f->stopping))
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (!s->first && s->gap_ms)
        fake_sleep_ms(s->f, s->gap_ms);
    s->first = false;
    const char *nl = memchr(s->p, '\n', s->left);
    size_t n = nl ? (size_t)(nl - s->p) + 1 : s->left;
    if (n > max)
        n = max;
    memcpy(out, s->p, n);
    s->p += n;
    s->left -= n;
    return (ssize_t)n;
}

static void fake_stream_free(void *cls) {
    free(cls);
}

static enum MHD_Result fake_handler(void *cls, struct MHD_Connection *conn, const char *url,
                                    const char *method, const char *version,
                                    const char *upload_data, size_t *upload_data_size,
                                    void **con_cls) {
    (void)method;
    (void)version;
    (void)upload_data;
    (void)upload_data_size;
    (void)con_cls;
    struct fake_server *f = cls;
    char q[512] = "";
    struct fake_arg_ctx a = {q, sizeof q, 0};
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, fake_collect_arg, &a);
    char full[800];
    snprintf(full, sizeof full, "%s%s%s", url, a.len ? "?" : "", q);
    const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");

    pthread_mutex_lock(&f->mu);
    if (f->nreq < FAKE_MAX_REQS)
        f->urls[f->nreq] = strdup(full);
    f->nreq++;
    if (f->expect_token) {
        char want[300];
        snprintf(want, sizeof want, "Bearer %s", f->expect_token);
        if (auth && strcmp(auth, want) == 0)
            f->auth_ok++;
        else
            f->auth_bad++;
    }
    struct fake_route *r = NULL;
    for (int i = 0; i < f->nroutes; i++) {
        struct fake_route *c = &f->routes[i];
        if (c->times && c->served >= c->times)
            continue;
        bool match = strchr(c->path, '?') ? strcmp(c->path, full) == 0 : strcmp(c->path, url) == 0;
        if (match) {
            r = c;
            c->served++;
            break;
        }
    }
    if (!r)
        f->unmatched++;
    int status = r ? r->status : 404;
    const char *body = r ? r->body : "{\"id\":\"not_found\",\"message\":\"no route\"}";
    size_t len = r ? r->len : strlen(body);
    int delay = r ? r->delay_ms : 0;
    bool stream = r && r->stream;
    int gap = r ? r->stream_gap_ms : 0;
    const char *ctype = r && r->content_type ? r->content_type : "application/json";
    const char *hn[4] = {0}, *hv[4] = {0};
    if (r)
        for (int i = 0; i < 4; i++) {
            hn[i] = r->hdr_name[i];
            hv[i] = r->hdr_value[i];
        }
    pthread_mutex_unlock(&f->mu);

    if (delay)
        fake_sleep_ms(f, delay);
    struct MHD_Response *resp;
    if (stream) {
        struct fake_stream *s = calloc(1, sizeof *s);
        s->f = f;
        s->p = body; /* routes outlive the daemon's connections */
        s->left = len;
        s->gap_ms = gap;
        s->first = true;
        resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024, fake_stream_read, s,
                                                 fake_stream_free);
    } else {
        resp = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    }
    MHD_add_response_header(resp, "Content-Type", ctype);
    if (f->date)
        MHD_add_response_header(resp, "Date", f->date);
    for (int i = 0; i < 4; i++)
        if (hn[i])
            MHD_add_response_header(resp, hn[i], hv[i]);
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return ret;
}

FAKE_UNUSED static int fake_start(struct fake_server *f) {
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->mu, NULL);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = 0;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    f->d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG, 0,
        NULL, NULL, fake_handler, f, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
        MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
    if (!f->d)
        return -1;
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(f->d, MHD_DAEMON_INFO_BIND_PORT);
    f->port = di ? di->port : 0;
    snprintf(f->base, sizeof f->base, "http://127.0.0.1:%u", f->port);
    return f->port ? 0 : -1;
}

FAKE_UNUSED static void fake_stop(struct fake_server *f) {
    atomic_store(&f->stopping, 1);
    if (f->d)
        MHD_stop_daemon(f->d);
    f->d = NULL;
    for (int i = 0; i < f->nroutes; i++)
        free(f->routes[i].body);
    for (int i = 0; i < f->nreq && i < FAKE_MAX_REQS; i++)
        free(f->urls[i]);
    pthread_mutex_destroy(&f->mu);
}

/* Adds a route with a body copied from text (NULL = empty). Returns the route to
 * tweak (headers, delay, times) before the first request. */
FAKE_UNUSED static struct fake_route *fake_route(struct fake_server *f, const char *path,
                                                 int status, const char *text) {
    pthread_mutex_lock(&f->mu);
    struct fake_route *r = &f->routes[f->nroutes++];
    memset(r, 0, sizeof *r);
    snprintf(r->path, sizeof r->path, "%s", path);
    r->status = status;
    r->body = strdup(text ? text : "");
    r->len = strlen(r->body);
    pthread_mutex_unlock(&f->mu);
    return r;
}

/* Removes every route (between poll rounds). */
FAKE_UNUSED static void fake_clear_routes(struct fake_server *f) {
    pthread_mutex_lock(&f->mu);
    for (int i = 0; i < f->nroutes; i++)
        free(f->routes[i].body);
    f->nroutes = 0;
    pthread_mutex_unlock(&f->mu);
}

FAKE_UNUSED static int fake_requests(struct fake_server *f) {
    pthread_mutex_lock(&f->mu);
    int n = f->nreq;
    pthread_mutex_unlock(&f->mu);
    return n;
}

/* A fake clock for http_client's sleep_ms/now_ms seams (their context is the
 * fake_clock): a sleep moves it on at once and is recorded (the first 256). */
struct fake_clock {
    int64_t now; /* ms */
    int sleeps;
    long waits[256];
    long total;
};

FAKE_UNUSED static void fake_clock_sleep(void *ctx, long ms) {
    struct fake_clock *c = ctx;
    if (c->sleeps < 256)
        c->waits[c->sleeps] = ms;
    c->sleeps++;
    c->total += ms;
    c->now += ms;
}

FAKE_UNUSED static int64_t fake_clock_now(void *ctx) {
    return ((struct fake_clock *)ctx)->now;
}

/* Reads a whole file (NUL-terminated); NULL if unreadable. Caller frees. */
FAKE_UNUSED static char *fake_read_file(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 4096, n = 0;
    char *p = malloc(cap);
    for (;;) {
        if (n + 1024 + 1 > cap) {
            cap *= 2;
            p = realloc(p, cap);
        }
        size_t r = fread(p + n, 1, cap - n - 1, fp);
        if (r == 0)
            break;
        n += r;
    }
    fclose(fp);
    p[n] = '\0';
    if (len)
        *len = n;
    return p;
}

/* Reads the fixture dir/name (NUL-terminated, its length in *len when len is not
 * NULL); a missing one fails the test (tests run from the repository root, where
 * the project's own fixtures are tests/fixtures/...). Caller frees. */
FAKE_UNUSED static char *fake_fixture(const char *dir, const char *name, size_t *len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *p = fake_read_file(path, len);
    if (!p)
        fail_msg("missing fixture %s (tests run from the repo root)", path);
    return p;
}

/* The most of the n ascending request times t (ms) that fall in any window ms
 * (to check a request budget, e.g. DigitalOcean's 250 a minute). */
static FAKE_UNUSED int max_in_window(const int64_t *t, int n, int64_t window) {
    int best = 0, lo = 0;
    for (int hi = 0; hi < n; hi++) {
        while (t[hi] - t[lo] >= window)
            lo++;
        if (hi - lo + 1 > best)
            best = hi - lo + 1;
    }
    return best;
}

#endif
