/* timeutil: RFC 3339, HTTP dates, ISO weeks, months. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/timeutil.h"

static int64_t rfc(const char *s) {
    int64_t t = -1;
    assert_int_equal(timeutil_parse_rfc3339(s, strlen(s), &t), ERR_OK);
    return t;
}

static void rfc_bad(const char *s) {
    int64_t t = 42;
    assert_int_equal(timeutil_parse_rfc3339(s, strlen(s), &t), ERR_PARSE);
    assert_int_equal(t, 42);
}

static void test_rfc3339_parse(void **state) {
    (void)state;
    assert_int_equal(rfc("1970-01-01T00:00:00Z"), 0);
    assert_int_equal(rfc("2026-11-29T15:04:05Z"), 1795964645);
    assert_int_equal(rfc("2026-11-29t15:04:05z"), 1795964645);
    assert_int_equal(rfc("2026-11-29T15:04:05.999Z"), 1795964645); /* truncated */
    assert_int_equal(rfc("2026-11-29T16:04:05+01:00"), 1795964645);
    assert_int_equal(rfc("2026-11-29T14:34:05-00:30"), 1795964645);
    assert_int_equal(rfc("2024-02-29T00:00:00Z"), 1709164800); /* leap day */
    assert_int_equal(rfc("1969-12-31T23:59:59Z"), -1);
    rfc_bad("");
    rfc_bad("2026-11-29");
    rfc_bad("2026-11-29T15:04:05");  /* no zone */
    rfc_bad("2026-13-01T00:00:00Z"); /* month */
    rfc_bad("2025-02-29T00:00:00Z"); /* not a leap year */
    rfc_bad("2026-11-31T00:00:00Z"); /* November has 30 days */
    rfc_bad("2026-11-29T24:00:00Z");
    rfc_bad("2026-11-29T15:04:05.Z"); /* empty fraction */
    rfc_bad("2026-11-29T15:04:05Zjunk");
    rfc_bad("2026-11-29T15:04:05+1:00");
    rfc_bad("2026-1a-29T15:04:05Z");
}

static void test_rfc3339_format(void **state) {
    (void)state;
    char b[TIMEUTIL_RFC3339_MAX];
    timeutil_format_rfc3339(1795964645, b);
    assert_string_equal(b, "2026-11-29T15:04:05Z");
    timeutil_format_rfc3339(0, b);
    assert_string_equal(b, "1970-01-01T00:00:00Z");
    timeutil_format_rfc3339(-1, b);
    assert_string_equal(b, "1969-12-31T23:59:59Z");
    for (int64_t t = -86400 * 800; t < 86400LL * 365 * 80; t += 86400 * 13 + 3599) {
        timeutil_format_rfc3339(t, b);
        assert_int_equal(rfc(b), t);
    }
}

