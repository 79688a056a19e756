/* auth — bearer tokens for the API (read) and for triggers (admin).
 *
 * Tokens are compared in constant time (no early exit on the first differing
 * byte, nor on length). With no read token configured, reads are open (the
 * service then refuses to bind a non-loopback address: config.c). Admin routes
 * need the admin token and are refused (403) when none is configured.
 * Thread rule: any thread. */
#ifndef SPOTLEDGER_AUTH_H
#define SPOTLEDGER_AUTH_H

#include <stdbool.h>

#include "base/request.h"

enum auth_level {
    AUTH_OPEN,    /* no token needed: /healthz, /readyz, static files */
    AUTH_READ,    /* the read (or admin) token */
    AUTH_ADMIN,   /* the admin token */
    AUTH_METRICS, /* /metrics: AUTH_READ, or AUTH_OPEN with --metrics-open (router decides) */
};

/* True when a equals the secret b. The time taken depends only on b's length:
 * no early exit on the first differing byte or on a length mismatch.
 * NULL never matches. */
bool auth_token_equal(const char *a, const char *b);

/* Checks req against level; on refusal fills resp (401 with WWW-Authenticate, or
 * 403) and returns false. */
bool auth_check(const struct request *req, enum auth_level level, struct response *resp);

#endif
