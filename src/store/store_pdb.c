/* store_pdb — the PodDisruptionBudget writer (store_k8s.h store_k8s_put_pdb). */
#include <string.h>

#include "store/store_internal.h"
#include "store/store_k8s.h"

// clang-format off
/* Status counts and the spec follow the latest observation (a PDB's spec is
 * mutable); deleted_at keeps the earliest evidence; first_seen never moves. */
static const char SQL_PDB_UPSERT[] =
    "INSERT INTO pdbs(uid, namespace, name, min_available, min_available_pct, max_unavailable, "
    " max_unavailable_pct, selector_json, expected_pods, current_healthy, desired_healthy, "
    " disruptions_allowed, created_at, deleted_at, first_seen, last_seen, cluster) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?15, :cluster) "
    "ON CONFLICT(uid) DO UPDATE SET namespace = excluded.namespace, name = excluded.name, "
    " min_available = excluded.min_available, min_available_pct = excluded.min_available_pct, "
    " max_unavailable = excluded.max_unavailable, "
    " max_unavailable_pct = excluded.max_unavailable_pct, selector_json = excluded.selector_json, "
    " expected_pods = coalesce(excluded.expected_pods, expected_pods), "
    " current_healthy = coalesce(excluded.current_healthy, current_healthy), "
    " desired_healthy = coalesce(excluded.desired_healthy, desired_healthy), "
    " disruptions_allowed = coalesce(excluded.disruptions_allowed, disruptions_allowed), "
    " created_at = coalesce(created_at, excluded.created_at), "
    " deleted_at = CASE WHEN deleted_at IS NULL THEN excluded.deleted_at "
    "  WHEN excluded.deleted_at IS NULL THEN deleted_at "
    "  ELSE min(deleted_at, excluded.deleted_at) END, "
    " last_seen = max(last_seen, excluded.last_seen)";
// clang-format on

enum err store_k8s_put_pdb(struct store *s, const struct k8s_pdb *p, int64_t deleted_at,
                           int64_t seen_at) {
    if (!p->meta.uid[0])
        return ERR_INVAL;
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_PDB_UPSERT, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, p->meta.uid);
    store_bind_text(st, 2, p->meta.ns);
    store_bind_text(st, 3, p->meta.name);
    store_bind_opt_int(st, 4, p->min_available);
    store_bind_opt_int(st, 5, p->min_available_pct);
    store_bind_opt_int(st, 6, p->max_unavailable);
    store_bind_opt_int(st, 7, p->max_unavailable_pct);
    store_bind_text(st, 8, p->selector_json);
    store_bind_opt_int(st, 9, p->expected_pods);
    store_bind_opt_int(st, 10, p->current_healthy);
    store_bind_opt_int(st, 11, p->desired_healthy);
    store_bind_opt_int(st, 12, p->disruptions_allowed);
    store_bind_time(st, 13, p->meta.created_at);
    store_bind_time(st, 14, deleted_at);
    sqlite3_bind_int64(st, 15, seen_at);
    return store_exec_stmt(s, st);
}
