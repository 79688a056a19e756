/* do_api — DigitalOcean JSON into structs; see do_api.h for the error policy.
 * Here: the typed field readers (do_api_json.h), sizes, clusters, node pools,
 * errors; invoices, billing history and balance are in do_api_billing.c.
 * Every json-c string is copied before the document is put (STYLE.md json-c 2);
 * every typed read checks json_object_is_type first (json-c 3). */
#include "source/do_api.h"
#include "source/do_api_json.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/money.h"
#include "base/timeutil.h"
#include "base/xalloc.h"

#define DO_JSON_DEPTH 64

enum err do_api_why_set(char *why, size_t wl, const char *fmt, ...) {
    if (why && wl && !why[0]) { /* keep the first reason */
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, wl, fmt, ap);
        va_end(ap);
    }
    return ERR_PARSE;
}

/* Parses a whole document that must be a JSON object. */
enum err do_api_parse_doc(const char *buf, size_t len, json_object **out, char *why, size_t wl) {
    if (why && wl)
        why[0] = '\0';
    if (len > (size_t)INT_MAX - 1)
        return do_api_why_set(why, wl, "document too large");
    size_t i = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
        i++;
    if (i == len)
        return do_api_why_set(why, wl, "empty body");
    if (buf[i] != '{')
        return do_api_why_set(why, wl, "not a JSON object (body starts with '%c'%s)",
                              buf[i] >= ' ' && buf[i] < 127 ? buf[i] : '?',
                              buf[i] == '<' ? ", an HTML page?" : "");
    json_tokener *tok = json_tokener_new_ex(DO_JSON_DEPTH);
    if (!tok)
        return ERR_NOMEM;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *o = json_tokener_parse_ex(tok, buf, (int)len);
    enum json_tokener_error je = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    enum err e = ERR_OK;
    if (je == json_tokener_continue) {
        e = do_api_why_set(why, wl, "truncated JSON (%zu bytes)", len);
    } else if (je != json_tokener_success || !o) {
        e = do_api_why_set(why, wl, "malformed JSON at byte %zu: %s", end,
                           json_tokener_error_desc(je));
    } else {
        while (end < len &&
               (buf[end] == ' ' || buf[end] == '\n' || buf[end] == '\r' || buf[end] == '\t'))
            end++;
        if (end != len)
            e = do_api_why_set(why, wl, "trailing data after the JSON document at byte %zu", end);
        else if (!json_object_is_type(o, json_type_object))
            e = do_api_why_set(why, wl, "not a JSON object");
    }
    json_tokener_free(tok);
    if (e != ERR_OK) {
        json_object_put(o);
        return e;
    }
    *out = o;
    return ERR_OK;
}

json_object *do_api_field(json_object *o, const char *key) {
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v))
        return NULL;
    return v; /* NULL also for a JSON null */
}

/* String field (copied). Required: missing/null is an error. Ids may be numbers. */
enum err do_api_get_str(json_object *o, const char *key, bool required, bool allow_int,
                        const char *what, char **out, char *why, size_t wl) {
    json_object *v = do_api_field(o, key);
    if (!v) {
        if (required)
            return do_api_why_set(why, wl, "%s: missing '%s'", what, key);
        *out = NULL;
        return ERR_OK;
    }
    if (json_object_is_type(v, json_type_string)) {
        *out = xstrndup(json_object_get_string(v), (size_t)json_object_get_string_len(v));
        if (required && !**out) {
            free(*out);
            *out = NULL;
            return do_api_why_set(why, wl, "%s: empty '%s'", what, key);
        }
        return ERR_OK;
    }
    if (allow_int && json_object_is_type(v, json_type_int)) {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "%lld", (long long)json_object_get_int64(v));
        *out = xstrdup(tmp);
        return ERR_OK;
    }
    return do_api_why_set(why, wl, "%s: '%s' is not a string", what, key);
}

static enum err get_int(json_object *o, const char *key, bool required, int64_t dflt,
                        const char *what, int64_t *out, char *why, size_t wl) {
    json_object *v = do_api_field(o, key);
    if (!v) {
        if (required)
            return do_api_why_set(why, wl, "%s: missing '%s'", what, key);
        *out = dflt;
        return ERR_OK;
    }
    if (!json_object_is_type(v, json_type_int))
        return do_api_why_set(why, wl, "%s: '%s' is not an integer", what, key);
    *out = json_object_get_int64(v);
    return ERR_OK;
}

