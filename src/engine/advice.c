/* advice — the setup advisor's entry (advice.h) and the kit its rules share
 * (advice_rules.h): helpers, the evidence writer, emit(); advice_run calls the
 * rules (advice_pool.c, advice_job.c, advice_window.c), then sorts and groups. */
#include "engine/advice.h"
#include "engine/advice_rules.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/xalloc.h"

/* --- small helpers -------------------------------------------------------- */

char *advice_fmt(const char *f, ...) {
    struct buf b;
    buf_init(&b, 0);
    va_list ap;
    va_start(ap, f);
    buf_vprintf(&b, f, ap);
    va_end(ap);
    return buf_detach(&b, NULL);
}

bool advice_str_eq(const char *a, const char *b) {
    return a && b && strcmp(a, b) == 0;
}

bool advice_ends_with(const char *s, const char *suffix) {
    size_t n = s ? strlen(s) : 0, m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

const char *advice_pool_label(const struct advice_pool *p) {
    return p->name && *p->name ? p->name : p->id;
}

const char *advice_cluster_arg(const struct advice_input *in) {
    return in->cluster && *in->cluster ? in->cluster : "<cluster>";
}

/* json-c parse of a stored JSON column; NULL when absent or malformed. */
json_object *advice_jparse(const char *s) {
    return s && *s ? json_tokener_parse(s) : NULL;
}

json_object *advice_jget(json_object *o, const char *k) {
    json_object *v = NULL;
    if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, k, &v))
        return NULL;
    return v;
}

