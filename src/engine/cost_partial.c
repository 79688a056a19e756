/* cost_partial — capture, merge and compose of a window's additive numerators
 * (contract in cost_partial.h). The capture reads the state cost_compute's task
 * pass left in its context; the compose adds the stored state into an empty
 * pass (no tasks loaded) and lets cost_compute finish as for any window. */
#include "engine/cost_partial.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "engine/cost_internal.h"

static const char *nz(const char *s) {
    return s ? s : "";
}

static int64_t order_key(const struct cost_attempt *a) {
    return a->created_at ? a->created_at : a->scheduled_at ? a->scheduled_at : a->started_at;
}

struct cost_partial *cost_partial_new(int64_t from, int64_t to) {
    struct cost_partial *p = xcalloc(1, sizeof *p);
    p->from = from;
    p->to = to;
    return p;
}

void cost_partial_free(struct cost_partial *p) {
    if (!p)
        return;
    for (size_t i = 0; i < p->n_nodes; i++)
        free(p->nodes[i].name);
    for (size_t i = 0; i < p->n_pools; i++)
        free(p->pools[i].id);
    for (size_t i = 0; i < p->n_cf; i++)
        free(p->cf[i].pool);
    for (size_t i = 0; i < p->n_events; i++) {
        free(p->events[i].pool);
        free(p->events[i].task);
        free(p->events[i].attempt);
    }
    free(p->nodes);
    free(p->pools);
    free(p->cf);
    free(p->restore);
    for (size_t i = 0; i < p->n_running; i++)
        free(p->running[i].uid);
    free(p->events);
    free(p->running);
    free(p);
}

bool cost_partial_closed(const struct cost_partial *p, int64_t now) {
    return p->to <= now && p->open_attempts == 0 && cost_partial_running(p) == 0;
}

int64_t cost_partial_running(const struct cost_partial *p) {
    int64_t n = 0;
    for (int c = 0; c < COST_NCONFIG; c++)
        n += p->cfg[c].n.running;
    return n;
}

/* ---- capture ---------------------------------------------------------------- */

static const char *pool_key(const struct cost_input *in, int32_t pool) {
    return (size_t)pool < in->n_pools ? nz(in->pools[pool].id) : "";
}

/* Start of the price segment holding t: the latest price change (any size) at
 * or before t; 0 before every one. */
static int64_t segment_of(const struct cost_input *in, int64_t t) {
    int64_t seg = 0;
    for (size_t k = 0; k < in->n_prices; k++)
        if (in->prices[k].at <= t && in->prices[k].at > seg)
            seg = in->prices[k].at;
    return seg;
}

