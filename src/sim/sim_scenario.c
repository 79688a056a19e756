/* sim_scenario — see sim_scenario.h. json-c is used only here and every value is
 * type-checked before use (docs/style.md json-c 3): a wrong type is an error naming
 * the field, never a silent 0. */
#include "sim/sim_scenario.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/money.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "sim/sim_scenario_get.h"

#define SCENARIO_MAX_BYTES (4u * 1024 * 1024)

/* The names of the configurations and the pool roles, by their enum values (the
 * scenario's words and the labels'). */
static const char *const config_names[] = {
    [SIM_CFG_SPOT] = "spot", [SIM_CFG_FALLBACK] = "fallback", [SIM_CFG_ON_DEMAND] = "on-demand"};
static const char *const role_names[] = {[SIM_ROLE_SPOT] = "spot",
                                         [SIM_ROLE_FALLBACK] = "fallback",
                                         [SIM_ROLE_ON_DEMAND] = "on-demand",
                                         [SIM_ROLE_SYSTEM] = "system"};
#define NCONFIGS (int)(sizeof config_names / sizeof config_names[0])
#define NROLES (int)(sizeof role_names / sizeof role_names[0])

/* The index of s in names[n], -1 if it is none of them. */
static int name_index(const char *const *names, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

const char *sim_config_name(enum sim_config cfg) {
    return (unsigned)cfg < NCONFIGS ? config_names[cfg] : "?";
}

const char *sim_role_name(enum sim_role r) {
    return (unsigned)r < NROLES ? role_names[r] : "?";
}

enum err sim_parse_duration(const char *s, int64_t *out) {
    if (!s || !*s)
        return ERR_PARSE;
    int64_t total = 0;
    const char *p = s;
    while (*p) {
        if (*p < '0' || *p > '9')
            return ERR_PARSE;
        errno = 0;
        char *end;
        long long v = strtoll(p, &end, 10);
        if (errno || v < 0 || v > 100LL * 365 * 86400)
            return ERR_PARSE;
        int64_t mult;
        switch (*end) {
        case '\0':
        case 's':
            mult = 1;
            break;
        case 'm':
            mult = 60;
            break;
        case 'h':
            mult = 3600;
            break;
        case 'd':
            mult = 86400;
            break;
        default:
            return ERR_PARSE;
        }
        total += (int64_t)v * mult;
        p = *end ? end + 1 : end;
        if (*end == '\0')
            break;
    }
    *out = total;
    return ERR_OK;
}

static int parse_kv(struct scn_ctx *c, json_object *o, const char *where, struct sim_kv *kv,
                    int max) {
    if (!o)
        return 0;
    if (!json_object_is_type(o, json_type_object)) {
        scn_fail(c, "%s: expected an object of strings", where);
        return 0;
    }
    int n = 0;
    json_object_object_foreach(o, k, v) {
        if (n >= max) {
            scn_fail(c, "%s: at most %d entries", where, max);
            break;
        }
        if (!json_object_is_type(v, json_type_string)) {
            scn_fail(c, "%s.%s: expected a string", where, k);
            break;
        }
        kv[n].key = xstrdup(k);
        kv[n].value = xstrdup(json_object_get_string(v));
        n++;
    }
    return n;
}

static int find_size(const struct sim_scenario *sc, const char *slug) {
    for (int i = 0; i < sc->nsizes; i++)
        if (strcmp(sc->sizes[i].slug, slug) == 0)
            return i;
    return -1;
}

static int find_pool(const struct sim_scenario *sc, const char *name) {
    for (int i = 0; i < sc->npools; i++)
        if (strcmp(sc->pools[i].name, name) == 0)
            return i;
    return -1;
}

static bool is_k8s_name(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 40)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
                  (ch == '-' && i > 0 && i + 1 < n);
        if (!ok)
            return false;
    }
    return true;
}

/* When item o of a timed list happens: its "at" (a time) or else its "after" (a
 * duration from the start); 0 when neither is given or o is no object. */
