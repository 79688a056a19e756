/* store_do — SQL for DigitalOcean data; see store_do.h. Statements are static
 * strings cached by address (store_internal.h). */
#include "store/store_do.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "store/store_insights.h"
#include "store/store_internal.h"
#include "base/xalloc.h"

static enum err bind_price(sqlite3_stmt *st, int idx, int64_t price) {
    return (price < 0 ? sqlite3_bind_null(st, idx) : sqlite3_bind_int64(st, idx, price)) ==
                   SQLITE_OK
               ? ERR_OK
               : ERR_DB;
}

static const char SQL_CLUSTER[] =
    "INSERT INTO clusters(id, name, region, version, first_seen, last_seen, cluster) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?5, :cluster) ON CONFLICT(id) DO UPDATE SET "
    "name = excluded.name, region = excluded.region, version = excluded.version, "
    "cluster = excluded.cluster, "
    "first_seen = MIN(clusters.first_seen, excluded.first_seen), "
    "last_seen = MAX(clusters.last_seen, excluded.last_seen)";

enum err store_do_upsert_cluster(struct store *s, const struct do_cluster *c, int64_t seen) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_CLUSTER, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, c->id);
    store_bind_text(st, 2, c->name);
    store_bind_text(st, 3, c->region);
    store_bind_text(st, 4, c->version);
    sqlite3_bind_int64(st, 5, seen);
    return store_exec_stmt(s, st);
}

static const char SQL_SIZE[] =
    "INSERT INTO sizes(slug, vcpus, memory_mb, gpu_count, gpu_model, gpu_vram_gb, first_seen, "
    "last_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) ON CONFLICT(slug) DO UPDATE SET "
    "vcpus = excluded.vcpus, memory_mb = excluded.memory_mb, gpu_count = excluded.gpu_count, "
    "gpu_model = excluded.gpu_model, gpu_vram_gb = excluded.gpu_vram_gb, "
    "first_seen = MIN(sizes.first_seen, excluded.first_seen), "
    "last_seen = MAX(sizes.last_seen, excluded.last_seen)";
static const char SQL_PRICE_LAST[] =
    "SELECT price_hourly_micro, price_monthly_micro FROM size_prices WHERE slug = ?1 "
    "ORDER BY observed_at DESC LIMIT 1";
static const char SQL_PRICE_ADD[] =
    "INSERT OR REPLACE INTO size_prices(slug, observed_at, price_hourly_micro, "
    "price_monthly_micro) VALUES (?1, ?2, ?3, ?4)";

/* Latest price row: ERR_NOTFOUND if none. */
static enum err last_price(struct store *s, const char *slug, int64_t *h, int64_t *m) {
    sqlite3_stmt *st;
    enum err rc = store_lookup(s, SQL_PRICE_LAST, slug, "size price", &st);
    if (rc != ERR_OK)
        return rc;
    *h = sqlite3_column_int64(st, 0);
    if (m)
        *m = sqlite3_column_int64(st, 1);
    sqlite3_reset(st);
    return ERR_OK;
}

enum err store_do_upsert_size(struct store *s, const struct do_size *z, int64_t seen,
                              bool *changed) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_SIZE, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, z->slug);
    store_bind_opt_int(st, 2, z->vcpus);
    store_bind_opt_int(st, 3, z->memory_mb);
    sqlite3_bind_int64(st, 4, z->gpu_count);
    store_bind_text(st, 5, z->gpu_model);
    store_bind_opt_int(st, 6, z->gpu_vram_gb);
    sqlite3_bind_int64(st, 7, seen);
    if ((rc = store_exec_stmt(s, st)) != ERR_OK)
        return rc;
    int64_t h = 0, m = 0;
    rc = last_price(s, z->slug, &h, &m);
    if (rc != ERR_OK && rc != ERR_NOTFOUND)
        return rc;
    bool diff = rc == ERR_NOTFOUND || h != z->price_hourly || m != z->price_monthly;
    if (diff) {
        if ((rc = store_stmt(s, SQL_PRICE_ADD, &st)) != ERR_OK)
            return rc;
        store_bind_text(st, 1, z->slug);
        sqlite3_bind_int64(st, 2, seen);
        sqlite3_bind_int64(st, 3, z->price_hourly);
        sqlite3_bind_int64(st, 4, z->price_monthly);
        if ((rc = store_exec_stmt(s, st)) != ERR_OK)
            return rc;
    }
    if (changed)
        *changed = diff;
    return ERR_OK;
}

