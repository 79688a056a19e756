/* advice_job — the setup advisor's rules about a Job's spec (advice_rules.h):
 * Spot tolerations, podFailurePolicy, ttlSecondsAfterFinished, a required Spot
 * affinity on a fallback Job; run once per Job name. */
#include "engine/advice_rules.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "model/labels.h"
#include "base/xalloc.h"

static const char WHY_SPOT_TOLERATION[] =
    "The Job does not tolerate the taints of any Spot pool, so its pods can never run on "
    "Spot: a 'spot' Job waits for a node forever (or lands On-Demand), a 'fallback' Job "
    "always pays the On-Demand price while it is accounted as Spot work.";

static void rule_spot_toleration(struct advice_ctx *c, const struct advice_job *j,
                                 json_object *spec, const char *ignore) {
    const struct advice_input *in = c->in;
    if (j->config == COST_ON_DEMAND)
        return;
    json_object *tol = advice_jget(spec, "tolerations");
    size_t tainted = 0;
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (!advice_alive(p) || !p->spot)
            continue;
        if (advice_hard_taints(p) == 0 || advice_tolerates_pool(tol, p))
            return; /* some Spot pool takes it */
        tainted++;
    }
    if (tainted == 0)
        return;
    struct advice_ev e;
    advice_ev_begin(&e);
    advice_ev_job(&e, j);
    advice_ev_jobj(&e, "tolerations", tol);
    jsonw_key(&e.w, "spot_pools");
    jsonw_arr(&e.w);
    for (size_t i = 0; i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (!advice_alive(p) || !p->spot)
            continue;
        jsonw_obj(&e.w);
        jsonw_kstr(&e.w, "pool", advice_pool_label(p));
        advice_ev_json(&e, "taints", p->taints_json);
        jsonw_obj_end(&e.w);
    }
    jsonw_arr_end(&e.w);
    advice_emit(
        c, ADVICE_SPOT_TOLERATION, j->config == COST_SPOT ? ADVICE_CRITICAL : ADVICE_WARNING, NULL,
        ignore, advice_fmt("%s/%s", j->ns, j->name),
        advice_fmt("%s Job '%s/%s' does not tolerate the Spot pool's taints",
                   j->config == COST_SPOT ? "Spot" : "Fallback", j->ns, j->name),
        advice_ev_end(&e), WHY_SPOT_TOLERATION,
        xstrdup("Add a toleration for each NoSchedule taint of the Spot pool to "
                "spec.template.spec.tolerations (e.g. key: workload, operator: Equal, value: "
                "gpu-batch, effect: NoSchedule), as in deploy/examples/job-fallback.yaml."));
}

/* --- rule 6: podFailurePolicy --------------------------------------------- */

static const char WHY_POD_FAILURE_POLICY[] =
    "Without a podFailurePolicy rule that Ignores DisruptionTarget, each pod a reclaim "
    "evicts counts as a failure against backoffLimit: a few reclaims fail a healthy Job, "
    "and a real bug gets fewer retries.";

