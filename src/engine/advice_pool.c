/* advice_pool — the setup advisor's rules about node pools (advice_rules.h):
 * a system pool, spotledger's own node, the Spot taint, a fallback pool of the
 * same GPU, a fixed-size Spot pool, a fallback pool scaling from zero. */
#include "engine/advice_rules.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/xalloc.h"

/* --- pools, sizes, taints ------------------------------------------------- */

bool advice_alive(const struct advice_pool *p) {
    return p->deleted_at == 0;
}

static const struct advice_size *find_size(const struct advice_input *in, const char *slug) {
    if (!slug)
        return NULL;
    for (size_t i = 0; i < in->n_sizes; i++)
        if (advice_str_eq(in->sizes[i].slug, slug))
            return &in->sizes[i];
    return NULL;
}

/* The size of a pool; a Spot slug missing from /v2/sizes borrows its twin's. */
static const struct advice_size *pool_size(const struct advice_input *in,
                                           const struct advice_pool *p) {
    const struct advice_size *z = find_size(in, p->size);
    if (!z && advice_ends_with(p->size, "-spot")) {
        size_t n = strlen(p->size) - 5;
        for (size_t i = 0; i < in->n_sizes; i++)
            if (in->sizes[i].slug && strlen(in->sizes[i].slug) == n &&
                strncmp(in->sizes[i].slug, p->size, n) == 0)
                return &in->sizes[i];
    }
    return z;
}

/* 1 the pool has GPUs, 0 it has none, from gpu_info, else from the slug. */
static bool pool_has_gpu(const struct advice_input *in, const struct advice_pool *p) {
    const struct advice_size *z = pool_size(in, p);
    if (z && z->gpu_count >= 0)
        return z->gpu_count > 0;
    return p->size && strncmp(p->size, "gpu-", 4) == 0;
}

static bool hard_effect(const char *effect) {
    return advice_str_eq(effect, "NoSchedule") || advice_str_eq(effect, "NoExecute");
}

/* Number of NoSchedule/NoExecute taints of a pool. */
size_t advice_hard_taints(const struct advice_pool *p) {
    json_object *t = advice_jparse(p->taints_json);
    size_t n = 0;
    for (size_t i = 0; i < advice_jlen(t); i++)
        if (hard_effect(advice_jstr(json_object_array_get_idx(t, i), "effect")))
            n++;
    json_object_put(t);
    return n;
}

/* Kubernetes' ToleratesTaint (k8s.io/api/core/v1 toleration.go). */
static bool tolerates(json_object *tol, const char *key, const char *value, const char *effect) {
    const char *te = advice_jstr(tol, "effect"), *tk = advice_jstr(tol, "key"),
               *op = advice_jstr(tol, "operator");
    if (te && *te && !advice_str_eq(te, effect))
        return false;
    bool exists = advice_str_eq(op, "Exists");
    if (!tk || !*tk)
        return exists; /* an empty key with Exists matches every taint */
    if (!advice_str_eq(tk, key))
        return false;
    if (exists)
        return true;
    const char *tv = advice_jstr(tol, "value");
    return strcmp(tv ? tv : "", value ? value : "") == 0;
}

/* Every hard taint of the pool is tolerated by one of tolerations. */
bool advice_tolerates_pool(json_object *tolerations, const struct advice_pool *p) {
    json_object *t = advice_jparse(p->taints_json);
    bool ok = true;
    for (size_t i = 0; ok && i < advice_jlen(t); i++) {
        json_object *taint = json_object_array_get_idx(t, i);
        const char *effect = advice_jstr(taint, "effect");
        if (!hard_effect(effect))
            continue;
        bool one = false;
        for (size_t k = 0; !one && k < advice_jlen(tolerations); k++)
            one = tolerates(json_object_array_get_idx(tolerations, k), advice_jstr(taint, "key"),
                            advice_jstr(taint, "value"), effect);
        ok = one;
    }
    json_object_put(t);
    return ok;
}

/* The fallback candidates of a Spot pool: alive On-Demand pools of the same
 * kind (GPU pools for a GPU pool, CPU pools for a CPU pool). */
static bool is_candidate(const struct advice_input *in, const struct advice_pool *spot,
                         const struct advice_pool *od) {
    return !od->spot && advice_alive(od) && pool_has_gpu(in, od) == pool_has_gpu(in, spot);
}