enum err store_do_size_price(struct store *s, const char *slug, int64_t *hourly) {
    return last_price(s, slug, hourly, NULL);
}

static const char SQL_UNRECLAIM[] =
    "DELETE FROM reclaims WHERE pool_id = ?1 AND detected_at = "
    "(SELECT deleted_at FROM node_pools WHERE id = ?1 AND deleted_at IS NOT NULL)";
static const char SQL_POOL[] =
    "INSERT INTO node_pools(id, cluster_id, name, size, capacity_type, capacity_basis, "
    "price_hourly_micro, auto_scale, min_nodes, max_nodes, node_count, labels_json, taints_json, "
    "first_seen, last_seen, deleted_at, cluster) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14, NULL, :cluster) "
    "ON CONFLICT(id) DO UPDATE SET cluster_id = excluded.cluster_id, name = excluded.name, "
    "size = excluded.size, capacity_type = excluded.capacity_type, "
    "capacity_basis = excluded.capacity_basis, "
    "price_hourly_micro = COALESCE(node_pools.price_hourly_micro, excluded.price_hourly_micro), "
    "auto_scale = excluded.auto_scale, min_nodes = excluded.min_nodes, "
    "max_nodes = excluded.max_nodes, node_count = excluded.node_count, "
    "labels_json = excluded.labels_json, taints_json = excluded.taints_json, "
    "first_seen = MIN(node_pools.first_seen, excluded.first_seen), "
    "last_seen = MAX(node_pools.last_seen, excluded.last_seen), deleted_at = NULL";

enum err store_do_upsert_pool(struct store *s, const char *cluster_id, const struct do_pool *p,
                              const char *capacity_type, const char *basis, int64_t price_hourly,
                              int64_t seen) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_UNRECLAIM, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, p->id);
    if ((rc = store_exec_stmt(s, st)) != ERR_OK)
        return rc;
    if (sqlite3_changes(store_db(s)) > 0)
        log_msg(LOG_WARN, "store: pool '%s' is listed again; its reclaim is withdrawn", p->id);
    if ((rc = store_stmt(s, SQL_POOL, &st)) != ERR_OK)
        return rc;
    store_bind_text(st, 1, p->id);
    store_bind_text(st, 2, cluster_id);
    store_bind_text(st, 3, p->name);
    store_bind_text(st, 4, p->size);
    store_bind_text(st, 5, capacity_type);
    store_bind_text(st, 6, basis);
    bind_price(st, 7, price_hourly);
    sqlite3_bind_int(st, 8, p->auto_scale ? 1 : 0);
    sqlite3_bind_int64(st, 9, p->min_nodes);
    sqlite3_bind_int64(st, 10, p->max_nodes);
    store_bind_opt_int(st, 11, p->count);
    store_bind_text(st, 12, p->labels_json);
    store_bind_text(st, 13, p->taints_json);
    sqlite3_bind_int64(st, 14, seen);
    return store_exec_stmt(s, st);
}

