/* uncertainty — the bootstrap samples of a computed window (uncertainty.h,
 * docs/uncertainty.md). */
#include "query/uncertainty.h"

#include "base/jsonw.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const diff_names[UNC_NDIFF] = {
    "spot_vs_on_demand",
    "fallback_vs_on_demand",
    "spot_vs_counterfactual",
    "fallback_vs_counterfactual",
};

const char *unc_diff_name(enum unc_diff d) {
    return (unsigned)d < UNC_NDIFF ? diff_names[d] : NULL;
}

/* One configuration's sample: its selected tasks that held a node in W (some
 * allocated cost) or succeeded in W. */
struct csample {
    struct boot_item *items;
    size_t n;
};

/* The reclaim (index into r->reclaims) whose pool's node interrupted one of
 * the task's attempts; -1 none. byt: the task's attempt rows. */
static int64_t reclaim_block(const struct cost_input *in, const struct cost_result *r,
                             const size_t *rows, size_t nrows) {
    for (size_t k = 0; k < nrows; k++) {
        const struct cost_attempt *a = &in->attempts[rows[k]];
        if (r->attempts[rows[k]].outcome != COST_ATTEMPT_INTERRUPTED || a->node < 0)
            continue;
        int32_t pool = in->nodes[a->node].pool;
        for (size_t j = 0; pool >= 0 && j < r->n_reclaims; j++)
            if (r->reclaims[j].pool == pool)
                return (int64_t)j;
    }
    return -1;
}

static void csample_free(struct csample *s) {
    free(s->items);
    s->items = NULL;
    s->n = 0;
}

/* Builds the three samples. alloc[t]: the task's allocated µ$ in W. */
static enum err build(const struct cost_input *in, const struct cost_result *r,
                      struct csample s[COST_NCONFIG]) {
    enum err rc = ERR_NOMEM;
    size_t nt = in->n_tasks;
    int64_t *alloc = calloc(nt ? nt : 1, sizeof *alloc);
    size_t *off = calloc(nt + 1, sizeof *off), *rows = malloc((in->n_attempts + 1) * sizeof *rows);
    int64_t *w = NULL, *cfw = NULL;
    memset(s, 0, COST_NCONFIG * sizeof *s);
    if (!alloc || !off || !rows)
        goto out;
    /* attempt rows grouped by task (counting sort) */
    for (size_t i = 0; i < in->n_attempts; i++) {
        off[in->attempts[i].task + 1]++;
        alloc[in->attempts[i].task] += r->attempts[i].allocated;
    }
    for (size_t t = 0; t < nt; t++)
        off[t + 1] += off[t];
    {
        size_t *fill = calloc(nt ? nt : 1, sizeof *fill);
        if (!fill)
            goto out;
        for (size_t i = 0; i < in->n_attempts; i++) {
            size_t t = (size_t)in->attempts[i].task;
            rows[off[t] + fill[t]++] = i;
        }
        free(fill);
    }
    w = malloc((nt ? nt : 1) * sizeof *w);
    cfw = malloc((nt ? nt : 1) * sizeof *cfw);
    if (!w || !cfw)
        goto out;
    for (int c = 0; c < COST_NCONFIG; c++) {
        const struct cost_config_result *cr = &r->configs[c];
        s[c].items = calloc(nt ? nt : 1, sizeof *s[c].items);
        if (!s[c].items)
            goto out;
        size_t n = 0;
        for (size_t t = 0; t < nt; t++) {
            const struct cost_task_result *tr = &r->tasks[t];
            if (!tr->selected || (int)in->tasks[t].config != c ||
                (alloc[t] <= 0 && tr->succeeded <= 0))
                continue;
            struct boot_item *it = &s[c].items[n];
            it->successes = tr->succeeded;
            it->alt_tasks = tr->cf_priced;
            it->block = reclaim_block(in, r, rows + off[t], off[t + 1] - off[t]);
            w[n] = alloc[t] > 0 ? alloc[t] : 0;
            cfw[n] = tr->cf_num;
            n++;
        }
        s[c].n = n;
        if (n == 0)
            continue;
        /* the configuration's cost (allocated + idle) over its tasks, by their
         * allocated cost: the items sum to cr->cost exactly */
        if ((rc = boot_spread(cr->cost, w, n, s[c].items)) != ERR_OK)
            goto out;
        /* the counterfactual cost over the priced tasks, by their exact numerators */
        int64_t cf = cr->counterfactual_cost;
        bool any = false;
        for (size_t i = 0; i < n; i++)
            any = any || cfw[i] > 0;
        if (any && cf > 0) {
            int64_t *parts = malloc(n * sizeof *parts);
            if (!parts) {
                rc = ERR_NOMEM;
                goto out;
            }
            rc = boot_split(cf, cfw, n, parts);
            for (size_t i = 0; rc == ERR_OK && i < n; i++)
                s[c].items[i].alt_cost = parts[i];
            free(parts);
            if (rc != ERR_OK)
                goto out;
        }
    }
    rc = ERR_OK;
out:
    if (rc != ERR_OK)
        for (int c = 0; c < COST_NCONFIG; c++)
            csample_free(&s[c]);
    free(alloc);
    free(off);
    free(rows);
    free(w);
    free(cfw);
    return rc;
}

