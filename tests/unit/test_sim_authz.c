/* sim_authz: spotsim's planted denials: a DigitalOcean scope by path, a
 * Kubernetes verb by request, and SelfSubjectAccessReview answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/log.h"
#include "sim/sim_authz.h"

static void test_do_scopes(void **state) {
    (void)state;
    struct sim_authz a;
    memset(&a, 0, sizeof a);
    assert_int_equal(sim_authz_deny_scope(&a, "billing:write"), ERR_INVAL);
    assert_int_equal(sim_authz_deny_scope(&a, "billing:read"), ERR_OK);
    assert_true(sim_authz_do_denied(&a, "/v2/customers/my/balance"));
    assert_true(sim_authz_do_denied(&a, "/v2/billing/some/insights"));
    assert_false(sim_authz_do_denied(&a, "/v2/sizes"));
    assert_false(sim_authz_do_denied(&a, "/v2/kubernetes/clusters"));
    assert_string_equal(sim_authz_do_scope("/v2/kubernetes/clusters/x/node_pools"),
                        "kubernetes:read");
    assert_null(sim_authz_do_scope("/healthz"));
}

static void test_k8s_verbs(void **state) {
    (void)state;
    struct sim_authz a;
    memset(&a, 0, sizeof a);
    assert_int_equal(sim_authz_deny_verb(&a, "delete:pods"), ERR_INVAL);
    assert_int_equal(sim_authz_deny_verb(&a, "watch"), ERR_INVAL);
    assert_int_equal(sim_authz_deny_verb(&a, "watch:pods"), ERR_OK);
    char verb[16], res[64];
    assert_true(sim_authz_k8s_request("/api/v1/namespaces/batch/pods", true, verb, res));
    assert_string_equal(verb, "watch");
    assert_string_equal(res, "pods");
    assert_true(sim_authz_k8s_denied(&a, verb, res));
    assert_true(sim_authz_k8s_request("/api/v1/pods", false, verb, res));
    assert_string_equal(verb, "list");
    assert_false(sim_authz_k8s_denied(&a, verb, res));
    assert_true(sim_authz_k8s_request("/apis/batch/v1/namespaces/b/jobs/j1", false, verb, res));
    assert_string_equal(verb, "get");
    assert_string_equal(res, "jobs");
    assert_false(sim_authz_k8s_request("/apis/batch/v1", false, verb, res)); /* discovery */
    assert_false(sim_authz_k8s_request("/api", false, verb, res));
}

static void test_ssar(void **state) {
    (void)state;
    struct sim_authz a;
    memset(&a, 0, sizeof a);
    assert_int_equal(sim_authz_deny_verb(&a, "watch:pods"), ERR_OK);
    assert_true(
        sim_authz_is_ssar("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"));
    assert_false(
        sim_authz_is_ssar("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"));
    const char *deny = "{\"spec\":{\"resourceAttributes\":{\"verb\":\"watch\",\"group\":\"\","
                       "\"resource\":\"pods\"}}}";
    const char *allow = "{\"spec\":{\"resourceAttributes\":{\"verb\":\"list\",\"group\":\"\","
                        "\"resource\":\"pods\"}}}";
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(sim_authz_ssar(&a, deny, strlen(deny), &b), ERR_OK);
    assert_non_null(strstr(buf_str(&b), "\"allowed\":false"));
    buf_reset(&b);
    assert_int_equal(sim_authz_ssar(&a, allow, strlen(allow), &b), ERR_OK);
    assert_non_null(strstr(buf_str(&b), "\"allowed\":true"));
    buf_reset(&b);
    assert_int_equal(sim_authz_ssar(&a, "{\"spec\":{}}", 11, &b), ERR_PARSE);
    assert_int_equal(sim_authz_ssar(&a, "{\"sp", 4, &b), ERR_PARSE);
    buf_release(&b);
}

int main(void) {
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_do_scopes),
        cmocka_unit_test(test_k8s_verbs),
        cmocka_unit_test(test_ssar),
    };
    return cmocka_run_group_tests_name("sim_authz", tests, NULL, NULL);
}
