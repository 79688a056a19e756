/* store_insights — DigitalOcean billing insights (table billing_insights,
 * schema/008): the poller writes each daily point, the reconciliation reads the
 * points of its period. One row per (day, sku, region, description,
 * group_description); a later sighting replaces the amount (a day's usage grows
 * until the day closes) and keeps first_seen.
 * Errors: ERR_DB / ERR_BUSY (logged once in store). Thread rule: the owner of s;
 * the writer owns the transaction around store_insights_put. */
#ifndef SPOTLEDGER_STORE_INSIGHTS_H
#define SPOTLEDGER_STORE_INSIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "engine/reconcile.h"
#include "source/do_insights.h"
#include "store/store.h"

enum err store_insights_put(struct store *s, const struct do_insight *x, int64_t seen_at);

/* The points with day in [from, to) as reconcile items (product "insights",
 * description, group_description, amount), ordered by day. *out is new
 * (reconcile's free rules: every string owned) on ERR_OK, NULL with *n 0 when none. */
enum err store_insights_load(struct store *s, int64_t from, int64_t to, struct reconcile_item **out,
                             size_t *n);

#endif
