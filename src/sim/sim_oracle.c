/* sim_oracle — see sim_oracle.h. Every loop here walks seconds or lists one by
 * one; nothing is cached, sorted cleverly or shared with the cost engine. */
#include "sim/sim_oracle.h"
#include "sim/sim_oracle_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/timeutil.h"
#include "base/xalloc.h"

__extension__ typedef __int128 i128;

#define HOUR 3600
#define CAP_SECONDS (672LL * HOUR)
#define MIN_SECONDS 60
#define MIN_AMOUNT 10000 /* $0.01 */

/* Half away from zero: num / den with den > 0. */
static int64_t round_div(i128 num, i128 den) {
    if (num >= 0)
        return (int64_t)((num + den / 2) / den);
    return -(int64_t)((-num + den / 2) / den);
}

/* Nearest-rank p50 and p95 of v[0..n) (sorted here, by insertion): the value at
 * rank ceil(p x n / 100); ORC_NEVER both when n = 0. */
static void percentiles(int64_t *v, int64_t n, int64_t *p50, int64_t *p95) {
    *p50 = *p95 = ORC_NEVER;
    if (n == 0)
        return;
    for (int64_t i = 1; i < n; i++)
        for (int64_t k = i; k > 0 && v[k - 1] > v[k]; k--) {
            int64_t t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    *p50 = v[(50 * n + 99) / 100 - 1];
    *p95 = v[(95 * n + 99) / 100 - 1];
}

void orc_split(int64_t amount, const orc_i128 *w, int n, int64_t *parts) {
    i128 sum = 0;
    for (int i = 0; i < n; i++)
        sum += w[i];
    int64_t given = 0;
    i128 *rem = xcalloc((size_t)n + 1, sizeof *rem);
    for (int i = 0; i < n; i++) {
        i128 q = (i128)amount * w[i];
        parts[i] = (int64_t)(q / sum);
        rem[i] = q % sum;
        given += parts[i];
    }
    for (int64_t left = amount - given; left > 0; left--) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (w[i] > 0 && (best < 0 || rem[i] > rem[best]))
                best = i;
        parts[best]++;
        rem[best] = -1;
    }
    free(rem);
}

/* ---- labels and Spot ------------------------------------------------------ */

/* Whether "k=v\n..." holds the line KEY=VALUE. */
static bool labels_have(const char *labels, const struct orc_pair *want) {
    if (!labels)
        return false;
    size_t kl = strlen(want->a), vl = strlen(want->b);
    const char *p = labels;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == kl + 1 + vl && memcmp(p, want->a, kl) == 0 && p[kl] == '=' &&
            memcmp(p + kl + 1, want->b, vl) == 0)
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

bool orc_pool_is_spot(const struct orc_timeline *tl, int p) {
    const struct orc_pool *pool = &tl->pools[p];
    if (pool->size && ends_with(pool->size, "-spot"))
        return true;
    for (int i = 0; i < tl->nspot_pools; i++)
        if (strcmp(tl->spot_pools[i], pool->id) == 0)
            return true;
    for (int l = 0; l < tl->nspot_labels; l++) {
        if (labels_have(pool->labels, &tl->spot_labels[l]))
            return true;
        for (int n = 0; n < tl->nnodes; n++)
            if (tl->nodes[n].pool == p && labels_have(tl->nodes[n].labels, &tl->spot_labels[l]))
                return true;
    }
    return false;
}

/* ---- prices --------------------------------------------------------------- */

/* The list price of `size` in force at t (the latest change at or before t); -1 none. */
static int64_t price_at(const struct orc_timeline *tl, const char *size, int64_t t) {
    int64_t best_from = INT64_MIN, price = -1;
    for (int i = 0; i < tl->nprices; i++) {
        const struct orc_price *p = &tl->prices[i];
        if (strcmp(p->size, size) == 0 && p->from <= t && p->from >= best_from) {
            best_from = p->from;
            price = p->price_hourly;
        }
    }
    return price;
}

