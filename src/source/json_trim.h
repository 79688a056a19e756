/* json_trim — parse a Kubernetes JSON document with json-c without building the
 * members spotledger never reads.
 *
 * Every "managedFields" member (a server-side-apply record: about a third of a
 * Job's or Pod's bytes, read by nothing in spotledger) is cut out by a byte scan
 * that respects strings and escapes, and json-c's tokener is fed the pieces in
 * between (it parses incrementally: json_tokener.h). A member is cut only when it
 * is structurally a key (after '{' or ',', followed by ':' and an array); anything
 * else is parsed as it is. Thread rule: any thread. */
#ifndef SPOTLEDGER_JSON_TRIM_H
#define SPOTLEDGER_JSON_TRIM_H

#include <json-c/json.h>
#include <stddef.h>

/* Parses buf[0..len) with tok (fresh) and returns the root; or NULL with *err the
 * tokener's error (json_tokener_error_parse_unexpected when non-space bytes
 * follow the root). */
json_object *json_trim_parse(json_tokener *tok, const char *buf, size_t len,
                             enum json_tokener_error *err);

#endif
