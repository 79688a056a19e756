/* sim_scenario — the scenario file (JSON, documented in src/sim/README.md) parsed
 * into plain structs, validated once. Durations are seconds, times Unix seconds,
 * prices micro-dollars (parsed digit by digit, never through double); every
 * optional field has its default filled in here so the engine never guesses.
 *
 * Ownership: sim_scenario_parse allocates *out; sim_scenario_free releases all.
 * Thread rule: parse once in main; read-only afterwards (any thread). */
#ifndef SPOTLEDGER_SIM_SCENARIO_H
#define SPOTLEDGER_SIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "plan/task.h"

#define SIM_MAX_POOLS 16
#define SIM_MAX_SIZES 16
#define SIM_MAX_WORKLOADS 32
#define SIM_MAX_RECLAIMS 64
#define SIM_MAX_KV 16

enum sim_role { SIM_ROLE_SPOT, SIM_ROLE_FALLBACK, SIM_ROLE_ON_DEMAND, SIM_ROLE_SYSTEM };
enum sim_config { SIM_CFG_SPOT, SIM_CFG_FALLBACK, SIM_CFG_ON_DEMAND };

struct sim_kv {
    char *key;
    char *value;
};

struct sim_taint {
    char *key;
    char *value;
    char *effect; /* NoSchedule | PreferNoSchedule | NoExecute */
};

#define SIM_MAX_PRICE_CHANGES 8

struct sim_price_change { /* a new list price in force from `at` on */
    int64_t at;           /* Unix seconds, after the scenario start */
    char *price_hourly_text;
    int64_t price_hourly; /* micro-dollars per hour */
};

struct sim_size {
    char *slug;
    char *price_hourly_text; /* the literal as written ("3.384"), echoed by /v2/sizes */
    int64_t price_hourly;    /* micro-dollars per hour, in force from the start */
    /* later list prices, `at` strictly increasing (sim_billing_price_at reads them) */
    struct sim_price_change changes[SIM_MAX_PRICE_CHANGES];
    int nchanges;
    int vcpus;
    int memory_mb;
    int disk_gb;
    int gpus;
    char *gpu_model; /* NULL for CPU sizes */
    int vram_gib;
    char *description;
};

#define SIM_MAX_SPELLS 8

/* A NotReady spell planned by the scenario (pools[].notready[]): from `at` on, the
 * pool's nodes stop posting status for `dur` seconds (0: until deleted). */
struct sim_spell_spec {
    int64_t at;
    int64_t dur;
};

struct sim_pool_spec {
    char *name;
    char *id;   /* NULL: generated from the seed */
    char *size; /* slug, must be in sizes */
    int size_idx;
    enum sim_role role;
    int count;
    bool auto_scale;
    int min_nodes, max_nodes;
    struct sim_kv labels[SIM_MAX_KV];
    int nlabels;
    struct sim_taint taints[SIM_MAX_KV];
    int ntaints;
    int64_t recreate_after; /* seconds after a reclaim's pool is gone; 0 = never */
    /* NotReady spells of every Ready node of the pool (kubelet unreachable) */
    struct sim_spell_spec notready[SIM_MAX_SPELLS];
    int nnotready;
};

struct sim_reclaim_spec {
    int pool;              /* index into pools */
    int64_t at;            /* Unix seconds; 0 when rate-based */
    int64_t mean_interval; /* rate-based: mean seconds between reclaims (Poisson) */
};

struct sim_workload {
    char *name;
    enum sim_config configuration;
    char *experiment;         /* NULL if none */
    int count;                /* jobs to create (count mode), or 0 */
    int64_t interval;         /* seconds between jobs in count mode */
    int64_t mean_gap;         /* Poisson mode: mean seconds between arrivals; 0 = count mode */
    int64_t start_offset;     /* seconds after scenario start */
    int64_t end_offset;       /* Poisson mode: stop creating jobs after this offset */
    int pools[SIM_MAX_POOLS]; /* placement preference (indexes), first = most preferred */
    int npools;
    int completions; /* > 1: an Indexed Job with this many indexes (parallelism = completions) */
    bool indexed;
    struct plan_duration duration; /* the task length distribution (plan/task.h) */
    int64_t checkpoint_interval;   /* seconds of work between checkpoints; 0 = none */
    int64_t checkpoint_seconds;    /* cost of one checkpoint */
    int64_t restore_seconds;       /* cost of restoring a checkpoint at attempt start */
    int64_t failure_ppm;           /* application failure probability per attempt, ppm */
    int backoff_limit;
    int64_t active_deadline; /* 0 = none */
    int64_t ttl_after_finished;
    bool pod_failure_policy; /* Ignore DisruptionTarget */
    int gpus;                /* nvidia.com/gpu request per pod */
    int cpu_m;               /* cpu request, millicores */
    char *image;
    /* a PodDisruptionBudget over the workload's pods (app.kubernetes.io/name);
     * -1 = not set; at most one of the two is set */
    int pdb_min_available, pdb_max_unavailable;
};

struct sim_scenario {
    int64_t start;
    int64_t duration;
    char *cluster_id; /* NULL: generated */
    char *cluster_name;
    char *region;
    char *k8s_version;
    char *namespace_;
    char *project_name;
    struct sim_size sizes[SIM_MAX_SIZES];
    int nsizes;
    struct sim_pool_spec pools[SIM_MAX_POOLS];
    int npools;
    struct sim_workload workloads[SIM_MAX_WORKLOADS];
    int nworkloads;
    struct sim_reclaim_spec reclaims[SIM_MAX_RECLAIMS];
    int nreclaims;
    /* cluster behaviour (seconds) */
    int64_t provisioning_seconds; /* droplet created -> Node Ready */
    int64_t register_seconds;     /* Node object appears this long before Ready */
    int64_t scale_up_delay;       /* pending pod -> autoscaler adds a node (fallback scale-up) */
    int64_t scale_down_unneeded;  /* empty node -> removed (pools above min_nodes) */
    int64_t pod_start_seconds;    /* scheduled -> container started (image pull) */
    int64_t pod_gc_seconds;       /* node deleted -> its pods garbage-collected */
    int64_t event_ttl;            /* Kubernetes Events live this long */
    int64_t reclaim_drain_after;  /* first signal -> pods evicted (DisruptionTarget) */
    int64_t reclaim_notice;       /* first signal -> nodes shut down (NotReady) */
    int64_t node_delete_seconds;  /* shut down -> Node and droplet deleted */
    int64_t sigterm_seconds;      /* SIGTERM -> container exits (143) */
    int64_t eviction_timeout;     /* NotReady spell -> its pods evicted (taint manager) */
};

/* Parses a scenario from text[0..len). On failure returns ERR_PARSE (not JSON) or
 * ERR_INVAL (a field is missing or wrong) and writes one line naming the field to
 * err; *out untouched. */
enum err sim_scenario_parse(const char *text, size_t len, struct sim_scenario **out, char *err,
                            size_t errlen);
/* Reads and parses a file (ERR_IO if unreadable). */
enum err sim_scenario_load(const char *path, struct sim_scenario **out, char *err, size_t errlen);
void sim_scenario_free(struct sim_scenario *sc);

/* "spot" / "fallback" / "on-demand". */
const char *sim_config_name(enum sim_config c);
const char *sim_role_name(enum sim_role r);
/* Parses "90", "90s", "15m", "36h", "7d" into seconds. ERR_PARSE otherwise. */
enum err sim_parse_duration(const char *s, int64_t *out);

#endif
