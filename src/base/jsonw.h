/* jsonw — a small streaming JSON writer onto a struct buf.
 *
 * Keeps commas and nesting right so callers only say what to write. Strings are
 * escaped per RFC 8259 (control characters as \u00XX; invalid UTF-8 bytes are
 * replaced by U+FFFD so output is always valid JSON). Money is written from
 * integer micro-dollars, exactly (money_format), never through double.
 * The first buffer error (ERR_TOOBIG) sticks in w->rc; check it once at the end.
 * Thread rule: one writer per thread. */
#ifndef SPOTLEDGER_JSONW_H
#define SPOTLEDGER_JSONW_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"

#define JSONW_MAX_DEPTH 32

struct jsonw {
    struct buf *out;
    enum err rc;
    int depth;
    bool first[JSONW_MAX_DEPTH]; /* no element written yet at this level */
    bool after_key;
};

void jsonw_init(struct jsonw *w, struct buf *out);
void jsonw_obj(struct jsonw *w);     /* { */
void jsonw_obj_end(struct jsonw *w); /* } */
void jsonw_arr(struct jsonw *w);     /* [ */
void jsonw_arr_end(struct jsonw *w); /* ] */
void jsonw_key(struct jsonw *w, const char *key);
void jsonw_str(struct jsonw *w, const char *s); /* NULL writes null */
void jsonw_strn(struct jsonw *w, const char *s, size_t len);
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
void jsonw_money(struct jsonw *w, int64_t micro); /* 4800000 -> 4.8 */
/* A decimal with `scale` implied decimals: (1234, 2) -> 12.34; for percentages. */
void jsonw_fixed(struct jsonw *w, int64_t v, int scale);
/* An RFC 3339 time; 0 (unknown) and times outside years 0000-9999 write null. */
void jsonw_time(struct jsonw *w, int64_t t);
/* Raw, already-valid JSON text. */
void jsonw_raw(struct jsonw *w, const char *json);

/* Shorthands: key + value. */
void jsonw_kstr(struct jsonw *w, const char *key, const char *s);
void jsonw_kint(struct jsonw *w, const char *key, int64_t v);
void jsonw_kbool(struct jsonw *w, const char *key, bool v);
void jsonw_kmoney(struct jsonw *w, const char *key, int64_t micro);
void jsonw_ktime(struct jsonw *w, const char *key, int64_t t);

/* Escapes s[0..len) as a JSON string (with quotes) onto b. */
enum err jsonw_escape(struct buf *b, const char *s, size_t len);

#endif
