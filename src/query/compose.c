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

/* Which days are stored under their current version (nothing decoded). */
struct presence {
    int64_t d0, nd;
    const int64_t (*version)[2];
    bool *have;
    int64_t n;
};

static void mark_row(void *arg, const struct store_partial_row *row) {
    struct presence *p = arg;
    int64_t i = row->day - p->d0;
    if (i < 0 || i >= p->nd || p->have[i])
        return;
    if (row->version[0] == p->version[i][0] && row->version[1] == p->version[i][1]) {
        p->have[i] = true;
        p->n++;
    }
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
 * bodies are not held in memory at once). bodies[2 i]: day i without its
 * reclaim evidence, bodies[2 i + 1]: the whole day, empty when it has none
 * (schema/012). */
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
    for (size_t i = 0; i < 2 * k->n; i++)
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
            k->rows[i].body = k->bodies[2 * i].data;
            k->rows[i].len = k->bodies[2 * i].len;
            k->rows[i].events = k->bodies[2 * i + 1].len ? k->bodies[2 * i + 1].data : NULL;
            k->rows[i].events_len = k->bodies[2 * i + 1].len;
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
    for (size_t i = 0; i < 2 * k->n; i++)
        buf_release(&k->bodies[i]);
    k->n = 0;
}

/* Adds closed day `day` (partial p, computed under `version`) to the batch,
 * writing the batch when full. */
