/* store_k8s — all SQL for Kubernetes observations: tasks (Jobs and Indexed Job
 * completion indexes), attempts (Pods), PodDisruptionBudgets (store_pdb.c), the
 * Kubernetes columns of nodes, Ready
 * transitions (node_conditions), reclaim-relevant events, and watch resume points.
 *
 * Invariants (raw observations, one writer; docs/cost-model.md "Sources and time"):
 *  - every upsert is keyed by the source's uid (nodes by name) and idempotent:
 *    applying the same object twice changes nothing but last_seen;
 *  - older data never erases newer: a field once known is never nulled; times
 *    that mean "first evidence" keep the earliest value (scheduled, started,
 *    deleted, disruption, not-ready, ready), "last" times keep the latest
 *    (finished); a pod phase never moves back (Pending < Running < Succeeded/Failed);
 *    a task outcome, once terminal, stays; a task report 'ok' is never replaced
 *    by 'bad' or 'none';
 *  - nothing is ever deleted: an object the cluster forgets gets a deletion time.
 *  - attempts.not_ready_at is derived evidence, kept current in SQL: the earliest
 *    of a NodeNotReady event about the pod and a not-Ready transition of its node
 *    inside the attempt's [scheduled, finished] window, whichever arrives first.
 *
 * Functions write; the caller owns the transaction (store_begin/commit around a
 * page or a watch event) and the writer lock. `seen_at` is the source time of the
 * response that carried the object (its Date header, else the local clock).
 * Errors: ERR_DB / ERR_BUSY from SQLite (logged once in store), ERR_INVAL for a
 * missing uid.
 *
 * Thread rule: the writer connection's owner only. */
#ifndef SPOTLEDGER_STORE_K8S_H
#define SPOTLEDGER_STORE_K8S_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "model/k8s.h"
#include "store/store.h"

/* Indexed Jobs get one task per completion index, up to this many. */
#define STORE_K8S_MAX_INDEXES 10000

/* Upserts one object of any kind. deleted_at: when the object was deleted (a
 * DELETED watch event: its deletionTimestamp, else the response Date), 0 if it
 * still exists; a pod's or job's own deletionTimestamp is always recorded. */
enum err store_k8s_put(struct store *s, const struct k8s_object *o, int64_t deleted_at,
                       int64_t seen_at);

enum err store_k8s_put_job(struct store *s, const struct k8s_job *j, int64_t deleted_at,
                           int64_t seen_at);
enum err store_k8s_put_pod(struct store *s, const struct k8s_pod *p, int64_t deleted_at,
                           int64_t seen_at);
enum err store_k8s_put_node(struct store *s, const struct k8s_node *n, int64_t deleted_at,
                            int64_t seen_at);
/* Events are stored whatever their reason (filter with k8s_event_is_relevant). */
enum err store_k8s_put_event(struct store *s, const struct k8s_event *e, int64_t seen_at);
/* A PodDisruptionBudget (table pdbs, written by store_pdb.c): spec and status
 * as last seen, deleted_at the earliest evidence. */
enum err store_k8s_put_pdb(struct store *s, const struct k8s_pdb *p, int64_t deleted_at,
                           int64_t seen_at);

/* *known = a task row exists for this job uid (used with --job-selector). */
enum err store_k8s_job_known(struct store *s, const char *job_uid, bool *known);

/* Relist bookkeeping ("diff against the cache"): seen_reset before the first page
 * of a full list, seen_add for every listed uid, then mark_vanished after the last
 * page marks every stored job/pod/node of that kind in scope (namespace ns, NULL =
 * all) that the list did not show as deleted at `at` (the list's Date), unless
 * already marked. *marked (may be NULL) receives the count. Events: no-op. */
enum err store_k8s_seen_reset(struct store *s, enum k8s_kind kind);
enum err store_k8s_seen_add(struct store *s, enum k8s_kind kind, const char *uid);
enum err store_k8s_mark_vanished(struct store *s, enum k8s_kind kind, const char *ns, int64_t at,
                                 int64_t *marked);

/* Watch resume points. get: ERR_NOTFOUND when none; rv truncated to cap. */
enum err store_k8s_watch_get(struct store *s, const char *resource, char *rv, size_t cap);
enum err store_k8s_watch_set(struct store *s, const char *resource, const char *rv, int64_t at);

#endif
