/* do_api_json — the typed field readers the DigitalOcean parsers share (do_api.h
 * is the contract for callers; this header is internal to src/source/do_api*.c).
 * Every reader checks the JSON type first (STYLE.md json-c 3), copies strings
 * (json-c 2), and on a problem writes the first reason into why[wl] (a later
 * one never overwrites it) and returns ERR_PARSE. Thread rule: any thread. */
#ifndef SPOTLEDGER_DO_API_JSON_H
#define SPOTLEDGER_DO_API_JSON_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
