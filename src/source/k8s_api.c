/* k8s_api — Kubernetes JSON -> structs: json-c read helpers, documents, lists,
 * watch lines, Status and the small parsers; the objects are in k8s_api_obj.c. Every json_object
 * here is owned by the parse that created it and put before returning; strings kept past that are
 * copied (json-c strings are loans: json_object.h). */
#include "source/k8s_api.h"
#include "source/k8s_api_json.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "source/json_trim.h"
#include "source/k8s_pdb.h"

/* --- json helpers ------------------------------------------------------------ */

json_object *k8s_jget(json_object *o, const char *k) {
    json_object *v = NULL;
    if (o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, k, &v))
        return v;
    return NULL;
}

/* jpath(o, "a", "b", NULL) = o.a.b or NULL */
json_object *k8s_jpath(json_object *o, ...) {
    va_list ap;
    va_start(ap, o);
    const char *k;
    while (o && (k = va_arg(ap, const char *)) != NULL)
        o = k8s_jget(o, k);
    va_end(ap);
    return o;
}

const char *k8s_jstr(json_object *o, const char *k) {
    json_object *v = k8s_jget(o, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

void k8s_copy_str(char *out, size_t cap, const char *s) {
    if (!s) {
        out[0] = '\0';
        return;
    }
    size_t n = strlen(s);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

void k8s_jcopy(json_object *o, const char *k, char *out, size_t cap) {
    k8s_copy_str(out, cap, k8s_jstr(o, k));
}

static int64_t parse_time(const char *s) {
    int64_t t = 0;
    if (!s || !*s || timeutil_parse_rfc3339(s, strlen(s), &t) != ERR_OK)
        return 0;
    return t;
}

int64_t k8s_jtime(json_object *o, const char *k) {
    return parse_time(k8s_jstr(o, k));
}

/* Integer fields only: json-c would coerce strings to 0 (docs/style.md json-c 3). */
int64_t k8s_jint(json_object *o, const char *k, int64_t dflt) {
    json_object *v = k8s_jget(o, k);
    if (!v || !json_object_is_type(v, json_type_int))
        return dflt;
    errno = 0;
    int64_t x = json_object_get_int64(v);
    return errno ? dflt : x;
}

bool k8s_jbool(json_object *o, const char *k) {
    json_object *v = k8s_jget(o, k);
    return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

size_t k8s_jlen(json_object *arr) {
    return arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
}

json_object *k8s_jidx(json_object *arr, size_t i) {
    return json_object_array_get_idx(arr, i);
}

int64_t k8s_min_known(int64_t a, int64_t b) {
    if (a == 0)
        return b;
    if (b == 0)
        return a;
    return a < b ? a : b;
}

/* Parses a whole document with a deep tokener; trailing whitespace allowed. */
static enum err parse_doc(const char *buf, size_t len, json_object **out) {
    if (len > (size_t)INT_MAX - 1)
        return ERR_TOOBIG;
    json_tokener *tok = json_tokener_new_ex(K8S_JSON_DEPTH);
    if (!tok)
        return ERR_NOMEM;
    /* managedFields are never read: not built either (json_trim.h) */
    enum json_tokener_error je;
    json_object *o = json_trim_parse(tok, buf, len, &je);
    json_tokener_free(tok);
    if (!o) {
        log_msg(LOG_DEBUG, "k8s_api: json parse failed: %s", json_tokener_error_desc(je));
        return ERR_PARSE;
    }
    if (!json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return ERR_PARSE;
    }
    *out = o;
    return ERR_OK;
}

/* --- small parsers ----------------------------------------------------------- */

enum err k8s_quantity_milli(const char *s, int64_t *out) {
    if (!s)
        return ERR_PARSE;
    const char *p = s;
    bool neg = false;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    /* mantissa as integer digits + fraction digits (at most 9 kept) */
    int64_t whole = 0, frac = 0;
    int frac_digits = 0;
    bool any = false;
    while (isdigit((unsigned char)*p)) {
        if (whole > (INT64_MAX - 9) / 10)
            return ERR_PARSE;
        whole = whole * 10 + (*p++ - '0');
        any = true;
    }
    bool frac_rest = false; /* nonzero digits beyond what we keep: round up */
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            if (frac_digits < 9) {
                frac = frac * 10 + (*p - '0');
                frac_digits++;
            } else if (*p != '0') {
                frac_rest = true;
            }
            p++;
            any = true;
        }
    }
    if (!any)
        return ERR_PARSE;
    /* scale in powers of ten relative to milli (exp10) or binary multiplier */
    int exp10 = 3;
    int64_t bin = 1;
    if (*p == '\0') {
    } else if (strcmp(p, "m") == 0) {
        exp10 = 0;
    } else if (strcmp(p, "u") == 0) {
        exp10 = -3;
    } else if (strcmp(p, "n") == 0) {
        exp10 = -6;
    } else if (strcmp(p, "k") == 0) {
        exp10 = 6;
    } else if (strcmp(p, "M") == 0) {
        exp10 = 9;
    } else if (strcmp(p, "G") == 0) {
        exp10 = 12;
    } else if (strcmp(p, "T") == 0) {
        exp10 = 15;
    } else if (strcmp(p, "Ki") == 0) {
        bin = 1024;
    } else if (strcmp(p, "Mi") == 0) {
        bin = 1024LL * 1024;
    } else if (strcmp(p, "Gi") == 0) {
        bin = 1024LL * 1024 * 1024;
    } else if (strcmp(p, "Ti") == 0) {
        bin = 1024LL * 1024 * 1024 * 1024;
    } else if (*p == 'e' || *p == 'E') {
        char *end = NULL;
        errno = 0;
        long e = strtol(p + 1, &end, 10);
        if (errno || end == p + 1 || *end || e < -9 || e > 15)
            return ERR_PARSE;
        exp10 = 3 + (int)e;
    } else {
        return ERR_PARSE;
    }
    /* exact integer arithmetic: num = (whole*10^fd + frac) * bin, then * 10^(exp10 - fd) */
    int64_t pow10_fd = 1;
    for (int i = 0; i < frac_digits; i++)
        pow10_fd *= 10;
    if (whole > INT64_MAX / pow10_fd)
        return ERR_PARSE;
    int64_t num = whole * pow10_fd + frac;
    if (bin > 1 && num > INT64_MAX / bin)
        return ERR_PARSE;
    num *= bin;
    int shift = exp10 - frac_digits;
    bool remainder = frac_rest;
    while (shift > 0) {
        if (num > INT64_MAX / 10)
            return ERR_PARSE;
        num *= 10;
        shift--;
    }
    while (shift < 0) {
        if (num % 10)
            remainder = true;
        num /= 10;
        shift++;
    }
    if (remainder)
        num++; /* the API server rounds milli values up */
    *out = neg ? -num : num;
    return ERR_OK;
}

static bool report_number(json_object *v, int64_t *out) {
    if (!v)
        return false;
    if (json_object_is_type(v, json_type_int)) {
        errno = 0;
        int64_t x = json_object_get_int64(v);
        if (errno || x < 0)
            return false;
        *out = x;
        return true;
    }
    if (json_object_is_type(v, json_type_double)) {
        double d = json_object_get_double(v);
        if (!(d >= 0 && d < 9.0e15))
            return false;
        *out = (int64_t)d;
        return true;
    }
    if (json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        char *end = NULL;
        errno = 0;
        double d = strtod(s, &end);
        while (end && isspace((unsigned char)*end))
            end++;
        if (errno || end == s || !end || *end || !(d >= 0 && d < 9.0e15))
            return false;
        *out = (int64_t)d;
        return true;
    }
    return false;
}

enum k8s_report_status k8s_task_report_parse(const char *msg, size_t len,
                                             struct k8s_task_report *out) {
    struct k8s_task_report r = {-1, -1, -1};
    *out = r;
    if (!msg)
        return K8S_REPORT_NONE;
    size_t a = 0, b = len;
    while (a < b && isspace((unsigned char)msg[a]))
        a++;
    while (b > a && isspace((unsigned char)msg[b - 1]))
        b--;
    if (a == b)
        return K8S_REPORT_NONE;
    const char *open = memchr(msg + a, '{', b - a);
    const char *close = NULL;
    for (size_t i = b; i > a; i--) {
        if (msg[i - 1] == '}') {
            close = msg + i - 1;
            break;
        }
    }
    if (!open || !close || close < open)
        return K8S_REPORT_BAD;
    json_object *o = NULL;
    if (parse_doc(open, (size_t)(close - open) + 1, &o) != ERR_OK)
        return K8S_REPORT_BAD;
    int ok = 0;
    ok += report_number(k8s_jget(o, "work_seconds"), &r.work_seconds);
    ok += report_number(k8s_jget(o, "restore_seconds"), &r.restore_seconds);
    ok += report_number(k8s_jget(o, "checkpoint_seconds"), &r.checkpoint_seconds);
    json_object_put(o);
    if (!ok)
        return K8S_REPORT_BAD;
    *out = r;
    return K8S_REPORT_OK;
}

void k8s_object_release(struct k8s_object *o) {
    if (!o)
        return;
    switch (o->kind) {
    case K8S_JOB:
        free(o->u.job.completed_indexes);
        free(o->u.job.failed_indexes);
        free(o->u.job.spec_json);
        break;
    case K8S_NODE:
        free(o->u.node.labels_json);
        break;
    case K8S_EVENT:
        free(o->u.event.message);
        break;
    case K8S_PDB:
        k8s_pdb_release(&o->u.pdb);
        break;
    case K8S_POD:
        break;
    }
    memset(&o->u, 0, sizeof o->u);
}

enum err k8s_object_parse(const char *buf, size_t len, enum k8s_kind kind, struct k8s_object *out) {
    json_object *o = NULL;
    enum err rc = parse_doc(buf, len, &o);
    if (rc != ERR_OK)
        return rc;
    struct k8s_object obj;
    rc = k8s_parse_object(o, kind, &obj);
    json_object_put(o);
    if (rc == ERR_OK)
        *out = obj;
    return rc;
}

enum err k8s_list_parse(const char *buf, size_t len, enum k8s_kind kind, struct k8s_list *out) {
    json_object *o = NULL;
    enum err rc = parse_doc(buf, len, &o);
    if (rc != ERR_OK)
        return rc;
    /* "items": null is an empty list (get_ex succeeds with a NULL value) */
    json_object *items = NULL;
    bool has_items = json_object_object_get_ex(o, "items", &items);
    if (!has_items || (items && !json_object_is_type(items, json_type_array))) {
        json_object_put(o);
        return ERR_PARSE;
    }
    struct k8s_list l;
    memset(&l, 0, sizeof l);
    l.kind = kind;
    json_object *md = k8s_jget(o, "metadata");
    k8s_jcopy(md, "resourceVersion", l.resource_version, sizeof l.resource_version);
    const char *cont = k8s_jstr(md, "continue");
    l.continue_token = cont && *cont ? xstrdup(cont) : NULL;
    l.remaining = k8s_jint(md, "remainingItemCount", -1);
    size_t n = k8s_jlen(items);
    l.items = n ? xcalloc(n, sizeof *l.items) : NULL;
    for (size_t i = 0; i < n; i++) {
        if (k8s_parse_object(k8s_jidx(items, i), kind, &l.items[l.n]) == ERR_OK)
            l.n++;
        else
            l.skipped++;
    }
    json_object_put(o);
    if (l.skipped)
        log_msg(LOG_WARN, "k8s_api: %zu %s list item%s without uid skipped", l.skipped,
                k8s_kind_name(kind), l.skipped == 1 ? "" : "s");
    *out = l;
    return ERR_OK;
}

void k8s_list_release(struct k8s_list *l) {
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        k8s_object_release(&l->items[i]);
    free(l->items);
    free(l->continue_token);
    memset(l, 0, sizeof *l);
}

static void parse_status_obj(json_object *o, struct k8s_status *s) {
    memset(s, 0, sizeof *s);
    s->code = k8s_jint(o, "code", -1);
    k8s_jcopy(o, "reason", s->reason, sizeof s->reason);
    k8s_jcopy(o, "message", s->message, sizeof s->message);
}

enum err k8s_status_parse(const char *buf, size_t len, struct k8s_status *out) {
    json_object *o = NULL;
    enum err rc = parse_doc(buf, len, &o);
    if (rc != ERR_OK)
        return rc;
    const char *kind = k8s_jstr(o, "kind");
    if (!kind || strcmp(kind, "Status") != 0) {
        json_object_put(o);
        return ERR_PARSE;
    }
    parse_status_obj(o, out);
    json_object_put(o);
    return ERR_OK;
}

enum err k8s_watch_parse(const char *line, size_t len, enum k8s_kind kind,
                         struct k8s_watch_event *out) {
    json_object *o = NULL;
    enum err rc = parse_doc(line, len, &o);
    if (rc != ERR_OK)
        return rc;
    struct k8s_watch_event ev;
    memset(&ev, 0, sizeof ev);
    ev.obj.kind = kind;
    const char *type = k8s_jstr(o, "type");
    json_object *obj = k8s_jget(o, "object");
    rc = ERR_OK;
    if (!type || !obj) {
        rc = ERR_PARSE;
    } else if (strcmp(type, "ERROR") == 0) {
        ev.type = K8S_ERROR;
        parse_status_obj(obj, &ev.status);
    } else if (strcmp(type, "BOOKMARK") == 0) {
        ev.type = K8S_BOOKMARK;
        k8s_jcopy(k8s_jget(obj, "metadata"), "resourceVersion", ev.resource_version,
                  sizeof ev.resource_version);
        if (!ev.resource_version[0])
            rc = ERR_PARSE;
    } else {
        if (strcmp(type, "ADDED") == 0)
            ev.type = K8S_ADDED;
        else if (strcmp(type, "MODIFIED") == 0)
            ev.type = K8S_MODIFIED;
        else if (strcmp(type, "DELETED") == 0)
            ev.type = K8S_DELETED;
        else
            rc = ERR_PARSE;
        if (rc == ERR_OK)
            rc = k8s_parse_object(obj, kind, &ev.obj);
        if (rc == ERR_OK)
            k8s_copy_str(ev.resource_version, sizeof ev.resource_version,
                         k8s_object_meta(&ev.obj)->resource_version);
    }
    json_object_put(o);
    if (rc != ERR_OK)
        return rc;
    *out = ev;
    return ERR_OK;
}

void k8s_watch_event_release(struct k8s_watch_event *ev) {
    if (!ev)
        return;
    if (ev->type == K8S_ADDED || ev->type == K8S_MODIFIED || ev->type == K8S_DELETED)
        k8s_object_release(&ev->obj);
}

bool k8s_event_is_relevant(const struct k8s_event *e) {
    static const char *const pod_reasons[] = {
        "NodeNotReady",
        "TaintManagerEviction",
        "Evicted",
        "Preempted",
        "Preempting",
        "Killing",
        "NodeShutdown",
        "Shutdown",
        "Terminated",
        "TriggeredScaleUp",
        "NotTriggerScaleUp",
        "DeletingNode",
        "RemovingNode",
        "NodeLost",
        "EvictionThresholdMet",
    };
    if (strcmp(e->object_kind, "Node") == 0)
        return true;
    if (strcmp(e->object_kind, "Pod") != 0)
        return false;
    for (size_t i = 0; i < sizeof pod_reasons / sizeof pod_reasons[0]; i++)
        if (strcmp(e->reason, pod_reasons[i]) == 0)
            return true;
    return false;
}
