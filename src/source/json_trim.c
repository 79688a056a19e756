#include "source/json_trim.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#define KEY "\"managedFields\""
#define KEY_LEN (sizeof KEY - 1)

/* The end of the array or object starting at p (one past its closing bracket),
 * or NULL when it does not close before end. */
static const char *skip_value(const char *p, const char *end) {
    int depth = 0;
    for (; p < end; p++) {
        char c = *p;
        if (c == '"') {
            for (p++; p < end && *p != '"'; p++)
                if (*p == '\\')
                    p++;
            if (p >= end)
                return NULL;
        } else if (c == '[' || c == '{') {
            depth++;
        } else if (c == ']' || c == '}') {
            if (--depth == 0)
                return p + 1;
        }
    }
    return NULL;
}

/* Finds the next managedFields member at or after pos: [*cut, *resume) is the
 * member with one adjacent comma. False when there is none. */
static bool next_member(const char *buf, size_t len, size_t pos, size_t *cut, size_t *resume) {
    const char *end = buf + len;
    while (pos < len) {
        /* 'F' is rare in JSON syntax: find it, then look around it */
        const char *f = memchr(buf + pos, 'F', len - pos);
        if (!f)
            return false;
        pos = (size_t)(f - buf) + 1;
        if (f - buf < 8)
            continue;
        const char *k = f - 8; /* "managed */
        if ((size_t)(end - k) < KEY_LEN || memcmp(k, KEY, KEY_LEN) != 0)
            continue;
        const char *q = k;
        while (q > buf && isspace((unsigned char)q[-1]))
            q--;
        if (q == buf || (q[-1] != ',' && q[-1] != '{'))
            continue;
        const char *v = k + KEY_LEN;
        while (v < end && isspace((unsigned char)*v))
            v++;
        if (v == end || *v != ':')
            continue;
        for (v++; v < end && isspace((unsigned char)*v);)
            v++;
        if (v == end || *v != '[')
            continue;
        const char *ve = skip_value(v, end);
        if (!ve)
            return false;
        if (q[-1] == ',') { /* ,"managedFields":[...] */
            *cut = (size_t)(q - 1 - buf);
            *resume = (size_t)(ve - buf);
        } else { /* {"managedFields":[...], */
            const char *n = ve;
            while (n < end && isspace((unsigned char)*n))
                n++;
            *cut = (size_t)(k - buf);
            *resume = (size_t)((n < end && *n == ',' ? n + 1 : ve) - buf);
        }
        return true;
    }
    return false;
}

static bool blank(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isspace((unsigned char)p[i]))
            return false;
    return true;
}

json_object *json_trim_parse(json_tokener *tok, const char *buf, size_t len,
                             enum json_tokener_error *err) {
    size_t pos = 0;
    json_object *o = NULL;
    while (pos <= len) {
        size_t cut = len, resume = len;
        if (!next_member(buf, len, pos, &cut, &resume))
            cut = resume = len;
        /* feed [pos, cut) in pieces json-c's int length can hold */
        while (pos < cut) {
            size_t n = cut - pos > INT_MAX / 2 ? INT_MAX / 2 : cut - pos;
            o = json_tokener_parse_ex(tok, buf + pos, (int)n);
            *err = json_tokener_get_error(tok);
            if (o) {
                size_t used = json_tokener_get_parse_end(tok);
                /* the root closed: only spaces may follow, in this piece or later */
                if (cut < len || !blank(buf + pos + used, n - used)) {
                    json_object_put(o);
                    *err = json_tokener_error_parse_unexpected;
                    return NULL;
                }
                return o;
            }
            if (*err != json_tokener_continue)
                return NULL;
            pos += n;
        }
        if (cut == len)
            break;
        pos = resume;
    }
    /* a bare trailing number needs the terminating NUL (json_tokener.h) */
    o = json_tokener_parse_ex(tok, "", 1);
    *err = json_tokener_get_error(tok);
    return o;
}