const char *advice_jstr(json_object *o, const char *k) {
    json_object *v = advice_jget(o, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

size_t advice_jlen(json_object *a) {
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

static const char *const severity_names[ADVICE_NSEVERITY] = {
    [ADVICE_CRITICAL] = "critical",
    [ADVICE_WARNING] = "warning",
    [ADVICE_INFO] = "info",
};

const char *advice_severity_name(enum advice_severity s) {
    if ((unsigned)s < ADVICE_NSEVERITY)
        return severity_names[s];
    return "info";
}

/* --- evidence writer ------------------------------------------------------ */

void advice_ev_begin(struct advice_ev *e) {
    buf_init(&e->b, 0);
    jsonw_init(&e->w, &e->b);
    jsonw_obj(&e->w);
}

char *advice_ev_end(struct advice_ev *e) {
    jsonw_obj_end(&e->w);
    return buf_detach(&e->b, NULL);
}

/* A stored JSON value under key, re-serialized (so the evidence is valid JSON
 * whatever the column held); null when absent or malformed. */
void advice_ev_json(struct advice_ev *e, const char *key, const char *json) {
    jsonw_key(&e->w, key);
    json_object *o = advice_jparse(json);
    if (!o) {
        jsonw_null(&e->w);
        return;
    }
    jsonw_raw(&e->w, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
}

void advice_ev_jobj(struct advice_ev *e, const char *key, json_object *o) {
    jsonw_key(&e->w, key);
    if (!o) {
        jsonw_null(&e->w);
        return;
    }
    jsonw_raw(&e->w, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE));
}

void advice_ev_opt_int(struct advice_ev *e, const char *key, int64_t v) {
    jsonw_key(&e->w, key);
    if (v < 0 || v == COST_NULL)
        jsonw_null(&e->w);
    else
        jsonw_int(&e->w, v);
}

void advice_ev_pool(struct advice_ev *e, const struct advice_pool *p) {
    jsonw_kstr(&e->w, "pool", advice_pool_label(p));
    jsonw_kstr(&e->w, "pool_id", p->id);
    jsonw_kstr(&e->w, "size", p->size);
    jsonw_kstr(&e->w, "capacity_type", p->spot ? "spot" : "on-demand");
}

void advice_ev_job(struct advice_ev *e, const struct advice_job *j) {
    jsonw_kstr(&e->w, "namespace", j->ns);
    jsonw_kstr(&e->w, "job", j->name);
    jsonw_kstr(&e->w, "job_uid", j->uid);
    jsonw_kstr(&e->w, "configuration", cost_config_name(j->config));
}

/* --- the run context and emit() ------------------------------------------- */

static bool silenced(const struct advice_ctx *c, const char *rule, const struct advice_pool *pool,
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
        if (pool && (advice_str_eq(target, pool->id) || advice_str_eq(target, pool->name)))
            return true;
    }
    return false;
}

/* Takes ownership of object, title, evidence and fix. */
void advice_emit(struct advice_ctx *c, const char *rule, enum advice_severity sev,
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
    f->id = advice_fmt("%s:%s", rule, object);
    f->title = title;
    f->evidence = evidence;
    f->why = why;
    f->fix = fix;
    f->cluster = NULL;
    c->r->counts[sev]++;
}

/* --- run, sort, serialize ------------------------------------------------- */

/* Frees the strings a finding owns (rule and why are static). */
static void finding_release(struct advice_finding *f) {
    free(f->object);
    free(f->id);
    free(f->title);
    free(f->evidence);
    free(f->fix);
    free(f->cluster);
}

/* severity, cluster (none first), rule, object */
static int cmp_finding(const void *a, const void *b) {
    const struct advice_finding *x = a, *y = b;
    if (x->severity != y->severity)
        return x->severity < y->severity ? -1 : 1;
    int r = strcmp(x->cluster ? x->cluster : "", y->cluster ? y->cluster : "");
    if (!r)
        r = strcmp(x->rule, y->rule);
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
            struct advice_ev e;
            advice_ev_begin(&e);
            jsonw_kint(&e.w, "jobs", (int64_t)(j - i));
            jsonw_key(&e.w, "examples");
            jsonw_arr(&e.w);
            for (size_t k = i; k < j && k < i + ADVICE_GROUP_EXAMPLES; k++)
                jsonw_str(&e.w, r->v[k].object);
            jsonw_arr_end(&e.w);
            advice_ev_json(&e, "first", f->evidence);
            char *object = advice_fmt("%.*s-*", (int)plen, f->object);
            char *title = advice_fmt("%s (and %zu more Jobs like it)", f->title, j - i - 1);
            char *evidence = advice_ev_end(&e);
            r->counts[f->severity] -= (int64_t)(j - i - 1);
            for (size_t k = i + 1; k < j; k++)
                finding_release(&r->v[k]);
            free(f->object);
            free(f->id);
            free(f->title);
            free(f->evidence);
            f->object = object;
            f->id = advice_fmt("%s:%s", f->rule, object);
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
    struct advice_ctx c = {.in = in, .r = xcalloc(1, sizeof *c.r), .cap = 0};
    advice_rule_system_pool(&c);
    advice_rule_self_on_spot(&c);
    advice_rule_spot_taint(&c);
    advice_rule_fallback_pool(&c);
    advice_rule_spot_autoscale(&c);
    advice_rule_fallback_min_nodes(&c);
    advice_job_rules(&c);
    advice_rule_no_checkpoints(&c);
    advice_rule_pdb(&c);
    if (c.r->n > 1)
        qsort(c.r->v, c.r->n, sizeof *c.r->v, cmp_finding);
    group_job_findings(c.r);
    *out = c.r;
    return ERR_OK;
}

void advice_result_merge(struct advice_result *dst, struct advice_result *src,
                         const char *cluster) {
    if (src->n) {
        dst->v = xrealloc(dst->v, (dst->n + src->n) * sizeof *dst->v);
        for (size_t i = 0; i < src->n; i++) {
            struct advice_finding *f = &dst->v[dst->n++];
            *f = src->v[i];
            free(f->cluster);
            f->cluster = cluster ? xstrdup(cluster) : NULL;
        }
        qsort(dst->v, dst->n, sizeof *dst->v, cmp_finding);
    }
    for (int s = 0; s < ADVICE_NSEVERITY; s++)
        dst->counts[s] += src->counts[s];
    dst->silenced += src->silenced;
    free(src->v);
    src->v = NULL;
    src->n = 0;
    memset(src->counts, 0, sizeof src->counts);
    src->silenced = 0;
}

void advice_result_free(struct advice_result *r) {
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        finding_release(&r->v[i]);
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
        if (f->cluster)
            jsonw_kstr(&w, "cluster", f->cluster);
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
