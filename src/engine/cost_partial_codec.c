/* cost_partial_codec — a partial as bytes (contract in cost_partial.h).
 * Layout: "SLP1", then int64 little-endian fields and strings as a uint32 length
 * and the bytes, in the order of struct cost_partial, the reclaim evidence last; every count is
 * checked against the bytes left before anything is allocated. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "engine/cost_partial.h"

#define MAGIC "SLP1"
#define MAX_STR 4096

static enum err put64(struct buf *b, int64_t v) {
    unsigned char c[8];
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++)
        c[i] = (unsigned char)(u >> (8 * i));
    return buf_append(b, c, 8);
}

static enum err putstr(struct buf *b, const char *s) {
    size_t n = strlen(s);
    if (n > MAX_STR)
        return ERR_TOOBIG;
    unsigned char c[4] = {(unsigned char)n, (unsigned char)(n >> 8), 0, 0};
    enum err rc = buf_append(b, c, 4);
    return rc == ERR_OK ? buf_append(b, s, n) : rc;
}

enum err cost_partial_encode(const struct cost_partial *p, struct buf *out) {
    enum err rc = buf_append(out, MAGIC, 4);
    int64_t head[] = {p->from,
                      p->to,
                      p->open_attempts,
                      p->unscheduled,
                      (int64_t)p->n_nodes,
                      (int64_t)p->n_pools,
                      (int64_t)p->n_cf,
                      (int64_t)p->n_restore,
                      (int64_t)p->n_events,
                      (int64_t)p->n_running};
    for (size_t i = 0; rc == ERR_OK && i < sizeof head / sizeof head[0]; i++)
        rc = put64(out, head[i]);
    for (int c = 0; rc == ERR_OK && c < COST_NCONFIG; c++) {
        const struct cost_part_config *g = &p->cfg[c];
        int64_t v[] = {g->n.succeeded, g->n.failed,        g->n.running,    g->n.attempts,
                       g->n.retries,   g->n.interruptions, g->n.duplicates, g->n.dup_secs,
                       g->cf_tasks,    g->cf_reported,     g->cf_runtime};
        for (size_t i = 0; rc == ERR_OK && i < sizeof v / sizeof v[0]; i++)
            rc = put64(out, v[i]);
    }
    for (size_t i = 0; rc == ERR_OK && i < p->n_nodes; i++) {
        rc = putstr(out, p->nodes[i].name);
        for (int c = 0; rc == ERR_OK && c < COST_PART_NW; c++)
            rc = put64(out, p->nodes[i].w[c]);
    }
    for (size_t i = 0; rc == ERR_OK && i < p->n_pools; i++) {
        const struct cost_part_pool *q = &p->pools[i];
        rc = putstr(out, q->id);
        for (int c = 0; rc == ERR_OK && c < COST_NCONFIG; c++)
            rc = put64(out, q->held[c]);
        if (rc == ERR_OK)
            rc = put64(out, q->ckpt_sum);
        if (rc == ERR_OK)
            rc = put64(out, q->ckpt_n);
    }
    for (size_t i = 0; rc == ERR_OK && i < p->n_cf; i++) {
        const struct cost_part_cf *e = &p->cf[i];
        rc = putstr(out, e->pool);
        int64_t v[] = {e->config, e->seg, e->work, e->wg, e->n};
        for (size_t k = 0; rc == ERR_OK && k < sizeof v / sizeof v[0]; k++)
            rc = put64(out, v[k]);
    }
    for (size_t i = 0; rc == ERR_OK && i < p->n_restore; i++) {
        rc = put64(out, p->restore[i].config);
        if (rc == ERR_OK)
            rc = put64(out, p->restore[i].value);
        if (rc == ERR_OK)
            rc = put64(out, p->restore[i].n);
    }
    for (size_t i = 0; rc == ERR_OK && i < p->n_running; i++) {
        rc = putstr(out, p->running[i].uid);
        if (rc == ERR_OK)
            rc = put64(out, p->running[i].config);
    }
    /* last: a reader that needs no reclaim evidence stops before it */
    for (size_t i = 0; rc == ERR_OK && i < p->n_events; i++) {
        const struct cost_part_event *e = &p->events[i];
        rc = putstr(out, e->pool);
        if (rc == ERR_OK)
            rc = putstr(out, e->task);
        if (rc == ERR_OK)
            rc = putstr(out, e->attempt);
        int64_t v[] = {e->order, e->lost, e->resumed, e->disruption_at, e->not_ready_at};
        for (size_t k = 0; rc == ERR_OK && k < sizeof v / sizeof v[0]; k++)
            rc = put64(out, v[k]);
    }
    return rc;
}

struct rd {
    const unsigned char *p;
    size_t left;
    bool bad;
};

static int64_t get64(struct rd *r) {
    if (r->bad || r->left < 8) {
        r->bad = true;
        return 0;
    }
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    r->left -= 8;
    return (int64_t)u;
}

static char *getstr(struct rd *r) {
    if (r->bad || r->left < 4) {
        r->bad = true;
        return NULL;
    }
    size_t n =
        (size_t)r->p[0] | (size_t)r->p[1] << 8 | (size_t)r->p[2] << 16 | (size_t)r->p[3] << 24;
    if (n > MAX_STR || r->left - 4 < n || memchr(r->p + 4, '\0', n)) {
        r->bad = true;
        return NULL;
    }
    char *s = xmalloc(n + 1);
    memcpy(s, r->p + 4, n);
    s[n] = '\0';
    r->p += 4 + n;
    r->left -= 4 + n;
    return s;
}

