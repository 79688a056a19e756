/* do_insights — see do_insights.h. */
#include "source/do_insights.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/money.h"
#include "base/timeutil.h"
#include "base/xalloc.h"

static json_object *get(json_object *o, const char *k) {
    json_object *v = NULL;
    if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, k, &v))
        return NULL;
    return v;
}

static const char *str(json_object *o, const char *k) {
    json_object *v = get(o, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int64_t num(json_object *o, const char *k) {
    json_object *v = get(o, k);
    return v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
}

static json_object *parse(const char *buf, size_t len) {
    if (len > INT_MAX)
        return NULL;
    json_tokener *t = json_tokener_new();
    if (!t)
        return NULL;
    json_object *o = json_tokener_parse_ex(t, buf, (int)len);
    if (o && json_tokener_get_error(t) == json_tokener_success &&
        t->char_offset < (int)len) { /* trailing garbage */
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(t);
    return o;
}

static void why_set(char *why, size_t wl, const char *fmt, ...) {
    if (!why || !wl)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, wl, fmt, ap);
    va_end(ap);
}

static bool day_of(const char *s, int64_t *out) {
    if (!s || strlen(s) != 10)
        return false;
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%sT00:00:00Z", s);
    return timeutil_parse_rfc3339(tmp, strlen(tmp), out) == ERR_OK;
}

enum err do_insights_parse(const char *buf, size_t len, struct do_insights *out, char *why,
                           size_t wl) {
    if (len > INT_MAX)
        return ERR_TOOBIG;
    json_object *doc = parse(buf, len);
    json_object *pts = get(doc, "data_points");
    if (!doc || !pts || !json_object_is_type(pts, json_type_array)) {
        why_set(why, wl, "insights: not an object with a 'data_points' array");
        json_object_put(doc);
        return ERR_PARSE;
    }
    struct do_insights l = {.total_pages = num(doc, "total_pages"),
                            .current_page = num(doc, "current_page")};
    size_t n = json_object_array_length(pts);
    l.v = xcalloc(n ? n : 1, sizeof *l.v);
    for (size_t i = 0; i < n; i++) {
        json_object *p = json_object_array_get_idx(pts, i);
        const char *amount = str(p, "total_amount");
        int64_t day, m;
        if (!day_of(str(p, "start_date"), &day) || !amount ||
            money_parse(amount, strlen(amount), 0, &m) != ERR_OK) {
            if (!l.skipped)
                why_set(why, wl, "insights: data point %zu without a day or an amount", i);
            l.skipped++;
            continue;
        }
        struct do_insight *x = &l.v[l.n++];
        x->day = day;
        x->amount = m;
        const char *s;
        x->sku = xstrdup((s = str(p, "sku")) ? s : "");
        x->region = xstrdup((s = str(p, "region")) ? s : "");
        x->description = xstrdup((s = str(p, "description")) ? s : "");
        x->group_description = xstrdup((s = str(p, "group_description")) ? s : "");
    }
    json_object_put(doc);
    *out = l;
    return ERR_OK;
}

void do_insights_release(struct do_insights *l) {
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].sku);
        free(l->v[i].region);
        free(l->v[i].description);
        free(l->v[i].group_description);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

enum err do_insights_account_urn(const char *buf, size_t len, char *urn, size_t cap) {
    json_object *doc = parse(buf, len);
    json_object *acc = get(doc, "account");
    const char *uuid = str(get(acc, "team"), "uuid");
    if (!uuid || !*uuid)
        uuid = str(acc, "uuid");
    int n = uuid && *uuid ? snprintf(urn, cap, "do:team:%s", uuid) : -1;
    json_object_put(doc);
    return n > 0 && (size_t)n < cap ? ERR_OK : ERR_PARSE;
}