static void test_http_date(void **state) {
    (void)state;
    char b[TIMEUTIL_HTTPDATE_MAX];
    int64_t t;
    timeutil_format_http_date(784111777, b);
    assert_string_equal(b, "Sun, 06 Nov 1994 08:49:37 GMT");
    assert_int_equal(timeutil_parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", &t), ERR_OK);
    assert_int_equal(t, 784111777);
    timeutil_format_http_date(1795964645, b);
    assert_string_equal(b, "Sun, 29 Nov 2026 15:04:05 GMT");
    assert_int_equal(timeutil_parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", &t), ERR_PARSE);
    assert_int_equal(timeutil_parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT", &t), ERR_PARSE);
    assert_int_equal(timeutil_parse_http_date("Sun, 31 Nov 1994 08:49:37 GMT", &t), ERR_PARSE);
}

static void test_iso_week(void **state) {
    (void)state;
    int y, w;
    int64_t s, e;
    /* 2026-11-29 is a Sunday in ISO week 48 (Mon 2026-11-23 .. Sun 11-29) */
    timeutil_iso_week(rfc("2026-11-29T23:59:59Z"), &y, &w);
    assert_int_equal(y, 2026);
    assert_int_equal(w, 48);
    timeutil_iso_week(rfc("2026-11-30T00:00:00Z"), &y, &w);
    assert_int_equal(w, 49);
    assert_int_equal(timeutil_parse_iso_week("2026-W48", &s, &e), ERR_OK);
    assert_int_equal(s, rfc("2026-11-23T00:00:00Z"));
    assert_int_equal(e, rfc("2026-11-30T00:00:00Z"));
    /* year boundaries: 2021-01-03 belongs to 2020-W53; 2024-12-30 to 2025-W01 */
    timeutil_iso_week(rfc("2021-01-03T12:00:00Z"), &y, &w);
    assert_int_equal(y, 2020);
    assert_int_equal(w, 53);
    timeutil_iso_week(rfc("2024-12-30T00:00:00Z"), &y, &w);
    assert_int_equal(y, 2025);
    assert_int_equal(w, 1);
    assert_int_equal(timeutil_parse_iso_week("2020-W53", &s, &e), ERR_OK);
    assert_int_equal(s, rfc("2020-12-28T00:00:00Z"));
    assert_int_equal(timeutil_parse_iso_week("2026-W53", &s, &e),
                     ERR_OK); /* 2026 starts on a Thursday */
    assert_int_equal(timeutil_parse_iso_week("2025-W53", &s, &e), ERR_PARSE);
    assert_int_equal(timeutil_parse_iso_week("2026-W00", &s, &e), ERR_PARSE);
    assert_int_equal(timeutil_parse_iso_week("2026-48", &s, &e), ERR_PARSE);
    assert_int_equal(timeutil_parse_iso_week("2026-W4", &s, &e), ERR_PARSE);
    char b[TIMEUTIL_ISOWEEK_MAX];
    timeutil_format_iso_week(rfc("2021-01-03T12:00:00Z"), b);
    assert_string_equal(b, "2020-W53");
    /* every week start formats back to itself, across 30 years */
    for (int yy = 2000; yy < 2030; yy++) {
        for (int ww = 1; ww <= 53; ww++) {
            int64_t st;
            if (timeutil_iso_week_start(yy, ww, &st) != ERR_OK) {
                assert_int_equal(ww, 53);
                continue;
            }
            timeutil_iso_week(st, &y, &w);
            assert_int_equal(y, yy);
            assert_int_equal(w, ww);
            timeutil_iso_week(st - 1, &y, &w);
            assert_true(w == ww - 1 || (ww == 1 && y == yy - 1));
        }
    }
}

static void test_months(void **state) {
    (void)state;
    assert_int_equal(timeutil_month_start(rfc("2026-11-29T15:04:05Z")),
                     rfc("2026-11-01T00:00:00Z"));
    assert_int_equal(timeutil_next_month_start(rfc("2026-12-31T23:59:59Z")),
                     rfc("2027-01-01T00:00:00Z"));
    assert_int_equal(timeutil_next_month_start(rfc("2024-02-10T00:00:00Z")),
                     rfc("2024-03-01T00:00:00Z"));
    assert_int_equal(timeutil_floor(-1, 86400), -86400);
    assert_int_equal(timeutil_floor(86399, 86400), 0);
}

/* A monotonic deadline ms ahead: normalised (0 <= tv_nsec < 1e9, also when the
 * added milliseconds carry into the seconds), and between ms and ms + 1 s after
 * the monotonic clock read just before. */
static void test_mono_deadline(void **state) {
    (void)state;
    static const long ms[] = {0, 1, 100, 999, 1000, 1999, 60000};
    for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
        int64_t before = timeutil_mono_ms();
        struct timespec d = timeutil_mono_deadline(ms[k]);
        assert_true(d.tv_nsec >= 0 && d.tv_nsec < 1000000000L);
        int64_t at = (int64_t)d.tv_sec * 1000 + d.tv_nsec / 1000000;
        assert_true(at >= before + ms[k]);
        assert_true(at <= before + ms[k] + 1000);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc3339_parse), cmocka_unit_test(test_rfc3339_format),
        cmocka_unit_test(test_http_date),     cmocka_unit_test(test_iso_week),
        cmocka_unit_test(test_months),        cmocka_unit_test(test_mono_deadline),
    };
    return cmocka_run_group_tests_name("timeutil", tests, NULL, NULL);
}
