#include "store/store_cost.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_cost_tasks.h"
#include "store/store_internal.h"
#include "base/buf.h"
#include "base/jsonw.h"
#include "base/xalloc.h"

static int64_t col_time(sqlite3_stmt *st, int col) {
    return store_col_or(st, col, 0);
}

void store_cost_free(struct store_cost_data *d) {
    if (!d)
        return;
    free(d->pools);
    free(d->nodes);
    free(d->spells);
    free(d->tasks);
    free(d->task_names);
    free(d->task_clusters);
    free(d->attempts);
    free(d->od_sizes);
    free(d->prices);
    store_arena_free(d->arena);
    free(d);
}

/* A pool is spot by its slug / DO labels / --spot-pool (capacity_type, set by
 * the DO poller) or by its nodes' Kubernetes labels matching a spot label (?1: a
 * JSON array of [key, value] pairs). */
static const char SQL_POOLS[] =
    "SELECT p.id, p.name, p.size, CASE WHEN p.capacity_type = 'spot' OR EXISTS (SELECT 1 "
    "FROM nodes n, json_each(CASE WHEN json_valid(n.labels_json) THEN n.labels_json END) j, "
    "json_each(?1) l WHERE n.pool_id = p.id AND j.type = 'text' "
    "AND j.key = json_extract(l.value, '$[0]') AND j.value = json_extract(l.value, '$[1]')) "
    "THEN 'spot' ELSE 'on-demand' END, p.price_hourly_micro, p.deleted_at, "
    "(SELECT min(r.first_signal_at) FROM reclaims r WHERE r.pool_id = p.id) "
    "FROM node_pools p WHERE " STORE_IN_CLUSTERS("p.cluster") " ORDER BY p.id";

/* Nodes whose billable life [start, end + 60 s) may touch [from, to). */
static const char SQL_NODES[] =
    "SELECT name, pool_id, price_hourly_micro, created_at, ready_at, k8s_deleted_at, "
    " do_deleted_at, not_ready_at, cordoned_at, gpu_allocatable, cpu_allocatable_milli, "
    " k8s_uid IS NOT NULL AND ready_at IS NULL "
    "FROM nodes WHERE coalesce(ready_at, created_at, first_seen) < ?2 "
    " AND (coalesce(k8s_deleted_at, do_deleted_at) IS NULL "
    "      OR min(coalesce(k8s_deleted_at, do_deleted_at), coalesce(do_deleted_at, k8s_deleted_at))"
    "         >= ?1 - 60) "
    " AND " STORE_IN_CLUSTERS("cluster") " ORDER BY name";

/* The nodes one task's attempts used. */
static const char SQL_TASK_NODES[] =
    "SELECT name, pool_id, price_hourly_micro, created_at, ready_at, k8s_deleted_at, "
    " do_deleted_at, not_ready_at, cordoned_at, gpu_allocatable, cpu_allocatable_milli, "
    " k8s_uid IS NOT NULL AND ready_at IS NULL "
    "FROM nodes WHERE name IN (SELECT node_name FROM attempts WHERE task_uid = ?1) "
    "ORDER BY name";

/* The price history (each observed change, its source time) with GPU counts. */
static const char SQL_PRICES[] =
    "SELECT sp.slug, sp.observed_at, sp.price_hourly_micro, coalesce(s.gpu_count, 0) "
    "FROM size_prices sp LEFT JOIN sizes s ON s.slug = sp.slug ORDER BY sp.slug, sp.observed_at";

/* Ready transitions of every node, for its NotReady spells. */
static const char SQL_SPELLS[] =
    "SELECT node_name, at, status FROM node_conditions ORDER BY node_name, at";

/* The latest On-Demand price of each size (for the counterfactual). */
static const char SQL_OD_PRICES[] =
    "SELECT sp.slug, sp.price_hourly_micro FROM size_prices sp "
    "WHERE sp.observed_at = (SELECT max(observed_at) FROM size_prices WHERE slug = sp.slug)";

