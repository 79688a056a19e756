/* advice — the setup advisor's rules (advice.h). Each rule is one static
 * function that reads the input and calls emit(); emit() applies silencing,
 * builds the id and owns the strings; advice_run sorts at the end. */
#include "engine/advice.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "model/labels.h"
#include "base/xalloc.h"

/* --- small helpers -------------------------------------------------------- */

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
    struct buf b;
    buf_init(&b, 0);
    va_list ap;
    va_start(ap, f);
    buf_vprintf(&b, f, ap);
    va_end(ap);
    return buf_detach(&b, NULL);
}

static bool str_eq(const char *a, const char *b) {
    return a && b && strcmp(a, b) == 0;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = s ? strlen(s) : 0, m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

static const char *pool_label(const struct advice_pool *p) {
    return p->name && *p->name ? p->name : p->id;
}

static const char *cluster_arg(const struct advice_input *in) {
    return in->cluster && *in->cluster ? in->cluster : "<cluster>";
}

/* json-c parse of a stored JSON column; NULL when absent or malformed. */
static json_object *jparse(const char *s) {
    return s && *s ? json_tokener_parse(s) : NULL;
}

static json_object *jget(json_object *o, const char *k) {
    json_object *v = NULL;
    if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, k, &v))
        return NULL;
    return v;
}

