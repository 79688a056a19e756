/* csv: RFC 4180 quoting and spreadsheet-formula neutralisation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/csv.h"
#include "textout_fx.h"

static void test_record(void **state) {
    struct textout_fx *o = *state;
    struct csv *c = &o->c;
    csv_text(c, "plain");
    csv_text(c, "a,b");
    csv_text(c, "say \"hi\"");
    csv_text(c, "two\nlines");
    csv_text(c, NULL);
    csv_int(c, -3);
    csv_money(c, -1500000);
    csv_time(c, 1795964645);
    csv_time(c, 0);
    csv_end_record(c);
    csv_text(c, "x");
    csv_end_record(c);
    assert_int_equal(c->rc, ERR_OK);
    assert_string_equal(buf_str(&o->b), "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",,-3,"
                                        "-1.500000,2026-11-29 15:04:05,\r\nx\r\n");
}

static void test_inert(void **state) {
    struct textout_fx *o = *state;
    const char *in[] = {"=HYPERLINK(\"x\")", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"};
    const char *out[] = {"\"'=HYPERLINK(\"\"x\"\")\"",
                         "\"'+1\"",
                         "\"'-2+3\"",
                         "\"'@SUM(A1)\"",
                         "\"'\tx\"",
                         "\"'\rx\""};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        buf_reset(&o->b);
        csv_init(&o->c, &o->b);
        csv_text(&o->c, in[i]);
        assert_string_equal(buf_str(&o->b), out[i]);
    }
}

static void test_utf8(void **state) {
    struct textout_fx *o = *state;
    csv_text(&o->c, "caf\xc3\xa9 \xff");
    assert_string_equal(buf_str(&o->b), "caf\xc3\xa9 \xef\xbf\xbd");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_record, textout_fx_setup, textout_fx_teardown),
        cmocka_unit_test_setup_teardown(test_inert, textout_fx_setup, textout_fx_teardown),
        cmocka_unit_test_setup_teardown(test_utf8, textout_fx_setup, textout_fx_teardown),
    };
    return cmocka_run_group_tests_name("csv", tests, NULL, NULL);
}
