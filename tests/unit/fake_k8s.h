/* fake_k8s — what the watcher tests' own fake Kubernetes API servers share
 * (header only): the resources by URL suffix, the 410 Status body, a JSON reply,
 * and a libmicrohttpd daemon on 127.0.0.1, port 0 (loopback only). Each test
 * keeps its own handler: what the fake answers is the test. */
#ifndef SPOTLEDGER_TEST_FAKE_K8S_H
#define SPOTLEDGER_TEST_FAKE_K8S_H

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
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

/* Starts handler (thread per connection, 10 s connection timeout) on 127.0.0.1,
 * port 0, and writes "http://127.0.0.1:PORT" into base; NULL when it does not start. */
static inline struct MHD_Daemon *fk_listen(MHD_AccessHandlerCallback handler, void *cls, char *base,
                                           size_t baselen) {
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL, handler,
        cls, MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
    if (!d)
        return NULL;
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    snprintf(base, baselen, "http://127.0.0.1:%u", (unsigned)di->port);
    return d;
}

#endif
