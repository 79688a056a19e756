#include "base/err.h"

const char *err_str(enum err rc) {
    switch (rc) {
    case ERR_OK:
        return "ok";
    case ERR_NOMEM:
        return "out of memory";
    case ERR_INVAL:
        return "invalid value";
    case ERR_IO:
        return "i/o error";
    case ERR_HTTP:
        return "http error";
    case ERR_PARSE:
        return "parse error";
    case ERR_DB:
        return "database error";
    case ERR_BUSY:
        return "busy";
    case ERR_NOTFOUND:
        return "not found";
    case ERR_TOOBIG:
        return "too big";
    case ERR_AUTH:
        return "not authorized";
    case ERR_GONE:
        return "gone";
    }
    return "unknown error";
}
