/* api_fleet — aggregate=cluster on the routes that take it (api_fleet.h). */
#include "http/api_fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"

char (*api_fleet_names(struct request *req, struct response *resp, const char *clusters,
                       size_t *n))[STORE_CLUSTER_NAME_MAX] {
    *n = 0;
    if (!api_db_open(req, resp))
        return NULL;
    char(*names)[STORE_CLUSTER_NAME_MAX] = calloc(API_FLEET_MAX_CLUSTERS, sizeof *names);
    enum err rc = names ? store_cluster_names(req->db, clusters && clusters[0] ? clusters : NULL,
                                              names, API_FLEET_MAX_CLUSTERS, n)
                        : ERR_NOMEM;
    if (rc != ERR_OK) {
        free(names);
        response_error(resp, 503, "database", "cannot read the clusters: %s", err_str(rc));
        return NULL;
    }
    return names;
}

/* The request h answers for cluster=name: req's parameters without aggregate,
 * cluster= replaced (or added) by name. A shallow copy: its strings are req's
 * and name; never released. */
static void sub_request(const struct request *req, const char *name, struct request *sub) {
    *sub = *req;
    sub->nparams = 0;
    sub->too_many_params = false;
    bool named = false;
    for (int i = 0; i < req->nparams && sub->nparams < REQUEST_MAX_PARAMS; i++) {
        struct request_param p = req->params[i];
        if (!strcmp(p.key, "aggregate"))
            continue;
        if (!strcmp(p.key, "cluster")) {
            p.value = (char *)name;
            named = true;
        }
        sub->params[sub->nparams++] = p;
    }
    /* aggregate was one of req's parameters: there is room for cluster */
    if (!named && sub->nparams < REQUEST_MAX_PARAMS)
        sub->params[sub->nparams++] = (struct request_param){(char *)"cluster", (char *)name};
}

void api_route_by_cluster(struct request *req, struct response *resp, const struct api_query *q,
                          api_route_fn h, const char *key) {
    size_t n;
    char(*names)[STORE_CLUSTER_NAME_MAX] = api_fleet_names(req, resp, q->clusters, &n);
    if (!names)
        return;
    enum err rc = buf_puts(&resp->body, "{\"aggregate\":\"cluster\",");
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    api_write_window(&w, &q->w);
    buf_puts(&resp->body, ",\"clusters\":[");
    for (size_t i = 0; i < n && rc == ERR_OK; i++) {
        struct request sub;
        struct response sr;
        sub_request(req, names[i], &sub);
        response_init(&sr);
        h(&sub, &sr);
        if (sr.status != 200 || sr.fd >= 0) { /* its error is the answer */
            buf_release(&resp->body);
            resp->body = sr.body;
            buf_init(&sr.body, 0);
            resp->status = sr.status;
            resp->content_type = sr.content_type;
            response_release(&sr);
            free(names);
            return;
        }
        size_t len = sr.body.len;
        while (len && (sr.body.data[len - 1] == '\n'))
            len--;
        buf_puts(&resp->body, i ? ",{\"cluster\":" : "{\"cluster\":");
        jsonw_init(&w, &resp->body);
        jsonw_str(&w, names[i]);
        rc = buf_printf(&resp->body, ",\"%s\":", key);
        if (rc == ERR_OK)
            rc = buf_append(&resp->body, sr.body.data, len);
        if (rc == ERR_OK)
            rc = buf_putc(&resp->body, '}');
        response_release(&sr);
    }
    free(names);
    if (rc == ERR_OK)
        rc = buf_puts(&resp->body, "]}\n");
    if (rc != ERR_OK || w.rc != ERR_OK) {
        response_error(resp, 500, "internal", "cannot write the clusters' answers: %s",
                       err_str(rc != ERR_OK ? rc : w.rc));
        return;
    }
    response_json(resp, 200);
}
