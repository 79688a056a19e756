#include "base/jsonw.h"

#include <stdio.h>
#include <string.h>

#include "base/money.h"
#include "base/timeutil.h"
#include "base/utf8.h"

void jsonw_init(struct jsonw *w, struct buf *out) {
    memset(w, 0, sizeof *w);
    w->out = out;
    w->first[0] = true;
}

static void put(struct jsonw *w, const char *s, size_t n) {
    if (w->rc == ERR_OK)
        w->rc = buf_append(w->out, s, n);
}

/* Comma before a value unless first at this level or right after a key. */
static void sep(struct jsonw *w) {
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (!w->first[w->depth])
        put(w, ",", 1);
    w->first[w->depth] = false;
}

static void open_(struct jsonw *w, char c) {
    sep(w);
    put(w, &c, 1);
    if (w->depth + 1 >= JSONW_MAX_DEPTH) {
        w->rc = ERR_TOOBIG;
        return;
    }
    w->depth++;
    w->first[w->depth] = true;
}

static void close_(struct jsonw *w, char c) {
    if (w->depth > 0)
        w->depth--;
    put(w, &c, 1);
}

void jsonw_obj(struct jsonw *w) {
    open_(w, '{');
}
void jsonw_obj_end(struct jsonw *w) {
    close_(w, '}');
}
void jsonw_arr(struct jsonw *w) {
    open_(w, '[');
}
void jsonw_arr_end(struct jsonw *w) {
    close_(w, ']');
}

enum err jsonw_escape(struct buf *b, const char *s, size_t len) {
    enum err rc = buf_putc(b, '"');
    size_t i = 0, run = 0;
    while (rc == ERR_OK && i < len) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        char tmp[8];
        size_t ul = 1;
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\r')
            esc = "\\r";
        else if (c == '\t')
            esc = "\\t";
        else if (c < 0x20 || c == 0x7f) {
            snprintf(tmp, sizeof tmp, "\\u%04x", c);
            esc = tmp;
        } else if (c >= 0x80) {
            ul = utf8_seq_len((const unsigned char *)s + i, len - i);
            if (ul == 0) {
                esc = UTF8_REPLACEMENT; /* U+FFFD */
                ul = 1;
            }
        }
        if (esc) {
            if (run)
                rc = buf_append(b, s + i - run, run);
            run = 0;
            if (rc == ERR_OK)
                rc = buf_puts(b, esc);
            i += ul;
        } else {
            run += ul;
            i += ul;
        }
    }
    if (rc == ERR_OK && run)
        rc = buf_append(b, s + len - run, run);
    if (rc == ERR_OK)
        rc = buf_putc(b, '"');
    return rc;
}

void jsonw_key(struct jsonw *w, const char *key) {
    sep(w);
    if (w->rc == ERR_OK)
        w->rc = jsonw_escape(w->out, key, strlen(key));
    put(w, ":", 1);
    w->after_key = true;
}

void jsonw_strn(struct jsonw *w, const char *s, size_t len) {
    sep(w);
    if (w->rc == ERR_OK)
        w->rc = jsonw_escape(w->out, s, len);
}

void jsonw_str(struct jsonw *w, const char *s) {
    if (!s) {
        jsonw_null(w);
        return;
    }
    jsonw_strn(w, s, strlen(s));
}

void jsonw_int(struct jsonw *w, int64_t v) {
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)v);
    sep(w);
    put(w, tmp, (size_t)n);
}

void jsonw_bool(struct jsonw *w, bool v) {
    sep(w);
    put(w, v ? "true" : "false", v ? 4 : 5);
}

void jsonw_null(struct jsonw *w) {
    sep(w);
    put(w, "null", 4);
}

void jsonw_money(struct jsonw *w, int64_t micro) {
    char tmp[MONEY_FMT_MAX];
    size_t n = money_format(micro, tmp);
    sep(w);
    put(w, tmp, n);
}

void jsonw_fixed(struct jsonw *w, int64_t v, int scale) {
    char tmp[48];
    int64_t p = 1;
    for (int i = 0; i < scale; i++)
        p *= 10;
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int n;
    if (scale > 0) {
        n = snprintf(tmp, sizeof tmp, "%s%llu.%0*llu", v < 0 ? "-" : "",
                     (unsigned long long)(m / (uint64_t)p), scale,
                     (unsigned long long)(m % (uint64_t)p));
        /* trim trailing zeros and a bare point */
        while (n > 0 && tmp[n - 1] == '0')
            n--;
        if (n > 0 && tmp[n - 1] == '.')
            n--;
    } else {
        n = snprintf(tmp, sizeof tmp, "%lld", (long long)v);
    }
    sep(w);
    put(w, tmp, (size_t)n);
}

void jsonw_time(struct jsonw *w, int64_t t) {
    /* one rule: RFC 3339, or null when absent (0) or outside years 0000-9999 */
    char tmp[TIMEUTIL_RFC3339_MAX];
    size_t n = t == 0 ? 0 : timeutil_format_rfc3339(t, tmp);
    if (n == 0) {
        jsonw_null(w);
        return;
    }
    jsonw_strn(w, tmp, n);
}

void jsonw_raw(struct jsonw *w, const char *json) {
    sep(w);
    put(w, json, strlen(json));
}

void jsonw_kstr(struct jsonw *w, const char *key, const char *s) {
    jsonw_key(w, key);
    jsonw_str(w, s);
}
void jsonw_kint(struct jsonw *w, const char *key, int64_t v) {
    jsonw_key(w, key);
    jsonw_int(w, v);
}
void jsonw_kbool(struct jsonw *w, const char *key, bool v) {
    jsonw_key(w, key);
    jsonw_bool(w, v);
}
void jsonw_kmoney(struct jsonw *w, const char *key, int64_t micro) {
    jsonw_key(w, key);
    jsonw_money(w, micro);
}
void jsonw_ktime(struct jsonw *w, const char *key, int64_t t) {
    jsonw_key(w, key);
    jsonw_time(w, t);
}
