/* advice_rules — the kit the setup advisor's rules share (internal to engine/advice*.c;
 * callers outside use advice.h). A rule is one function that reads ctx->in and
 * calls advice_emit(); the rules live by family: pools (advice_pool.c), a Job's
 * spec (advice_job.c), the window's measurements (advice_window.c).
 *
 * Pure like advice.h: no I/O, no clock, no globals. Strings returned by the
 * helpers below are malloc'ed unless said otherwise. Thread rule: any thread. */
#ifndef SPOTLEDGER_ADVICE_RULES_H
#define SPOTLEDGER_ADVICE_RULES_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/jsonw.h"
#include "engine/advice.h"

/* The evidence of one finding: a JSON object written into b. */
struct advice_ev {
    struct buf b;
    struct jsonw w;
};

/* One advice_run: its input and the result being filled (cap = room in r->v). */
struct advice_ctx {
    const struct advice_input *in;
    struct advice_result *r;
    size_t cap;
};

/* --- helpers (advice.c) --- */

/* printf into a new string. */
char *advice_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* Both non-NULL and equal. */
bool advice_str_eq(const char *a, const char *b);
/* s is longer than suffix and ends with it. */
bool advice_ends_with(const char *s, const char *suffix);
/* A pool's name, else its id (not copied). */
const char *advice_pool_label(const struct advice_pool *p);
/* The cluster for a doctl command line, "<cluster>" when unknown (not copied). */
const char *advice_cluster_arg(const struct advice_input *in);
/* json-c parse of a stored JSON column; NULL when absent or malformed (caller puts). */
json_object *advice_jparse(const char *s);
/* Member k of object o (borrowed), NULL when o is not an object or lacks it. */
json_object *advice_jget(json_object *o, const char *k);
/* String member k of o (borrowed), NULL when absent or not a string. */
const char *advice_jstr(json_object *o, const char *k);
/* Length of array a, 0 when a is not an array. */
size_t advice_jlen(json_object *a);

/* --- evidence writer (advice.c) --- */

/* Starts the evidence object. */
void advice_ev_begin(struct advice_ev *e);
/* Closes it and hands over the JSON text. */
char *advice_ev_end(struct advice_ev *e);
/* key: the stored JSON text re-serialized, null when absent or malformed. */
void advice_ev_json(struct advice_ev *e, const char *key, const char *json);
/* key: the json-c value o, null when NULL. */
void advice_ev_jobj(struct advice_ev *e, const char *key, json_object *o);
/* key: v, null when negative or COST_NULL. */
void advice_ev_opt_int(struct advice_ev *e, const char *key, int64_t v);
/* The pool's name, id, size and capacity type. */
void advice_ev_pool(struct advice_ev *e, const struct advice_pool *p);
/* The Job's namespace, name, uid and configuration. */
void advice_ev_job(struct advice_ev *e, const struct advice_job *j);

/* Records one finding unless silenced (by job_ignore, the Job's ignore list, or
 * --ignore-advice for rule, optionally about pool); takes ownership of object,
 * title, evidence and fix; why is static text. */
void advice_emit(struct advice_ctx *c, const char *rule, enum advice_severity sev,
                 const struct advice_pool *pool, const char *job_ignore, char *object, char *title,
                 char *evidence, const char *why, char *fix);

/* --- pools (advice_pool.c) --- */

/* The pool is not deleted. */
bool advice_alive(const struct advice_pool *p);
/* Number of NoSchedule/NoExecute taints of the pool. */
size_t advice_hard_taints(const struct advice_pool *p);
/* Every hard taint of the pool is tolerated by one of tolerations (a JSON array). */
bool advice_tolerates_pool(json_object *tolerations, const struct advice_pool *p);
/* The pool of that id, NULL when unknown. */
const struct advice_pool *advice_pool_by_id(const struct advice_input *in, const char *id);

/* --- the rules, in the order advice_run calls them --- */

void advice_rule_system_pool(struct advice_ctx *c);        /* rule 1 (advice_pool.c) */
void advice_rule_self_on_spot(struct advice_ctx *c);       /* rule 1 (advice_pool.c) */
void advice_rule_spot_taint(struct advice_ctx *c);         /* rule 2 (advice_pool.c) */
void advice_rule_fallback_pool(struct advice_ctx *c);      /* rule 3 (advice_pool.c) */
void advice_rule_spot_autoscale(struct advice_ctx *c);     /* rule 4 (advice_pool.c) */
void advice_rule_fallback_min_nodes(struct advice_ctx *c); /* rule 5 (advice_pool.c) */
/* Rules 2 (tolerations), 6, 7, 8 once per Job name, the latest Job speaking (advice_job.c). */
void advice_job_rules(struct advice_ctx *c);
void advice_rule_no_checkpoints(struct advice_ctx *c); /* rule 9 (advice_window.c) */
void advice_rule_pdb(struct advice_ctx *c);            /* rule 10 (advice_window.c) */

#endif