/* Why od is smaller than spot ("" when it is not, or it cannot be told). */
static void smaller_than(const struct advice_input *in, const struct advice_pool *spot,
                         const struct advice_pool *od, char *why, size_t cap) {
    const struct advice_size *s = pool_size(in, spot), *o = pool_size(in, od);
    why[0] = '\0';
    if (!s || !o)
        return;
    if (pool_has_gpu(in, spot)) {
        if (s->gpu_model && o->gpu_model && strcmp(s->gpu_model, o->gpu_model) != 0)
            snprintf(why, cap, "GPU model %s instead of %s", o->gpu_model, s->gpu_model);
        else if (s->gpu_count > 0 && o->gpu_count >= 0 && o->gpu_count < s->gpu_count)
            snprintf(why, cap, "%lld GPU(s) instead of %lld", (long long)o->gpu_count,
                     (long long)s->gpu_count);
        else if (s->gpu_vram_gb > 0 && o->gpu_vram_gb >= 0 && o->gpu_vram_gb < s->gpu_vram_gb)
            snprintf(why, cap, "%lld GB of GPU memory instead of %lld", (long long)o->gpu_vram_gb,
                     (long long)s->gpu_vram_gb);
        return;
    }
    if (s->vcpus > 0 && o->vcpus >= 0 && o->vcpus < s->vcpus)
        snprintf(why, cap, "%lld vCPUs instead of %lld", (long long)o->vcpus, (long long)s->vcpus);
    else if (s->memory_mb > 0 && o->memory_mb >= 0 && o->memory_mb < s->memory_mb)
        snprintf(why, cap, "%lld MB of memory instead of %lld", (long long)o->memory_mb,
                 (long long)s->memory_mb);
}

static void ev_size(struct advice_ev *e, const char *key, const struct advice_size *z) {
    jsonw_key(&e->w, key);
    if (!z) {
        jsonw_null(&e->w);
        return;
    }
    jsonw_obj(&e->w);
    jsonw_kstr(&e->w, "slug", z->slug);
    advice_ev_opt_int(e, "vcpus", z->vcpus);
    advice_ev_opt_int(e, "memory_mb", z->memory_mb);
    advice_ev_opt_int(e, "gpu_count", z->gpu_count);
    jsonw_kstr(&e->w, "gpu_model", z->gpu_model);
    advice_ev_opt_int(e, "gpu_vram_gb", z->gpu_vram_gb);
    jsonw_obj_end(&e->w);
}

static size_t count_jobs(const struct advice_input *in, enum cost_config cfg) {
    size_t n = 0;
    for (size_t i = 0; i < in->n_jobs; i++)
        n += in->jobs[i].config == cfg;
    return n;
}

/* --- rule 1: system pool, and spotledger's own node ----------------------- */

static const char WHY_SYSTEM_POOL[] =
    "A Spot pool is reclaimed as a whole. Cluster services and spotledger itself must run on "
    "a pool that survives the reclaim, or the accounting stops exactly when it matters and "
    "DNS, the autoscaler and the watcher go down with the Spot nodes.";

void advice_rule_system_pool(struct advice_ctx *c) {
    const struct advice_input *in = c->in;
    size_t alive_pools = 0;
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (!advice_alive(p))
            continue;
        alive_pools++;
        if (!p->spot && !pool_has_gpu(in, p) && advice_hard_taints(p) == 0)
            return;
    }
    if (alive_pools == 0)
        return; /* no DigitalOcean data: nothing to say */
    struct advice_ev e;
    advice_ev_begin(&e);
    jsonw_key(&e.w, "pools");
    jsonw_arr(&e.w);
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (!advice_alive(p))
            continue;
        jsonw_obj(&e.w);
        advice_ev_pool(&e, p);
        jsonw_kbool(&e.w, "gpu", pool_has_gpu(in, p));
        jsonw_kint(&e.w, "hard_taints", (int64_t)advice_hard_taints(p));
        jsonw_obj_end(&e.w);
    }
    jsonw_arr_end(&e.w);
    advice_emit(
        c, ADVICE_SYSTEM_POOL, ADVICE_CRITICAL, NULL, NULL, xstrdup("cluster"),
        xstrdup("No On-Demand system pool without GPUs or taints"), advice_ev_end(&e),
        WHY_SYSTEM_POOL,
        advice_fmt("Create a small On-Demand CPU pool without taints and pin cluster services and "
                   "spotledger to it: doctl kubernetes cluster node-pool create %s --name system "
                   "--size s-2vcpu-4gb --count 2 --label pool-role=system (deploy/kubernetes/"
                   "deployment.yaml requires pool-role=system).",
                   advice_cluster_arg(in)));
}

