#include "sim/sim_billing.h"

#include "base/money.h"
#include "base/timeutil.h"

int64_t sim_billing_rate(const struct sim_world *w, int node) {
    const struct sim_pool *p = &w->pools[w->nodes[node].pool];
    return w->sc->sizes[w->sc->pools[p->spec].size_idx].price_hourly;
}

static int64_t amount_of(int64_t seconds, int64_t rate) {
    int64_t a = 0;
    if (money_muldiv(seconds, rate, 3600, &a) != ERR_OK)
        a = INT64_MAX / 2;
    return a < SIM_BILL_MIN_AMOUNT ? SIM_BILL_MIN_AMOUNT : a;
}

int sim_billing_node(const struct sim_world *w, int node, int64_t now, struct sim_bill_item *items,
                     int max) {
    const struct sim_node *n = &w->nodes[node];
    if (n->ready_t == SIM_NEVER || n->ready_t > now || max <= 0)
        return 0;
    int64_t start = n->ready_t;
    int64_t end = n->deleted_t < now ? n->deleted_t : now;
    int64_t rate = sim_billing_rate(w, node);
    if (end - start < SIM_BILL_MIN_SECONDS) {
        items[0] = (struct sim_bill_item){
            node, timeutil_month_start(start), start,
            end,  SIM_BILL_MIN_SECONDS,        amount_of(SIM_BILL_MIN_SECONDS, rate)};
        return 1;
    }
    int k = 0;
    for (int64_t m = timeutil_month_start(start); m < end && k < max;
         m = timeutil_next_month_start(m)) {
        int64_t a = start > m ? start : m;
        int64_t next = timeutil_next_month_start(m);
        int64_t b = end < next ? end : next;
        if (b <= a)
            continue;
        int64_t secs = b - a;
        if (secs > SIM_BILL_MONTH_CAP)
            secs = SIM_BILL_MONTH_CAP;
        items[k++] = (struct sim_bill_item){node, m, a, b, secs, amount_of(secs, rate)};
    }
    return k;
}
