/* sim_authz — spotsim's planted permission problems, for `spotledger check`'s
 * tests (README "Point it at your cluster"):
 *   --deny-scope SCOPE      the DigitalOcean token lacks SCOPE: every /v2/ path
 *                           needing it answers 403 (DigitalOcean's "forbidden");
 *   --deny-verb VERB:RES    the service account may not VERB (get, list, watch)
 *                           RES (pods, jobs, ...): such requests answer 403, and a
 *                           SelfSubjectAccessReview for it says allowed: false.
 * Everything else is allowed, as before.
 *
 * Thread rule: filled before the server starts, read-only afterwards. */
#ifndef SPOTLEDGER_SIM_AUTHZ_H
#define SPOTLEDGER_SIM_AUTHZ_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"

#define SIM_AUTHZ_MAX 16

struct sim_authz {
    char scopes[SIM_AUTHZ_MAX][32];
    int n_scopes;
    char verbs[SIM_AUTHZ_MAX][16];
    char resources[SIM_AUTHZ_MAX][64];
    int n_verbs;
};

/* ERR_INVAL for an unknown scope name, ERR_TOOBIG beyond SIM_AUTHZ_MAX. */
enum err sim_authz_deny_scope(struct sim_authz *a, const char *scope);
/* "watch:pods"; ERR_INVAL for another shape or verb. */
enum err sim_authz_deny_verb(struct sim_authz *a, const char *verb_resource);

/* The scope a DigitalOcean path ("/v2/sizes") needs, or NULL for none known. */
const char *sim_authz_do_scope(const char *path);
/* True when the token may not read path (its scope is denied). */
bool sim_authz_do_denied(const struct sim_authz *a, const char *path);

/* The verb and resource of a Kubernetes request (GET of a collection: list, or
 * watch with watch=1/true; GET of a named object: get). False for discovery and
 * other paths that name no resource. */
bool sim_authz_k8s_request(const char *path, bool watch, char verb[16], char resource[64]);
bool sim_authz_k8s_denied(const struct sim_authz *a, const char *verb, const char *resource);

/* True for POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews. */
bool sim_authz_is_ssar(const char *method, const char *path);
/* Answers a SelfSubjectAccessReview body into out (the review with its status).
 * ERR_PARSE when the body is not one (no spec.resourceAttributes). */
enum err sim_authz_ssar(const struct sim_authz *a, const char *body, size_t len, struct buf *out);

#endif
