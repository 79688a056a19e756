#include "query/taskview.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

static bool listed(const struct cost_task *t, const struct taskview_row *row,
                   const struct taskview_filter *f) {
    if (f->configs && !(f->configs & (1u << t->config)))
        return false;
    if (f->experiment && (!t->experiment || strcmp(t->experiment, f->experiment)))
        return false;
    if (f->ns && (!t->ns || strcmp(t->ns, f->ns)))
        return false;
    if (f->outcome >= 0 && (int)t->outcome != f->outcome)
        return false;
    if (t->outcome != COST_TASK_RUNNING)
        return t->completed_at >= f->from && t->completed_at < f->to;
    /* running: it held a node in the window */
    return row->first_start && row->first_start < f->to && row->last_end >= f->from;
}

enum err taskview_build(const struct cost_input *in, const struct cost_result *r,
                        const struct taskview_filter *f, struct taskview_row **rows, size_t *n) {
    if (!r->attempts && in->n_attempts)
        return ERR_INVAL;
    struct taskview_row *acc = xcalloc(in->n_tasks ? in->n_tasks : 1, sizeof *acc);
    for (size_t t = 0; t < in->n_tasks; t++)
        acc[t].task = (int32_t)t;
    for (size_t i = 0; i < in->n_attempts; i++) {
        const struct cost_attempt *a = &in->attempts[i];
        const struct cost_attempt_result *ar = &r->attempts[i];
        if (a->task < 0 || (size_t)a->task >= in->n_tasks) {
            free(acc);
            return ERR_INVAL;
        }
        struct taskview_row *row = &acc[a->task];
        row->attempts++;
        if (ar->outcome == COST_ATTEMPT_INTERRUPTED)
            row->interruptions++;
        if (ar->restore_seconds != COST_NULL)
            row->restore_seconds += ar->restore_seconds;
        if (__builtin_add_overflow(row->cost, ar->allocated, &row->cost)) {
            free(acc);
            return ERR_TOOBIG;
        }
        if (ar->outcome != COST_ATTEMPT_SUCCEEDED && ar->outcome != COST_ATTEMPT_RUNNING)
            row->wasted_cost += ar->allocated;
        if (ar->start && (!row->first_start || ar->start < row->first_start))
            row->first_start = ar->start;
        if (ar->end > row->last_end)
            row->last_end = ar->end;
    }
    size_t k = 0;
    for (size_t t = 0; t < in->n_tasks; t++) {
        acc[t].retries = acc[t].attempts > 0 ? acc[t].attempts - 1 : 0;
        if (listed(&in->tasks[t], &acc[t], f))
            acc[k++] = acc[t];
    }
    *rows = acc;
    *n = k;
    return ERR_OK;
}

int64_t taskview_key(const struct cost_input *in, const struct taskview_row *row,
                     enum taskview_sort key) {
    switch (key) {
    case TASKVIEW_BY_COST:
        return row->cost;
    case TASKVIEW_BY_ATTEMPTS:
        return row->attempts;
    case TASKVIEW_BY_COMPLETED:
        break;
    }
    const struct cost_task *t = &in->tasks[row->task];
    /* running tasks sort as the most recent */
    return t->outcome == COST_TASK_RUNNING ? INT64_MAX : t->completed_at;
}

/* qsort has no context argument in C11: the sort runs under a lock-free
 * thread-local context instead. */
static _Thread_local const struct cost_input *sort_in;
static _Thread_local enum taskview_sort sort_key;
static _Thread_local bool sort_desc;

static int cmp_rows(const void *pa, const void *pb) {
    const struct taskview_row *a = pa, *b = pb;
    int64_t ka = taskview_key(sort_in, a, sort_key), kb = taskview_key(sort_in, b, sort_key);
    int c = ka < kb ? -1 : ka > kb ? 1 : 0;
    if (c == 0)
        c = strcmp(sort_in->tasks[a->task].uid, sort_in->tasks[b->task].uid);
    return sort_desc ? -c : c;
}

void taskview_sort(const struct cost_input *in, struct taskview_row *rows, size_t n,
                   enum taskview_sort key, bool descending) {
    sort_in = in;
    sort_key = key;
    sort_desc = descending;
    if (n > 1)
        qsort(rows, n, sizeof *rows, cmp_rows);
    sort_in = NULL;
}
