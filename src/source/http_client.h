/* http_client — the libcurl client both pollers use (DigitalOcean, Kubernetes).
 *
 * One struct http_client per thread (its CURL handle is reused and never crosses
 * threads; docs/style.md curl 5). Every request has a connect and a total timeout,
 * CURLOPT_NOSIGNAL, a response size cap (ERR_TOOBIG beyond), Bearer auth when a
 * token is given (never logged), optional CA file for TLS, and reads the `Date`
 * header (the source clock) and rate-limit headers. Redirects are not followed
 * and only http/https are allowed, so a token never leaves the configured origin.
 *
 * http_client_get retries 5xx and transport errors with exponential backoff and
 * jitter, and 429 honouring retry-after / ratelimit-reset, up to max_retries; it
 * also paces requests so a client stays under `rate_per_minute` and
 * `rate_per_hour` (DigitalOcean: 250/min, 5000/h):
 *   - a sliding window of the last N request times per limit (a hard guarantee:
 *     never more than N requests in any window);
 *   - at least 60000/rate_per_minute ms between requests, and once the hourly
 *     window is half used, 3600000/rate_per_hour ms (smooth instead of a burst
 *     followed by a long stall);
 *   - the server's word: ratelimit-remaining 0 waits until ratelimit-reset
 *     (measured against the response's Date, not the local clock).
 * Waits go through the sleep hook and are measured with the clock hook, so tests
 * simulate hours in milliseconds.
 *
 * Status mapping (after retries): 2xx -> ERR_OK; 401/403 -> ERR_AUTH (the error
 * text names the token scope given in the request, e.g. "kubernetes:read");
 * 404 -> ERR_NOTFOUND; 410 -> ERR_GONE; 429 -> ERR_BUSY; other -> ERR_HTTP;
 * transport failures -> ERR_HTTP; cap exceeded -> ERR_TOOBIG; cancelled (the
 * cancel hook said so) -> ERR_BUSY.
 *
 * Logging: a failed call is logged once here (WARN; 404/410 at INFO), with the URL
 * and resp->error; callers need not log it again. Retries are logged at INFO.
 *
 * Thread rule: one client per thread; hooks are called on that thread. */
#ifndef SPOTLEDGER_HTTP_CLIENT_H
#define SPOTLEDGER_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

struct http_client;
struct http_response;

struct http_client_options {
    long connect_timeout_ms; /* default 5000 */
    long timeout_ms;         /* total per request, default 30000 (not for streams) */
    size_t max_response;     /* bytes; default 64 MiB */
    const char *ca_file;     /* NULL: system CAs (copied) */
    const char *client_cert; /* PEM client certificate file, NULL: none (copied) */
    const char *client_key;  /* its PEM private key file (copied) */
    bool insecure;           /* skip TLS verification (--kube-insecure only; warned there) */
    int max_retries;         /* default 4; negative: 0 retries */
    int rate_per_minute;     /* 0: unlimited */
    int rate_per_hour;       /* 0: unlimited */
    const char *user_agent;  /* default "spotledger/VERSION" (copied) */
    /* Sleep hook (milliseconds); NULL = nanosleep. Tests count waits with it. */
    void (*sleep_ms)(void *ctx, long ms);
    void *sleep_ctx;
    /* Monotonic clock hook (milliseconds) used for pacing; NULL = CLOCK_MONOTONIC.
     * Called with sleep_ctx. */
    int64_t (*now_ms)(void *ctx);
    /* Cancel hook, checked before every attempt and after every wait (with
     * sleep_ctx); true ends the call with ERR_BUSY. NULL = never. The poller uses it
     * to stop promptly during long rate-limit waits. */
    bool (*cancelled)(void *ctx);
    /* Test seam: when set, http_client_get asks this function instead of the
     * network. It fills resp->body/date/ratelimit fields/content_type and returns
     * the HTTP status (0 = transport error). Pacing, retries and status mapping
     * still apply. Streams always use the network. */
    long (*transport)(void *ctx, const char *url, struct http_response *resp);
    void *transport_ctx;
};

