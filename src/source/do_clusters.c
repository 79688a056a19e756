/* do_clusters — list the account's clusters (do_clusters.h). */
#include "source/do_clusters.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

static void copy_str(struct json_object *o, const char *key, char *dst, size_t cap) {
    struct json_object *v;
    dst[0] = '\0';
    if (json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
        snprintf(dst, cap, "%s", json_object_get_string(v));
}

enum err do_clusters_list(struct http_client *c, const char *api_url, const char *token,
                          struct do_cluster_brief *out, int max, int *n,
                          struct http_response *resp) {
    *n = 0;
    char url[600];
    snprintf(url, sizeof url, "%s/v2/kubernetes/clusters?per_page=%d", api_url,
             max < DO_CLUSTERS_MAX ? max : DO_CLUSTERS_MAX);
    enum err rc = http_client_get(c, url, token, "kubernetes:read", resp);
    if (rc != ERR_OK)
        return rc;
    struct json_tokener *tk = json_tokener_new_ex(32);
    if (!tk)
        return ERR_NOMEM;
    struct json_object *o = json_tokener_parse_ex(tk, buf_str(&resp->body), (int)resp->body.len);
    bool ok = json_tokener_get_error(tk) == json_tokener_success;
    json_tokener_free(tk);
    struct json_object *arr = NULL;
    if (!ok || !json_object_object_get_ex(o, "kubernetes_clusters", &arr) ||
        !json_object_is_type(arr, json_type_array)) {
        json_object_put(o);
        snprintf(resp->error, sizeof resp->error, "no kubernetes_clusters in the answer");
        return ERR_PARSE;
    }
    for (size_t i = 0; i < json_object_array_length(arr) && *n < max; i++) {
        struct json_object *e = json_object_array_get_idx(arr, i);
        struct do_cluster_brief *b = &out[*n];
        copy_str(e, "id", b->id, sizeof b->id);
        copy_str(e, "name", b->name, sizeof b->name);
        copy_str(e, "region", b->region, sizeof b->region);
        if (b->id[0])
            (*n)++;
    }
    json_object_put(o);
    return ERR_OK;
}

void do_clusters_describe(const struct do_cluster_brief *v, int n, char *out, size_t cap) {
    size_t k = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w = snprintf(out + k, cap - k, "%s%s (%s, %s)", i ? ", " : "", v[i].name, v[i].id,
                         v[i].region);
        if (w < 0 || (size_t)w >= cap - k)
            return;
        k += (size_t)w;
    }
    if (n == 0)
        snprintf(out, cap, "none");
}
