#include "base/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void buf_init(struct buf *b, size_t max) {
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max = max;
}

void buf_release(struct buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void buf_reset(struct buf *b) {
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

static enum err buf_reserve(struct buf *b, size_t extra) {
    if (b->max && (extra > b->max || b->len > b->max - extra))
        return ERR_TOOBIG;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return ERR_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
    return ERR_OK;
}

enum err buf_append(struct buf *b, const void *p, size_t n) {
    enum err rc = buf_reserve(b, n);
    if (rc != ERR_OK)
        return rc;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return ERR_OK;
}

enum err buf_puts(struct buf *b, const char *s) {
    return buf_append(b, s, strlen(s));
}

enum err buf_putc(struct buf *b, char c) {
    return buf_append(b, &c, 1);
}

enum err buf_vprintf(struct buf *b, const char *fmt, va_list ap) {
    char small[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return ERR_INVAL;
    if ((size_t)n < sizeof small)
        return buf_append(b, small, (size_t)n);
    enum err rc = buf_reserve(b, (size_t)n);
    if (rc != ERR_OK)
        return rc;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return ERR_OK;
}

enum err buf_printf(struct buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    enum err rc = buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

char *buf_detach(struct buf *b, size_t *len) {
    char *p = b->data ? b->data : xstrdup("");
    if (len)
        *len = b->len;
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    return p;
}

const char *buf_str(const struct buf *b) {
    return b->data ? b->data : "";
}
