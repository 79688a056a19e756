/* compose — a window from its days' partial sums (contract in compose.h). */
#include "query/compose.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "engine/cost_partial.h"
#include "store/store_cost.h"
#include "store/store_partial.h"
#include "store/store_read.h"

struct stored {
    int64_t d0, nd;
    const int64_t (*version)[2];
    struct cost_partial **day;
    bool events; /* a reclaim is possible in the window: read the evidence */
};

/* A stored day is used only under the day's current change version. */
static void take_row(void *arg, const struct store_partial_row *row) {
    struct stored *s = arg;
    int64_t i = row->day - s->d0;
    if (i < 0 || i >= s->nd || s->day[i])
        return;
    if (row->version[0] != s->version[i][0] || row->version[1] != s->version[i][1])
        return;
    if (cost_partial_decode(row->body, row->len, s->events, &s->day[i]) != ERR_OK)
        s->day[i] = NULL; /* unreadable: computed again and replaced */
}

/* The window's pools, nodes and prices, loaded once: every part's tasks are
 * read over them, and the window is composed over them. */
struct base {
    struct store_cost_data *data;
    struct cost_index *node_ix;
};

/* The partial of [from, to) from its own rows. */
static enum err capture(struct store *db, const struct calc_settings *cfg, const struct base *b,
                        int64_t from, int64_t to, int64_t now, struct cost_partial **out) {
    struct store_cost_data *d = NULL;
    struct store_cost_opts o = calc_store_opts(cfg);
    enum err rc = store_cost_load_tasks(db, from, to, &o, b->data, b->node_ix, &d);
    if (rc != ERR_OK)
        return rc;
    struct cost_query pq = {.from = from, .to = to, .now = now};
    rc = cost_partial_capture(&d->in, &pq, out);
    store_cost_free(d);
    return rc;
}

/* Closed days computed now, written in batches of KEEP_BATCH (a year's
 * bodies are not held in memory at once). */
#define KEEP_BATCH 16
struct keep {
    struct store_partial_row *rows;
    struct buf *bodies;
    size_t n;
    struct store *writer; /* NULL: nothing is kept */
    pthread_mutex_t *lock;
    const char *key;
};

static void keep_release(struct keep *k) {
    for (size_t i = 0; i < k->n; i++)
        buf_release(&k->bodies[i]);
    free(k->rows);
    free(k->bodies);
}

static void keep_write(struct keep *k, struct compose_stats *st) {
    struct store *writer = k->writer;
    pthread_mutex_t *lock = k->lock;
    const char *dflt = k->key;
    if (!k->n)
        return;
    if (writer) { /* without a writer (read-only use) the days are only dropped */
        for (size_t i = 0; i < k->n; i++) {
            k->rows[i].body = k->bodies[i].data;
            k->rows[i].len = k->bodies[i].len;
        }
        if (lock)
            pthread_mutex_lock(lock);
        enum err rc = store_partials_put(writer, k->rows, k->n, cost_engine_rev, dflt);
        if (lock)
            pthread_mutex_unlock(lock);
        if (rc == ERR_OK)
            st->kept += (int64_t)k->n;
        else /* derived data: the next request computes the days again */
            log_msg(LOG_WARN, "compose: cannot keep %zu days' partial sums: %s", k->n, err_str(rc));
    }
    for (size_t i = 0; i < k->n; i++)
        buf_release(&k->bodies[i]);
    k->n = 0;
}

/* A part's reclaim evidence, dropped before summing when the window can hold
 * no reclaim (it would only be carried and skipped). */
static void drop_events(struct cost_partial *p) {
    for (size_t i = 0; i < p->n_events; i++) {
        free(p->events[i].pool);
        free(p->events[i].task);
        free(p->events[i].attempt);
    }
    p->n_events = 0;
}

static int64_t floor_day(int64_t t) {
    return t >= 0 ? t / STORE_DAY : -((-t + STORE_DAY - 1) / STORE_DAY);
}

/* The parts of the window: its whole days (stored or computed) and its edges. */
static enum err collect(struct store *db, const struct calc_settings *cfg, const struct base *b,
                        const struct cost_query *q, int64_t now, struct stored *s, struct keep *k,
                        struct cost_partial *sum, struct compose_stats *st) {
    enum err rc = ERR_OK;
    for (int64_t i = 0; rc == ERR_OK && i < s->nd; i++) {
        struct cost_partial *p = s->day[i];
        if (p) {
            st->stored++;
        } else {
            int64_t a = (s->d0 + i) * STORE_DAY;
            if ((rc = capture(db, cfg, b, a, a + STORE_DAY, now, &p)) != ERR_OK)
                break;
            st->computed++;
            if (cost_partial_closed(p, now)) {
                k->rows[k->n] = (struct store_partial_row){
                    .day = s->d0 + i, .version = {s->version[i][0], s->version[i][1]}};
                buf_init(&k->bodies[k->n], 0);
                if (cost_partial_encode(p, &k->bodies[k->n]) == ERR_OK)
                    k->n++;
                else
                    buf_release(&k->bodies[k->n]);
                if (k->n == KEEP_BATCH)
                    keep_write(k, st);
            }
        }
        if (!s->events)
            drop_events(p);
        cost_partial_take(sum, p);
        cost_partial_free(p);
        s->day[i] = NULL;
    }
    int64_t edge[2][2] = {{q->from, s->d0 * STORE_DAY}, {(s->d0 + s->nd) * STORE_DAY, q->to}};
    for (int e = 0; rc == ERR_OK && e < 2; e++) {
        if (edge[e][1] <= edge[e][0])
            continue;
        struct cost_partial *p = NULL;
        if ((rc = capture(db, cfg, b, edge[e][0], edge[e][1], now, &p)) != ERR_OK)
            break;
        if (!s->events)
            drop_events(p);
        cost_partial_take(sum, p);
        cost_partial_free(p);
    }
    return rc;
}

