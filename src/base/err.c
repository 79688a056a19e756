#include "base/err.h"

static const char *const err_names[] = {
    [ERR_OK] = "ok",
    [ERR_NOMEM] = "out of memory",
    [ERR_INVAL] = "invalid value",
    [ERR_IO] = "i/o error",
    [ERR_HTTP] = "http error",
    [ERR_PARSE] = "parse error",
    [ERR_DB] = "database error",
    [ERR_BUSY] = "busy",
    [ERR_NOTFOUND] = "not found",
    [ERR_TOOBIG] = "too big",
    [ERR_AUTH] = "not authorized",
    [ERR_GONE] = "gone",
};

const char *err_str(enum err rc) {
    /* a code added to enum err but not to the table reads as unknown, never NULL */
    if ((unsigned)rc < sizeof err_names / sizeof err_names[0] && err_names[rc])
        return err_names[rc];
    return "unknown error";
}
