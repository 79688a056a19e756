/* do_api — DigitalOcean JSON into structs; see do_api.h for the error policy.
 * Here: the typed field readers (do_api_json.h), sizes, clusters, node pools,
 * errors; invoices, billing history and balance are in do_api_billing.c.
 * Every json-c string is copied before the document is put (docs/style.md json-c 2);
 * every typed read checks json_object_is_type first (json-c 3). */
#include "source/do_api.h"
#include "source/do_api_json.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
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

enum err do_api_get_members(json_object *o, const struct do_api_member *m, size_t n,
                            const char *what, void *rec, char *why, size_t wl) {
    enum err e = ERR_OK;
    for (size_t i = 0; i < n && e == ERR_OK; i++) {
        void *at = (char *)rec + m[i].off;
        switch (m[i].kind) {
        case DO_STR:
        case DO_ID:
            e = do_api_get_str(o, m[i].key, m[i].required, m[i].kind == DO_ID, what, at, why, wl);
            break;
        case DO_AMOUNT:
            e = do_api_get_amount(o, m[i].key, m[i].required, what, at, why, wl);
            break;
        case DO_TIME:
            e = do_api_get_time(o, m[i].key, m[i].required, what, at, why, wl);
            break;
        case DO_INT:
            e = get_int(o, m[i].key, m[i].required, m[i].dflt, what, at, why, wl);
            break;
        case DO_BOOL:
            e = get_bool(o, m[i].key, what, at, why, wl);
            break;
        case DO_PRICE:
            e = get_price(o, m[i].key, what, at, why, wl);
            break;
        }
    }
    return e;
}

enum err do_api_get_record(json_object *o, const struct do_api_member *m, size_t n, size_t size,
                           const char *what, void *rec, char *why, size_t wl) {
    memset(rec, 0, size);
    if (!json_object_is_type(o, json_type_object))
        return do_api_why_set(why, wl, "%s: not an object", what);
    enum err e = do_api_get_members(o, m, n, what, rec, why, wl);
    if (e != ERR_OK)
        do_api_free_members(m, n, size, rec);
    return e;
}

enum err do_api_parse_record(const char *buf, size_t len, const char *key,
                             const struct do_api_member *m, size_t n, size_t size, const char *what,
                             void *out, char *why, size_t wl) {
    json_object *doc = NULL;
    enum err e = do_api_parse_doc(buf, len, &doc, why, wl);
    if (e != ERR_OK)
        return e;
    json_object *o = key ? do_api_field(doc, key) : doc;
    void *rec = xmalloc(size);
    if (!o || !json_object_is_type(o, json_type_object))
        e = do_api_why_set(why, wl, "'%s' is %s", key, o ? "not an object" : "missing");
    else if ((e = do_api_get_record(o, m, n, size, what, rec, why, wl)) == ERR_OK)
        memcpy(out, rec, size);
    free(rec);
    json_object_put(doc);
    return e;
}

void do_api_free_members(const struct do_api_member *m, size_t n, size_t size, void *rec) {
    for (size_t i = 0; i < n; i++)
        if (m[i].kind == DO_STR || m[i].kind == DO_ID)
            free(*(char **)((char *)rec + m[i].off));
    memset(rec, 0, size);
}

enum err do_api_parse_list(const char *buf, size_t len, const struct do_api_list_spec *spec,
                           struct do_api_list *out, char *why, size_t wl) {
    json_object *doc = NULL, *arr = NULL;
    enum err e = do_api_parse_doc(buf, len, &doc, why, wl);
    if (e != ERR_OK)
        return e;
    struct do_api_list l = {0};
    if ((e = do_api_get_list(doc, spec->key, &arr, why, wl)) != ERR_OK ||
        (e = do_api_get_next(doc, &l.next, why, wl)) != ERR_OK)
        goto out;
    size_t n = json_object_array_length(arr);
    l.v = xcalloc(n + spec->extra ? n + spec->extra : 1, spec->elem);
    for (size_t i = 0; i < n; i++) {
        enum err pe = spec->parse(json_object_array_get_idx(arr, i), i,
                                  (char *)l.v + l.n * spec->elem, why, wl);
        if (pe == ERR_OK) {
            l.n++;
        } else if (spec->all_or_nothing) {
            e = pe;
            goto out;
        } else {
            l.skipped++;
        }
    }
    if (spec->after)
        e = spec->after(doc, &l, why, wl);
out:
    json_object_put(doc);
    if (e != ERR_OK) {
        do_api_list_free(spec, l.v, l.n, l.next);
        return e;
    }
    *out = l;
    return ERR_OK;
}

