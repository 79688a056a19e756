/* sim_billing — DigitalOcean's billing rule applied to the simulated nodes, the
 * one place both the invoices (/v2/customers/my/...) and the ground truth use,
 * so they agree to the micro-dollar.
 *
 * Rule (since 2026-01-01): a node is billed per second from Ready until it is
 * deleted (or `now`), at least 60 seconds per node, at most 672 hours per node per
 * calendar month; amount = round(seconds x price_hourly / 3600) to the
 * micro-dollar (half away from zero), never below $0.01 for a billed item.
 * A node that never became Ready is not billed. Pure; thread rule: any thread. */
#ifndef SPOTLEDGER_SIM_BILLING_H
#define SPOTLEDGER_SIM_BILLING_H

#include <stdint.h>

#include "sim/sim_world.h"

#define SIM_BILL_MIN_SECONDS 60
#define SIM_BILL_MONTH_CAP (672LL * 3600)
#define SIM_BILL_MIN_AMOUNT 10000 /* $0.01 in micro-dollars */
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
/* The node's hourly price in micro-dollars. */
int64_t sim_billing_rate(const struct sim_world *w, int node);

#endif