/* A count of entries of at least min_bytes each that fits in what is left. */
static size_t get_count(struct rd *r, int64_t v, size_t min_bytes) {
    if (r->bad || v < 0 || (uint64_t)v > r->left / min_bytes) {
        r->bad = true;
        return 0;
    }
    return (size_t)v;
}

/* A configuration index; one out of range marks r bad (and reads as -1). */
static int32_t get_config(struct rd *r) {
    int64_t c = get64(r);
    if (c >= 0 && c < COST_NCONFIG)
        return (int32_t)c;
    r->bad = true;
    return -1;
}

/* Room for the n entries of sz bytes a list decodes into (at least one). */
static void *alloc_entries(size_t n, size_t sz, size_t *cap) {
    *cap = n ? n : 1;
    return xcalloc(*cap, sz);
}

enum err cost_partial_decode(const void *data, size_t len, bool events, struct cost_partial **out) {
    if (!data || len < 4 || memcmp(data, MAGIC, 4) != 0)
        return ERR_INVAL;
    struct rd r = {(const unsigned char *)data + 4, len - 4, false};
    int64_t from = get64(&r), to = get64(&r);
    struct cost_partial *p = cost_partial_new(from, to);
    p->open_attempts = get64(&r);
    p->unscheduled = get64(&r);
    int64_t cnt[6];
    for (int i = 0; i < 6; i++)
        cnt[i] = get64(&r);
    for (int c = 0; c < COST_NCONFIG; c++) {
        struct cost_part_config *g = &p->cfg[c];
        int64_t *f[] = {&g->n.succeeded, &g->n.failed,        &g->n.running,    &g->n.attempts,
                        &g->n.retries,   &g->n.interruptions, &g->n.duplicates, &g->n.dup_secs,
                        &g->cf_tasks,    &g->cf_reported,     &g->cf_runtime};
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
            *f[i] = get64(&r);
    }
    size_t n = get_count(&r, cnt[0], 4 + 8 * COST_PART_NW);
    p->nodes = alloc_entries(n, sizeof *p->nodes, &p->cap_nodes);
    for (size_t i = 0; i < n && !r.bad; i++) {
        struct cost_part_node *e = &p->nodes[p->n_nodes];
        e->name = getstr(&r);
        for (int c = 0; c < COST_PART_NW; c++)
            e->w[c] = get64(&r);
        if (e->name)
            p->n_nodes++;
    }
    n = get_count(&r, cnt[1], 4 + 8 * (COST_NCONFIG + 2));
    p->pools = alloc_entries(n, sizeof *p->pools, &p->cap_pools);
    for (size_t i = 0; i < n && !r.bad; i++) {
        struct cost_part_pool *e = &p->pools[p->n_pools];
        e->id = getstr(&r);
        for (int c = 0; c < COST_NCONFIG; c++)
            e->held[c] = get64(&r);
        e->ckpt_sum = get64(&r);
        e->ckpt_n = get64(&r);
        if (e->id)
            p->n_pools++;
    }
    n = get_count(&r, cnt[2], 4 + 8 * 5);
    p->cf = alloc_entries(n, sizeof *p->cf, &p->cap_cf);
    for (size_t i = 0; i < n && !r.bad; i++) {
        struct cost_part_cf *e = &p->cf[p->n_cf];
        e->pool = getstr(&r);
        e->config = get_config(&r);
        e->seg = get64(&r);
        e->work = get64(&r);
        e->wg = get64(&r);
        e->n = get64(&r);
        if (e->pool)
            p->n_cf++;
    }
    n = get_count(&r, cnt[3], 8 * 3);
    p->restore = alloc_entries(n, sizeof *p->restore, &p->cap_restore);
    for (size_t i = 0; i < n && !r.bad; i++) {
        struct cost_part_restore *e = &p->restore[p->n_restore++];
        e->config = get_config(&r);
        e->value = get64(&r);
        e->n = get64(&r);
        if (e->n < 0)
            r.bad = true;
    }
    n = get_count(&r, cnt[5], 4 + 8);
    p->running = alloc_entries(n, sizeof *p->running, &p->cap_running);
    for (size_t i = 0; i < n && !r.bad; i++) {
        struct cost_part_task *e = &p->running[p->n_running];
        e->uid = getstr(&r);
        e->config = get_config(&r);
        if (e->uid)
            p->n_running++;
    }
    n = events ? get_count(&r, cnt[4], 3 * 4 + 8 * 5) : 0;
    p->events = alloc_entries(n, sizeof *p->events, &p->cap_events);
    for (size_t i = 0; i < n && !r.bad; i++) {
        struct cost_part_event *e = &p->events[p->n_events];
        e->pool = getstr(&r);
        e->task = getstr(&r);
        e->attempt = getstr(&r);
        e->order = get64(&r);
        e->lost = get64(&r);
        e->resumed = get64(&r);
        e->disruption_at = get64(&r);
        e->not_ready_at = get64(&r);
        p->n_events++; /* freed below with the others when incomplete */
    }
    if (!events)
        r.left = 0; /* the evidence section is not read */
    if (r.bad || r.left != 0) {
        cost_partial_free(p);
        return ERR_INVAL;
    }
    *out = p;
    return ERR_OK;
}
