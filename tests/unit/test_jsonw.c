/* jsonw: escaping, nesting, exact money. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "base/jsonw.h"
#include "textout_fx.h"

static void test_nesting_and_values(void **state) {
    struct textout_fx *o = *state;
    struct jsonw *w = &o->w;
    jsonw_obj(w);
    jsonw_kstr(w, "a", "x");
    jsonw_key(w, "list");
    jsonw_arr(w);
    jsonw_int(w, -3);
    jsonw_bool(w, true);
    jsonw_null(w);
    jsonw_money(w, 4800000);
    jsonw_money(w, 4213);
    jsonw_fixed(w, 1250, 2);
    jsonw_fixed(w, -5, 2);
    jsonw_arr_end(w);
    jsonw_ktime(w, "t", 1795964645);
    jsonw_ktime(w, "unknown", 0);
    jsonw_key(w, "empty");
    jsonw_obj(w);
    jsonw_obj_end(w);
    jsonw_obj_end(w);
    assert_int_equal(w->rc, ERR_OK);
    assert_string_equal(buf_str(&o->b),
                        "{\"a\":\"x\",\"list\":[-3,true,null,4.8,0.004213,12.5,-0.05],"
                        "\"t\":\"2026-11-29T15:04:05Z\",\"unknown\":null,\"empty\":{}}");
}

static void test_escaping(void **state) {
    struct textout_fx *fx = *state;
    struct buf *b = &fx->b;
    const char in[] = "q\"b\\n\n\x01\x7f\xc3\xa9\xff\xe2\x82";
    assert_int_equal(jsonw_escape(b, in, sizeof in - 1), ERR_OK);
    assert_string_equal(
        buf_str(b), "\"q\\\"b\\\\n\\n\\u0001\\u007f\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    /* the result is valid JSON that json-c reads back */
    json_object *o = json_tokener_parse(buf_str(b));
    assert_non_null(o);
    assert_true(json_object_is_type(o, json_type_string));
    json_object_put(o);
}

/* issue 18: a time is RFC 3339 or null, by one rule (was "" past year 9999) */
static void test_times(void **state) {
    struct textout_fx *o = *state;
    struct jsonw *w = &o->w;
    jsonw_arr(w);
    jsonw_time(w, 0);
    jsonw_time(w, 1);
    jsonw_time(w, 253402300799LL); /* 9999-12-31T23:59:59Z */
    jsonw_time(w, 253402300800LL); /* 10000-01-01: not RFC 3339 */
    jsonw_time(w, -62167219201LL); /* year -1 */
    jsonw_arr_end(w);
    assert_string_equal(buf_str(&o->b),
                        "[null,\"1970-01-01T00:00:01Z\",\"9999-12-31T23:59:59Z\",null,null]");
}

static void test_cap_sticks(void **state) {
    (void)state;
    struct buf b;
    struct jsonw w;
    buf_init(&b, 16);
    jsonw_init(&w, &b);
    jsonw_arr(&w);
    for (int i = 0; i < 100; i++)
        jsonw_str(&w, "abcdef");
    jsonw_arr_end(&w);
    assert_int_equal(w.rc, ERR_TOOBIG);
    assert_true(b.len <= 16);
    buf_release(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nesting_and_values, textout_fx_setup,
                                        textout_fx_teardown),
        cmocka_unit_test_setup_teardown(test_escaping, textout_fx_setup, textout_fx_teardown),
        cmocka_unit_test(test_cap_sticks),
        cmocka_unit_test_setup_teardown(test_times, textout_fx_setup, textout_fx_teardown),
    };
    return cmocka_run_group_tests_name("jsonw", tests, NULL, NULL);
}
