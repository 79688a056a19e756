/* http_client — the libcurl client both pollers use (DigitalOcean, Kubernetes).
 *
 * One struct http_client per thread (its CURL handle is reused and never crosses
 * threads; STYLE.md curl 5). Every request has a connect and a total timeout,
 * CURLOPT_NOSIGNAL, a response size cap (ERR_TOOBIG beyond), Bearer auth when a
 * token is given (never logged), optional CA file for TLS, and reads the `Date`
 * header (the source clock) and rate-limit headers.
 *
 * http_client_get retries 5xx and transport errors with exponential backoff and
 * jitter, and 429 honouring retry-after / ratelimit-reset, up to max_retries; it
 * also paces requests so a client stays under `rate_per_minute` and
 * `rate_per_hour` (DigitalOcean: 250/min, 5000/h).
 *
 * Status mapping (after retries): 2xx -> ERR_OK; 401/403 -> ERR_AUTH (the error
 * text names the token scope given in the request, e.g. "kubernetes:read");
 * 404 -> ERR_NOTFOUND; 410 -> ERR_GONE; 429 -> ERR_BUSY; other -> ERR_HTTP;
 * transport failures -> ERR_HTTP; cap exceeded -> ERR_TOOBIG.
 *
 * Thread rule: one client per thread; the sleep function may be replaced in tests. */
#ifndef SPOTLEDGER_HTTP_CLIENT_H
#define SPOTLEDGER_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

struct http_client;

struct http_client_options {
    long connect_timeout_ms; /* default 5000 */
    long timeout_ms;         /* total per request, default 30000 (not for streams) */
    size_t max_response;     /* bytes; default 64 MiB */
    const char *ca_file;     /* NULL: system CAs */
    int max_retries;         /* default 4 */
    int rate_per_minute;     /* 0: unlimited */
    int rate_per_hour;       /* 0: unlimited */
    const char *user_agent;  /* default "spotledger/VERSION" */
    /* Sleep hook (milliseconds); NULL = nanosleep. Tests count waits with it. */
    void (*sleep_ms)(void *ctx, long ms);
    void *sleep_ctx;
    /* Monotonic clock hook (milliseconds) used for pacing; NULL = CLOCK_MONOTONIC. */
    int64_t (*now_ms)(void *ctx);
};

struct http_response {
    long status;              /* last HTTP status, 0 if none */
    struct buf body;          /* the body (capped) */
    int64_t date;             /* Date header as Unix seconds, 0 if absent/invalid */
    long retry_after;         /* seconds, -1 if absent */
    long ratelimit_remaining; /* -1 if absent */
    int64_t ratelimit_reset;  /* Unix seconds, 0 if absent */
    int attempts;             /* requests made, retries included */
    char error[256];          /* human-readable reason when the call failed */
};

enum err http_client_new(const struct http_client_options *opt, struct http_client **out);
void http_client_free(struct http_client *c);

void http_response_init(struct http_response *r);
void http_response_release(struct http_response *r);

/* GET url with optional bearer token (NULL = none). `scope` names the token scope
 * the endpoint needs, for 401/403 messages (NULL = none). Retries per the rules
 * above. On return (any code) resp holds the last attempt's status, headers and
 * error text; body is valid on ERR_OK and on HTTP errors (the error JSON). */
enum err http_client_get(struct http_client *c, const char *url, const char *token,
                         const char *scope, struct http_response *resp);

/* Streaming GET for Kubernetes watches: no total timeout (a low-speed limit
 * instead: `idle_timeout_ms` without a byte ends the stream with ERR_HTTP), no
 * retries. on_line is called for every complete '\n'-terminated line (without
 * the newline, NUL-terminated, max_line bytes; longer -> ERR_TOOBIG); returning
 * false stops the stream (result ERR_OK). For a non-2xx status the body is
 * collected into resp->body instead and mapped as above. Date and status are
 * filled in resp. */
enum err http_client_stream(struct http_client *c, const char *url, const char *token,
                            long idle_timeout_ms, size_t max_line,
                            bool (*on_line)(void *ctx, const char *line, size_t len), void *ctx,
                            struct http_response *resp);

/* Total requests this client has sent (for rate tests and metrics). */
uint64_t http_client_requests(const struct http_client *c);

/* Percent-encodes s for a query value (RFC 3986 unreserved kept). Caller frees. */
char *http_client_escape(const char *s);

#endif
