/* do_clusters — the account's DOKS clusters (GET /v2/kubernetes/clusters), for
 * naming them when --cluster-id is missing or wrong.
 *
 * Thread rule: the calling thread's http_client. */
#ifndef SPOTLEDGER_DO_CLUSTERS_H
#define SPOTLEDGER_DO_CLUSTERS_H

#include <stddef.h>

#include "base/err.h"
#include "source/http_client.h"

#define DO_CLUSTERS_MAX 200

struct do_cluster_brief {
    char id[40];
    char name[128];
    char region[32];
};

/* One page of up to DO_CLUSTERS_MAX clusters into out[0..*n). Errors as
 * http_client_get (the token's scope is kubernetes:read); ERR_PARSE for a body
 * without kubernetes_clusters. resp holds the response. */
enum err do_clusters_list(struct http_client *c, const char *api_url, const char *token,
                          struct do_cluster_brief *out, int max, int *n,
                          struct http_response *resp);

/* "gpu-prod (5f1b...-..., nyc2), ..." or "none", truncated to cap. */
void do_clusters_describe(const struct do_cluster_brief *v, int n, char *out, size_t cap);

#endif