static enum err cap_evidence(struct cost_ctx *x, int32_t pool, const struct cost_attempt *a,
                             int64_t lost, int64_t resumed, int32_t task, void *arg) {
    struct cost_partial *p = arg;
    if (lost < p->from - COST_RECLAIM_LOOKBACK || lost >= p->to + COST_RECLAIM_SPREAD)
        return ERR_OK;
    XGROW(p->events, p->n_events, p->cap_events, 16);
    struct cost_part_event *e = &p->events[p->n_events++];
    e->pool = xstrdup(pool_key(x->in, pool));
    e->task = xstrdup(nz(x->in->tasks[task].uid));
    e->attempt = xstrdup(nz(a->uid));
    e->order = order_key(a);
    e->lost = lost;
    e->resumed = resumed;
    e->disruption_at = a->disruption_at;
    e->not_ready_at = cost_reclaim_pod_not_ready(x->in, a); /* as the evidence reads it */
    return ERR_OK;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static enum err cap_after(struct cost_ctx *x, void *arg) {
    struct cost_partial *p = arg;
    const struct cost_input *in = x->in;
    if (x->hook_rc != ERR_OK)
        return x->hook_rc;
    for (size_t i = 0; i < in->n_nodes; i++) {
        const int64_t *w = &x->w[i * COST_NCLASS];
        bool any = false;
        for (int c = 0; c < COST_NCLASS; c++) {
            if (w[c] && c >= COST_PART_NW)
                return ERR_INVAL; /* a filtered-out group: captures are unfiltered */
            any = any || w[c];
        }
        if (!any)
            continue;
        if (!in->nodes[i].name)
            return ERR_INVAL;
        XGROW(p->nodes, p->n_nodes, p->cap_nodes, 16);
        struct cost_part_node *pn = &p->nodes[p->n_nodes++];
        pn->name = xstrdup(in->nodes[i].name);
        memcpy(pn->w, w, sizeof pn->w);
    }
    for (size_t q = 0; q < x->np; q++) {
        const int64_t *h = &x->pool_secs[q * COST_NGROUP];
        const struct cost_pool_rt *pr = &x->prt[q];
        if (!h[0] && !h[1] && !h[2] && !pr->ckpt_n && !pr->ckpt_sum)
            continue;
        XGROW(p->pools, p->n_pools, p->cap_pools, 16);
        struct cost_part_pool *pp = &p->pools[p->n_pools++];
        pp->id = xstrdup(pool_key(in, (int32_t)q));
        memcpy(pp->held, h, sizeof pp->held);
        pp->ckpt_sum = pr->ckpt_sum;
        pp->ckpt_n = pr->ckpt_n;
    }
    for (int c = 0; c < COST_NCONFIG; c++) {
        const struct cost_group_acc *g = &x->gacc[c];
        struct cost_part_config *pc = &p->cfg[c];
        pc->n = g->n;
        pc->cf_tasks = x->cf_tasks[c];
        pc->cf_reported = x->cf_reported[c];
        pc->cf_runtime = x->cf_runtime[c];
        size_t n = x->samples[c].len / sizeof(int64_t);
        int64_t *v = (int64_t *)(void *)x->samples[c].data;
        if (n > 1)
            qsort(v, n, sizeof *v, cmp_i64);
        for (size_t i = 0; i < n; i++) {
            if (p->n_restore && p->restore[p->n_restore - 1].config == c &&
                p->restore[p->n_restore - 1].value == v[i]) {
                p->restore[p->n_restore - 1].n++;
                continue;
            }
            XGROW(p->restore, p->n_restore, p->cap_restore, 16);
            p->restore[p->n_restore++] = (struct cost_part_restore){c, v[i], 1};
        }
    }
    size_t ncf = x->cf.len / sizeof(struct cost_cf_sample);
    const struct cost_cf_sample *s = (const struct cost_cf_sample *)(const void *)x->cf.data;
    for (size_t i = 0; i < ncf; i++) {
        if (s[i].group >= COST_NCONFIG)
            return ERR_INVAL;
        XGROW(p->cf, p->n_cf, p->cap_cf, 16);
        struct cost_part_cf *pc = &p->cf[p->n_cf++];
        pc->pool = xstrdup(pool_key(in, s[i].pool));
        pc->config = s[i].group;
        pc->seg = segment_of(in, s[i].at);
        pc->work = s[i].work;
        pc->wg = s[i].wg;
        pc->n = s[i].n;
    }
    size_t nrun = x->running.len / sizeof(int32_t);
    const int32_t *run = (const int32_t *)(const void *)x->running.data;
    for (size_t i = 0; i < nrun; i++) {
        XGROW(p->running, p->n_running, p->cap_running, 16);
        p->running[p->n_running].uid = xstrdup(nz(in->tasks[run[i]].uid));
        p->running[p->n_running++].config = (int32_t)in->tasks[run[i]].config;
    }
    p->unscheduled = x->r->attempts_unscheduled;
    p->open_attempts = x->open_in_w;
    return ERR_OK;
}

enum err cost_partial_capture(const struct cost_input *in, const struct cost_query *q,
                              struct cost_partial **out) {
    if (q->configs || q->experiment || q->ns)
        return ERR_INVAL;
    struct cost_partial *p = cost_partial_new(q->from, q->to);
    struct cost_hook h = {.after_pass = cap_after, .arg = p, .evidence = cap_evidence};
    struct cost_result *r = NULL;
    enum err rc = cost_compute_hooked(in, q, &h, &r);
    cost_result_free(r);
    if (rc != ERR_OK) {
        cost_partial_free(p);
        return rc;
    }
    cost_partial_normalize(p);
    *out = p;
    return ERR_OK;
}

/* ---- merge ------------------------------------------------------------------ */

static void group_counts_add(struct cost_counts *a, const struct cost_counts *b) {
    a->succeeded += b->succeeded;
    a->failed += b->failed;
    a->running += b->running;
    a->attempts += b->attempts;
    a->retries += b->retries;
    a->interruptions += b->interruptions;
    a->duplicates += b->duplicates;
    a->dup_secs += b->dup_secs;
}

static void add_counts(struct cost_partial *acc, const struct cost_partial *p) {
    if (p->from < acc->from)
        acc->from = p->from;
    if (p->to > acc->to)
        acc->to = p->to;
    acc->open_attempts += p->open_attempts; /* running: recounted by normalize */
    acc->unscheduled += p->unscheduled;
    for (int c = 0; c < COST_NCONFIG; c++) {
        struct cost_part_config *a = &acc->cfg[c];
        const struct cost_part_config *b = &p->cfg[c];
        group_counts_add(&a->n, &b->n);
        a->cf_tasks += b->cf_tasks;
        a->cf_reported += b->cf_reported;
        a->cf_runtime += b->cf_runtime;
    }
}

/* Appends n entries of size sz from src to *dst (count *dn, capacity *dcap). */
static void append(void **dst, size_t *dn, size_t *dcap, const void *src, size_t n, size_t sz) {
    if (!n)
        return;
    if (*dn + n > *dcap) {
        size_t cap = *dcap ? *dcap : 16;
        while (cap < *dn + n)
            cap *= 2;
        *dst = xrealloc(*dst, cap * sz);
        *dcap = cap;
    }
    memcpy((char *)*dst + *dn * sz, src, n * sz);
    *dn += n;
}

#define APPEND(field, n, cap)                                                                      \
    append((void **)&acc->field, &acc->n, &acc->cap, p->field, p->n, sizeof *p->field)

/* Adds p's counts to acc and appends a bitwise copy of each of p's lists to acc's. */
static void concat(struct cost_partial *acc, const struct cost_partial *p) {
    add_counts(acc, p);
    APPEND(nodes, n_nodes, cap_nodes);
    APPEND(pools, n_pools, cap_pools);
    APPEND(cf, n_cf, cap_cf);
    APPEND(restore, n_restore, cap_restore);
    APPEND(events, n_events, cap_events);
    APPEND(running, n_running, cap_running);
}

void cost_partial_take(struct cost_partial *acc, struct cost_partial *p) {
    concat(acc, p);
    /* the strings now belong to acc's copies */
    p->n_nodes = p->n_pools = p->n_cf = p->n_restore = p->n_events = p->n_running = 0;
}

void cost_partial_add(struct cost_partial *acc, const struct cost_partial *p) {
    size_t nodes = acc->n_nodes, pools = acc->n_pools, cf = acc->n_cf;
    size_t events = acc->n_events, running = acc->n_running;
    concat(acc, p);
    /* acc's copies get strings of their own (restore rows hold none) */
    for (size_t i = nodes; i < acc->n_nodes; i++)
        acc->nodes[i].name = xstrdup(acc->nodes[i].name);
    for (size_t i = pools; i < acc->n_pools; i++)
        acc->pools[i].id = xstrdup(acc->pools[i].id);
    for (size_t i = cf; i < acc->n_cf; i++)
        acc->cf[i].pool = xstrdup(acc->cf[i].pool);
    for (size_t i = events; i < acc->n_events; i++) {
        struct cost_part_event *e = &acc->events[i];
        e->pool = xstrdup(e->pool);
        e->task = xstrdup(e->task);
        e->attempt = xstrdup(e->attempt);
    }
    for (size_t i = running; i < acc->n_running; i++)
        acc->running[i].uid = xstrdup(acc->running[i].uid);
}

static int cmp_node(const void *a, const void *b) {
    return strcmp(((const struct cost_part_node *)a)->name,
                  ((const struct cost_part_node *)b)->name);
}
static int cmp_pool(const void *a, const void *b) {
    return strcmp(((const struct cost_part_pool *)a)->id, ((const struct cost_part_pool *)b)->id);
}
static int cmp_cf(const void *pa, const void *pb) {
    const struct cost_part_cf *a = pa, *b = pb;
    int c = strcmp(a->pool, b->pool);
    if (c)
        return c;
    if (a->config != b->config)
        return a->config < b->config ? -1 : 1;
    return (a->seg > b->seg) - (a->seg < b->seg);
}
static int cmp_restore(const void *pa, const void *pb) {
    const struct cost_part_restore *a = pa, *b = pb;
    if (a->config != b->config)
        return a->config < b->config ? -1 : 1;
    return (a->value > b->value) - (a->value < b->value);
}
static int cmp_task(const void *a, const void *b) {
    return strcmp(((const struct cost_part_task *)a)->uid, ((const struct cost_part_task *)b)->uid);
}
static int cmp_event_uid(const void *pa, const void *pb) {
    const struct cost_part_event *a = *(const struct cost_part_event *const *)pa;
    const struct cost_part_event *b = *(const struct cost_part_event *const *)pb;
    int c = strcmp(a->attempt, b->attempt);
    return c ? c : strcmp(a->task, b->task);
}
static int cmp_event_task(const void *pa, const void *pb) {
    const struct cost_part_event *a = *(const struct cost_part_event *const *)pa;
    const struct cost_part_event *b = *(const struct cost_part_event *const *)pb;
    int c = strcmp(a->task, b->task);
    if (c)
        return c;
    if (a->order != b->order)
        return a->order < b->order ? -1 : 1;
    return strcmp(a->attempt, b->attempt);
}

/* Merging row `from` into the equal row `into` (same key): adds what is summed and
 * frees what `from` owns. */
static void merge_node(void *into, const void *from) {
    struct cost_part_node *a = into;
    const struct cost_part_node *b = from;
    for (int c = 0; c < COST_PART_NW; c++)
        a->w[c] += b->w[c];
    free(b->name);
}
static void merge_pool(void *into, const void *from) {
    struct cost_part_pool *a = into;
    const struct cost_part_pool *b = from;
    for (int c = 0; c < COST_NCONFIG; c++)
        a->held[c] += b->held[c];
    a->ckpt_sum += b->ckpt_sum;
    a->ckpt_n += b->ckpt_n;
    free(b->id);
}
static void merge_cf(void *into, const void *from) {
    struct cost_part_cf *a = into;
    const struct cost_part_cf *b = from;
    a->work += b->work;
    a->wg += b->wg;
    a->n += b->n;
    free(b->pool);
}
static void merge_restore(void *into, const void *from) {
    ((struct cost_part_restore *)into)->n += ((const struct cost_part_restore *)from)->n;
}
/* running tasks: a set, so a repeat only frees its uid */
static void merge_task(void *into, const void *from) {
    (void)into;
    free(((const struct cost_part_task *)from)->uid);
}

/* Sorts the n rows of sz bytes at base by cmp and merges each run of equal rows into
 * its first; returns the rows left. */
static size_t sort_merge(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *),
                         void (*merge)(void *into, const void *from)) {
    char *row = base;
    size_t k = 0;
    if (n > 1)
        qsort(base, n, sz, cmp);
    for (size_t i = 0; i < n; i++) {
        if (k && !cmp(row + (k - 1) * sz, row + i * sz))
            merge(row + (k - 1) * sz, row + i * sz);
        else
            memmove(row + k++ * sz, row + i * sz, sz);
    }
    return k;
}

