/* Parsers fed truncated, too deep and too big JSON answer with clear errors (the
 * gaps test_k8s_api.c and test_do_api.c left): ERR_PARSE for truncated bodies and
 * nesting beyond the tokener depth, ERR_TOOBIG for a length json-c cannot take
 * (checked before any byte is read), and a reason in `why` for DigitalOcean. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <limits.h>

#include "source/do_api.h"
#include "source/k8s_api.h"
#include "base/log.h"

static const char POD_LIST[] =
    "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[{\"metadata\":"
    "{\"name\":\"p\",\"namespace\":\"batch\",\"uid\":\"u-1\",\"creationTimestamp\":"
    "\"2026-11-09T00:00:00Z\"},\"spec\":{\"nodeName\":\"n\"},\"status\":{\"phase\":"
    "\"Running\"}}]}";

/* every proper prefix of a valid List page is refused, never half-parsed */
static void test_k8s_truncated(void **state) {
    (void)state;
    size_t n = strlen(POD_LIST);
    struct k8s_list l;
    assert_int_equal(k8s_list_parse(POD_LIST, n, K8S_POD, &l), ERR_OK);
    assert_int_equal(l.n, 1);
    k8s_list_release(&l);
    for (size_t cut = 0; cut < n; cut++) {
        memset(&l, 0, sizeof l);
        enum err rc = k8s_list_parse(POD_LIST, cut, K8S_POD, &l);
        if (rc != ERR_PARSE)
            fail_msg("prefix of %zu bytes: %s", cut, err_str(rc));
        k8s_list_release(&l);
        struct k8s_watch_event ev;
        memset(&ev, 0, sizeof ev);
        assert_int_equal(k8s_watch_parse(POD_LIST, cut, K8S_POD, &ev), ERR_PARSE);
    }
}

static char *nested(const char *head, int depth, const char *tail) {
    size_t n = strlen(head) + 2 * (size_t)depth + strlen(tail) + 1;
    char *s = malloc(n);
    assert_non_null(s);
    char *p = s;
    memcpy(p, head, strlen(head));
    p += strlen(head);
    memset(p, '[', (size_t)depth);
    p += depth;
    memset(p, ']', (size_t)depth);
    p += depth;
    memcpy(p, tail, strlen(tail) + 1);
    return s;
}

/* managedFields-like nesting up to the depth is fine; beyond it is ERR_PARSE */
static void test_k8s_deep(void **state) {
    (void)state;
    struct k8s_object o;
    char *ok = nested("{\"metadata\":{\"uid\":\"u\"},\"x\":", K8S_JSON_DEPTH - 8, "}");
    assert_int_equal(k8s_object_parse(ok, strlen(ok), K8S_JOB, &o), ERR_OK);
    k8s_object_release(&o);
    char *deep = nested("{\"metadata\":{\"uid\":\"u\"},\"x\":", 100000, "}");
    assert_int_equal(k8s_object_parse(deep, strlen(deep), K8S_JOB, &o), ERR_PARSE);
    struct k8s_list l;
    memset(&l, 0, sizeof l);
    assert_int_equal(k8s_list_parse(deep, strlen(deep), K8S_POD, &l), ERR_PARSE);
    free(ok);
    free(deep);
}

/* a length json-c's int cannot hold is refused before the buffer is read */
static void test_too_big(void **state) {
    (void)state;
    const char *b = "{}";
    size_t huge = (size_t)INT_MAX + 1;
    struct k8s_object o;
    struct k8s_list l;
    struct k8s_watch_event ev;
    memset(&l, 0, sizeof l);
    assert_int_equal(k8s_object_parse(b, huge, K8S_POD, &o), ERR_TOOBIG);
    assert_int_equal(k8s_list_parse(b, huge, K8S_POD, &l), ERR_TOOBIG);
    assert_int_equal(k8s_watch_parse(b, huge, K8S_POD, &ev), ERR_TOOBIG);
    char why[DO_API_WHY_MAX];
    struct do_pools p;
    struct do_sizes sz;
    enum err rc = do_api_parse_pools(b, huge, &p, why, sizeof why);
    assert_true(rc == ERR_TOOBIG || rc == ERR_PARSE);
    rc = do_api_parse_sizes(b, huge, &sz, why, sizeof why);
    assert_true(rc == ERR_TOOBIG || rc == ERR_PARSE);
}

/* DigitalOcean: every prefix of a page is ERR_PARSE with a reason; deep is refused */
static void test_do_truncated_deep(void **state) {
    (void)state;
    const char *page = "{\"sizes\":[{\"slug\":\"s-1vcpu-1gb\",\"price_hourly\":0.00744,"
                       "\"price_monthly\":5.0,\"vcpus\":1,\"memory\":1024,\"available\":true}],"
                       "\"links\":{},\"meta\":{\"total\":1}}";
    char why[DO_API_WHY_MAX];
    struct do_sizes s;
    assert_int_equal(do_api_parse_sizes(page, strlen(page), &s, why, sizeof why), ERR_OK);
    do_sizes_release(&s);
    for (size_t cut = 0; cut < strlen(page); cut++) {
        why[0] = '\0';
        assert_int_equal(do_api_parse_sizes(page, cut, &s, why, sizeof why), ERR_PARSE);
        assert_true(why[0] != '\0');
    }
    char *deep = nested("{\"sizes\":", 100000, "}");
    assert_int_equal(do_api_parse_sizes(deep, strlen(deep), &s, why, sizeof why), ERR_PARSE);
    struct do_balance b;
    assert_int_equal(do_api_parse_balance(deep, strlen(deep), &b, why, sizeof why), ERR_PARSE);
    free(deep);
}

/* the task report: truncated or deep text is 'bad', never a crash or 'ok' */
static void test_report_truncated_deep(void **state) {
    (void)state;
    const char *r = "{\"work_seconds\":3560,\"restore_seconds\":120}";
    struct k8s_task_report t;
    assert_int_equal(k8s_task_report_parse(r, strlen(r), &t), K8S_REPORT_OK);
    assert_int_equal(k8s_task_report_parse(r, 10, &t), K8S_REPORT_BAD);
    char *deep = nested("{\"work_seconds\":", 100000, "}");
    assert_int_equal(k8s_task_report_parse(deep, strlen(deep), &t), K8S_REPORT_BAD);
    free(deep);
}

int main(void) {
    log_set_level(LOG_OFF);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_k8s_truncated),
        cmocka_unit_test(test_k8s_deep),
        cmocka_unit_test(test_too_big),
        cmocka_unit_test(test_do_truncated_deep),
        cmocka_unit_test(test_report_truncated_deep),
    };
    return cmocka_run_group_tests_name("badjson", tests, NULL, NULL);
}
