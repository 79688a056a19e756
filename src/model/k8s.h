/* k8s — the Kubernetes objects spotledger keeps (Job, Pod, Node, Event,
 * policy/v1 PodDisruptionBudget) as plain
 * records: what the parsers (source/k8s_api.h) produce and the store
 * (store/store_k8s.h) writes. No I/O, no JSON.
 *
 * Invariants: every time is Unix seconds from the object itself (0 = absent);
 * counts and limits that the object omits are -1; strings that the object omits
 * are "" (fixed arrays) or NULL (heap strings). Fixed arrays are sized for the
 * Kubernetes limits of what they hold (uids 36, names 253, label values 63);
 * longer input is truncated, never overflowed.
 *
 * Thread rule: any thread; the structs belong to their caller. */
#ifndef SPOTLEDGER_K8S_H
#define SPOTLEDGER_K8S_H

#include <stdbool.h>
#include <stdint.h>

#define K8S_UID_MAX 64
#define K8S_NAME_MAX 254
#define K8S_RV_MAX 64
#define K8S_LABEL_MAX 128
#define K8S_REASON_MAX 128
#define K8S_SHORT_MAX 32

enum k8s_kind { K8S_JOB, K8S_POD, K8S_NODE, K8S_EVENT, K8S_PDB };

struct k8s_meta {
    char uid[K8S_UID_MAX];
    char name[K8S_NAME_MAX];
    char ns[K8S_NAME_MAX];
    char resource_version[K8S_RV_MAX];
    int64_t created_at;
    int64_t deletion_at;    /* metadata.deletionTimestamp, 0 = none */
    int64_t deletion_grace; /* metadata.deletionGracePeriodSeconds, -1 = none */
};

enum k8s_outcome { K8S_RUNNING = 0, K8S_SUCCEEDED, K8S_FAILED };

struct k8s_job {
    struct k8s_meta meta;
    char configuration[K8S_LABEL_MAX]; /* label spotledger.io/configuration, "" absent */
    char experiment[K8S_LABEL_MAX];
    int64_t started_at;   /* status.startTime */
    int64_t completed_at; /* Complete/Failed condition time (else completionTime) */
    enum k8s_outcome outcome;
    char outcome_reason[K8S_REASON_MAX];
    int64_t backoff_limit;      /* -1 absent */
    int64_t active_deadline;    /* spec.activeDeadlineSeconds, -1 absent */
    int64_t ttl_after_finished; /* -1 absent */
    int64_t completions;        /* spec.completions, -1 absent */
    bool indexed;               /* completionMode Indexed */
    bool has_pod_failure_policy;
    bool pfp_ignores_disruption; /* a rule Ignore onPodConditions DisruptionTarget */
    char *completed_indexes;     /* status.completedIndexes "0-2,5", NULL absent */
    char *failed_indexes;        /* status.failedIndexes */
    char *spec_json; /* compact scheduling bits (and "podLabels"), never NULL after parse */
};

enum k8s_report_status { K8S_REPORT_NONE = 0, K8S_REPORT_BAD, K8S_REPORT_OK };

/* The task report (docs/cost-model.md); a field the report lacks is -1. */
struct k8s_task_report {
    int64_t work_seconds;
    int64_t restore_seconds;
    int64_t checkpoint_seconds;
};

struct k8s_pod {
    struct k8s_meta meta;
    char job_uid[K8S_UID_MAX]; /* controller ownerReference of kind Job, else label */
    char job_name[K8S_NAME_MAX];
    int64_t completion_index; /* -1: not an Indexed Job's pod */
    char node_name[K8S_NAME_MAX];
    int64_t gpu_request;       /* nvidia.com/gpu + amd.com/gpu, effective pod request */
    int64_t cpu_request_milli; /* effective pod request */
    int64_t scheduled_at;      /* PodScheduled=True lastTransitionTime */
    int64_t started_at;        /* earliest container startedAt */
    int64_t finished_at;       /* latest finishedAt, only once every container terminated */
    char phase[K8S_SHORT_MAX];
    char reason[K8S_REASON_MAX]; /* status.reason */
    bool has_exit_code;
    int exit_code; /* first non-zero terminated exit code, else 0 */
    int64_t disruption_at;
    char disruption_reason[K8S_REASON_MAX];
    enum k8s_report_status report_status;
    struct k8s_task_report report;
};

struct k8s_node {
    struct k8s_meta meta;
    char pool_id[K8S_LABEL_MAX];
    char pool_name[K8S_LABEL_MAX];
    char droplet_id[K8S_SHORT_MAX];   /* from spec.providerID digitalocean://<id> */
    char *labels_json;                /* "{}" when none; never NULL after parse */
    int64_t gpu_allocatable;          /* -1 absent */
    int64_t cpu_allocatable_milli;    /* -1 absent */
    char ready_status[K8S_SHORT_MAX]; /* "True" "False" "Unknown", "" absent */
    int64_t ready_since;              /* Ready condition lastTransitionTime */
    bool unschedulable;               /* spec.unschedulable (cordon) */
    int64_t cordoned_at;              /* unschedulable taint timeAdded, 0 unknown */
};

struct k8s_event {
    struct k8s_meta meta;
    char object_kind[K8S_SHORT_MAX];
    char object_name[K8S_NAME_MAX];
    char object_uid[K8S_UID_MAX];
    char object_ns[K8S_NAME_MAX];
    char reason[K8S_REASON_MAX];
    char type[K8S_SHORT_MAX];
    char source[K8S_REASON_MAX]; /* reporting controller / component */
    char *message;               /* NULL absent */
    int64_t first_at;
    int64_t last_at;
    int64_t count;
};

/* A policy/v1 PodDisruptionBudget. minAvailable / maxUnavailable are either a
 * number or "N%": the one given fills its absolute or its _pct field, every
 * other of the four is -1. */
struct k8s_pdb {
    struct k8s_meta meta;
    int64_t min_available, min_available_pct;
    int64_t max_unavailable, max_unavailable_pct;
    /* spec.selector.matchLabels as compact JSON ("{}": every pod of the
     * namespace, as policy/v1 reads an empty selector); NULL when the selector
     * has matchExpressions or no selector is given (not evaluated: a selector
     * spotledger cannot read matches nothing) */
    char *selector_json;
    int64_t expected_pods, current_healthy, desired_healthy, disruptions_allowed; /* -1 absent */
};

struct k8s_object {
    enum k8s_kind kind;
    union {
        struct k8s_job job;
        struct k8s_pod pod;
        struct k8s_node node;
        struct k8s_event event;
        struct k8s_pdb pdb;
    } u;
};

/* The metadata of any kind; a loan into o. */
const struct k8s_meta *k8s_object_meta(const struct k8s_object *o);

/* True when idx is in an index-set string like "0-2,5,7-9" (Job completedIndexes). */
bool k8s_index_set_contains(const char *set, int64_t idx);

const char *k8s_kind_name(enum k8s_kind kind);    /* "job", "pod", "node", "event", "pdb" */
const char *k8s_outcome_name(enum k8s_outcome o); /* "running", "succeeded", "failed" */
const char *k8s_report_status_name(enum k8s_report_status s); /* "none", "bad", "ok" */

#endif
