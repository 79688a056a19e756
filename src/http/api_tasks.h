/* api_tasks — what the task list (/api/v1/tasks, api_tasks.c) and one task
 * (/api/v1/tasks/{uid}, api_task.c) share: the uid rule and a task's fields.
 * Thread rule: any thread. */
#ifndef SPOTLEDGER_API_TASKS_H
#define SPOTLEDGER_API_TASKS_H

#include <stdbool.h>

#include "base/jsonw.h"
#include "engine/cost.h"
#include "query/taskview.h"

/* Task uids are Kubernetes uids, optionally "/<index>": 1..80 characters of
 * [A-Za-z0-9/-]. */
bool api_task_uid_valid(const char *s);

/* Writes a task's fields (uid .. completed_at, cluster) as keys of the open
 * object of w; `name` is the task's name, `cluster` its fleet name (docs/fleet.md),
 * `row` its line of the task view. */
void api_write_task_fields(struct jsonw *w, const struct cost_input *in, const char *name,
                           const char *cluster, const struct taskview_row *row);

#endif
