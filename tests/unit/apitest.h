/* apitest — one in-process HTTP exchange against the router (header only).
 *
 * apitest_setup() builds a service state (config from flags, app, a temporary
 * database from testdb.h, a read-only connection like the server's threads
 * have); apitest_call() turns "GET /api/v1/x?a=1&b=2" into a struct request,
 * runs router_handle() (the same entry point server.c uses) and keeps the
 * response and its body parsed as JSON (NULL when it is not JSON). The j*
 * helpers read the body by a dotted path ("configurations.0.cost"); money is
 * compared in micro-dollars (jmicro). */
#ifndef SPOTLEDGER_TEST_APITEST_H
#define SPOTLEDGER_TEST_APITEST_H

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/log.h"
#include "base/request.h"
#include "http/router.h"
#include "service/app.h"
#include "service/config.h"
#include "store/store.h"
#include "testdb.h"

struct apitest {
    struct testdb db;
    struct config cfg;
    struct app app;
    struct store *reader;
    int64_t now; /* req->now of every call (the wall clock the handler sees) */
    struct response resp;
    bool have_resp;
    struct json_object *json; /* the last body, parsed; NULL if not JSON */
};

static inline const char *apitest_no_env(const char *n) {
    (void)n;
    return NULL;
}

/* flags: extra command-line flags for config_parse (NULL-terminated list or NULL).
 * The database is created empty; add rows with testdb_* then call apitest_open(). */
static inline void apitest_setup(struct apitest *t, const char *const *flags) {
    memset(t, 0, sizeof *t);
    log_set_level(LOG_OFF);
    testdb_create(&t->db);
    char *argv[32] = {(char *)"spotledger"};
    int argc = 1;
    for (int i = 0; flags && flags[i] && argc < 31; i++)
        argv[argc++] = (char *)flags[i];
    char err[256];
    if (config_parse(&t->cfg, argc, argv, apitest_no_env, err, sizeof err) != CONFIG_OK)
        fail_msg("config: %s", err);
    app_init(&t->app);
    app_use_config(&t->app, &t->cfg); /* as the service does: app.cfg and app.calc */
    t->now = TESTDB_T0 + 8 * 86400;   /* the week of TESTDB_T0 is closed */
}

/* Opens the read-only connection the handlers use (after the rows are in). */
static inline void apitest_open(struct apitest *t) {
    if (t->reader)
        store_free(t->reader);
    assert_int_equal(store_open(t->db.path, STORE_READER, &t->reader, NULL), ERR_OK);
}

static inline void apitest_clear(struct apitest *t) {
    if (t->have_resp)
        response_release(&t->resp);
    t->have_resp = false;
    if (t->json)
        json_object_put(t->json);
    t->json = NULL;
}

static inline void apitest_teardown(struct apitest *t) {
    apitest_clear(t);
    store_free(t->reader);
    t->reader = NULL;
    if (t->app.writer)
        store_free(t->app.writer);
    app_release(&t->app);
    config_release(&t->cfg);
    testdb_remove(&t->db);
}

/* cmocka setup: a fresh state holding the rows fill() inserts. */
static inline int apitest_setup_rows(void **state, void (*fill)(const struct testdb *)) {
    struct apitest *t = calloc(1, sizeof *t);
    assert_non_null(t);
    apitest_setup(t, NULL);
    fill(&t->db);
    apitest_open(t);
    *state = t;
    return 0;
}

/* cmocka setup/teardown: a fresh state holding the worked example (testdb.h). */
static inline int apitest_setup_worked(void **state) {
    return apitest_setup_rows(state, testdb_worked_example);
}

static inline int apitest_teardown_state(void **state) {
    apitest_teardown(*state);
    free(*state);
    return 0;
}

/* Decodes %XX and '+' in place. */
static inline void apitest_unescape(char *s) {
    char *o = s;
    for (; *s; s++) {
        if (*s == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
            char hex[3] = {s[1], s[2], 0};
            *o++ = (char)strtol(hex, NULL, 16);
            s += 2;
        } else {
            *o++ = *s == '+' ? ' ' : *s;
        }
    }
    *o = '\0';
}