static int size_gpus(const struct orc_timeline *tl, const char *slug) {
    for (int i = 0; i < tl->nsizes; i++)
        if (strcmp(tl->sizes[i].slug, slug) == 0)
            return tl->sizes[i].gpus;
    return -1;
}

/* ---- nodes: which seconds DigitalOcean charges ------------------------------ */

/* The end of the node's billed life: its deletion (else now), but at least 60 s
 * after Ready (the minimum: a node is billed as if it lived 60 s, owed as soon as
 * it is Ready). */
static int64_t node_end(const struct orc_node *n, int64_t now) {
    int64_t end = orc_min64(n->deleted_t, now);
    return end < n->ready_t + MIN_SECONDS ? n->ready_t + MIN_SECONDS : end;
}

/* Whether second s of node n is charged: inside its billed life and among the
 * first 672 billable hours of its calendar month (the node is billed in one
 * contiguous interval, so those are the seconds before max(Ready, month start)
 * + 672 h). `m` remembers the month of the last call (seconds are walked in order). */
struct month {
    int64_t lo, hi;
};

static bool charged(const struct orc_node *n, int64_t s, int64_t now, struct month *m) {
    if (n->ready_t == ORC_NEVER || s < n->ready_t || s >= node_end(n, now))
        return false;
    if (s < m->lo || s >= m->hi) {
        m->lo = timeutil_month_start(s);
        m->hi = timeutil_next_month_start(s);
    }
    int64_t first = n->ready_t > m->lo ? n->ready_t : m->lo;
    return s < first + CAP_SECONDS;
}

