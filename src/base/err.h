/* err — the one error type of spotledger (docs/style.md 7).
 *
 * Fallible functions return enum err and write results through out-params only on
 * ERR_OK. Library codes (CURLcode, HTTP status, SQLITE_*, json_tokener_error,
 * MHD_NO) are mapped to these at the module boundary and logged once there.
 * Thread rule: any thread. */
#ifndef SPOTLEDGER_ERR_H
#define SPOTLEDGER_ERR_H

enum err {
    ERR_OK = 0,
    ERR_NOMEM,    /* an allocator returned NULL */
    ERR_INVAL,    /* bad argument or input value */
    ERR_IO,       /* file or socket failure */
    ERR_HTTP,     /* transport failure or unexpected HTTP status */
    ERR_PARSE,    /* malformed JSON, number, date, ... */
    ERR_DB,       /* SQLite error */
    ERR_BUSY,     /* try again later (SQLITE_BUSY, 429) */
    ERR_NOTFOUND, /* no such object */
    ERR_TOOBIG,   /* a size cap was hit */
    ERR_AUTH,     /* credentials missing or refused (401/403) */
    ERR_GONE,     /* resource version expired (Kubernetes 410) */
};

/* Static lower-case description of rc, never NULL. */
const char *err_str(enum err rc);

#endif
