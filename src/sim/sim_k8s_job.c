/* sim_k8s_job — Jobs (batch/v1) as kube-apiserver renders them (sim_k8s_render.h). */
#include "sim/sim_k8s_render.h"

#include <stdio.h>
#include <string.h>

/* --- Job --- */

static void write_completed_indexes(struct jsonw *j, const struct sim_world *w,
                                    const struct sim_job *job, int64_t asof) {
    char out[1024];
    size_t len = 0;
    out[0] = '\0';
    int k = 0;
    while (k < job->ntasks) {
        if (!V(w->tasks[job->first_task + k].succeeded_seq)) {
            k++;
            continue;
        }
        int a = k;
        while (k + 1 < job->ntasks && V(w->tasks[job->first_task + k + 1].succeeded_seq))
            k++;
        int n = a == k ? snprintf(out + len, sizeof out - len, "%s%d", len ? "," : "", a)
                       : snprintf(out + len, sizeof out - len, "%s%d-%d", len ? "," : "", a, k);
        if (n < 0 || (size_t)n >= sizeof out - len)
            break;
        len += (size_t)n;
        k++;
    }
    if (len)
        jsonw_kstr(j, "completedIndexes", out);
}

void sim_render_job(struct jsonw *j, const struct sim_world *w, int idx, int64_t asof,
                    bool with_kind) {
    const struct sim_job *job = &w->jobs[idx];
    const struct sim_workload *wl = &w->sc->workloads[job->workload];
    sim_render_begin(j, SIM_K_JOB, with_kind, job->name);
    jsonw_kstr(j, "namespace", w->sc->namespace_);
    jsonw_kstr(j, "uid", job->uid);
    sim_render_krv(j, sim_seqs_at(&job->seqs, asof));
    jsonw_kint(j, "generation", 1);
    jsonw_ktime(j, "creationTimestamp", job->created_t);
    struct sim_labels l;
    sim_render_obj_labels(j, w, SIM_K_JOB, idx, &l);
    if (V(job->deleted_seq))
        jsonw_ktime(j, "deletionTimestamp", job->deleted_t);
    jsonw_obj_end(j);

    jsonw_key(j, "spec");
    jsonw_obj(j);
    jsonw_kint(j, "parallelism", job->ntasks);
    jsonw_kint(j, "completions", job->ntasks);
    if (wl->active_deadline > 0)
        jsonw_kint(j, "activeDeadlineSeconds", wl->active_deadline);
    jsonw_kint(j, "backoffLimit", wl->backoff_limit);
    if (wl->pod_failure_policy) {
        jsonw_key(j, "podFailurePolicy");
        jsonw_obj(j);
        jsonw_key(j, "rules");
        jsonw_arr(j);
        jsonw_obj(j);
        jsonw_kstr(j, "action", "Ignore");
        jsonw_key(j, "onPodConditions");
        jsonw_arr(j);
        jsonw_obj(j);
        jsonw_kstr(j, "type", "DisruptionTarget");
        jsonw_kstr(j, "status", "True");
        jsonw_obj_end(j);
        jsonw_arr_end(j);
        jsonw_obj_end(j);
        jsonw_arr_end(j);
        jsonw_obj_end(j);
    }
    jsonw_key(j, "selector");
    jsonw_obj(j);
    jsonw_key(j, "matchLabels");
    jsonw_obj(j);
    jsonw_kstr(j, "batch.kubernetes.io/controller-uid", job->uid);
    jsonw_obj_end(j);
    jsonw_obj_end(j);
    jsonw_key(j, "template");
    jsonw_obj(j);
    jsonw_key(j, "metadata");
    jsonw_obj(j);
    struct sim_labels tl;
    memset(&tl, 0, sizeof tl);
    sim_render_workload_labels(wl, &tl);
    sim_render_add_label(&tl, "batch.kubernetes.io/controller-uid", job->uid);
    sim_render_add_label(&tl, "batch.kubernetes.io/job-name", job->name);
    sim_render_add_label(&tl, "controller-uid", job->uid);
    sim_render_add_label(&tl, "job-name", job->name);
    sim_render_write_labels(j, &tl);
    jsonw_obj_end(j);
    jsonw_key(j, "spec");
    jsonw_obj(j);
    sim_render_pod_spec_body(j, w, wl, job->name, -1);
    jsonw_obj_end(j);
    jsonw_obj_end(j);
    jsonw_kstr(j, "completionMode", wl->indexed ? "Indexed" : "NonIndexed");
    jsonw_kbool(j, "suspend", false);
    jsonw_kstr(j, "podReplacementPolicy",
               wl->pod_failure_policy ? "Failed" : "TerminatingOrFailed");
    jsonw_kint(j, "ttlSecondsAfterFinished", wl->ttl_after_finished);
    jsonw_obj_end(j);

    /* status: counters folded from the pods as of asof */
    int active = 0, ready = 0, succeeded = 0, failed = 0, terminating = 0;
    for (int k = 0; k < job->npods; k++) {
        const struct sim_pod *p = &w->pods[job->pods[k]];
        if (!V(p->created_seq))
            continue;
        bool fin = V(p->fin_seq), deleted = V(p->deleted_seq), gone = fin || V(p->gcfail_seq);
        if (fin && p->exit_code == 0)
            succeeded++;
        if (V(p->counted_seq))
            failed++;
        if (!gone && !deleted) {
            if (V(p->delreq_seq))
                terminating++;
            else {
                active++;
                if (V(p->start_seq))
                    ready++;
            }
        }
    }
    bool done = V(job->done_seq);
    jsonw_key(j, "status");
    jsonw_obj(j);
    if (done) {
        jsonw_key(j, "conditions");
        jsonw_arr(j);
        if (job->failed) {
            const char *msg = strcmp(job->fail_reason, "DeadlineExceeded") == 0
                                  ? "Job was active longer than specified deadline"
                                  : "Job has reached the specified backoff limit";
            sim_render_condition(j, "FailureTarget", "True", job->done_t, job->fail_reason, msg,
                                 false);
            sim_render_condition(j, "Failed", "True", job->done_t, job->fail_reason, msg, false);
        } else {
            const char *msg = "Reached expected number of succeeded pods";
            sim_render_condition(j, "SuccessCriteriaMet", "True", job->done_t, "CompletionsReached",
                                 msg, false);
            sim_render_condition(j, "Complete", "True", job->done_t, "CompletionsReached", msg,
                                 false);
        }
        jsonw_arr_end(j);
    }
    jsonw_ktime(j, "startTime", job->created_t);
    if (done && !job->failed)
        jsonw_ktime(j, "completionTime", job->done_t);
    if (active)
        jsonw_kint(j, "active", active);
    if (succeeded)
        jsonw_kint(j, "succeeded", succeeded);
    if (failed)
        jsonw_kint(j, "failed", failed);
    jsonw_kint(j, "terminating", terminating);
    if (wl->indexed)
        write_completed_indexes(j, w, job, asof);
    jsonw_key(j, "uncountedTerminatedPods");
    jsonw_obj(j);
    jsonw_obj_end(j);
    jsonw_kint(j, "ready", ready);
    jsonw_obj_end(j);
    jsonw_obj_end(j);
}
