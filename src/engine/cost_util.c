/* cost_util — the small pure building blocks of the cost model: name parsing,
 * the largest-remainder split, node billable seconds, the interrupted test and
 * the string-id index. Contracts in cost.h. */
#include "engine/cost.h"

#include <stdlib.h>
#include <string.h>

#include "engine/cost_internal.h"
#include "model/billing.h"

__extension__ typedef __int128 i128;

/* ---- names ---------------------------------------------------------------- */

/* One table per enum, indexed by its value: both the name and the parse read it. */
static const char *const config_names[COST_NCONFIG] = {"spot", "fallback", "on-demand"};
static const char *const capacity_names[] = {
    [COST_CAP_ON_DEMAND] = "on-demand",
    [COST_CAP_SPOT] = "spot",
};
static const char *const outcome_names[] = {"running", "succeeded", "failed"};
static const char *const phase_names[] = {"Unknown", "Pending", "Running", "Succeeded", "Failed"};
#define NAMES(t) (int)(sizeof t / sizeof t[0])

/* The value whose name is s (exactly), or -1. */
static int name_index(const char *const *names, int n, const char *s) {
    for (int i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

enum err cost_config_parse(const char *s, enum cost_config *out) {
    int i = name_index(config_names, COST_NCONFIG, s);
    if (i >= 0)
        *out = (enum cost_config)i;
    return i >= 0 ? ERR_OK : ERR_INVAL;
}

const char *cost_config_name(enum cost_config c) {
    return (unsigned)c < COST_NCONFIG ? config_names[c] : NULL;
}

enum err cost_capacity_parse(const char *s, enum cost_capacity *out) {
    int i = name_index(capacity_names, NAMES(capacity_names), s);
    if (i >= 0)
        *out = (enum cost_capacity)i;
    return i >= 0 ? ERR_OK : ERR_INVAL;
}

const char *cost_capacity_name(enum cost_capacity c) {
    return (unsigned)c < (unsigned)NAMES(capacity_names) ? capacity_names[c] : NULL;
}

enum err cost_outcome_parse(const char *s, enum cost_outcome *out) {
    int i = name_index(outcome_names, NAMES(outcome_names), s);
    if (i >= 0)
        *out = (enum cost_outcome)i;
    return i >= 0 ? ERR_OK : ERR_INVAL;
}

enum err cost_phase_parse(const char *s, enum cost_phase *out) {
    int i = name_index(phase_names, NAMES(phase_names), s);
    if (i >= 0)
        *out = (enum cost_phase)i;
    return i >= 0 ? ERR_OK : ERR_INVAL;
}

/* ---- largest remainder ------------------------------------------------------ */

enum err cost_split(int64_t amount, const int64_t *weights, size_t n, int64_t *parts) {
    i128 total = 0;
    if (amount < 0)
        return ERR_INVAL;
    for (size_t i = 0; i < n; i++) {
        if (weights[i] < 0)
            return ERR_INVAL;
        total += weights[i];
    }
    if (total == 0) {
        if (amount != 0)
            return ERR_INVAL;
        for (size_t i = 0; i < n; i++)
            parts[i] = 0;
        return ERR_OK;
    }
    int64_t given = 0;
    for (size_t i = 0; i < n; i++) {
        parts[i] = (int64_t)((i128)amount * weights[i] / total);
        given += parts[i];
    }
    /* amount - given < n: hand out one µ$ each to the largest remainders. The
     * scan is O(n) per µ$; n is small (classes, configurations). */
    while (given < amount) {
        size_t best = n;
        i128 best_rem = -1;
        for (size_t i = 0; i < n; i++) {
            i128 num = (i128)amount * weights[i];
            i128 rem = num - (i128)parts[i] * total; /* in [0, total] */
            /* a part already bumped has rem < 0 relative to its floor */
            if (weights[i] > 0 && rem > best_rem) {
                best_rem = rem;
                best = i;
            }
        }
        if (best == n)
            break;
        parts[best]++;
        given++;
    }
    return ERR_OK;
}

/* ---- nodes ----------------------------------------------------------------- */

static int64_t min_nonzero(int64_t a, int64_t b) {
    if (a == 0)
        return b;
    if (b == 0)
        return a;
    return a < b ? a : b;
}

int64_t cost_node_start(const struct cost_node *n) {
    return n->ready_at ? n->ready_at : n->created_at;
}

int64_t cost_node_end(const struct cost_node *n) {
    return min_nonzero(n->k8s_deleted_at, n->do_deleted_at);
}

int64_t cost_node_billable(const struct cost_node *n, int64_t now, int64_t a, int64_t b) {
    return billing_node_seconds(cost_node_start(n), cost_node_end(n), now, a, b);
}

int64_t cost_price_in_force(const struct cost_input *in, const char *size, int64_t at,
                            bool or_first) {
    /* lo: one past the last row of (size, at) <= (size, at) in the sorted history */
    size_t lo = 0, hi = in->n_prices;
    while (size && lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct cost_price *m = &in->prices[mid];
        int c = m->size ? strcmp(m->size, size) : -1;
        if (c < 0 || (c == 0 && m->at <= at))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!size)
        return 0;
    if (lo > 0 && in->prices[lo - 1].size && strcmp(in->prices[lo - 1].size, size) == 0)
        return in->prices[lo - 1].price_hourly > 0 ? in->prices[lo - 1].price_hourly : 0;
    if (or_first && lo < in->n_prices && in->prices[lo].size &&
        strcmp(in->prices[lo].size, size) == 0) /* observed only after `at` */
        return in->prices[lo].price_hourly > 0 ? in->prices[lo].price_hourly : 0;
    return 0;
}

int64_t cost_node_rate(const struct cost_input *in, const struct cost_node *n) {
    if (n->price_hourly)
        return n->price_hourly;
    if (n->pool < 0 || (size_t)n->pool >= in->n_pools)
        return 0;
    const struct cost_pool *p = &in->pools[n->pool];
    int64_t at = n->created_at ? n->created_at : n->ready_at;
    int64_t v = at ? cost_price_in_force(in, p->size, at, false) : 0;
    return v ? v : p->price_hourly;
}

/* ---- attempts ------------------------------------------------------------- */

bool cost_interrupt_reason(const char *r) {
    static const char *const reasons[] = {"Evicted", "NodeLost", "Shutdown", "NodeShutdown",
                                          "Terminated"};
    return name_index(reasons, NAMES(reasons), r) >= 0;
}

bool cost_attempt_interrupted(const struct cost_attempt *a, const struct cost_node *node) {
    if (a->phase == COST_PHASE_SUCCEEDED)
        return false;
    int64_t own_end = min_nonzero(min_nonzero(a->finished_at, a->deleted_at), a->terminal_at);
    int64_t node_end = node ? cost_node_end(node) : 0;
    /* its node was deleted while it still held it */
    if (node_end && (own_end == 0 || own_end >= node_end))
        return true;
    bool ended = own_end != 0 || a->phase == COST_PHASE_FAILED;
    if (!ended)
        return false;
    return a->disruption_at != 0 || cost_interrupt_reason(a->reason);
}

/* ---- string index ----------------------------------------------------------- */

struct cost_index {
    size_t mask;       /* capacity - 1 (power of two) */
    const char **keys; /* NULL = empty slot */
    int32_t *vals;
};

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

enum err cost_index_new(const void *base, size_t stride, size_t n, struct cost_index **out) {
    if (n > INT32_MAX)
        return ERR_TOOBIG;
    struct cost_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        return ERR_NOMEM;
    size_t cap = 16;
    while (cap < n * 2)
        cap *= 2;
    ix->mask = cap - 1;
    ix->keys = calloc(cap, sizeof *ix->keys);
    ix->vals = calloc(cap, sizeof *ix->vals);
    if (!ix->keys || !ix->vals) {
        cost_index_free(ix);
        return ERR_NOMEM;
    }
    const char *p = base;
    for (size_t i = 0; i < n; i++) {
        const char *key;
        memcpy(&key, p + i * stride, sizeof key);
        if (!key)
            continue;
        size_t h = (size_t)hash_str(key) & ix->mask;
        while (ix->keys[h] && strcmp(ix->keys[h], key) != 0)
            h = (h + 1) & ix->mask;
        if (!ix->keys[h]) {
            ix->keys[h] = key;
            ix->vals[h] = (int32_t)i;
        }
    }
    *out = ix;
    return ERR_OK;
}

int32_t cost_index_find(const struct cost_index *ix, const char *key) {
    if (!ix || !key)
        return -1;
    size_t h = (size_t)hash_str(key) & ix->mask;
    while (ix->keys[h]) {
        if (strcmp(ix->keys[h], key) == 0)
            return ix->vals[h];
        h = (h + 1) & ix->mask;
    }
    return -1;
}

void cost_index_free(struct cost_index *ix) {
    if (!ix)
        return;
    free(ix->keys);
    free(ix->vals);
    free(ix);
}
