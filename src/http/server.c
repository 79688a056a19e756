/* server — see server.h. Per-request state is a struct conn_state hung on MHD's
 * con_cls (docs/style.md MHD 4) and freed by the completion callback, which also fires
 * on client aborts. Per-connection state is a struct tracked hung on MHD's
 * socket_context (MHD_OPTION_NOTIFY_CONNECTION), linked in srv->conns while the
 * connection is open, so the reaper thread can cut a connection that has not
 * delivered a whole request within the receive deadline: libmicrohttpd's own
 * timeout is an idle timeout that every received byte resets, so a client
 * trickling one byte a second would otherwise hold its slot forever. */
#include "http/server.h"

#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "service/app.h"
#include "base/log.h"
#include "base/request.h"
#include "http/router.h"
#include "store/store.h"
#include "base/xalloc.h"
#include "base/timeutil.h"

#define SERVER_MAX_HEADER_AUTH 4096
#define SERVER_REAP_EVERY_MS 100

struct tracked {
    struct tracked *prev, *next;
    MHD_socket fd;
    struct sockaddr_storage peer; /* getpeername at start: guards against fd reuse */
    socklen_t peer_len;
    int64_t since_ms; /* start of the request being received */
    bool receiving;   /* false while a received request is answered */
    bool cut;
};

struct server {
    struct MHD_Daemon *daemon;
    uint16_t port;
    char *db_path;
    size_t max_body;
    struct app *app;
    pthread_key_t db_key;
    unsigned max_connections, max_per_client, receive_timeout_ms;
    atomic_uint open;
    atomic_ullong refused, timed_out;
    pthread_mutex_t mu; /* conns, the tracked flags, stop */
    pthread_cond_t cond;
    struct tracked *conns;
    bool stop;
    pthread_t reaper;
    bool reaper_running;
};

/* con_cls sentinels for a request whose URI is too long, holds an encoded NUL
 * byte, or too many parameters (see on_uri) */
static char uri_too_long, uri_has_nul, uri_too_many_params;
_Static_assert(REQUEST_MAX_PARAMS == 32, "the too_many_parameters message says 32");

static bool is_sentinel(const void *cs) {
    return cs == &uri_too_long || cs == &uri_has_nul || cs == &uri_too_many_params;
}

static struct log_limit refused_log = LOG_LIMIT_INIT(10000, 1);
static struct log_limit cut_log = LOG_LIMIT_INIT(10000, 1);
static struct log_limit mhd_log = LOG_LIMIT_INIT(10000, 5);

struct conn_state {
    struct request req;
    int reject;              /* 400 / 413 / 414 decided early; 0 = fine */
    const char *reject_code; /* static, the JSON error code */
    const char *reject_msg;  /* static */
};

/* One read-only connection per MHD thread, closed when the thread exits. */
static void close_thread_db(void *p) {
    store_free(p);
}

static struct store *thread_db(struct server *srv) {
    struct store *db = pthread_getspecific(srv->db_key);
    if (db)
        return db;
    if (store_open(srv->db_path, STORE_READER, &db, NULL) != ERR_OK)
        return NULL;
    pthread_setspecific(srv->db_key, db);
    return db;
}

static enum MHD_Result collect_param(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value) {
    (void)kind;
    request_add_param(cls, key, value);
    return MHD_YES;
}

static enum MHD_Result send_response(struct MHD_Connection *conn, struct response *resp) {
    struct MHD_Response *r;
    if (resp->fd >= 0) {
        /* MHD takes ownership of the fd and closes it */
        r = MHD_create_response_from_fd64(resp->fd_len, resp->fd);
        if (r)
            resp->fd = -1;
    } else if (resp->body.data) {
        /* the body's malloc'd storage passes to MHD, which frees it: no copy of
         * the answer per request, and never a loan (docs/style.md MHD 2) */
        size_t len;
        char *body = buf_detach(&resp->body, &len);
        r = MHD_create_response_from_buffer_with_free_callback(len, body, free);
        if (!r)
            free(body);
    } else {
        static char empty[1];
        r = MHD_create_response_from_buffer(0, empty, MHD_RESPMEM_PERSISTENT);
    }
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, resp->content_type);
    for (int i = 0; i < resp->nheaders; i++)
        MHD_add_response_header(r, resp->headers[i][0], resp->headers[i][1]);
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)resp->status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_error(struct MHD_Connection *conn, int status, const char *code,
                                  const char *msg) {
    struct response resp;
    response_init(&resp);
    response_error(&resp, status, code, "%s", msg);
    router_security_headers(&resp);
    enum MHD_Result ret = send_response(conn, &resp);
    response_release(&resp);
    return ret;
}