static const char WHY_SELF_ON_SPOT[] =
    "spotledger runs on a Spot node: the reclaim it should record deletes its own node, so "
    "the reclaim timeline, the interrupted attempts and Job outcomes that finish meanwhile "
    "are lost or late.";

void advice_rule_self_on_spot(struct advice_ctx *c) {
    const struct advice_input *in = c->in;
    if (!in->self_node || !*in->self_node)
        return;
    const struct advice_node *n = NULL;
    for (size_t i = 0; i < in->n_nodes && !n; i++)
        if (advice_str_eq(in->nodes[i].name, in->self_node))
            n = &in->nodes[i];
    if (!n)
        return;
    const struct advice_pool *pool = NULL;
    for (size_t i = 0; i < in->n_pools && !pool; i++)
        if (advice_str_eq(in->pools[i].id, n->pool_id))
            pool = &in->pools[i];
    if (!n->spot && !(pool && pool->spot))
        return;
    struct advice_ev e;
    advice_ev_begin(&e);
    jsonw_kstr(&e.w, "node", n->name);
    jsonw_kstr(&e.w, "pod", in->self_pod);
    if (pool)
        advice_ev_pool(&e, pool);
    else
        jsonw_kstr(&e.w, "pool_id", n->pool_id);
    advice_emit(c, ADVICE_SELF_ON_SPOT, ADVICE_CRITICAL, pool, NULL, xstrdup(n->name),
                advice_fmt("spotledger itself runs on Spot node '%s'", n->name), advice_ev_end(&e),
                WHY_SELF_ON_SPOT,
                xstrdup("Require an On-Demand node for spotledger: a required nodeAffinity on "
                        "pool-role=system with NotIn spot for every --spot-label key, as in "
                        "deploy/kubernetes/deployment.yaml, then roll the Deployment."));
}

/* --- rule 2: Spot taint and tolerations ----------------------------------- */

static const char WHY_SPOT_TAINT[] =
    "Without a NoSchedule taint anything can land on the Spot pool: cluster services, "
    "databases, spotledger. They are evicted with the pool at every reclaim.";

void advice_rule_spot_taint(struct advice_ctx *c) {
    const struct advice_input *in = c->in;
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (!advice_alive(p) || !p->spot || advice_hard_taints(p) > 0)
            continue;
        struct advice_ev e;
        advice_ev_begin(&e);
        advice_ev_pool(&e, p);
        advice_ev_json(&e, "taints", p->taints_json ? p->taints_json : "[]");
        advice_emit(
            c, ADVICE_SPOT_TAINT, ADVICE_WARNING, p, NULL, xstrdup(advice_pool_label(p)),
            advice_fmt("Spot pool '%s' has no NoSchedule taint", advice_pool_label(p)),
            advice_ev_end(&e), WHY_SPOT_TAINT,
            advice_fmt("doctl kubernetes cluster node-pool update %s %s --taint "
                       "workload=gpu-batch:NoSchedule (repeat every --label and --taint: update "
                       "replaces them all), and give the Spot Jobs the matching toleration.",
                       advice_cluster_arg(in), advice_pool_label(p)));
    }
}

/* --- rule 3: a fallback pool of the same GPU ------------------------------ */

static const char WHY_FALLBACK_POOL[] =
    "DigitalOcean deletes a reclaimed Spot pool and does not relaunch it. Without an "
    "On-Demand pool that can run the same work, every interrupted task waits until someone "
    "recreates the pool; with a smaller GPU the retries fail or run slower.";

