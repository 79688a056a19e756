/* k8s_api_json — the json-c read helpers of the Kubernetes parsers and the object
 * parser they share (k8s_api.h is the contract for callers; this header is
 * internal to src/source/k8s_api*.c): documents, lists, watch lines and small
 * parsers (k8s_api.c), Jobs, Pods, Nodes and Events (k8s_api_obj.c).
 * Returned json_objects are borrowed from their parent; strings are json-c
 * loans (copy them to keep them). Thread rule: any thread, no state. */
#ifndef SPOTLEDGER_K8S_API_JSON_H
#define SPOTLEDGER_K8S_API_JSON_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/k8s_api.h"

/* Member k of object o, NULL when o is not an object or lacks it. */
json_object *k8s_jget(json_object *o, const char *k);
/* k8s_jpath(o, "a", "b", NULL) = o.a.b or NULL. */
json_object *k8s_jpath(json_object *o, ...);
/* String member k of o, NULL when absent or not a string. */
const char *k8s_jstr(json_object *o, const char *k);
/* Copies s (NULL: "") into out[cap], truncating. */
void k8s_copy_str(char *out, size_t cap, const char *s);
/* Copies string member k of o into out[cap] ("" when absent). */
void k8s_jcopy(json_object *o, const char *k, char *out, size_t cap);
/* RFC 3339 member k of o as Unix seconds, 0 when absent or malformed. */
int64_t k8s_jtime(json_object *o, const char *k);
/* Integer member k of o, dflt when absent or not an integer (json-c would
 * coerce strings to 0: docs/style.md json-c 3). */
int64_t k8s_jint(json_object *o, const char *k, int64_t dflt);
/* Boolean member k of o is true. */
bool k8s_jbool(json_object *o, const char *k);
/* Length of arr, 0 when not an array. */
size_t k8s_jlen(json_object *arr);
/* Element i of arr. */
json_object *k8s_jidx(json_object *arr, size_t i);
/* The earlier of two times, 0 meaning unknown. */
int64_t k8s_min_known(int64_t a, int64_t b);

/* --- k8s_api_obj.c --- */

/* One object of kind from its JSON into out (released by k8s_object_release). */
enum err k8s_parse_object(json_object *o, enum k8s_kind kind, struct k8s_object *out);

#endif