enum err unc_compute(const struct cost_input *in, const struct cost_query *q,
                     const struct cost_result *r, const struct boot_params *p,
                     struct unc_result *out) {
    (void)q;
    if (!r->attempts || !r->tasks)
        return ERR_INVAL;
    struct boot_params bp = {
        .seed = p && p->seed ? p->seed : BOOT_DEFAULT_SEED,
        .resamples = p && p->resamples ? p->resamples : BOOT_DEFAULT_RESAMPLES,
        .min_successes = p && p->min_successes ? p->min_successes : BOOT_DEFAULT_MIN_SUCCESSES,
    };
    struct csample s[COST_NCONFIG];
    enum err rc = build(in, r, s);
    if (rc != ERR_OK)
        return rc;
    memset(out, 0, sizeof *out);
    out->params = bp;
    for (int c = 0; c < COST_NCONFIG && rc == ERR_OK; c++)
        rc = boot_ratio(s[c].items, s[c].n, &bp, &out->per_task[c]);
    if (rc == ERR_OK)
        rc = boot_diff(s[COST_SPOT].items, s[COST_SPOT].n, s[COST_ON_DEMAND].items,
                       s[COST_ON_DEMAND].n, &bp, &out->diff[UNC_SPOT_VS_ON_DEMAND]);
    if (rc == ERR_OK)
        rc = boot_diff(s[COST_FALLBACK].items, s[COST_FALLBACK].n, s[COST_ON_DEMAND].items,
                       s[COST_ON_DEMAND].n, &bp, &out->diff[UNC_FALLBACK_VS_ON_DEMAND]);
    if (rc == ERR_OK)
        rc = boot_paired_diff(s[COST_SPOT].items, s[COST_SPOT].n, &bp,
                              &out->diff[UNC_SPOT_VS_COUNTERFACTUAL]);
    if (rc == ERR_OK)
        rc = boot_paired_diff(s[COST_FALLBACK].items, s[COST_FALLBACK].n, &bp,
                              &out->diff[UNC_FALLBACK_VS_COUNTERFACTUAL]);
    for (int c = 0; c < COST_NCONFIG; c++)
        csample_free(&s[c]);
    return rc;
}

/* "$1.23" / "-$0.10": µ$ rounded half away from zero to whole cents */
static void usd_cents(int64_t micro, char *out, size_t size) {
    int64_t a = micro < 0 ? -micro : micro;
    int64_t cents = (a + 5000) / 10000;
    snprintf(out, size, "%s$%" PRId64 ".%02" PRId64, micro < 0 && cents ? "-" : "", cents / 100,
             cents % 100);
}

