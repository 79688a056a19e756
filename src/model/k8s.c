/* k8s — the small pure helpers over the Kubernetes records (model/k8s.h). */
#include "model/k8s.h"

#include <errno.h>
#include <stdlib.h>

const struct k8s_meta *k8s_object_meta(const struct k8s_object *o) {
    switch (o->kind) {
    case K8S_JOB:
        return &o->u.job.meta;
    case K8S_POD:
        return &o->u.pod.meta;
    case K8S_NODE:
        return &o->u.node.meta;
    case K8S_EVENT:
        return &o->u.event.meta;
    case K8S_PDB:
        return &o->u.pdb.meta;
    }
    return &o->u.job.meta;
}

bool k8s_index_set_contains(const char *set, int64_t idx) {
    if (!set)
        return false;
    const char *p = set;
    while (*p) {
        char *end = NULL;
        errno = 0;
        long long a = strtoll(p, &end, 10);
        if (errno || end == p)
            return false;
        long long b = a;
        p = end;
        if (*p == '-') {
            b = strtoll(p + 1, &end, 10);
            if (errno || end == p + 1)
                return false;
            p = end;
        }
        if (idx >= a && idx <= b)
            return true;
        if (*p == ',')
            p++;
        else if (*p)
            return false;
    }
    return false;
}

static const char *const kind_names[] = {
    [K8S_JOB] = "job",     [K8S_POD] = "pod", [K8S_NODE] = "node",
    [K8S_EVENT] = "event", [K8S_PDB] = "pdb",
};

const char *k8s_kind_name(enum k8s_kind kind) {
    if ((unsigned)kind < sizeof kind_names / sizeof kind_names[0] && kind_names[kind])
        return kind_names[kind];
    return "?";
}

const char *k8s_outcome_name(enum k8s_outcome o) {
    return o == K8S_SUCCEEDED ? "succeeded" : o == K8S_FAILED ? "failed" : "running";
}

const char *k8s_report_status_name(enum k8s_report_status s) {
    return s == K8S_REPORT_OK ? "ok" : s == K8S_REPORT_BAD ? "bad" : "none";
}