/* "METHOD /path?query": runs it; returns the status. auth: Authorization header or NULL. */
static inline int apitest_call_auth(struct apitest *t, const char *line, const char *auth) {
    apitest_clear(t);
    char *copy = strdup(line);
    assert_non_null(copy);
    char *sp = strchr(copy, ' ');
    assert_non_null(sp);
    *sp = '\0';
    char *target = sp + 1, *q = strchr(target, '?');
    if (q)
        *q++ = '\0';
    struct request req;
    request_init(&req);
    req.method = strdup(copy);
    req.path = strdup(target);
    apitest_unescape(req.path);
    while (q && *q) {
        char *amp = strchr(q, '&');
        if (amp)
            *amp = '\0';
        char *eq = strchr(q, '=');
        if (eq)
            *eq = '\0';
        apitest_unescape(q);
        if (eq)
            apitest_unescape(eq + 1);
        request_add_param(&req, q, eq ? eq + 1 : "");
        q = amp ? amp + 1 : NULL;
    }
    if (auth)
        req.authorization = strdup(auth);
    req.now = t->now;
    req.db = t->reader;
    req.app = &t->app;
    response_init(&t->resp);
    t->have_resp = true;
    router_handle(&req, &t->resp);
    request_release(&req);
    free(copy);
    if (t->resp.body.len && t->resp.fd < 0)
        t->json = json_tokener_parse(buf_str(&t->resp.body));
    return t->resp.status;
}

static inline int apitest_call(struct apitest *t, const char *line) {
    return apitest_call_auth(t, line, NULL);
}

/* The response body as text ("" when empty). */
static inline const char *apitest_body(struct apitest *t) {
    return t->resp.body.len ? buf_str(&t->resp.body) : "";
}

/* The value at a dotted path ("a.b.0.c": keys, array indexes) into *out; false
 * when absent. A JSON null is found with *out == NULL (json-c's null). */
static inline bool jfind(struct json_object *o, const char *path, struct json_object **out) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf, *dot; p; p = dot ? dot + 1 : NULL) {
        if (!o)
            return false; /* below a null */
        dot = strchr(p, '.');
        if (dot)
            *dot = '\0';
        if (json_object_is_type(o, json_type_array)) {
            char *end;
            long i = strtol(p, &end, 10);
            if (*end || i < 0 || (size_t)i >= json_object_array_length(o))
                return false;
            o = json_object_array_get_idx(o, (size_t)i);
        } else if (!json_object_is_type(o, json_type_object) ||
                   !json_object_object_get_ex(o, p, &o)) {
            return false;
        }
    }
    *out = o;
    return true;
}

/* Fails unless the body has path (which may be null). */
static inline struct json_object *jmust(struct apitest *t, const char *path) {
    if (!t->json)
        fail_msg("not JSON: %.300s", apitest_body(t));
    struct json_object *o = NULL;
    if (!jfind(t->json, path, &o))
        fail_msg("no '%s' in %.600s", path, apitest_body(t));
    return o;
}

/* Fails unless the body has a non-null value at path. */
static inline struct json_object *jval(struct apitest *t, const char *path) {
    struct json_object *o = jmust(t, path);
    if (!o)
        fail_msg("'%s' is null in %.600s", path, apitest_body(t));
    return o;
}

static inline int64_t jint(struct apitest *t, const char *path) {
    struct json_object *o = jval(t, path);
    assert_true(json_object_is_type(o, json_type_int));
    return json_object_get_int64(o);
}

/* A money value (a JSON number of dollars, 6 decimals at most) in micro-dollars. */
static inline int64_t jmicro(struct apitest *t, const char *path) {
    struct json_object *o = jval(t, path);
    assert_true(json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double));
    return (int64_t)llround(json_object_get_double(o) * 1e6);
}

static inline const char *jstr(struct apitest *t, const char *path) {
    struct json_object *o = jval(t, path);
    if (!json_object_is_type(o, json_type_string))
        fail_msg("'%s' is not a string in %.600s", path, apitest_body(t));
    return json_object_get_string(o);
}

static inline bool jnull(struct apitest *t, const char *path) {
    return jmust(t, path) == NULL;
}

static inline size_t jlen(struct apitest *t, const char *path) {
    struct json_object *o = path && *path ? jval(t, path) : t->json;
    assert_non_null(o);
    assert_true(json_object_is_type(o, json_type_array));
    return json_object_array_length(o);
}

/* The error code of an error body. */
static inline const char *jerr(struct apitest *t) {
    return jstr(t, "error.code");
}

#endif
