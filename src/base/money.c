#include "base/money.h"

#include <stdbool.h>
#include <string.h>

__extension__ typedef __int128 i128;

/* The magnitude v with its sign into *out; ERR_TOOBIG outside int64. */
static enum err signed_i64(i128 v, bool neg, int64_t *out) {
    if (neg)
        v = -v;
    if (v > INT64_MAX || v < INT64_MIN)
        return ERR_TOOBIG;
    *out = (int64_t)v;
    return ERR_OK;
}

enum err money_parse(const char *s, size_t len, enum money_flags flags, int64_t *out) {
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        i++;
    }
    /* digits of the mantissa, leading zeros skipped, and the position of the point */
    char digits[64];
    size_t nd = 0;
    int frac = 0, int_digits = 0, frac_digits = 0;
    bool dropped_nonzero_overflow = false;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (nd || s[i] != '0') {
            if (nd >= sizeof digits)
                return ERR_TOOBIG;
            digits[nd++] = s[i];
        }
        int_digits++;
        i++;
    }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (nd || s[i] != '0') {
                if (nd >= sizeof digits) {
                    /* beyond any representable precision */
                    if (s[i] != '0')
                        dropped_nonzero_overflow = true;
                    frac_digits++;
                    i++;
                    continue;
                }
                digits[nd++] = s[i];
                frac++;
            } else {
                frac++;
            }
            frac_digits++;
            i++;
        }
        if (frac_digits == 0)
            return ERR_PARSE; /* "1." */
    }
    if (int_digits + frac_digits == 0)
        return ERR_PARSE;
    long exp10 = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        if (!(flags & MONEY_EXPONENT))
            return ERR_PARSE;
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '-' || s[i] == '+')) {
            eneg = s[i] == '-';
            i++;
        }
        if (i >= len || s[i] < '0' || s[i] > '9')
            return ERR_PARSE;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (exp10 < 100000)
                exp10 = exp10 * 10 + (s[i] - '0');
            i++;
        }
        if (eneg)
            exp10 = -exp10;
    }
    if (i != len)
        return ERR_PARSE;
    if (dropped_nonzero_overflow && !(flags & MONEY_ROUND))
        return ERR_PARSE;

    /* value = digits * 10^(exp10 - frac); micro = digits * 10^(exp10 - frac + 6) */
    long e = exp10 - frac + 6;
    long keep = (long)nd + (e < 0 ? e : 0); /* digits kept before the point of micro */
    i128 v = 0;
    const i128 lim = (i128)INT64_MAX + 1;
    for (long k = 0; k < keep && k < (long)nd; k++) {
        v = v * 10 + (digits[k] - '0');
        if (v > lim)
            return ERR_TOOBIG;
    }
    if (e > 0) {
        if (nd == 0)
            e = 0;
        for (long k = 0; k < e; k++) {
            v *= 10;
            if (v > lim)
                return ERR_TOOBIG;
        }
    } else if (e < 0) {
        long first = keep < 0 ? 0 : keep;
        bool nonzero = dropped_nonzero_overflow;
        for (long k = first; k < (long)nd; k++)
            if (digits[k] != '0')
                nonzero = true;
        if (nonzero && !(flags & MONEY_ROUND))
            return ERR_PARSE;
        if (keep >= 0 && keep < (long)nd && digits[keep] >= '5')
            v += 1;
    }
    return signed_i64(v, neg, out);
}

static size_t format_digits(int64_t micro, char out[MONEY_FMT_MAX], bool trim) {
    char tmp[MONEY_FMT_MAX];
    size_t n = 0;
    bool neg = micro < 0;
    /* magnitude as unsigned so INT64_MIN is fine */
    uint64_t m = neg ? (uint64_t)0 - (uint64_t)micro : (uint64_t)micro;
    uint64_t whole = m / 1000000u, frac = m % 1000000u;
    char fr[7];
    for (int k = 5; k >= 0; k--) {
        fr[k] = (char)('0' + frac % 10);
        frac /= 10;
    }
    int flen = 6;
    if (trim)
        while (flen > 0 && fr[flen - 1] == '0')
            flen--;
    char w[24];
    int wl = 0;
    do {
        w[wl++] = (char)('0' + whole % 10);
        whole /= 10;
    } while (whole);
    if (neg)
        tmp[n++] = '-';
    while (wl)
        tmp[n++] = w[--wl];
    if (flen) {
        tmp[n++] = '.';
        memcpy(tmp + n, fr, (size_t)flen);
        n += (size_t)flen;
    }
    tmp[n] = '\0';
    memcpy(out, tmp, n + 1);
    return n;
}

size_t money_format(int64_t micro, char out[MONEY_FMT_MAX]) {
    return format_digits(micro, out, true);
}

size_t money_format_fixed(int64_t micro, char out[MONEY_FMT_MAX]) {
    return format_digits(micro, out, false);
}

enum err money_muldiv(int64_t a, int64_t b, int64_t c, int64_t *out) {
    if (c == 0)
        return ERR_INVAL;
    i128 p = (i128)a * (i128)b;
    bool neg = (p < 0) != (c < 0);
    i128 ap = p < 0 ? -p : p;
    i128 ac = c < 0 ? -(i128)c : (i128)c;
    i128 q = ap / ac, r = ap % ac;
    if (r * 2 >= ac)
        q += 1;
    return signed_i64(q, neg, out);
}