static int64_t parse_at(struct scn_ctx *c, const struct sim_scenario *sc, json_object *o,
                        const char *where) {
    if (!json_object_is_type(o, json_type_object))
        return 0;
    int64_t at = scn_get_time(c, o, where, "at");
    int64_t after = scn_get_dur(c, o, where, "after", 0);
    if (!at && after > 0)
        at = sc->start + after;
    return at;
}

/* sizes[].price_changes: [{"at" | "after", "price_hourly"}], in time order. */
static void parse_price_changes(struct scn_ctx *c, const struct sim_scenario *sc,
                                struct sim_size *s, json_object *arr, const char *where) {
    char lw[80];
    snprintf(lw, sizeof lw, "%s.price_changes", where);
    size_t n = scn_opt_list_len(c, arr, lw, SIM_MAX_PRICE_CHANGES);
    for (size_t i = 0; i < n && !c->failed; i++) {
        json_object *o = json_object_array_get_idx(arr, i);
        char cw[112];
        snprintf(cw, sizeof cw, "%s[%zu]", lw, i);
        struct sim_price_change *pc = &s->changes[s->nchanges++];
        pc->at = parse_at(c, sc, o, cw);
        pc->price_hourly_text = pc->at ? scn_get_str(c, o, cw, "price_hourly", NULL) : NULL;
        if (!c->failed && (pc->at <= sc->start || (i > 0 && pc->at <= s->changes[i - 1].at) ||
                           !pc->price_hourly_text ||
                           money_parse(pc->price_hourly_text, strlen(pc->price_hourly_text), 0,
                                       &pc->price_hourly) != ERR_OK ||
                           pc->price_hourly <= 0))
            scn_fail(c,
                     "%s: expected {\"at\" or \"after\" (after the start, in order), "
                     "\"price_hourly\" (a positive decimal string)}",
                     cw);
    }
}

static void parse_size(struct scn_ctx *c, struct sim_scenario *sc, json_object *o,
                       const char *where) {
    struct sim_size *s = &sc->sizes[sc->nsizes++];
    s->slug = scn_get_str(c, o, where, "slug", NULL);
    s->price_hourly_text = scn_get_str(c, o, where, "price_hourly", NULL);
    if (!s->slug || !s->price_hourly_text) {
        scn_fail(c, "%s: slug and price_hourly (a decimal string) are required", where);
        return;
    }
    if (money_parse(s->price_hourly_text, strlen(s->price_hourly_text), 0, &s->price_hourly) !=
            ERR_OK ||
        s->price_hourly <= 0) {
        scn_fail(c, "%s.price_hourly: expected a positive decimal string like \"3.384\"", where);
        return;
    }
    parse_price_changes(c, sc, s, scn_get(o, "price_changes"), where);
    s->vcpus = (int)scn_get_int(c, o, where, "vcpus", 8, 1, 1024);
    s->memory_mb = (int)scn_get_int(c, o, where, "memory", 32768, 256, 1 << 24);
    s->disk_gb = (int)scn_get_int(c, o, where, "disk", 200, 1, 1 << 20);
    s->gpus = (int)scn_get_int(c, o, where, "gpus", 0, 0, 64);
    s->gpu_model = scn_get_str(c, o, where, "gpu_model", s->gpus ? "nvidia_h100" : NULL);
    s->vram_gib = (int)scn_get_int(c, o, where, "vram_gib", s->gpus ? 80 * s->gpus : 0, 0, 1 << 20);
    s->description = scn_get_str(c, o, where, "description", s->gpus ? "GPU Droplet" : "Basic");
    if (find_size(sc, s->slug) != sc->nsizes - 1)
        scn_fail(c, "%s.slug: '%s' appears twice", where, s->slug);
}

static enum sim_role parse_role(struct scn_ctx *c, const char *where, const char *s) {
    if (!s)
        return SIM_ROLE_SPOT;
    int r = name_index(role_names, NROLES, s);
    if (r >= 0)
        return (enum sim_role)r;
    scn_fail(c, "%s.role: expected spot|fallback|on-demand|system, got '%s'", where, s);
    return SIM_ROLE_SYSTEM;
}

