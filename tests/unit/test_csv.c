/* csv: RFC 4180 quoting and spreadsheet-formula neutralisation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/csv.h"

static void test_record(void **state) {
    (void)state;
    struct buf b;
    struct csv c;
    buf_init(&b, 0);
    csv_init(&c, &b);
    csv_text(&c, "plain");
    csv_text(&c, "a,b");
    csv_text(&c, "say \"hi\"");
    csv_text(&c, "two\nlines");
    csv_text(&c, NULL);
    csv_int(&c, -3);
    csv_money(&c, -1500000);
    csv_time(&c, 1795964645);
    csv_time(&c, 0);
    csv_end_record(&c);
    csv_text(&c, "x");
    csv_end_record(&c);
    assert_int_equal(c.rc, ERR_OK);
    assert_string_equal(buf_str(&b), "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",,-3,"
                                     "-1.500000,2026-11-29 15:04:05,\r\nx\r\n");
    buf_release(&b);
}

static void test_inert(void **state) {
    (void)state;
    const char *in[] = {"=HYPERLINK(\"x\")", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"};
    const char *out[] = {"\"'=HYPERLINK(\"\"x\"\")\"",
                         "\"'+1\"",
                         "\"'-2+3\"",
                         "\"'@SUM(A1)\"",
                         "\"'\tx\"",
                         "\"'\rx\""};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        struct buf b;
        struct csv c;
        buf_init(&b, 0);
        csv_init(&c, &b);
        csv_text(&c, in[i]);
        assert_string_equal(buf_str(&b), out[i]);
        buf_release(&b);
    }
}

static void test_utf8(void **state) {
    (void)state;
    struct buf b;
    struct csv c;
    buf_init(&b, 0);
    csv_init(&c, &b);
    csv_text(&c, "caf\xc3\xa9 \xff");
    assert_string_equal(buf_str(&b), "caf\xc3\xa9 \xef\xbf\xbd");
    buf_release(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record),
        cmocka_unit_test(test_inert),
        cmocka_unit_test(test_utf8),
    };
    return cmocka_run_group_tests_name("csv", tests, NULL, NULL);
}