/* The default spot labels (poll_do.h: none configured). */
static const struct config_pair default_spot_labels[] = {
    {(char *)"doks.digitalocean.com/capacity-type", (char *)"spot"},
    {(char *)"gpu-pool-type", (char *)"spot"},
};

/* One pool; arg: the struct store_cost_data (its arena). */
static bool pool_row(sqlite3_stmt *st, void *rec, void *arg) {
    struct store_cost_data *d = arg;
    struct cost_pool *p = rec;
    p->id = store_arena_col(&d->arena, st, 0);
    p->name = store_arena_col(&d->arena, st, 1);
    p->size = store_arena_col(&d->arena, st, 2);
    const unsigned char *ct = sqlite3_column_text(st, 3);
    p->capacity = ct && !strcmp((const char *)ct, "spot") ? COST_CAP_SPOT : COST_CAP_ON_DEMAND;
    p->price_hourly = col_time(st, 4);
    p->deleted_at = col_time(st, 5);
    p->signal_at = col_time(st, 6);
    return true;
}

static enum err load_pools(struct store *s, struct store_cost_data *d,
                           const struct store_cost_opts *opts) {
    const struct config_pair *lv = default_spot_labels;
    size_t nl = sizeof default_spot_labels / sizeof default_spot_labels[0];
    if (opts && opts->n_spot_labels) {
        lv = opts->spot_labels;
        nl = opts->n_spot_labels;
    }
    struct buf lj; /* [[key, value], ...] */
    buf_init(&lj, 0);
    struct jsonw w;
    jsonw_init(&w, &lj);
    jsonw_arr(&w);
    for (size_t i = 0; i < nl; i++) {
        jsonw_arr(&w);
        jsonw_str(&w, lv[i].key);
        jsonw_str(&w, lv[i].value);
        jsonw_arr_end(&w);
    }
    jsonw_arr_end(&w);
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_POOLS, &st);
    if (rc != ERR_OK) {
        buf_release(&lj);
        return rc;
    }
    if (sqlite3_bind_text(st, 1, lj.data ? lj.data : "[]", -1, SQLITE_TRANSIENT) != SQLITE_OK) {
        buf_release(&lj);
        return store_fail(s, SQLITE_NOMEM, "bind spot labels");
    }
    buf_release(&lj);
    d->pools = store_rows(s, st, sizeof *d->pools, pool_row, d, &d->in.n_pools, "load pools", &rc);
    return rc;
}

static enum err read_nodes(struct store *s, sqlite3_stmt *st, struct store_cost_data *d,
                           const struct cost_index *pool_ix) {
    enum err rc;
    size_t cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        XGROW(d->nodes, d->in.n_nodes, cap, 256);
        struct cost_node *n = &d->nodes[d->in.n_nodes++];
        memset(n, 0, sizeof *n);
        n->name = store_arena_col(&d->arena, st, 0);
        const char *pool = (const char *)sqlite3_column_text(st, 1);
        n->pool = pool && pool_ix ? cost_index_find(pool_ix, pool) : -1;
        n->price_hourly = col_time(st, 2);
        n->created_at = col_time(st, 3);
        n->ready_at = col_time(st, 4);
        n->k8s_deleted_at = col_time(st, 5);
        n->do_deleted_at = col_time(st, 6);
        n->not_ready_at = col_time(st, 7);
        n->cordoned_at = col_time(st, 8);
        n->gpu_allocatable = store_col_or(st, 9, 0);
        n->cpu_allocatable_milli = store_col_or(st, 10, 0);
        if (sqlite3_column_int(st, 11))
            n->created_at = 0; /* Kubernetes never saw it Ready: not billed (decision 3) */
        if (n->gpu_allocatable < 0)
            n->gpu_allocatable = 0;
        if (n->cpu_allocatable_milli < 0)
            n->cpu_allocatable_milli = 0;
    }
    rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, "load nodes");
    sqlite3_reset(st);
    return rc;
}