static const char *jstr(json_object *o, const char *k) {
    json_object *v = jget(o, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static size_t jlen(json_object *a) {
    return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

bool advice_list_has(const char *list, const char *rule) {
    if (!list || !rule)
        return false;
    size_t rl = strlen(rule);
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        const char *e = p;
        while (*e && *e != ',')
            e++;
        const char *t = e;
        while (t > p && t[-1] == ' ')
            t--;
        size_t n = (size_t)(t - p);
        if ((n == rl && strncmp(p, rule, n) == 0) || (n == 3 && strncmp(p, "all", 3) == 0))
            return true;
        p = e;
    }
    return false;
}

const char *advice_severity_name(enum advice_severity s) {
    switch (s) {
    case ADVICE_CRITICAL:
        return "critical";
    case ADVICE_WARNING:
        return "warning";
    case ADVICE_INFO:
        return "info";
    }
    return "info";
}

/* --- evidence writer ------------------------------------------------------ */

struct ev {
    struct buf b;
    struct jsonw w;
};

static void ev_begin(struct ev *e) {
    buf_init(&e->b, 0);
    jsonw_init(&e->w, &e->b);
    jsonw_obj(&e->w);
}

static char *ev_end(struct ev *e) {
    jsonw_obj_end(&e->w);
    return buf_detach(&e->b, NULL);
}

/* A stored JSON value under key, re-serialized (so the evidence is valid JSON
 * whatever the column held); null when absent or malformed. */
static void ev_json(struct ev *e, const char *key, const char *json) {
    jsonw_key(&e->w, key);
    json_object *o = jparse(json);
    if (!o) {
        jsonw_null(&e->w);
        return;
    }
    jsonw_raw(&e->w, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
}

static void ev_jobj(struct ev *e, const char *key, json_object *o) {
    jsonw_key(&e->w, key);
    if (!o) {
        jsonw_null(&e->w);
        return;
    }
    jsonw_raw(&e->w, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE));
}

static void ev_opt_int(struct ev *e, const char *key, int64_t v) {
    jsonw_key(&e->w, key);
    if (v < 0 || v == COST_NULL)
        jsonw_null(&e->w);
    else
        jsonw_int(&e->w, v);
}

static void ev_pool(struct ev *e, const struct advice_pool *p) {
    jsonw_kstr(&e->w, "pool", pool_label(p));
    jsonw_kstr(&e->w, "pool_id", p->id);
    jsonw_kstr(&e->w, "size", p->size);
    jsonw_kstr(&e->w, "capacity_type", p->spot ? "spot" : "on-demand");
}

static void ev_job(struct ev *e, const struct advice_job *j) {
    jsonw_kstr(&e->w, "namespace", j->ns);
    jsonw_kstr(&e->w, "job", j->name);
    jsonw_kstr(&e->w, "job_uid", j->uid);
    jsonw_kstr(&e->w, "configuration", cost_config_name(j->config));
}

/* --- the run context and emit() ------------------------------------------- */

struct ctx {
    const struct advice_input *in;
    struct advice_result *r;
    size_t cap;
};

static bool silenced(const struct ctx *c, const char *rule, const struct advice_pool *pool,
                     const char *job_ignore) {
    if (advice_list_has(job_ignore, rule))
        return true;
    for (size_t i = 0; i < c->in->n_ignore; i++) {
        const char *e = c->in->ignore[i];
        if (!e)
            continue;
        const char *colon = strchr(e, ':');
        size_t rl = colon ? (size_t)(colon - e) : strlen(e);
        bool rule_ok = (rl == strlen(rule) && strncmp(e, rule, rl) == 0) ||
                       (rl == 3 && strncmp(e, "all", 3) == 0);
        if (!rule_ok)
            continue;
        if (!colon)
            return true;
        const char *target = colon + 1;
        if (pool && (str_eq(target, pool->id) || str_eq(target, pool->name)))
            return true;
    }
    return false;
}

/* Takes ownership of object, title, evidence and fix. */
static void emit(struct ctx *c, const char *rule, enum advice_severity sev,
                 const struct advice_pool *pool, const char *job_ignore, char *object, char *title,
                 char *evidence, const char *why, char *fix) {
    if (silenced(c, rule, pool, job_ignore)) {
        c->r->silenced++;
        free(object);
        free(title);
        free(evidence);
        free(fix);
        return;
    }
    if (c->r->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->r->v = xrealloc(c->r->v, c->cap * sizeof *c->r->v);
    }
    struct advice_finding *f = &c->r->v[c->r->n++];
    f->rule = rule;
    f->severity = sev;
    f->object = object;
    f->id = fmt("%s:%s", rule, object);
    f->title = title;
    f->evidence = evidence;
    f->why = why;
    f->fix = fix;
    c->r->counts[sev]++;
}

/* --- pools, sizes, taints ------------------------------------------------- */

static bool alive(const struct advice_pool *p) {
    return p->deleted_at == 0;
}

static const struct advice_size *find_size(const struct advice_input *in, const char *slug) {
    if (!slug)
        return NULL;
    for (size_t i = 0; i < in->n_sizes; i++)
        if (str_eq(in->sizes[i].slug, slug))
            return &in->sizes[i];
    return NULL;
}

/* The size of a pool; a Spot slug missing from /v2/sizes borrows its twin's. */
static const struct advice_size *pool_size(const struct advice_input *in,
                                           const struct advice_pool *p) {
    const struct advice_size *z = find_size(in, p->size);
    if (!z && ends_with(p->size, "-spot")) {
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
    return str_eq(effect, "NoSchedule") || str_eq(effect, "NoExecute");
}

/* Number of NoSchedule/NoExecute taints of a pool. */
static size_t hard_taints(const struct advice_pool *p) {
    json_object *t = jparse(p->taints_json);
    size_t n = 0;
    for (size_t i = 0; i < jlen(t); i++)
        if (hard_effect(jstr(json_object_array_get_idx(t, i), "effect")))
            n++;
    json_object_put(t);
    return n;
}

/* Kubernetes' ToleratesTaint (k8s.io/api/core/v1 toleration.go). */
static bool tolerates(json_object *tol, const char *key, const char *value, const char *effect) {
    const char *te = jstr(tol, "effect"), *tk = jstr(tol, "key"), *op = jstr(tol, "operator");
    if (te && *te && !str_eq(te, effect))
        return false;
    bool exists = str_eq(op, "Exists");
    if (!tk || !*tk)
        return exists; /* an empty key with Exists matches every taint */
    if (!str_eq(tk, key))
        return false;
    if (exists)
        return true;
    const char *tv = jstr(tol, "value");
    return strcmp(tv ? tv : "", value ? value : "") == 0;
}

/* Every hard taint of the pool is tolerated by one of tolerations. */
static bool tolerates_pool(json_object *tolerations, const struct advice_pool *p) {
    json_object *t = jparse(p->taints_json);
    bool ok = true;
    for (size_t i = 0; ok && i < jlen(t); i++) {
        json_object *taint = json_object_array_get_idx(t, i);
        const char *effect = jstr(taint, "effect");
        if (!hard_effect(effect))
            continue;
        bool one = false;
        for (size_t k = 0; !one && k < jlen(tolerations); k++)
            one = tolerates(json_object_array_get_idx(tolerations, k), jstr(taint, "key"),
                            jstr(taint, "value"), effect);
        ok = one;
    }
    json_object_put(t);
    return ok;
}

/* The fallback candidates of a Spot pool: alive On-Demand pools of the same
 * kind (GPU pools for a GPU pool, CPU pools for a CPU pool). */
static bool is_candidate(const struct advice_input *in, const struct advice_pool *spot,
                         const struct advice_pool *od) {
    return !od->spot && alive(od) && pool_has_gpu(in, od) == pool_has_gpu(in, spot);
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

static void ev_size(struct ev *e, const char *key, const struct advice_size *z) {
    jsonw_key(&e->w, key);
    if (!z) {
        jsonw_null(&e->w);
        return;
    }
    jsonw_obj(&e->w);
    jsonw_kstr(&e->w, "slug", z->slug);
    ev_opt_int(e, "vcpus", z->vcpus);
    ev_opt_int(e, "memory_mb", z->memory_mb);
    ev_opt_int(e, "gpu_count", z->gpu_count);
    jsonw_kstr(&e->w, "gpu_model", z->gpu_model);
    ev_opt_int(e, "gpu_vram_gb", z->gpu_vram_gb);
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

static void rule_system_pool(struct ctx *c) {
    const struct advice_input *in = c->in;
    size_t alive_pools = 0;
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (!alive(p))
            continue;
        alive_pools++;
        if (!p->spot && !pool_has_gpu(in, p) && hard_taints(p) == 0)
            return;
    }
    if (alive_pools == 0)
        return; /* no DigitalOcean data: nothing to say */
    struct ev e;
    ev_begin(&e);
    jsonw_key(&e.w, "pools");
    jsonw_arr(&e.w);
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (!alive(p))
            continue;
        jsonw_obj(&e.w);
        ev_pool(&e, p);
        jsonw_kbool(&e.w, "gpu", pool_has_gpu(in, p));
        jsonw_kint(&e.w, "hard_taints", (int64_t)hard_taints(p));
        jsonw_obj_end(&e.w);
    }
    jsonw_arr_end(&e.w);
    emit(c, ADVICE_SYSTEM_POOL, ADVICE_CRITICAL, NULL, NULL, xstrdup("cluster"),
         xstrdup("No On-Demand system pool without GPUs or taints"), ev_end(&e), WHY_SYSTEM_POOL,
         fmt("Create a small On-Demand CPU pool without taints and pin cluster services and "
             "spotledger to it: doctl kubernetes cluster node-pool create %s --name system "
             "--size s-2vcpu-4gb --count 2 --label pool-role=system (deploy/kubernetes/"
             "deployment.yaml requires pool-role=system).",
             cluster_arg(in)));
}

static const char WHY_SELF_ON_SPOT[] =
    "spotledger runs on a Spot node: the reclaim it should record deletes its own node, so "
    "the reclaim timeline, the interrupted attempts and Job outcomes that finish meanwhile "
    "are lost or late.";

static void rule_self_on_spot(struct ctx *c) {
    const struct advice_input *in = c->in;
    if (!in->self_node || !*in->self_node)
        return;
    const struct advice_node *n = NULL;
    for (size_t i = 0; i < in->n_nodes && !n; i++)
        if (str_eq(in->nodes[i].name, in->self_node))
            n = &in->nodes[i];
    if (!n)
        return;
    const struct advice_pool *pool = NULL;
    for (size_t i = 0; i < in->n_pools && !pool; i++)
        if (str_eq(in->pools[i].id, n->pool_id))
            pool = &in->pools[i];
    if (!n->spot && !(pool && pool->spot))
        return;
    struct ev e;
    ev_begin(&e);
    jsonw_kstr(&e.w, "node", n->name);
    jsonw_kstr(&e.w, "pod", in->self_pod);
    if (pool)
        ev_pool(&e, pool);
    else
        jsonw_kstr(&e.w, "pool_id", n->pool_id);
    emit(c, ADVICE_SELF_ON_SPOT, ADVICE_CRITICAL, pool, NULL, xstrdup(n->name),
         fmt("spotledger itself runs on Spot node '%s'", n->name), ev_end(&e), WHY_SELF_ON_SPOT,
         xstrdup("Require an On-Demand node for spotledger: a required nodeAffinity on "
                 "pool-role=system with NotIn spot for every --spot-label key, as in "
                 "deploy/kubernetes/deployment.yaml, then roll the Deployment."));
}

/* --- rule 2: Spot taint and tolerations ----------------------------------- */

static const char WHY_SPOT_TAINT[] =
    "Without a NoSchedule taint anything can land on the Spot pool: cluster services, "
    "databases, spotledger. They are evicted with the pool at every reclaim.";

static void rule_spot_taint(struct ctx *c) {
    const struct advice_input *in = c->in;
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (!alive(p) || !p->spot || hard_taints(p) > 0)
            continue;
        struct ev e;
        ev_begin(&e);
        ev_pool(&e, p);
        ev_json(&e, "taints", p->taints_json ? p->taints_json : "[]");
        emit(c, ADVICE_SPOT_TAINT, ADVICE_WARNING, p, NULL, xstrdup(pool_label(p)),
             fmt("Spot pool '%s' has no NoSchedule taint", pool_label(p)), ev_end(&e),
             WHY_SPOT_TAINT,
             fmt("doctl kubernetes cluster node-pool update %s %s --taint "
                 "workload=gpu-batch:NoSchedule (repeat every --label and --taint: update "
                 "replaces them all), and give the Spot Jobs the matching toleration.",
                 cluster_arg(in), pool_label(p)));
    }
}

static const char WHY_SPOT_TOLERATION[] =
    "The Job does not tolerate the taints of any Spot pool, so its pods can never run on "
    "Spot: a 'spot' Job waits for a node forever (or lands On-Demand), a 'fallback' Job "
    "always pays the On-Demand price while it is accounted as Spot work.";

static void rule_spot_toleration(struct ctx *c, const struct advice_job *j, json_object *spec,
                                 const char *ignore) {
    const struct advice_input *in = c->in;
    if (j->config == COST_ON_DEMAND)
        return;
    json_object *tol = jget(spec, "tolerations");
    size_t tainted = 0;
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (!alive(p) || !p->spot)
            continue;
        if (hard_taints(p) == 0 || tolerates_pool(tol, p))
            return; /* some Spot pool takes it */
        tainted++;
    }
    if (tainted == 0)
        return;
    struct ev e;
    ev_begin(&e);
    ev_job(&e, j);
    ev_jobj(&e, "tolerations", tol);
    jsonw_key(&e.w, "spot_pools");
    jsonw_arr(&e.w);
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (!alive(p) || !p->spot)
            continue;
        jsonw_obj(&e.w);
        jsonw_kstr(&e.w, "pool", pool_label(p));
        ev_json(&e, "taints", p->taints_json);
        jsonw_obj_end(&e.w);
    }
    jsonw_arr_end(&e.w);
    emit(c, ADVICE_SPOT_TOLERATION, j->config == COST_SPOT ? ADVICE_CRITICAL : ADVICE_WARNING, NULL,
         ignore, fmt("%s/%s", j->ns, j->name),
         fmt("%s Job '%s/%s' does not tolerate the Spot pool's taints",
             j->config == COST_SPOT ? "Spot" : "Fallback", j->ns, j->name),
         ev_end(&e), WHY_SPOT_TOLERATION,
         xstrdup("Add a toleration for each NoSchedule taint of the Spot pool to "
                 "spec.template.spec.tolerations (e.g. key: workload, operator: Equal, value: "
                 "gpu-batch, effect: NoSchedule), as in deploy/examples/job-fallback.yaml."));
}

