/* fuzz_window — the query parsers: window_parse and window_from_to (window.h), and
 * api_query_parse (api.h) through a struct request, as the HTTP server fills it
 * after MHD decoded the query string.
 *
 * Input: three NUL-separated parts: window, from, to (an absent part is NULL), and
 * the whole input again as a query string "k=v&k=v" for api_query_parse.
 * Invariants: an accepted window has from < to and spans at most WINDOW_MAX_SPAN;
 * a refused one has a reason; api_query_parse answers true with a valid window or
 * false with a 400 whose body is {"error":{"code","message"}} JSON. */
#include <json-c/json.h>

#include "http/api.h"
#include "fuzz_common.h"
#include "query/window.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    log_set_level(LOG_OFF);
    return 0;
}

static const int64_t NOW = 1795000000; /* 2026-11-19 */

static void check_window(enum err rc, const struct window *w, const char *why) {
    FUZZ_CHECK(rc == ERR_OK || rc == ERR_PARSE);
    if (rc == ERR_OK)
        FUZZ_CHECK(w->from < w->to && w->to - w->from <= WINDOW_MAX_SPAN);
    else
        FUZZ_CHECK(why[0] != '\0');
}

static void check_error_body(const struct response *resp) {
    FUZZ_CHECK(resp->status == 400);
    json_object *o = json_tokener_parse(resp->body.data ? resp->body.data : "");
    FUZZ_CHECK(o != NULL);
    json_object *e, *code, *msg;
    FUZZ_CHECK(json_object_object_get_ex(o, "error", &e));
    FUZZ_CHECK(json_object_object_get_ex(e, "code", &code) &&
               json_object_is_type(code, json_type_string));
    FUZZ_CHECK(json_object_object_get_ex(e, "message", &msg) &&
               json_object_is_type(msg, json_type_string));
    json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096)
        return 0; /* the server refuses longer URLs (414) */
    char *s = fuzz_strndup(data, size);
    const char *part[3] = {NULL, NULL, NULL};
    size_t off = 0;
    for (int i = 0; i < 3 && off <= size; i++) {
        part[i] = s + off;
        off += strlen(s + off) + 1;
    }
    struct window w;
    char why[160];
    why[0] = '\0';
    check_window(window_parse(part[0], NOW, &w, why, sizeof why), &w, why);
    why[0] = '\0';
    check_window(window_from_to(part[1], part[2], NOW, &w, why, sizeof why), &w, why);

    /* the first part as a query string */
    struct request req;
    request_init(&req);
    req.now = NOW;
    char *q = fuzz_strndup((const uint8_t *)part[0], strlen(part[0]));
    for (char *p = q, *amp; p; p = amp) {
        amp = strchr(p, '&');
        if (amp)
            *amp++ = '\0';
        char *eq = strchr(p, '=');
        if (eq)
            *eq++ = '\0';
        request_add_param(&req, p, eq);
    }
    struct response resp;
    response_init(&resp);
    struct api_query aq;
    static const char *const extra[] = {"week", "kind", NULL};
    if (api_query_parse(&req, &resp, &aq, size % 2 ? extra : NULL))
        FUZZ_CHECK(aq.w.from < aq.w.to && aq.w.to - aq.w.from <= WINDOW_MAX_SPAN);
    else
        check_error_body(&resp);
    response_release(&resp);
    request_release(&req);
    free(q);
    free(s);
    return 0;
}
