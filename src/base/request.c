#include "base/request.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/jsonw.h"
#include "base/xalloc.h"

#define RESPONSE_BODY_MAX (256u * 1024 * 1024)

void request_init(struct request *r) {
    memset(r, 0, sizeof *r);
    buf_init(&r->body, 0);
}

void request_release(struct request *r) {
    free(r->method);
    free(r->path);
    for (int i = 0; i < r->nparams; i++) {
        free(r->params[i].key);
        free(r->params[i].value);
    }
    if (r->authorization) {
        memset(r->authorization, 0, strlen(r->authorization));
        free(r->authorization);
    }
    buf_release(&r->body);
    memset(r, 0, sizeof *r);
}

void request_add_param(struct request *r, const char *key, const char *value) {
    if (r->nparams >= REQUEST_MAX_PARAMS) {
        r->too_many_params = true;
        return;
    }
    r->params[r->nparams].key = xstrdup(key);
    r->params[r->nparams].value = xstrdup(value ? value : "");
    r->nparams++;
}

const char *request_param(const struct request *r, const char *key) {
    for (int i = 0; i < r->nparams; i++)
        if (strcmp(r->params[i].key, key) == 0)
            return r->params[i].value;
    return NULL;
}

void response_init(struct response *r) {
    memset(r, 0, sizeof *r);
    r->status = 200;
    r->fd = -1;
    r->content_type = "application/json";
    buf_init(&r->body, RESPONSE_BODY_MAX);
}

void response_release(struct response *r) {
    buf_release(&r->body);
    if (r->fd >= 0)
        close(r->fd);
    for (int i = 0; i < r->nheaders; i++) {
        free(r->headers[i][0]);
        free(r->headers[i][1]);
    }
    r->nheaders = 0;
    r->fd = -1;
}

void response_header(struct response *r, const char *name, const char *value) {
    if (r->nheaders >= RESPONSE_MAX_HEADERS)
        return;
    r->headers[r->nheaders][0] = xstrdup(name);
    r->headers[r->nheaders][1] = xstrdup(value);
    r->nheaders++;
}

void response_error(struct response *r, int status, const char *code, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    buf_reset(&r->body);
    if (r->fd >= 0) {
        close(r->fd);
        r->fd = -1;
    }
    struct jsonw w;
    jsonw_init(&w, &r->body);
    jsonw_obj(&w);
    jsonw_key(&w, "error");
    jsonw_obj(&w);
    jsonw_kstr(&w, "code", code);
    jsonw_kstr(&w, "message", msg);
    jsonw_obj_end(&w);
    jsonw_obj_end(&w);
    buf_putc(&r->body, '\n');
    r->status = status;
    r->content_type = "application/json";
}

void response_json(struct response *r, int status) {
    r->status = status;
    r->content_type = "application/json";
}