/* --- rule 3: a fallback pool of the same GPU ------------------------------ */

static const char WHY_FALLBACK_POOL[] =
    "DigitalOcean deletes a reclaimed Spot pool and does not relaunch it. Without an "
    "On-Demand pool that can run the same work, every interrupted task waits until someone "
    "recreates the pool; with a smaller GPU the retries fail or run slower.";

static void rule_fallback_pool(struct ctx *c) {
    const struct advice_input *in = c->in;
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *s = &in->pools[i];
        if (!alive(s) || !s->spot)
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
        struct ev e;
        ev_begin(&e);
        ev_pool(&e, s);
        ev_size(&e, "spot_size", pool_size(in, s));
        size_t fallback_jobs = count_jobs(in, COST_FALLBACK);
        jsonw_kint(&e.w, "fallback_jobs", (int64_t)fallback_jobs);
        const char *gpu = pool_has_gpu(in, s) ? "GPU " : "";
        if (cands == 0) {
            jsonw_key(&e.w, "fallback_pools");
            jsonw_arr(&e.w);
            jsonw_arr_end(&e.w);
            char *twin = ends_with(s->size, "-spot") ? xstrndup(s->size, strlen(s->size) - 5)
                                                     : xstrdup(s->size ? s->size : "<size>");
            emit(c, ADVICE_FALLBACK_POOL, fallback_jobs > 0 ? ADVICE_CRITICAL : ADVICE_WARNING, s,
                 NULL, xstrdup(pool_label(s)),
                 fmt("Spot pool '%s' has no On-Demand %sfallback pool", pool_label(s), gpu),
                 ev_end(&e), WHY_FALLBACK_POOL,
                 fmt("doctl kubernetes cluster node-pool create %s --name %s-fallback --size %s "
                     "--count 1 --auto-scale --min-nodes 0 --max-nodes 2 (same labels and "
                     "taints as the Spot pool, without the spot label); see "
                     "deploy/examples/node-pools.sh.",
                     cluster_arg(in), pool_label(s), twin));
            free(twin);
            continue;
        }
        jsonw_kstr(&e.w, "fallback_pool", pool_label(first_small));
        ev_size(&e, "fallback_size", pool_size(in, first_small));
        jsonw_kstr(&e.w, "smaller", small_why);
        emit(c, ADVICE_FALLBACK_POOL, ADVICE_WARNING, s, NULL, xstrdup(pool_label(s)),
             fmt("The fallback pool of Spot pool '%s' is smaller: %s", pool_label(s), small_why),
             ev_end(&e), WHY_FALLBACK_POOL,
             fmt("Give the fallback pool the On-Demand twin of the Spot size (%s without "
                 "-spot): a new pool, since a pool's size cannot be changed.",
                 s->size ? s->size : "the slug"));
    }
}

