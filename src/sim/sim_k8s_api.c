/* sim_k8s_api — see sim_k8s_api.h. Paths are matched segment by segment; every
 * answer is built from the immutable world, so handlers need no locks. */
#include "sim/sim_k8s_api.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "sim/sim_clock.h"
#include "sim/sim_k8s_obj.h"
#include "sim/sim_k8s_table.h"
#include "base/xalloc.h"

#define K8S_MAX_SEGS 8
#define K8S_DEFAULT_TIMEOUT 1800 /* seconds: a watch without timeoutSeconds */
#define K8S_MAX_TIMEOUT 3600
#define WATCH_CHUNK (256 * 1024)

/* --- Status bodies --- */

void sim_k8s_status(struct response *resp, int code, const char *reason, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    buf_reset(&resp->body);
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    jsonw_kstr(&j, "kind", "Status");
    jsonw_kstr(&j, "apiVersion", "v1");
    jsonw_key(&j, "metadata");
    jsonw_obj(&j);
    jsonw_obj_end(&j);
    jsonw_kstr(&j, "status", "Failure");
    jsonw_kstr(&j, "message", msg);
    jsonw_kstr(&j, "reason", reason);
    jsonw_kint(&j, "code", code);
    jsonw_obj_end(&j);
    resp->status = code;
    resp->content_type = "application/json";
}

/* --- label selectors --- */

enum sel_op { SEL_EQ, SEL_NE, SEL_EXISTS, SEL_NOT_EXISTS, SEL_IN, SEL_NOTIN };

#define SEL_MAX_TERMS 16
#define SEL_MAX_VALUES 16

struct sel_term {
    enum sel_op op;
    char *key;
    char *values[SEL_MAX_VALUES];
    int nvalues;
};

struct sim_selector {
    struct sel_term terms[SEL_MAX_TERMS];
    int n;
};

void sim_selector_free(struct sim_selector *sel) {
    if (!sel)
        return;
    for (int i = 0; i < sel->n; i++) {
        free(sel->terms[i].key);
        for (int k = 0; k < sel->terms[i].nvalues; k++)
            free(sel->terms[i].values[k]);
    }
    free(sel);
}

static char *trimdup(const char *s, size_t n) {
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return xstrndup(s, n);
}

static bool valid_label_part(const char *s, bool value) {
    if (!*s)
        return value;
    for (const char *p = s; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.' || (!value && c == '/');
        if (!ok)
            return false;
    }
    return true;
}

enum err sim_selector_parse(const char *s, struct sim_selector **out) {
    struct sim_selector *sel = xcalloc(1, sizeof *sel);
    const char *p = s ? s : "";
    while (*p) {
        /* one term ends at a comma outside parentheses */
        const char *end = p;
        int depth = 0;
        while (*end && (depth > 0 || *end != ',')) {
            if (*end == '(')
                depth++;
            else if (*end == ')')
                depth--;
            end++;
        }
        if (sel->n >= SEL_MAX_TERMS)
            goto bad;
        struct sel_term *t = &sel->terms[sel->n];
        char *term = trimdup(p, (size_t)(end - p));
        char *q;
        if (!*term) {
            free(term);
            goto bad;
        }
        if ((q = strstr(term, "!=")) != NULL) {
            t->op = SEL_NE;
            t->key = trimdup(term, (size_t)(q - term));
            t->values[t->nvalues++] = trimdup(q + 2, strlen(q + 2));
        } else if ((q = strstr(term, "==")) != NULL) {
            t->op = SEL_EQ;
            t->key = trimdup(term, (size_t)(q - term));
            t->values[t->nvalues++] = trimdup(q + 2, strlen(q + 2));
        } else if ((q = strchr(term, '=')) != NULL) {
            t->op = SEL_EQ;
            t->key = trimdup(term, (size_t)(q - term));
            t->values[t->nvalues++] = trimdup(q + 1, strlen(q + 1));
        } else if ((q = strstr(term, " notin ")) != NULL || (q = strstr(term, " in ")) != NULL) {
            bool notin = strncmp(q, " notin ", 7) == 0;
            t->op = notin ? SEL_NOTIN : SEL_IN;
            t->key = trimdup(term, (size_t)(q - term));
            const char *lp = strchr(q, '('), *rp = strrchr(q, ')');
            if (!lp || !rp || rp < lp || rp[1] != '\0') {
                sel->n++;
                free(term);
                goto bad;
            }
            const char *v = lp + 1;
            while (v < rp) {
                const char *c = memchr(v, ',', (size_t)(rp - v));
                const char *ve = c ? c : rp;
                if (t->nvalues >= SEL_MAX_VALUES) {
                    sel->n++;
                    free(term);
                    goto bad;
                }
                t->values[t->nvalues++] = trimdup(v, (size_t)(ve - v));
                v = c ? c + 1 : rp;
            }
        } else if (term[0] == '!') {
            t->op = SEL_NOT_EXISTS;
            t->key = trimdup(term + 1, strlen(term + 1));
        } else {
            t->op = SEL_EXISTS;
            t->key = trimdup(term, strlen(term));
        }
        sel->n++;
        free(term);
        if (!*t->key || !valid_label_part(t->key, false))
            goto bad;
        for (int k = 0; k < t->nvalues; k++)
            if (!valid_label_part(t->values[k], true))
                goto bad;
        p = *end ? end + 1 : end;
        if (*end && !*p)
            goto bad; /* trailing comma */
    }
    *out = sel;
    return ERR_OK;
bad:
    sim_selector_free(sel);
    return ERR_PARSE;
}

