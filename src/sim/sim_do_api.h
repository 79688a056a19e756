/* sim_do_api — the DigitalOcean API paths spotsim serves under /v2/, shaped
 * like the DigitalOcean API reference's examples: sizes, account, kubernetes/clusters[/{id}
 * [/node_pools[/{pool_id}]]], customers/my/balance, billing_history, invoices
 * (with invoice_preview) and invoices/{uuid} (one item per node and month, by
 * sim_billing's rule). Lists paginate with page / per_page (<= 200),
 * links.pages.{first,prev,next,last} and meta.total. Errors are
 * {"id","message","request_id"}. A reclaimed pool and its nodes vanish.
 * Thread rule: any thread (reads the immutable world). */
#ifndef SPOTLEDGER_SIM_DO_API_H
#define SPOTLEDGER_SIM_DO_API_H

#include <stdbool.h>
#include <stdint.h>

#include "base/request.h"
#include "sim/sim_world.h"

/* True if req->path is under /v2/ (resp filled). base_url ("http://127.0.0.1:P")
 * prefixes pagination links. */
bool sim_do_handle(const struct sim_world *w, const struct request *req, int64_t now,
                   const char *base_url, struct response *resp);
/* The same for an account of several clusters (spotsim --also-cluster,
 * docs/fleet.md): `w` answers the request's own routes, the account's billing
 * (invoices and their items and summaries, billing history, balance, insights)
 * bills every node of every world of acct[0..n) (acct[0] the first cluster,
 * whose seed names the invoices), and the cluster list and the droplets are
 * every world's. acct NULL or n 0: w alone. */
bool sim_do_handle_account(const struct sim_world *w, const struct sim_world *const *acct, int n,
                           const struct request *req, int64_t now, const char *base_url,
                           struct response *resp);

/* DigitalOcean error body {"id","message","request_id"} with status. */
void sim_do_error(struct response *resp, int status, const char *id, const char *message);

/* The invoice UUID of the calendar month starting at `month` (deterministic per seed). */
void sim_do_invoice_uuid(const struct sim_world *w, int64_t month, char out[37]);

#endif
