/* yaml_json — a YAML document as a json-c tree; the only user of libyaml
 * (Debian libyaml-dev), so that kubeconfig and doctl config readers work on
 * json-c objects like the rest of the source layer.
 *
 * Mappings become objects (a key seen twice: the first one wins, as kubectl does
 * for duplicate entries), sequences become arrays, every scalar becomes a string
 * (YAML 1.1 typing is left to the reader: "true", "1"), an empty document or a
 * null scalar (`~`, `null`, empty) becomes NULL inside its parent. Aliases are
 * refused (ERR_PARSE): kubeconfigs do not use them and they let a small file
 * expand without bound. Bounded: at most YAML_JSON_MAX_DEPTH levels and
 * YAML_JSON_MAX_NODES nodes; input above YAML_JSON_MAX_BYTES is ERR_TOOBIG.
 *
 * Thread rule: any thread. */
#ifndef SPOTLEDGER_YAML_JSON_H
#define SPOTLEDGER_YAML_JSON_H

#include <json-c/json.h>
#include <stddef.h>

#include "base/err.h"

#define YAML_JSON_MAX_DEPTH 64
#define YAML_JSON_MAX_NODES 200000
#define YAML_JSON_MAX_BYTES (16u * 1024 * 1024)

/* Parses the first document of buf[0..len). *out: the root (NULL for an empty
 * document; the caller json_object_put()s it). ERR_PARSE with a one-line reason
 * (line and column) in err, ERR_TOOBIG. */
enum err yaml_json_parse(const char *buf, size_t len, struct json_object **out, char *err,
                         size_t errlen);

/* Reads and parses a file (at most YAML_JSON_MAX_BYTES). ERR_IO/ERR_NOTFOUND when
 * it cannot be read, then as yaml_json_parse. */
enum err yaml_json_parse_file(const char *path, struct json_object **out, char *err, size_t errlen);

/* The string member `key` of object o, or NULL (o NULL or not an object, key
 * absent, or its value not a string). A loan from o. */
const char *yaml_json_str(struct json_object *o, const char *key);

#endif