bool sim_selector_match(const struct sim_selector *sel, const struct sim_world *w,
                        enum sim_kind kind, int idx) {
    if (!sel || sel->n == 0)
        return true;
    struct sim_labels l;
    sim_obj_labels(w, kind, idx, &l);
    for (int i = 0; i < sel->n; i++) {
        const struct sel_term *t = &sel->terms[i];
        const char *v = NULL;
        for (int k = 0; k < l.n; k++)
            if (strcmp(l.key[k], t->key) == 0)
                v = l.value[k];
        bool in = false;
        for (int k = 0; v && k < t->nvalues; k++)
            if (strcmp(v, t->values[k]) == 0)
                in = true;
        bool ok;
        switch (t->op) {
        case SEL_EQ:
        case SEL_IN:
            ok = v && in;
            break;
        case SEL_NE:
        case SEL_NOTIN:
            ok = !v || !in;
            break;
        case SEL_EXISTS:
            ok = v != NULL;
            break;
        default:
            ok = v == NULL;
            break;
        }
        if (!ok)
            return false;
    }
    return true;
}

/* --- continue tokens: base64url(JSON {"v","rv","start"}) as Kubernetes does --- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void b64_encode(const unsigned char *in, size_t n, struct buf *out) {
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        buf_putc(out, b64[(v >> 18) & 63]);
        buf_putc(out, b64[(v >> 12) & 63]);
        if (i + 1 < n)
            buf_putc(out, b64[(v >> 6) & 63]);
        if (i + 2 < n)
            buf_putc(out, b64[v & 63]);
    }
}

static int b64_val(char c) {
    const char *p = c ? strchr(b64, c) : NULL;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return p ? (int)(p - b64) : -1;
}

static bool b64_decode(const char *s, struct buf *out) {
    uint32_t acc = 0;
    int bits = 0;
    for (; *s && *s != '='; s++) {
        int v = b64_val(*s);
        if (v < 0)
            return false;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (buf_putc(out, (char)((acc >> bits) & 0xff)) != ERR_OK)
                return false;
        }
    }
    return true;
}

static void continue_token(int64_t rv, const char *ns, const char *name, struct buf *out) {
    struct buf raw;
    buf_init(&raw, 4096);
    buf_printf(&raw, "{\"v\":\"meta.k8s.io/v1\",\"rv\":%lld,\"start\":\"", (long long)rv);
    if (*ns)
        buf_printf(&raw, "%s/", ns);
    buf_printf(&raw, "%s\\u0000\"}", name);
    b64_encode((const unsigned char *)raw.data, raw.len, out);
    buf_release(&raw);
}

/* Decodes a token into (rv, start key "ns/name" without the NUL). */
static bool continue_parse(const char *tok, int64_t *rv, char *start, size_t startlen) {
    struct buf raw;
    buf_init(&raw, 4096);
    bool ok = b64_decode(tok, &raw);
    const char *s = buf_str(&raw);
    const char *r = ok ? strstr(s, "\"rv\":") : NULL;
    const char *st = ok ? strstr(s, "\"start\":\"") : NULL;
    ok = r && st;
    if (ok) {
        errno = 0;
        char *end;
        long long v = strtoll(r + 5, &end, 10);
        st += 9;
        const char *e = strstr(st, "\\u0000\"");
        ok = !errno && v > 0 && e && (size_t)(e - st) < startlen;
        if (ok) {
            *rv = v;
            memcpy(start, st, (size_t)(e - st));
            start[e - st] = '\0';
        }
    }
    buf_release(&raw);
    return ok;
}

/* --- routing --- */

struct k8s_target {
    enum sim_kind kind;
    const char *ns;   /* NULL: all namespaces */
    const char *name; /* NULL: the collection */
};

struct item {
    const char *ns;
    const char *name;
    int idx;
};

static int item_cmp(const void *a, const void *b) {
    const struct item *x = a, *y = b;
    int c = strcmp(x->ns, y->ns);
    return c ? c : strcmp(x->name, y->name);
}

/* An object's uid (events' involvedObject.uid). */
static const char *obj_uid(const struct sim_world *w, enum sim_kind kind, int idx) {
    switch (kind) {
    case SIM_K_POD:
        return w->pods[idx].uid;
    case SIM_K_JOB:
        return w->jobs[idx].uid;
    case SIM_K_NODE:
        return w->nodes[idx].uid;
    default:
        return "";
    }
}

/* The value of a supported field label of object idx, or NULL if the label is not
 * supported for that kind (as kube-apiserver's field label conversion). */
static const char *field_value(const char *key, size_t klen, const struct sim_world *w,
                               enum sim_kind kind, int idx, int64_t asof) {
#define KEY(s) (klen == sizeof(s) - 1 && strncmp(key, s, klen) == 0)
    if (KEY("metadata.name"))
        return sim_obj_name(w, kind, idx);
    if (KEY("metadata.namespace"))
        return sim_obj_namespace(w, kind, idx);
    if (kind == SIM_K_POD && KEY("spec.nodeName"))
        return w->pods[idx].node >= 0 && w->pods[idx].sched_seq <= asof
                   ? w->nodes[w->pods[idx].node].name
                   : "";
    if (kind == SIM_K_POD && KEY("status.phase"))
        return sim_pod_phase(w, idx, asof);
    if (kind == SIM_K_EVENT) {
        const struct sim_kevent *ev = &w->events[idx];
        if (KEY("involvedObject.kind"))
            return sim_kind_name(ev->obj_kind);
        if (KEY("involvedObject.name"))
            return sim_obj_name(w, ev->obj_kind, ev->obj);
        if (KEY("involvedObject.namespace"))
            return sim_obj_namespace(w, ev->obj_kind, ev->obj);
        if (KEY("involvedObject.uid"))
            return obj_uid(w, ev->obj_kind, ev->obj);
        if (KEY("reason"))
            return ev->reason;
        if (KEY("type"))
            return ev->type;
    }
    return NULL;
#undef KEY
}

