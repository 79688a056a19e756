#include "query/window.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/timeutil.h"

static enum err fail(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static enum err fail(char *why, size_t whylen, const char *fmt, ...) {
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return ERR_PARSE;
}

static enum err finish(int64_t from, int64_t to, struct window *out, char *why, size_t whylen) {
    if (from >= to)
        return fail(why, whylen, "the window is empty (from must be before to)");
    if (from < WINDOW_MIN_TIME || to > WINDOW_MAX_TIME)
        return fail(why, whylen,
                    "the window must lie between 2000-01-01T00:00:00Z and 9999-12-31T23:59:59Z");
    if (to - from > WINDOW_MAX_SPAN)
        return fail(why, whylen, "the window is longer than 20 years");
    out->from = from;
    out->to = to;
    return ERR_OK;
}

static bool all_digits(const char *s, size_t n) {
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

enum err window_parse(const char *s, int64_t now, struct window *out, char *why, size_t whylen) {
    size_t n = strlen(s);
    int64_t day = timeutil_floor(now, 86400);
    if (n == 0 || n > 64)
        return fail(why, whylen, "expected e.g. 7d, lastweek, 2026-W48 or FROM,TO");
    if (!strcmp(s, "today"))
        return finish(day, now > day ? now : day + 1, out, why, whylen);
    if (!strcmp(s, "yesterday"))
        return finish(day - 86400, day, out, why, whylen);
    if (!strcmp(s, "week") || !strcmp(s, "lastweek")) {
        int y, w;
        int64_t start;
        timeutil_iso_week(now, &y, &w);
        timeutil_iso_week_start(y, w, &start);
        if (!strcmp(s, "week"))
            return finish(start, now > start ? now : start + 1, out, why, whylen);
        return finish(start - 7 * 86400, start, out, why, whylen);
    }
    if (!strcmp(s, "month") || !strcmp(s, "lastmonth")) {
        int64_t ms = timeutil_month_start(now);
        if (!strcmp(s, "month"))
            return finish(ms, now > ms ? now : ms + 1, out, why, whylen);
        return finish(timeutil_month_start(ms - 1), ms, out, why, whylen);
    }
    const char *comma = strchr(s, ',');
    if (comma) {
        int64_t a, b;
        if (timeutil_parse_rfc3339(s, (size_t)(comma - s), &a) != ERR_OK ||
            timeutil_parse_rfc3339(comma + 1, strlen(comma + 1), &b) != ERR_OK)
            return fail(why, whylen, "expected two RFC 3339 times separated by a comma");
        return finish(a, b, out, why, whylen);
    }
    if (n == 8 && s[4] == '-' && s[5] == 'W') {
        int64_t a, b;
        if (timeutil_parse_iso_week(s, &a, &b) != ERR_OK)
            return fail(why, whylen, "'%s' is not an ISO week (YYYY-Www)", s);
        return finish(a, b, out, why, whylen);
    }
    if (n == 7 && s[4] == '-' && all_digits(s, 4) && all_digits(s + 5, 2)) {
        int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
        int m = (s[5] - '0') * 10 + (s[6] - '0');
        if (m < 1 || m > 12 || y < 1970)
            return fail(why, whylen, "'%s' is not a month (YYYY-MM)", s);
        int64_t a = timeutil_days_from_civil(y, m, 1) * 86400;
        return finish(a, timeutil_next_month_start(a), out, why, whylen);
    }
    /* relative: N followed by one unit */
    char unit = s[n - 1];
    int64_t mult = unit == 'm'   ? 60
                   : unit == 'h' ? 3600
                   : unit == 'd' ? 86400
                   : unit == 'w' ? 7 * 86400
                                 : 0;
    if (mult && all_digits(s, n - 1) && n - 1 <= 6) {
        int64_t k = 0;
        for (size_t i = 0; i + 1 < n; i++)
            k = k * 10 + (s[i] - '0');
        if (k == 0)
            return fail(why, whylen, "the window is empty");
        if (k * mult > WINDOW_MAX_SPAN)
            return fail(why, whylen, "the window is longer than 20 years");
        return finish(now - k * mult, now, out, why, whylen);
    }
    return fail(why, whylen, "expected e.g. 7d, 24h, today, lastweek, 2026-W48 or FROM,TO");
}

enum err window_from_to(const char *from, const char *to, int64_t now, struct window *out,
                        char *why, size_t whylen) {
    int64_t a, b = now;
    if (to && timeutil_parse_rfc3339(to, strlen(to), &b) != ERR_OK)
        return fail(why, whylen, "'to' is not an RFC 3339 time");
    if (from) {
        if (timeutil_parse_rfc3339(from, strlen(from), &a) != ERR_OK)
            return fail(why, whylen, "'from' is not an RFC 3339 time");
    } else {
        a = b - 7 * 86400;
    }
    return finish(a, b, out, why, whylen);
}
