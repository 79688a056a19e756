/* billing — the node billed amount: the one rule the cost engine, the invoice
 * reconciliation and spotsim's billing all use (docs/cost-model.md, "Node billed
 * amount").
 *
 * A node is billed from its billable start (Ready, else creation) to its end
 * (earliest deletion; 0 = alive, then `now`):
 *  - 60 s minimum: a life shorter than 60 s is billed as [start, start + 60);
 *    a node still alive is owed the 60 s as soon as now >= start;
 *  - 672 h cap: in each calendar month (UTC) the node's first 672 billable hours
 *    in that month are billed; its later seconds in that month have rate 0;
 *  - amount in a range [a, b) = round(rate x billed seconds in [a, b) / 3600),
 *    half away from zero, one rounding per node and range;
 *  - $0.01 floor per node: when the node has ended and its whole-life amount is
 *    below $0.01, the difference is charged at the node's last billed second
 *    (the range holding it gets it). A live node gets no floor yet.
 * Pure (no I/O, no clock); thread rule: any thread. */
#ifndef SPOTLEDGER_BILLING_H
#define SPOTLEDGER_BILLING_H

#include <stdint.h>

#include "base/err.h"

#define BILLING_MIN_SECONDS 60
#define BILLING_MONTH_CAP_SECONDS (672LL * 3600)
#define BILLING_MIN_AMOUNT 10000 /* $0.01 in micro-dollars */

/* The billed life [*s, *e) of a node with billable start `start` (0: never
 * billable, then *s = *e = 0) and end `end` (0 alive: `now`), minimum applied. */
void billing_life(int64_t start, int64_t end, int64_t now, int64_t *s, int64_t *e);

/* Seconds of the billed life [s, e) (from billing_life) inside [a, b) that are
 * billed, i.e. not past the month's 672 h cap. */
int64_t billing_overlap(int64_t s, int64_t e, int64_t a, int64_t b);

/* Billed seconds of the node in [a, b) (billing_life then billing_overlap). */
int64_t billing_node_seconds(int64_t start, int64_t end, int64_t now, int64_t a, int64_t b);

/* Billed µ$ of the node in [a, b) at rate_hourly µ$/h (>= 0), the $0.01 floor
 * included where it lands. ERR_INVAL on a negative rate, ERR_TOOBIG beyond int64. */
enum err billing_node_amount(int64_t rate_hourly, int64_t start, int64_t end, int64_t now,
                             int64_t a, int64_t b, int64_t *out);

#endif