static bool field_match(const char *fsel, const struct sim_world *w, enum sim_kind kind, int idx,
                        int64_t asof) {
    if (!fsel || !*fsel)
        return true;
    const char *p = fsel;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (!eq)
            return false;
        bool neg = eq > p && eq[-1] == '!';
        size_t klen = (size_t)(eq - p) - (neg ? 1 : 0);
        const char *val = eq + 1;
        if (*val == '=')
            val++;
        size_t vlen = n - (size_t)(val - p);
        const char *have = field_value(p, klen, w, kind, idx, asof);
        if (!have)
            return false;
        bool eqv = strlen(have) == vlen && strncmp(have, val, vlen) == 0;
        if (eqv == neg)
            return false;
        p = end ? end + 1 : p + n;
    }
    return true;
}

/* Every label of fsel is supported for kind (checked on a probe object: the
 * labels depend on the kind only). */
static bool field_selector_ok(const char *fsel, const struct sim_world *w, enum sim_kind kind) {
    if (!fsel || !*fsel)
        return true;
    if (sim_obj_count(w, kind) == 0)
        return true;
    const char *p = fsel;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (!eq)
            return false;
        size_t klen = (size_t)(eq - p) - (eq > p && eq[-1] == '!' ? 1 : 0);
        if (!field_value(p, klen, w, kind, 0, 0))
            return false;
        p = end ? end + 1 : p + n;
    }
    return true;
}

static bool matches(const struct sim_world *w, const struct k8s_target *t,
                    const struct sim_selector *sel, const char *fsel, enum sim_kind kind, int idx,
                    int64_t asof) {
    if (t->ns && strcmp(t->ns, sim_obj_namespace(w, kind, idx)) != 0)
        return false;
    return sim_selector_match(sel, w, kind, idx) && field_match(fsel, w, kind, idx, asof);
}

static const char *list_kind(enum sim_kind k) {
    switch (k) {
    case SIM_K_POD:
        return "PodList";
    case SIM_K_JOB:
        return "JobList";
    case SIM_K_NODE:
        return "NodeList";
    case SIM_K_PDB:
        return "PodDisruptionBudgetList";
    default:
        return "EventList";
    }
}

static const char *resource_name(enum sim_kind k) {
    switch (k) {
    case SIM_K_POD:
        return "pods";
    case SIM_K_JOB:
        return "jobs";
    case SIM_K_NODE:
        return "nodes";
    case SIM_K_PDB:
        return "poddisruptionbudgets";
    default:
        return "events";
    }
}

/* The oldest resourceVersion still in the watch history at `now`. */
static int64_t oldest_rv(const struct sim_world *w, int64_t now, int64_t retention) {
    return sim_world_seq_at(w, now - retention);
}

static int64_t parse_rv(const char *s, bool *ok) {
    *ok = true;
    if (!s || !*s)
        return 0;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < 0) {
        *ok = false;
        return 0;
    }
    return v;
}

/* Go's strconv.ParseBool, which kube-apiserver uses for watch and
 * allowWatchBookmarks: 1 t T TRUE true True / 0 f F FALSE false False.
 * Returns 1, 0, or -1 for anything else. */
static int parse_bool(const char *s) {
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (strcmp(s, yes[i]) == 0)
            return 1;
        if (strcmp(s, no[i]) == 0)
            return 0;
    }
    return -1;
}