/* pools[].notready: [{"at" | "after", "for"}], in time order, not overlapping. */
static void parse_spells(struct scn_ctx *c, const struct sim_scenario *sc, struct sim_pool_spec *p,
                         json_object *arr, const char *where) {
    char lw[80];
    snprintf(lw, sizeof lw, "%s.notready", where);
    size_t n = scn_opt_list_len(c, arr, lw, SIM_MAX_SPELLS);
    for (size_t i = 0; i < n && !c->failed; i++) {
        json_object *o = json_object_array_get_idx(arr, i);
        char sw[112];
        snprintf(sw, sizeof sw, "%s[%zu]", lw, i);
        struct sim_spell_spec *s = &p->notready[p->nnotready++];
        s->at = parse_at(c, sc, o, sw);
        s->dur = json_object_is_type(o, json_type_object) ? scn_get_dur(c, o, sw, "for", 0) : 0;
        const struct sim_spell_spec *prev = i > 0 ? &p->notready[i - 1] : NULL;
        if (!c->failed &&
            (s->at <= sc->start || (prev && (prev->dur == 0 || s->at <= prev->at + prev->dur))))
            scn_fail(c,
                     "%s: expected {\"at\" or \"after\" (after the start, after the previous "
                     "spell's end), \"for\" (a duration; absent: until the node is deleted)}",
                     sw);
    }
}

static void parse_pool(struct scn_ctx *c, struct sim_scenario *sc, json_object *o,
                       const char *where) {
    struct sim_pool_spec *p = &sc->pools[sc->npools++];
    p->name = scn_get_str(c, o, where, "name", NULL);
    p->id = scn_get_str(c, o, where, "id", NULL);
    p->size = scn_get_str(c, o, where, "size", NULL);
    if (!p->name || !p->size) {
        scn_fail(c, "%s: name and size are required", where);
        return;
    }
    if (!is_k8s_name(p->name)) {
        scn_fail(c, "%s.name: '%s' is not a lower-case DNS label of at most 40 characters", where,
                 p->name);
        return;
    }
    if (find_pool(sc, p->name) != sc->npools - 1) {
        scn_fail(c, "%s.name: '%s' appears twice", where, p->name);
        return;
    }
    p->size_idx = find_size(sc, p->size);
    if (p->size_idx < 0) {
        scn_fail(c, "%s.size: '%s' is not in sizes", where, p->size);
        return;
    }
    char *role = scn_get_str(c, o, where, "role", NULL);
    if (!role) {
        free(role);
        scn_fail(c, "%s.role: required (spot|fallback|on-demand|system)", where);
        return;
    }
    p->role = parse_role(c, where, role);
    free(role);
    p->count = (int)scn_get_int(c, o, where, "count", 1, 0, 1000);
    p->auto_scale = scn_get_bool(c, o, where, "auto_scale", false);
    p->min_nodes =
        (int)scn_get_int(c, o, where, "min_nodes", p->auto_scale ? 0 : p->count, 0, 1000);
    p->max_nodes = (int)scn_get_int(c, o, where, "max_nodes", p->count, 0, 1000);
    if (!p->auto_scale) {
        p->min_nodes = p->count;
        p->max_nodes = p->count;
    }
    if (p->min_nodes > p->max_nodes || p->count > p->max_nodes || p->count < p->min_nodes) {
        scn_fail(c, "%s: need min_nodes <= count <= max_nodes", where);
        return;
    }
    char lw[96];
    snprintf(lw, sizeof lw, "%s.labels", where);
    p->nlabels = parse_kv(c, scn_get(o, "labels"), lw, p->labels, SIM_MAX_KV);
    json_object *taints = scn_get(o, "taints");
    char tn[80];
    snprintf(tn, sizeof tn, "%s.taints", where);
    size_t nt = scn_opt_list_len(c, taints, tn, SIM_MAX_KV);
    for (size_t k = 0; k < nt && !c->failed; k++) {
        char tw[112];
        json_object *t = scn_list_obj(c, taints, k, tn, tw, sizeof tw);
        if (!t)
            return;
        struct sim_taint *tt = &p->taints[p->ntaints++];
        tt->key = scn_get_str(c, t, tw, "key", NULL);
        tt->value = scn_get_str(c, t, tw, "value", "");
        tt->effect = scn_get_str(c, t, tw, "effect", "NoSchedule");
        if (!tt->key) {
            scn_fail(c, "%s.key: required", tw);
            return;
        }
        if (strcmp(tt->effect, "NoSchedule") != 0 && strcmp(tt->effect, "NoExecute") != 0 &&
            strcmp(tt->effect, "PreferNoSchedule") != 0) {
            scn_fail(c, "%s.effect: expected NoSchedule|PreferNoSchedule|NoExecute", tw);
            return;
        }
    }
    p->recreate_after = scn_get_dur(c, o, where, "recreate_after", 0);
    parse_spells(c, sc, p, scn_get(o, "notready"), where);
}

