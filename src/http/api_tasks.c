/* GET /api/v1/tasks, /api/v1/tasks/{uid}, /api/v1/experiments. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/api.h"
#include "http/api_cost.h"
#include "service/app.h"
#include "service/config.h"
#include "base/jsonw.h"
#include "store/store_read.h"
#include "query/taskview.h"
#include "base/xalloc.h"

#define TASKS_LIMIT_MAX 500
#define TASK_ATTEMPTS_MAX 1000

static const char *const outcome_names[] = {"running", "succeeded", "failed"};
static const char *const attempt_outcomes[] = {"running", "succeeded", "failed", "interrupted"};

/* Task uids are Kubernetes uids, optionally "/<index>". */
static bool valid_uid(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 80)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '/'))
            return false;
    }
    return true;
}

static void write_task_fields(struct jsonw *w, const struct cost_input *in, const char *name,
                              const struct taskview_row *row) {
    const struct cost_task *t = &in->tasks[row->task];
    jsonw_kstr(w, "uid", t->uid);
    jsonw_kstr(w, "namespace", t->ns);
    jsonw_kstr(w, "name", name);
    jsonw_kstr(w, "configuration", cost_config_name(t->config));
    jsonw_kstr(w, "experiment", t->experiment);
    jsonw_kstr(w, "outcome", outcome_names[t->outcome]);
    jsonw_kint(w, "attempt_count", row->attempts);
    jsonw_kint(w, "retries", row->retries);
    jsonw_kint(w, "interruptions", row->interruptions);
    jsonw_kint(w, "restore_seconds", row->restore_seconds);
    jsonw_kmoney(w, "cost", row->cost);
    jsonw_kmoney(w, "wasted_cost", row->wasted_cost);
    jsonw_ktime(w, "completed_at", t->outcome == COST_TASK_RUNNING ? 0 : t->completed_at);
}

/* Window for whole-life figures: from the earliest attempt to after now. */
static void life_window(const struct cost_input *in, int64_t from, int64_t to, int64_t now,
                        int64_t *a, int64_t *b) {
    int64_t lo = from;
    for (size_t i = 0; i < in->n_attempts; i++) {
        const struct cost_attempt *x = &in->attempts[i];
        int64_t s = x->scheduled_at ? x->scheduled_at
                    : x->created_at ? x->created_at
                                    : x->started_at;
        if (s && s < lo)
            lo = s;
    }
    *a = lo;
    *b = (to > now ? to : now) + 1;
}

static bool parse_cursor(const char *c, int64_t *key, char *uid, size_t uidlen) {
    char *end;
    errno = 0;
    long long k = strtoll(c, &end, 10);
    if (errno || end == c || *end != '.' || !valid_uid(end + 1) || strlen(end + 1) >= uidlen)
        return false;
    *key = k;
    snprintf(uid, uidlen, "%s", end + 1);
    return true;
}