static void do_list(const struct sim_world *w, const struct request *req,
                    const struct k8s_target *t, int64_t now, int64_t retention,
                    const struct sim_selector *sel, const char *fsel, bool table,
                    struct response *resp) {
    int64_t head = sim_world_seq_at(w, now);
    int64_t asof = head;
    char start[256] = "";
    const char *cont = request_param(req, "continue");
    if (cont && *cont) {
        int64_t rv;
        if (!continue_parse(cont, &rv, start, sizeof start) || rv > head) {
            sim_k8s_status(resp, 400, "BadRequest", "continue key is not valid");
            return;
        }
        if (rv < oldest_rv(w, now, retention)) {
            /* shaped like fixtures/k8s/watch/status-410-continue-expired.json */
            struct buf tok;
            buf_init(&tok, 8192);
            continue_token(-1, "", start, &tok);
            buf_reset(&resp->body);
            struct jsonw j;
            jsonw_init(&j, &resp->body);
            jsonw_obj(&j);
            jsonw_kstr(&j, "kind", "Status");
            jsonw_kstr(&j, "apiVersion", "v1");
            jsonw_key(&j, "metadata");
            jsonw_obj(&j);
            jsonw_kstr(&j, "continue", buf_str(&tok));
            jsonw_obj_end(&j);
            jsonw_kstr(&j, "status", "Failure");
            jsonw_kstr(&j, "message",
                       "The provided continue parameter is too old to display a consistent list "
                       "result. You can start a new list without the continue parameter, or use "
                       "the continue token in this response to retrieve the remainder of the "
                       "results. Continuing with the provided token results in an inconsistent "
                       "list - objects that were created, modified, or deleted between the time "
                       "the first chunk was returned and now may show up in the list.");
            jsonw_kstr(&j, "reason", "Expired");
            jsonw_kint(&j, "code", 410);
            jsonw_obj_end(&j);
            resp->status = 410;
            buf_release(&tok);
            return;
        }
        asof = rv;
    }
    int64_t limit = 0;
    const char *ls = request_param(req, "limit");
    if (ls && *ls) {
        bool ok;
        limit = parse_rv(ls, &ok);
        if (!ok) {
            sim_k8s_status(resp, 400, "BadRequest", "limit: expected a non-negative integer");
            return;
        }
    }
    int total = sim_obj_count(w, t->kind);
    struct item *items = xmalloc(sizeof *items * (size_t)(total ? total : 1));
    int n = 0;
    for (int i = 0; i < total; i++)
        if (sim_obj_exists(w, t->kind, i, asof) && matches(w, t, sel, fsel, t->kind, i, asof))
            items[n++] =
                (struct item){sim_obj_namespace(w, t->kind, i), sim_obj_name(w, t->kind, i), i};
    qsort(items, (size_t)n, sizeof *items, item_cmp);
    int first = 0;
    if (*start) {
        /* resume after the key "ns/name" (or "name" for nodes) */
        while (first < n) {
            char key[256];
            if (*items[first].ns)
                snprintf(key, sizeof key, "%s/%s", items[first].ns, items[first].name);
            else
                snprintf(key, sizeof key, "%s", items[first].name);
            if (strcmp(key, start) > 0)
                break;
            first++;
        }
    }
    int last = n;
    if (limit > 0 && first + limit < n)
        last = first + (int)limit;
    struct jsonw j;
    buf_reset(&resp->body);
    jsonw_init(&j, &resp->body);
    if (table) {
        struct buf tok;
        buf_init(&tok, 8192);
        if (last < n)
            continue_token(asof, items[last - 1].ns, items[last - 1].name, &tok);
        sim_table_begin(&j, t->kind, asof, last < n ? buf_str(&tok) : NULL, n - last);
        for (int i = first; i < last; i++)
            sim_table_row(&j, w, t->kind, items[i].idx, asof, now);
        sim_table_end(&j);
        buf_release(&tok);
        free(items);
        resp->status = j.rc == ERR_OK ? 200 : 500;
        return;
    }
    jsonw_obj(&j);
    jsonw_kstr(&j, "kind", list_kind(t->kind));
    jsonw_kstr(&j, "apiVersion", sim_kind_api_version(t->kind));
    jsonw_key(&j, "metadata");
    jsonw_obj(&j);
    char rv[24];
    snprintf(rv, sizeof rv, "%lld", (long long)asof);
    jsonw_kstr(&j, "resourceVersion", rv);
    if (last < n) {
        struct buf tok;
        buf_init(&tok, 8192);
        continue_token(asof, items[last - 1].ns, items[last - 1].name, &tok);
        jsonw_kstr(&j, "continue", buf_str(&tok));
        jsonw_kint(&j, "remainingItemCount", n - last);
        buf_release(&tok);
    }
    jsonw_obj_end(&j);
    jsonw_key(&j, "items");
    jsonw_arr(&j);
    for (int i = first; i < last; i++)
        sim_obj_render(&j, w, t->kind, items[i].idx, asof, false);
    jsonw_arr_end(&j);
    jsonw_obj_end(&j);
    free(items);
    if (j.rc != ERR_OK)
        sim_k8s_status(resp, 500, "InternalError", "the list is too large");
    else
        resp->status = 200;
}

static void do_get(const struct sim_world *w, const struct k8s_target *t, int64_t now, bool table,
                   struct response *resp) {
    int64_t asof = sim_world_seq_at(w, now);
    int total = sim_obj_count(w, t->kind);
    for (int i = total - 1; i >= 0; i--) {
        if (!sim_obj_exists(w, t->kind, i, asof) || strcmp(sim_obj_name(w, t->kind, i), t->name))
            continue;
        if (t->ns && strcmp(sim_obj_namespace(w, t->kind, i), t->ns))
            continue;
        struct jsonw j;
        buf_reset(&resp->body);
        jsonw_init(&j, &resp->body);
        if (table) {
            sim_table_begin(&j, t->kind, asof, NULL, 0);
            sim_table_row(&j, w, t->kind, i, asof, now);
            sim_table_end(&j);
        } else {
            sim_obj_render(&j, w, t->kind, i, asof, true);
        }
        resp->status = 200;
        return;
    }
    sim_k8s_status(resp, 404, "NotFound", "%s \"%s\" not found", resource_name(t->kind), t->name);
}

/* --- watch --- */

struct sim_watch {
    const struct sim_world *w;
    struct k8s_target t;
    char *ns;
    char *fsel;
    struct sim_selector *sel;
    int64_t last; /* events up to this seq are sent */
    bool initial; /* rv "" or "0": send ADDED for the current objects first */
    bool bookmarks;
    bool table; /* objects as one-row meta.k8s.io/v1 Tables (kubectl get -w) */
    bool gone;  /* answer with an ERROR 410 and end */
    int64_t gone_rv, gone_oldest;
    bool ended;
    bool checked_faults;
    int64_t deadline_ms;
    int64_t last_bookmark_ms;
    struct buf out;
    size_t off;
};

void sim_watch_free(struct sim_watch *wt) {
    if (!wt)
        return;
    sim_selector_free(wt->sel);
    free(wt->ns);
    free(wt->fsel);
    buf_release(&wt->out);
    free(wt);
}

