/* advice_window — the setup advisor's rules from the window's measurements
 * (advice_rules.h): reclaims costing more than Spot saves without checkpoints,
 * PodDisruptionBudgets that block the drain of Spot nodes. */
#include "engine/advice_rules.h"

#include <json-c/json.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/xalloc.h"

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

void advice_rule_no_checkpoints(struct advice_ctx *c) {
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
        struct advice_ev e;
        advice_ev_begin(&e);
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
            advice_ev_opt_int(&e, "mtbr_seconds", ca->mtbr_seconds);
            int64_t at60 = ca->mtbr_seconds > 0 ? isqrt(2 * 60 * ca->mtbr_seconds) : -1;
            advice_ev_opt_int(&e, "interval_if_checkpoint_takes_60s", at60);
            jsonw_obj_end(&e.w);
            if (at60 > 0 && example < 0)
                example = at60;
        }
        jsonw_arr_end(&e.w);
        char *fix =
            example > 0
                ? advice_fmt("Checkpoint every ~sqrt(2 x checkpoint time x mean time between "
                             "reclaims) (Young/Daly): about every %llds if a checkpoint takes "
                             "60 s. Report {\"checkpoint_seconds\":N} in the termination "
                             "message so the summary's checkpoint advice uses your real cost.",
                             (long long)example)
                : xstrdup("Checkpoint every ~sqrt(2 x checkpoint time x mean time "
                          "between reclaims) (Young/Daly) and report "
                          "{\"checkpoint_seconds\":N} in the termination message; see "
                          "the summary's checkpoint advice.");
        advice_emit(
            c, ADVICE_NO_CHECKPOINTS, ADVICE_WARNING, NULL, NULL,
            xstrdup(cost_config_name(cfgs[i])),
            advice_fmt("%s work loses more to reclaims than Spot saves, with no checkpoints",
                       cfgs[i] == COST_SPOT ? "Spot" : "Fallback"),
            advice_ev_end(&e), WHY_NO_CHECKPOINTS, fix);
    }
}

/* --- rule 10: PodDisruptionBudgets ---------------------------------------- */

static const char WHY_PDB[] =
    "A reclaim drains the Spot nodes, and a PodDisruptionBudget that allows no disruption "
    "blocks the eviction until the drain times out; the node is deleted anyway. It saves "
    "nothing, delays the reclaim's clean shutdown (no SIGTERM grace to checkpoint) and "
    "blocks ordinary node upgrades.";

void advice_rule_pdb(struct advice_ctx *c) {
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
        const struct advice_pool *pool = advice_pool_by_id(in, b->spot_pool_id);
        struct advice_ev e;
        advice_ev_begin(&e);
        jsonw_kstr(&e.w, "namespace", b->ns);
        jsonw_kstr(&e.w, "pdb", b->name);
        advice_ev_opt_int(&e, "max_unavailable", b->max_unavailable);
        advice_ev_opt_int(&e, "max_unavailable_pct", b->max_unavailable_pct);
        advice_ev_opt_int(&e, "min_available", b->min_available);
        advice_ev_opt_int(&e, "min_available_pct", b->min_available_pct);
        advice_ev_opt_int(&e, "expected_pods", b->expected_pods);
        jsonw_kint(&e.w, "pods_on_spot", b->pods_on_spot);
        if (pool)
            advice_ev_pool(&e, pool);
        advice_emit(
            c, ADVICE_PDB_BLOCKS_DRAIN, ADVICE_WARNING, pool, NULL,
            advice_fmt("%s/%s", b->ns, b->name),
            advice_fmt("PodDisruptionBudget '%s/%s' blocks the drain of Spot nodes", b->ns,
                       b->name),
            advice_ev_end(&e), WHY_PDB,
            xstrdup("Allow at least one disruption (maxUnavailable: 1, or minAvailable below "
                    "the replicas), or keep these pods off Spot."));
    }
}
