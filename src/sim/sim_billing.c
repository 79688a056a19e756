#include "sim/sim_billing.h"

#include "base/money.h"
#include "base/timeutil.h"
#include "model/billing.h"

int64_t sim_billing_price_at(const struct sim_size *s, int64_t t, const char **text) {
    int64_t price = s->price_hourly;
    const char *lit = s->price_hourly_text;
    for (int k = 0; k < s->nchanges && s->changes[k].at <= t; k++) {
        price = s->changes[k].price_hourly;
        lit = s->changes[k].price_hourly_text;
    }
    if (text)
        *text = lit;
    return price;
}

int64_t sim_billing_rate(const struct sim_world *w, int node) {
    const struct sim_pool *p = &w->pools[w->nodes[node].pool];
    return sim_billing_price_at(&w->sc->sizes[w->sc->pools[p->spec].size_idx],
                                w->nodes[node].created_t, NULL);
}

int64_t sim_billing_cents(int64_t micro) {
    int64_t cents = 0;
    if (money_muldiv(micro, 1, 10000, &cents) != ERR_OK)
        return micro;
    return cents * 10000;
}

int64_t sim_billing_hours(int64_t seconds) {
    return seconds <= 0 ? 0 : (seconds + 3599) / 3600;
}

int sim_billing_node(const struct sim_world *w, int node, int64_t now, struct sim_bill_item *items,
                     int max) {
    const struct sim_node *n = &w->nodes[node];
    if (n->ready_t == SIM_NEVER || n->ready_t > now || max <= 0)
        return 0;
    int64_t start = n->ready_t;
    int64_t end = n->deleted_t <= now ? n->deleted_t : 0; /* 0: alive at now */
    int64_t rate = sim_billing_rate(w, node);
    int64_t s, e;
    billing_life(start, end, now, &s, &e);
    int k = 0;
    for (int64_t m = timeutil_month_start(s); m < e && k < max; m = timeutil_next_month_start(m)) {
        int64_t next = timeutil_next_month_start(m);
        int64_t a = s > m ? s : m, b = e < next ? e : next;
        int64_t amount = 0;
        if (billing_node_amount(rate, start, end, now, m, next, &amount) != ERR_OK)
            amount = INT64_MAX / 2;
        items[k++] = (struct sim_bill_item){node, m, a, b, billing_overlap(s, e, m, next), amount};
    }
    return k;
}