/* --- rule 4: fixed-size Spot pool ----------------------------------------- */

static const char WHY_SPOT_AUTOSCALE[] =
    "The cluster autoscaler ignores a pool without auto-scale: it cannot grow Spot first "
    "(priority expander), cannot scale it to zero when idle, and Spot nodes sit idle and "
    "billed between batches.";

static void rule_spot_autoscale(struct ctx *c) {
    const struct advice_input *in = c->in;
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (!alive(p) || !p->spot || p->auto_scale)
            continue;
        int64_t max = p->node_count > 0 ? p->node_count : 1;
        if (p->max_nodes > max)
            max = p->max_nodes;
        struct ev e;
        ev_begin(&e);
        ev_pool(&e, p);
        jsonw_kbool(&e.w, "auto_scale", false);
        ev_opt_int(&e, "node_count", p->node_count);
        emit(c, ADVICE_SPOT_AUTOSCALE, ADVICE_WARNING, p, NULL, xstrdup(pool_label(p)),
             fmt("Spot pool '%s' has a fixed size", pool_label(p)), ev_end(&e), WHY_SPOT_AUTOSCALE,
             fmt("doctl kubernetes cluster node-pool update %s %s --auto-scale --min-nodes 0 "
                 "--max-nodes %lld",
                 cluster_arg(in), pool_label(p), (long long)max));
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

static const struct advice_pool *pool_by_id(const struct advice_input *in, const char *id) {
    for (size_t i = 0; id && i < in->n_pools; i++)
        if (str_eq(in->pools[i].id, id))
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
        if (!str_eq(n->pool_id, f->id) || !n->ready_at)
            continue;
        if (n->ready_at <= sig && (!n->deleted_at || n->deleted_at > sig))
            return 0;
        if (n->ready_at > sig && n->ready_at <= sig + ADVICE_REPLACEMENT_HORIZON &&
            (best < 0 || n->ready_at - sig < best))
            best = n->ready_at - sig;
    }
    return best;
}

static void rule_fallback_min_nodes(struct ctx *c) {
    const struct advice_input *in = c->in;
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *f = &in->pools[i];
        if (!alive(f) || f->spot || !f->auto_scale || f->min_nodes != 0)
            continue;
        bool fallback = false;
        for (size_t k = 0; k < in->n_pools && !fallback; k++)
            fallback =
                in->pools[k].spot && alive(&in->pools[k]) && is_candidate(in, &in->pools[k], f);
        int64_t *delays = xcalloc(in->n_reclaims + 1, sizeof *delays);
        size_t nd = 0, not_replaced = 0;
        struct ev e;
        ev_begin(&e);
        ev_pool(&e, f);
        jsonw_kint(&e.w, "min_nodes", 0);
        ev_opt_int(&e, "max_nodes", f->max_nodes);
        jsonw_key(&e.w, "reclaims");
        jsonw_arr(&e.w);
        for (size_t r = 0; r < in->n_reclaims; r++) {
            const struct advice_reclaim *rc = &in->reclaims[r];
            const struct advice_pool *s = pool_by_id(in, rc->pool_id);
            if (!s || !s->spot || !is_candidate(in, s, f))
                continue;
            fallback = true;
            int64_t sig = rc->signal_at ? rc->signal_at : rc->detected_at;
            int64_t d = replacement_delay(in, f, sig);
            jsonw_obj(&e.w);
            jsonw_kstr(&e.w, "spot_pool", pool_label(s));
            jsonw_ktime(&e.w, "signal_at", sig);
            ev_opt_int(&e, "replacement_delay_seconds", d);
            jsonw_obj_end(&e.w);
            if (d >= 0)
                delays[nd++] = d;
            else
                not_replaced++;
        }
        jsonw_arr_end(&e.w);
        if (!fallback) {
            free(ev_end(&e));
            free(delays);
            continue;
        }
        qsort(delays, nd, sizeof *delays, cmp_i64);
        int64_t median = nd ? delays[(nd - 1) / 2] : -1, max = nd ? delays[nd - 1] : -1;
        ev_opt_int(&e, "median_delay_seconds", median);
        ev_opt_int(&e, "max_delay_seconds", max);
        jsonw_kint(&e.w, "not_replaced", (int64_t)not_replaced);
        if (f->price_hourly > 0)
            jsonw_kmoney(&e.w, "warm_node_monthly_cost", f->price_hourly * 672);
        free(delays);
        enum advice_severity sev =
            median > ADVICE_SLOW_REPLACEMENT_SECONDS ? ADVICE_WARNING : ADVICE_INFO;
        int64_t max_nodes = f->max_nodes > 1 ? f->max_nodes : 2;
        char *title =
            median == 0 ? fmt("Fallback pool '%s' scales from zero (a node was already up at "
                              "the reclaims measured)",
                              pool_label(f))
            : median > 0
                ? fmt("Fallback pool '%s' scales from zero: %llds to replace Spot (median)",
                      pool_label(f), (long long)median)
                : fmt("Fallback pool '%s' scales from zero", pool_label(f));
        emit(c, ADVICE_FALLBACK_MIN_NODES, sev, f, NULL, xstrdup(pool_label(f)), title, ev_end(&e),
             WHY_FALLBACK_MIN_NODES,
             fmt("To keep one node warm: doctl kubernetes cluster node-pool update %s %s "
                 "--auto-scale --min-nodes 1 --max-nodes %lld (costs warm_node_monthly_cost a "
                 "month). Otherwise silence with --ignore-advice %s:%s.",
                 cluster_arg(in), pool_label(f), (long long)max_nodes, ADVICE_FALLBACK_MIN_NODES,
                 pool_label(f)));
    }
}