static const char SQL_NODE[] =
    "INSERT INTO nodes(name, do_id, pool_id, droplet_id, size, capacity_type, "
    "price_hourly_micro, created_at, do_state, first_seen, last_seen, cluster) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, :cluster) ON CONFLICT(name) DO UPDATE "
    "SET "
    "do_id = excluded.do_id, pool_id = excluded.pool_id, "
    "droplet_id = COALESCE(excluded.droplet_id, nodes.droplet_id), size = excluded.size, "
    "capacity_type = excluded.capacity_type, "
    "price_hourly_micro = COALESCE(nodes.price_hourly_micro, excluded.price_hourly_micro), "
    "created_at = CASE WHEN nodes.created_at IS NULL THEN excluded.created_at "
    "WHEN excluded.created_at IS NULL THEN nodes.created_at "
    "ELSE MIN(nodes.created_at, excluded.created_at) END, "
    "do_state = excluded.do_state, do_deleted_at = NULL, "
    "first_seen = MIN(nodes.first_seen, excluded.first_seen), "
    "last_seen = MAX(nodes.last_seen, excluded.last_seen)";

enum err store_do_upsert_node(struct store *s, const struct do_pool *p, const struct do_node *n,
                              const char *capacity_type, int64_t price_hourly, int64_t seen) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_NODE, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, n->name);
    store_bind_text(st, 2, n->id);
    store_bind_text(st, 3, p->id);
    store_bind_text(st, 4, n->droplet_id);
    store_bind_text(st, 5, p->size);
    store_bind_text(st, 6, capacity_type);
    bind_price(st, 7, price_hourly);
    store_bind_time(st, 8, n->created_at);
    store_bind_text(st, 9, n->state);
    sqlite3_bind_int64(st, 10, seen);
    return store_exec_stmt(s, st);
}

static const char SQL_LIVE_POOLS[] = "SELECT id, capacity_type, node_count FROM node_pools "
                                     "WHERE cluster_id = ?1 AND deleted_at IS NULL";
static const char SQL_POOL_GONE[] = "UPDATE node_pools SET deleted_at = ?2 WHERE id = ?1";
static const char SQL_RECLAIM[] =
    "INSERT OR IGNORE INTO reclaims(pool_id, detected_at, nodes, cluster) VALUES (?1, ?2, "
    "(SELECT COUNT(*) FROM nodes WHERE pool_id = ?1 AND do_id IS NOT NULL AND "
    "(do_deleted_at IS NULL OR do_deleted_at = ?2)), :cluster)";
static const char SQL_LIVE_NODES[] =
    "SELECT name FROM nodes WHERE do_id IS NOT NULL AND do_deleted_at IS NULL AND pool_id IN "
    "(SELECT id FROM node_pools WHERE cluster_id = ?1)";
static const char SQL_NODE_GONE[] = "UPDATE nodes SET do_deleted_at = ?2 WHERE name = ?1";

static bool listed_pool(const struct do_pools *l, const char *id) {
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].id, id) == 0)
            return true;
    return false;
}

static bool listed_node(const struct do_pools *l, const char *name) {
    for (size_t i = 0; i < l->n; i++)
        for (size_t j = 0; j < l->v[i].n_nodes; j++)
            if (strcmp(l->v[i].nodes[j].name, name) == 0)
                return true;
    return false;
}

/* Collects column 0 of a query bound with cluster_id (owned strings). */
static enum err collect(struct store *s, const char *sql, const char *cluster_id, char ***out,
                        char ***caps, size_t *n) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, sql, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, cluster_id);
    size_t cap = 16, k = 0;
    char **v = xcalloc(cap, sizeof *v);
    char **c = caps ? xcalloc(cap, sizeof *c) : NULL;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        if (k == cap) {
            cap *= 2;
            v = xrealloc(v, cap * sizeof *v);
            if (c)
                c = xrealloc(c, cap * sizeof *c);
        }
        v[k] = store_column_dup(st, 0);
        if (c)
            c[k] = store_column_dup(st, 1);
        k++;
    }
    if (r != SQLITE_DONE)
        rc = store_fail(s, r, "collect");
    sqlite3_reset(st);
    *out = v;
    if (caps)
        *caps = c;
    *n = k;
    return rc;
}

