#include "query/calc.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "engine/cost_partial.h"
#include "model/settings.h"

enum cost_config calc_default_config(const struct calc_settings *cfg) {
    enum cost_config c = COST_FALLBACK;
    if (cfg && cfg->default_configuration)
        cost_config_parse(cfg->default_configuration, &c);
    return c;
}

struct store_cost_opts calc_store_opts(const struct calc_settings *cfg) {
    struct store_cost_opts o = {.default_config = calc_default_config(cfg)};
    if (cfg) {
        o.spot_labels = cfg->spot_labels;
        o.n_spot_labels = cfg->n_spot_labels;
        o.clusters = cfg->clusters;
    }
    return o;
}

static void build_od(struct calc *c) {
    size_t extra = c->cfg ? c->cfg->n_on_demand_sizes : 0;
    c->od = xcalloc(extra + c->data->n_od_sizes + 1, sizeof *c->od);
    for (size_t i = 0; i < extra; i++) {
        const struct config_pair *p = &c->cfg->on_demand_sizes[i];
        for (size_t j = 0; j < c->data->n_od_sizes; j++) {
            if (strcmp(c->data->od_sizes[j].od_size, p->value) == 0) {
                c->od[c->n_od].spot_size = p->key;
                c->od[c->n_od].od_size = p->value;
                c->od[c->n_od].od_price_hourly = c->data->od_sizes[j].od_price_hourly;
                c->n_od++;
                break;
            }
        }
    }
    for (size_t j = 0; j < c->data->n_od_sizes; j++)
        c->od[c->n_od++] = c->data->od_sizes[j];
}

/* q as the engine takes it: with c's On-Demand sizes, its now no earlier than
 * its from. */
static struct cost_query query_of(const struct calc *c, const struct cost_query *q) {
    struct cost_query cq = *q;
    cq.od_sizes = c->od;
    cq.n_od_sizes = c->n_od;
    if (cq.now < cq.from)
        cq.now = cq.from;
    return cq;
}

/* Loads [from, to) into out (zeroed first) and resolves its On-Demand sizes. */
static enum err calc_load(struct store *db, const struct calc_settings *cfg, int64_t from,
                          int64_t to, struct calc *out) {
    memset(out, 0, sizeof *out);
    out->cfg = cfg;
    struct store_cost_opts o = calc_store_opts(cfg);
    enum err rc = store_cost_load(db, from, to, &o, &out->data);
    if (rc == ERR_OK)
        build_od(out);
    return rc;
}

enum err calc_recompute(struct calc *c, const struct cost_query *q) {
    struct cost_query cq = query_of(c, q);
    struct cost_result *r = NULL;
    enum err rc = cost_compute(&c->data->in, &cq, &r);
    if (rc != ERR_OK)
        return rc;
    cost_result_free(c->res);
    c->res = r;
    return ERR_OK;
}

enum err calc_run(struct store *db, const struct calc_settings *cfg, int64_t load_from,
                  int64_t load_to, const struct cost_query *q, struct calc *out) {
    enum err rc = calc_load(db, cfg, load_from, load_to, out);
    if (rc != ERR_OK)
        return rc;
    rc = calc_recompute(out, q);
    if (rc != ERR_OK)
        calc_release(out);
    return rc;
}

/* The partial flag of a composed window (no task of it was loaded): a task the
 * window cuts reaches across one of its edges, so the tasks at each edge
 * (store_cost_load_edge_tasks, over the window's own pools, nodes and prices:
 * those a direct computation of the window prices) are passed over q's window;
 * the cut test (cost.h cost_result.partial) reads only their held intervals. */