void cost_partial_normalize(struct cost_partial *p) {
    p->n_nodes = sort_merge(p->nodes, p->n_nodes, sizeof *p->nodes, cmp_node, merge_node);
    p->n_pools = sort_merge(p->pools, p->n_pools, sizeof *p->pools, cmp_pool, merge_pool);
    p->n_cf = sort_merge(p->cf, p->n_cf, sizeof *p->cf, cmp_cf, merge_cf);
    p->n_restore =
        sort_merge(p->restore, p->n_restore, sizeof *p->restore, cmp_restore, merge_restore);
    p->n_running = sort_merge(p->running, p->n_running, sizeof *p->running, cmp_task, merge_task);
    /* running tasks: a set, counted per configuration */
    for (int c = 0; c < COST_NCONFIG; c++)
        p->cfg[c].n.running = 0;
    for (size_t i = 0; i < p->n_running; i++)
        if (p->running[i].config >= 0 && p->running[i].config < COST_NCONFIG)
            p->cfg[p->running[i].config].n.running++;
}

/* ---- compose ---------------------------------------------------------------- */

struct inject {
    const struct cost_partial *sum;
};

static int group_of(const struct cost_query *q, int c) {
    return q->configs == 0 || (q->configs & (1u << c)) ? c : COST_NCONFIG + c;
}