enum err orc_compute(const struct orc_timeline *tl, int64_t from, int64_t to, int64_t now,
                     struct orc_result *r) {
    memset(r, 0, sizeof *r);
    if (from >= to)
        return ERR_INVAL;
    for (int i = 0; i < tl->nnodes; i++)
        if (tl->nodes[i].pool < 0 || tl->nodes[i].pool >= tl->npools)
            return ERR_INVAL;
    for (int i = 0; i < tl->npods; i++) {
        const struct orc_pod *p = &tl->pods[i];
        if (p->job < 0 || p->job >= tl->njobs || p->node >= tl->nnodes)
            return ERR_INVAL;
        if (tl->jobs[p->job].indexed && (p->index < 0 || p->index >= tl->jobs[p->job].completions))
            return ERR_INVAL;
    }
    r->from = from;
    r->to = to;
    r->now = now;
    r->pools = xcalloc((size_t)tl->npools + 1, sizeof *r->pools);
    r->nodes = xcalloc((size_t)tl->nnodes + 1, sizeof *r->nodes);
    r->reclaims = xcalloc((size_t)tl->npools + 1, sizeof *r->reclaims);
    r->pods = xcalloc((size_t)tl->npods + 1, sizeof *r->pods);
    r->node_cls = xcalloc((size_t)tl->nnodes * ORC_NCONFIG * K_N + 1, sizeof *r->node_cls);
    r->pool_cfg_idle = xcalloc((size_t)tl->npools * ORC_NCONFIG + 1, sizeof *r->pool_cfg_idle);
    r->pool_by_alloc = xcalloc((size_t)tl->npools + 1, sizeof *r->pool_by_alloc);
    r->pool_cfg_secs = xcalloc((size_t)tl->npools * ORC_NCONFIG + 1, sizeof *r->pool_cfg_secs);
    for (int p = 0; p < tl->npools; p++)
        r->pools[p].spot = orc_pool_is_spot(tl, p);

    /* groups */
    int ngroups = 0;
    for (int j = 0; j < tl->njobs; j++)
        ngroups += tl->jobs[j].indexed ? tl->jobs[j].completions : 1;
    struct group *g = xcalloc((size_t)ngroups + 1, sizeof *g);
    int *group_of_job = xcalloc((size_t)tl->njobs + 1, sizeof *group_of_job);
    int gi = 0;
    for (int j = 0; j < tl->njobs; j++) {
        const struct orc_job *job = &tl->jobs[j];
        group_of_job[j] = gi;
        int n = job->indexed ? job->completions : 1;
        for (int k = 0; k < n; k++, gi++) {
            g[gi].job = j;
            g[gi].index = job->indexed ? k : -1;
            g[gi].ntasks = job->indexed ? 1 : job->completions;
            g[gi].pods = xcalloc((size_t)tl->npods + 1, sizeof *g[gi].pods);
            if (job->indexed) {
                int64_t done = job->index_done_t ? job->index_done_t[k] : ORC_NEVER;
                g[gi].success_t = done <= now ? done : ORC_NEVER;
                g[gi].fail_t = g[gi].success_t == ORC_NEVER && job->failed_t <= now ? job->failed_t
                                                                                    : ORC_NEVER;
            } else {
                g[gi].success_t = job->complete_t <= now ? job->complete_t : ORC_NEVER;
                g[gi].fail_t = job->failed_t <= now ? job->failed_t : ORC_NEVER;
            }
        }
    }
    struct podx *px = xcalloc((size_t)tl->npods + 1, sizeof *px);
    for (int i = 0; i < tl->npods; i++) {
        const struct orc_pod *p = &tl->pods[i];
        if (p->created_t > now)
            continue;
        int k = group_of_job[p->job] + (tl->jobs[p->job].indexed ? p->index : 0);
        g[k].pods[g[k].npods++] = i;
        px[i].group = k;
        orc_derive_pod(tl, i, now, &px[i]);
    }
    r->ngroups = ngroups;
    r->groups = xcalloc((size_t)ngroups + 1, sizeof *r->groups);
    for (int k = 0; k < ngroups; k++)
        r->groups[k] = (struct orc_group_result){g[k].job, g[k].index, g[k].ntasks, g[k].success_t,
                                                 g[k].fail_t};
    for (int i = 0; i < tl->npods; i++) {
        struct orc_pod_result *pr = &r->pods[i];
        pr->group = tl->pods[i].created_t > now ? -1 : px[i].group;
        pr->held = pr->group >= 0 && px[i].held;
        pr->hold_from = px[i].hold_from;
        pr->hold_end = px[i].hold_to == ORC_NEVER ? now : px[i].hold_to;
    }
    orc_partial_of(tl, g, ngroups, px, r);
    /* each configuration's restore samples, for its percentiles */
    int64_t *samples[ORC_NCONFIG];
    for (int c = 0; c < ORC_NCONFIG; c++)
        samples[c] = xcalloc((size_t)tl->npods + 1, sizeof *samples[c]);

    for (int k = 0; k < ngroups; k++) {
        struct group *gr = &g[k];
        enum orc_config c = tl->jobs[gr->job].config;
        struct orc_config_result *cr = &r->cfg[c];
        orc_sort_by_created(tl, gr->pods, gr->npods);
        if (orc_in_window(gr->success_t, from, to, now))
            cr->tasks_succeeded += gr->ntasks;
        if (orc_in_window(gr->fail_t, from, to, now))
            cr->tasks_failed += gr->ntasks;
        /* attempts and retries, at the pod's creation */
        bool held_in_w = false;
        for (int a = 0; a < gr->npods; a++) {
            int i = gr->pods[a];
            if (orc_in_window(tl->pods[i].created_t, from, to, now)) {
                cr->attempts++;
                if (a >= gr->ntasks)
                    cr->retries++;
                if (!px[i].held)
                    r->attempts_unscheduled++;
            }
            int64_t e = px[i].hold_to == ORC_NEVER ? now : px[i].hold_to;
            if (px[i].held && px[i].hold_from < to && e > from && px[i].hold_from < e)
                held_in_w = true;
        }
        /* running: a task not finished by now that held a node in W (one per unit) */
        if (gr->success_t == ORC_NEVER && gr->fail_t == ORC_NEVER && held_in_w)
            cr->tasks_running++;
        /* winners: the first ntasks pods to finish with exit 0 */
        for (int w = 0; w < gr->ntasks; w++) {
            int best = -1;
            for (int a = 0; a < gr->npods; a++) {
                int i = gr->pods[a];
                const struct orc_pod *p = &tl->pods[i];
                if (px[i].winner || !orc_succeeded(p, now))
                    continue;
                if (best < 0 || p->fin_t < tl->pods[best].fin_t)
                    best = i; /* creation order breaks ties */
            }
            if (best >= 0)
                px[best].winner = true;
        }
        for (int a = 0; a < gr->npods; a++) {
            int i = gr->pods[a];
            if (px[i].winner && gr->fail_t == ORC_NEVER)
                px[i].kind = K_USEFUL;
            else if (px[i].held && px[i].hold_to == ORC_NEVER)
                px[i].kind = K_RUNNING;
            else
                px[i].kind = K_WASTED;
            if (px[i].interrupted && orc_in_window(px[i].lost_at, from, to, now))
                cr->interruptions++;
        }
        /* duplicates, second by second: at each second the held pods in order of
         * scheduling; those beyond the group's ntasks are duplicates */
        int64_t lo = ORC_NEVER, hi = 0;
        for (int a = 0; a < gr->npods; a++) {
            struct podx *x = &px[gr->pods[a]];
            if (!x->held)
                continue;
            lo = orc_min64(lo, x->hold_from);
            int64_t e = x->hold_to == ORC_NEVER ? now : x->hold_to;
            hi = e > hi ? e : hi;
        }
        for (int64_t s = lo; lo != ORC_NEVER && s < hi; s++) {
            int before = 0;
            for (int a = 0; a < gr->npods; a++) {
                int i = gr->pods[a];
                struct podx *x = &px[i];
                int64_t e = x->hold_to == ORC_NEVER ? now : x->hold_to;
                if (!x->held || s < x->hold_from || s >= e)
                    continue;
                /* how many held pods were scheduled before this one */
                before = 0;
                for (int b = 0; b < gr->npods; b++) {
                    int o = gr->pods[b];
                    struct podx *y = &px[o];
                    int64_t ye = y->hold_to == ORC_NEVER ? now : y->hold_to;
                    if (o == i || !y->held || s < y->hold_from || s >= ye)
                        continue;
                    if (y->hold_from < x->hold_from ||
                        (y->hold_from == x->hold_from && orc_cmp_created(tl, o, i) < 0))
                        before++;
                }
                if (before >= gr->ntasks) {
                    if (!x->duplicate && s >= from && s < to)
                        cr->duplicates++;
                    x->duplicate = true;
                    if (s >= from && s < to)
                        cr->duplicate_seconds++;
                }
            }
        }
        /* restore samples: an interrupted pod, the first pod of its group created
         * after it that started, that one's first container start */
        for (int a = 0; a + 1 < gr->npods; a++) {
            int i = gr->pods[a];
            if (!px[i].interrupted)
                continue;
            const struct orc_pod *next = orc_next_started(tl, gr, a, now);
            if (!next)
                continue;
            if (!orc_in_window(next->start_t, from, to, now))
                continue;
            /* a pod that started before this one was lost (a sibling of an N-completion
             * Job) waited 0 s */
            int64_t gap = next->start_t - px[i].lost_at;
            int64_t one = (gap > 0 ? gap : 0) + (next->restore_s > 0 ? next->restore_s : 0);
            samples[c][cr->restore_samples++] = one;
            cr->restore_total += one;
        }
    }

    /* money, node by node, second by second */
    bool *pool_used = xcalloc((size_t)tl->npools + 1, sizeof *pool_used);
    int64_t *alloc_pc = xcalloc((size_t)tl->npools * ORC_NCONFIG + 1, sizeof *alloc_pc);
    int64_t *held_pc = xcalloc((size_t)tl->npools * ORC_NCONFIG + 1, sizeof *held_pc);
    /* the pods each node ran */
    int **on_node = xcalloc((size_t)tl->nnodes + 1, sizeof *on_node);
    int *on_node_n = xcalloc((size_t)tl->nnodes + 1, sizeof *on_node_n);
    for (int i = 0; i < tl->npods; i++) {
        int n = tl->pods[i].node;
        if (n < 0)
            continue;
        on_node[n] = xrealloc(on_node[n], (size_t)(on_node_n[n] + 1) * sizeof **on_node);
        on_node[n][on_node_n[n]++] = i;
    }
    for (int n = 0; n < tl->nnodes; n++) {
        const struct orc_node *node = &tl->nodes[n];
        struct orc_node_result *nr = &r->nodes[n];
        nr->rate = price_at(tl, tl->pools[node->pool].size, node->created_t);
        if (nr->rate < 0)
            nr->rate = 0;
        if (node->ready_t == ORC_NEVER || node->ready_t > now)
            continue; /* never Ready: never billed */
        int64_t life = 0, win = 0;
        struct month m = {0, 0};
        for (int64_t s = node->ready_t; s < node_end(node, now); s++) {
            if (!charged(node, s, now, &m))
                continue;
            life++;
            if (s >= from && s < to)
                win++;
        }
        /* node total in W: its charged seconds; and, once the node has ended,
         * what its whole life lacks to $0.01, in the window holding its last
         * billed second */
        nr->seconds = win;
        nr->total = round_div((i128)win * nr->rate, HOUR);
        int64_t last = node_end(node, now) - 1;
        if (node->deleted_t <= now && last >= from && last < to) {
            int64_t whole = round_div((i128)life * nr->rate, HOUR);
            if (whole < MIN_AMOUNT)
                nr->total += MIN_AMOUNT - whole;
        }
        /* allocated: every pod held on it, every second */
        i128 cls[ORC_NCONFIG * K_N];
        memset(cls, 0, sizeof cls);
        int64_t share_s[ORC_NCONFIG] = {0, 0, 0}; /* share numerator x charged seconds */
        int64_t den = 0;
        for (int q = 0; q < on_node_n[n]; q++) {
            int i = on_node[n][q];
            const struct orc_pod *p = &tl->pods[i];
            struct podx *x = &px[i];
            if (!x->held || p->created_t > now)
                continue;
            enum orc_config c = tl->jobs[p->job].config;
            int64_t sn, sd;
            orc_share_of(p, node, &sn, &sd);
            den = sd;
            int64_t e = x->hold_to == ORC_NEVER ? now : x->hold_to;
            for (int64_t s = x->hold_from; s < e; s++) {
                if (s < from || s >= to)
                    continue;
                held_pc[node->pool * ORC_NCONFIG + c]++;
                r->pods[i].held_s++;
                pool_used[node->pool] = true;
                if (!charged(node, s, now, &m))
                    continue;
                enum kind k = x->kind;
                if (k == K_USEFUL && p->restore_s > 0 && p->start_t != ORC_NEVER &&
                    s >= p->start_t && s < p->start_t + p->restore_s)
                    k = K_RESTORE;
                cls[c * K_N + k] += (i128)sn * nr->rate;
                r->pods[i].w[k] += sn;
                share_s[c] += sn;
            }
        }
        i128 sum = 0;
        for (int k = 0; k < ORC_NCONFIG * K_N; k++)
            sum += cls[k];
        if (sum > 0) {
            nr->allocated = round_div(sum, (i128)HOUR * den);
            int64_t parts[ORC_NCONFIG * K_N];
            orc_split(nr->allocated, cls, ORC_NCONFIG * K_N, parts);
            memcpy(&r->node_cls[(size_t)n * ORC_NCONFIG * K_N], parts, sizeof parts);
            for (int c = 0; c < ORC_NCONFIG; c++) {
                struct orc_config_result *cr = &r->cfg[c];
                cr->useful += parts[c * K_N + K_USEFUL];
                cr->restore += parts[c * K_N + K_RESTORE];
                cr->wasted += parts[c * K_N + K_WASTED];
                cr->running += parts[c * K_N + K_RUNNING];
                for (int k = 0; k < K_N; k++)
                    alloc_pc[node->pool * ORC_NCONFIG + c] += parts[c * K_N + k];
            }
        }
        for (int c = 0; c < ORC_NCONFIG && den > 0; c++)
            r->pool_cfg_secs[node->pool * ORC_NCONFIG + c] += round_div(share_s[c], den);
        nr->idle = nr->total - nr->allocated;
        struct orc_pool_result *pr = &r->pools[node->pool];
        if (win > 0)
            pr->nodes++;
        pr->seconds += win;
        pr->total += nr->total;
        pr->allocated += nr->allocated;
        pr->idle += nr->idle;
    }
    /* pools: idle to the configurations that used the pool, by allocated cost,
     * else by held seconds; a pool nobody used keeps it unattributed */
    for (int p = 0; p < tl->npools; p++) {
        struct orc_pool_result *pr = &r->pools[p];
        i128 w[ORC_NCONFIG];
        i128 sum = 0;
        for (int c = 0; c < ORC_NCONFIG; c++)
            sum += w[c] = alloc_pc[p * ORC_NCONFIG + c];
        r->pool_by_alloc[p] = sum != 0;
        if (sum == 0)
            for (int c = 0; c < ORC_NCONFIG; c++)
                sum += w[c] = held_pc[p * ORC_NCONFIG + c];
        if (sum == 0 || !pool_used[p]) {
            pr->unattributed = pr->idle;
        } else {
            int64_t parts[ORC_NCONFIG];
            orc_split(pr->idle, w, ORC_NCONFIG, parts);
            for (int c = 0; c < ORC_NCONFIG; c++) {
                r->cfg[c].idle += parts[c];
                r->pool_cfg_idle[p * ORC_NCONFIG + c] = parts[c];
            }
        }
        r->nodes_total += pr->total;
        r->allocated_total += pr->allocated;
        r->idle_total += pr->idle;
        r->unattributed_total += pr->unattributed;
    }
    for (int c = 0; c < ORC_NCONFIG; c++) {
        struct orc_config_result *cr = &r->cfg[c];
        cr->allocated = cr->useful + cr->restore + cr->wasted + cr->running;
        cr->cost = cr->allocated + cr->idle;
        cr->cost_per_task =
            cr->tasks_succeeded > 0 ? round_div(cr->cost, cr->tasks_succeeded) : ORC_NEVER;
        percentiles(samples[c], cr->restore_samples, &cr->restore_p50, &cr->restore_p95);
        free(samples[c]);
        cr->overhead_bp =
            cr->useful != 0
                ? round_div((i128)(cr->wasted + cr->restore + cr->idle) * 10000, cr->useful)
                : ORC_NEVER;
        r->excluded -= cr->cost;
    }
    r->excluded += r->nodes_total - r->unattributed_total;

    /* counterfactual On-Demand: successful spot/fallback tasks of W, work x GPUs
     * requested x the per-GPU On-Demand rate in force when the winner ran */
    int fallback_pool = -1;
    for (int p = 0; p < tl->npools; p++) {
        if (r->pools[p].spot || size_gpus(tl, tl->pools[p].size) <= 0)
            continue;
        if (fallback_pool < 0 || held_pc[p * ORC_NCONFIG + ORC_FALLBACK] >
                                     held_pc[fallback_pool * ORC_NCONFIG + ORC_FALLBACK])
            fallback_pool = p;
    }
    int64_t L = 1;
    for (int i = 0; i < tl->nsizes; i++)
        if (tl->sizes[i].gpus > 0)
            L = orc_lcm64(L, tl->sizes[i].gpus);
    i128 cf_num = 0;                      /* µ$ x 3600 x L */
    i128 cf_cfg[ORC_NCONFIG] = {0, 0, 0}; /* the same, per configuration */
    for (int k = 0; k < ngroups; k++) {
        struct group *gr = &g[k];
        enum orc_config c = tl->jobs[gr->job].config;
        if (c == ORC_ON_DEMAND || !orc_in_window(gr->success_t, from, to, now))
            continue;
        int won = 0;
        for (int a = 0; a < gr->npods; a++) {
            int i = gr->pods[a];
            if (!px[i].winner)
                continue;
            won++;
            const struct orc_pod *p = &tl->pods[i];
            r->cf_tasks++;
            int pool = p->node >= 0 ? tl->nodes[p->node].pool : -1;
            const char *size = pool >= 0 ? tl->pools[pool].size : NULL;
            const char *od = NULL;
            char stripped[128];
            if (size && !r->pools[pool].spot) {
                od = size;
            } else if (size) {
                for (int m = 0; m < tl->nod_sizes && !od; m++)
                    if (strcmp(tl->od_sizes[m].a, size) == 0)
                        od = tl->od_sizes[m].b;
                if (!od && ends_with(size, "-spot") && strlen(size) < sizeof stripped) {
                    memcpy(stripped, size, strlen(size) - 5);
                    stripped[strlen(size) - 5] = '\0';
                    if (size_gpus(tl, stripped) > 0)
                        od = stripped;
                }
                if (!od && fallback_pool >= 0)
                    od = tl->pools[fallback_pool].size;
            }
            if (p->work_s >= 0)
                r->cf_reported++;
            else
                r->cf_runtime++;
            int gpus = od ? size_gpus(tl, od) : -1;
            int64_t price = od && p->start_t != ORC_NEVER ? price_at(tl, od, p->start_t) : -1;
            if (gpus <= 0 || price < 0) {
                r->cf_unpriced++;
                continue;
            }
            int64_t work = p->work_s >= 0 ? p->work_s : px[i].hold_to - p->start_t;
            r->cf_priced++;
            r->cf_work_seconds += work;
            cf_num += (i128)work * p->gpu_req * price * (L / gpus);
            cf_cfg[c] += (i128)work * p->gpu_req * price * (L / gpus);
            r->cfg[c].cf_tasks++;
        }
        /* a success whose winner the record does not show cannot be priced */
        for (; won < gr->ntasks; won++) {
            r->cf_tasks++;
            r->cf_unpriced++;
        }
    }
    r->cf_cost = round_div(cf_num, (i128)HOUR * L);
    r->cf_per_task = r->cf_priced > 0 ? round_div(r->cf_cost, r->cf_priced) : ORC_NEVER;
    for (int c = 0; c < ORC_NCONFIG; c++) {
        struct orc_config_result *cr = &r->cfg[c];
        cr->cf_cost = round_div(cf_cfg[c], (i128)HOUR * L);
        cr->savings_bp = ORC_NEVER;
        int64_t cf_pt = cr->cf_tasks > 0 ? round_div(cr->cf_cost, cr->cf_tasks) : 0;
        if (c != ORC_ON_DEMAND && cr->tasks_succeeded > 0 && cf_pt != 0)
            cr->savings_bp = round_div((i128)(cf_pt - cr->cost_per_task) * 10000, cf_pt);
    }

    orc_reclaims(tl, from, to, now, g, ngroups, px, r);

    for (int k = 0; k < ngroups; k++)
        free(g[k].pods);
    free(g);
    free(group_of_job);
    free(px);
    free(pool_used);
    for (int n = 0; n < tl->nnodes; n++)
        free(on_node[n]);
    free(on_node);
    free(on_node_n);
    free(alloc_pc);
    free(held_pc);
    return ERR_OK;
}

void orc_result_release(struct orc_result *r) {
    free(r->groups);
    free(r->pods);
    free(r->node_cls);
    free(r->pool_cfg_idle);
    free(r->pool_by_alloc);
    free(r->pool_cfg_secs);
    free(r->pools);
    free(r->nodes);
    free(r->reclaims);
    memset(r, 0, sizeof *r);
}
