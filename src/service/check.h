/* check — `spotledger check`: can this configuration work? (README "Point it at
 * your cluster"). With the same flags as the service it:
 *   - resolves and reaches the Kubernetes API (kubeconfig, exec plugin, ...) and
 *     asks one SelfSubjectAccessReview per resource and verb the watcher needs
 *     (list and watch on nodes, jobs, pods, events, poddisruptionbudgets);
 *   - finds the DigitalOcean token (source/do_token.h), reaches the API and
 *     names the missing scopes by a 403 on one endpoint per scope
 *     (kubernetes:read, sizes:read, billing:read);
 *   - finds the cluster id (flag, DOKS server URL) and checks it exists, naming
 *     the account's clusters otherwise;
 *   - lists the pools and which ones count as Spot and why (source/pool_capacity.h);
 *   - reports the database's state (absent, schema version, last polls).
 * With --cluster NAME=TARGET (docs/fleet.md) the Kubernetes and cluster-id
 * checks run once per cluster, each line and fix naming the cluster ("rbac
 * FAIL west: ...", "fix: cluster west: ..."); one cluster's failure does not
 * stop the others'; the token and its scopes are checked once.
 * Output: one line per finding on out, then one "fix:" line per problem. Tokens
 * are never printed.
 *
 * Thread rule: main thread, before anything else runs (curl_global_init done). */
#ifndef SPOTLEDGER_CHECK_H
#define SPOTLEDGER_CHECK_H

#include <stdio.h>

#include "service/config.h"

/* Returns the process exit status: 0 when nothing is wrong, 1 otherwise. */
int check_run(const struct config *cfg, const char *(*getenv_fn)(const char *), FILE *out);

#endif