void api_tasks(struct request *req, struct response *resp) {
    static const char *const extra[] = {"outcome", "limit", "cursor", "sort", "order", NULL};
    struct api_query q;
    if (!api_query_parse(req, resp, &q, extra))
        return;
    struct taskview_filter f = {.from = q.w.from,
                                .to = q.w.to,
                                .configs = api_config_bits(&q),
                                .experiment = q.experiment,
                                .ns = q.namespace_,
                                .outcome = -1};
    const char *o = request_param(req, "outcome");
    if (o) {
        for (int i = 0; i < 3; i++)
            if (!strcmp(o, outcome_names[i]))
                f.outcome = i;
        if (f.outcome < 0) {
            response_error(resp, 400, "bad_parameter",
                           "outcome: expected succeeded, failed or running");
            return;
        }
    }
    long limit = 50;
    const char *l = request_param(req, "limit");
    if (l) {
        char *end;
        errno = 0;
        limit = strtol(l, &end, 10);
        if (errno || end == l || *end || limit < 1 || limit > TASKS_LIMIT_MAX) {
            response_error(resp, 400, "bad_parameter", "limit: expected 1..%d", TASKS_LIMIT_MAX);
            return;
        }
    }
    enum taskview_sort key = TASKVIEW_BY_COMPLETED;
    const char *so = request_param(req, "sort");
    if (so) {
        if (!strcmp(so, "cost"))
            key = TASKVIEW_BY_COST;
        else if (!strcmp(so, "attempts"))
            key = TASKVIEW_BY_ATTEMPTS;
        else if (strcmp(so, "completed_at")) {
            response_error(resp, 400, "bad_parameter",
                           "sort: expected completed_at, cost or attempts");
            return;
        }
    }
    bool desc = true;
    const char *od = request_param(req, "order");
    if (od) {
        if (!strcmp(od, "asc"))
            desc = false;
        else if (strcmp(od, "desc")) {
            response_error(resp, 400, "bad_parameter", "order: expected asc or desc");
            return;
        }
    }
    int64_t ckey = 0;
    char cuid[96] = "";
    const char *cur = request_param(req, "cursor");
    if (cur && !parse_cursor(cur, &ckey, cuid, sizeof cuid)) {
        response_error(resp, 400, "bad_parameter", "cursor: not a cursor from a previous page");
        return;
    }

    if (!req->db) {
        response_error(resp, 503, "unavailable", "the database is not open");
        return;
    }
    struct calc c;
    enum err rc = calc_task_life(req->db, req->app ? &req->app->calc : NULL, q.w.from, q.w.to,
                                 api_now(req), &c);
    if (rc != ERR_OK) {
        response_error(resp, rc == ERR_BUSY || rc == ERR_DB ? 503 : 500, "internal",
                       "cannot compute the tasks: %s", err_str(rc));
        return;
    }
    struct taskview_row *rows = NULL;
    size_t n = 0;
    rc = taskview_build(&c.data->in, c.res, &f, &rows, &n);
    if (rc != ERR_OK) {
        calc_release(&c);
        response_error(resp, 500, "internal", "cannot build the task list: %s", err_str(rc));
        return;
    }
    taskview_sort(&c.data->in, rows, n, key, desc);
    size_t start = 0;
    if (cur) {
        /* first row strictly after the cursor in the sort order */
        while (start < n) {
            int64_t k = taskview_key(&c.data->in, &rows[start], key);
            int cmp = k < ckey ? -1 : k > ckey ? 1 : 0;
            if (!cmp)
                cmp = strcmp(c.data->in.tasks[rows[start].task].uid, cuid);
            if (desc ? cmp < 0 : cmp > 0)
                break;
            start++;
        }
    }
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    jsonw_obj(&w);
    api_write_window(&w, &q.w);
    jsonw_kint(&w, "total", (int64_t)n);
    jsonw_key(&w, "tasks");
    jsonw_arr(&w);
    size_t end = start + (size_t)limit < n ? start + (size_t)limit : n;
    for (size_t i = start; i < end; i++) {
        jsonw_obj(&w);
        write_task_fields(&w, &c.data->in, c.data->task_names[rows[i].task], &rows[i]);
        jsonw_kint(&w, "attempts", rows[i].attempts);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_key(&w, "next_cursor");
    if (end < n) {
        char next[128];
        snprintf(next, sizeof next, "%lld.%s",
                 (long long)taskview_key(&c.data->in, &rows[end - 1], key),
                 c.data->in.tasks[rows[end - 1].task].uid);
        jsonw_str(&w, next);
    } else {
        jsonw_null(&w);
    }
    jsonw_obj_end(&w);
    buf_putc(&resp->body, '\n');
    free(rows);
    calc_release(&c);
    if (w.rc != ERR_OK) {
        response_error(resp, 500, "internal", "cannot write the response");
        return;
    }
    response_json(resp, 200);
}

void api_task(struct request *req, struct response *resp) {
    const char *uid = req->path + strlen("/api/v1/tasks/");
    if (req->nparams) {
        response_error(resp, 400, "bad_parameter", "unknown parameter '%.64s'", req->params[0].key);
        return;
    }
    if (!valid_uid(uid)) {
        response_error(resp, 400, "bad_parameter", "uid: not a task uid");
        return;
    }
    if (!req->db) {
        response_error(resp, 503, "unavailable", "the database is not open");
        return;
    }
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
    life_window(&c.data->in, edge, edge, now, &a, &b);
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
    write_task_fields(&w, &c.data->in, c.data->task_names[0], &rows[0]);
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
    if (w.rc != ERR_OK) {
        response_error(resp, 500, "internal", "cannot write the response");
        return;
    }
    response_json(resp, 200);
}

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