static void rule_pod_failure_policy(struct advice_ctx *c, const struct advice_job *j,
                                    const char *ignore) {
    if (j->config == COST_ON_DEMAND || j->pfp_ignores_disruption)
        return;
    bool burned = j->tasks_failed > 0 && j->interrupted > 0;
    struct advice_ev e;
    advice_ev_begin(&e);
    advice_ev_job(&e, j);
    advice_ev_opt_int(&e, "backoff_limit", j->backoff_limit);
    jsonw_kint(&e.w, "effective_backoff_limit", j->backoff_limit >= 0 ? j->backoff_limit : 6);
    jsonw_kbool(&e.w, "has_pod_failure_policy", j->has_pod_failure_policy);
    jsonw_kint(&e.w, "attempts", j->attempts);
    jsonw_kint(&e.w, "retries_consumed_by_reclaims", j->interrupted);
    jsonw_kint(&e.w, "tasks_failed", j->tasks_failed);
    advice_emit(c, ADVICE_POD_FAILURE_POLICY, burned ? ADVICE_CRITICAL : ADVICE_WARNING, NULL,
                ignore, advice_fmt("%s/%s", j->ns, j->name),
                j->interrupted > 0
                    ? advice_fmt("Reclaims used %lld of Job '%s/%s''s retries",
                                 (long long)j->interrupted, j->ns, j->name)
                    : advice_fmt("Job '%s/%s' would count reclaims against its backoffLimit", j->ns,
                                 j->name),
                advice_ev_end(&e), WHY_POD_FAILURE_POLICY,
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

static void rule_ttl(struct advice_ctx *c, const struct advice_job *j, const char *ignore) {
    const struct advice_input *in = c->in;
    int64_t need = in->poll_interval > 0 ? in->poll_interval : 0;
    if (in->watch_lag_seconds > need)
        need = in->watch_lag_seconds;
    if (j->ttl_after_finished < 0 || j->ttl_after_finished >= need)
        return;
    struct advice_ev e;
    advice_ev_begin(&e);
    advice_ev_job(&e, j);
    jsonw_kint(&e.w, "ttl_seconds_after_finished", j->ttl_after_finished);
    jsonw_kint(&e.w, "poll_interval_seconds", in->poll_interval);
    advice_ev_opt_int(&e, "observed_watch_lag_seconds", in->watch_lag_seconds);
    jsonw_kint(&e.w, "outcomes_lost", j->outcomes_lost);
    advice_emit(
        c, ADVICE_TTL_TOO_SHORT, j->outcomes_lost > 0 ? ADVICE_CRITICAL : ADVICE_WARNING, NULL,
        ignore, advice_fmt("%s/%s", j->ns, j->name),
        advice_fmt("Job '%s/%s' is deleted %llds after it finishes, before spotledger may see it",
                   j->ns, j->name, (long long)j->ttl_after_finished),
        advice_ev_end(&e), WHY_TTL,
        advice_fmt("Set spec.ttlSecondsAfterFinished to at least %lld; %d (a day) also covers a "
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
        if (advice_str_eq(in->spot_labels[i].key, key) &&
            advice_str_eq(in->spot_labels[i].value, value))
            return true;
    bool by_name = advice_str_eq(key, K8S_LABEL_POOL_NAME),
         by_id = advice_str_eq(key, K8S_LABEL_POOL_ID);
    for (size_t i = 0; (by_name || by_id) && i < in->n_pools; i++) {
        const struct advice_pool *p = &in->pools[i];
        if (p->spot && advice_str_eq(by_name ? p->name : p->id, value))
            return true;
    }
    return false;
}

/* A nodeSelectorTerm that only Spot nodes can satisfy: one In expression all of
 * whose values are Spot labels. */
static bool term_requires_spot(const struct advice_input *in, json_object *term) {
    json_object *exprs = advice_jget(term, "matchExpressions");
    for (size_t i = 0; i < advice_jlen(exprs); i++) {
        json_object *x = json_object_array_get_idx(exprs, i);
        json_object *vals = advice_jget(x, "values");
        if (!advice_str_eq(advice_jstr(x, "operator"), "In") || advice_jlen(vals) == 0)
            continue;
        bool all = true;
        for (size_t k = 0; all && k < advice_jlen(vals); k++) {
            json_object *v = json_object_array_get_idx(vals, k);
            all = json_object_is_type(v, json_type_string) &&
                  spot_pair(in, advice_jstr(x, "key"), json_object_get_string(v));
        }
        if (all)
            return true;
    }
    return false;
}

static void rule_required_affinity(struct advice_ctx *c, const struct advice_job *j,
                                   json_object *spec, const char *ignore) {
    const struct advice_input *in = c->in;
    if (j->config != COST_FALLBACK)
        return;
    const char *how = NULL;
    json_object *sel = advice_jget(spec, "nodeSelector");
    if (sel && json_object_is_type(sel, json_type_object)) {
        json_object_object_foreach(sel, k, v) {
            if (json_object_is_type(v, json_type_string) &&
                spot_pair(in, k, json_object_get_string(v)))
                how = "nodeSelector";
        }
    }
    json_object *terms = advice_jget(spec, "requiredNodeAffinity");
    if (!how && advice_jlen(terms) > 0) {
        bool all = true;
        for (size_t i = 0; all && i < advice_jlen(terms); i++)
            all = term_requires_spot(in, json_object_array_get_idx(terms, i));
        if (all)
            how = "requiredDuringSchedulingIgnoredDuringExecution";
    }
    if (!how)
        return;
    struct advice_ev e;
    advice_ev_begin(&e);
    advice_ev_job(&e, j);
    jsonw_kstr(&e.w, "required_by", how);
    advice_ev_jobj(&e, "nodeSelector", sel);
    advice_ev_jobj(&e, "requiredNodeAffinity", terms);
    advice_emit(c, ADVICE_REQUIRED_SPOT_AFFINITY, ADVICE_CRITICAL, NULL, ignore,
                advice_fmt("%s/%s", j->ns, j->name),
                advice_fmt("Fallback Job '%s/%s' requires Spot nodes (%s)", j->ns, j->name, how),
                advice_ev_end(&e), WHY_REQUIRED_AFFINITY,
                xstrdup("Move the Spot term to preferredDuringSchedulingIgnoredDuringExecution "
                        "(weight 100) as in deploy/examples/job-fallback.yaml, or label the Job "
                        "spotledger.io/configuration: spot if it must only run on Spot."));
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

void advice_job_rules(struct advice_ctx *c) {
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
        if (k > 0 && advice_str_eq(ord[k - 1]->ns, j->ns) &&
            advice_str_eq(ord[k - 1]->name, j->name))
            continue; /* a recreated Job of the same name: the latest speaks */
        json_object *spec = advice_jparse(j->spec_json);
        const char *ignore = advice_jstr(spec, "ignoreAdvice");
        rule_spot_toleration(c, j, spec, ignore);
        rule_pod_failure_policy(c, j, ignore);
        rule_ttl(c, j, ignore);
        rule_required_affinity(c, j, spec, ignore);
        json_object_put(spec);
    }
    free((void *)ord);
}
