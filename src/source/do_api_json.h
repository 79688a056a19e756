/* do_api_json — the typed field readers the DigitalOcean parsers share (do_api.h
 * is the contract for callers; this header is internal to src/source/do_api*.c).
 * Every reader checks the JSON type first (docs/style.md json-c 3), copies strings
 * (json-c 2), and on a problem writes the first reason into why[wl] (a later
 * one never overwrites it) and returns ERR_PARSE. Thread rule: any thread. */
#ifndef SPOTLEDGER_DO_API_JSON_H
#define SPOTLEDGER_DO_API_JSON_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/err.h"
#include "source/do_api.h"

/* Writes the reason into why unless one is already there; returns ERR_PARSE. */
enum err do_api_why_set(char *why, size_t wl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Parses a whole document that must be a JSON object (*out: put by the caller). */
enum err do_api_parse_doc(const char *buf, size_t len, json_object **out, char *why, size_t wl);
/* Member key of o, NULL when absent or null. */
json_object *do_api_field(json_object *o, const char *key);
/* String field (copied). Required: missing/null is an error. Ids may be numbers. */
enum err do_api_get_str(json_object *o, const char *key, bool required, bool allow_int,
                        const char *what, char **out, char *why, size_t wl);
/* Decimal-string amount ("23.44") in micro-dollars, strict (0 when absent and not required). */
enum err do_api_get_amount(json_object *o, const char *key, bool required, const char *what,
                           int64_t *out, char *why, size_t wl);
/* RFC 3339 time field in Unix seconds (0 when absent or "" and not required). */
enum err do_api_get_time(json_object *o, const char *key, bool required, const char *what,
                         int64_t *out, char *why, size_t wl);
/* The list under key: must be an array. */
enum err do_api_get_list(json_object *doc, const char *key, json_object **out, char *why,
                         size_t wl);
/* links.pages.next (optional; a wrong type is an error: it would end paging early). */
enum err do_api_get_next(json_object *doc, char **out, char *why, size_t wl);

/* A member read by do_api_get_members: its key, what it is, and where it goes in the
 * record (offsetof). Absent and not required: NULL, 0 (DO_TIME, DO_AMOUNT), false
 * (DO_BOOL) or dflt (DO_INT); DO_PRICE is always required. */
enum do_api_kind {
    DO_STR,    /* char *, copied */
    DO_ID,     /* char *, a string or an integer (ids) */
    DO_AMOUNT, /* int64_t micro-dollars from a decimal string */
    DO_TIME,   /* int64_t Unix seconds from RFC 3339 ("" = absent) */
    DO_INT,    /* int64_t */
    DO_BOOL,   /* bool */
    DO_PRICE,  /* int64_t micro-dollars from a JSON number's literal or a string */
};
struct do_api_member {
    const char *key;
    enum do_api_kind kind;
    bool required;
    size_t off;
    int64_t dflt;
};
/* Reads n members of o in table order into rec; the first problem stops it (the
 * members read so far stay in rec for the caller to release). what names the
 * record in why. */
enum err do_api_get_members(json_object *o, const struct do_api_member *m, size_t n,
                            const char *what, void *rec, char *why, size_t wl);
/* A whole record of size bytes at rec: zeroed, o must be an object (else "WHAT: not an
 * object"), then its members; on a problem do_api_free_members undoes it. */
enum err do_api_get_record(json_object *o, const struct do_api_member *m, size_t n, size_t size,
                           const char *what, void *rec, char *why, size_t wl);
/* One record document: the object under key (NULL: the document itself; else "'KEY' is
 * missing" / "'KEY' is not an object") read as do_api_get_record does; *out (size
 * bytes) is written only on ERR_OK. */
enum err do_api_parse_record(const char *buf, size_t len, const char *key,
                             const struct do_api_member *m, size_t n, size_t size, const char *what,
                             void *out, char *why, size_t wl);
/* Frees the string members (DO_STR, DO_ID) of rec and zeroes its size bytes. */
void do_api_free_members(const struct do_api_member *m, size_t n, size_t size, void *rec);
/* The number of entries of a member table. */
#define DO_API_N(table) (sizeof(table) / sizeof(table)[0])

/* One list page, the same skeleton for every list endpoint (do_api.h's error
 * policy): the document, the array under key, links.pages.next, then each entry
 * through parse into the next slot. A list is all-or-nothing (the first bad entry
 * fails the page) or skips a bad entry and counts it in skipped. parse writes one
 * entry of elem bytes at out and, when it fails, leaves nothing to release there. */
struct do_api_list {
    void *v; /* n entries (room for the array's length + spec->extra) */
    size_t n;
    size_t skipped;
    char *next;
};
struct do_api_list_spec {
    const char *key;     /* the array's member name */
    size_t elem;         /* bytes of one entry */
    size_t extra;        /* slots allocated beyond the array's entries (for after) */
    bool all_or_nothing; /* a bad entry fails the page (else skipped++) */
    enum err (*parse)(json_object *o, size_t idx, void *out, char *why, size_t wl);
    void (*release)(void *entry);
    /* optional, on the whole page once the entries are in (NULL: none) */
    enum err (*after)(json_object *doc, struct do_api_list *l, char *why, size_t wl);
};
/* On ERR_OK *out owns the entries (do_api_list_free); on an error nothing is kept. */
enum err do_api_parse_list(const char *buf, size_t len, const struct do_api_list_spec *spec,
                           struct do_api_list *out, char *why, size_t wl);
/* Releases n entries of v, v itself and next (safe on NULL v with n = 0). */
void do_api_list_free(const struct do_api_list_spec *spec, void *v, size_t n, char *next);
/* do_api.h's do_api_parse_NAME and do_NAME_release for the list struct do_NAME
 * ({v, n, skipped, next}, model/do.h) over its spec. */
#define DO_API_LIST_FUNCS(name, spec)                                                              \
    enum err do_api_parse_##name(const char *buf, size_t len, struct do_##name *out, char *why,    \
                                 size_t wl) {                                                      \
        struct do_api_list l;                                                                      \
        enum err e = do_api_parse_list(buf, len, &(spec), &l, why, wl);                            \
        if (e == ERR_OK)                                                                           \
            *out = (struct do_##name){.v = l.v, .n = l.n, .skipped = l.skipped, .next = l.next};   \
        return e;                                                                                  \
    }                                                                                              \
    void do_##name##_release(struct do_##name *l) {                                                \
        do_api_list_free(&(spec), l->v, l->n, l->next);                                            \
        memset(l, 0, sizeof *l);                                                                   \
    }

#endif