/* The connection's struct tracked, or NULL. */
static struct tracked *tracked_of(struct MHD_Connection *conn) {
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

/* Starts (receiving = true) or stops the receive deadline of a connection. */
static void set_receiving(struct server *srv, struct MHD_Connection *conn, bool receiving) {
    struct tracked *t = tracked_of(conn);
    if (!t)
        return;
    pthread_mutex_lock(&srv->mu);
    t->receiving = receiving;
    t->since_ms = log_now_ms();
    pthread_mutex_unlock(&srv->mu);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls) {
    struct server *srv = cls;
    struct conn_state *cs = *con_cls;
    (void)version;
    if (!cs || is_sentinel(cs)) {
        /* (a) headers only: set up the per-request state */
        const void *mark = cs;
        cs = xcalloc(1, sizeof *cs);
        request_init(&cs->req);
        buf_init(&cs->req.body, srv->max_body);
        *con_cls = cs;
        if (mark == &uri_too_long) {
            cs->reject = 414;
            cs->reject_code = "uri_too_long";
            cs->reject_msg = "the URL is too long (at most 4096 bytes)";
        } else if (mark == &uri_has_nul) {
            cs->reject = 400;
            cs->reject_code = "bad_request";
            cs->reject_msg = "the URL holds an encoded NUL byte (%00)";
        } else if (mark == &uri_too_many_params) {
            cs->reject = 400;
            cs->reject_code = "too_many_parameters";
            cs->reject_msg = "at most 32 query parameters";
        }
        const char *cl =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > srv->max_body) {
            cs->reject = 413;
            cs->reject_code = "payload_too_large";
            cs->reject_msg = "the request body is too large";
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        /* (b) a body chunk: accumulate under the cap, never queue here */
        if (!cs->reject && buf_append(&cs->req.body, upload_data, *upload_data_size) != ERR_OK) {
            cs->reject = 413;
            cs->reject_code = "payload_too_large";
            cs->reject_msg = "the request body is too large";
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    /* (c) complete: the receive deadline no longer applies */
    set_receiving(srv, conn, false);
    if (cs->reject)
        return send_error(conn, cs->reject, cs->reject_code, cs->reject_msg);

    struct request *req = &cs->req;
    req->method = xstrdup(method);
    req->path = xstrdup(url);
    req->app = srv->app;
    req->now = (int64_t)time(NULL);
    const char *auth =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (auth && strlen(auth) < SERVER_MAX_HEADER_AUTH)
        req->authorization = xstrdup(auth);
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_param, req);
    req->db = thread_db(srv);

    struct response resp;
    response_init(&resp);
    router_handle(req, &resp);
    enum MHD_Result ret = send_response(conn, &resp);
    log_msg(LOG_DEBUG, "server: %s '%s' -> %d", method, url, resp.status);
    response_release(&resp);
    return ret;
}

/* Drops the query string of a request we reject anyway, so that libmicrohttpd
 * records none of its parameters. It stores each parameter in the connection's
 * fixed memory pool; about a thousand of them (a 7 KB URL) exhaust it, and
 * libmicrohttpd 0.9.75 then logs a 431 but never sends it and holds the
 * connection until the idle timeout. The URI handed to MHD_OPTION_URI_LOG_CALLBACK
 * is the request line in libmicrohttpd's own writable read buffer, and the query
 * is split off only after the callback returns, at the '?' it found before
 * ("log callback before we modify URI *or* args", parse_initial_message_line in
 * connection.c); ending the string right after the '?' leaves an empty query. */
static void drop_query(const char *uri) {
    char *q = strchr(uri, '?');
    if (q)
        q[1] = '\0';
}

/* Marks a request whose full URI (path and query) is too long, holds "%00", or
 * holds more query parameters than any route reads (REQUEST_MAX_PARAMS):
 * MHD decodes the path and parameters into C strings, so an encoded NUL would
 * silently cut them short (/index.html%00.js would serve index.html, and
 * window=7d%00junk read as 7d). on_uri sees the raw URI before decoding; it runs
 * before the access handler and its return value becomes con_cls (microhttpd.h,
 * MHD_OPTION_URI_LOG_CALLBACK); it allocates nothing, because MHD may never call
 * the completion callback for a request it rejects on its own (e.g. 431). */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn) {
    (void)cls;
    (void)conn;
    if (strlen(uri) > SERVER_MAX_URL) {
        drop_query(uri);
        return &uri_too_long;
    }
    const char *q = strchr(uri, '?');
    int params = q && q[1] ? 1 : 0;
    for (const char *p = q ? strchr(q, '&') : NULL; p; p = strchr(p + 1, '&'))
        params++;
    if (params > REQUEST_MAX_PARAMS) {
        drop_query(uri);
        return &uri_too_many_params;
    }
    for (const char *p = strchr(uri, '%'); p; p = strchr(p + 1, '%'))
        if (p[1] == '0' && p[2] == '0')
            return &uri_has_nul;
    return NULL;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
    (void)toe;
    /* the next request on a kept-alive connection has its own deadline */
    set_receiving(cls, conn, true);
    struct conn_state *cs = *con_cls;
    if (!cs || is_sentinel(cs))
        return;
    request_release(&cs->req);
    free(cs);
    *con_cls = NULL;
}

/* Accept policy: the total cap, checked before libmicrohttpd's own limit is
 * reached, so excess connections are refused at once (accepted and closed)
 * instead of waiting in the listen backlog, where libmicrohttpd leaves them once
 * at its limit. The per-client cap is libmicrohttpd's
 * MHD_OPTION_PER_IP_CONNECTION_LIMIT. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t len) {
    (void)addr;
    (void)len;
    struct server *srv = cls;
    if (atomic_load(&srv->open) < srv->max_connections)
        return MHD_YES;
    atomic_fetch_add(&srv->refused, 1);
    unsigned long dropped = 0;
    if (log_limit_take(&refused_log, log_now_ms(), &dropped))
        log_msg(LOG_WARN, "server: %u connections open, refusing more (%lu more refused before)",
                srv->max_connections, dropped);
    return MHD_NO;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code) {
    struct server *srv = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct tracked *t = xcalloc(1, sizeof *t);
        t->fd = ci ? ci->connect_fd : MHD_INVALID_SOCKET;
        t->peer_len = sizeof t->peer;
        if (t->fd == MHD_INVALID_SOCKET ||
            getpeername(t->fd, (struct sockaddr *)&t->peer, &t->peer_len) != 0)
            t->peer_len = 0;
        t->receiving = true;
        t->since_ms = log_now_ms();
        pthread_mutex_lock(&srv->mu);
        t->next = srv->conns;
        if (srv->conns)
            srv->conns->prev = t;
        srv->conns = t;
        pthread_mutex_unlock(&srv->mu);
        *socket_context = t;
        atomic_fetch_add(&srv->open, 1);
        return;
    }
    struct tracked *t = *socket_context;
    if (!t)
        return;
    pthread_mutex_lock(&srv->mu);
    if (t->prev)
        t->prev->next = t->next;
    else
        srv->conns = t->next;
    if (t->next)
        t->next->prev = t->prev;
    pthread_mutex_unlock(&srv->mu);
    free(t);
    *socket_context = NULL;
    atomic_fetch_sub(&srv->open, 1);
}

/* Whether fd is still the socket t was opened with (MHD closes a socket only
 * after the CLOSED notification, which waits for srv->mu; the peer check guards
 * anyway). */
static bool same_socket(const struct tracked *t) {
    struct sockaddr_storage now;
    socklen_t len = sizeof now;
    if (t->peer_len == 0 || getpeername(t->fd, (struct sockaddr *)&now, &len) != 0)
        return false;
    return len == t->peer_len && memcmp(&now, &t->peer, len) == 0;
}

/* Cuts connections past the receive deadline: shutdown() makes libmicrohttpd's
 * next read see the end of the stream, and it closes the connection itself. */
static void *reaper_main(void *arg) {
    struct server *srv = arg;
    pthread_mutex_lock(&srv->mu);
    while (!srv->stop) {
        struct timespec until = timeutil_mono_deadline(SERVER_REAP_EVERY_MS);
        pthread_cond_timedwait(&srv->cond, &srv->mu, &until);
        if (srv->stop)
            break;
        int64_t now = log_now_ms();
        unsigned cut = 0;
        for (struct tracked *t = srv->conns; t; t = t->next) {
            if (!t->receiving || t->cut || now - t->since_ms < srv->receive_timeout_ms)
                continue;
            t->cut = true;
            if (same_socket(t) && shutdown(t->fd, SHUT_RDWR) == 0)
                cut++;
        }
        if (cut) {
            atomic_fetch_add(&srv->timed_out, cut);
            unsigned long dropped = 0;
            if (log_limit_take(&cut_log, now, &dropped))
                log_msg(LOG_WARN,
                        "server: cut %u connection(s) that sent no whole request within %u ms "
                        "(%lu such lines suppressed before)",
                        cut, srv->receive_timeout_ms, dropped);
        }
    }
    pthread_mutex_unlock(&srv->mu);
    return NULL;
}

static void mhd_logger(void *cls, const char *fmt, va_list ap) {
    (void)cls;
    unsigned long dropped = 0;
    if (!log_enabled(LOG_WARN) || !log_limit_take(&mhd_log, log_now_ms(), &dropped))
        return;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    if (dropped)
        log_msg(LOG_WARN, "server: libmicrohttpd: %s (%lu earlier lines suppressed)", line,
                dropped);
    else
        log_msg(LOG_WARN, "server: libmicrohttpd: %s", line);
}

void server_counters(struct server *srv, uint64_t *refused, uint64_t *timed_out) {
    *refused = atomic_load(&srv->refused);
    *timed_out = atomic_load(&srv->timed_out);
}

enum err server_start(const struct server_options *opt, struct server **out) {
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    char port[8];
    snprintf(port, sizeof port, "%u", (unsigned)opt->port);
    int gai = getaddrinfo(opt->host, port, &hints, &ai);
    if (gai != 0 || !ai) {
        log_msg(LOG_ERROR, "server: cannot resolve '%s': %s", opt->host, gai_strerror(gai));
        return ERR_IO;
    }
    struct server *srv = xcalloc(1, sizeof *srv);
    srv->db_path = xstrdup(opt->db_path);
    srv->max_body = opt->max_body ? opt->max_body : 64 * 1024;
    srv->app = opt->app;
    srv->max_connections = opt->max_connections ? opt->max_connections : SERVER_MAX_CONNECTIONS;
    srv->max_per_client = opt->max_per_client ? opt->max_per_client : SERVER_MAX_PER_CLIENT;
    srv->receive_timeout_ms =
        opt->receive_timeout_ms ? opt->receive_timeout_ms : SERVER_RECEIVE_TIMEOUT_MS;
    pthread_mutex_init(&srv->mu, NULL);
    timeutil_mono_cond_init(&srv->cond);
    if (pthread_key_create(&srv->db_key, close_thread_db) != 0) {
        freeaddrinfo(ai);
        free(srv->db_path);
        free(srv);
        return ERR_NOMEM;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG | (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    unsigned threads = opt->threads ? opt->threads : 4;
    /* libmicrohttpd's own limit (split among the pool's threads) stays well above
     * ours, so on_accept refuses before any thread stops accepting */
    srv->daemon = MHD_start_daemon(
        flags, opt->port, on_accept, srv, on_request, srv, MHD_OPTION_EXTERNAL_LOGGER, mhd_logger,
        srv, MHD_OPTION_SOCK_ADDR, ai->ai_addr, MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVER_IDLE_TIMEOUT_S, MHD_OPTION_CONNECTION_LIMIT,
        2 * srv->max_connections + 64, MHD_OPTION_PER_IP_CONNECTION_LIMIT, srv->max_per_client,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024), MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, srv, MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, srv, MHD_OPTION_END);
    freeaddrinfo(ai);
    if (srv->daemon && pthread_create(&srv->reaper, NULL, reaper_main, srv) == 0)
        srv->reaper_running = true;
    else if (srv->daemon) {
        MHD_stop_daemon(srv->daemon);
        srv->daemon = NULL;
    }
    if (!srv->daemon) {
        log_msg(LOG_ERROR, "server: cannot listen on '%s' port %u", opt->host, (unsigned)opt->port);
        pthread_key_delete(srv->db_key);
        pthread_cond_destroy(&srv->cond);
        pthread_mutex_destroy(&srv->mu);
        free(srv->db_path);
        free(srv);
        return ERR_IO;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
    srv->port = info ? info->port : opt->port;
    *out = srv;
    return ERR_OK;
}

uint16_t server_port(const struct server *srv) {
    return srv->port;
}

void server_stop(struct server *srv, int grace_ms) {
    if (!srv)
        return;
    MHD_socket s = MHD_quiesce_daemon(srv->daemon);
    for (int waited = 0; waited < grace_ms; waited += 10) {
        const union MHD_DaemonInfo *info =
            MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
        if (!info || info->num_connections == 0)
            break;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&srv->mu);
    srv->stop = true;
    pthread_cond_broadcast(&srv->cond);
    pthread_mutex_unlock(&srv->mu);
    if (srv->reaper_running)
        pthread_join(srv->reaper, NULL);
    MHD_stop_daemon(srv->daemon);
    if (s != MHD_INVALID_SOCKET)
        close(s);
    pthread_key_delete(srv->db_key);
    pthread_cond_destroy(&srv->cond);
    pthread_mutex_destroy(&srv->mu);
    free(srv->db_path);
    free(srv);
}
