/* sim_billing — DigitalOcean's billing rule applied to the simulated nodes, the
 * one place both the invoices (/v2/customers/my/...) and the ground truth use,
 * so they agree to the micro-dollar.
 *
 * Rule: model/billing.h (the one node-billed-amount rule of docs/cost-model.md),
 * one item per calendar month; the $0.01 floor lands in the month holding the
 * node's last billed second. A node that never became Ready is not billed.
 * Pure; thread rule: any thread. */
#ifndef SPOTLEDGER_SIM_BILLING_H
#define SPOTLEDGER_SIM_BILLING_H

#include <stdint.h>

#include "sim/sim_world.h"

#define SIM_BILL_MAX_MONTHS 16

struct sim_bill_item {
    int node;
    int64_t month;   /* start of the calendar month */
    int64_t start;   /* billed from (within the month) */
    int64_t end;     /* billed until (within the month) */
    int64_t seconds; /* billable seconds after the minimum and the cap */
    int64_t amount;  /* micro-dollars */
};

/* The node's items up to `now`, one per calendar month; returns the count (<= max). */
int sim_billing_node(const struct sim_world *w, int node, int64_t now, struct sim_bill_item *items,
                     int max);
/* What DigitalOcean's invoice shows for an item of `micro` µ$: whole cents,
 * rounded half away from zero, once per item (so an invoice differs from the
 * per-second amounts by less than half a cent per item). */
int64_t sim_billing_cents(int64_t micro);
/* An item's duration as the invoice shows it: hours, a started hour counting whole. */
int64_t sim_billing_hours(int64_t seconds);
/* The node's hourly price in micro-dollars: its size's list price in force when
 * its droplet was created (DigitalOcean locks a Droplet's rate at creation). */
int64_t sim_billing_rate(const struct sim_world *w, int node);
/* The list price of size s in force at time t (its last price change at or
 * before t, else its initial price), micro-dollars per hour; *text (if not NULL)
 * gets the literal as the scenario wrote it, for /v2/sizes. */
int64_t sim_billing_price_at(const struct sim_size *s, int64_t t, const char **text);

#endif
