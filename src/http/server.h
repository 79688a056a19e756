/* server — the libmicrohttpd lifecycle: bind, thread pool, per-request state,
 * request caps (413/414), per-thread read-only database connections, graceful
 * stop. Everything about *what* to answer lives in router.c.
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
};

/* Starts serving. ERR_IO when the address cannot be bound or resolved. */
enum err server_start(const struct server_options *opt, struct server **out);
/* The bound port (useful with port 0). */
uint16_t server_port(const struct server *srv);
/* Stops accepting, lets in-flight requests finish (up to `grace_ms`), then stops.
 * NULL is a no-op. */
void server_stop(struct server *srv, int grace_ms);

#endif
