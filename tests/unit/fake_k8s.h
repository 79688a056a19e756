/* fake_k8s — what the watcher tests and their own fake Kubernetes API servers
 * share (header only, after cmocka.h): the resources by URL suffix, the 410 Status
 * body, a JSON reply, a libmicrohttpd daemon on 127.0.0.1, port 0 (loopback only),
 * and a figure read back from the watcher's database. Each test
 * keeps its own answer (struct fk_daemon): what the fake answers is the test. */
#ifndef SPOTLEDGER_TEST_FAKE_K8S_H
#define SPOTLEDGER_TEST_FAKE_K8S_H

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { R_JOBS, R_PODS, R_NODES, R_EVENTS, R_PDBS, R_N };

static const char STATUS_410[] =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
    "\"message\":\"too old resource version\",\"reason\":\"Expired\",\"code\":410}";

/* The resource (R_*) a request URL ends with, -1 for none. */
static inline int res_of(const char *url) {
    size_t n = strlen(url);
    const char *ends[R_N] = {"/jobs", "/pods", "/nodes", "/events", "/poddisruptionbudgets"};
    for (int i = 0; i < R_N; i++) {
        size_t k = strlen(ends[i]);
        if (n >= k && strcmp(url + n - k, ends[i]) == 0)
            return i;
    }
    return -1;
}

/* Queues body (copied) with status, as application/json. */
static inline enum MHD_Result fk_queue(struct MHD_Connection *c, int status, const char *body) {
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

/* A test's fake server: the daemon, its base URL "http://127.0.0.1:PORT", and what
 * it answers a request: answer(cls, c, res, is_watch), given the resource the URL
 * ends with (R_*, -1 for none) and whether the request asks to watch (?watch=1);
 * anything else the answer reads from c. */
struct fk_daemon {
    struct MHD_Daemon *d;
    char base[64];
    enum MHD_Result (*answer)(void *cls, struct MHD_Connection *c, int res, bool is_watch);
    void *cls;
};

/* The daemon's handler: works out res and is_watch and calls the answer (cls is
 * the struct fk_daemon). */
static inline enum MHD_Result fk_dispatch(void *cls, struct MHD_Connection *c, const char *url,
                                          const char *method, const char *version,
                                          const char *upload, size_t *upload_size, void **con_cls) {
    (void)method;
    (void)version;
    (void)upload;
    (void)upload_size;
    (void)con_cls;
    const struct fk_daemon *s = cls;
    const char *watch = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "watch");
    return s->answer(s->cls, c, res_of(url), watch && strcmp(watch, "1") == 0);
}

/* Starts s answering with answer(cls, ...) (thread per connection, 10 s connection
 * timeout) on 127.0.0.1, port 0, and writes its base URL; 0, or -1 when it does
 * not start. s must outlive the daemon (fk_unlisten). */
static inline int fk_listen(struct fk_daemon *s,
                            enum MHD_Result (*answer)(void *cls, struct MHD_Connection *c, int res,
                                                      bool is_watch),
                            void *cls) {
    s->answer = answer;
    s->cls = cls;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0,
                            NULL, NULL, fk_dispatch, s, MHD_OPTION_SOCK_ADDR, &sa,
                            MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
    if (!s->d)
        return -1;
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    snprintf(s->base, sizeof s->base, "http://127.0.0.1:%u", (unsigned)di->port);
    return 0;
}

/* Stops s's daemon (waiting for its connections). */
static inline void fk_unlisten(struct fk_daemon *s) {
    MHD_stop_daemon(s->d);
}

/* Column 0 of the first row of sql on the database at path as an integer, read
 * through a read-only connection of its own that waits up to 2 s for the
 * watcher's writes; -1 when there is no row or it is NULL. */
static inline int64_t fk_db_int(const char *path, const char *sql) {
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(h, 2000);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    int64_t v = -1;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

#endif
