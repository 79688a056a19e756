/* k8s_api — Kubernetes JSON (batch/v1 Job, core/v1 Pod, Node, Event, policy/v1
 * PodDisruptionBudget (source/k8s_pdb.h) and events.k8s.io/v1 Event, their List pages, watch event
 * lines, Status objects and the termination-message task report) -> plain structs (the records are
 * in model/k8s.h). No SQL, no I/O, no clock.
 *
 * Invariants: every time is Unix seconds from the object itself (0 = absent);
 * counts and limits that the object omits are -1; strings that the object omits
 * are "" (fixed arrays) or NULL (heap strings). Fixed arrays are sized for the
 * Kubernetes limits of what they hold (uids 36, names 253, label values 63);
 * longer input is truncated, never overflowed. Parsing is lenient where the API
 * is loose (nulls, omitted zero counts, unknown fields are ignored) and strict
 * only about what identifies an object: an item without metadata.uid is skipped
 * and counted, never stored.
 *
 * Thread rule: any thread; the structs belong to their caller. */
#ifndef SPOTLEDGER_K8S_API_H
#define SPOTLEDGER_K8S_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "model/k8s.h"
#include "model/labels.h"

#define K8S_JSON_DEPTH 128 /* managedFields nest deeper than json-c's default 32 */

struct k8s_list {
    enum k8s_kind kind;
    char resource_version[K8S_RV_MAX];
    char *continue_token;     /* NULL on the last page */
    int64_t remaining;        /* metadata.remainingItemCount, -1 absent */
    struct k8s_object *items; /* n parsed items */
    size_t n;
    size_t skipped; /* items without a uid or of the wrong shape */
};

struct k8s_status {
    int64_t code; /* e.g. 410; -1 absent */
    char reason[K8S_REASON_MAX];
    char message[256];
};

enum k8s_watch_type { K8S_ADDED, K8S_MODIFIED, K8S_DELETED, K8S_BOOKMARK, K8S_ERROR };

struct k8s_watch_event {
    enum k8s_watch_type type;
    char resource_version[K8S_RV_MAX]; /* object metadata.resourceVersion ("" for ERROR) */
    struct k8s_object obj;             /* ADDED, MODIFIED, DELETED only */
    struct k8s_status status;          /* ERROR only */
};

/* Parses one object (a List item or a watch object) of `kind`. Events accept both
 * core/v1 and events.k8s.io/v1 shapes. ERR_PARSE (malformed JSON, not an object,
 * no metadata.uid), ERR_TOOBIG (len > INT_MAX), ERR_NOMEM. On ERR_OK release
 * *out with k8s_object_release. */
enum err k8s_object_parse(const char *buf, size_t len, enum k8s_kind kind, struct k8s_object *out);
void k8s_object_release(struct k8s_object *o);

/* Parses a List page; items that cannot be parsed are skipped and counted. ERR_PARSE
 * if the body is not a List (no items array), ERR_TOOBIG, ERR_NOMEM. Release with
 * k8s_list_release (also safe on a zeroed list). */
enum err k8s_list_parse(const char *buf, size_t len, enum k8s_kind kind, struct k8s_list *out);
void k8s_list_release(struct k8s_list *l);

/* Parses one watch line {"type":...,"object":{...}}. ERR_PARSE for malformed JSON,
 * an unknown type, or an ADDED/MODIFIED/DELETED object without a uid. */
enum err k8s_watch_parse(const char *line, size_t len, enum k8s_kind kind,
                         struct k8s_watch_event *out);
void k8s_watch_event_release(struct k8s_watch_event *ev);

/* Parses a Status object (the body of an HTTP 410, or a watch ERROR object).
 * ERR_PARSE if it is not one. */
enum err k8s_status_parse(const char *buf, size_t len, struct k8s_status *out);

/* Parses a termination message as a task report, leniently: surrounding text is
 * ignored (the outermost {...} is used), numbers may be integers, decimals
 * (truncated) or numeric strings; negative or non-numeric fields are dropped,
 * unknown keys ignored. K8S_REPORT_OK when at least one known field is valid,
 * K8S_REPORT_BAD for anything else that is not empty, K8S_REPORT_NONE for
 * NULL/empty/whitespace. Never fails. */
enum k8s_report_status k8s_task_report_parse(const char *msg, size_t len,
                                             struct k8s_task_report *out);

/* Kubernetes quantity ("2", "3900m", "1.5", "2k", "1Gi", "1e3") in milli-units,
 * rounded up as the API server does. ERR_PARSE otherwise. */
enum err k8s_quantity_milli(const char *s, int64_t *out);

/* Events worth keeping for the reclaim timeline: every Node event, and Pod
 * events whose reason marks a disruption (NodeNotReady, TaintManagerEviction,
 * Evicted, Preempted, Killing, TriggeredScaleUp, ...). */
bool k8s_event_is_relevant(const struct k8s_event *e);

#endif