/* The pool row of id ("" the unknown pool); -1 absent. */
static int32_t pool_row(const struct cost_ctx *x, const struct cost_index *ix, const char *id) {
    if (!*id)
        return (int32_t)x->in->n_pools;
    return ix ? cost_index_find(ix, id) : -1;
}

static enum err inject_nodes(struct cost_ctx *x, const struct cost_partial *s) {
    const struct cost_input *in = x->in;
    struct cost_index *ix = NULL;
    enum err rc = ERR_OK;
    if (in->n_nodes &&
        (rc = cost_index_new(&in->nodes[0].name, sizeof in->nodes[0], in->n_nodes, &ix)) != ERR_OK)
        return rc;
    for (size_t i = 0; i < s->n_nodes && rc == ERR_OK; i++) {
        int32_t n = ix ? cost_index_find(ix, s->nodes[i].name) : -1;
        if (n < 0) {
            rc = ERR_INVAL;
            break;
        }
        int64_t *w = &x->w[(size_t)n * COST_NCLASS];
        for (int c = 0; c < COST_NCONFIG; c++)
            for (int k = 0; k < COST_NKIND; k++)
                w[group_of(x->q, c) * COST_NKIND + k] += s->nodes[i].w[c * COST_NKIND + k];
    }
    cost_index_free(ix);
    return rc;
}