static void parse_workload(struct scn_ctx *c, struct sim_scenario *sc, json_object *o,
                           const char *where) {
    struct sim_workload *w = &sc->workloads[sc->nworkloads++];
    w->name = scn_get_str(c, o, where, "name", NULL);
    if (!w->name || !is_k8s_name(w->name)) {
        scn_fail(c, "%s.name: required, a lower-case DNS label of at most 40 characters", where);
        return;
    }
    char *cfg = scn_get_str(c, o, where, "configuration", NULL);
    int cfg_idx = cfg ? name_index(config_names, NCONFIGS, cfg) : -1;
    free(cfg);
    if (cfg_idx < 0) {
        scn_fail(c, "%s.configuration: expected spot|fallback|on-demand", where);
        return;
    }
    w->configuration = (enum sim_config)cfg_idx;
    w->experiment = scn_get_str(c, o, where, "experiment", NULL);
    w->count = (int)scn_get_int(c, o, where, "count", 0, 0, 100000);
    w->interval = scn_get_dur(c, o, where, "interval", 0);
    int64_t rate_mean = scn_get_dur(c, o, where, "mean_interarrival", 0);
    w->mean_gap = rate_mean;
    if ((w->count > 0) == (w->mean_gap > 0)) {
        scn_fail(c, "%s: give exactly one of count (with optional interval) or mean_interarrival",
                 where);
        return;
    }
    w->start_offset = scn_get_dur(c, o, where, "start_after", 0);
    w->end_offset = scn_get_dur(c, o, where, "stop_after", sc->duration);
    w->completions = (int)scn_get_int(c, o, where, "completions", 1, 1, 1000);
    w->indexed = scn_get_bool(c, o, where, "indexed", w->completions > 1);
    if (w->completions > 1 && !w->indexed) {
        scn_fail(c, "%s: completions > 1 requires indexed: true", where);
        return;
    }
    json_object *d = scn_get(o, "duration");
    if (!d || !json_object_is_type(d, json_type_object)) {
        scn_fail(c,
                 "%s.duration: required, e.g. {\"dist\":\"uniform\",\"min\":\"1h\",\"max\":"
                 "\"2h\"}",
                 where);
        return;
    }
    char dw[96];
    snprintf(dw, sizeof dw, "%s.duration", where);
    char *dist = scn_get_str(c, d, dw, "dist", "fixed");
    if (strcmp(dist, "fixed") == 0) {
        w->duration.dist = PLAN_DIST_FIXED;
        w->duration.a = scn_get_dur(c, d, dw, "value", 0);
    } else if (strcmp(dist, "uniform") == 0) {
        w->duration.dist = PLAN_DIST_UNIFORM;
        w->duration.a = scn_get_dur(c, d, dw, "min", 0);
        w->duration.b = scn_get_dur(c, d, dw, "max", 0);
    } else if (strcmp(dist, "exponential") == 0) {
        w->duration.dist = PLAN_DIST_EXPONENTIAL;
        w->duration.a = scn_get_dur(c, d, dw, "mean", 0);
    } else {
        scn_fail(c, "%s.dist: expected fixed|uniform|exponential", dw);
    }
    free(dist);
    if (!c->failed && (w->duration.a <= 0 ||
                       (w->duration.dist == PLAN_DIST_UNIFORM && w->duration.b < w->duration.a))) {
        scn_fail(c, "%s: durations must be positive (and min <= max)", dw);
        return;
    }
    w->checkpoint_interval = scn_get_dur(c, o, where, "checkpoint_interval", 0);
    w->checkpoint_seconds = scn_get_dur(c, o, where, "checkpoint_seconds", 0);
    w->restore_seconds = scn_get_dur(c, o, where, "restore_seconds", 0);
    w->failure_ppm = scn_get_ppm(c, o, where, "failure_rate");
    w->backoff_limit = (int)scn_get_int(c, o, where, "backoff_limit", 6, 0, 1000);
    w->active_deadline = scn_get_dur(c, o, where, "active_deadline_seconds", 0);
    w->ttl_after_finished = scn_get_dur(c, o, where, "ttl_seconds_after_finished", 3600);
    w->pod_failure_policy = scn_get_bool(c, o, where, "pod_failure_policy", false);
    w->gpus = (int)scn_get_int(c, o, where, "gpus", 1, 0, 64);
    w->cpu_m = (int)scn_get_int(c, o, where, "cpu_millicores", 1000, 0, 1024000);
    w->image = scn_get_str(c, o, where, "image", "registry.example.com/ml/train:1.0");
    w->pdb_min_available = (int)scn_get_int(c, o, where, "pdb_min_available", -1, 0, 100000);
    w->pdb_max_unavailable = (int)scn_get_int(c, o, where, "pdb_max_unavailable", -1, 0, 100000);
    if (w->pdb_min_available >= 0 && w->pdb_max_unavailable >= 0) {
        scn_fail(c, "%s: give at most one of pdb_min_available and pdb_max_unavailable", where);
        return;
    }
    json_object *pools = scn_get(o, "pools");
    if (pools) {
        if (!json_object_is_type(pools, json_type_array) ||
            json_object_array_length(pools) > SIM_MAX_POOLS) {
            scn_fail(c, "%s.pools: expected an array of pool names", where);
            return;
        }
        for (size_t k = 0; k < json_object_array_length(pools); k++) {
            json_object *pn = json_object_array_get_idx(pools, k);
            int idx = json_object_is_type(pn, json_type_string)
                          ? find_pool(sc, json_object_get_string(pn))
                          : -1;
            if (idx < 0) {
                scn_fail(c, "%s.pools[%zu]: not a pool name", where, k);
                return;
            }
            w->pools[w->npools++] = idx;
        }
    } else {
        /* defaults by configuration: spot -> spot pools; fallback -> spot then
         * fallback pools; on-demand -> on-demand pools */
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < sc->npools; k++) {
                enum sim_role r = sc->pools[k].role;
                bool take = false;
                if (pass == 0)
                    take = (w->configuration != SIM_CFG_ON_DEMAND && r == SIM_ROLE_SPOT) ||
                           (w->configuration == SIM_CFG_ON_DEMAND && r == SIM_ROLE_ON_DEMAND);
                else
                    take = w->configuration == SIM_CFG_FALLBACK && r == SIM_ROLE_FALLBACK;
                if (take)
                    w->pools[w->npools++] = k;
            }
    }
    if (!c->failed && w->npools == 0) {
        scn_fail(c, "%s.pools: no pool can run configuration '%s'", where,
                 sim_config_name(w->configuration));
        return;
    }
    for (int k = 0; k < w->npools && !c->failed; k++) {
        const struct sim_size *sz = &sc->sizes[sc->pools[w->pools[k]].size_idx];
        if (w->gpus > sz->gpus || w->cpu_m > sz->vcpus * 1000 - 100)
            scn_fail(c, "%s: a pod (%d GPU, %dm CPU) does not fit on pool '%s' (%s)", where,
                     w->gpus, w->cpu_m, sc->pools[w->pools[k]].name, sz->slug);
    }
}

