#include "http/auth.h"

#include <string.h>
#include <strings.h>

#include "service/app.h"

bool auth_token_equal(const char *a, const char *b) {
    if (!a || !b)
        return false;
    size_t la = strlen(a), lb = strlen(b);
    /* walk b's full length whatever a holds; fold the length difference in */
    unsigned char diff = (unsigned char)(la != lb);
    for (size_t i = 0; i < lb; i++) {
        unsigned char ca = i < la ? (unsigned char)a[i] : 0;
        diff |= (unsigned char)(ca ^ (unsigned char)b[i]);
    }
    return diff == 0;
}

/* The token of "Authorization: Bearer <token>", or NULL. Loan from req. */
static const char *bearer(const struct request *req) {
    const char *h = req->authorization;
    if (!h || strncasecmp(h, "Bearer ", 7) != 0)
        return NULL;
    h += 7;
    while (*h == ' ')
        h++;
    return *h ? h : NULL;
}

bool auth_check(const struct request *req, enum auth_level level, struct response *resp) {
    const struct app *app = req->app;
    if (level == AUTH_METRICS)
        level = AUTH_READ;
    if (level == AUTH_OPEN || !app)
        return true;
    const char *tok = bearer(req);
    bool admin = app->admin_token && auth_token_equal(tok, app->admin_token);
    if (level == AUTH_READ) {
        if (!app->api_token || admin || auth_token_equal(tok, app->api_token))
            return true;
    } else if (admin) {
        return true;
    }
    bool is_reader = app->api_token && auth_token_equal(tok, app->api_token);
    if (level == AUTH_ADMIN && (is_reader || (!app->api_token && !tok))) {
        response_error(resp, 403, "forbidden",
                       app->admin_token ? "this route needs the admin token"
                                        : "admin routes are disabled (no --admin-token-file)");
        return false;
    }
    response_header(resp, "WWW-Authenticate", "Bearer realm=\"spotledger\"");
    response_error(resp, 401, "unauthorized",
                   tok ? "the bearer token is not valid" : "a bearer token is required");
    return false;
}
