/* window: every accepted form, and the rejects naming why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/timeutil.h"
#include "query/window.h"

static int64_t T(const char *s) {
    int64_t t;
    assert_int_equal(timeutil_parse_rfc3339(s, strlen(s), &t), ERR_OK);
    return t;
}

/* Sunday 2026-11-29 15:04:05Z */
#define NOW T("2026-11-29T15:04:05Z")

static void ok(const char *expr, const char *from, const char *to) {
    struct window w;
    char why[128] = "";
    if (window_parse(expr, NOW, &w, why, sizeof why) != ERR_OK)
        fail_msg("'%s' rejected: %s", expr, why);
    assert_int_equal(w.from, T(from));
    assert_int_equal(w.to, T(to));
}

static void bad(const char *expr, const char *reason) {
    struct window w = {1, 2};
    char why[128] = "";
    assert_int_equal(window_parse(expr, NOW, &w, why, sizeof why), ERR_PARSE);
    assert_int_equal(w.from, 1); /* untouched */
    if (!strstr(why, reason))
        fail_msg("'%s': reason '%s' lacks '%s'", expr, why, reason);
}

static void test_forms(void **state) {
    (void)state;
    ok("7d", "2026-11-22T15:04:05Z", "2026-11-29T15:04:05Z");
    ok("24h", "2026-11-28T15:04:05Z", "2026-11-29T15:04:05Z");
    ok("90m", "2026-11-29T13:34:05Z", "2026-11-29T15:04:05Z");
    ok("2w", "2026-11-15T15:04:05Z", "2026-11-29T15:04:05Z");
    ok("today", "2026-11-29T00:00:00Z", "2026-11-29T15:04:05Z");
    ok("yesterday", "2026-11-28T00:00:00Z", "2026-11-29T00:00:00Z");
    ok("week", "2026-11-23T00:00:00Z", "2026-11-29T15:04:05Z");
    ok("lastweek", "2026-11-16T00:00:00Z", "2026-11-23T00:00:00Z");
    ok("month", "2026-11-01T00:00:00Z", "2026-11-29T15:04:05Z");
    ok("lastmonth", "2026-10-01T00:00:00Z", "2026-11-01T00:00:00Z");
    ok("2026-W48", "2026-11-23T00:00:00Z", "2026-11-30T00:00:00Z");
    ok("2026-02", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z");
    ok("2026-11-01T00:00:00Z,2026-11-02T12:00:00+02:00", "2026-11-01T00:00:00Z",
       "2026-11-02T10:00:00Z");
}

static void test_rejects(void **state) {
    (void)state;
    bad("", "expected");
    bad("7", "expected");
    bad("0d", "empty");
    bad("d", "expected");
    bad("-7d", "expected");
    bad("7x", "expected");
    bad("9999999d", "expected");
    bad("100000w", "20 years");
    bad("2026-W54", "ISO week");
    bad("2026-13", "month");
    bad("2026-11-02T00:00:00Z,2026-11-01T00:00:00Z", "empty");
    bad("2026-11-01,2026-11-02", "RFC 3339");
    bad("'; DROP TABLE tasks; --", "expected");
    bad("lastweek\n", "expected");
}

/* issue 18: every window's ends print as RFC 3339. 9999-W52 is Monday
 * 9999-12-27 to Monday 10000-01-03 and 9999-12 ends 10000-01-01: both past
 * 9999-12-31T23:59:59Z, which was printed as "to":"". 1970-01 starts at epoch 0,
 * the value that means "absent" and printed as null. */
static void test_bounds(void **state) {
    (void)state;
    bad("9999-W52", "between 2000-01-01T00:00:00Z and 9999-12-31T23:59:59Z");
    bad("9999-12", "between");
    bad("1970-01", "between");
    bad("1999-12-31T23:59:59Z,2000-01-02T00:00:00Z", "between");
    ok("2000-01", "2000-01-01T00:00:00Z", "2000-02-01T00:00:00Z");
    ok("9999-11", "9999-11-01T00:00:00Z", "9999-12-01T00:00:00Z");
    ok("9999-12-31T00:00:00Z,9999-12-31T23:59:59Z", "9999-12-31T00:00:00Z", "9999-12-31T23:59:59Z");
    struct window w;
    char why[128];
    assert_int_equal(
        window_from_to("1970-01-01T00:00:00Z", "1970-01-02T00:00:00Z", 0, &w, why, sizeof why),
        ERR_PARSE);
}

static void test_from_to(void **state) {
    (void)state;
    struct window w;
    char why[128];
    assert_int_equal(window_from_to("2026-11-01T00:00:00Z", NULL, NOW, &w, why, sizeof why),
                     ERR_OK);
    assert_int_equal(w.from, T("2026-11-01T00:00:00Z"));
    assert_int_equal(w.to, NOW);
    assert_int_equal(window_from_to(NULL, NULL, NOW, &w, why, sizeof why), ERR_OK);
    assert_int_equal(w.to - w.from, 7 * 86400);
    assert_int_equal(window_from_to("yesterday", NULL, NOW, &w, why, sizeof why), ERR_PARSE);
    assert_non_null(strstr(why, "'from'"));
    assert_int_equal(window_from_to(NULL, "x", NOW, &w, why, sizeof why), ERR_PARSE);
    assert_non_null(strstr(why, "'to'"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_from_to),
        cmocka_unit_test(test_bounds),
    };
    return cmocka_run_group_tests_name("window", tests, NULL, NULL);
}