static enum err load_nodes(struct store *s, struct store_cost_data *d, int64_t from, int64_t to,
                           const struct cost_index *pool_ix) {
    sqlite3_stmt *st;
    enum err rc = store_stmt_window(s, SQL_NODES, from, to, &st);
    return rc == ERR_OK ? read_nodes(s, st, d, pool_ix) : rc;
}

/* Every NotReady spell of the loaded nodes: a spell starts at a transition to a
 * status other than True and ends at the next transition to True (0: open). */
static enum err load_spells(struct store *s, struct store_cost_data *d,
                            const struct cost_index *node_ix) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_SPELLS, &st);
    if (rc != ERR_OK)
        return rc;
    size_t cap = 0, n = 0; /* n pairs */
    int32_t *owner = NULL;
    size_t ocap = 0, on = 0;
    int32_t cur = -1;
    bool in = false;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        int32_t node = name && node_ix ? cost_index_find(node_ix, name) : -1;
        if (node < 0)
            continue;
        if (node != cur) {
            cur = node;
            in = false;
        }
        int64_t at = sqlite3_column_int64(st, 1);
        const char *status = (const char *)sqlite3_column_text(st, 2);
        bool ready = status && !strcmp(status, "True");
        if (!ready && !in) {
            if (2 * n + 2 > cap) {
                cap = cap ? cap * 2 : 256;
                d->spells = xrealloc(d->spells, cap * sizeof *d->spells);
            }
            XGROW(owner, on, ocap, 256);
            d->spells[2 * n] = at;
            d->spells[2 * n + 1] = 0;
            owner[on++] = node;
            n++;
            in = true;
        } else if (ready && in) {
            d->spells[2 * n - 1] = at;
            in = false;
        }
    }
    rc = r == SQLITE_DONE ? ERR_OK : store_fail(s, r, "load spells");
    sqlite3_reset(st);
    for (size_t k = 0; rc == ERR_OK && k < n; k++) {
        struct cost_node *nd = &d->nodes[owner[k]];
        if (!nd->n_spells)
            nd->spells = &d->spells[2 * k];
        nd->n_spells++;
    }
    free(owner);
    return rc;
}

/* Every size's price, keyed "<slug>-spot" -> slug, so a spot size whose
 * On-Demand twin is listed in /v2/sizes finds its rate (a spot slug's own row
 * is dropped). arg: the struct store_cost_data (its arena). */
static bool od_price_row(sqlite3_stmt *st, void *rec, void *arg) {
    struct store_cost_data *d = arg;
    const char *slug = (const char *)sqlite3_column_text(st, 0);
    size_t n = slug ? strlen(slug) : 0;
    if (!slug || (n > 5 && !strcmp(slug + n - 5, "-spot")))
        return false;
    struct cost_od_size *o = rec;
    o->od_size = store_arena_col(&d->arena, st, 0);
    o->od_price_hourly = sqlite3_column_int64(st, 1);
    /* "<slug>-spot" in the arena */
    char twin[512];
    int tn = snprintf(twin, sizeof twin, "%s-spot", o->od_size);
    o->spot_size =
        store_arena_dup(&d->arena, twin, tn > 0 && (size_t)tn < sizeof twin ? (size_t)tn : 0);
    return true;
}

/* One change of the price history; arg as od_price_row's. */
static bool price_row(sqlite3_stmt *st, void *rec, void *arg) {
    struct store_cost_data *d = arg;
    struct cost_price *p = rec;
    p->size = store_arena_col(&d->arena, st, 0);
    p->at = sqlite3_column_int64(st, 1);
    p->price_hourly = sqlite3_column_int64(st, 2);
    p->gpus = sqlite3_column_int64(st, 3);
    return true;
}

static enum err load_od_prices(struct store *s, struct store_cost_data *d) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_OD_PRICES, &st);
    if (rc == ERR_OK)
        d->od_sizes = store_rows(s, st, sizeof *d->od_sizes, od_price_row, d, &d->n_od_sizes,
                                 "load prices", &rc);
    return rc;
}

