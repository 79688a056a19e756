/* uncertainty — the bootstrap samples of a computed window (uncertainty.h,
 * docs/uncertainty.md). */
#include "query/uncertainty.h"

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
