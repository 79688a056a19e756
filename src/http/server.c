/* server — see server.h. Per-request state is a struct conn_state hung on MHD's
 * con_cls (STYLE.md MHD 4) and freed by the completion callback, which also fires
 * on client aborts. */
#include "http/server.h"

#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "service/app.h"
#include "base/log.h"
#include "http/request.h"
#include "http/router.h"
#include "store/store.h"
#include "base/xalloc.h"

#define SERVER_MAX_URL 4096
#define SERVER_MAX_HEADER_AUTH 4096

struct server {
    struct MHD_Daemon *daemon;
    uint16_t port;
    char *db_path;
    size_t max_body;
    struct app *app;
    pthread_key_t db_key;
};

/* con_cls sentinels for a request whose URI is too long, or holds an encoded NUL
 * byte (see on_uri) */
static char uri_too_long, uri_has_nul;

struct conn_state {
    struct request req;
    int reject;             /* 400 / 413 / 414 decided early; 0 = fine */
    const char *reject_msg; /* static */
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
    } else {
        /* MUST_COPY: our buffer dies when this function returns (STYLE.md MHD 2) */
        static char empty[1];
        r = MHD_create_response_from_buffer(
            resp->body.len, resp->body.data ? resp->body.data : empty, MHD_RESPMEM_MUST_COPY);
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

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls) {
    struct server *srv = cls;
    struct conn_state *cs = *con_cls;
    (void)version;
    if (!cs || cs == (void *)&uri_too_long || cs == (void *)&uri_has_nul) {
        /* (a) headers only: set up the per-request state */
        bool too_long = cs == (void *)&uri_too_long, nul = cs == (void *)&uri_has_nul;
        cs = xcalloc(1, sizeof *cs);
        request_init(&cs->req);
        buf_init(&cs->req.body, srv->max_body);
        *con_cls = cs;
        if (too_long) {
            cs->reject = 414;
            cs->reject_msg = "the URL is too long";
        } else if (nul) {
            cs->reject = 400;
            cs->reject_msg = "the URL holds an encoded NUL byte (%00)";
        }
        const char *cl =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > srv->max_body) {
            cs->reject = 413;
            cs->reject_msg = "the request body is too large";
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        /* (b) a body chunk: accumulate under the cap, never queue here */
        if (!cs->reject && buf_append(&cs->req.body, upload_data, *upload_data_size) != ERR_OK) {
            cs->reject = 413;
            cs->reject_msg = "the request body is too large";
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    /* (c) complete */
    if (cs->reject == 414)
        return send_error(conn, 414, "uri_too_long", cs->reject_msg);
    if (cs->reject == 413)
        return send_error(conn, 413, "payload_too_large", cs->reject_msg);
    if (cs->reject == 400)
        return send_error(conn, 400, "bad_request", cs->reject_msg);

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

/* Marks a request whose full URI (path and query) is too long, or holds "%00":
 * MHD decodes the path and parameters into C strings, so an encoded NUL would
 * silently cut them short (/index.html%00.js would serve index.html, and
 * window=7d%00junk read as 7d). on_uri sees the raw URI before decoding; it runs
 * before the access handler and its return value becomes con_cls (microhttpd.h,
 * MHD_OPTION_URI_LOG_CALLBACK); it allocates nothing, because MHD may never call
 * the completion callback for a request it rejects on its own (e.g. 431). */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn) {
    (void)cls;
    (void)conn;
    if (strlen(uri) > SERVER_MAX_URL)
        return &uri_too_long;
    for (const char *p = strchr(uri, '%'); p; p = strchr(p + 1, '%'))
        if (p[1] == '0' && p[2] == '0')
            return &uri_has_nul;
    return NULL;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)conn;
    (void)toe;
    struct conn_state *cs = *con_cls;
    if (!cs || cs == (void *)&uri_too_long || cs == (void *)&uri_has_nul)
        return;
    request_release(&cs->req);
    free(cs);
    *con_cls = NULL;
}

static void mhd_logger(void *cls, const char *fmt, va_list ap) {
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    log_msg(LOG_WARN, "server: libmicrohttpd: %s", line);
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
    if (pthread_key_create(&srv->db_key, close_thread_db) != 0) {
        freeaddrinfo(ai);
        free(srv->db_path);
        free(srv);
        return ERR_NOMEM;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG | (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    unsigned threads = opt->threads ? opt->threads : 4;
    srv->daemon = MHD_start_daemon(
        flags, opt->port, NULL, NULL, on_request, srv, MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, srv,
        MHD_OPTION_SOCK_ADDR, ai->ai_addr, MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_CONNECTION_LIMIT, (unsigned)1024,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024), MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, srv, MHD_OPTION_URI_LOG_CALLBACK, on_uri, srv, MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!srv->daemon) {
        log_msg(LOG_ERROR, "server: cannot listen on '%s' port %u", opt->host, (unsigned)opt->port);
        pthread_key_delete(srv->db_key);
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
    MHD_stop_daemon(srv->daemon);
    if (s != MHD_INVALID_SOCKET)
        close(s);
    pthread_key_delete(srv->db_key);
    free(srv->db_path);
    free(srv);
}