/* --- rule 6: podFailurePolicy --------------------------------------------- */

static const char WHY_POD_FAILURE_POLICY[] =
    "Without a podFailurePolicy rule that Ignores DisruptionTarget, each pod a reclaim "
    "evicts counts as a failure against backoffLimit: a few reclaims fail a healthy Job, "
    "and a real bug gets fewer retries.";

static void rule_pod_failure_policy(struct ctx *c, const struct advice_job *j, const char *ignore) {
    if (j->config == COST_ON_DEMAND || j->pfp_ignores_disruption)
        return;
    bool burned = j->tasks_failed > 0 && j->interrupted > 0;
    struct ev e;
    ev_begin(&e);
    ev_job(&e, j);
    ev_opt_int(&e, "backoff_limit", j->backoff_limit);
    jsonw_kint(&e.w, "effective_backoff_limit", j->backoff_limit >= 0 ? j->backoff_limit : 6);
    jsonw_kbool(&e.w, "has_pod_failure_policy", j->has_pod_failure_policy);
    jsonw_kint(&e.w, "attempts", j->attempts);
    jsonw_kint(&e.w, "retries_consumed_by_reclaims", j->interrupted);
    jsonw_kint(&e.w, "tasks_failed", j->tasks_failed);
    emit(c, ADVICE_POD_FAILURE_POLICY, burned ? ADVICE_CRITICAL : ADVICE_WARNING, NULL, ignore,
         fmt("%s/%s", j->ns, j->name),
         j->interrupted > 0
             ? fmt("Reclaims used %lld of Job '%s/%s''s retries", (long long)j->interrupted, j->ns,
                   j->name)
             : fmt("Job '%s/%s' would count reclaims against its backoffLimit", j->ns, j->name),
         ev_end(&e), WHY_POD_FAILURE_POLICY,
         xstrdup("spec.podFailurePolicy.rules: [{action: Ignore, onPodConditions: [{type: "
                 "DisruptionTarget}]}] with restartPolicy: Never (see "
                 "deploy/examples/job-fallback.yaml)."));
}

/* --- rule 7: ttlSecondsAfterFinished -------------------------------------- */

static const char WHY_TTL[] =
    "A finished Job is deleted ttlSecondsAfterFinished after it ends, its pods with it. If "
    "that is shorter than the time spotledger may need to see it (a resync interval, a "
    "restart, the lag observed), the outcome is never recorded and the task's cost has no "
    "success to divide by.";

static void rule_ttl(struct ctx *c, const struct advice_job *j, const char *ignore) {
    const struct advice_input *in = c->in;
    int64_t need = in->poll_interval > 0 ? in->poll_interval : 0;
    if (in->watch_lag_seconds > need)
        need = in->watch_lag_seconds;
    if (j->ttl_after_finished < 0 || j->ttl_after_finished >= need)
        return;
    struct ev e;
    ev_begin(&e);
    ev_job(&e, j);
    jsonw_kint(&e.w, "ttl_seconds_after_finished", j->ttl_after_finished);
    jsonw_kint(&e.w, "poll_interval_seconds", in->poll_interval);
    ev_opt_int(&e, "observed_watch_lag_seconds", in->watch_lag_seconds);
    jsonw_kint(&e.w, "outcomes_lost", j->outcomes_lost);
    emit(c, ADVICE_TTL_TOO_SHORT, j->outcomes_lost > 0 ? ADVICE_CRITICAL : ADVICE_WARNING, NULL,
         ignore, fmt("%s/%s", j->ns, j->name),
         fmt("Job '%s/%s' is deleted %llds after it finishes, before spotledger may see it", j->ns,
             j->name, (long long)j->ttl_after_finished),
         ev_end(&e), WHY_TTL,
         fmt("Set spec.ttlSecondsAfterFinished to at least %lld; %d (a day) also covers a "
             "spotledger restart.",
             (long long)(3 * need), ADVICE_TTL_SUGGESTED));
}

/* --- rule 8: required Spot affinity on a fallback Job --------------------- */

static const char WHY_REQUIRED_AFFINITY[] =
    "A required node affinity or nodeSelector on Spot makes the scheduler refuse every "
    "other node: after a reclaim the retries stay Pending until a Spot pool exists again. "
    "The Job is labelled 'fallback' but can never fail over.";

