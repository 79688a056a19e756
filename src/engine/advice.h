/* advice — the setup advisor: configuration mistakes that make a Spot failover
 * go wrong, found in what spotledger already stores, each with its evidence and
 * its fix (README "Setup advice" documents every rule and why it exists).
 *
 * Pure (like cost): rows in, findings out. No SQL, no I/O, no clock, no globals;
 * the caller passes everything it knows, including spotledger's own node (from
 * the NODE_NAME/POD_NAME environment, read by the caller) and the cost figures
 * of the window (cost_compute). JSON text columns (pool labels/taints, a Job's
 * spec_json) are parsed here with json-c; a malformed one counts as absent.
 *
 * Invariants of every result (tested):
 *  - findings are sorted by (severity, rule, object) and ids "<rule>:<object>"
 *    are unique; the same input always gives byte-identical JSON;
 *  - counts[s] == number of findings of severity s; silenced findings are not
 *    listed, only counted in `silenced`;
 *  - a rule that lacks the data it needs says nothing (no finding on absence of
 *    evidence), except where absence IS the finding (no system pool, no fallback).
 *
 * Silencing: a Job's annotation spotledger.io/ignore-advice: "rule[,rule]" (or
 * "all"), carried in spec_json as "ignoreAdvice"; and --ignore-advice entries
 * "RULE" (everywhere), "RULE:POOL" (findings about that pool, by id or name),
 * with RULE "all" matching every rule.
 *
 * Thread rule: any thread; advice_run keeps no state between calls. */
#ifndef SPOTLEDGER_ADVICE_H
#define SPOTLEDGER_ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/cost.h"
#include "base/err.h"

enum advice_severity { ADVICE_CRITICAL = 0, ADVICE_WARNING = 1, ADVICE_INFO = 2 };
#define ADVICE_NSEVERITY 3

/* Rule ids (stable: they are the silencing keys and the first part of ids). */
#define ADVICE_SYSTEM_POOL "system-pool"
#define ADVICE_SELF_ON_SPOT "self-on-spot"
#define ADVICE_SPOT_TAINT "spot-taint"
#define ADVICE_SPOT_TOLERATION "spot-toleration"
#define ADVICE_FALLBACK_POOL "fallback-pool"
#define ADVICE_SPOT_AUTOSCALE "spot-autoscale"
#define ADVICE_FALLBACK_MIN_NODES "fallback-min-nodes"
#define ADVICE_POD_FAILURE_POLICY "pod-failure-policy"
#define ADVICE_TTL_TOO_SHORT "ttl-too-short"
#define ADVICE_REQUIRED_SPOT_AFFINITY "required-spot-affinity"
#define ADVICE_NO_CHECKPOINTS "no-checkpoints"
#define ADVICE_PDB_BLOCKS_DRAIN "pdb-blocks-drain"

/* A fallback pool that needs longer than this to replace a reclaimed Spot pool
 * (median of the measured delays) turns fallback-min-nodes into a warning. */
#define ADVICE_SLOW_REPLACEMENT_SECONDS 300
/* A node of the fallback pool Ready this long after a reclaim signal still
 * counts as its replacement; later ones are unrelated scale-ups. */
#define ADVICE_REPLACEMENT_HORIZON 21600
/* ttlSecondsAfterFinished we suggest at least (a day covers a restart). */
#define ADVICE_TTL_SUGGESTED 86400

/* ---- input: all strings borrowed; times Unix seconds, 0 unknown; -1 = absent */

struct advice_size { /* sizes (DigitalOcean /v2/sizes gpu_info) */
    const char *slug;
    int64_t vcpus;         /* -1 unknown */
    int64_t memory_mb;     /* -1 unknown */
    int64_t gpu_count;     /* 0 none, -1 unknown */
    const char *gpu_model; /* NULL unknown */
    int64_t gpu_vram_gb;   /* -1 unknown */
};

struct advice_pool { /* node_pools */
    const char *id;
    const char *name;
    const char *size;
    const char *cluster_id; /* NULL unknown */
    bool spot;              /* capacity_type */
    bool auto_scale;
    int64_t min_nodes, max_nodes, node_count; /* -1 unknown */
    const char *labels_json;                  /* DO labels object, NULL none */
    const char *taints_json;                  /* DO taints [{"key","value","effect"}], NULL none */
    int64_t price_hourly;                     /* µ$/h, 0 unknown */
    int64_t deleted_at; /* 0: alive (the advisor checks alive pools, and gone ones reclaimed in the
                           window) */
};

struct advice_node { /* nodes */
    const char *name;
    const char *pool_id; /* NULL unknown */
    bool spot;           /* capacity_type (or its pool's) is spot */
    int64_t created_at;
    int64_t ready_at;   /* first Ready=True, 0 unknown */
    int64_t deleted_at; /* earliest deletion, 0 alive */
};

struct advice_reclaim { /* reclaims */
    const char *pool_id;
    int64_t detected_at;
    int64_t signal_at; /* first signal, 0 unknown (detected_at is used) */
};