static enum err edge_partial(struct store *db, const struct calc_settings *cfg,
                             const struct cost_query *q, const struct calc *win,
                             const struct cost_index *node_ix, struct cost_result *res) {
    const int64_t edges[2] = {q->from, q->to};
    for (int k = 0; k < 2; k++) {
        struct store_cost_opts o = calc_store_opts(cfg);
        struct store_cost_data *d = NULL;
        enum err rc = store_cost_load_edge_tasks(db, edges[k], &o, win->data, node_ix, &d);
        if (rc != ERR_OK)
            return rc;
        struct cost_query cq = *q;
        cq.od_sizes = win->od; /* the window's On-Demand sizes (q's own) */
        cq.n_od_sizes = win->n_od;
        struct cost_result *r = NULL;
        rc = cost_compute(&d->in, &cq, &r);
        store_cost_free(d);
        if (rc != ERR_OK)
            return rc;
        for (int c = 0; c < COST_NCONFIG; c++)
            if (r->configs[c].partial)
                res->configs[c].partial = true;
        res->partial = res->partial || r->partial;
        cost_result_free(r);
    }
    return ERR_OK;
}

enum err calc_compose(struct store *db, struct store_cost_data *data,
                      const struct cost_index *node_ix, const struct calc_settings *cfg,
                      const struct cost_query *q, const struct cost_partial *sum,
                      struct calc *out) {
    memset(out, 0, sizeof *out);
    out->cfg = cfg;
    out->data = data;
    build_od(out);
    struct cost_query cq = query_of(out, q);
    enum err rc = cost_compose(&out->data->in, &cq, sum, &out->res);
    if (rc == ERR_OK)
        rc = edge_partial(db, cfg, &cq, out, node_ix, out->res);
    if (rc != ERR_OK)
        calc_release(out);
    return rc;
}

static enum err completion_of(struct calc *c, const struct cost_query *q,
                              struct cost_completion *comp) {
    struct cost_query cq = query_of(c, q);
    return cost_completion(&c->data->in, &cq, c->res, comp);
}

enum err calc_completion(struct store *db, const struct calc_settings *cfg, int64_t load_from,
                         int64_t load_to, const struct cost_query *q, struct calc *out,
                         struct cost_completion *comp) {
    enum err rc = calc_run(db, cfg, load_from, load_to, q, out);
    if (rc != ERR_OK)
        return rc;
    struct cost_query cq = query_of(out, q);
    int64_t lo, hi;
    rc = cost_completion_span(&out->data->in, &cq, &lo, &hi);
    if (rc == ERR_OK && (lo < load_from || hi > load_to)) {
        /* the earlier (or later) windows' other tasks share their pools' idle */
        calc_release(out);
        rc =
            calc_run(db, cfg, lo < load_from ? lo : load_from, hi > load_to ? hi : load_to, q, out);
        if (rc != ERR_OK)
            return rc;
    }
    if (rc == ERR_OK)
        rc = completion_of(out, q, comp);
    if (rc != ERR_OK)
        calc_release(out);
    return rc;
}

enum err calc_completion_loaded(struct calc *c, const struct cost_query *q,
                                struct cost_completion *comp) {
    enum err rc = calc_recompute(c, q);
    return rc == ERR_OK ? completion_of(c, q, comp) : rc;
}

void calc_life_window(const struct cost_input *in, int64_t from, int64_t to, int64_t now,
                      int64_t *a, int64_t *b) {
    int64_t lo = from;
    for (size_t i = 0; i < in->n_attempts; i++) {
        const struct cost_attempt *x = &in->attempts[i];
        int64_t s = x->scheduled_at ? x->scheduled_at
                    : x->created_at ? x->created_at
                                    : x->started_at;
        if (s && s < lo)
            lo = s;
    }
    *a = lo;
    *b = (to > now ? to : now) + 1;
}

enum err calc_task_life(struct store *db, const struct calc_settings *cfg, int64_t from, int64_t to,
                        int64_t now, struct calc *out) {
    /* the loader brings every attempt of the touched tasks, and their nodes */
    enum err rc = calc_load(db, cfg, from, to, out);
    if (rc != ERR_OK)
        return rc;
    struct cost_query q;
    memset(&q, 0, sizeof q);
    calc_life_window(&out->data->in, from, to, now, &q.from, &q.to);
    q.now = now;
    q.want_attempts = true;
    rc = calc_recompute(out, &q);
    if (rc != ERR_OK)
        calc_release(out);
    return rc;
}

void calc_release(struct calc *c) {
    cost_result_free(c->res);
    free(c->od);
    store_cost_free(c->data);
    memset(c, 0, sizeof *c);
}