struct http_response {
    long status;              /* last HTTP status, 0 if none */
    struct buf body;          /* the body (capped) */
    int64_t date;             /* Date header as Unix seconds, 0 if absent/invalid */
    int64_t date_mono_ms;     /* monotonic clock (timeutil_mono_ms) when Date was read, 0 if none:
                               * a stream's later events happened Date + the time since */
    long retry_after;         /* seconds, -1 if absent */
    long ratelimit_remaining; /* -1 if absent */
    int64_t ratelimit_reset;  /* Unix seconds, 0 if absent */
    int attempts;             /* requests made, retries included */
    char content_type[64];    /* Content-Type header, "" if absent */
    char error[256];          /* human-readable reason when the call failed */
};

/* Creates a client (a CURL handle). opt may be NULL (all defaults); it is copied.
 * ERR_NOMEM when curl_easy_init fails. Free with http_client_free. */
enum err http_client_new(const struct http_client_options *opt, struct http_client **out);
/* NULL is a no-op. */
void http_client_free(struct http_client *c);

void http_response_init(struct http_response *r);
void http_response_release(struct http_response *r);

/* GET url with optional bearer token (NULL = none). `scope` names the token scope
 * the endpoint needs, for 401/403 messages (NULL = none). Retries per the rules
 * above. On return (any code) resp holds the last attempt's status, headers and
 * error text; body is valid on ERR_OK and on HTTP errors (the error JSON). resp
 * is reset first (its body buffer is reused). */
enum err http_client_get(struct http_client *c, const char *url, const char *token,
                         const char *scope, struct http_response *resp);

/* POST of a JSON body (a Kubernetes SelfSubjectAccessReview), otherwise as
 * http_client_get (same retries: use it for requests that are safe to repeat). */
enum err http_client_post_json(struct http_client *c, const char *url, const char *token,
                               const char *body, struct http_response *resp);

/* Paged GET. Fetches url, hands each page to on_page, which parses it and sets
 * *next to a malloc'd URL of the following page (links.pages.next) or NULL on the
 * last page; a non-OK return from on_page stops paging with that code. A next
 * URL on another origin is rebased onto url's origin (path and query kept), so
 * the token only ever goes to the configured host. Loop guard: a next URL seen
 * before, or a page whose body is byte-identical to the previous one, ends with
 * ERR_PARSE ("pagination loop"); more than max_pages pages ends with ERR_TOOBIG.
 * resp holds the last page's response (resp->date: the FIRST page's Date is
 * returned in *first_date when not NULL). HTTP errors map as http_client_get. */
enum err http_client_get_pages(struct http_client *c, const char *url, const char *token,
                               const char *scope, int max_pages,
                               enum err (*on_page)(void *ctx, const struct http_response *resp,
                                                   char **next),
                               void *ctx, struct http_response *resp, int64_t *first_date);

/* Streaming GET for Kubernetes watches: no total timeout (a low-speed limit
 * instead: `idle_timeout_ms` of real time without a byte ends the stream with
 * ERR_HTTP, checked about once a second), no retries, paced like a GET. on_line
 * is called for every complete '\n'-terminated line (without the newline or a
 * trailing '\r', NUL-terminated, at most max_line bytes; longer -> ERR_TOOBIG); a
 * final unterminated fragment is dropped. Returning false stops the stream
 * (result ERR_OK). A stream the server closes normally also returns ERR_OK. For a
 * non-2xx status the body is collected into resp->body instead and mapped as
 * above. Date and status are filled in resp. */
enum err http_client_stream(struct http_client *c, const char *url, const char *token,
                            long idle_timeout_ms, size_t max_line,
                            bool (*on_line)(void *ctx, const char *line, size_t len), void *ctx,
                            struct http_response *resp);

/* Total requests this client has sent (for rate tests and metrics). */
uint64_t http_client_requests(const struct http_client *c);

/* Percent-encodes s for a query value (RFC 3986 unreserved kept). Caller frees. */
char *http_client_escape(const char *s);

#endif