static void free_list(char **v, size_t n) {
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

enum err store_do_mark_vanished(struct store *s, const char *cluster_id,
                                const struct do_pools *listed, int64_t at, int *pools_gone,
                                int *nodes_gone) {
    char **ids = NULL, **caps = NULL, **names = NULL;
    size_t nids = 0, nnames = 0;
    int pg = 0, ng = 0;
    sqlite3_stmt *st;
    enum err rc = collect(s, SQL_LIVE_POOLS, cluster_id, &ids, &caps, &nids);
    if (rc != ERR_OK)
        goto out;
    if ((rc = collect(s, SQL_LIVE_NODES, cluster_id, &names, NULL, &nnames)) != ERR_OK)
        goto out;
    /* nodes first, so a reclaim counts the nodes that went with its pool */
    for (size_t i = 0; i < nnames; i++) {
        if (!names[i] || listed_node(listed, names[i]))
            continue;
        if ((rc = store_stmt(s, SQL_NODE_GONE, &st)) != ERR_OK)
            goto out;
        store_bind_text(st, 1, names[i]);
        sqlite3_bind_int64(st, 2, at);
        if ((rc = store_exec_stmt(s, st)) != ERR_OK)
            goto out;
        ng++;
    }
    for (size_t i = 0; i < nids; i++) {
        if (!ids[i] || listed_pool(listed, ids[i]))
            continue;
        if ((rc = store_stmt(s, SQL_POOL_GONE, &st)) != ERR_OK)
            goto out;
        store_bind_text(st, 1, ids[i]);
        sqlite3_bind_int64(st, 2, at);
        if ((rc = store_exec_stmt(s, st)) != ERR_OK)
            goto out;
        pg++;
        if (caps[i] && strcmp(caps[i], "spot") == 0) {
            if ((rc = store_stmt(s, SQL_RECLAIM, &st)) != ERR_OK)
                goto out;
            store_bind_text(st, 1, ids[i]);
            sqlite3_bind_int64(st, 2, at);
            if ((rc = store_exec_stmt(s, st)) != ERR_OK)
                goto out;
            log_msg(LOG_INFO, "store: spot pool '%s' vanished: reclaim recorded", ids[i]);
        }
    }
out:
    free_list(ids, nids);
    free_list(caps, nids);
    free_list(names, nnames);
    if (rc == ERR_OK) {
        if (pools_gone)
            *pools_gone = pg;
        if (nodes_gone)
            *nodes_gone = ng;
    }
    return rc;
}

static const char SQL_INVOICE[] =
    "INSERT INTO invoices(uuid, invoice_id, period, amount_micro, updated_at, is_preview, "
    "first_seen, last_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) "
    "ON CONFLICT(uuid) DO UPDATE SET invoice_id = excluded.invoice_id, period = "
    "excluded.period, amount_micro = excluded.amount_micro, updated_at = excluded.updated_at, "
    "is_preview = excluded.is_preview, first_seen = MIN(invoices.first_seen, "
    "excluded.first_seen), last_seen = MAX(invoices.last_seen, excluded.last_seen)";

enum err store_do_upsert_invoice(struct store *s, const struct do_invoice *v, int64_t seen) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_INVOICE, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, v->uuid);
    store_bind_text(st, 2, v->id);
    store_bind_text(st, 3, v->period);
    sqlite3_bind_int64(st, 4, v->amount);
    store_bind_text(st, 5, v->updated_at);
    sqlite3_bind_int(st, 6, v->preview ? 1 : 0);
    sqlite3_bind_int64(st, 7, seen);
    return store_exec_stmt(s, st);
}

static const char SQL_HAS_ITEMS[] = "SELECT 1 FROM invoice_items WHERE invoice_uuid = ?1 LIMIT 1";

enum err store_do_invoice_has_items(struct store *s, const char *uuid, bool *has) {
    return store_exists(s, SQL_HAS_ITEMS, uuid, "invoice items", has);
}

static const char SQL_ITEMS_DEL[] = "DELETE FROM invoice_items WHERE invoice_uuid = ?1";
static const char SQL_ITEM[] =
    "INSERT INTO invoice_items(invoice_uuid, ordinal, product, resource_uuid, resource_id, "
    "group_description, description, amount_micro, duration, duration_unit, start_time, "
    "end_time, project_name, category) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";