/* The reclaim evidence near this window's reclaim candidates, one event per
 * attempt uid, replayed in task order as the task pass would have seen it. */
static enum err replay_evidence(struct cost_ctx *x, const struct cost_partial *s,
                                const struct cost_index *pix) {
    const struct cost_part_event **v = xcalloc(s->n_events + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < s->n_events; i++) {
        const struct cost_part_event *e = &s->events[i];
        int32_t p = pool_row(x, pix, e->pool);
        if (p < 0 || (size_t)p >= x->in->n_pools) {
            free(v);
            return ERR_INVAL;
        }
        if (x->prt[p].reclaim < 0)
            continue;
        int64_t gone = x->cand[p].rc.gone_at;
        if (e->lost < gone - COST_RECLAIM_LOOKBACK || e->lost > gone + COST_RECLAIM_SPREAD)
            continue; /* cost_reclaim_evidence would not use it */
        v[n++] = e;
    }
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_event_uid);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || cmp_event_uid(&v[k - 1], &v[i]) != 0)
            v[k++] = v[i];
    if (k > 1)
        qsort(v, k, sizeof *v, cmp_event_task);
    int32_t task = -1;
    for (size_t i = 0; i < k; i++) {
        const struct cost_part_event *e = v[i];
        if (i == 0 || strcmp(e->task, v[i - 1]->task) != 0)
            task++;
        struct cost_attempt a;
        memset(&a, 0, sizeof a);
        a.node = -1; /* not_ready_at was read against its node when recorded */
        a.disruption_at = e->disruption_at;
        a.not_ready_at = e->not_ready_at;
        cost_reclaim_evidence(x, pool_row(x, pix, e->pool), &a, e->lost, e->resumed, task);
    }
    free(v);
    return ERR_OK;
}