void do_api_list_free(const struct do_api_list_spec *spec, void *v, size_t n, char *next) {
    for (size_t i = 0; i < n; i++)
        spec->release((char *)v + i * spec->elem);
    free(v);
    free(next);
}

static char *compact_json(json_object *v) {
    return xstrdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

/* --- sizes --------------------------------------------------------------------------- */

static void size_release(void *entry) {
    struct do_size *s = entry;
    free(s->slug);
    free(s->gpu_model);
}

static const struct do_api_member size_members[] = {
    {"vcpus", DO_INT, false, offsetof(struct do_size, vcpus), -1},
    {"memory", DO_INT, false, offsetof(struct do_size, memory_mb), -1},
    {"price_hourly", DO_PRICE, true, offsetof(struct do_size, price_hourly), 0},
    {"price_monthly", DO_PRICE, true, offsetof(struct do_size, price_monthly), 0},
    {"available", DO_BOOL, false, offsetof(struct do_size, available), 0},
};
static const struct do_api_member gpu_members[] = {
    {"count", DO_INT, false, offsetof(struct do_size, gpu_count), 0},
    {"model", DO_STR, false, offsetof(struct do_size, gpu_model), 0},
};

static enum err parse_size(json_object *o, size_t idx, void *out, char *why, size_t wl) {
    (void)idx;
    struct do_size *s = out;
    memset(s, 0, sizeof *s);
    enum err e;
    if (!json_object_is_type(o, json_type_object))
        return do_api_why_set(why, wl, "size: not an object");
    if ((e = do_api_get_str(o, "slug", true, false, "size", &s->slug, why, wl)) != ERR_OK)
        return e;
    char what[96];
    snprintf(what, sizeof what, "size '%.64s'", s->slug);
    json_object *gi;
    if ((e = do_api_get_members(o, size_members, DO_API_N(size_members), what, s, why, wl)) !=
        ERR_OK)
        goto fail;
    s->gpu_vram_gb = -1;
    if ((gi = do_api_field(o, "gpu_info")) != NULL) {
        if (!json_object_is_type(gi, json_type_object)) {
            e = do_api_why_set(why, wl, "%s: 'gpu_info' is not an object", what);
            goto fail;
        }
        json_object *vram = do_api_field(gi, "vram");
        if ((e = do_api_get_members(gi, gpu_members, DO_API_N(gpu_members), what, s, why, wl)) !=
            ERR_OK)
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

/* sizes skip a bad entry (do_api.h) */
static const struct do_api_list_spec sizes_spec = {
    .key = "sizes", .elem = sizeof(struct do_size), .parse = parse_size, .release = size_release};

DO_API_LIST_FUNCS(sizes, sizes_spec)

/* --- cluster ------------------------------------------------------------------------ */

static const struct do_api_member cluster_members[] = {
    {"id", DO_STR, true, offsetof(struct do_cluster, id), 0},
    {"name", DO_STR, false, offsetof(struct do_cluster, name), 0},
    {"region", DO_STR, false, offsetof(struct do_cluster, region), 0},
    {"version", DO_STR, false, offsetof(struct do_cluster, version), 0},
};

enum err do_api_parse_cluster(const char *buf, size_t len, struct do_cluster *out, char *why,
                              size_t wl) {
    return do_api_parse_record(buf, len, "kubernetes_cluster", cluster_members,
                               DO_API_N(cluster_members), sizeof *out, "cluster", out, why, wl);
}

void do_cluster_release(struct do_cluster *c) {
    do_api_free_members(cluster_members, DO_API_N(cluster_members), sizeof *c, c);
}

/* --- node pools --------------------------------------------------------------------- */

static void node_release(struct do_node *n) {
    free(n->id);
    free(n->name);
    free(n->state);
    free(n->droplet_id);
}

static void pool_release(void *entry) {
    struct do_pool *p = entry;
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

static const struct do_api_member node_members[] = {
    {"id", DO_STR, true, offsetof(struct do_node, id), 0},
    {"droplet_id", DO_ID, false, offsetof(struct do_node, droplet_id), 0},
    {"created_at", DO_TIME, false, offsetof(struct do_node, created_at), 0},
    {"updated_at", DO_TIME, false, offsetof(struct do_node, updated_at), 0},
};

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
    if ((e = do_api_get_members(o, node_members, DO_API_N(node_members), what, n, why, wl)) !=
        ERR_OK)
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

static const struct do_api_member pool_members[] = {
    {"name", DO_STR, true, offsetof(struct do_pool, name), 0},
    {"size", DO_STR, true, offsetof(struct do_pool, size), 0},
    {"count", DO_INT, false, offsetof(struct do_pool, count), -1},
    {"auto_scale", DO_BOOL, false, offsetof(struct do_pool, auto_scale), 0},
    {"min_nodes", DO_INT, false, offsetof(struct do_pool, min_nodes), 0},
    {"max_nodes", DO_INT, false, offsetof(struct do_pool, max_nodes), 0},
};

static enum err parse_pool(json_object *o, size_t idx, void *out, char *why, size_t wl) {
    (void)idx;
    struct do_pool *p = out;
    memset(p, 0, sizeof *p);
    if (!json_object_is_type(o, json_type_object))
        return do_api_why_set(why, wl, "pool: not an object");
    enum err e;
    if ((e = do_api_get_str(o, "id", true, false, "pool", &p->id, why, wl)) != ERR_OK)
        goto fail;
    char what[96];
    snprintf(what, sizeof what, "pool '%.64s'", p->id);
    if ((e = do_api_get_members(o, pool_members, DO_API_N(pool_members), what, p, why, wl)) !=
        ERR_OK)
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

/* a pool id twice would make one of them look deleted and come back */
static enum err pools_unique(json_object *doc, struct do_api_list *l, char *why, size_t wl) {
    (void)doc;
    const struct do_pool *v = l->v;
    for (size_t i = 0; i < l->n; i++)
        for (size_t j = i + 1; j < l->n; j++)
            if (strcmp(v[i].id, v[j].id) == 0)
                return do_api_why_set(why, wl, "pool '%.64s' listed twice", v[i].id);
    return ERR_OK;
}

/* node pools are all-or-nothing (do_api.h): a skipped pool would look deleted */
static const struct do_api_list_spec pools_spec = {.key = "node_pools",
                                                   .elem = sizeof(struct do_pool),
                                                   .all_or_nothing = true,
                                                   .parse = parse_pool,
                                                   .release = pool_release,
                                                   .after = pools_unique};

DO_API_LIST_FUNCS(pools, pools_spec)

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
        e = parse_pool(o, 0, &p, why, wl);
    json_object_put(doc);
    if (e != ERR_OK)
        return e;
    *out = p;
    return ERR_OK;
}

void do_pool_release(struct do_pool *p) {
    pool_release(p);
}

static const struct do_api_member error_members[] = {
    {"id", DO_STR, false, offsetof(struct do_error, id), 0},
    {"message", DO_STR, false, offsetof(struct do_error, message), 0},
    {"request_id", DO_STR, false, offsetof(struct do_error, request_id), 0},
};

enum err do_api_parse_error(const char *buf, size_t len, struct do_error *out, char *why,
                            size_t wl) {
    return do_api_parse_record(buf, len, NULL, error_members, DO_API_N(error_members), sizeof *out,
                               "error", out, why, wl);
}

void do_error_release(struct do_error *e) {
    do_api_free_members(error_members, DO_API_N(error_members), sizeof *e, e);
}
