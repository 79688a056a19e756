#include "base/csv.h"

#include <stdio.h>
#include <string.h>

#include "base/money.h"
#include "base/timeutil.h"
#include "base/utf8.h"

void csv_init(struct csv *c, struct buf *out) {
    c->out = out;
    c->first = true;
    c->rc = ERR_OK;
}

static void put(struct csv *c, const char *s, size_t n) {
    if (c->rc == ERR_OK)
        c->rc = buf_append(c->out, s, n);
}

static void sep(struct csv *c) {
    if (!c->first)
        put(c, ",", 1);
    c->first = false;
}

void csv_text(struct csv *c, const char *s) {
    sep(c);
    if (!s || !*s)
        return;
    size_t n = strlen(s);
    bool inert = strchr("=+-@\t\r", s[0]) != NULL;
    bool quote = inert || strpbrk(s, ",\"\r\n") != NULL;
    if (quote)
        put(c, "\"", 1);
    if (inert)
        put(c, "'", 1);
    for (size_t i = 0; i < n;) {
        size_t l = utf8_seq_len((const unsigned char *)s + i, n - i);
        if (l == 0) {
            put(c, UTF8_REPLACEMENT, 3);
            i++;
        } else if (s[i] == '"') {
            put(c, "\"\"", 2);
            i++;
        } else {
            put(c, s + i, l);
            i += l;
        }
    }
    if (quote)
        put(c, "\"", 1);
}

void csv_int(struct csv *c, int64_t v) {
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)v);
    sep(c);
    put(c, tmp, (size_t)n);
}

void csv_number(struct csv *c, const char *literal) {
    sep(c);
    put(c, literal, strlen(literal));
}

void csv_money(struct csv *c, int64_t micro) {
    char tmp[MONEY_FMT_MAX];
    size_t n = money_format_fixed(micro, tmp);
    sep(c);
    put(c, tmp, n);
}

void csv_time(struct csv *c, int64_t t) {
    sep(c);
    if (t == 0)
        return;
    /* "2026-11-29 15:04:05": the form spreadsheets read as a date-time (RFC 3339's
     * 'T' and 'Z' make LibreOffice and Excel import it as text); always UTC */
    char tmp[TIMEUTIL_RFC3339_MAX];
    size_t n = timeutil_format_rfc3339(t, tmp);
    if (n == TIMEUTIL_RFC3339_MAX - 1 && tmp[10] == 'T' && tmp[n - 1] == 'Z') {
        tmp[10] = ' ';
        n--; /* without the 'Z' */
    }
    put(c, tmp, n);
}

void csv_end_record(struct csv *c) {
    put(c, "\r\n", 2);
    c->first = true;
}
