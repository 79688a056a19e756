/* billing — the node billed amount; contract and rule in billing.h. */
#include "model/billing.h"

#include "base/money.h"
#include "base/timeutil.h"

static int64_t max64(int64_t a, int64_t b) {
    return a > b ? a : b;
}
static int64_t min64(int64_t a, int64_t b) {
    return a < b ? a : b;
}

void billing_life(int64_t start, int64_t end, int64_t now, int64_t *s, int64_t *e) {
    if (start == 0) {
        *s = *e = 0;
        return;
    }
    int64_t x = end ? end : now;
    if (x < start)
        x = start;
    if (x - start < BILLING_MIN_SECONDS && (end != 0 || now >= start))
        x = start + BILLING_MIN_SECONDS;
    *s = start;
    *e = x;
}

int64_t billing_overlap(int64_t s, int64_t e, int64_t a, int64_t b) {
    int64_t lo = max64(s, a), hi = min64(e, b);
    if (lo >= hi)
        return 0;
    if (e - s <= BILLING_MONTH_CAP_SECONDS) /* fast path: the cap cannot bite */
        return hi - lo;
    int64_t sum = 0;
    for (int64_t m0 = timeutil_month_start(lo); m0 < hi; m0 = timeutil_next_month_start(m0)) {
        int64_t m1 = timeutil_next_month_start(m0);
        int64_t first = max64(s, m0); /* first billable second of the node in this month */
        int64_t seg_hi = min64(min64(e, m1), first + BILLING_MONTH_CAP_SECONDS);
        int64_t x = max64(first, lo), y = min64(seg_hi, hi);
        if (y > x)
            sum += y - x;
    }
    return sum;
}

int64_t billing_node_seconds(int64_t start, int64_t end, int64_t now, int64_t a, int64_t b) {
    int64_t s, e;
    billing_life(start, end, now, &s, &e);
    return s ? billing_overlap(s, e, a, b) : 0;
}

/* The last billed second of an ended node's billed life [s, e). */
static int64_t last_billed_second(int64_t s, int64_t e) {
    int64_t m = timeutil_month_start(e - 1);
    int64_t first = max64(s, m);
    return min64(e, first + BILLING_MONTH_CAP_SECONDS) - 1;
}

enum err billing_node_amount(int64_t rate_hourly, int64_t start, int64_t end, int64_t now,
                             int64_t a, int64_t b, int64_t *out) {
    if (rate_hourly < 0)
        return ERR_INVAL;
    int64_t s, e;
    billing_life(start, end, now, &s, &e);
    *out = 0;
    if (s == 0)
        return ERR_OK;
    enum err rc = money_muldiv(billing_overlap(s, e, a, b), rate_hourly, 3600, out);
    if (rc != ERR_OK || end == 0 || rate_hourly == 0)
        return rc;
    int64_t p = last_billed_second(s, e);
    if (p < a || p >= b)
        return ERR_OK;
    int64_t whole;
    rc = money_muldiv(billing_overlap(s, e, s, e), rate_hourly, 3600, &whole);
    if (rc == ERR_OK && whole < BILLING_MIN_AMOUNT)
        *out += BILLING_MIN_AMOUNT - whole;
    return rc;
}