static void watch_event(struct sim_watch *wt, const char *type, enum sim_kind kind, int idx,
                        int64_t asof) {
    struct jsonw j;
    jsonw_init(&j, &wt->out);
    jsonw_obj(&j);
    jsonw_kstr(&j, "type", type);
    jsonw_key(&j, "object");
    if (wt->table) {
        int64_t t = 0;
        for (int i = sim_world_log_after(wt->w, asof - 1); i < wt->w->nlog; i++)
            if (wt->w->log[i].seq == asof) {
                t = wt->w->log[i].t;
                break;
            }
        sim_table_begin(&j, kind, asof, NULL, 0);
        sim_table_row(&j, wt->w, kind, idx, asof, t);
        sim_table_end(&j);
    } else {
        sim_obj_render(&j, wt->w, kind, idx, asof, true);
    }
    jsonw_obj_end(&j);
    buf_putc(&wt->out, '\n');
}

static void watch_bookmark(struct sim_watch *wt, int64_t rv) {
    enum sim_kind k = wt->t.kind;
    buf_printf(&wt->out,
               "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\",\"apiVersion\":\"%s\","
               "\"metadata\":{\"resourceVersion\":\"%lld\",\"creationTimestamp\":null}%s}}\n",
               sim_kind_name(k), sim_kind_api_version(k), (long long)rv,
               k == SIM_K_POD    ? ",\"spec\":{\"containers\":null},\"status\":{}"
               : k == SIM_K_JOB  ? ",\"spec\":{\"template\":{\"metadata\":{\"creationTimestamp\":"
                                   "null},\"spec\":{\"containers\":null}}},\"status\":{}"
               : k == SIM_K_NODE ? ",\"spec\":{},\"status\":{\"daemonEndpoints\":{"
                                   "\"kubeletEndpoint\":{\"Port\":0}},\"nodeInfo\":{}}"
               : k == SIM_K_PDB  ? ",\"spec\":{},\"status\":{\"disruptionsAllowed\":0,"
                                   "\"currentHealthy\":0,\"desiredHealthy\":0,\"expectedPods\":0}"
                                 : ",\"involvedObject\":{},\"source\":{},\"firstTimestamp\":null,"
                                   "\"lastTimestamp\":null,\"eventTime\":null,"
                                   "\"reportingComponent\":\"\",\"reportingInstance\":\"\"");
}

static void watch_gone(struct sim_watch *wt) {
    buf_printf(&wt->out,
               "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
               "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: "
               "%lld (%lld)\",\"reason\":\"Expired\",\"code\":410}}\n",
               (long long)wt->gone_rv, (long long)wt->gone_oldest);
}

ssize_t sim_watch_read(struct sim_watch *wt, const struct sim_watch_io *io, char *dst, size_t max) {
    const struct sim_world *w = wt->w;
    int64_t bookmark_ms = io->bookmark_ms > 0 ? io->bookmark_ms : 1000;
    for (;;) {
        if (wt->off < wt->out.len) {
            size_t n = wt->out.len - wt->off;
            if (n > max)
                n = max;
            memcpy(dst, wt->out.data + wt->off, n);
            wt->off += n;
            if (wt->off == wt->out.len) {
                buf_reset(&wt->out);
                wt->off = 0;
            }
            return (ssize_t)n;
        }
        if (wt->ended || (io->stop && atomic_load(io->stop)))
            return -1;
        int64_t now = io->now(io->ctx);
        if (!wt->checked_faults) {
            wt->checked_faults = true;
            if (io->faults && sim_fault_hit(io->faults, SIM_FAULT_WATCH_410)) {
                wt->gone = true;
                wt->gone_rv = wt->last;
                wt->gone_oldest = sim_world_seq_at(w, now);
            }
        }
        if (wt->gone) {
            watch_gone(wt);
            wt->ended = true;
            continue;
        }
        int64_t head = sim_world_seq_at(w, now);
        if (wt->initial) {
            wt->initial = false;
            int total = sim_obj_count(w, wt->t.kind);
            for (int i = 0; i < total; i++)
                if (sim_obj_exists(w, wt->t.kind, i, head) &&
                    matches(w, &wt->t, wt->sel, wt->fsel, wt->t.kind, i, head))
                    watch_event(wt, "ADDED", wt->t.kind, i, head);
            wt->last = head;
            if (wt->out.len)
                continue;
        }
        if (wt->last < head) {
            bool drop = false;
            for (int i = sim_world_log_after(w, wt->last); i < w->nlog && w->log[i].seq <= head;
                 i++) {
                const struct sim_entry *en = &w->log[i];
                wt->last = en->seq;
                if (en->kind != wt->t.kind ||
                    !matches(w, &wt->t, wt->sel, wt->fsel, wt->t.kind, en->idx, en->seq))
                    continue;
                const char *type = en->etype == SIM_ADDED      ? "ADDED"
                                   : en->etype == SIM_MODIFIED ? "MODIFIED"
                                                               : "DELETED";
                watch_event(wt, type, wt->t.kind, en->idx, en->seq);
                if (io->faults && sim_fault_hit(io->faults, SIM_FAULT_WATCH_DUP))
                    watch_event(wt, type, wt->t.kind, en->idx, en->seq);
                if (io->faults && sim_fault_hit(io->faults, SIM_FAULT_WATCH_DROP)) {
                    drop = true;
                    break;
                }
                if (wt->out.len > WATCH_CHUNK)
                    break;
            }
            if (drop) {
                /* send what we have, then cut the connection mid-stream */
                if (wt->out.len == 0)
                    return -2;
                size_t n = wt->out.len > max ? max : wt->out.len;
                memcpy(dst, wt->out.data, n);
                buf_reset(&wt->out);
                wt->off = 0;
                wt->ended = true;
                wt->gone = false;
                return (ssize_t)n > 0 ? (ssize_t)n : -2;
            }
            if (wt->out.len)
                continue;
        }
        int64_t real = sim_clock_real_ms();
        if (real >= wt->deadline_ms)
            return -1;
        if (wt->bookmarks && real - wt->last_bookmark_ms >= bookmark_ms) {
            wt->last_bookmark_ms = real;
            if (head > wt->last)
                wt->last = head;
            watch_bookmark(wt, wt->last);
            continue;
        }
        sim_clock_sleep_ms(20);
    }
}