void advice_rule_fallback_pool(struct advice_ctx *c) {
    const struct advice_input *in = c->in;
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *s = &in->pools[i];
        if (!advice_alive(s) || !s->spot)
            continue;
        size_t cands = 0;
        const struct advice_pool *first_small = NULL;
        char why[160] = "", small_why[160] = "";
        for (size_t k = 0; k < in->n_pools; k++) {
            const struct advice_pool *o = &in->pools[k];
            if (!is_candidate(in, s, o))
                continue;
            cands++;
            smaller_than(in, s, o, why, sizeof why);
            if (!why[0]) {
                first_small = NULL;
                break; /* one that fits is enough */
            }
            if (!first_small) {
                first_small = o;
                snprintf(small_why, sizeof small_why, "%s", why);
            }
        }
        if (cands > 0 && !first_small)
            continue;
        struct advice_ev e;
        advice_ev_begin(&e);
        advice_ev_pool(&e, s);
        ev_size(&e, "spot_size", pool_size(in, s));
        size_t fallback_jobs = count_jobs(in, COST_FALLBACK);
        jsonw_kint(&e.w, "fallback_jobs", (int64_t)fallback_jobs);
        const char *gpu = pool_has_gpu(in, s) ? "GPU " : "";
        if (cands == 0) {
            jsonw_key(&e.w, "fallback_pools");
            jsonw_arr(&e.w);
            jsonw_arr_end(&e.w);
            char *twin = advice_ends_with(s->size, "-spot") ? xstrndup(s->size, strlen(s->size) - 5)
                                                            : xstrdup(s->size ? s->size : "<size>");
            advice_emit(
                c, ADVICE_FALLBACK_POOL, fallback_jobs > 0 ? ADVICE_CRITICAL : ADVICE_WARNING, s,
                NULL, xstrdup(advice_pool_label(s)),
                advice_fmt("Spot pool '%s' has no On-Demand %sfallback pool", advice_pool_label(s),
                           gpu),
                advice_ev_end(&e), WHY_FALLBACK_POOL,
                advice_fmt(
                    "doctl kubernetes cluster node-pool create %s --name %s-fallback --size %s "
                    "--count 1 --auto-scale --min-nodes 0 --max-nodes 2 (same labels and "
                    "taints as the Spot pool, without the spot label); see "
                    "deploy/examples/node-pools.sh.",
                    advice_cluster_arg(in), advice_pool_label(s), twin));
            free(twin);
            continue;
        }
        jsonw_kstr(&e.w, "fallback_pool", advice_pool_label(first_small));
        ev_size(&e, "fallback_size", pool_size(in, first_small));
        jsonw_kstr(&e.w, "smaller", small_why);
        advice_emit(
            c, ADVICE_FALLBACK_POOL, ADVICE_WARNING, s, NULL, xstrdup(advice_pool_label(s)),
            advice_fmt("The fallback pool of Spot pool '%s' is smaller: %s", advice_pool_label(s),
                       small_why),
            advice_ev_end(&e), WHY_FALLBACK_POOL,
            advice_fmt("Give the fallback pool the On-Demand twin of the Spot size (%s without "
                       "-spot): a new pool, since a pool's size cannot be changed.",
                       s->size ? s->size : "the slug"));
    }
}

/* --- rule 4: fixed-size Spot pool ----------------------------------------- */

static const char WHY_SPOT_AUTOSCALE[] =
    "The cluster autoscaler ignores a pool without auto-scale: it cannot grow Spot first "
    "(priority expander), cannot scale it to zero when idle, and Spot nodes sit idle and "
    "billed between batches.";

/* Reclaims of pool p in the window, and the latest signal among them. */
static size_t pool_reclaims(const struct advice_input *in, const struct advice_pool *p,
                            int64_t *last_signal) {
    size_t n = 0;
    *last_signal = 0;
    for (size_t r = 0; r < in->n_reclaims; r++) {
        const struct advice_reclaim *x = &in->reclaims[r];
        if (!advice_str_eq(x->pool_id, p->id))
            continue;
        n++;
        int64_t sig = x->signal_at ? x->signal_at : x->detected_at;
        if (sig > *last_signal)
            *last_signal = sig;
    }
    return n;
}

static bool reclaimed_fixed_spot(const struct advice_input *in, const struct advice_pool *p) {
    int64_t sig;
    return !advice_alive(p) && p->spot && !p->auto_scale && pool_reclaims(in, p, &sig) > 0;
}