static bool spot_pair(const struct advice_input *in, const char *key, const char *value) {
    for (size_t i = 0; i < in->n_spot_labels; i++)
        if (str_eq(in->spot_labels[i].key, key) && str_eq(in->spot_labels[i].value, value))
            return true;
    bool by_name = str_eq(key, K8S_LABEL_POOL_NAME), by_id = str_eq(key, K8S_LABEL_POOL_ID);
    for (size_t i = 0; (by_name || by_id) && i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (p->spot && str_eq(by_name ? p->name : p->id, value))
            return true;
    }
    return false;
}

/* A nodeSelectorTerm that only Spot nodes can satisfy: one In expression all of
 * whose values are Spot labels. */
static bool term_requires_spot(const struct advice_input *in, json_object *term) {
    json_object *exprs = jget(term, "matchExpressions");
    for (size_t i = 0; i < jlen(exprs); i++) {
        json_object *x = json_object_array_get_idx(exprs, i);
        json_object *vals = jget(x, "values");
        if (!str_eq(jstr(x, "operator"), "In") || jlen(vals) == 0)
            continue;
        bool all = true;
        for (size_t k = 0; all && k < jlen(vals); k++) {
            json_object *v = json_object_array_get_idx(vals, k);
            all = json_object_is_type(v, json_type_string) &&
                  spot_pair(in, jstr(x, "key"), json_object_get_string(v));
        }
        if (all)
            return true;
    }
    return false;
}

static void rule_required_affinity(struct ctx *c, const struct advice_job *j, json_object *spec,
                                   const char *ignore) {
    const struct advice_input *in = c->in;
    if (j->config != COST_FALLBACK)
        return;
    const char *how = NULL;
    json_object *sel = jget(spec, "nodeSelector");
    if (sel && json_object_is_type(sel, json_type_object)) {
        json_object_object_foreach(sel, k, v) {
            if (json_object_is_type(v, json_type_string) &&
                spot_pair(in, k, json_object_get_string(v)))
                how = "nodeSelector";
        }
    }
    json_object *terms = jget(spec, "requiredNodeAffinity");
    if (!how && jlen(terms) > 0) {
        bool all = true;
        for (size_t i = 0; all && i < jlen(terms); i++)
            all = term_requires_spot(in, json_object_array_get_idx(terms, i));
        if (all)
            how = "requiredDuringSchedulingIgnoredDuringExecution";
    }
    if (!how)
        return;
    struct ev e;
    ev_begin(&e);
    ev_job(&e, j);
    jsonw_kstr(&e.w, "required_by", how);
    ev_jobj(&e, "nodeSelector", sel);
    ev_jobj(&e, "requiredNodeAffinity", terms);
    emit(c, ADVICE_REQUIRED_SPOT_AFFINITY, ADVICE_CRITICAL, NULL, ignore,
         fmt("%s/%s", j->ns, j->name),
         fmt("Fallback Job '%s/%s' requires Spot nodes (%s)", j->ns, j->name, how), ev_end(&e),
         WHY_REQUIRED_AFFINITY,
         xstrdup("Move the Spot term to preferredDuringSchedulingIgnoredDuringExecution "
                 "(weight 100) as in deploy/examples/job-fallback.yaml, or label the Job "
                 "spotledger.io/configuration: spot if it must only run on Spot."));
}

/* --- rule 9: checkpoints -------------------------------------------------- */

static const char WHY_NO_CHECKPOINTS[] =
    "Reclaims cost this configuration more than Spot saves (measured overhead above the "
    "break-even overhead) and no attempt reported checkpoint_seconds: every interruption "
    "restarts its task from zero. Checkpointing bounds the lost work to one interval.";

