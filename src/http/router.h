/* router — maps (method, path) to a handler; owns the cross-cutting rules:
 * 404/405 with Allow, security headers on every response, HEAD as GET.
 *
 * Handlers fill resp; they never see libmicrohttpd. Thread rule: any thread
 * (handlers run concurrently on the server's threads). */
#ifndef SPOTLEDGER_ROUTER_H
#define SPOTLEDGER_ROUTER_H

#include "base/request.h"

/* Handles one request completely (resp is filled: status, type, body or fd). */
void router_handle(struct request *req, struct response *resp);

/* Adds the headers every response carries (CSP, nosniff, referrer policy). */
void router_security_headers(struct response *resp);

#endif
