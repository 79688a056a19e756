/* store_do — all SQL for DigitalOcean data: clusters, sizes and their price
 * history, node pools, the DO side of nodes, reclaims, invoices and their items,
 * billing history, balance snapshots; and the loader for reconcile.
 *
 * Invariants: upserts are keyed by the source's identity (pool id, node name,
 * slug, invoice uuid, ...) so re-reading the same objects changes nothing but
 * last_seen; nothing is ever deleted because the source forgot it (pools and
 * nodes get deleted_at / do_deleted_at instead). The price recorded for a pool or
 * node is the first one known (COALESCE keeps it). Write functions expect the
 * caller to hold a transaction (store_begin) on the writer connection.
 *
 * Thread rule: as struct store (one thread at a time). */
#ifndef SPOTLEDGER_STORE_DO_H
#define SPOTLEDGER_STORE_DO_H

#include <stdbool.h>
#include <stdint.h>

#include "model/do.h"
#include "base/err.h"
#include "engine/reconcile.h"
#include "store/store.h"

enum err store_do_upsert_cluster(struct store *s, const struct do_cluster *c, int64_t seen);

/* Upserts the size; adds a size_prices row at `seen` only when the price differs
 * from the latest recorded one (*changed says so; may be NULL). */
enum err store_do_upsert_size(struct store *s, const struct do_size *z, int64_t seen,
                              bool *changed);
/* Latest recorded hourly price of slug. ERR_NOTFOUND if none. */
enum err store_do_size_price(struct store *s, const char *slug, int64_t *hourly);

/* Upserts a pool of cluster_id; price_hourly < 0 = unknown (kept NULL until
 * known). A pool that had been marked deleted and is listed again gets
 * deleted_at cleared and its reclaim row removed (it was a false alarm). */
enum err store_do_upsert_pool(struct store *s, const char *cluster_id, const struct do_pool *p,
                              const char *capacity_type, const char *basis, int64_t price_hourly,
                              int64_t seen);
/* Upserts the DO columns of a node of pool p (keyed by name); price < 0 unknown.
 * created_at keeps the earliest known; do_deleted_at is cleared (listed again). */
enum err store_do_upsert_node(struct store *s, const struct do_pool *p, const struct do_node *n,
                              const char *capacity_type, int64_t price_hourly, int64_t seen);

/* Everything of cluster_id not in `listed` gets its deletion time `at` (the Date
 * of the response that no longer lists it): pools -> node_pools.deleted_at, and a
 * reclaims row for spot pools; nodes seen by DO -> nodes.do_deleted_at.
 * Counts go to *pools_gone / *nodes_gone (may be NULL). */
enum err store_do_mark_vanished(struct store *s, const char *cluster_id,
                                const struct do_pools *listed, int64_t at, int *pools_gone,
                                int *nodes_gone);

enum err store_do_upsert_invoice(struct store *s, const struct do_invoice *v, int64_t seen);
/* Whether items of the invoice are stored. */
enum err store_do_invoice_has_items(struct store *s, const char *uuid, bool *has);
/* Replaces the invoice's items (ordinal = position in the list); when they equal
 * the stored ones nothing is written (no change mark, schema/010). */
enum err store_do_replace_invoice_items(struct store *s, const char *uuid,
                                        const struct do_invoice_item *v, size_t n);
/* Inserts a billing history entry unless the same one is stored. */
enum err store_do_add_billing_entry(struct store *s, const struct do_billing_entry *b);
/* Inserts a balance snapshot unless the latest identical one is stored. */
enum err store_do_add_balance(struct store *s, const struct do_balance *b, int64_t observed_at);

/* Loads the reconcile input for period "YYYY-MM" (pools of every cluster seen,
 * nodes with their recorded rate and interval, the period's invoice items, the
 * cluster named by cluster_id or else the only/latest one). ERR_PARSE on a bad
 * period. Release with reconcile_input_release. */
enum err store_do_reconcile_input(struct store *s, const char *period, const char *cluster_id,
                                  struct reconcile_input *out);
/* Loader + the period's billing insights (store_insights.h) + reconcile_compute:
 * what the REST API calls. */
enum err store_do_reconcile(struct store *s, const char *period, const char *cluster_id,
                            int64_t now, struct reconcile_result *out);
/* Whether period "YYYY-MM" has an invoice (the one store_do_reconcile would
 * read: its result has_invoice). ERR_DB. */
enum err store_do_has_invoice(struct store *s, const char *period, bool *out);
/* store_do_reconcile of a fleet (docs/fleet.md): the pools and nodes of the
 * clusters `clusters` names (",a,b,"; NULL every cluster), items matched to
 * any of their DigitalOcean clusters; the other clusters' items are unmatched. */
enum err store_do_reconcile_fleet(struct store *s, const char *period, const char *clusters,
                                  int64_t now, struct reconcile_result *out);

#endif
