/* sim_scenario_get — see sim_scenario_get.h. */
#include "sim/sim_scenario_get.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/money.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "sim/sim_scenario.h"

void scn_fail(struct scn_ctx *c, const char *fmt, ...) {
    if (c->failed)
        return;
    c->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
}

/* --- typed getters: absent -> default; wrong type -> failure naming the field --- */

json_object *scn_get(json_object *o, const char *key) {
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
        return NULL;
    return v;
}

/* o[key] when it has JSON type t; NULL when absent, and NULL failing the parse
 * ("where.key: expected <what>") when it has another type. */
static json_object *get_typed(struct scn_ctx *c, json_object *o, const char *where, const char *key,
                              json_type t, const char *what) {
    json_object *v = scn_get(o, key);
    if (v && !json_object_is_type(v, t)) {
        scn_fail(c, "%s.%s: expected %s", where, key, what);
        return NULL;
    }
    return v;
}

char *scn_get_str(struct scn_ctx *c, json_object *o, const char *where, const char *key,
                  const char *def) {
    json_object *v = get_typed(c, o, where, key, json_type_string, "a string");
    if (!v)
        return def ? xstrdup(def) : NULL;
    return xstrdup(json_object_get_string(v));
}

int64_t scn_get_int(struct scn_ctx *c, json_object *o, const char *where, const char *key,
                    int64_t def, int64_t lo, int64_t hi) {
    json_object *v = get_typed(c, o, where, key, json_type_int, "a whole number");
    if (!v)
        return def;
    errno = 0;
    int64_t x = json_object_get_int64(v);
    if (errno || x < lo || x > hi) {
        scn_fail(c, "%s.%s: %lld is out of range (%lld..%lld)", where, key, (long long)x,
                 (long long)lo, (long long)hi);
        return def;
    }
    return x;
}

bool scn_get_bool(struct scn_ctx *c, json_object *o, const char *where, const char *key, bool def) {
    json_object *v = get_typed(c, o, where, key, json_type_boolean, "true or false");
    return v ? json_object_get_boolean(v) : def;
}

/* A duration: a whole number of seconds or a string "90s" / "15m" / "36h" / "7d". */
int64_t scn_get_dur(struct scn_ctx *c, json_object *o, const char *where, const char *key,
                    int64_t def) {
    json_object *v = scn_get(o, key);
    if (!v)
        return def;
    int64_t x = 0;
    if (json_object_is_type(v, json_type_int)) {
        x = json_object_get_int64(v);
        if (x < 0) {
            scn_fail(c, "%s.%s: must not be negative", where, key);
            return def;
        }
        return x;
    }
    if (json_object_is_type(v, json_type_string) &&
        sim_parse_duration(json_object_get_string(v), &x) == ERR_OK)
        return x;
    scn_fail(c, "%s.%s: expected seconds or a duration like \"90s\", \"15m\", \"36h\", \"7d\"",
             where, key);
    return def;
}

/* A probability in [0, 1] as a JSON number or decimal string -> parts per million. */
int64_t scn_get_ppm(struct scn_ctx *c, json_object *o, const char *where, const char *key) {
    json_object *v = scn_get(o, key);
    if (!v)
        return 0;
    int64_t micro = 0;
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        if (money_parse(s, strlen(s), MONEY_ROUND, &micro) != ERR_OK)
            micro = -1;
    } else if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) {
        double d = json_object_get_double(v);
        micro = (d >= 0 && d <= 1) ? (int64_t)llround(d * 1e6) : -1;
    } else {
        micro = -1;
    }
    if (micro < 0 || micro > 1000000) {
        scn_fail(c, "%s.%s: expected a probability between 0 and 1", where, key);
        return 0;
    }
    return micro;
}

int64_t scn_get_time(struct scn_ctx *c, json_object *o, const char *where, const char *key) {
    json_object *v = scn_get(o, key);
    int64_t t = 0;
    if (!v)
        return 0;
    if (!json_object_is_type(v, json_type_string) ||
        timeutil_parse_rfc3339(json_object_get_string(v), strlen(json_object_get_string(v)), &t) !=
            ERR_OK) {
        scn_fail(c, "%s.%s: expected an RFC 3339 time like \"2026-11-09T00:00:00Z\"", where, key);
        return 0;
    }
    return t;
}

size_t scn_list_len(struct scn_ctx *c, json_object *arr, const char *name, size_t max) {
    if (!arr || !json_object_is_type(arr, json_type_array) || json_object_array_length(arr) == 0) {
        scn_fail(c, "%s: expected a non-empty array", name);
        return 0;
    }
    size_t n = json_object_array_length(arr);
    if (n > max) {
        scn_fail(c, "%s: at most %zu", name, max);
        return 0;
    }
    return n;
}

size_t scn_opt_list_len(struct scn_ctx *c, json_object *arr, const char *name, size_t max) {
    if (!arr)
        return 0;
    if (!json_object_is_type(arr, json_type_array) || json_object_array_length(arr) > max) {
        scn_fail(c, "%s: expected an array of at most %zu", name, max);
        return 0;
    }
    return json_object_array_length(arr);
}

json_object *scn_list_obj(struct scn_ctx *c, json_object *arr, size_t i, const char *name,
                          char *where, size_t wn) {
    json_object *o = json_object_array_get_idx(arr, i);
    snprintf(where, wn, "%s[%zu]", name, i);
    if (!json_object_is_type(o, json_type_object)) {
        scn_fail(c, "%s: expected an object", where);
        return NULL;
    }
    return o;
}