static void do_watch(const struct sim_world *w, const struct request *req,
                     const struct k8s_target *t, int64_t now, int64_t retention,
                     struct sim_selector *sel, const char *fsel, bool table, struct response *resp,
                     struct sim_watch **out) {
    bool ok;
    const char *rvs = request_param(req, "resourceVersion");
    int64_t rv = parse_rv(rvs, &ok);
    if (!ok) {
        sim_k8s_status(resp, 400, "BadRequest", "resourceVersion: expected an integer");
        sim_selector_free(sel);
        return;
    }
    int64_t timeout = K8S_DEFAULT_TIMEOUT;
    const char *ts = request_param(req, "timeoutSeconds");
    if (ts && *ts) {
        timeout = parse_rv(ts, &ok);
        if (!ok) {
            sim_k8s_status(resp, 400, "BadRequest", "timeoutSeconds: expected an integer");
            sim_selector_free(sel);
            return;
        }
        if (timeout > K8S_MAX_TIMEOUT)
            timeout = K8S_MAX_TIMEOUT;
    }
    struct sim_watch *wt = xcalloc(1, sizeof *wt);
    wt->w = w;
    wt->t = *t;
    wt->ns = t->ns ? xstrdup(t->ns) : NULL;
    wt->t.ns = wt->ns;
    wt->t.name = NULL;
    wt->fsel = fsel ? xstrdup(fsel) : NULL;
    wt->sel = sel;
    wt->table = table;
    buf_init(&wt->out, 0);
    const char *bm = request_param(req, "allowWatchBookmarks");
    wt->bookmarks = bm && parse_bool(bm) == 1;
    wt->deadline_ms = sim_clock_real_ms() + timeout * 1000;
    wt->last_bookmark_ms = sim_clock_real_ms();
    if (rv == 0) {
        wt->initial = true;
    } else {
        int64_t oldest = oldest_rv(w, now, retention);
        if (rv < oldest) {
            wt->gone = true;
            wt->gone_rv = rv;
            wt->gone_oldest = oldest;
        }
        wt->last = rv;
    }
    resp->status = 200;
    *out = wt;
}

static bool split_path(const char *path, char segs[K8S_MAX_SEGS][128], int *nsegs) {
    int n = 0;
    const char *p = path;
    while (*p == '/')
        p++;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (n >= K8S_MAX_SEGS || len >= 128)
            return false;
        memcpy(segs[n], p, len);
        segs[n][len] = '\0';
        n++;
        p += len;
        while (*p == '/')
            p++;
    }
    *nsegs = n;
    return true;
}

static void api_resource(struct jsonw *j, const char *name, const char *singular, const char *kind,
                         bool namespaced, const char *shortname) {
    jsonw_obj(j);
    jsonw_kstr(j, "name", name);
    jsonw_kstr(j, "singularName", singular);
    jsonw_kbool(j, "namespaced", namespaced);
    jsonw_kstr(j, "kind", kind);
    jsonw_key(j, "verbs");
    jsonw_arr(j);
    jsonw_str(j, "get");
    jsonw_str(j, "list");
    jsonw_str(j, "watch");
    jsonw_arr_end(j);
    if (shortname) {
        jsonw_key(j, "shortNames");
        jsonw_arr(j);
        jsonw_str(j, shortname);
        jsonw_arr_end(j);
    }
    jsonw_obj_end(j);
}

/* /openapi/v2 (Swagger 2.0) and /openapi/v3[/<group path>] (OpenAPI 3.0): valid
 * documents without schemas; spotsim does not publish models (README). */
static void openapi(char segs[K8S_MAX_SEGS][128], int n, struct jsonw *j) {
    jsonw_obj(j);
    if (strcmp(segs[1], "v2") == 0) {
        jsonw_kstr(j, "swagger", "2.0");
    } else if (n == 2) {
        static const char *const gv[] = {"api/v1", "apis/batch/v1", "apis/policy/v1"};
        jsonw_key(j, "paths");
        jsonw_obj(j);
        for (int k = 0; k < 3; k++) {
            char url[96];
            snprintf(url, sizeof url, "/openapi/v3/%s?hash=0", gv[k]);
            jsonw_key(j, gv[k]);
            jsonw_obj(j);
            jsonw_kstr(j, "serverRelativeURL", url);
            jsonw_obj_end(j);
        }
        jsonw_obj_end(j);
        jsonw_obj_end(j);
        return;
    } else {
        jsonw_kstr(j, "openapi", "3.0.0");
    }
    jsonw_key(j, "info");
    jsonw_obj(j);
    jsonw_kstr(j, "title", "Kubernetes");
    jsonw_kstr(j, "version", "v1.33.1");
    jsonw_obj_end(j);
    jsonw_key(j, "paths");
    jsonw_obj(j);
    jsonw_obj_end(j);
    if (strcmp(segs[1], "v2") == 0) {
        jsonw_key(j, "definitions");
        jsonw_obj(j);
        jsonw_obj_end(j);
    } else {
        jsonw_key(j, "components");
        jsonw_obj(j);
        jsonw_key(j, "schemas");
        jsonw_obj(j);
        jsonw_obj_end(j);
        jsonw_obj_end(j);
    }
    jsonw_obj_end(j);
}