struct advice_job { /* one Job (all completion indexes of an Indexed Job) */
    const char *uid;
    const char *ns;
    const char *name;
    enum cost_config config;    /* label, else the default configuration */
    int64_t backoff_limit;      /* -1 absent (Kubernetes default 6) */
    int64_t ttl_after_finished; /* -1 absent */
    bool has_pod_failure_policy;
    bool pfp_ignores_disruption;
    const char *spec_json; /* k8s_api's compact scheduling bits; NULL none */
    int64_t tasks;
    int64_t tasks_failed;
    int64_t outcomes_lost; /* tasks deleted before their outcome was seen */
    int64_t attempts;
    int64_t interrupted;        /* attempts ended by a disruption (docs/cost-model.md) */
    int64_t checkpoint_reports; /* attempts whose report had checkpoint_seconds */
    int64_t last_seen;
};

/* A PodDisruptionBudget over pods of Spot nodes (store_advice.h loads the
 * watched ones with the pods they select). */
struct advice_pdb {
    const char *ns;
    const char *name;
    int64_t max_unavailable;     /* absolute, -1 unset */
    int64_t max_unavailable_pct; /* "N%", -1 unset */
    int64_t min_available;       /* absolute, -1 unset */
    int64_t min_available_pct;   /* -1 unset */
    int64_t expected_pods;       /* status.expectedPods, -1 unknown */
    int64_t pods_on_spot;        /* matched pods running on Spot nodes */
    const char *spot_pool_id;    /* one such pool (evidence, silencing); NULL unknown */
};

/* What cost_compute said about a configuration in the window. */
struct advice_cost {
    bool known;
    int64_t interruptions;
    int64_t wasted_cost;            /* µ$ */
    int64_t measured_overhead_bp;   /* COST_NULL unknown */
    int64_t break_even_overhead_bp; /* COST_NULL unknown */
};

struct advice_label {
    const char *key;
    const char *value;
};

struct advice_input {
    const struct advice_pool *pools;
    size_t n_pools;
    const struct advice_size *sizes;
    size_t n_sizes;
    const struct advice_node *nodes;
    size_t n_nodes;
    const struct advice_reclaim *reclaims;
    size_t n_reclaims;
    const struct advice_job *jobs;
    size_t n_jobs;
    const struct advice_pdb *pdbs;
    size_t n_pdbs;
    struct advice_cost costs[COST_NCONFIG]; /* indexed by enum cost_config */
    const struct cost_advice *checkpoint;   /* cost_result.advice (Young/Daly) */
    size_t n_checkpoint;
    int64_t poll_interval;     /* seconds (--poll-interval) */
    int64_t watch_lag_seconds; /* longest observed delay before an object was first seen; -1 */
    const char *cluster;       /* name or id for doctl; NULL: "<cluster>" */
    const struct advice_label *spot_labels; /* --spot-label pairs (or the defaults) */
    size_t n_spot_labels;
    const char *const *ignore; /* --ignore-advice entries */
    size_t n_ignore;
    const char *self_node; /* spotledger's node (NODE_NAME), NULL unknown */
    const char *self_pod;  /* POD_NAME, NULL unknown (evidence only) */
};

/* ---- output ---------------------------------------------------------------- */

struct advice_finding {
    const char *rule; /* static */
    enum advice_severity severity;
    char *object; /* pool name, "<namespace>/<job>", node name, configuration, "cluster" */
    char *id;     /* "<rule>:<object>" */
    char *title;
    char *evidence;  /* a JSON object (valid JSON text) */
    const char *why; /* static */
    char *fix;
    char *cluster; /* the fleet cluster it is about (advice_result_merge); NULL: not said */
};

struct advice_result {
    struct advice_finding *v;
    size_t n;
    int64_t counts[ADVICE_NSEVERITY];
    int64_t silenced;
};

/* Runs every rule. On ERR_OK *out is new (advice_result_free). ERR_INVAL for a
 * NULL input array with a nonzero count. */
enum err advice_run(const struct advice_input *in, struct advice_result **out);
void advice_result_free(struct advice_result *r);

/* Moves src's findings into dst, each marked as about cluster (copied), and
 * adds src's counts and silenced to dst's; dst is then in advice_run's order
 * with the cluster after the severity (a fleet's advice, run per cluster, as
 * one answer). src is left empty (still to be freed). */
void advice_result_merge(struct advice_result *dst, struct advice_result *src, const char *cluster);

/* {"findings":[...],"counts":{"critical":N,"warning":N,"info":N},"silenced":N}
 * appended to out; a finding with a cluster carries "cluster". ERR_TOOBIG past
 * the buffer's cap. */
enum err advice_json(const struct advice_result *r, struct buf *out);

const char *advice_severity_name(enum advice_severity s); /* "critical" ... */

/* True when the comma-separated list (an annotation value or one rule) names
 * rule, or "all". Spaces around items are ignored. */
bool advice_list_has(const char *list, const char *rule);

#endif