static const char SQL_ITEMS_NOW[] =
    "SELECT product, resource_uuid, resource_id, group_description, description, amount_micro, "
    "duration, duration_unit, start_time, end_time, project_name, category "
    "FROM invoice_items WHERE invoice_uuid = ?1 ORDER BY ordinal";

static bool same_text(sqlite3_stmt *st, int col, const char *v) {
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? v && strcmp((const char *)t, v) == 0 : v == NULL;
}

static bool same_time(sqlite3_stmt *st, int col, int64_t t) {
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return t == 0;
    return t != 0 && sqlite3_column_int64(st, col) == t;
}

/* Whether the stored items of uuid are exactly v[0..n) (what the insert below
 * would write): the preview invoice is fetched every billing poll, and a
 * re-write of the same items must not mark its month changed. */
static enum err items_unchanged(struct store *s, const char *uuid, const struct do_invoice_item *v,
                                size_t n, bool *same) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_ITEMS_NOW, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, uuid);
    size_t i = 0;
    bool eq = true;
    int r;
    while (eq && (r = sqlite3_step(st)) == SQLITE_ROW) {
        if (i >= n) {
            eq = false;
            break;
        }
        const struct do_invoice_item *it = &v[i];
        eq = same_text(st, 0, it->product) && same_text(st, 1, it->resource_uuid) &&
             same_text(st, 2, it->resource_id) && same_text(st, 3, it->group_description) &&
             same_text(st, 4, it->description) && sqlite3_column_int64(st, 5) == it->amount &&
             same_text(st, 6, it->duration) && same_text(st, 7, it->duration_unit) &&
             same_time(st, 8, it->start_time) && same_time(st, 9, it->end_time) &&
             same_text(st, 10, it->project_name) && same_text(st, 11, it->category);
        i++;
    }
    if (eq && r != SQLITE_DONE)
        rc = store_fail(s, r, "invoice items");
    sqlite3_reset(st);
    *same = eq && i == n;
    return rc;
}

enum err store_do_replace_invoice_items(struct store *s, const char *uuid,
                                        const struct do_invoice_item *v, size_t n) {
    bool same = false;
    enum err rc = items_unchanged(s, uuid, v, n, &same);
    if (rc != ERR_OK || same)
        return rc;
    sqlite3_stmt *st;
    rc = store_stmt(s, SQL_ITEMS_DEL, &st);
    if (rc != ERR_OK)
        return rc;
    store_bind_text(st, 1, uuid);
    if ((rc = store_exec_stmt(s, st)) != ERR_OK)
        return rc;
    for (size_t i = 0; i < n; i++) {
        const struct do_invoice_item *it = &v[i];
        if ((rc = store_stmt(s, SQL_ITEM, &st)) != ERR_OK)
            return rc;
        store_bind_text(st, 1, uuid);
        sqlite3_bind_int64(st, 2, (int64_t)i);
        store_bind_text(st, 3, it->product);
        store_bind_text(st, 4, it->resource_uuid);
        store_bind_text(st, 5, it->resource_id);
        store_bind_text(st, 6, it->group_description);
        store_bind_text(st, 7, it->description);
        sqlite3_bind_int64(st, 8, it->amount);
        store_bind_text(st, 9, it->duration);
        store_bind_text(st, 10, it->duration_unit);
        store_bind_time(st, 11, it->start_time);
        store_bind_time(st, 12, it->end_time);
        store_bind_text(st, 13, it->project_name);
        store_bind_text(st, 14, it->category);
        if ((rc = store_exec_stmt(s, st)) != ERR_OK)
            return rc;
    }
    return ERR_OK;
}

static const char SQL_BILLING[] =
    "INSERT OR IGNORE INTO billing_history(date, type, description, amount_micro, invoice_id, "
    "invoice_uuid) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