bool sim_k8s_path(const char *path) {
    static const char *const roots[] = {"/version", "/api", "/apis", "/openapi"};
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        size_t l = strlen(roots[i]);
        if (strncmp(path, roots[i], l) == 0 && (path[l] == '\0' || path[l] == '/'))
            return true;
    }
    return false;
}

static bool discovery(const struct sim_world *w, char segs[K8S_MAX_SEGS][128], int n, int64_t now,
                      struct response *resp) {
    struct jsonw j;
    buf_reset(&resp->body);
    jsonw_init(&j, &resp->body);
    resp->status = 200;
    if (n == 1 && strcmp(segs[0], "version") == 0) {
        jsonw_obj(&j);
        jsonw_kstr(&j, "major", "1");
        jsonw_kstr(&j, "minor", "33");
        jsonw_kstr(&j, "gitVersion", "v1.33.1");
        jsonw_kstr(&j, "gitCommit", "spotsim");
        jsonw_kstr(&j, "gitTreeState", "clean");
        jsonw_ktime(&j, "buildDate", w->sc->start);
        jsonw_kstr(&j, "goVersion", "go1.24.2");
        jsonw_kstr(&j, "compiler", "gc");
        jsonw_kstr(&j, "platform", "linux/amd64");
        jsonw_obj_end(&j);
        return true;
    }
    if (n >= 2 && strcmp(segs[0], "openapi") == 0) {
        openapi(segs, n, &j);
        return true;
    }
    if (n == 1 && strcmp(segs[0], "api") == 0) {
        jsonw_obj(&j);
        jsonw_kstr(&j, "kind", "APIVersions");
        jsonw_key(&j, "versions");
        jsonw_arr(&j);
        jsonw_str(&j, "v1");
        jsonw_arr_end(&j);
        jsonw_key(&j, "serverAddressByClientCIDRs");
        jsonw_arr(&j);
        jsonw_obj(&j);
        jsonw_kstr(&j, "clientCIDR", "0.0.0.0/0");
        jsonw_kstr(&j, "serverAddress", "127.0.0.1:443");
        jsonw_obj_end(&j);
        jsonw_arr_end(&j);
        jsonw_obj_end(&j);
        return true;
    }
    if (n == 1 && strcmp(segs[0], "apis") == 0) {
        jsonw_obj(&j);
        jsonw_kstr(&j, "kind", "APIGroupList");
        jsonw_kstr(&j, "apiVersion", "v1");
        jsonw_key(&j, "groups");
        jsonw_arr(&j);
        static const char *const groups[][2] = {{"batch", "batch/v1"}, {"policy", "policy/v1"}};
        for (int g = 0; g < 2; g++) {
            jsonw_obj(&j);
            jsonw_kstr(&j, "name", groups[g][0]);
            jsonw_key(&j, "versions");
            jsonw_arr(&j);
            jsonw_obj(&j);
            jsonw_kstr(&j, "groupVersion", groups[g][1]);
            jsonw_kstr(&j, "version", "v1");
            jsonw_obj_end(&j);
            jsonw_arr_end(&j);
            jsonw_key(&j, "preferredVersion");
            jsonw_obj(&j);
            jsonw_kstr(&j, "groupVersion", groups[g][1]);
            jsonw_kstr(&j, "version", "v1");
            jsonw_obj_end(&j);
            jsonw_obj_end(&j);
        }
        jsonw_arr_end(&j);
        jsonw_obj_end(&j);
        return true;
    }
    if ((n == 2 && strcmp(segs[0], "api") == 0 && strcmp(segs[1], "v1") == 0) ||
        (n == 3 && strcmp(segs[0], "apis") == 0 &&
         (strcmp(segs[1], "batch") == 0 || strcmp(segs[1], "policy") == 0) &&
         strcmp(segs[2], "v1") == 0)) {
        bool core = n == 2, policy = !core && segs[1][0] == 'p';
        jsonw_obj(&j);
        jsonw_kstr(&j, "kind", "APIResourceList");
        jsonw_kstr(&j, "apiVersion", "v1");
        jsonw_kstr(&j, "groupVersion", core ? "v1" : policy ? "policy/v1" : "batch/v1");
        jsonw_key(&j, "resources");
        jsonw_arr(&j);
        if (core) {
            api_resource(&j, "events", "event", "Event", true, "ev");
            api_resource(&j, "namespaces", "namespace", "Namespace", false, "ns");
            api_resource(&j, "nodes", "node", "Node", false, "no");
            api_resource(&j, "pods", "pod", "Pod", true, "po");
        } else if (policy) {
            api_resource(&j, "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget",
                         true, "pdb");
        } else {
            api_resource(&j, "jobs", "job", "Job", true, NULL);
        }
        jsonw_arr_end(&j);
        jsonw_obj_end(&j);
        return true;
    }
    if (n == 3 && strcmp(segs[0], "api") == 0 && strcmp(segs[2], "namespaces") == 0) {
        static const char *const nss[] = {"default", "kube-system"};
        jsonw_obj(&j);
        jsonw_kstr(&j, "kind", "NamespaceList");
        jsonw_kstr(&j, "apiVersion", "v1");
        jsonw_key(&j, "metadata");
        jsonw_obj(&j);
        char rv[24];
        snprintf(rv, sizeof rv, "%lld", (long long)sim_world_seq_at(w, now));
        jsonw_kstr(&j, "resourceVersion", rv);
        jsonw_obj_end(&j);
        jsonw_key(&j, "items");
        jsonw_arr(&j);
        for (int k = 0; k < 3; k++) {
            const char *name = k < 2 ? nss[k] : w->sc->namespace_;
            if (k == 2 && (strcmp(name, "default") == 0 || strcmp(name, "kube-system") == 0))
                continue;
            jsonw_obj(&j);
            jsonw_key(&j, "metadata");
            jsonw_obj(&j);
            jsonw_kstr(&j, "name", name);
            jsonw_kstr(&j, "resourceVersion", "1");
            jsonw_ktime(&j, "creationTimestamp", w->sc->start - 86400);
            jsonw_obj_end(&j);
            jsonw_key(&j, "status");
            jsonw_obj(&j);
            jsonw_kstr(&j, "phase", "Active");
            jsonw_obj_end(&j);
            jsonw_obj_end(&j);
        }
        jsonw_arr_end(&j);
        jsonw_obj_end(&j);
        return true;
    }
    return false;
}