static enum err get_bool(json_object *o, const char *key, const char *what, bool *out, char *why,
                         size_t wl) {
    json_object *v = do_api_field(o, key);
    if (!v) {
        *out = false;
        return ERR_OK;
    }
    if (!json_object_is_type(v, json_type_boolean))
        return do_api_why_set(why, wl, "%s: '%s' is not a boolean", what, key);
    *out = json_object_get_boolean(v);
    return ERR_OK;
}

/* Decimal-string amount ("23.44"), strict. */
enum err do_api_get_amount(json_object *o, const char *key, bool required, const char *what,
                           int64_t *out, char *why, size_t wl) {
    json_object *v = do_api_field(o, key);
    if (!v) {
        if (required)
            return do_api_why_set(why, wl, "%s: missing '%s'", what, key);
        *out = 0;
        return ERR_OK;
    }
    if (!json_object_is_type(v, json_type_string))
        return do_api_why_set(why, wl, "%s: '%s' is not a decimal string", what, key);
    const char *s = json_object_get_string(v);
    int64_t m;
    if (money_parse(s, (size_t)json_object_get_string_len(v), 0, &m) != ERR_OK)
        return do_api_why_set(why, wl, "%s: '%s' is not an amount: \"%.40s\"", what, key, s);
    *out = m;
    return ERR_OK;
}

enum err do_api_price_literal(const char *text, size_t len, int64_t *out) {
    int64_t m;
    enum err e = money_parse(text, len, MONEY_ROUND | MONEY_EXPONENT, &m);
    if (e != ERR_OK)
        return ERR_PARSE;
    *out = m;
    return ERR_OK;
}

/* A JSON number (its literal text, kept by json-c for parsed doubles) or string. */
static enum err get_price(json_object *o, const char *key, const char *what, int64_t *out,
                          char *why, size_t wl) {
    json_object *v = do_api_field(o, key);
    if (!v)
        return do_api_why_set(why, wl, "%s: missing '%s'", what, key);
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int) &&
        !json_object_is_type(v, json_type_string))
        return do_api_why_set(why, wl, "%s: '%s' is not a number", what, key);
    /* json_object_get_string on a parsed double returns its original literal
     * (json_tokener stores it with json_object_new_double_s in 0.16) */
    const char *s = json_object_get_string(v);
    int64_t m;
    if (!s || do_api_price_literal(s, strlen(s), &m) != ERR_OK || m < 0)
        return do_api_why_set(why, wl, "%s: '%s' is not a price: \"%.40s\"", what, key, s ? s : "");
    *out = m;
    return ERR_OK;
}

enum err do_api_get_time(json_object *o, const char *key, bool required, const char *what,
                         int64_t *out, char *why, size_t wl) {
    json_object *v = do_api_field(o, key);
    if (!v || (json_object_is_type(v, json_type_string) && json_object_get_string_len(v) == 0)) {
        if (required)
            return do_api_why_set(why, wl, "%s: missing '%s'", what, key);
        *out = 0;
        return ERR_OK;
    }
    if (!json_object_is_type(v, json_type_string))
        return do_api_why_set(why, wl, "%s: '%s' is not a time string", what, key);
    const char *s = json_object_get_string(v);
    int64_t t;
    if (timeutil_parse_rfc3339(s, (size_t)json_object_get_string_len(v), &t) != ERR_OK)
        return do_api_why_set(why, wl, "%s: '%s' is not an RFC 3339 time: \"%.40s\"", what, key, s);
    *out = t;
    return ERR_OK;
}

/* The list under key: must be an array. */
enum err do_api_get_list(json_object *doc, const char *key, json_object **out, char *why,
                         size_t wl) {
    json_object *v = do_api_field(doc, key);
    if (!v || !json_object_is_type(v, json_type_array))
        return do_api_why_set(why, wl, "'%s' is %s", key, v ? "not an array" : "missing");
    *out = v;
    return ERR_OK;
}

/* links.pages.next (optional; a wrong type is an error: it would end paging early). */
enum err do_api_get_next(json_object *doc, char **out, char *why, size_t wl) {
    *out = NULL;
    json_object *links = do_api_field(doc, "links");
    if (!links)
        return ERR_OK;
    if (!json_object_is_type(links, json_type_object))
        return do_api_why_set(why, wl, "'links' is not an object");
    json_object *pages = do_api_field(links, "pages");
    if (!pages)
        return ERR_OK;
    if (!json_object_is_type(pages, json_type_object))
        return do_api_why_set(why, wl, "'links.pages' is not an object");
    return do_api_get_str(pages, "next", false, false, "links.pages", out, why, wl);
}

