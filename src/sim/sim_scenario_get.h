/* sim_scenario_get — the scenario parser's typed getters over json-c (used by
 * sim_scenario.c only): an absent key gives the default, a wrong type fails the
 * parse with one line naming the field (docs/style.md json-c 3), never a silent 0.
 * The first failure wins; later ones are ignored.
 * Thread rule: any thread (no globals). */
#ifndef SPOTLEDGER_SIM_SCENARIO_GET_H
#define SPOTLEDGER_SIM_SCENARIO_GET_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The parse's error state: err[errlen] gets the first failure's line. */
struct scn_ctx {
    char *err;
    size_t errlen;
    bool failed;
};

/* Records the first failure (printf-style). */
void scn_fail(struct scn_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* o[key], or NULL when absent or JSON null. */
json_object *scn_get(json_object *o, const char *key);
/* A string (copied; caller frees), else def copied (NULL stays NULL). */
char *scn_get_str(struct scn_ctx *c, json_object *o, const char *where, const char *key,
                  const char *def);
/* An integer in [lo, hi]. */
int64_t scn_get_int(struct scn_ctx *c, json_object *o, const char *where, const char *key,
                    int64_t def, int64_t lo, int64_t hi);
bool scn_get_bool(struct scn_ctx *c, json_object *o, const char *where, const char *key, bool def);
/* A duration: whole seconds or "90s" / "15m" / "36h" / "7d" (sim_parse_duration). */
int64_t scn_get_dur(struct scn_ctx *c, json_object *o, const char *where, const char *key,
                    int64_t def);
/* A probability in [0, 1] (number or decimal string) as parts per million; 0 absent. */
int64_t scn_get_ppm(struct scn_ctx *c, json_object *o, const char *where, const char *key);
/* An RFC 3339 time as Unix seconds; 0 when absent. */
int64_t scn_get_time(struct scn_ctx *c, json_object *o, const char *where, const char *key);

/* The length of list `name`, which must be a non-empty array of at most max
 * items; 0 (and c failed) when it is not. */
size_t scn_list_len(struct scn_ctx *c, json_object *arr, const char *name, size_t max);
/* The length of optional list `name`: 0 when absent (NULL), else an array of at
 * most max items; 0 (and c failed) when it is not. */
size_t scn_opt_list_len(struct scn_ctx *c, json_object *arr, const char *name, size_t max);
/* Item i of list `name`, which must be an object, and its place "name[i]" into
 * where[wn]; NULL (and c failed) when it is not an object. */
json_object *scn_list_obj(struct scn_ctx *c, json_object *arr, size_t i, const char *name,
                          char *where, size_t wn);

#endif