/* group: "" (core), "batch" or "policy". */
static bool kind_of(const char *s, const char *group, enum sim_kind *out) {
    if (strcmp(group, "batch") == 0 || strcmp(group, "policy") == 0) {
        bool batch = group[0] == 'b';
        if (strcmp(s, batch ? "jobs" : "poddisruptionbudgets") == 0) {
            *out = batch ? SIM_K_JOB : SIM_K_PDB;
            return true;
        }
        return false;
    }
    if (strcmp(s, "pods") == 0)
        *out = SIM_K_POD;
    else if (strcmp(s, "nodes") == 0)
        *out = SIM_K_NODE;
    else if (strcmp(s, "events") == 0)
        *out = SIM_K_EVENT;
    else
        return false;
    return true;
}

bool sim_k8s_handle(const struct sim_world *w, const struct request *req, int64_t now,
                    int64_t retention, struct response *resp, struct sim_watch **watch) {
    return sim_k8s_handle_accept(w, req, now, retention, NULL, resp, watch);
}

bool sim_k8s_handle_accept(const struct sim_world *w, const struct request *req, int64_t now,
                           int64_t retention, const char *accept, struct response *resp,
                           struct sim_watch **watch) {
    *watch = NULL;
    bool table = sim_table_wanted(accept);
    const char *path = req->path;
    if (!sim_k8s_path(path))
        return false;
    char segs[K8S_MAX_SEGS][128];
    int n = 0;
    if (!split_path(path, segs, &n)) {
        sim_k8s_status(resp, 404, "NotFound", "the server could not find the requested resource");
        return true;
    }
    if (strcmp(req->method, "GET") != 0) {
        sim_k8s_status(resp, 405, "MethodNotAllowed", "spotsim serves GET only");
        return true;
    }
    if (discovery(w, segs, n, now, resp))
        return true;
    /* collections: core at segs[2..], batch and policy at segs[3..] */
    struct k8s_target t = {SIM_K_POD, NULL, NULL};
    bool batch = strcmp(segs[0], "apis") == 0;
    const char *group = batch && n >= 2 ? segs[1] : "";
    int base = batch ? 3 : 2;
    bool ok = false;
    if (batch &&
        (n < 3 || (strcmp(segs[1], "batch") && strcmp(segs[1], "policy")) || strcmp(segs[2], "v1")))
        ok = false;
    else if (!batch && (n < 2 || strcmp(segs[0], "api") || strcmp(segs[1], "v1")))
        ok = false;
    else if (n == base + 1 || n == base + 2) {
        ok = kind_of(segs[base], group, &t.kind);
        if (n == base + 2)
            t.name = segs[base + 1];
        /* nodes are cluster-scoped; other kinds need a namespace for a single GET */
        if (ok && t.name && t.kind != SIM_K_NODE)
            ok = false;
    } else if ((n == base + 3 || n == base + 4) && strcmp(segs[base], "namespaces") == 0) {
        t.ns = segs[base + 1];
        ok = kind_of(segs[base + 2], group, &t.kind) && t.kind != SIM_K_NODE;
        if (n == base + 4)
            t.name = segs[base + 3];
    }
    if (!ok) {
        sim_k8s_status(resp, 404, "NotFound", "the server could not find the requested resource");
        return true;
    }
    if (t.name) {
        do_get(w, &t, now, table, resp);
        return true;
    }
    struct sim_selector *sel = NULL;
    if (sim_selector_parse(request_param(req, "labelSelector"), &sel) != ERR_OK) {
        sim_k8s_status(resp, 400, "BadRequest", "unable to parse requirement: labelSelector");
        return true;
    }
    const char *fsel = request_param(req, "fieldSelector");
    if (!field_selector_ok(fsel, w, t.kind)) {
        sim_selector_free(sel);
        sim_k8s_status(resp, 400, "BadRequest",
                       "field label not supported: %s (metadata.name, metadata.namespace; pods: "
                       "spec.nodeName, status.phase; events: involvedObject.kind/name/namespace/"
                       "uid, reason, type)",
                       fsel);
        return true;
    }
    const char *wparam = request_param(req, "watch");
    int watch_on = wparam && *wparam ? parse_bool(wparam) : 0;
    const char *bm = request_param(req, "allowWatchBookmarks");
    if (watch_on < 0 || (bm && *bm && parse_bool(bm) < 0)) {
        sim_selector_free(sel);
        sim_k8s_status(resp, 400, "BadRequest",
                       "watch, allowWatchBookmarks: expected a boolean "
                       "(1, t, T, TRUE, true, True, 0, f, F, ...)");
        return true;
    }
    if (watch_on == 1) {
        do_watch(w, req, &t, now, retention, sel, fsel, table, resp, watch);
        return true;
    }
    do_list(w, req, &t, now, retention, sel, fsel, table, resp);
    sim_selector_free(sel);
    return true;
}
