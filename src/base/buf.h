/* buf — the growing byte buffer, with a hard maximum (docs/style.md 13).
 *
 * Invariants: data is NULL or NUL-terminated at data[len]; len < cap; len <= max.
 * An append that would exceed max fails with ERR_TOOBIG and leaves the buffer as it
 * was. Bytes grow only here; arrays of records double through xrealloc (XGROW).
 * Thread rule: a buf belongs to one thread at a time. */
#ifndef SPOTLEDGER_BUF_H
#define SPOTLEDGER_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "base/err.h"

struct buf {
    char *data;
    size_t len;
    size_t cap;
    size_t max; /* hard cap on len; 0 means no cap */
};

/* Embedded init with a hard cap in bytes (0 = uncapped). Never fails. */
void buf_init(struct buf *b, size_t max);
/* Frees the storage; the buf may be reused after buf_init. */
void buf_release(struct buf *b);
/* Empties without freeing. */
void buf_reset(struct buf *b);

/* Appends n bytes. ERR_TOOBIG past max (nothing appended). */
enum err buf_append(struct buf *b, const void *p, size_t n);
enum err buf_puts(struct buf *b, const char *s);
enum err buf_putc(struct buf *b, char c);
/* printf-style append. ERR_TOOBIG past max, ERR_INVAL on a format error. */
enum err buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
enum err buf_vprintf(struct buf *b, const char *fmt, va_list ap);

/* Returns the NUL-terminated contents (never NULL, "" when empty) and leaves the
 * buf empty; the caller frees the result. */
char *buf_detach(struct buf *b, size_t *len);

/* Contents as a string; "" when empty. Loan valid until the next modification. */
const char *buf_str(const struct buf *b);

#endif