/* A reclaimed (gone) pool is reported under its name unless a pool of that name
 * is alive (its current settings are what the alive check judges) or a later
 * reclaimed fixed-size pool of that name is reported instead (one finding per
 * name: ids stay unique). */
static bool superseded(const struct advice_input *in, const struct advice_pool *p) {
    for (size_t k = 0; k < in->n_pools; k++) {
        const struct advice_pool *q = &in->pools[k];
        if (q == p || !advice_str_eq(advice_pool_label(q), advice_pool_label(p)))
            continue;
        if (advice_alive(q))
            return true;
        if (reclaimed_fixed_spot(in, q) &&
            (q->deleted_at > p->deleted_at || (q->deleted_at == p->deleted_at &&
                                               strcmp(q->id ? q->id : "", p->id ? p->id : "") > 0)))
            return true;
    }
    return false;
}

void advice_rule_spot_autoscale(struct advice_ctx *c) {
    const struct advice_input *in = c->in;
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (!p->spot || p->auto_scale)
            continue;
        bool gone = !advice_alive(p);
        int64_t last_signal;
        size_t reclaims = pool_reclaims(in, p, &last_signal);
        /* a gone pool matters when it was reclaimed in the window: exactly the pool
         * whose settings decided how the reclaim went (README "Setup advice") */
        if (gone && (!reclaims || superseded(in, p)))
            continue;
        int64_t max = p->node_count > 0 ? p->node_count : 1;
        if (p->max_nodes > max)
            max = p->max_nodes;
        struct advice_ev e;
        advice_ev_begin(&e);
        advice_ev_pool(&e, p);
        jsonw_kbool(&e.w, "auto_scale", false);
        advice_ev_opt_int(&e, "node_count", p->node_count);
        if (reclaims) {
            jsonw_kint(&e.w, "reclaims", (int64_t)reclaims);
            jsonw_ktime(&e.w, "last_reclaim_signal_at", last_signal);
        }
        if (gone)
            jsonw_ktime(&e.w, "deleted_at", p->deleted_at);
        char *title =
            gone ? advice_fmt("Spot pool '%s' had a fixed size when it was reclaimed (the pool "
                              "is gone)",
                              advice_pool_label(p))
                 : advice_fmt("Spot pool '%s' has a fixed size", advice_pool_label(p));
        char *fix =
            gone ? advice_fmt("Recreate it with auto-scale: doctl kubernetes cluster node-pool "
                              "create %s --name %s --size %s --count 1 --auto-scale --min-nodes 0 "
                              "--max-nodes %lld (with its labels and taints)",
                              advice_cluster_arg(in), advice_pool_label(p),
                              p->size ? p->size : "SIZE", (long long)max)
                 : advice_fmt("doctl kubernetes cluster node-pool update %s %s --auto-scale "
                              "--min-nodes 0 --max-nodes %lld",
                              advice_cluster_arg(in), advice_pool_label(p), (long long)max);
        advice_emit(c, ADVICE_SPOT_AUTOSCALE, ADVICE_WARNING, p, NULL,
                    xstrdup(advice_pool_label(p)), title, advice_ev_end(&e), WHY_SPOT_AUTOSCALE,
                    fix);
    }
}

/* --- rule 5: fallback pool scaling from zero ------------------------------ */

static const char WHY_FALLBACK_MIN_NODES[] =
    "A fallback pool with min_nodes 0 must create a node after the reclaim: the interrupted "
    "tasks wait for the measured delay below, every time. One warm node removes the wait "
    "for its monthly price; whether that pays depends on the delay and how often Spot is "
    "reclaimed.";

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

const struct advice_pool *advice_pool_by_id(const struct advice_input *in, const char *id) {
    for (size_t i = 0; id && i < in->n_pools; i++)
        if (advice_str_eq(in->pools[i].id, id))
            return &in->pools[i];
    return NULL;
}

/* Seconds from the reclaim signal to the first Ready node of pool f; 0 when one
 * was already up; -1 when none came within the horizon. */
static int64_t replacement_delay(const struct advice_input *in, const struct advice_pool *f,
                                 int64_t sig) {
    int64_t best = -1;
    for (size_t i = 0; i < in->n_nodes; i++) {
        const struct advice_node *n = &in->nodes[i];
        if (!advice_str_eq(n->pool_id, f->id) || !n->ready_at)
            continue;
        if (n->ready_at <= sig && (!n->deleted_at || n->deleted_at > sig))
            return 0;
        if (n->ready_at > sig && n->ready_at <= sig + ADVICE_REPLACEMENT_HORIZON &&
            (best < 0 || n->ready_at - sig < best))
            best = n->ready_at - sig;
    }
    return best;
}