static enum err load_prices(struct store *s, struct store_cost_data *d) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_PRICES, &st);
    if (rc == ERR_OK)
        d->prices = store_rows(s, st, sizeof *d->prices, price_row, d, &d->in.n_prices,
                               "load price history", &rc);
    return rc;
}

/* Loads pools, then nodes (task_uid NULL: by window; else the task's), then
 * tasks with their attempts, then prices. */
static enum err load(struct store *s, int64_t from, int64_t to, const char *task_uid,
                     bool nodes_only, const struct store_cost_opts *opts,
                     struct store_cost_data **out) {
    enum cost_config default_config = opts ? opts->default_config : COST_FALLBACK;
    struct store_cost_data *d = xcalloc(1, sizeof *d);
    struct cost_index *pool_ix = NULL, *node_ix = NULL;
    int64_t back = 0, life = 0;
    sqlite3_stmt *st = NULL;
    enum err rc = load_pools(s, d, opts);
    if (rc == ERR_OK && d->in.n_pools)
        rc = cost_index_new(&d->pools[0].id, sizeof d->pools[0], d->in.n_pools, &pool_ix);
    if (rc == ERR_OK && !task_uid)
        rc = store_cost_task_bounds(s, &back, &life);
    if (rc == ERR_OK && !task_uid) {
        /* every node an attempt of a touched task may have used, not only those
         * of the window: whole-life task figures (calc_task_life) price them */
        rc = load_nodes(s, d, from - back - life, to, pool_ix);
    } else if (rc == ERR_OK && (rc = store_stmt(s, SQL_TASK_NODES, &st)) == ERR_OK) {
        store_bind_text(st, 1, task_uid);
        rc = read_nodes(s, st, d, pool_ix);
    }
    if (rc == ERR_OK && d->in.n_nodes)
        rc = cost_index_new(&d->nodes[0].name, sizeof d->nodes[0], d->in.n_nodes, &node_ix);
    if (rc == ERR_OK && d->in.n_nodes)
        rc = load_spells(s, d, node_ix);
    if (rc == ERR_OK && nodes_only) {
        /* no tasks: cost_compose's input */
    } else if (rc == ERR_OK && !task_uid) {
        rc = store_cost_tasks_window(s, d, from, to, back, life, default_config, node_ix, 0);
    } else if (rc == ERR_OK) {
        rc = store_cost_tasks_one(s, d, task_uid, default_config, node_ix);
    }
    if (rc == ERR_OK)
        rc = load_od_prices(s, d);
    if (rc == ERR_OK)
        rc = load_prices(s, d);
    cost_index_free(pool_ix);
    cost_index_free(node_ix);
    if (rc != ERR_OK) {
        store_cost_free(d);
        return rc;
    }
    d->in.pools = d->pools;
    d->in.nodes = d->nodes;
    d->in.tasks = d->tasks;
    d->in.attempts = d->attempts;
    d->in.prices = d->prices;
    *out = d;
    return ERR_OK;
}

enum err store_cost_load(struct store *s, int64_t from, int64_t to,
                         const struct store_cost_opts *opts, struct store_cost_data **out) {
    store_set_read_clusters(s, opts ? opts->clusters : NULL);
    return load(s, from, to, NULL, false, opts, out);
}

enum err store_cost_load_nodes(struct store *s, int64_t from, int64_t to,
                               const struct store_cost_opts *opts, struct store_cost_data **out) {
    store_set_read_clusters(s, opts ? opts->clusters : NULL);
    return load(s, from, to, NULL, true, opts, out);
}

enum err store_cost_load_task(struct store *s, const char *task_uid,
                              const struct store_cost_opts *opts, struct store_cost_data **out) {
    store_set_read_clusters(s, NULL); /* one task: its own cluster's */
    return load(s, 0, 0, task_uid, false, opts, out);
}
