/* json_trim: the trimmed parse equals json-c's full parse of the same document
 * with every managedFields member deleted afterwards (the oracle: json-c itself);
 * strings that only look like the key, non-array values and malformed documents
 * are left to json-c as they are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "source/json_trim.h"

/* Deletes managedFields members holding arrays, at every depth (the oracle). */
static void strip(json_object *o) {
    if (json_object_is_type(o, json_type_object)) {
        json_object *v;
        if (json_object_object_get_ex(o, "managedFields", &v) &&
            json_object_is_type(v, json_type_array))
            json_object_object_del(o, "managedFields");
        json_object_object_foreach(o, k, child) {
            (void)k;
            strip(child);
        }
    } else if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++)
            strip(json_object_array_get_idx(o, i));
    }
}

static json_object *trimmed(const char *doc, enum json_tokener_error *err) {
    json_tokener *tok = json_tokener_new_ex(64);
    json_object *o = json_trim_parse(tok, doc, strlen(doc), err);
    json_tokener_free(tok);
    return o;
}

static void same_as_oracle(const char *doc) {
    enum json_tokener_error err;
    json_object *got = trimmed(doc, &err);
    json_object *want = json_tokener_parse(doc);
    assert_non_null(want);
    strip(want);
    if (!got)
        fail_msg("trimmed parse failed (%s) on %s", json_tokener_error_desc(err), doc);
    if (!json_object_equal(got, want))
        fail_msg("%s\n  trimmed: %s\n  oracle:  %s", doc, json_object_to_json_string(got),
                 json_object_to_json_string(want));
    json_object_put(got);
    json_object_put(want);
}

static void test_members(void **state) {
    (void)state;
    /* first, middle, last, only member; spaces around; nested objects and arrays */
    same_as_oracle("{\"managedFields\":[{\"manager\":\"kubectl\",\"fieldsV1\":{\"f:a\":{}}}],"
                   "\"uid\":\"u1\"}");
    same_as_oracle("{\"a\":1, \"managedFields\" : [ {\"x\":[1,2,{\"y\":\"]}\"}]} ] ,\"b\":2}");
    same_as_oracle("{\"a\":1,\"managedFields\":[]}");
    same_as_oracle("{\"managedFields\":[]}");
    same_as_oracle("{ \n\t\"managedFields\"\n:\n[\"a\\\"],[\"] \n, \"z\":null}");
    /* in list items, several per page */
    same_as_oracle("{\"kind\":\"PodList\",\"items\":[{\"metadata\":{\"name\":\"p1\","
                   "\"managedFields\":[{\"m\":\"F\"}],\"uid\":\"1\"}},{\"metadata\":{"
                   "\"managedFields\":[{\"m\":\"F\"}],\"uid\":\"2\"}}]}");
    /* strings that only look like the key, and a non-array value, stay */
    same_as_oracle("{\"note\":\"\\\"managedFields\\\":[1]\",\"x\":\"managedFields\"}");
    same_as_oracle("{\"a\":[\"managedFields\",\"managedFields\"]}");
    same_as_oracle("{\"managedFields\":{\"not\":\"an array\"},\"b\":\"F\"}");
    same_as_oracle("{\"k\\\"managedFields\":[1],\"F\":\"F\"}");
    same_as_oracle("[1,2,{\"managedFields\":[3]}]");
    same_as_oracle("  42  ");
}

static void test_malformed(void **state) {
    (void)state;
    enum json_tokener_error err;
    /* trailing bytes after the root, also after a cut member */
    assert_null(trimmed("{\"a\":1} x", &err));
    assert_int_equal(err, json_tokener_error_parse_unexpected);
    assert_null(trimmed("{\"a\":1} ,\"managedFields\":[1]", &err));
    assert_int_equal(err, json_tokener_error_parse_unexpected);
    /* truncated inside the member, after it, and a bare number without its end */
    assert_null(trimmed("{\"a\":1,\"managedFields\":[{\"b\":\"", &err));
    assert_null(trimmed("{\"a\":1,\"managedFields\":[1]", &err));
    json_object *o = trimmed("17", &err);
    assert_non_null(o);
    assert_int_equal(json_object_get_int(o), 17);
    json_object_put(o);
    assert_null(trimmed("", &err));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_members),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests_name("json_trim", tests, NULL, NULL);
}
