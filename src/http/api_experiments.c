/* GET /api/v1/experiments: the experiment names seen. */
#include <stdlib.h>

#include "http/api.h"
#include "base/jsonw.h"
#include "store/store_read.h"
#include "base/xalloc.h"

void api_experiments(struct request *req, struct response *resp) {
    if (req->nparams) {
        response_error(resp, 400, "bad_parameter", "unknown parameter '%.64s'", req->params[0].key);
        return;
    }
    if (!req->db) {
        response_error(resp, 503, "unavailable", "the database is not open");
        return;
    }
    char(*names)[256] = xcalloc(1000, sizeof *names);
    size_t n = 0;
    enum err rc = store_experiments(req->db, names, 1000, &n);
    if (rc != ERR_OK) {
        free(names);
        response_error(resp, 500, "database", "cannot read experiments: %s", err_str(rc));
        return;
    }
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    jsonw_obj(&w);
    jsonw_key(&w, "experiments");
    jsonw_arr(&w);
    for (size_t i = 0; i < n; i++)
        jsonw_str(&w, names[i]);
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    buf_putc(&resp->body, '\n');
    free(names);
    response_json(resp, 200);
}
