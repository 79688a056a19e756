/* GET /api/v1/tasks/{uid}: one task over its whole life, with its attempts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/api.h"
#include "http/api_cost.h"
#include "http/api_tasks.h"
#include "service/app.h"
#include "base/jsonw.h"
#include "store/store_read.h"
#include "query/taskview.h"
#include "base/xalloc.h"

#define TASK_ATTEMPTS_MAX 1000

static const char *const attempt_outcomes[] = {"running", "succeeded", "failed", "interrupted"};

void api_task(struct request *req, struct response *resp) {
    const char *uid = req->path + strlen("/api/v1/tasks/");
    if (!api_no_params(req, resp))
        return;
    if (!api_task_uid_valid(uid)) {
        response_error(resp, 400, "bad_parameter", "uid: not a task uid");
        return;
    }
    if (!api_db_open(req, resp))
        return;
    struct calc c;
    memset(&c, 0, sizeof c);
    struct store_cost_opts o = calc_store_opts(req->app ? &req->app->calc : NULL);
    enum err rc = store_cost_load_task(req->db, uid, &o, &c.data);
    if (rc != ERR_OK) {
        response_error(resp, 500, "database", "cannot read the task: %s", err_str(rc));
        return;
    }
    if (c.data->in.n_tasks == 0) {
        calc_release(&c);
        response_error(resp, 404, "not_found", "no task with that uid");
        return;
    }
    int64_t now = api_now(req), a, b;
    const struct cost_task *t = &c.data->in.tasks[0];
    int64_t edge = t->completed_at ? t->completed_at : now;
    calc_life_window(&c.data->in, edge, edge, now, &a, &b);
    struct cost_query cq = {.from = a, .to = b, .now = now < a ? a : now, .want_attempts = true};
    rc = cost_compute(&c.data->in, &cq, &c.res);
    if (rc != ERR_OK) {
        calc_release(&c);
        response_error(resp, 500, "internal", "the cost computation failed: %s", err_str(rc));
        return;
    }
    struct taskview_filter f = {.from = INT64_MIN, .to = INT64_MAX, .outcome = -1};
    struct taskview_row *rows = NULL;
    size_t n = 0;
    rc = taskview_build(&c.data->in, c.res, &f, &rows, &n);
    struct store_attempt_info *info = xcalloc(TASK_ATTEMPTS_MAX, sizeof *info);
    size_t ni = 0;
    if (rc == ERR_OK)
        rc = store_task_attempts(req->db, uid, info, TASK_ATTEMPTS_MAX, &ni);
    if (rc != ERR_OK || n != 1) {
        free(rows);
        free(info);
        calc_release(&c);
        response_error(resp, 500, "internal", "cannot build the task: %s", err_str(rc));
        return;
    }
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    jsonw_obj(&w);
    jsonw_key(&w, "task");
    jsonw_obj(&w);
    api_write_task_fields(&w, &c.data->in, c.data->task_names[0], c.data->task_clusters[0],
                          &rows[0]);
    jsonw_key(&w, "attempts");
    jsonw_arr(&w);
    for (size_t i = 0; i < c.data->in.n_attempts; i++) {
        const struct cost_attempt *at = &c.data->in.attempts[i];
        const struct cost_attempt_result *ar = &c.res->attempts[i];
        const struct store_attempt_info *ai = NULL;
        for (size_t j = 0; j < ni && !ai; j++)
            if (!strcmp(info[j].uid, at->uid))
                ai = &info[j];
        jsonw_obj(&w);
        jsonw_kstr(&w, "uid", at->uid);
        jsonw_kstr(&w, "name", ai && ai->name[0] ? ai->name : NULL);
        jsonw_kstr(&w, "node", ai && ai->node[0] ? ai->node : NULL);
        jsonw_kstr(&w, "pool_id", ai && ai->pool_id[0] ? ai->pool_id : NULL);
        jsonw_kstr(&w, "pool", ai && ai->pool[0] ? ai->pool : NULL);
        jsonw_kstr(&w, "capacity_type", ai && ai->capacity_type[0] ? ai->capacity_type : NULL);
        jsonw_ktime(&w, "scheduled_at", at->scheduled_at);
        jsonw_ktime(&w, "started_at", at->started_at);
        jsonw_ktime(&w, "ended_at", ar->outcome == COST_ATTEMPT_RUNNING ? 0 : ar->end);
        jsonw_kstr(&w, "outcome", attempt_outcomes[ar->outcome]);
        jsonw_kstr(&w, "reason", at->reason);
        jsonw_key(&w, "exit_code");
        if (ai && ai->has_exit_code)
            jsonw_int(&w, ai->exit_code);
        else
            jsonw_null(&w);
        jsonw_ktime(&w, "lost_at", ar->lost_at);
        jsonw_kmoney(&w, "cost", ar->allocated);
        jsonw_key(&w, "restore_gap_seconds");
        if (ar->restore_seconds != COST_NULL)
            jsonw_int(&w, ar->restore_seconds);
        else
            jsonw_null(&w);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    jsonw_obj_end(&w);
    buf_putc(&resp->body, '\n');
    free(rows);
    free(info);
    calc_release(&c);
    api_json_done(resp, w.rc);
}