enum err store_do_add_billing_entry(struct store *s, const struct do_billing_entry *b) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_BILLING, &st);
    if (rc != ERR_OK)
        return rc;
    sqlite3_bind_int64(st, 1, b->date);
    store_bind_text(st, 2, b->type);
    store_bind_text(st, 3, b->description ? b->description : "");
    sqlite3_bind_int64(st, 4, b->amount);
    store_bind_text(st, 5, b->invoice_id);
    store_bind_text(st, 6, b->invoice_uuid);
    return store_exec_stmt(s, st);
}

static const char SQL_BALANCE[] =
    "INSERT OR IGNORE INTO balance_snapshots(observed_at, month_to_date_balance, "
    "account_balance, month_to_date_usage, generated_at) SELECT ?1, ?2, ?3, ?4, ?5 "
    "WHERE NOT EXISTS (SELECT 1 FROM (SELECT * FROM balance_snapshots ORDER BY observed_at "
    "DESC LIMIT 1) AS l WHERE l.month_to_date_balance = ?2 AND l.account_balance = ?3 AND "
    "l.month_to_date_usage = ?4 AND l.generated_at IS ?5)";

enum err store_do_add_balance(struct store *s, const struct do_balance *b, int64_t observed_at) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_BALANCE, &st);
    if (rc != ERR_OK)
        return rc;
    sqlite3_bind_int64(st, 1, observed_at);
    sqlite3_bind_int64(st, 2, b->month_to_date_balance);
    sqlite3_bind_int64(st, 3, b->account_balance);
    sqlite3_bind_int64(st, 4, b->month_to_date_usage);
    store_bind_time(st, 5, b->generated_at);
    return store_exec_stmt(s, st);
}

/* --- reconcile loader ------------------------------------------------------------------- */

static const char SQL_RC_CLUSTER[] =
    "SELECT id, name FROM clusters WHERE (?1 IS NULL OR id = ?1) ORDER BY last_seen DESC LIMIT 1";
static const char SQL_RC_POOLS[] =
    "SELECT id, name, capacity_type FROM node_pools WHERE (?1 IS NULL OR cluster_id = ?1) "
    "ORDER BY first_seen, id";
/* A node only Kubernetes saw (it lived between two DigitalOcean polls) has no
 * price of its own: it is priced at its pool's size's price in force at its
 * creation, else its pool's rate, as the cost engine does (cost_node_rate). */
#define RC_NODE_COLS                                                                               \
    "SELECT n.name, n.do_id, n.droplet_id, n.pool_id, "                                            \
    "COALESCE(n.price_hourly_micro, (SELECT sp.price_hourly_micro FROM size_prices sp "            \
    "JOIN node_pools p ON sp.slug = p.size WHERE p.id = n.pool_id "                                \
    "AND sp.observed_at <= coalesce(n.created_at, n.ready_at) AND sp.price_hourly_micro > 0 "      \
    "ORDER BY sp.observed_at DESC LIMIT 1), (SELECT p.price_hourly_micro FROM node_pools p "       \
    "WHERE p.id = n.pool_id)), "                                                                   \
    "COALESCE(n.ready_at, n.created_at, n.first_seen), "                                           \
    "CASE WHEN n.do_deleted_at IS NULL THEN n.k8s_deleted_at WHEN n.k8s_deleted_at IS NULL THEN "  \
    "n.do_deleted_at ELSE MIN(n.do_deleted_at, n.k8s_deleted_at) END "
static const char SQL_RC_NODES[] =
    RC_NODE_COLS "FROM nodes n WHERE (?1 IS NULL OR n.pool_id IN (SELECT id FROM node_pools "
                 "WHERE cluster_id = ?1)) ORDER BY n.name";
static const char SQL_RCF_NODES[] =
    RC_NODE_COLS "FROM nodes n WHERE " STORE_IN_CLUSTERS("n.cluster") " ORDER BY n.name";
static const char SQL_RC_INVOICE[] =
    "SELECT uuid, is_preview FROM invoices WHERE period = ?1 ORDER BY is_preview, last_seen DESC "
    "LIMIT 1";