/* What a stored partial depends on besides the rows and the engine: the
 * default configuration, and the --spot-label pairs (a pool's capacity decides
 * which losses are reclaim evidence) as an FNV-1a hash, only when configured
 * (so partials stored before the labels joined the key stay valid). */
static void settings_key(const struct calc_settings *cfg, char *out, size_t cap) {
    const char *dflt = cost_config_name(calc_default_config(cfg));
    if (!cfg || !cfg->n_spot_labels) {
        snprintf(out, cap, "%s", dflt);
        return;
    }
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < cfg->n_spot_labels; i++) {
        const char *parts[2] = {cfg->spot_labels[i].key, cfg->spot_labels[i].value};
        for (int k = 0; k < 2; k++) {
            for (const char *c = parts[k] ? parts[k] : ""; *c; c++)
                h = (h ^ (unsigned char)*c) * UINT64_C(1099511628211);
            h = (h ^ (unsigned char)(k ? '\n' : '=')) * UINT64_C(1099511628211);
        }
    }
    snprintf(out, cap, "%s;spot-labels=%016llx", dflt, (unsigned long long)h);
}

enum err compose_run(struct store *db, struct store *writer, pthread_mutex_t *writer_lock,
                     const struct calc_settings *cfg, const struct cost_query *q, struct calc *out,
                     struct compose_stats *stats) {
    memset(out, 0, sizeof *out);
    struct compose_stats st = {0};
    if (q->experiment || q->ns || q->want_attempts || q->from >= q->to || q->from < 0)
        return ERR_NOTFOUND;
    int64_t d0 = floor_day(q->from + STORE_DAY - 1), d1 = floor_day(q->to);
    if (d1 - d0 < COMPOSE_MIN_DAYS || d1 - d0 > COMPOSE_MAX_DAYS)
        return ERR_NOTFOUND;
    int64_t now = q->now < q->from ? q->from : q->now; /* as calc_run computes it */
    char dflt[64];
    settings_key(cfg, dflt, sizeof dflt);
    size_t nd = (size_t)(d1 - d0);
    int64_t(*version)[2] = xcalloc(nd, sizeof *version);
    struct stored s = {d0, (int64_t)nd, (const int64_t(*)[2])version, xcalloc(nd, sizeof(void *)),
                       false};
    struct keep k = {xcalloc(KEEP_BATCH, sizeof *k.rows),
                     xcalloc(KEEP_BATCH, sizeof *k.bodies),
                     0,
                     writer,
                     writer_lock,
                     dflt};
    struct cost_partial *sum = cost_partial_new(q->from, q->from);
    st.days = (int64_t)nd;
    struct base b = {0};
    struct store_cost_opts o = calc_store_opts(cfg);
    enum err rc = store_day_versions(db, d0, d1, version);
    if (rc == ERR_OK)
        rc = store_cost_load_nodes(db, q->from, q->to, &o, &b.data);
    if (rc == ERR_OK && b.data->in.n_nodes)
        rc = cost_index_new(&b.data->nodes[0].name, sizeof b.data->nodes[0], b.data->in.n_nodes,
                            &b.node_ix);
    if (rc == ERR_OK) {
        s.events = cost_reclaim_possible(&b.data->in, q);
        rc = store_partials_read(db, d0, d1, cost_engine_rev, dflt, take_row, &s);
    }
    if (rc == ERR_OK)
        rc = collect(db, cfg, &b, q, now, &s, &k, sum, &st);
    if (rc == ERR_OK)
        keep_write(&k, &st);
    if (rc == ERR_OK) {
        cost_partial_normalize(sum);
        struct cost_query cq = *q;
        cq.now = now;
        rc = calc_compose(db, b.data, cfg, &cq, sum, out); /* takes b.data */
        b.data = NULL;
    }
    cost_index_free(b.node_ix);
    store_cost_free(b.data);
    for (size_t i = 0; i < nd; i++)
        cost_partial_free(s.day[i]);
    free(s.day);
    free(version);
    keep_release(&k);
    cost_partial_free(sum);
    if (stats)
        *stats = st;
    return rc;
}