static void parse_reclaim(struct scn_ctx *c, struct sim_scenario *sc, json_object *o,
                          const char *where) {
    struct sim_reclaim_spec *r = &sc->reclaims[sc->nreclaims++];
    char *pool = scn_get_str(c, o, where, "pool", NULL);
    r->pool = pool ? find_pool(sc, pool) : -1;
    free(pool);
    if (r->pool < 0) {
        scn_fail(c, "%s.pool: required, a pool name", where);
        return;
    }
    if (sc->pools[r->pool].role != SIM_ROLE_SPOT) {
        scn_fail(c, "%s.pool: only spot pools are reclaimed", where);
        return;
    }
    r->at = scn_get_time(c, o, where, "at");
    int64_t after = scn_get_dur(c, o, where, "after", -1);
    if (after >= 0 && !r->at)
        r->at = sc->start + after;
    r->mean_interval = scn_get_dur(c, o, where, "mean_interval", 0);
    if ((r->at != 0) == (r->mean_interval > 0)) {
        scn_fail(c, "%s: give exactly one of at / after or mean_interval", where);
        return;
    }
    if (r->at && r->at < sc->start) {
        scn_fail(c, "%s.at: before the scenario start", where);
        return;
    }
}

/* One item of a scenario list, the object o at `where` (e.g. "pools[2]"), into sc. */
typedef void parse_item_fn(struct scn_ctx *c, struct sim_scenario *sc, json_object *o,
                           const char *where);

