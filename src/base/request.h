/* request — one HTTP exchange as plain data, independent of libmicrohttpd.
 *
 * Both servers use it: the service's (http/server.c) and spotsim's
 * (sim/sim_server.c) fill a struct request from MHD (copying everything: MHD's
 * pointers die with the request, docs/style.md MHD 1) and send the struct response
 * back; route handlers (http/router.c, http/api_*.c, sim/sim_*_api.c) only see
 * these structs, so tests drive them directly. It sits in base/ so spotsim needs
 * nothing of the service's layers. `db` and `app` are the service's context,
 * opaque here (http/server.c sets them; spotsim leaves them NULL).
 * Thread rule: one request per thread. */
#ifndef SPOTLEDGER_REQUEST_H
#define SPOTLEDGER_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

#define REQUEST_MAX_PARAMS 32
#define RESPONSE_MAX_HEADERS 8

struct store; /* opaque: store/store.h */
struct app;   /* opaque: service/app.h */

struct request_param {
    char *key;
    char *value;
};

struct request {
    char *method; /* "GET" */
    char *path;   /* decoded path, "/api/v1/summary" */
    struct request_param params[REQUEST_MAX_PARAMS];
    int nparams;
    bool too_many_params;
    char *authorization; /* the Authorization header, or NULL; never logged */
    struct buf body;
    int64_t now;      /* wall clock at arrival (Unix seconds) */
    struct store *db; /* this thread's read-only connection, or NULL if unavailable */
    struct app *app;  /* service-wide state (app.h) */
};

struct response {
    int status;
    const char *content_type; /* static string */
    struct buf body;
    int fd;          /* >= 0: send this file instead of body (server closes it) */
    uint64_t fd_len; /* size of the file */
    char *headers[RESPONSE_MAX_HEADERS][2];
    int nheaders;
};

void request_init(struct request *r);
void request_release(struct request *r);
/* Adds a query parameter (copied). Beyond REQUEST_MAX_PARAMS sets too_many_params. */
void request_add_param(struct request *r, const char *key, const char *value);
/* First value of key, or NULL. Loan valid for the request's life. */
const char *request_param(const struct request *r, const char *key);

void response_init(struct response *r);
void response_release(struct response *r);
/* Adds a header (copied). */
void response_header(struct response *r, const char *name, const char *value);
/* Error body {"error":{"code":code,"message":message}} with status. */
void response_error(struct response *r, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Marks body as JSON with status (body already filled by the caller). */
void response_json(struct response *r, int status);

#endif
