/* sim_k8s_api — see sim_k8s_api.h: Status bodies, continue tokens, routing,
 * list and get. Paths are matched segment by segment; every answer is built
 * from the immutable world, so handlers need no locks. Selectors, watches and
 * discovery are in their own files (sim_k8s_serve.h). */
#include "sim/sim_k8s_api.h"
#include "sim/sim_k8s_serve.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "sim/sim_k8s_obj.h"
#include "sim/sim_k8s_render.h"
#include "sim/sim_k8s_table.h"
#include "base/xalloc.h"

/* --- Status bodies --- */

/* A failure Status as resp's body and status; cont (or NULL): its metadata.continue. */
static void status_body(struct response *resp, int code, const char *reason, const char *msg,
                        const char *cont) {
    buf_reset(&resp->body);
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    jsonw_kstr(&j, "kind", "Status");
    jsonw_kstr(&j, "apiVersion", "v1");
    jsonw_key(&j, "metadata");
    jsonw_obj(&j);
    if (cont)
        jsonw_kstr(&j, "continue", cont);
    jsonw_obj_end(&j);
    jsonw_kstr(&j, "status", "Failure");
    jsonw_kstr(&j, "message", msg);
    jsonw_kstr(&j, "reason", reason);
    jsonw_kint(&j, "code", code);
    jsonw_obj_end(&j);
    resp->status = code;
}

void sim_k8s_status(struct response *resp, int code, const char *reason, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    status_body(resp, code, reason, msg, NULL);
    resp->content_type = "application/json";
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

bool sim_k8s_matches(const struct sim_world *w, const struct k8s_target *t,
                     const struct sim_selector *sel, const char *fsel, enum sim_kind kind, int idx,
                     int64_t asof) {
    if (t->ns && strcmp(t->ns, sim_obj_namespace(w, kind, idx)) != 0)
        return false;
    return sim_selector_match(sel, w, kind, idx) && sim_k8s_field_match(fsel, w, kind, idx, asof);
}

/* The oldest resourceVersion still in the watch history at `now`. */
int64_t sim_k8s_oldest_rv(const struct sim_world *w, int64_t now, int64_t retention) {
    return sim_world_seq_at(w, now - retention);
}

int64_t sim_k8s_parse_rv(const char *s, bool *ok) {
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
int sim_k8s_parse_bool(const char *s) {
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
        if (rv < sim_k8s_oldest_rv(w, now, retention)) {
            /* shaped like fixtures/k8s/watch/status-410-continue-expired.json */
            struct buf tok;
            buf_init(&tok, 8192);
            continue_token(-1, "", start, &tok);
            status_body(resp, 410, "Expired",
                        "The provided continue parameter is too old to display a consistent list "
                        "result. You can start a new list without the continue parameter, or use "
                        "the continue token in this response to retrieve the remainder of the "
                        "results. Continuing with the provided token results in an inconsistent "
                        "list - objects that were created, modified, or deleted between the time "
                        "the first chunk was returned and now may show up in the list.",
                        buf_str(&tok));
            buf_release(&tok);
            return;
        }
        asof = rv;
    }
    int64_t limit = 0;
    const char *ls = request_param(req, "limit");
    if (ls && *ls) {
        bool ok;
        limit = sim_k8s_parse_rv(ls, &ok);
        if (!ok) {
            sim_k8s_status(resp, 400, "BadRequest", "limit: expected a non-negative integer");
            return;
        }
    }
    int total = sim_obj_count(w, t->kind);
    struct item *items = xmalloc(sizeof *items * (size_t)(total ? total : 1));
    int n = 0;
    for (int i = 0; i < total; i++)
        if (sim_obj_exists(w, t->kind, i, asof) &&
            sim_k8s_matches(w, t, sel, fsel, t->kind, i, asof))
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
    jsonw_kstr(&j, "kind", sim_kind_list_name(t->kind));
    jsonw_kstr(&j, "apiVersion", sim_kind_api_version(t->kind));
    jsonw_key(&j, "metadata");
    jsonw_obj(&j);
    sim_render_krv(&j, asof);
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
    sim_k8s_status(resp, 404, "NotFound", "%s \"%s\" not found", sim_kind_resource(t->kind),
                   t->name);
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
    if (sim_k8s_discovery(w, segs, n, now, resp))
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
    if (!sim_k8s_field_selector_ok(fsel, w, t.kind)) {
        sim_selector_free(sel);
        sim_k8s_status(resp, 400, "BadRequest",
                       "field label not supported: %s (metadata.name, metadata.namespace; pods: "
                       "spec.nodeName, status.phase; events: involvedObject.kind/name/namespace/"
                       "uid, reason, type)",
                       fsel);
        return true;
    }
    const char *wparam = request_param(req, "watch");
    int watch_on = wparam && *wparam ? sim_k8s_parse_bool(wparam) : 0;
    const char *bm = request_param(req, "allowWatchBookmarks");
    if (watch_on < 0 || (bm && *bm && sim_k8s_parse_bool(bm) < 0)) {
        sim_selector_free(sel);
        sim_k8s_status(resp, 400, "BadRequest",
                       "watch, allowWatchBookmarks: expected a boolean "
                       "(1, t, T, TRUE, true, True, 0, f, F, ...)");
        return true;
    }
    if (watch_on == 1) {
        sim_k8s_do_watch(w, req, &t, now, retention, sel, fsel, table, resp, watch);
        return true;
    }
    do_list(w, req, &t, now, retention, sel, fsel, table, resp);
    sim_selector_free(sel);
    return true;
}