static char *compact_json(json_object *v) {
    return xstrdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

/* --- sizes --------------------------------------------------------------------------- */

static void size_release(struct do_size *s) {
    free(s->slug);
    free(s->gpu_model);
}

static enum err parse_size(json_object *o, struct do_size *s, char *why, size_t wl) {
    memset(s, 0, sizeof *s);
    enum err e;
    if (!json_object_is_type(o, json_type_object))
        return do_api_why_set(why, wl, "size: not an object");
    if ((e = do_api_get_str(o, "slug", true, false, "size", &s->slug, why, wl)) != ERR_OK)
        return e;
    char what[96];
    snprintf(what, sizeof what, "size '%.64s'", s->slug);
    json_object *gi;
    if ((e = get_int(o, "vcpus", false, -1, what, &s->vcpus, why, wl)) != ERR_OK ||
        (e = get_int(o, "memory", false, -1, what, &s->memory_mb, why, wl)) != ERR_OK ||
        (e = get_price(o, "price_hourly", what, &s->price_hourly, why, wl)) != ERR_OK ||
        (e = get_price(o, "price_monthly", what, &s->price_monthly, why, wl)) != ERR_OK ||
        (e = get_bool(o, "available", what, &s->available, why, wl)) != ERR_OK)
        goto fail;
    s->gpu_vram_gb = -1;
    if ((gi = do_api_field(o, "gpu_info")) != NULL) {
        if (!json_object_is_type(gi, json_type_object)) {
            e = do_api_why_set(why, wl, "%s: 'gpu_info' is not an object", what);
            goto fail;
        }
        json_object *vram = do_api_field(gi, "vram");
        if ((e = get_int(gi, "count", false, 0, what, &s->gpu_count, why, wl)) != ERR_OK ||
            (e = do_api_get_str(gi, "model", false, false, what, &s->gpu_model, why, wl)) != ERR_OK)
            goto fail;
        if (vram && json_object_is_type(vram, json_type_object) &&
            (e = get_int(vram, "amount", false, -1, what, &s->gpu_vram_gb, why, wl)) != ERR_OK)
            goto fail;
    }
    return ERR_OK;
fail:
    size_release(s);
    memset(s, 0, sizeof *s);
    return e;
}

enum err do_api_parse_sizes(const char *buf, size_t len, struct do_sizes *out, char *why,
                            size_t wl) {
    json_object *doc = NULL, *arr;
    enum err e = do_api_parse_doc(buf, len, &doc, why, wl);
    if (e != ERR_OK)
        return e;
    struct do_sizes l = {0};
    if ((e = do_api_get_list(doc, "sizes", &arr, why, wl)) != ERR_OK ||
        (e = do_api_get_next(doc, &l.next, why, wl)) != ERR_OK)
        goto out;
    size_t n = json_object_array_length(arr);
    l.v = xcalloc(n ? n : 1, sizeof *l.v);
    for (size_t i = 0; i < n; i++) {
        if (parse_size(json_object_array_get_idx(arr, i), &l.v[l.n], why, wl) == ERR_OK)
            l.n++;
        else
            l.skipped++;
    }
out:
    json_object_put(doc);
    if (e != ERR_OK) {
        do_sizes_release(&l);
        return e;
    }
    *out = l;
    return ERR_OK;
}

void do_sizes_release(struct do_sizes *l) {
    for (size_t i = 0; i < l->n; i++)
        size_release(&l->v[i]);
    free(l->v);
    free(l->next);
    memset(l, 0, sizeof *l);
}

/* --- cluster ------------------------------------------------------------------------ */

enum err do_api_parse_cluster(const char *buf, size_t len, struct do_cluster *out, char *why,
                              size_t wl) {
    json_object *doc = NULL;
    enum err e = do_api_parse_doc(buf, len, &doc, why, wl);
    if (e != ERR_OK)
        return e;
    struct do_cluster c = {0};
    json_object *k = do_api_field(doc, "kubernetes_cluster");
    if (!k || !json_object_is_type(k, json_type_object)) {
        e = do_api_why_set(why, wl, "'kubernetes_cluster' is %s", k ? "not an object" : "missing");
        goto out;
    }
    if ((e = do_api_get_str(k, "id", true, false, "cluster", &c.id, why, wl)) != ERR_OK ||
        (e = do_api_get_str(k, "name", false, false, "cluster", &c.name, why, wl)) != ERR_OK ||
        (e = do_api_get_str(k, "region", false, false, "cluster", &c.region, why, wl)) != ERR_OK ||
        (e = do_api_get_str(k, "version", false, false, "cluster", &c.version, why, wl)) != ERR_OK)
        goto out;
out:
    json_object_put(doc);
    if (e != ERR_OK) {
        do_cluster_release(&c);
        return e;
    }
    *out = c;
    return ERR_OK;
}

void do_cluster_release(struct do_cluster *c) {
    free(c->id);
    free(c->name);
    free(c->region);
    free(c->version);
    memset(c, 0, sizeof *c);
}

/* --- node pools --------------------------------------------------------------------- */

static void node_release(struct do_node *n) {
    free(n->id);
    free(n->name);
    free(n->state);
    free(n->droplet_id);
}

static void pool_release(struct do_pool *p) {
    for (size_t i = 0; i < p->n_labels; i++) {
        free(p->labels[i].key);
        free(p->labels[i].value);
    }
    free(p->labels);
    for (size_t i = 0; i < p->n_nodes; i++)
        node_release(&p->nodes[i]);
    free(p->nodes);
    free(p->id);
    free(p->name);
    free(p->size);
    free(p->labels_json);
    free(p->taints_json);
    memset(p, 0, sizeof *p);
}

static enum err parse_node(json_object *o, const char *pool, struct do_node *n, char *why,
                           size_t wl) {
    memset(n, 0, sizeof *n);
    char what[160];
    snprintf(what, sizeof what, "pool '%.64s' node", pool);
    if (!json_object_is_type(o, json_type_object))
        return do_api_why_set(why, wl, "%s: not an object", what);
    enum err e;
    if ((e = do_api_get_str(o, "name", true, false, what, &n->name, why, wl)) != ERR_OK)
        return e;
    snprintf(what, sizeof what, "pool '%.64s' node '%.64s'", pool, n->name);
    json_object *st = do_api_field(o, "status");
    if ((e = do_api_get_str(o, "id", true, false, what, &n->id, why, wl)) != ERR_OK ||
        (e = do_api_get_str(o, "droplet_id", false, true, what, &n->droplet_id, why, wl)) !=
            ERR_OK ||
        (e = do_api_get_time(o, "created_at", false, what, &n->created_at, why, wl)) != ERR_OK ||
        (e = do_api_get_time(o, "updated_at", false, what, &n->updated_at, why, wl)) != ERR_OK)
        goto fail;
    if (st) {
        if (!json_object_is_type(st, json_type_object)) {
            e = do_api_why_set(why, wl, "%s: 'status' is not an object", what);
            goto fail;
        }
        if ((e = do_api_get_str(st, "state", false, false, what, &n->state, why, wl)) != ERR_OK)
            goto fail;
    }
    return ERR_OK;
fail:
    node_release(n);
    memset(n, 0, sizeof *n);
    return e;
}

static enum err parse_pool(json_object *o, struct do_pool *p, char *why, size_t wl) {
    memset(p, 0, sizeof *p);
    if (!json_object_is_type(o, json_type_object))
        return do_api_why_set(why, wl, "pool: not an object");
    enum err e;
    if ((e = do_api_get_str(o, "id", true, false, "pool", &p->id, why, wl)) != ERR_OK)
        goto fail;
    char what[96];
    snprintf(what, sizeof what, "pool '%.64s'", p->id);
    if ((e = do_api_get_str(o, "name", true, false, what, &p->name, why, wl)) != ERR_OK ||
        (e = do_api_get_str(o, "size", true, false, what, &p->size, why, wl)) != ERR_OK ||
        (e = get_int(o, "count", false, -1, what, &p->count, why, wl)) != ERR_OK ||
        (e = get_bool(o, "auto_scale", what, &p->auto_scale, why, wl)) != ERR_OK ||
        (e = get_int(o, "min_nodes", false, 0, what, &p->min_nodes, why, wl)) != ERR_OK ||
        (e = get_int(o, "max_nodes", false, 0, what, &p->max_nodes, why, wl)) != ERR_OK)
        goto fail;
    json_object *labels = do_api_field(o, "labels");
    if (labels) {
        if (!json_object_is_type(labels, json_type_object)) {
            e = do_api_why_set(why, wl, "%s: 'labels' is not an object", what);
            goto fail;
        }
        p->labels_json = compact_json(labels);
        p->labels = xcalloc((size_t)json_object_object_length(labels) + 1, sizeof *p->labels);
        json_object_object_foreach(labels, k, v) {
            if (!v || !json_object_is_type(v, json_type_string))
                continue; /* kept in labels_json, not a key=value label */
            p->labels[p->n_labels].key = xstrdup(k);
            p->labels[p->n_labels].value = xstrdup(json_object_get_string(v));
            p->n_labels++;
        }
    }
    json_object *taints = do_api_field(o, "taints");
    if (taints) {
        if (!json_object_is_type(taints, json_type_array)) {
            e = do_api_why_set(why, wl, "%s: 'taints' is not an array", what);
            goto fail;
        }
        p->taints_json = compact_json(taints);
    }
    json_object *nodes = do_api_field(o, "nodes");
    if (!nodes) {
        /* null/absent is only believable for an empty pool: otherwise every node
         * would look deleted */
        if (p->count > 0) {
            e = do_api_why_set(why, wl, "%s: 'nodes' missing but count is %lld", what,
                               (long long)p->count);
            goto fail;
        }
    } else if (!json_object_is_type(nodes, json_type_array)) {
        e = do_api_why_set(why, wl, "%s: 'nodes' is not an array", what);
        goto fail;
    } else {
        size_t n = json_object_array_length(nodes);
        p->nodes = xcalloc(n ? n : 1, sizeof *p->nodes);
        for (size_t i = 0; i < n; i++) {
            if ((e = parse_node(json_object_array_get_idx(nodes, i), p->id, &p->nodes[i], why,
                                wl)) != ERR_OK)
                goto fail;
            p->n_nodes++;
        }
    }
    return ERR_OK;
fail:
    pool_release(p);
    return e;
}

enum err do_api_parse_pools(const char *buf, size_t len, struct do_pools *out, char *why,
                            size_t wl) {
    json_object *doc = NULL, *arr;
    enum err e = do_api_parse_doc(buf, len, &doc, why, wl);
    if (e != ERR_OK)
        return e;
    struct do_pools l = {0};
    if ((e = do_api_get_list(doc, "node_pools", &arr, why, wl)) != ERR_OK ||
        (e = do_api_get_next(doc, &l.next, why, wl)) != ERR_OK)
        goto out;
    size_t n = json_object_array_length(arr);
    l.v = xcalloc(n ? n : 1, sizeof *l.v);
    for (size_t i = 0; i < n; i++) {
        if ((e = parse_pool(json_object_array_get_idx(arr, i), &l.v[i], why, wl)) != ERR_OK)
            goto out;
        l.n++;
    }
    /* a pool id twice would make one of them look deleted and come back */
    for (size_t i = 0; i < l.n; i++)
        for (size_t j = i + 1; j < l.n; j++)
            if (strcmp(l.v[i].id, l.v[j].id) == 0) {
                e = do_api_why_set(why, wl, "pool '%.64s' listed twice", l.v[i].id);
                goto out;
            }
out:
    json_object_put(doc);
    if (e != ERR_OK) {
        do_pools_release(&l);
        return e;
    }
    *out = l;
    return ERR_OK;
}

void do_pools_release(struct do_pools *l) {
    for (size_t i = 0; i < l->n; i++)
        pool_release(&l->v[i]);
    free(l->v);
    free(l->next);
    memset(l, 0, sizeof *l);
}

enum err do_api_parse_pool(const char *buf, size_t len, struct do_pool *out, char *why, size_t wl) {
    json_object *doc = NULL;
    enum err e = do_api_parse_doc(buf, len, &doc, why, wl);
    if (e != ERR_OK)
        return e;
    struct do_pool p;
    memset(&p, 0, sizeof p);
    json_object *o = do_api_field(doc, "node_pool");
    if (!o)
        e = do_api_why_set(why, wl, "'node_pool' is missing");
    else
        e = parse_pool(o, &p, why, wl);
    json_object_put(doc);
    if (e != ERR_OK)
        return e;
    *out = p;
    return ERR_OK;
}

void do_pool_release(struct do_pool *p) {
    pool_release(p);
}

enum err do_api_parse_error(const char *buf, size_t len, struct do_error *out, char *why,
                            size_t wl) {
    json_object *doc = NULL;
    enum err e = do_api_parse_doc(buf, len, &doc, why, wl);
    if (e != ERR_OK)
        return e;
    struct do_error r = {0};
    if ((e = do_api_get_str(doc, "id", false, false, "error", &r.id, why, wl)) != ERR_OK ||
        (e = do_api_get_str(doc, "message", false, false, "error", &r.message, why, wl)) !=
            ERR_OK ||
        (e = do_api_get_str(doc, "request_id", false, false, "error", &r.request_id, why, wl)) !=
            ERR_OK)
        do_error_release(&r);
    json_object_put(doc);
    if (e != ERR_OK)
        return e;
    *out = r;
    return ERR_OK;
}

void do_error_release(struct do_error *e) {
    free(e->id);
    free(e->message);
    free(e->request_id);
    memset(e, 0, sizeof *e);
}