static void keep_add(struct keep *k, struct cost_partial *p, int64_t day, const int64_t version[2],
                     struct compose_stats *st) {
    k->rows[k->n] = (struct store_partial_row){.day = day, .version = {version[0], version[1]}};
    struct buf *b = &k->bodies[2 * k->n];
    buf_init(&b[0], 0);
    buf_init(&b[1], 0);
    size_t n_events = p->n_events;
    p->n_events = 0; /* the sums alone */
    enum err rc = cost_partial_encode(p, &b[0]);
    p->n_events = n_events;
    if (rc == ERR_OK && n_events)
        rc = cost_partial_encode(p, &b[1]);
    if (rc != ERR_OK) {
        buf_release(&b[0]);
        buf_release(&b[1]);
        return;
    }
    if (++k->n == KEEP_BATCH)
        keep_write(k, st);
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

/* Adds part p (taken and freed) to the sum. */
static void add_part(const struct stored *s, struct cost_partial *sum, struct cost_partial *p) {
    if (!s->events)
        drop_events(p);
    cost_partial_take(sum, p);
    cost_partial_free(p);
}

/* Captures [a, b) (one load) and adds it to the sum; an empty span adds nothing. */
static enum err add_span(struct store *db, const struct calc_settings *cfg, const struct base *b,
                         const struct stored *s, int64_t from, int64_t to, int64_t now,
                         struct cost_partial *sum) {
    if (to <= from)
        return ERR_OK;
    struct cost_partial *p = NULL;
    enum err rc = capture(db, cfg, b, from, to, now, &p);
    if (rc == ERR_OK)
        add_part(s, sum, p);
    return rc;
}

/* The parts of the window: its whole days (stored, or computed one by one and
 * kept when k is set, else each run of missing days captured in one load, as a
 * direct computation of that run would) and its edges. */
static enum err collect(struct store *db, const struct calc_settings *cfg, const struct base *b,
                        const struct cost_query *q, int64_t now, struct stored *s, struct keep *k,
                        struct cost_partial *sum, struct compose_stats *st) {
    enum err rc = ERR_OK;
    int64_t run = -1; /* first missing day of the current run (no k) */
    for (int64_t i = 0; rc == ERR_OK && i <= s->nd; i++) {
        struct cost_partial *p = i < s->nd ? s->day[i] : NULL;
        if (!k && run >= 0 && (p || i == s->nd)) { /* a run of missing days ends */
            rc = add_span(db, cfg, b, s, (s->d0 + run) * STORE_DAY, (s->d0 + i) * STORE_DAY, now,
                          sum);
            st->computed += i - run;
            run = -1;
        }
        if (i == s->nd || rc != ERR_OK)
            break;
        if (p) {
            st->stored++;
        } else if (!k) {
            if (run < 0)
                run = i;
            continue;
        } else {
            int64_t a = (s->d0 + i) * STORE_DAY;
            if ((rc = capture(db, cfg, b, a, a + STORE_DAY, now, &p)) != ERR_OK)
                break;
            st->computed++;
            if (cost_partial_closed(p, now))
                keep_add(k, p, s->d0 + i, s->version[i], st);
        }
        add_part(s, sum, p);
        s->day[i] = NULL;
    }
    if (rc == ERR_OK)
        rc = add_span(db, cfg, b, s, q->from, s->d0 * STORE_DAY, now, sum);
    if (rc == ERR_OK)
        rc = add_span(db, cfg, b, s, (s->d0 + s->nd) * STORE_DAY, q->to, now, sum);
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

/* The window composed: whole days stored under their version are read; the
 * others are computed one by one and kept (keep_days) or captured a run at a
 * time and not kept (then ERR_NOTFOUND when no day is stored: the caller's
 * direct computation is the same work without the composing). */
static enum err compose_window(struct store *db, struct store *writer, pthread_mutex_t *writer_lock,
                               const struct calc_settings *cfg, const struct cost_query *q,
                               bool keep_days, struct calc *out, struct compose_stats *stats) {
    memset(out, 0, sizeof *out);
    struct compose_stats st = {0};
    if (stats)
        *stats = st;
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
                     xcalloc(2 * KEEP_BATCH, sizeof *k.bodies),
                     0,
                     writer,
                     writer_lock,
                     dflt};
    struct cost_partial *sum = cost_partial_new(q->from, q->from);
    st.days = (int64_t)nd;
    struct base b = {0};
    struct store_cost_opts o = calc_store_opts(cfg);
    enum err rc = store_day_versions(db, d0, d1, version);
    bool any = keep_days;
    if (rc == ERR_OK && !keep_days) { /* which days are stored, before loading anything */
        struct presence pr = {d0, (int64_t)nd, (const int64_t(*)[2])version,
                              xcalloc(nd, sizeof(bool)), 0};
        rc = store_partials_read_versions(db, d0, d1, cost_engine_rev, dflt, mark_row, &pr);
        any = pr.n > 0;
        free(pr.have);
        if (rc == ERR_OK && !any)
            rc = ERR_NOTFOUND;
    }
    if (rc == ERR_OK)
        rc = store_cost_load_nodes(db, q->from, q->to, &o, &b.data);
    if (rc == ERR_OK && b.data->in.n_nodes)
        rc = cost_index_new(&b.data->nodes[0].name, sizeof b.data->nodes[0], b.data->in.n_nodes,
                            &b.node_ix);
    if (rc == ERR_OK) {
        s.events = cost_reclaim_possible(&b.data->in, q);
        rc = store_partials_read(db, d0, d1, cost_engine_rev, dflt, s.events, take_row, &s);
    }
    if (rc == ERR_OK)
        rc = collect(db, cfg, &b, q, now, &s, keep_days ? &k : NULL, sum, &st);
    if (rc == ERR_OK)
        keep_write(&k, &st);
    if (rc == ERR_OK) {
        cost_partial_normalize(sum);
        struct cost_query cq = *q;
        cq.now = now;
        rc = calc_compose(db, b.data, b.node_ix, cfg, &cq, sum, out); /* takes b.data */
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

enum err compose_run(struct store *db, struct store *writer, pthread_mutex_t *writer_lock,
                     const struct calc_settings *cfg, const struct cost_query *q, struct calc *out,
                     struct compose_stats *stats) {
    return compose_window(db, writer, writer_lock, cfg, q, true, out, stats);
}

enum err compose_stored(struct store *db, const struct calc_settings *cfg,
                        const struct cost_query *q, struct calc *out, struct compose_stats *stats) {
    return compose_window(db, NULL, NULL, cfg, q, false, out, stats);
}

/* ---- the background pass (compose_keep_days) ------------------------------- */

/* A day computed and found not closed (a running task or an open attempt): not
 * computed again until its version moves (the task's completion marks it). */
struct compose_keeper {
    int64_t (*skip)[3]; /* day, version[0], version[1] */
    size_t n, cap;
    /* the versions of [seen_d0, seen_d0 + n_seen) at the last pass, each with
     * the monotonic time it was first seen at (a day is computed only once its
     * version has held settle_ms: while rows keep coming it would be replaced) */
    int64_t seen_d0;
    int64_t (*seen)[3]; /* version[0], version[1], since (ms) */
    size_t n_seen;
};

struct compose_keeper *compose_keeper_new(void) {
    return xcalloc(1, sizeof(struct compose_keeper));
}

void compose_keeper_free(struct compose_keeper *kp) {
    if (!kp)
        return;
    free(kp->skip);
    free(kp->seen);
    free(kp);
}

static int64_t *skipped(struct compose_keeper *kp, int64_t day) {
    for (size_t i = 0; i < kp->n; i++)
        if (kp->skip[i][0] == day)
            return kp->skip[i];
    return NULL;
}

static void skip_day(struct compose_keeper *kp, int64_t day, const int64_t version[2]) {
    int64_t *e = skipped(kp, day);
    if (!e) {
        if (kp->n == kp->cap) {
            if (kp->cap >= 4 * COMPOSE_MAX_DAYS) /* bounded: forget the oldest entries */
                kp->n = 0;
            else {
                kp->cap = kp->cap ? kp->cap * 2 : 16;
                kp->skip = xrealloc(kp->skip, kp->cap * sizeof *kp->skip);
            }
        }
        e = kp->skip[kp->n++];
    }
    e[0] = day;
    e[1] = version[0];
    e[2] = version[1];
}

/* Updates kp's seen versions to [d0, d0 + nd) and fills since[i]: when day
 * d0 + i's current version was first seen (mono_ms when it is new). */
static void settle(struct compose_keeper *kp, int64_t d0, size_t nd, const int64_t (*version)[2],
                   int64_t mono_ms, int64_t *since) {
    int64_t(*seen)[3] = xcalloc(nd, sizeof *seen);
    for (size_t i = 0; i < nd; i++) {
        int64_t j = d0 + (int64_t)i - kp->seen_d0;
        const int64_t *old = j >= 0 && (size_t)j < kp->n_seen ? kp->seen[j] : NULL;
        bool same = old && old[0] == version[i][0] && old[1] == version[i][1];
        seen[i][0] = version[i][0];
        seen[i][1] = version[i][1];
        seen[i][2] = same ? old[2] : mono_ms;
        since[i] = seen[i][2];
    }
    free(kp->seen);
    kp->seen = seen;
    kp->seen_d0 = d0;
    kp->n_seen = nd;
}

enum err compose_keep_days(struct compose_keeper *kp, struct store *db, struct store *writer,
                           pthread_mutex_t *writer_lock, const struct calc_settings *cfg,
                           int64_t d0, int64_t d1, int64_t now, int64_t max_days, int64_t mono_ms,
                           int64_t settle_ms, struct compose_stats *stats) {
    struct compose_stats st = {0};
    if (stats)
        *stats = st;
    if (d1 > floor_day(now))
        d1 = floor_day(now); /* only days ended by now can be closed */
    if (d0 < d1 - COMPOSE_MAX_DAYS)
        d0 = d1 - COMPOSE_MAX_DAYS;
    if (d0 < 1)
        d0 = 1;
    if (d1 <= d0 || max_days < 1)
        return ERR_OK;
    char dflt[64];
    settings_key(cfg, dflt, sizeof dflt);
    size_t nd = (size_t)(d1 - d0);
    int64_t(*version)[2] = xcalloc(nd, sizeof *version);
    struct presence pr = {d0, (int64_t)nd, (const int64_t(*)[2])version, xcalloc(nd, sizeof(bool)),
                          0};
    int64_t *pick =
        xcalloc((size_t)(max_days < (int64_t)nd ? max_days : (int64_t)nd), sizeof *pick);
    size_t np = 0;
    struct keep k = {xcalloc(KEEP_BATCH, sizeof *k.rows),
                     xcalloc(2 * KEEP_BATCH, sizeof *k.bodies),
                     0,
                     writer,
                     writer_lock,
                     dflt};
    struct base b = {0};
    st.days = (int64_t)nd;
    enum err rc = store_day_versions(db, d0, d1, version);
    if (rc == ERR_OK)
        rc = store_partials_read_versions(db, d0, d1, cost_engine_rev, dflt, mark_row, &pr);
    st.stored = pr.n;
    int64_t *since = xcalloc(nd, sizeof *since);
    if (rc == ERR_OK)
        settle(kp, d0, nd, (const int64_t(*)[2])version, mono_ms, since);
    /* newest first: the days a dashboard asks for first */
    for (int64_t i = (int64_t)nd - 1; rc == ERR_OK && i >= 0 && (int64_t)np < max_days; i--) {
        if (pr.have[i] || mono_ms - since[i] < settle_ms)
            continue;
        const int64_t *e = skipped(kp, d0 + i);
        if (e && e[1] == version[i][0] && e[2] == version[i][1])
            continue;
        pick[np++] = i;
    }
    struct store_cost_opts o = calc_store_opts(cfg);
    if (rc == ERR_OK && np) /* the picked days' nodes, once (pick is descending) */
        rc = store_cost_load_nodes(db, (d0 + pick[np - 1]) * STORE_DAY,
                                   (d0 + pick[0] + 1) * STORE_DAY, &o, &b.data);
    if (rc == ERR_OK && np && b.data->in.n_nodes)
        rc = cost_index_new(&b.data->nodes[0].name, sizeof b.data->nodes[0], b.data->in.n_nodes,
                            &b.node_ix);
    for (size_t j = 0; rc == ERR_OK && j < np; j++) {
        int64_t i = pick[j], a = (d0 + i) * STORE_DAY;
        struct cost_partial *p = NULL;
        if ((rc = capture(db, cfg, &b, a, a + STORE_DAY, now, &p)) != ERR_OK)
            break;
        st.computed++;
        if (!cost_partial_closed(p, now))
            skip_day(kp, d0 + i, version[i]);
        else
            keep_add(&k, p, d0 + i, version[i], &st);
        cost_partial_free(p);
    }
    if (rc == ERR_OK)
        keep_write(&k, &st);
    cost_index_free(b.node_ix);
    store_cost_free(b.data);
    keep_release(&k);
    free(since);
    free(pick);
    free(pr.have);
    free(version);
    if (stats)
        *stats = st;
    return rc;
}
