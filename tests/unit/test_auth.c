/* auth: constant-time comparison semantics and the 401/403 rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "service/app.h"
#include "http/auth.h"
#include "base/xalloc.h"

static void test_equal(void **state) {
    (void)state;
    static const struct {
        const char *a, *b;
        bool equal;
    } rows[] = {
        {"abc", "abc", true}, {"abd", "abc", false}, {"ab", "abc", false}, {"abcd", "abc", false},
        {"", "abc", false},   {NULL, "abc", false},  {"abc", NULL, false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        print_message("row %zu: \"%s\" vs \"%s\"\n", i, rows[i].a ? rows[i].a : "(null)",
                      rows[i].b ? rows[i].b : "(null)");
        assert_int_equal(auth_token_equal(rows[i].a, rows[i].b), rows[i].equal);
    }
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

/* One auth_check: the Authorization header (NULL: none), the level asked, the status
 * expected and whether a WWW-Authenticate header is expected (-1: not checked). */
struct rule_row {
    const char *authz;
    enum auth_level level;
    int status;
    int www;
};

static void check_rows(struct app *app, const struct rule_row *rows, size_t n) {
    for (size_t i = 0; i < n; i++) {
        print_message("row %zu: %s at level %d\n", i, rows[i].authz ? rows[i].authz : "(none)",
                      (int)rows[i].level);
        int st;
        int www = check(app, rows[i].authz, rows[i].level, &st);
        if (rows[i].www >= 0)
            assert_int_equal(www, rows[i].www);
        assert_int_equal(st, rows[i].status);
    }
}

static void test_rules(void **state) {
    (void)state;
    struct app app;
    memset(&app, 0, sizeof app);
    /* no tokens configured: reads open, admin refused with 403 */
    static const struct rule_row open_rows[] = {
        {NULL, AUTH_READ, 200, -1},
        {NULL, AUTH_ADMIN, 403, -1},
    };
    check_rows(&app, open_rows, sizeof open_rows / sizeof open_rows[0]);
    app.api_token = (char *)"read-tok";
    app.admin_token = (char *)"admin-tok";
    static const struct rule_row token_rows[] = {
        {NULL, AUTH_READ, 401, 1},
        {"Bearer wrong", AUTH_READ, 401, 1},
        {"Basic read-tok", AUTH_READ, 401, -1},
        {"Bearer read-tok", AUTH_READ, 200, -1},
        {"bearer  read-tok", AUTH_READ, 200, -1},
        {"Bearer admin-tok", AUTH_READ, 200, -1},
        {"Bearer read-tok", AUTH_ADMIN, 403, 0},
        {"Bearer admin-tok", AUTH_ADMIN, 200, -1},
        {"Bearer nope", AUTH_ADMIN, 401, -1},
        {NULL, AUTH_OPEN, 200, -1},
    };
    check_rows(&app, token_rows, sizeof token_rows / sizeof token_rows[0]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal),
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests_name("auth", tests, NULL, NULL);
}