static enum err inject_pools(struct cost_ctx *x, const struct cost_partial *s,
                             const struct cost_index *pix) {
    for (size_t i = 0; i < s->n_pools; i++) {
        int32_t p = pool_row(x, pix, s->pools[i].id);
        if (p < 0)
            return ERR_INVAL;
        for (int c = 0; c < COST_NCONFIG; c++)
            x->pool_secs[(size_t)p * COST_NGROUP + (size_t)group_of(x->q, c)] +=
                s->pools[i].held[c];
        x->prt[p].ckpt_sum += s->pools[i].ckpt_sum;
        x->prt[p].ckpt_n += s->pools[i].ckpt_n;
    }
    for (size_t i = 0; i < s->n_cf; i++) {
        const struct cost_part_cf *e = &s->cf[i];
        if (e->config < 0 || e->config >= COST_NCONFIG)
            return ERR_INVAL;
        if (group_of(x->q, e->config) != e->config)
            continue; /* a filtered-out configuration is never priced */
        int32_t p = pool_row(x, pix, e->pool);
        if (p < 0)
            return ERR_INVAL;
        struct cost_cf_sample smp = {.task = -1, /* composed: no task of this computation */
                                     .pool = p,
                                     .group = e->config,
                                     .at = e->seg,
                                     .work = e->work,
                                     .wg = e->wg,
                                     .n = e->n};
        enum err rc = buf_append(&x->cf, &smp, sizeof smp);
        if (rc != ERR_OK)
            return rc;
    }
    return replay_evidence(x, s, pix);
}

static enum err inject_after(struct cost_ctx *x, void *arg) {
    const struct cost_partial *s = ((struct inject *)arg)->sum;
    enum err rc = inject_nodes(x, s);
    if (rc != ERR_OK)
        return rc;
    for (int c = 0; c < COST_NCONFIG; c++) {
        int g = group_of(x->q, c);
        const struct cost_part_config *pc = &s->cfg[c];
        struct cost_group_acc *ga = &x->gacc[g];
        group_counts_add(&ga->n, &pc->n);
        if (g == c && c != COST_ON_DEMAND) {
            x->r->counterfactual.tasks += pc->cf_tasks;
            x->cf_reported[c] += pc->cf_reported;
            x->cf_runtime[c] += pc->cf_runtime;
        }
    }
    for (size_t i = 0; i < s->n_restore; i++) {
        const struct cost_part_restore *e = &s->restore[i];
        if (e->config < 0 || e->config >= COST_NCONFIG || e->n < 0 || e->n > (INT64_C(1) << 32))
            return ERR_INVAL;
        for (int64_t k = 0; k < e->n; k++)
            if ((rc = buf_append(&x->samples[group_of(x->q, e->config)], &e->value,
                                 sizeof e->value)) != ERR_OK)
                return rc;
    }
    x->r->attempts_unscheduled += s->unscheduled;
    struct cost_index *pix = NULL;
    const struct cost_input *in = x->in;
    if (in->n_pools &&
        (rc = cost_index_new(&in->pools[0].id, sizeof in->pools[0], in->n_pools, &pix)) != ERR_OK)
        return rc;
    rc = inject_pools(x, s, pix);
    cost_index_free(pix);
    return rc;
}

enum err cost_compose(const struct cost_input *in, const struct cost_query *q,
                      const struct cost_partial *sum, struct cost_result **out) {
    if (q->experiment || q->ns || in->n_tasks || in->n_attempts || q->want_attempts)
        return ERR_INVAL;
    struct inject j = {sum};
    struct cost_hook h = {.after_pass = inject_after, .arg = &j};
    return cost_compute_hooked(in, q, &h, out);
}
