/* auth: constant-time comparison semantics and the 401/403 rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "service/app.h"
#include "http/auth.h"
#include "base/xalloc.h"

static void test_equal(void **state) {
    (void)state;
    assert_true(auth_token_equal("abc", "abc"));
    assert_false(auth_token_equal("abd", "abc"));
    assert_false(auth_token_equal("ab", "abc"));
    assert_false(auth_token_equal("abcd", "abc"));
    assert_false(auth_token_equal("", "abc"));
    assert_false(auth_token_equal(NULL, "abc"));
    assert_false(auth_token_equal("abc", NULL));
}

static int check(struct app *app, const char *authz, enum auth_level level, int *status) {
    struct request req;
    struct response resp;
    request_init(&req);
    response_init(&resp);
    req.app = app;
    req.authorization = authz ? xstrdup(authz) : NULL;
    bool ok = auth_check(&req, level, &resp);
    *status = ok ? 200 : resp.status;
    int has_www = 0;
    for (int i = 0; i < resp.nheaders; i++)
        if (!strcmp(resp.headers[i][0], "WWW-Authenticate"))
            has_www = 1;
    request_release(&req);
    response_release(&resp);
    return has_www;
}

static void test_rules(void **state) {
    (void)state;
    struct app app;
    memset(&app, 0, sizeof app);
    int st;
    /* no tokens configured: reads open, admin refused with 403 */
    check(&app, NULL, AUTH_READ, &st);
    assert_int_equal(st, 200);
    check(&app, NULL, AUTH_ADMIN, &st);
    assert_int_equal(st, 403);
    app.api_token = (char *)"read-tok";
    app.admin_token = (char *)"admin-tok";
    assert_int_equal(check(&app, NULL, AUTH_READ, &st), 1);
    assert_int_equal(st, 401);
    assert_int_equal(check(&app, "Bearer wrong", AUTH_READ, &st), 1);
    assert_int_equal(st, 401);
    check(&app, "Basic read-tok", AUTH_READ, &st);
    assert_int_equal(st, 401);
    check(&app, "Bearer read-tok", AUTH_READ, &st);
    assert_int_equal(st, 200);
    check(&app, "bearer  read-tok", AUTH_READ, &st);
    assert_int_equal(st, 200);
    check(&app, "Bearer admin-tok", AUTH_READ, &st);
    assert_int_equal(st, 200);
    assert_int_equal(check(&app, "Bearer read-tok", AUTH_ADMIN, &st), 0);
    assert_int_equal(st, 403);
    check(&app, "Bearer admin-tok", AUTH_ADMIN, &st);
    assert_int_equal(st, 200);
    check(&app, "Bearer nope", AUTH_ADMIN, &st);
    assert_int_equal(st, 401);
    check(&app, NULL, AUTH_OPEN, &st);
    assert_int_equal(st, 200);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal),
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests_name("auth", tests, NULL, NULL);
}
