/* k8s_pdb — see k8s_pdb.h. */
#include "source/k8s_pdb.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

static json_object *get(json_object *o, const char *k) {
    json_object *v = NULL;
    if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, k, &v))
        return NULL;
    return v;
}

static int64_t count(json_object *o, const char *k) {
    json_object *v = get(o, k);
    if (!v || !json_object_is_type(v, json_type_int))
        return -1;
    int64_t n = json_object_get_int64(v);
    return n >= 0 ? n : -1;
}

/* An intstr: 3 -> *abs = 3; "30%" -> *pct = 30; anything else leaves both -1. */
static void intstr(json_object *v, int64_t *abs, int64_t *pct) {
    *abs = -1;
    *pct = -1;
    if (!v)
        return;
    if (json_object_is_type(v, json_type_int)) {
        int64_t n = json_object_get_int64(v);
        if (n >= 0)
            *abs = n;
        return;
    }
    if (!json_object_is_type(v, json_type_string))
        return;
    const char *s = json_object_get_string(v);
    size_t len = strlen(s);
    if (len < 2 || len > 4 || s[len - 1] != '%')
        return;
    int64_t n = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return;
        n = n * 10 + (s[i] - '0');
    }
    if (n <= 100)
        *pct = n;
}

static char *selector(json_object *spec) {
    json_object *sel = get(spec, "selector");
    if (!sel || !json_object_is_type(sel, json_type_object))
        return NULL;
    json_object *ex = get(sel, "matchExpressions");
    if (ex && json_object_is_type(ex, json_type_array) && json_object_array_length(ex) > 0)
        return NULL;
    json_object *ml = get(sel, "matchLabels");
    if (!ml)
        return xstrdup("{}");
    if (!json_object_is_type(ml, json_type_object))
        return NULL;
    json_object_object_foreach(ml, key, val) {
        (void)key;
        if (!json_object_is_type(val, json_type_string))
            return NULL;
    }
    return xstrdup(json_object_to_json_string_ext(ml, JSON_C_TO_STRING_PLAIN |
                                                          JSON_C_TO_STRING_NOSLASHESCAPE));
}

void k8s_pdb_fill(json_object *o, struct k8s_pdb *p) {
    json_object *spec = get(o, "spec");
    json_object *st = get(o, "status");
    intstr(get(spec, "minAvailable"), &p->min_available, &p->min_available_pct);
    intstr(get(spec, "maxUnavailable"), &p->max_unavailable, &p->max_unavailable_pct);
    p->selector_json = selector(spec);
    p->expected_pods = count(st, "expectedPods");
    p->current_healthy = count(st, "currentHealthy");
    p->desired_healthy = count(st, "desiredHealthy");
    p->disruptions_allowed = count(st, "disruptionsAllowed");
}

void k8s_pdb_release(struct k8s_pdb *p) {
    free(p->selector_json);
    p->selector_json = NULL;
}
