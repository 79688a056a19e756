/* server — the libmicrohttpd lifecycle: bind, thread pool, per-request state,
 * request caps (413/414/400 too many parameters), connection caps (per client
 * address and in all, excess refused at accept), a deadline for receiving each
 * request that a trickling client cannot extend, per-thread read-only database
 * connections, graceful stop. Everything about *what* to answer lives in
 * router.c. The limits and their values are listed in README "Limits".
 *
 * Thread rule: server_start/server_stop from the main thread; handlers run on the
 * server's own threads, each with its own read-only store connection. */
#ifndef SPOTLEDGER_SERVER_H
#define SPOTLEDGER_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct app;
struct server;

struct server_options {
    const char *host; /* numeric address or "localhost" */
    uint16_t port;    /* 0: any free port (see server_port) */
    const char *db_path;
    size_t max_body;  /* request body cap, bytes (413 beyond) */
    unsigned threads; /* worker threads (default 4) */
    struct app *app;
    /* 0 = the defaults below */
    unsigned max_connections;    /* open connections in all; more are refused at accept */
    unsigned max_per_client;     /* open connections per client address */
    unsigned receive_timeout_ms; /* to receive a whole request (head and body) */
};

#define SERVER_MAX_CONNECTIONS 1000
#define SERVER_MAX_PER_CLIENT 128
#define SERVER_RECEIVE_TIMEOUT_MS 10000
#define SERVER_IDLE_TIMEOUT_S 30 /* no byte either way for this long: closed */
#define SERVER_MAX_URL 4096      /* path and query, bytes: 414 beyond */

/* Starts serving. ERR_IO when the address cannot be bound or resolved. */
enum err server_start(const struct server_options *opt, struct server **out);
/* The bound port (useful with port 0). */
uint16_t server_port(const struct server *srv);
/* Connections refused at accept (caps) and cut at the receive deadline so far. */
void server_counters(struct server *srv, uint64_t *refused, uint64_t *timed_out);
/* Stops accepting, lets in-flight requests finish (up to `grace_ms`), then stops.
 * NULL is a no-op. */
void server_stop(struct server *srv, int grace_ms);

#endif
