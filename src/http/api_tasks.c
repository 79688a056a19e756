/* GET /api/v1/tasks: the tasks of a window, filtered, sorted and paged. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/api.h"
#include "http/api_cost.h"
#include "http/api_tasks.h"
#include "service/app.h"
#include "base/jsonw.h"
#include "query/taskview.h"

#define TASKS_LIMIT_MAX 500

static const char *const outcome_names[] = {"running", "succeeded", "failed"};

bool api_task_uid_valid(const char *s) {
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

void api_write_task_fields(struct jsonw *w, const struct cost_input *in, const char *name,
                           const char *cluster, const struct taskview_row *row) {
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
    jsonw_kstr(w, "cluster", cluster);
}

static bool parse_cursor(const char *c, int64_t *key, char *uid, size_t uidlen) {
    char *end;
    errno = 0;
    long long k = strtoll(c, &end, 10);
    if (errno || end == c || *end != '.' || !api_task_uid_valid(end + 1) ||
        strlen(end + 1) >= uidlen)
        return false;
    *key = k;
    snprintf(uid, uidlen, "%s", end + 1);
    return true;
}

/* The list's own parameters (beyond window and filters). */
struct list_params {
    struct taskview_filter f;
    bool completion; /* basis=completion */
    long limit;
    enum taskview_sort key;
    bool desc;
    const char *cursor; /* NULL: first page */
    int64_t ckey;
    char cuid[96];
};

/* Parameter key, when given, as its index in names[0..n) into *out; a value not in
 * names fills resp with 400 "key: expected <expected>" and returns false. */
static bool param_choice(struct request *req, struct response *resp, const char *key,
                         const char *const *names, int n, const char *expected, int *out) {
    const char *v = request_param(req, key);
    if (!v)
        return true;
    for (int i = 0; i < n; i++)
        if (!strcmp(v, names[i])) {
            *out = i;
            return true;
        }
    response_error(resp, 400, "bad_parameter", "%s: expected %s", key, expected);
    return false;
}

/* Parses the route's parameters into *p. On a bad value fills resp with 400
 * naming the parameter and returns false. */
static bool parse_list_params(struct request *req, struct response *resp, struct api_query *q,
                              struct list_params *p) {
    static const char *const extra[] = {"outcome", "limit", "cursor", "sort",
                                        "order",   "basis", NULL};
    if (!api_query_parse(req, resp, q, extra))
        return false;
    p->f = (struct taskview_filter){.from = q->w.from,
                                    .to = q->w.to,
                                    .configs = api_config_bits(q),
                                    .experiment = q->experiment,
                                    .ns = q->namespace_,
                                    .outcome = -1};
    if (!param_choice(req, resp, "outcome", outcome_names, 3, "succeeded, failed or running",
                      &p->f.outcome))
        return false;
    /* basis=completion lists the tasks the completion basis sums: those that
     * succeeded in the window (docs/cost-model.md "Cost bases"); each task's
     * cost is its whole life on both bases */
    if (!api_basis_parse(req, resp, &p->completion))
        return false;
    if (p->completion && p->f.outcome >= 0 && p->f.outcome != COST_TASK_SUCCEEDED) {
        response_error(resp, 400, "bad_parameter",
                       "basis: basis=completion lists the tasks that succeeded in the window; "
                       "outcome=%s does not apply",
                       outcome_names[p->f.outcome]);
        return false;
    }
    if (p->completion)
        p->f.outcome = COST_TASK_SUCCEEDED;
    p->limit = 50;
    const char *l = request_param(req, "limit");
    if (l) {
        char *end;
        errno = 0;
        p->limit = strtol(l, &end, 10);
        if (errno || end == l || *end || p->limit < 1 || p->limit > TASKS_LIMIT_MAX) {
            response_error(resp, 400, "bad_parameter", "limit: expected 1..%d", TASKS_LIMIT_MAX);
            return false;
        }
    }
    static const char *const sorts[] = {"completed_at", "cost",
                                        "attempts"}; /* by enum taskview_sort */
    static const char *const orders[] = {"desc", "asc"};
    int sort = TASKVIEW_BY_COMPLETED, order = 0;
    if (!param_choice(req, resp, "sort", sorts, 3, "completed_at, cost or attempts", &sort) ||
        !param_choice(req, resp, "order", orders, 2, "asc or desc", &order))
        return false;
    p->key = (enum taskview_sort)sort;
    p->desc = order == 0;
    p->ckey = 0;
    p->cuid[0] = 0;
    p->cursor = request_param(req, "cursor");
    if (p->cursor && !parse_cursor(p->cursor, &p->ckey, p->cuid, sizeof p->cuid)) {
        response_error(resp, 400, "bad_parameter", "cursor: not a cursor from a previous page");
        return false;
    }
    return true;
}

void api_tasks(struct request *req, struct response *resp) {
    struct api_query q;
    struct list_params p;
    if (!parse_list_params(req, resp, &q, &p))
        return;
    if (!api_db_open(req, resp))
        return;
    struct calc c;
    struct calc_settings local;
    enum err rc = calc_task_life(req->db, api_calc_settings(req, &q, &local), q.w.from, q.w.to,
                                 api_now(req), &c);
    if (rc != ERR_OK) {
        response_error(resp, rc == ERR_BUSY || rc == ERR_DB ? 503 : 500, "internal",
                       "cannot compute the tasks: %s", err_str(rc));
        return;
    }
    struct taskview_row *rows = NULL;
    size_t n = 0;
    rc = taskview_build(&c.data->in, c.res, &p.f, &rows, &n);
    if (rc != ERR_OK) {
        calc_release(&c);
        response_error(resp, 500, "internal", "cannot build the task list: %s", err_str(rc));
        return;
    }
    taskview_sort(&c.data->in, rows, n, p.key, p.desc);
    size_t start = 0;
    if (p.cursor) {
        /* first row strictly after the cursor in the sort order */
        while (start < n) {
            int64_t k = taskview_key(&c.data->in, &rows[start], p.key);
            int cmp = k < p.ckey ? -1 : k > p.ckey ? 1 : 0;
            if (!cmp)
                cmp = strcmp(c.data->in.tasks[rows[start].task].uid, p.cuid);
            if (p.desc ? cmp < 0 : cmp > 0)
                break;
            start++;
        }
    }
    struct jsonw w;
    jsonw_init(&w, &resp->body);
    jsonw_obj(&w);
    api_write_window(&w, &q.w);
    jsonw_kstr(&w, "cost_basis", p.completion ? "completion" : "accrual");
    jsonw_kint(&w, "total", (int64_t)n);
    jsonw_key(&w, "tasks");
    jsonw_arr(&w);
    size_t end = start + (size_t)p.limit < n ? start + (size_t)p.limit : n;
    for (size_t i = start; i < end; i++) {
        jsonw_obj(&w);
        api_write_task_fields(&w, &c.data->in, c.data->task_names[rows[i].task],
                              c.data->task_clusters[rows[i].task], &rows[i]);
        jsonw_kint(&w, "attempts", rows[i].attempts);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_key(&w, "next_cursor");
    if (end < n) {
        char next[128];
        snprintf(next, sizeof next, "%lld.%s",
                 (long long)taskview_key(&c.data->in, &rows[end - 1], p.key),
                 c.data->in.tasks[rows[end - 1].task].uid);
        jsonw_str(&w, next);
    } else {
        jsonw_null(&w);
    }
    jsonw_obj_end(&w);
    buf_putc(&resp->body, '\n');
    free(rows);
    calc_release(&c);
    api_json_done(resp, w.rc);
}
