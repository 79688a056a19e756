/* test_err — err_str names every code of enum err (the words the API's 500s and
 * the logs carry), and anything outside the enum reads "unknown error", never NULL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/err.h"

static void test_every_code_named(void **state) {
    (void)state;
    static const struct {
        enum err rc;
        const char *want;
    } rows[] = {
        {ERR_OK, "ok"},
        {ERR_NOMEM, "out of memory"},
        {ERR_INVAL, "invalid value"},
        {ERR_IO, "i/o error"},
        {ERR_HTTP, "http error"},
        {ERR_PARSE, "parse error"},
        {ERR_DB, "database error"},
        {ERR_BUSY, "busy"},
        {ERR_NOTFOUND, "not found"},
        {ERR_TOOBIG, "too big"},
        {ERR_AUTH, "not authorized"},
        {ERR_GONE, "gone"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_string_equal(err_str(rows[i].rc), rows[i].want);
}

static void test_outside_the_enum(void **state) {
    (void)state;
    assert_string_equal(err_str((enum err)(ERR_GONE + 1)), "unknown error");
    assert_string_equal(err_str((enum err)1000), "unknown error");
    assert_string_equal(err_str((enum err) - 1), "unknown error");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_code_named),
        cmocka_unit_test(test_outside_the_enum),
    };
    return cmocka_run_group_tests_name("err", tests, NULL, NULL);
}