static int64_t isqrt(int64_t v) {
    if (v <= 0)
        return 0;
    int64_t r = 0, bit = (int64_t)1 << 62;
    while (bit > v)
        bit >>= 2;
    while (bit) {
        if (v >= r + bit) {
            v -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return r;
}

static void rule_no_checkpoints(struct ctx *c) {
    const struct advice_input *in = c->in;
    static const enum cost_config cfgs[] = {COST_SPOT, COST_FALLBACK};
    for (size_t i = 0; i < 2; i++) {
        const struct advice_cost *k = &in->costs[cfgs[i]];
        if (!k->known || k->interruptions <= 0 || k->measured_overhead_bp == COST_NULL ||
            k->break_even_overhead_bp == COST_NULL ||
            k->measured_overhead_bp <= k->break_even_overhead_bp)
            continue;
        int64_t reports = 0;
        for (size_t j = 0; j < in->n_jobs; j++)
            if (in->jobs[j].config == cfgs[i])
                reports += in->jobs[j].checkpoint_reports;
        if (reports > 0)
            continue;
        struct ev e;
        ev_begin(&e);
        jsonw_kstr(&e.w, "configuration", cost_config_name(cfgs[i]));
        jsonw_kint(&e.w, "interruptions", k->interruptions);
        jsonw_kmoney(&e.w, "wasted_cost", k->wasted_cost);
        jsonw_key(&e.w, "measured_overhead_pct");
        jsonw_fixed(&e.w, k->measured_overhead_bp, 2);
        jsonw_key(&e.w, "break_even_overhead_pct");
        jsonw_fixed(&e.w, k->break_even_overhead_bp, 2);
        jsonw_kint(&e.w, "checkpoint_reports", 0);
        jsonw_key(&e.w, "checkpoint_advice");
        jsonw_arr(&e.w);
        int64_t example = -1;
        for (size_t a = 0; a < in->n_checkpoint; a++) {
            const struct cost_advice *ca = &in->checkpoint[a];
            jsonw_obj(&e.w);
            jsonw_kstr(&e.w, "size", ca->size);
            jsonw_kint(&e.w, "reclaims", ca->reclaims);
            ev_opt_int(&e, "mtbr_seconds", ca->mtbr_seconds);
            int64_t at60 = ca->mtbr_seconds > 0 ? isqrt(2 * 60 * ca->mtbr_seconds) : -1;
            ev_opt_int(&e, "interval_if_checkpoint_takes_60s", at60);
            jsonw_obj_end(&e.w);
            if (at60 > 0 && example < 0)
                example = at60;
        }
        jsonw_arr_end(&e.w);
        char *fix = example > 0
                        ? fmt("Checkpoint every ~sqrt(2 x checkpoint time x mean time between "
                              "reclaims) (Young/Daly): about every %llds if a checkpoint takes "
                              "60 s. Report {\"checkpoint_seconds\":N} in the termination "
                              "message so the summary's checkpoint advice uses your real cost.",
                              (long long)example)
                        : xstrdup("Checkpoint every ~sqrt(2 x checkpoint time x mean time "
                                  "between reclaims) (Young/Daly) and report "
                                  "{\"checkpoint_seconds\":N} in the termination message; see "
                                  "the summary's checkpoint advice.");
        emit(c, ADVICE_NO_CHECKPOINTS, ADVICE_WARNING, NULL, NULL,
             xstrdup(cost_config_name(cfgs[i])),
             fmt("%s work loses more to reclaims than Spot saves, with no checkpoints",
                 cfgs[i] == COST_SPOT ? "Spot" : "Fallback"),
             ev_end(&e), WHY_NO_CHECKPOINTS, fix);
    }
}

/* --- rule 10: PodDisruptionBudgets ---------------------------------------- */

static const char WHY_PDB[] =
    "A reclaim drains the Spot nodes, and a PodDisruptionBudget that allows no disruption "
    "blocks the eviction until the drain times out; the node is deleted anyway. It saves "
    "nothing, delays the reclaim's clean shutdown (no SIGTERM grace to checkpoint) and "
    "blocks ordinary node upgrades.";

static void rule_pdb(struct ctx *c) {
    const struct advice_input *in = c->in;
    for (size_t i = 0; i < in->n_pdbs; i++) {
        const struct advice_pdb *b = &in->pdbs[i];
        if (b->pods_on_spot <= 0)
            continue;
        bool blocks = b->max_unavailable == 0 || b->max_unavailable_pct == 0 ||
                      b->min_available_pct >= 100 ||
                      (b->min_available >= 0 && b->expected_pods >= 0 &&
                       b->min_available >= b->expected_pods);
        if (!blocks)
            continue;
        const struct advice_pool *pool = pool_by_id(in, b->spot_pool_id);
        struct ev e;
        ev_begin(&e);
        jsonw_kstr(&e.w, "namespace", b->ns);
        jsonw_kstr(&e.w, "pdb", b->name);
        ev_opt_int(&e, "max_unavailable", b->max_unavailable);
        ev_opt_int(&e, "max_unavailable_pct", b->max_unavailable_pct);
        ev_opt_int(&e, "min_available", b->min_available);
        ev_opt_int(&e, "min_available_pct", b->min_available_pct);
        ev_opt_int(&e, "expected_pods", b->expected_pods);
        jsonw_kint(&e.w, "pods_on_spot", b->pods_on_spot);
        if (pool)
            ev_pool(&e, pool);
        emit(c, ADVICE_PDB_BLOCKS_DRAIN, ADVICE_WARNING, pool, NULL, fmt("%s/%s", b->ns, b->name),
             fmt("PodDisruptionBudget '%s/%s' blocks the drain of Spot nodes", b->ns, b->name),
             ev_end(&e), WHY_PDB,
             xstrdup("Allow at least one disruption (maxUnavailable: 1, or minAvailable below "
                     "the replicas), or keep these pods off Spot."));
    }
}

/* --- Job rules, once per Job name ------------------------------------------ */

/* namespace, name, then the latest seen first (uid breaks ties) */
static int cmp_job(const void *a, const void *b) {
    const struct advice_job *x = *(const struct advice_job *const *)a;
    const struct advice_job *y = *(const struct advice_job *const *)b;
    int r = strcmp(x->ns ? x->ns : "", y->ns ? y->ns : "");
    if (!r)
        r = strcmp(x->name ? x->name : "", y->name ? y->name : "");
    if (!r)
        r = (x->last_seen < y->last_seen) - (x->last_seen > y->last_seen);
    if (!r)
        r = strcmp(x->uid ? x->uid : "", y->uid ? y->uid : "");
    return r;
}

static void job_rules(struct ctx *c) {
    const struct advice_input *in = c->in;
    if (in->n_jobs == 0)
        return;
    const struct advice_job **ord = xcalloc(in->n_jobs, sizeof *ord);
    for (size_t i = 0; i < in->n_jobs; i++)
        ord[i] = &in->jobs[i];
    qsort(ord, in->n_jobs, sizeof *ord, cmp_job);
    for (size_t k = 0; k < in->n_jobs; k++) {
        const struct advice_job *j = ord[k];
        if (!j->ns || !j->name)
            continue;
        if (k > 0 && str_eq(ord[k - 1]->ns, j->ns) && str_eq(ord[k - 1]->name, j->name))
            continue; /* a recreated Job of the same name: the latest speaks */
        json_object *spec = jparse(j->spec_json);
        const char *ignore = jstr(spec, "ignoreAdvice");
        rule_spot_toleration(c, j, spec, ignore);
        rule_pod_failure_policy(c, j, ignore);
        rule_ttl(c, j, ignore);
        rule_required_affinity(c, j, spec, ignore);
        json_object_put(spec);
    }
    free((void *)ord);
}

/* --- run, sort, serialize ------------------------------------------------- */

static int cmp_finding(const void *a, const void *b) {
    const struct advice_finding *x = a, *y = b;
    if (x->severity != y->severity)
        return x->severity < y->severity ? -1 : 1;
    int r = strcmp(x->rule, y->rule);
    return r ? r : strcmp(x->object, y->object);
}

/* --- grouping: one finding per workload, not per Job ------------------------
 * Batch systems create Jobs from one template with generated names
 * ("train-0001", "train-0002"...): a mistake in the template is one mistake. Job
 * findings of the same rule and severity whose names differ only in a trailing
 * "-<digits>" are merged into one finding on "<namespace>/<base>-*", whose
 * evidence keeps the first Job's evidence and lists the count and examples. */

#define ADVICE_GROUP_EXAMPLES 5

/* Length of the "<namespace>/<base>" part of a Job object, or 0 when the name
 * has no numeric suffix to group on. */
static size_t group_prefix(const char *object) {
    const char *slash = strchr(object, '/');
    size_t n = strlen(object), i = n;
    if (!slash)
        return 0;
    while (i > 0 && object[i - 1] >= '0' && object[i - 1] <= '9')
        i--;
    if (i == n || i == 0 || object[i - 1] != '-' || object + i - 1 <= slash + 1)
        return 0;
    return i - 1;
}

static bool same_group(const struct advice_finding *a, const struct advice_finding *b,
                       size_t plen) {
    return a->severity == b->severity && a->rule == b->rule && group_prefix(b->object) == plen &&
           strncmp(a->object, b->object, plen) == 0;
}

static void group_job_findings(struct advice_result *r) {
    size_t out = 0;
    for (size_t i = 0; i < r->n;) {
        struct advice_finding *f = &r->v[i];
        size_t plen = group_prefix(f->object), j = i + 1;
        while (plen && j < r->n && same_group(f, &r->v[j], plen))
            j++;
        if (j - i >= 2) {
            struct ev e;
            ev_begin(&e);
            jsonw_kint(&e.w, "jobs", (int64_t)(j - i));
            jsonw_key(&e.w, "examples");
            jsonw_arr(&e.w);
            for (size_t k = i; k < j && k < i + ADVICE_GROUP_EXAMPLES; k++)
                jsonw_str(&e.w, r->v[k].object);
            jsonw_arr_end(&e.w);
            ev_json(&e, "first", f->evidence);
            char *object = fmt("%.*s-*", (int)plen, f->object);
            char *title = fmt("%s (and %zu more Jobs like it)", f->title, j - i - 1);
            char *evidence = ev_end(&e);
            r->counts[f->severity] -= (int64_t)(j - i - 1);
            for (size_t k = i + 1; k < j; k++) {
                free(r->v[k].object);
                free(r->v[k].id);
                free(r->v[k].title);
                free(r->v[k].evidence);
                free(r->v[k].fix);
            }
            free(f->object);
            free(f->id);
            free(f->title);
            free(f->evidence);
            f->object = object;
            f->id = fmt("%s:%s", f->rule, object);
            f->title = title;
            f->evidence = evidence;
        }
        if (out != i)
            r->v[out] = *f;
        out++;
        i = j;
    }
    r->n = out;
}

enum err advice_run(const struct advice_input *in, struct advice_result **out) {
    if ((!in->pools && in->n_pools) || (!in->sizes && in->n_sizes) || (!in->nodes && in->n_nodes) ||
        (!in->reclaims && in->n_reclaims) || (!in->jobs && in->n_jobs) ||
        (!in->pdbs && in->n_pdbs) || (!in->checkpoint && in->n_checkpoint) ||
        (!in->spot_labels && in->n_spot_labels) || (!in->ignore && in->n_ignore))
        return ERR_INVAL;
    struct ctx c = {.in = in, .r = xcalloc(1, sizeof *c.r), .cap = 0};
    rule_system_pool(&c);
    rule_self_on_spot(&c);
    rule_spot_taint(&c);
    rule_fallback_pool(&c);
    rule_spot_autoscale(&c);
    rule_fallback_min_nodes(&c);
    job_rules(&c);
    rule_no_checkpoints(&c);
    rule_pdb(&c);
    if (c.r->n > 1)
        qsort(c.r->v, c.r->n, sizeof *c.r->v, cmp_finding);
    group_job_findings(c.r);
    *out = c.r;
    return ERR_OK;
}

void advice_result_free(struct advice_result *r) {
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].object);
        free(r->v[i].id);
        free(r->v[i].title);
        free(r->v[i].evidence);
        free(r->v[i].fix);
    }
    free(r->v);
    free(r);
}

enum err advice_json(const struct advice_result *r, struct buf *out) {
    struct jsonw w;
    jsonw_init(&w, out);
    jsonw_obj(&w);
    jsonw_key(&w, "findings");
    jsonw_arr(&w);
    for (size_t i = 0; i < r->n; i++) {
        const struct advice_finding *f = &r->v[i];
        jsonw_obj(&w);
        jsonw_kstr(&w, "id", f->id);
        jsonw_kstr(&w, "rule", f->rule);
        jsonw_kstr(&w, "severity", advice_severity_name(f->severity));
        jsonw_kstr(&w, "object", f->object);
        jsonw_kstr(&w, "title", f->title);
        jsonw_key(&w, "evidence");
        jsonw_raw(&w, f->evidence);
        jsonw_kstr(&w, "why", f->why);
        jsonw_kstr(&w, "fix", f->fix);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_key(&w, "counts");
    jsonw_obj(&w);
    for (int s = 0; s < ADVICE_NSEVERITY; s++)
        jsonw_kint(&w, advice_severity_name((enum advice_severity)s), r->counts[s]);
    jsonw_obj_end(&w);
    jsonw_kint(&w, "silenced", r->silenced);
    jsonw_obj_end(&w);
    return w.rc;
}
