/* yaml_json — libyaml's event parser folded into a json-c tree. Invariant: every
 * node is owned by exactly one place (the stack or its parent) at any time, so an
 * error at any event frees everything with the stack. */
#include "source/yaml_json.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/xalloc.h"

struct frame {
    struct json_object *node; /* object or array */
    char *key;                /* pending mapping key (objects only), NULL = expecting one */
};

struct builder {
    struct frame st[YAML_JSON_MAX_DEPTH];
    int depth;
    long nodes;
    struct json_object *root;
    bool have_root;
};

static bool is_null_scalar(const yaml_event_t *ev) {
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *v = (const char *)ev->data.scalar.value;
    return ev->data.scalar.length == 0 || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 ||
           strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0;
}

/* Hands a finished value (NULL = YAML null) to the innermost container or makes it
 * the root. Takes ownership of v. */
static enum err attach(struct builder *b, struct json_object *v, char *err, size_t errlen) {
    if (b->depth == 0) {
        b->root = v;
        b->have_root = true;
        return ERR_OK;
    }
    struct frame *f = &b->st[b->depth - 1];
    if (json_object_is_type(f->node, json_type_array)) {
        json_object_array_add(f->node, v);
        return ERR_OK;
    }
    if (!f->key) {
        /* a key: only scalars are accepted as mapping keys */
        if (!v || !json_object_is_type(v, json_type_string)) {
            json_object_put(v);
            snprintf(err, errlen, "a mapping key that is not a plain string");
            return ERR_PARSE;
        }
        f->key = xstrdup(json_object_get_string(v));
        json_object_put(v);
        return ERR_OK;
    }
    if (json_object_object_get_ex(f->node, f->key, NULL))
        json_object_put(v); /* duplicate key: the first one wins */
    else
        json_object_object_add(f->node, f->key, v);
    free(f->key);
    f->key = NULL;
    return ERR_OK;
}

static void builder_free(struct builder *b) {
    for (int i = 0; i < b->depth; i++) {
        json_object_put(b->st[i].node);
        free(b->st[i].key);
    }
    b->depth = 0;
    json_object_put(b->root);
    b->root = NULL;
}

/* One event; *done at the end of the first document. */
static enum err on_event(struct builder *b, const yaml_event_t *ev, bool *done, char *err,
                         size_t errlen) {
    switch (ev->type) {
    case YAML_ALIAS_EVENT:
        snprintf(err, errlen, "YAML aliases (*%s) are not supported", ev->data.alias.anchor);
        return ERR_PARSE;
    case YAML_SCALAR_EVENT: {
        if (++b->nodes > YAML_JSON_MAX_NODES) {
            snprintf(err, errlen, "more than %d YAML nodes", YAML_JSON_MAX_NODES);
            return ERR_TOOBIG;
        }
        struct json_object *v =
            is_null_scalar(ev) ? NULL
                               : json_object_new_string_len((const char *)ev->data.scalar.value,
                                                            (int)ev->data.scalar.length);
        /* a null mapping key cannot name anything: refuse it */
        if (!v && b->depth > 0 && json_object_is_type(b->st[b->depth - 1].node, json_type_object) &&
            !b->st[b->depth - 1].key) {
            snprintf(err, errlen, "an empty mapping key");
            return ERR_PARSE;
        }
        return attach(b, v, err, errlen);
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        if (++b->nodes > YAML_JSON_MAX_NODES) {
            snprintf(err, errlen, "more than %d YAML nodes", YAML_JSON_MAX_NODES);
            return ERR_TOOBIG;
        }
        if (b->depth >= YAML_JSON_MAX_DEPTH) {
            snprintf(err, errlen, "YAML nested deeper than %d levels", YAML_JSON_MAX_DEPTH);
            return ERR_TOOBIG;
        }
        if (b->depth > 0 && json_object_is_type(b->st[b->depth - 1].node, json_type_object) &&
            !b->st[b->depth - 1].key) {
            snprintf(err, errlen, "a mapping key that is not a plain string");
            return ERR_PARSE;
        }
        b->st[b->depth].node = ev->type == YAML_SEQUENCE_START_EVENT ? json_object_new_array()
                                                                     : json_object_new_object();
        b->st[b->depth].key = NULL;
        b->depth++;
        return ERR_OK;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        struct frame f = b->st[--b->depth];
        free(f.key);
        return attach(b, f.node, err, errlen);
    }
    case YAML_DOCUMENT_END_EVENT:
        *done = true;
        return ERR_OK;
    default:
        return ERR_OK;
    }
}

enum err yaml_json_parse(const char *buf, size_t len, struct json_object **out, char *err,
                         size_t errlen) {
    *out = NULL;
    if (errlen)
        err[0] = '\0';
    if (len > YAML_JSON_MAX_BYTES) {
        snprintf(err, errlen, "YAML larger than %u bytes", YAML_JSON_MAX_BYTES);
        return ERR_TOOBIG;
    }
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return ERR_NOMEM;
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    struct builder *b = xcalloc(1, sizeof *b);
    enum err rc = ERR_OK;
    bool done = false;
    /* every event consumes input or ends the stream: bounded by len */
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            snprintf(err, errlen, "YAML: %s at line %lu column %lu",
                     p.problem ? p.problem : "syntax error", (unsigned long)p.problem_mark.line + 1,
                     (unsigned long)p.problem_mark.column + 1);
            rc = ERR_PARSE;
            break;
        }
        bool end = ev.type == YAML_STREAM_END_EVENT;
        rc = on_event(b, &ev, &done, err, errlen);
        yaml_event_delete(&ev);
        if (rc != ERR_OK || end)
            break;
    }
    yaml_parser_delete(&p);
    if (rc == ERR_OK) {
        *out = b->root;
        b->root = NULL;
    }
    builder_free(b);
    free(b);
    return rc;
}

enum err yaml_json_parse_file(const char *path, struct json_object **out, char *err,
                              size_t errlen) {
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(e));
        return e == ENOENT ? ERR_NOTFOUND : ERR_IO;
    }
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    enum err rc = ERR_OK;
    for (;;) {
        if (n == cap) {
            if (cap > YAML_JSON_MAX_BYTES) {
                snprintf(err, errlen, "'%s' is larger than %u bytes", path, YAML_JSON_MAX_BYTES);
                rc = ERR_TOOBIG;
                break;
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                snprintf(err, errlen, "cannot read '%s'", path);
                rc = ERR_IO;
            }
            break;
        }
    }
    fclose(f);
    if (rc == ERR_OK) {
        char inner[256];
        rc = yaml_json_parse(buf, n, out, inner, sizeof inner);
        if (rc != ERR_OK)
            snprintf(err, errlen, "'%s': %s", path, inner);
    }
    free(buf);
    return rc;
}

const char *yaml_json_str(struct json_object *o, const char *key) {
    struct json_object *v;
    if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}