static const char SQL_RC_ITEMS[] =
    "SELECT product, resource_uuid, resource_id, group_description, description, amount_micro "
    "FROM invoice_items WHERE invoice_uuid = ?1 ORDER BY ordinal";

/* A fleet's (docs/fleet.md): every cluster of the read selection
 * (store_set_read_clusters), its pools and its nodes. */
static const char SQL_RCF_CLUSTERS[] =
    "SELECT id, name FROM clusters WHERE " STORE_IN_CLUSTERS("cluster") " ORDER BY id";
static const char SQL_RCF_POOLS[] =
    "SELECT id, name, capacity_type FROM node_pools WHERE " STORE_IN_CLUSTERS(
        "cluster") " ORDER BY first_seen, id";

static bool pool_row(sqlite3_stmt *st, void *rec, void *arg) {
    (void)arg;
    struct reconcile_pool *p = rec;
    p->id = store_column_dup(st, 0);
    p->name = store_column_dup(st, 1);
    p->capacity_type = store_column_dup(st, 2);
    return true;
}

static bool node_row(sqlite3_stmt *st, void *rec, void *arg) {
    (void)arg;
    struct reconcile_node *n = rec;
    n->name = store_column_dup(st, 0);
    n->do_id = store_column_dup(st, 1);
    n->droplet_id = store_column_dup(st, 2);
    n->pool_id = store_column_dup(st, 3);
    n->price_hourly = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
    n->start = sqlite3_column_int64(st, 5);
    n->end = sqlite3_column_int64(st, 6);
    return true;
}

static bool item_row(sqlite3_stmt *st, void *rec, void *arg) {
    (void)arg;
    struct reconcile_item *it = rec;
    it->product = store_column_dup(st, 0);
    it->resource_uuid = store_column_dup(st, 1);
    it->resource_id = store_column_dup(st, 2);
    it->group_description = store_column_dup(st, 3);
    it->description = store_column_dup(st, 4);
    it->amount = sqlite3_column_int64(st, 5);
    return true;
}

/* The statement of a fleet's rows (sql_fleet: by the read selection) or of one
 * cluster's (sql_one, ?1 = cluster_id). */
static enum err cluster_stmt(struct store *s, const char *fleet, const char *sql_fleet,
                             const char *sql_one, const char *cluster_id, sqlite3_stmt **st) {
    enum err rc = store_stmt(s, fleet ? sql_fleet : sql_one, st);
    if (rc == ERR_OK && !fleet)
        store_bind_text(*st, 1, cluster_id);
    return rc;
}

/* The fleet's clusters into in->fleet_ids / fleet_names. */
static enum err load_fleet_clusters(struct store *s, struct reconcile_input *in) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_RCF_CLUSTERS, &st);
    if (rc != ERR_OK)
        return rc;
    size_t cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        if (in->n_fleet == cap) {
            cap = cap ? cap * 2 : 4;
            in->fleet_ids = xrealloc(in->fleet_ids, cap * sizeof *in->fleet_ids);
            in->fleet_names = xrealloc(in->fleet_names, cap * sizeof *in->fleet_names);
        }
        in->fleet_ids[in->n_fleet] = store_column_dup(st, 0);
        in->fleet_names[in->n_fleet++] = store_column_dup(st, 1);
    }
    if (r != SQLITE_DONE)
        rc = store_fail(s, r, "reconcile clusters");
    sqlite3_reset(st);
    return rc;
}

/* fleet NULL: the cluster cluster_id (or the latest); else the clusters of
 * the selection fleet (",a,b,"; "" every cluster). */
