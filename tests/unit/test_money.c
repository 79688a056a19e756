/* money: decimal strings <-> integer micro-dollars, exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/money.h"

static int64_t parse_ok(const char *s, enum money_flags f) {
    int64_t v = -12345;
    assert_int_equal(money_parse(s, strlen(s), f, &v), ERR_OK);
    return v;
}

static void parse_bad(const char *s, enum money_flags f, enum err want) {
    int64_t v = 777;
    assert_int_equal(money_parse(s, strlen(s), f, &v), want);
    assert_int_equal(v, 777); /* out-param untouched on failure */
}

static void test_parse_plain(void **state) {
    (void)state;
    assert_int_equal(parse_ok("23.44", 0), 23440000);
    assert_int_equal(parse_ok("0", 0), 0);
    assert_int_equal(parse_ok("-0", 0), 0);
    assert_int_equal(parse_ok("12", 0), 12000000);
    assert_int_equal(parse_ok("-5.5", 0), -5500000);
    assert_int_equal(parse_ok("+1.000001", 0), 1000001);
    assert_int_equal(parse_ok("0.00744", 0), 7440);
    assert_int_equal(parse_ok(".5", 0), 500000);
    assert_int_equal(parse_ok("0001.10", 0), 1100000);
    /* trailing zeros beyond six decimals are exact, so accepted */
    assert_int_equal(parse_ok("1.50000000", 0), 1500000);
    assert_int_equal(parse_ok("9223372036854.775807", 0), INT64_MAX);
    assert_int_equal(parse_ok("-9223372036854.775808", 0), INT64_MIN);
}

static void test_parse_rejects(void **state) {
    (void)state;
    parse_bad("", 0, ERR_PARSE);
    parse_bad("-", 0, ERR_PARSE);
    parse_bad(".", 0, ERR_PARSE);
    parse_bad("1.", 0, ERR_PARSE);
    parse_bad("12.3.4", 0, ERR_PARSE);
    parse_bad(" 1", 0, ERR_PARSE);
    parse_bad("1 ", 0, ERR_PARSE);
    parse_bad("1,5", 0, ERR_PARSE);
    parse_bad("NaN", 0, ERR_PARSE);
    parse_bad("1e3", 0, ERR_PARSE); /* exponent only when asked */
    parse_bad("0x10", 0, ERR_PARSE);
    parse_bad("1.0000001", 0, ERR_PARSE); /* >6 decimals, not zeros */
    parse_bad("9223372036854.775808", 0, ERR_TOOBIG);
    parse_bad("99999999999999999999", 0, ERR_TOOBIG);
}

static void test_parse_round(void **state) {
    (void)state;
    assert_int_equal(parse_ok("1.2345674", MONEY_ROUND), 1234567);
    assert_int_equal(parse_ok("1.2345675", MONEY_ROUND), 1234568);
    assert_int_equal(parse_ok("-1.2345675", MONEY_ROUND), -1234568);
    assert_int_equal(parse_ok("0.0000004", MONEY_ROUND), 0);
    assert_int_equal(parse_ok("0.00000049999", MONEY_ROUND), 0);
    assert_int_equal(parse_ok("0.0000005", MONEY_ROUND), 1);
    assert_int_equal(parse_ok("2.678571428571429", MONEY_ROUND), 2678571);
}

static void test_parse_exponent(void **state) {
    (void)state;
    enum money_flags f = MONEY_EXPONENT | MONEY_ROUND;
    assert_int_equal(parse_ok("1e3", f), 1000000000);
    assert_int_equal(parse_ok("1.5E-3", f), 1500);
    assert_int_equal(parse_ok("7.44e-3", f), 7440);
    assert_int_equal(parse_ok("1e-7", f), 0);
    parse_bad("1e", f, ERR_PARSE);
    parse_bad("1e+", f, ERR_PARSE);
    parse_bad("1e-7", MONEY_EXPONENT, ERR_PARSE);
    parse_bad("1e30", f, ERR_TOOBIG);
}

static void test_format(void **state) {
    (void)state;
    char b[MONEY_FMT_MAX];
    money_format(4800000, b);
    assert_string_equal(b, "4.8");
    money_format(4213, b);
    assert_string_equal(b, "0.004213");
    money_format(0, b);
    assert_string_equal(b, "0");
    money_format(-1, b);
    assert_string_equal(b, "-0.000001");
    money_format(14400000, b);
    assert_string_equal(b, "14.4");
    money_format(INT64_MIN, b);
    assert_string_equal(b, "-9223372036854.775808");
    money_format_fixed(4800000, b);
    assert_string_equal(b, "4.800000");
    money_format_fixed(-20000, b);
    assert_string_equal(b, "-0.020000");
    /* round trip */
    for (int64_t v = -2000003; v <= 2000003; v += 99991) {
        int64_t back;
        size_t n = money_format(v, b);
        assert_int_equal(money_parse(b, n, 0, &back), ERR_OK);
        assert_int_equal(back, v);
    }
}

static void test_muldiv(void **state) {
    (void)state;
    int64_t v;
    /* 3660 s at $1.80/h: 3660 * 1800000 / 3600 = 1830000 */
    assert_int_equal(money_muldiv(3660, 1800000, 3600, &v), ERR_OK);
    assert_int_equal(v, 1830000);
    /* half away from zero */
    assert_int_equal(money_muldiv(1, 1, 2, &v), ERR_OK);
    assert_int_equal(v, 1);
    assert_int_equal(money_muldiv(-1, 1, 2, &v), ERR_OK);
    assert_int_equal(v, -1);
    assert_int_equal(money_muldiv(1, 1, 3, &v), ERR_OK);
    assert_int_equal(v, 0);
    /* 128-bit intermediate: no overflow for big products */
    assert_int_equal(money_muldiv(INT64_MAX, 1000, 1000, &v), ERR_OK);
    assert_int_equal(v, INT64_MAX);
    assert_int_equal(money_muldiv(INT64_MAX, 2, 1, &v), ERR_TOOBIG);
    assert_int_equal(money_muldiv(1, 1, 0, &v), ERR_INVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_plain), cmocka_unit_test(test_parse_rejects),
        cmocka_unit_test(test_parse_round), cmocka_unit_test(test_parse_exponent),
        cmocka_unit_test(test_format),      cmocka_unit_test(test_muldiv),
    };
    return cmocka_run_group_tests_name("money", tests, NULL, NULL);
}