/* The scenario's list `name`: an array of at most max objects (required: not
 * empty; else it may be absent), each read by item, up to the first failure. */
static void parse_list(struct scn_ctx *c, struct sim_scenario *sc, json_object *root,
                       const char *name, size_t max, bool required, parse_item_fn *item) {
    json_object *arr = scn_get(root, name);
    size_t n = required ? scn_list_len(c, arr, name, max) : scn_opt_list_len(c, arr, name, max);
    for (size_t i = 0; i < n && !c->failed; i++) {
        char where[64];
        json_object *o = scn_list_obj(c, arr, i, name, where, sizeof where);
        if (o)
            item(c, sc, o, where);
    }
}

enum err sim_scenario_parse(const char *text, size_t len, struct sim_scenario **out, char *err,
                            size_t errlen) {
    struct scn_ctx c = {err, errlen, false};
    if (errlen)
        err[0] = '\0';
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return ERR_NOMEM;
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    if (!root || jerr != json_tokener_success) {
        snprintf(err, errlen, "scenario: not valid JSON: %s", json_tokener_error_desc(jerr));
        json_object_put(root);
        json_tokener_free(tok);
        return ERR_PARSE;
    }
    json_tokener_free(tok);
    if (!json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        snprintf(err, errlen, "scenario: expected a JSON object");
        return ERR_PARSE;
    }
    struct sim_scenario *sc = xcalloc(1, sizeof *sc);
    const char *w = "scenario";
    sc->start = scn_get_time(&c, root, w, "start");
    if (!c.failed && !sc->start)
        scn_fail(&c, "scenario.start: required (RFC 3339)");
    sc->duration = scn_get_dur(&c, root, w, "duration", 0);
    if (!c.failed && (sc->duration <= 0 || sc->duration > 366LL * 86400))
        scn_fail(&c, "scenario.duration: required, between 1s and 366d");
    json_object *cl = scn_get(root, "cluster");
    if (cl && !json_object_is_type(cl, json_type_object))
        scn_fail(&c, "scenario.cluster: expected an object");
    const char *cw = "cluster";
    sc->cluster_id = cl ? scn_get_str(&c, cl, cw, "id", NULL) : NULL;
    sc->cluster_name = scn_get_str(&c, cl ? cl : root, cw, "name", "gpu-batch");
    sc->region = scn_get_str(&c, cl ? cl : root, cw, "region", "tor1");
    sc->k8s_version = scn_get_str(&c, cl ? cl : root, cw, "version", "1.33.1-do.0");
    sc->project_name = scn_get_str(&c, cl ? cl : root, cw, "project_name", "spotledger-demo");
    sc->namespace_ = scn_get_str(&c, root, w, "namespace", "batch");
    json_object *tm = scn_get(root, "timing");
    if (tm && !json_object_is_type(tm, json_type_object))
        scn_fail(&c, "scenario.timing: expected an object");
    json_object *t = tm ? tm : root;
    const char *tw = "timing";
    sc->provisioning_seconds = scn_get_dur(&c, t, tw, "provisioning", 240);
    sc->register_seconds = scn_get_dur(&c, t, tw, "register_before_ready", 20);
    sc->scale_up_delay = scn_get_dur(&c, t, tw, "fallback_scale_up_delay", 60);
    sc->scale_down_unneeded = scn_get_dur(&c, t, tw, "scale_down_unneeded", 600);
    sc->pod_start_seconds = scn_get_dur(&c, t, tw, "pod_start", 30);
    sc->pod_gc_seconds = scn_get_dur(&c, t, tw, "pod_gc", 40);
    sc->event_ttl = scn_get_dur(&c, t, tw, "event_ttl", 3600);
    sc->reclaim_drain_after = scn_get_dur(&c, t, tw, "reclaim_drain_after", 5);
    sc->reclaim_notice = scn_get_dur(&c, t, tw, "reclaim_notice", 30);
    sc->node_delete_seconds = scn_get_dur(&c, t, tw, "node_delete", 20);
    sc->sigterm_seconds = scn_get_dur(&c, t, tw, "sigterm_exit", 10);
    sc->eviction_timeout = scn_get_dur(&c, t, tw, "pod_eviction_timeout", 300);
    if (!c.failed && sc->register_seconds > sc->provisioning_seconds)
        sc->register_seconds = sc->provisioning_seconds;
    if (!c.failed && sc->reclaim_drain_after > sc->reclaim_notice)
        scn_fail(&c, "timing.reclaim_drain_after: must not exceed reclaim_notice");
    if (!c.failed && sc->event_ttl < 1)
        scn_fail(&c, "timing.event_ttl: must be at least 1s");
    if (!c.failed)
        parse_list(&c, sc, root, "sizes", SIM_MAX_SIZES, true, parse_size);
    if (!c.failed)
        parse_list(&c, sc, root, "pools", SIM_MAX_POOLS, true, parse_pool);
    if (!c.failed)
        parse_list(&c, sc, root, "workloads", SIM_MAX_WORKLOADS, true, parse_workload);
    if (!c.failed)
        parse_list(&c, sc, root, "reclaims", SIM_MAX_RECLAIMS, false, parse_reclaim);
    json_object_put(root);
    if (c.failed) {
        sim_scenario_free(sc);
        return ERR_INVAL;
    }
    *out = sc;
    return ERR_OK;
}