static enum err reconcile_input_of(struct store *s, const char *period, const char *cluster_id,
                                   const char *fleet, struct reconcile_input *out) {
    struct reconcile_input in;
    memset(&in, 0, sizeof in);
    if (reconcile_period_bounds(period, &in.period_start, &in.period_end) != ERR_OK)
        return ERR_PARSE;
    memcpy(in.period, period, 7);
    in.period[7] = '\0';
    sqlite3_stmt *st;
    enum err rc = ERR_OK;
    if (fleet) {
        store_set_read_clusters(s, *fleet ? fleet : NULL);
        rc = load_fleet_clusters(s, &in);
    } else {
        rc = store_lookup(s, SQL_RC_CLUSTER, cluster_id, "reconcile cluster", &st);
        if (rc == ERR_NOTFOUND) {
            rc = ERR_OK; /* never seen: cluster_id as given, below */
        } else if (rc == ERR_OK) {
            in.cluster_id = store_column_dup(st, 0);
            in.cluster_name = store_column_dup(st, 1);
            sqlite3_reset(st);
        }
    }
    if (rc != ERR_OK)
        goto out;
    if (!fleet && !in.cluster_id && cluster_id)
        in.cluster_id = xstrdup(cluster_id);

    if ((rc = cluster_stmt(s, fleet, SQL_RCF_POOLS, SQL_RC_POOLS, in.cluster_id, &st)) != ERR_OK)
        goto out;
    in.pools =
        store_rows(s, st, sizeof *in.pools, pool_row, NULL, &in.n_pools, "reconcile pools", &rc);
    if (rc != ERR_OK)
        goto out;
    if ((rc = cluster_stmt(s, fleet, SQL_RCF_NODES, SQL_RC_NODES, in.cluster_id, &st)) != ERR_OK)
        goto out;
    in.nodes =
        store_rows(s, st, sizeof *in.nodes, node_row, NULL, &in.n_nodes, "reconcile nodes", &rc);
    if (rc != ERR_OK)
        goto out;

    rc = store_lookup(s, SQL_RC_INVOICE, in.period, "reconcile invoice", &st);
    if (rc == ERR_NOTFOUND) {
        rc = ERR_OK; /* no invoice (yet) for the period */
    } else if (rc == ERR_OK) {
        in.invoice_uuid = store_column_dup(st, 0);
        in.invoice_preview = sqlite3_column_int(st, 1) != 0;
        sqlite3_reset(st);
    }
    if (rc != ERR_OK || !in.invoice_uuid)
        goto out;

    if ((rc = store_stmt(s, SQL_RC_ITEMS, &st)) != ERR_OK)
        goto out;
    store_bind_text(st, 1, in.invoice_uuid);
    in.items =
        store_rows(s, st, sizeof *in.items, item_row, NULL, &in.n_items, "reconcile items", &rc);
out:
    if (rc != ERR_OK) {
        reconcile_input_release(&in);
        return rc;
    }
    *out = in;
    return ERR_OK;
}

enum err store_do_reconcile_input(struct store *s, const char *period, const char *cluster_id,
                                  struct reconcile_input *out) {
    return reconcile_input_of(s, period, cluster_id, NULL, out);
}

static enum err reconcile_of(struct store *s, const char *period, const char *cluster_id,
                             const char *fleet, int64_t now, struct reconcile_result *out) {
    struct reconcile_input in;
    enum err rc = reconcile_input_of(s, period, cluster_id, fleet, &in);
    if (rc != ERR_OK)
        return rc;
    rc = store_insights_load(s, in.period_start, in.period_end, &in.insights, &in.n_insights);
    if (rc == ERR_OK)
        rc = reconcile_compute(&in, now, out);
    reconcile_input_release(&in);
    return rc;
}

enum err store_do_has_invoice(struct store *s, const char *period, bool *out) {
    *out = false;
    return store_exists(s, SQL_RC_INVOICE, period, "reconcile invoice", out);
}

enum err store_do_reconcile(struct store *s, const char *period, const char *cluster_id,
                            int64_t now, struct reconcile_result *out) {
    return reconcile_of(s, period, cluster_id, NULL, now, out);
}

enum err store_do_reconcile_fleet(struct store *s, const char *period, const char *clusters,
                                  int64_t now, struct reconcile_result *out) {
    return reconcile_of(s, period, NULL, clusters ? clusters : "", now, out);
}