void advice_rule_fallback_min_nodes(struct advice_ctx *c) {
    const struct advice_input *in = c->in;
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *f = &in->pools[i];
        if (!advice_alive(f) || f->spot || !f->auto_scale || f->min_nodes != 0)
            continue;
        bool fallback = false;
        for (size_t k = 0; k < in->n_pools && !fallback; k++)
            fallback = in->pools[k].spot && advice_alive(&in->pools[k]) &&
                       is_candidate(in, &in->pools[k], f);
        int64_t *delays = xcalloc(in->n_reclaims + 1, sizeof *delays);
        size_t nd = 0, not_replaced = 0;
        struct advice_ev e;
        advice_ev_begin(&e);
        advice_ev_pool(&e, f);
        jsonw_kint(&e.w, "min_nodes", 0);
        advice_ev_opt_int(&e, "max_nodes", f->max_nodes);
        jsonw_key(&e.w, "reclaims");
        jsonw_arr(&e.w);
        for (size_t r = 0; r < in->n_reclaims; r++) {
            const struct advice_reclaim *rc = &in->reclaims[r];
            const struct advice_pool *s = advice_pool_by_id(in, rc->pool_id);
            if (!s || !s->spot || !is_candidate(in, s, f))
                continue;
            fallback = true;
            int64_t sig = rc->signal_at ? rc->signal_at : rc->detected_at;
            int64_t d = replacement_delay(in, f, sig);
            jsonw_obj(&e.w);
            jsonw_kstr(&e.w, "spot_pool", advice_pool_label(s));
            jsonw_ktime(&e.w, "signal_at", sig);
            advice_ev_opt_int(&e, "replacement_delay_seconds", d);
            jsonw_obj_end(&e.w);
            if (d >= 0)
                delays[nd++] = d;
            else
                not_replaced++;
        }
        jsonw_arr_end(&e.w);
        if (!fallback) {
            free(advice_ev_end(&e));
            free(delays);
            continue;
        }
        qsort(delays, nd, sizeof *delays, cmp_i64);
        int64_t median = nd ? delays[(nd - 1) / 2] : -1, max = nd ? delays[nd - 1] : -1;
        advice_ev_opt_int(&e, "median_delay_seconds", median);
        advice_ev_opt_int(&e, "max_delay_seconds", max);
        jsonw_kint(&e.w, "not_replaced", (int64_t)not_replaced);
        if (f->price_hourly > 0)
            jsonw_kmoney(&e.w, "warm_node_monthly_cost", f->price_hourly * 672);
        free(delays);
        enum advice_severity sev =
            median > ADVICE_SLOW_REPLACEMENT_SECONDS ? ADVICE_WARNING : ADVICE_INFO;
        int64_t max_nodes = f->max_nodes > 1 ? f->max_nodes : 2;
        char *title =
            median == 0
                ? advice_fmt("Fallback pool '%s' scales from zero (a node was already up at "
                             "the reclaims measured)",
                             advice_pool_label(f))
            : median > 0
                ? advice_fmt("Fallback pool '%s' scales from zero: %llds to replace Spot (median)",
                             advice_pool_label(f), (long long)median)
                : advice_fmt("Fallback pool '%s' scales from zero", advice_pool_label(f));
        advice_emit(
            c, ADVICE_FALLBACK_MIN_NODES, sev, f, NULL, xstrdup(advice_pool_label(f)), title,
            advice_ev_end(&e), WHY_FALLBACK_MIN_NODES,
            advice_fmt(
                "To keep one node warm: doctl kubernetes cluster node-pool update %s %s "
                "--auto-scale --min-nodes 1 --max-nodes %lld (costs warm_node_monthly_cost a "
                "month). Otherwise silence with --ignore-advice %s:%s.",
                advice_cluster_arg(in), advice_pool_label(f), (long long)max_nodes,
                ADVICE_FALLBACK_MIN_NODES, advice_pool_label(f)));
    }
}