enum err sim_scenario_load(const char *path, struct sim_scenario **out, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "scenario: cannot open '%s'", path);
        return ERR_IO;
    }
    struct buf b;
    buf_init(&b, SCENARIO_MAX_BYTES);
    char chunk[8192];
    size_t n;
    enum err rc = ERR_OK;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if ((rc = buf_append(&b, chunk, n)) != ERR_OK)
            break;
    if (ferror(f))
        rc = ERR_IO;
    fclose(f);
    if (rc != ERR_OK) {
        snprintf(err, errlen, "scenario: cannot read '%s': %s", path, err_str(rc));
        buf_release(&b);
        return rc;
    }
    rc = sim_scenario_parse(buf_str(&b), b.len, out, err, errlen);
    buf_release(&b);
    return rc;
}

void sim_scenario_free(struct sim_scenario *sc) {
    if (!sc)
        return;
    free(sc->cluster_id);
    free(sc->cluster_name);
    free(sc->region);
    free(sc->k8s_version);
    free(sc->namespace_);
    free(sc->project_name);
    for (int i = 0; i < sc->nsizes; i++) {
        free(sc->sizes[i].slug);
        free(sc->sizes[i].price_hourly_text);
        for (int k = 0; k < sc->sizes[i].nchanges; k++)
            free(sc->sizes[i].changes[k].price_hourly_text);
        free(sc->sizes[i].gpu_model);
        free(sc->sizes[i].description);
    }
    for (int i = 0; i < sc->npools; i++) {
        struct sim_pool_spec *p = &sc->pools[i];
        free(p->name);
        free(p->id);
        free(p->size);
        for (int k = 0; k < p->nlabels; k++) {
            free(p->labels[k].key);
            free(p->labels[k].value);
        }
        for (int k = 0; k < p->ntaints; k++) {
            free(p->taints[k].key);
            free(p->taints[k].value);
            free(p->taints[k].effect);
        }
    }
    for (int i = 0; i < sc->nworkloads; i++) {
        free(sc->workloads[i].name);
        free(sc->workloads[i].experiment);
        free(sc->workloads[i].image);
    }
    free(sc);
}