void unc_verdict_text(const struct boot_interval *d, const char *name, const char *other, char *out,
                      size_t size) {
    char lo[32], hi[32];
    if (!d->ok) {
        snprintf(out, size, "%s vs %s: no interval (%s)", name, other, d->reason);
        return;
    }
    int v = boot_verdict(d);
    if (v < 0) { /* the saving's interval: -hi .. -lo */
        usd_cents(-d->hi, lo, sizeof lo);
        usd_cents(-d->lo, hi, sizeof hi);
        snprintf(out, size, "%s cheaper than %s (95%% interval %s-%s per task)", name, other, lo,
                 hi);
        return;
    }
    usd_cents(d->lo, lo, sizeof lo);
    usd_cents(d->hi, hi, sizeof hi);
    if (v > 0) {
        snprintf(out, size, "%s dearer than %s (95%% interval %s-%s per task)", name, other, lo,
                 hi);
        return;
    }
    int64_t more = boot_more_needed(d);
    if (more > 0)
        snprintf(out, size,
                 "%s vs %s: not distinguishable yet (95%% interval %s to %s per task): need "
                 "about %" PRId64 " more successful tasks",
                 name, other, lo, hi, more);
    else
        snprintf(out, size, "%s vs %s: not distinguishable (95%% interval %s to %s per task)", name,
                 other, lo, hi);
}

static void interval_json(struct jsonw *w, const struct boot_interval *b) {
    jsonw_obj(w);
    if (b->ok) {
        jsonw_kmoney(w, "point", b->point);
        jsonw_kmoney(w, "lo", b->lo);
        jsonw_kmoney(w, "hi", b->hi);
    } else {
        jsonw_key(w, "point");
        jsonw_null(w);
        jsonw_key(w, "lo");
        jsonw_null(w);
        jsonw_key(w, "hi");
        jsonw_null(w);
    }
    jsonw_kint(w, "successful_tasks", b->n);
    jsonw_kint(w, "resamples_used", b->ok ? b->resamples_used : 0);
    jsonw_kstr(w, "reason", b->ok ? NULL : b->reason);
    jsonw_obj_end(w);
}

/* who is compared with whom, as the verdict names them */
static const char *const who[UNC_NDIFF][2] = {
    {"Spot", "pure On-Demand"},
    {"Fallback", "pure On-Demand"},
    {"Spot", "the same tasks at On-Demand rates"},
    {"Fallback", "the same tasks at On-Demand rates"},
};

void unc_diff_text(const struct unc_result *u, enum unc_diff d, char *out, size_t size) {
    if ((unsigned)d >= UNC_NDIFF) {
        snprintf(out, size, "%s", "");
        return;
    }
    unc_verdict_text(&u->diff[d], who[d][0], who[d][1], out, size);
}

void unc_write_json(const struct unc_result *u, struct jsonw *w) {
    static const char *const cfg[COST_NCONFIG] = {"spot", "fallback", "on-demand"};
    jsonw_obj(w);
    jsonw_kstr(w, "method", "block bootstrap over tasks");
    jsonw_key(w, "confidence");
    jsonw_fixed(w, 95, 2);
    jsonw_kint(w, "resamples", u->params.resamples);
    jsonw_kint(w, "seed", (int64_t)u->params.seed);
    jsonw_kint(w, "min_successful_tasks", u->params.min_successes);
    jsonw_key(w, "cost_per_successful_task");
    jsonw_obj(w);
    for (int c = 0; c < COST_NCONFIG; c++) {
        jsonw_key(w, cfg[c]);
        interval_json(w, &u->per_task[c]);
    }
    jsonw_obj_end(w);
    jsonw_key(w, "comparisons");
    jsonw_arr(w);
    for (int k = 0; k < UNC_NDIFF; k++) {
        const struct boot_interval *d = &u->diff[k];
        char text[256];
        jsonw_obj(w);
        jsonw_kstr(w, "name", diff_names[k]);
        jsonw_key(w, "difference");
        interval_json(w, d);
        int v = boot_verdict(d);
        jsonw_kstr(w, "verdict",
                   !d->ok  ? NULL
                   : v < 0 ? "cheaper"
                   : v > 0 ? "dearer"
                           : "not_distinguishable");
        int64_t more = boot_more_needed(d);
        jsonw_key(w, "more_tasks_needed");
        if (d->ok && v == 0 && more > 0)
            jsonw_int(w, more);
        else
            jsonw_null(w);
        unc_diff_text(u, (enum unc_diff)k, text, sizeof text);
        jsonw_kstr(w, "text", text);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}
