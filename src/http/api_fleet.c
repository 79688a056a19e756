/* api_fleet — GET /api/v1/summary?aggregate=cluster (api_fleet.h). */
#include "http/api_fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "http/api_cost.h"
#include "query/report.h"
#include "store/store_read.h"

#define FLEET_MAX_CLUSTERS 64

void api_summary_by_cluster(struct request *req, struct response *resp, const struct api_query *q) {
    if (!req->db) {
        response_error(resp, 503, "unavailable", "the database is not open");
        return;
    }
    char(*names)[STORE_CLUSTER_NAME_MAX] = calloc(FLEET_MAX_CLUSTERS, sizeof *names);
    size_t n = 0;
    enum err rc = names ? store_cluster_names(req->db, q->clusters[0] ? q->clusters : NULL, names,
                                              FLEET_MAX_CLUSTERS, &n)
                        : ERR_NOMEM;
    if (rc != ERR_OK) {
        free(names);
        response_error(resp, 503, "database", "cannot read the clusters: %s", err_str(rc));
        return;
    }
    buf_puts(&resp->body, "{\"aggregate\":\"cluster\",");
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    api_write_window(&w, &q->w);
    buf_puts(&resp->body, ",\"clusters\":[");
    for (size_t i = 0; i < n && rc == ERR_OK; i++) {
        struct api_query one = *q;
        snprintf(one.clusters, sizeof one.clusters, ",%s,", names[i]);
        struct calc c;
        if (!api_calc_window(req, resp, &one, &c)) { /* resp holds the error */
            free(names);
            return;
        }
        buf_puts(&resp->body, i ? ",{\"cluster\":" : "{\"cluster\":");
        jsonw_init(&w, &resp->body);
        jsonw_str(&w, names[i]);
        buf_puts(&resp->body, ",\"summary\":");
        rc = report_summary_basis_json(c.res, NULL, &resp->body);
        calc_release(&c);
        buf_putc(&resp->body, '}');
    }
    free(names);
    buf_puts(&resp->body, "]}\n");
    if (rc != ERR_OK) {
        response_error(resp, 500, "internal", "cannot write the summary: %s", err_str(rc));
        return;
    }
    response_json(resp, 200);
}
