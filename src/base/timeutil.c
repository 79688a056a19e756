#include "base/timeutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Howard Hinnant's civil-from-days algorithms (public domain description at
 * howardhinnant.github.io/date_algorithms.html), written out for int64. */
int64_t timeutil_days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void timeutil_civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

int64_t timeutil_floor(int64_t t, int64_t step) {
    int64_t q = t / step;
    if (t % step != 0 && t < 0)
        q--;
    return q * step;
}

static bool is_leap(int64_t y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int64_t y, int m) {
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : dm[m - 1];
}

static bool digits(const char *s, size_t n, int *out) {
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

enum err timeutil_parse_rfc3339(const char *s, size_t len, int64_t *out) {
    int y, mo, d, h, mi, se;
    if (len < 20)
        return ERR_PARSE;
    if (!digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
        !digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        !digits(s + 11, 2, &h) || s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' ||
        !digits(s + 17, 2, &se))
        return ERR_PARSE;
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 60)
        return ERR_PARSE;
    size_t i = 19;
    if (i < len && s[i] == '.') {
        i++;
        size_t start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == start)
            return ERR_PARSE;
    }
    int64_t offset = 0;
    if (i < len && (s[i] == 'Z' || s[i] == 'z')) {
        i++;
    } else if (i < len && (s[i] == '+' || s[i] == '-')) {
        int oh, om;
        if (len - i < 6 || !digits(s + i + 1, 2, &oh) || s[i + 3] != ':' ||
            !digits(s + i + 4, 2, &om) || oh > 23 || om > 59)
            return ERR_PARSE;
        offset = (int64_t)(oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
        i += 6;
    } else {
        return ERR_PARSE;
    }
    if (i != len)
        return ERR_PARSE;
    if (se == 60)
        se = 59; /* a leap second is the last second of its minute here */
    *out = timeutil_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset;
    return ERR_OK;
}

size_t timeutil_format_rfc3339(int64_t t, char out[TIMEUTIL_RFC3339_MAX]) {
    int64_t days = timeutil_floor(t, 86400) / 86400, secs = t - days * 86400, y;
    int m, d;
    timeutil_civil_from_days(days, &y, &m, &d);
    if (y < 0 || y > 9999) {
        out[0] = '\0';
        return 0;
    }
    int n = snprintf(out, TIMEUTIL_RFC3339_MAX, "%04d-%02d-%02dT%02d:%02d:%02dZ", (int)y, m, d,
                     (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
    return n > 0 ? (size_t)n : 0;
}

static const char *wdays[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
static const char *months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

size_t timeutil_format_http_date(int64_t t, char out[TIMEUTIL_HTTPDATE_MAX]) {
    int64_t days = timeutil_floor(t, 86400) / 86400, secs = t - days * 86400, y;
    int m, d;
    timeutil_civil_from_days(days, &y, &m, &d);
    int64_t wd = ((days % 7) + 7) % 7;
    if (y < 0 || y > 9999) {
        out[0] = '\0';
        return 0;
    }
    int n = snprintf(out, TIMEUTIL_HTTPDATE_MAX, "%s, %02d %s %04d %02d:%02d:%02d GMT", wdays[wd],
                     d, months[m - 1], (int)y, (int)(secs / 3600), (int)(secs / 60 % 60),
                     (int)(secs % 60));
    return n > 0 ? (size_t)n : 0;
}

enum err timeutil_parse_http_date(const char *s, int64_t *out) {
    /* IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT" (RFC 9110 5.6.7) */
    if (strlen(s) != 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' ||
        s[16] != ' ' || s[19] != ':' || s[22] != ':' || strcmp(s + 25, " GMT") != 0)
        return ERR_PARSE;
    int d, y, h, mi, se, m = 0;
    if (!digits(s + 5, 2, &d) || !digits(s + 12, 4, &y) || !digits(s + 17, 2, &h) ||
        !digits(s + 20, 2, &mi) || !digits(s + 23, 2, &se))
        return ERR_PARSE;
    for (int k = 0; k < 12; k++)
        if (strncmp(s + 8, months[k], 3) == 0)
            m = k + 1;
    if (!m || d < 1 || d > days_in_month(y, m) || h > 23 || mi > 59 || se > 60)
        return ERR_PARSE;
    if (se == 60)
        se = 59;
    *out = timeutil_days_from_civil(y, m, d) * 86400 + h * 3600 + mi * 60 + se;
    return ERR_OK;
}

/* Monday 00:00 UTC of ISO week 1 of iso_year. */
static int64_t week1_monday(int iso_year) {
    int64_t jan4 = timeutil_days_from_civil(iso_year, 1, 4);
    int64_t wd = ((jan4 + 3) % 7 + 7) % 7; /* 0 = Monday; 1970-01-01 was a Thursday */
    return (jan4 - wd) * 86400;
}

static int weeks_in_year(int iso_year) {
    return (int)((week1_monday(iso_year + 1) - week1_monday(iso_year)) / (7 * 86400));
}

void timeutil_iso_week(int64_t t, int *iso_year, int *week) {
    int64_t days = timeutil_floor(t, 86400) / 86400, y;
    int m, d;
    timeutil_civil_from_days(days, &y, &m, &d);
    int yy = (int)y;
    if (t < week1_monday(yy))
        yy--;
    else if (t >= week1_monday(yy + 1))
        yy++;
    *iso_year = yy;
    *week = (int)((t - week1_monday(yy)) / (7 * 86400)) + 1;
}

enum err timeutil_iso_week_start(int iso_year, int week, int64_t *out) {
    if (iso_year < 1 || iso_year > 9999 || week < 1 || week > weeks_in_year(iso_year))
        return ERR_INVAL;
    *out = week1_monday(iso_year) + (int64_t)(week - 1) * 7 * 86400;
    return ERR_OK;
}

enum err timeutil_parse_iso_week(const char *s, int64_t *start, int64_t *end) {
    int y, w;
    if (strlen(s) != 8 || !digits(s, 4, &y) || s[4] != '-' || s[5] != 'W' || !digits(s + 6, 2, &w))
        return ERR_PARSE;
    int64_t st;
    if (timeutil_iso_week_start(y, w, &st) != ERR_OK)
        return ERR_PARSE;
    *start = st;
    *end = st + 7 * 86400;
    return ERR_OK;
}

size_t timeutil_format_iso_week(int64_t t, char out[TIMEUTIL_ISOWEEK_MAX]) {
    int y, w;
    timeutil_iso_week(t, &y, &w);
    int n = snprintf(out, TIMEUTIL_ISOWEEK_MAX, "%04d-W%02d", y, w);
    return n > 0 ? (size_t)n : 0;
}

int64_t timeutil_month_start(int64_t t) {
    int64_t y;
    int m, d;
    timeutil_civil_from_days(timeutil_floor(t, 86400) / 86400, &y, &m, &d);
    return timeutil_days_from_civil(y, m, 1) * 86400;
}

int64_t timeutil_next_month_start(int64_t t) {
    int64_t y;
    int m, d;
    timeutil_civil_from_days(timeutil_floor(t, 86400) / 86400, &y, &m, &d);
    if (m == 12) {
        y++;
        m = 1;
    } else {
        m++;
    }
    return timeutil_days_from_civil(y, m, 1) * 86400;
}

int64_t timeutil_mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct timespec timeutil_mono_deadline(long ms) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    return until;
}

void timeutil_mono_cond_init(pthread_cond_t *c) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(c, &ca);
    pthread_condattr_destroy(&ca);
}
