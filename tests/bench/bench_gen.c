/* bench_gen — see bench_gen.h. Object shapes follow tests/fixtures/k8s/ (the
 * fields spotledger reads) dressed as a real API server sends them: managedFields
 * of kube-controller-manager and the kubelet, env, volumes, tolerations, affinity,
 * probes. A pod is about 4 KB, like a 233 MB list of 60k pods. */
#include "bench_gen.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "base/timeutil.h"

#include "../unit/splitmix.h" /* splitmix64: tiny and good enough for shapes */

/* the object templates are longer than C99's 4095-byte minimum; gcc and clang cope */
#pragma GCC diagnostic ignored "-Woverlength-strings"

static void uuid(char out[37]) {
    uint64_t a = rnd(), b = rnd();
    snprintf(out, 37, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
             (unsigned)(0x8000 | ((b >> 48) & 0x3fff)),
             (unsigned long long)(b & 0xffffffffffffULL));
}

static void suffix5(char out[6]) {
    static const char al[] = "bcdfghjklmnpqrstvwxz2456789";
    for (int i = 0; i < 5; i++)
        out[i] = al[rnd() % (sizeof al - 1)];
    out[5] = '\0';
}

static void ts(int64_t t, char out[TIMEUTIL_RFC3339_MAX]) {
    timeutil_format_rfc3339(t, out);
}

static const char *const configs[] = {"spot", "fallback", "on-demand"};

/* ---- Kubernetes pages ---------------------------------------------------- */

struct k8s_ids {
    char job_uid[37];
    char job_name[64];
    int64_t t0;
    int config;
};

static void put_job(struct buf *b, const struct k8s_ids *j, long rv) {
    char c[TIMEUTIL_RFC3339_MAX], s[TIMEUTIL_RFC3339_MAX], e[TIMEUTIL_RFC3339_MAX];
    ts(j->t0, c);
    ts(j->t0 + 1, s);
    ts(j->t0 + rr(1800, 9000), e);
    bool ok = rnd() % 10 != 0;
    buf_printf(
        b,
        "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"batch\",\"uid\":\"%s\","
        "\"resourceVersion\":\"%ld\",\"generation\":1,\"creationTimestamp\":\"%s\","
        "\"labels\":{\"batch.kubernetes.io/controller-uid\":\"%s\","
        "\"batch.kubernetes.io/job-name\":\"%s\",\"controller-uid\":\"%s\",\"job-name\":\"%s\","
        "\"app.kubernetes.io/part-of\":\"training\",\"spotledger.io/configuration\":\"%s\","
        "\"spotledger.io/experiment\":\"exp-%02d\"},"
        "\"annotations\":{\"batch.kubernetes.io/job-tracking\":\"\","
        "\"kubectl.kubernetes.io/last-applied-configuration\":\"{\\\"apiVersion\\\":\\\"batch/"
        "v1\\\",\\\"kind\\\":\\\"Job\\\",\\\"metadata\\\":{\\\"annotations\\\":{},\\\"name\\\":"
        "\\\"%s\\\",\\\"namespace\\\":\\\"batch\\\"}}\\n\"},"
        "\"managedFields\":[{\"manager\":\"kubectl-client-side-apply\",\"operation\":\"Update\","
        "\"apiVersion\":\"batch/v1\",\"time\":\"%s\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{"
        "\"f:metadata\":{\"f:annotations\":{\".\":{},\"f:kubectl.kubernetes.io/"
        "last-applied-configuration\":{}},\"f:labels\":{\".\":{},\"f:app.kubernetes.io/"
        "part-of\":{},\"f:spotledger.io/configuration\":{},\"f:spotledger.io/experiment\":{}}},"
        "\"f:spec\":{\"f:backoffLimit\":{},\"f:completionMode\":{},\"f:completions\":{},"
        "\"f:parallelism\":{},\"f:podFailurePolicy\":{\".\":{},\"f:rules\":{}},"
        "\"f:podReplacementPolicy\":{},\"f:suspend\":{},\"f:template\":{\"f:metadata\":{"
        "\"f:labels\":{\".\":{},\"f:app\":{}}},\"f:spec\":{\"f:affinity\":{\".\":{},"
        "\"f:nodeAffinity\":{\".\":{},\"f:preferredDuringSchedulingIgnoredDuringExecution\":{}}},"
        "\"f:containers\":{\"k:{\\\"name\\\":\\\"main\\\"}\":{\".\":{},\"f:command\":{},"
        "\"f:env\":{},\"f:image\":{},\"f:imagePullPolicy\":{},\"f:name\":{},\"f:resources\":{"
        "\".\":{},\"f:limits\":{\".\":{},\"f:nvidia.com/gpu\":{}},\"f:requests\":{\".\":{},"
        "\"f:cpu\":{},\"f:memory\":{}}},\"f:terminationMessagePath\":{},"
        "\"f:terminationMessagePolicy\":{}}},\"f:dnsPolicy\":{},\"f:restartPolicy\":{},"
        "\"f:schedulerName\":{},\"f:securityContext\":{},\"f:terminationGracePeriodSeconds\":{},"
        "\"f:tolerations\":{}}},\"f:ttlSecondsAfterFinished\":{}}}},"
        "{\"manager\":\"kube-controller-manager\",\"operation\":\"Update\",\"apiVersion\":"
        "\"batch/v1\",\"time\":\"%s\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{"
        "\"f:completionTime\":{},\"f:conditions\":{},\"f:ready\":{},\"f:startTime\":{},"
        "\"f:succeeded\":{},\"f:terminating\":{},\"f:uncountedTerminatedPods\":{}}},"
        "\"subresource\":\"status\"}]},"
        "\"spec\":{\"parallelism\":1,\"completions\":1,\"backoffLimit\":6,"
        "\"completionMode\":\"NonIndexed\",\"suspend\":false,\"ttlSecondsAfterFinished\":3600,"
        "\"podReplacementPolicy\":\"TerminatingOrFailed\",\"podFailurePolicy\":{\"rules\":[{"
        "\"action\":\"Ignore\",\"onPodConditions\":[{\"type\":\"DisruptionTarget\",\"status\":"
        "\"True\"}]}]},\"selector\":{\"matchLabels\":{\"batch.kubernetes.io/controller-uid\":"
        "\"%s\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"train\","
        "\"batch.kubernetes.io/controller-uid\":\"%s\",\"batch.kubernetes.io/job-name\":\"%s\","
        "\"controller-uid\":\"%s\",\"job-name\":\"%s\"}},\"spec\":{\"containers\":[{\"name\":"
        "\"main\",\"image\":\"registry.digitalocean.com/acme/train:2026.11.3\",\"command\":["
        "\"python\",\"-m\",\"train\",\"--checkpoint-dir\",\"/ckpt\"],\"env\":[{\"name\":"
        "\"CHECKPOINT_INTERVAL\",\"value\":\"900\"},{\"name\":\"NCCL_DEBUG\",\"value\":\"WARN\"}],"
        "\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"},\"requests\":{\"cpu\":\"8\","
        "\"memory\":\"64Gi\"}},\"terminationMessagePath\":\"/dev/termination-log\","
        "\"terminationMessagePolicy\":\"File\",\"imagePullPolicy\":\"IfNotPresent\"}],"
        "\"restartPolicy\":\"Never\",\"terminationGracePeriodSeconds\":30,\"dnsPolicy\":"
        "\"ClusterFirst\",\"securityContext\":{},\"schedulerName\":\"default-scheduler\","
        "\"tolerations\":[{\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\",\"effect\":"
        "\"NoSchedule\"}],\"affinity\":{\"nodeAffinity\":{"
        "\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":100,\"preference\":{"
        "\"matchExpressions\":[{\"key\":\"doks.digitalocean.com/node-pool\",\"operator\":\"In\","
        "\"values\":[\"gpu-spot\"]}]}}]}}}}},"
        "\"status\":{\"conditions\":[{\"type\":\"%s\",\"status\":\"True\",\"lastProbeTime\":"
        "\"%s\",\"lastTransitionTime\":\"%s\",\"reason\":\"%s\"}],\"startTime\":\"%s\","
        "\"completionTime\":\"%s\",\"%s\":1,\"terminating\":0,\"ready\":0,"
        "\"uncountedTerminatedPods\":{}}}",
        j->job_name, j->job_uid, rv, c, j->job_uid, j->job_name, j->job_uid, j->job_name,
        configs[j->config], (int)(rnd() % 12), j->job_name, c, e, j->job_uid, j->job_uid,
        j->job_name, j->job_uid, j->job_name, ok ? "Complete" : "Failed", e, e,
        ok ? "CompletionsReached" : "BackoffLimitExceeded", s, e, ok ? "succeeded" : "failed");
}

static void put_pod(struct buf *b, const struct k8s_ids *j, int attempt, long rv, long node) {
    char uid[37], sfx[6], c[TIMEUTIL_RFC3339_MAX], sc[TIMEUTIL_RFC3339_MAX],
        st[TIMEUTIL_RFC3339_MAX], fin[TIMEUTIL_RFC3339_MAX];
    uuid(uid);
    suffix5(sfx);
    int64_t t = j->t0 + 1 + attempt * 4000;
    ts(t, c);
    ts(t + 2, sc);
    ts(t + 40, st);
    ts(t + rr(600, 3900), fin);
    bool ok = rnd() % 3 != 0;
    char ip[32];
    snprintf(ip, sizeof ip, "10.244.%u.%u", (unsigned)(rnd() % 250), (unsigned)(rnd() % 250));
    buf_printf(
        b,
        "{\"metadata\":{\"name\":\"%s-%s\",\"generateName\":\"%s-\",\"namespace\":\"batch\","
        "\"uid\":\"%s\",\"resourceVersion\":\"%ld\",\"creationTimestamp\":\"%s\","
        "\"labels\":{\"app\":\"train\",\"batch.kubernetes.io/controller-uid\":\"%s\","
        "\"batch.kubernetes.io/job-name\":\"%s\",\"controller-uid\":\"%s\",\"job-name\":\"%s\"},"
        "\"annotations\":{\"batch.kubernetes.io/job-tracking\":\"\"},"
        "\"ownerReferences\":[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":\"%s\","
        "\"uid\":\"%s\",\"controller\":true,\"blockOwnerDeletion\":true}],"
        "\"finalizers\":[\"batch.kubernetes.io/job-tracking\"],"
        "\"managedFields\":[{\"manager\":\"kube-controller-manager\",\"operation\":\"Update\","
        "\"apiVersion\":\"v1\",\"time\":\"%s\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{"
        "\"f:metadata\":{\"f:finalizers\":{\".\":{},\"v:\\\"batch.kubernetes.io/"
        "job-tracking\\\"\":{}},\"f:generateName\":{},\"f:labels\":{\".\":{},\"f:app\":{},"
        "\"f:batch.kubernetes.io/controller-uid\":{},\"f:batch.kubernetes.io/job-name\":{},"
        "\"f:controller-uid\":{},\"f:job-name\":{}},\"f:ownerReferences\":{\".\":{},"
        "\"k:{\\\"uid\\\":\\\"%s\\\"}\":{}}},\"f:spec\":{\"f:affinity\":{\".\":{},"
        "\"f:nodeAffinity\":{\".\":{},\"f:preferredDuringSchedulingIgnoredDuringExecution\":{}}},"
        "\"f:containers\":{\"k:{\\\"name\\\":\\\"main\\\"}\":{\".\":{},\"f:command\":{},"
        "\"f:env\":{\".\":{},\"k:{\\\"name\\\":\\\"CHECKPOINT_INTERVAL\\\"}\":{\".\":{},"
        "\"f:name\":{},\"f:value\":{}},\"k:{\\\"name\\\":\\\"NCCL_DEBUG\\\"}\":{\".\":{},"
        "\"f:name\":{},\"f:value\":{}}},\"f:image\":{},\"f:imagePullPolicy\":{},\"f:name\":{},"
        "\"f:resources\":{\".\":{},\"f:limits\":{\".\":{},\"f:nvidia.com/gpu\":{}},"
        "\"f:requests\":{\".\":{},\"f:cpu\":{},\"f:memory\":{},\"f:nvidia.com/gpu\":{}}},"
        "\"f:terminationMessagePath\":{},\"f:terminationMessagePolicy\":{}}},"
        "\"f:dnsPolicy\":{},\"f:enableServiceLinks\":{},\"f:restartPolicy\":{},"
        "\"f:schedulerName\":{},\"f:securityContext\":{},\"f:terminationGracePeriodSeconds\":{},"
        "\"f:tolerations\":{}}}},{\"manager\":\"kubelet\",\"operation\":\"Update\","
        "\"apiVersion\":\"v1\",\"time\":\"%s\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{"
        "\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"ContainersReady\\\"}\":{\".\":{},"
        "\"f:lastProbeTime\":{},\"f:lastTransitionTime\":{},\"f:reason\":{},\"f:status\":{},"
        "\"f:type\":{}},\"k:{\\\"type\\\":\\\"Initialized\\\"}\":{\".\":{},\"f:lastProbeTime\":{},"
        "\"f:lastTransitionTime\":{},\"f:status\":{},\"f:type\":{}},\"k:{\\\"type\\\":\\\"Ready\\\""
        "}\":{\".\":{},\"f:lastProbeTime\":{},\"f:lastTransitionTime\":{},\"f:reason\":{},"
        "\"f:status\":{},\"f:type\":{}}},\"f:containerStatuses\":{},\"f:hostIP\":{},"
        "\"f:phase\":{},\"f:podIP\":{},\"f:podIPs\":{\".\":{},\"k:{\\\"ip\\\":\\\"%s\\\"}\":{"
        "\".\":{},\"f:ip\":{}}},\"f:startTime\":{}}},\"subresource\":\"status\"}]},"
        "\"spec\":{\"volumes\":[{\"name\":\"kube-api-access-%s\",\"projected\":{\"sources\":[{"
        "\"serviceAccountToken\":{\"expirationSeconds\":3607,\"path\":\"token\"}},{\"configMap\":{"
        "\"name\":\"kube-root-ca.crt\",\"items\":[{\"key\":\"ca.crt\",\"path\":\"ca.crt\"}]}},{"
        "\"downwardAPI\":{\"items\":[{\"path\":\"namespace\",\"fieldRef\":{\"apiVersion\":\"v1\","
        "\"fieldPath\":\"metadata.namespace\"}}]}}],\"defaultMode\":420}}],"
        "\"containers\":[{\"name\":\"main\",\"image\":\"registry.digitalocean.com/acme/"
        "train:2026.11.3\",\"command\":[\"python\",\"-m\",\"train\",\"--checkpoint-dir\","
        "\"/ckpt\"],\"env\":[{\"name\":\"CHECKPOINT_INTERVAL\",\"value\":\"900\"},{\"name\":"
        "\"NCCL_DEBUG\",\"value\":\"WARN\"}],\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"},"
        "\"requests\":{\"cpu\":\"8\",\"memory\":\"64Gi\",\"nvidia.com/gpu\":\"1\"}},"
        "\"volumeMounts\":[{\"name\":\"kube-api-access-%s\",\"readOnly\":true,\"mountPath\":"
        "\"/var/run/secrets/kubernetes.io/serviceaccount\"}],\"terminationMessagePath\":"
        "\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\",\"imagePullPolicy\":"
        "\"IfNotPresent\"}],\"restartPolicy\":\"Never\",\"terminationGracePeriodSeconds\":30,"
        "\"dnsPolicy\":\"ClusterFirst\",\"serviceAccountName\":\"default\",\"serviceAccount\":"
        "\"default\",\"nodeName\":\"gpu-pool-%05ld\",\"securityContext\":{},\"schedulerName\":"
        "\"default-scheduler\",\"tolerations\":[{\"key\":\"nvidia.com/gpu\",\"operator\":"
        "\"Exists\",\"effect\":\"NoSchedule\"},{\"key\":\"node.kubernetes.io/not-ready\","
        "\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300},{\"key\":"
        "\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
        "\"tolerationSeconds\":300}],\"priority\":0,\"enableServiceLinks\":true,"
        "\"preemptionPolicy\":\"PreemptLowerPriority\"},"
        "\"status\":{\"phase\":\"%s\",\"conditions\":[{\"type\":\"PodReadyToStartContainers\","
        "\"status\":\"False\",\"lastProbeTime\":null,\"lastTransitionTime\":\"%s\"},{\"type\":"
        "\"Initialized\",\"status\":\"True\",\"lastProbeTime\":null,\"lastTransitionTime\":\"%s\"},"
        "{\"type\":\"Ready\",\"status\":\"False\",\"lastProbeTime\":null,\"lastTransitionTime\":"
        "\"%s\",\"reason\":\"PodCompleted\"},{\"type\":\"ContainersReady\",\"status\":\"False\","
        "\"lastProbeTime\":null,\"lastTransitionTime\":\"%s\",\"reason\":\"PodCompleted\"},{"
        "\"type\":\"PodScheduled\",\"status\":\"True\",\"lastProbeTime\":null,"
        "\"lastTransitionTime\":\"%s\"}%s],\"hostIP\":\"10.110.0.%u\",\"hostIPs\":[{\"ip\":"
        "\"10.110.0.%u\"}],\"podIP\":\"%s\",\"podIPs\":[{\"ip\":\"%s\"}],\"startTime\":\"%s\","
        "\"containerStatuses\":[{\"name\":\"main\",\"state\":{\"terminated\":{\"exitCode\":%d,"
        "\"reason\":\"%s\",\"message\":\"%s\",\"startedAt\":\"%s\",\"finishedAt\":\"%s\","
        "\"containerID\":\"containerd://%016llx%016llx\"}},\"lastState\":{},\"ready\":false,"
        "\"restartCount\":0,\"image\":\"registry.digitalocean.com/acme/train:2026.11.3\","
        "\"imageID\":\"registry.digitalocean.com/acme/train@sha256:%016llx%016llx\","
        "\"containerID\":\"containerd://%016llx\",\"started\":false}],\"qosClass\":"
        "\"Burstable\"}}",
        j->job_name, sfx, j->job_name, uid, rv, c, j->job_uid, j->job_name, j->job_uid, j->job_name,
        j->job_name, j->job_uid, c, j->job_uid, fin, ip, sfx, sfx, node,
        ok ? "Succeeded" : "Failed", fin, sc, fin, fin, sc,
        ok ? ""
           : ",{\"type\":\"DisruptionTarget\",\"status\":\"True\",\"lastProbeTime\":null,"
             "\"lastTransitionTime\":\"2026-11-12T13:00:05Z\",\"reason\":"
             "\"EvictionByEvictionAPI\",\"message\":\"Eviction API: evicting\"}",
        (unsigned)(node % 250), (unsigned)(node % 250), ip, ip, sc, ok ? 0 : 143,
        ok ? "Completed" : "Error",
        ok ? "{\\\"work_seconds\\\":3560,\\\"restore_seconds\\\":120,\\\"checkpoint_seconds\\\":30}"
           : "",
        st, fin, (unsigned long long)rnd(), (unsigned long long)rnd(), (unsigned long long)rnd(),
        (unsigned long long)rnd(), (unsigned long long)rnd());
}

static int write_file(const char *path, const struct buf *b) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f) != 0) {
        fprintf(stderr, "bench_gen: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

static void list_head(struct buf *b, const char *kind, const char *api) {
    buf_reset(b);
    buf_printf(b,
               "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":"
               "\"%d\"%%CONT%%},\"items\":[",
               kind, api, 987654321);
}

/* Replaces the %CONT% placeholder (same length budget is not needed: rebuild). */
static int finish_page(struct buf *b, const char *dir, const char *what, long page, bool last) {
    buf_puts(b, "]}");
    const char *ph = strstr(b->data, "%CONT%");
    struct buf out;
    buf_init(&out, 0);
    buf_append(&out, b->data, (size_t)(ph - b->data));
    if (!last)
        buf_printf(&out,
                   ",\"continue\":\"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTg3NjU0MzIxLCJzdGFy"
                   "dCI6IiVsZCJ9-%s-%ld\"",
                   what, page + 1);
    buf_puts(&out, ph + 6);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s-%04ld.json", dir, what, page);
    int rc = write_file(path, &out);
    buf_release(&out);
    return rc;
}

int bench_gen_k8s(const char *dir, long jobs, long pods, long limit, uint64_t seed) {
    rs = seed;
    struct k8s_ids *ids = calloc((size_t)jobs, sizeof *ids);
    if (!ids)
        return -1;
    for (long i = 0; i < jobs; i++) {
        uuid(ids[i].job_uid);
        snprintf(ids[i].job_name, sizeof ids[i].job_name, "train-%s-%06ld", configs[i % 3], i);
        ids[i].t0 = BENCH_T0 + i * 1500;
        ids[i].config = (int)(i % 3);
    }
    struct buf b;
    buf_init(&b, 0);
    int rc = 0;
    long page = 0, rv = 1000;
    for (long i = 0; rc == 0 && i < jobs; i++) {
        if (i % limit == 0)
            list_head(&b, "JobList", "batch/v1");
        else
            buf_putc(&b, ',');
        put_job(&b, &ids[i], rv++);
        if ((i + 1) % limit == 0 || i + 1 == jobs)
            rc = finish_page(&b, dir, "jobs", page++, i + 1 == jobs);
    }
    page = 0;
    long per = jobs ? (pods + jobs - 1) / jobs : 1;
    for (long i = 0; rc == 0 && i < pods; i++) {
        if (i % limit == 0)
            list_head(&b, "PodList", "v1");
        else
            buf_putc(&b, ',');
        long j = i / per;
        put_pod(&b, &ids[j < jobs ? j : jobs - 1], (int)(i % per), rv++, (i * 7919) % 20000);
        if ((i + 1) % limit == 0 || i + 1 == pods)
            rc = finish_page(&b, dir, "pods", page++, i + 1 == pods);
    }
    buf_release(&b);
    free(ids);
    return rc;
}

/* ---- the database --------------------------------------------------------- */

static int exec_sql(sqlite3 *db, const char *sql) {
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "bench_gen: %s: %s\n", sql, msg ? msg : "?");
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static sqlite3_stmt *prep(sqlite3 *db, const char *sql) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fprintf(stderr, "bench_gen: prepare: %s\n", sqlite3_errmsg(db));
    return st;
}

static int step(sqlite3 *db, sqlite3_stmt *st) {
    int r = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (r != SQLITE_DONE) {
        fprintf(stderr, "bench_gen: insert: %s\n", sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

static void bind_t(sqlite3_stmt *st, int i, int64_t v) {
    if (v)
        sqlite3_bind_int64(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

/* Pools: spot (0), fallback (1), on-demand (2). Node i belongs to pool i % 3. */
static const char *const pool_ids[] = {"a1b2c3d4-0000-4000-8000-000000000001",
                                       "a1b2c3d4-0000-4000-8000-000000000002",
                                       "a1b2c3d4-0000-4000-8000-000000000003"};
static const char *const pool_names[] = {"gpu-spot", "gpu-fallback", "gpu-ondemand"};
static const char *const pool_sizes[] = {"gpu-h100x8-640gb-spot", "gpu-h100x8-640gb",
                                         "gpu-h100x8-640gb"};
static const int64_t pool_price[] = {10828800, 27072000, 27072000}; /* micro-$ per hour */
#define NODE_LIFE (2 * 86400)

static void node_name(char *out, size_t len, int ci, const char *cluster, long i) {
    if (ci < 0)
        snprintf(out, len, "gpu-pool-%05ld", i);
    else
        snprintf(out, len, "%s-gpu-pool-%05ld", cluster, i);
}

struct gen_stmts {
    sqlite3_stmt *po, *no, *ta, *at, *pl;
};

/* One cluster's pools, nodes, tasks, attempts and poll runs. ci < 0: the
 * single-cluster database ('default', the original ids and node names); else
 * cluster "cNN" with its own pool ids and node names (docs/fleet.md: pool ids
 * are UUIDs, node names carry a random suffix, so clusters share neither). */
static int gen_cluster(sqlite3 *db, const struct gen_stmts *g, int ci, long ntasks, long nnodes,
                       long week_tasks) {
    sqlite3_stmt *po = g->po, *no = g->no, *ta = g->ta, *at = g->at, *pl = g->pl;
    int64_t span = BENCH_WEEKS * BENCH_WEEK;
    int64_t now = BENCH_T0 + span + 86400;
    char cluster[16], pids[3][64];
    if (ci < 0)
        snprintf(cluster, sizeof cluster, "default");
    else
        snprintf(cluster, sizeof cluster, "c%02d", ci);
    for (int i = 0; i < 3; i++) {
        if (ci < 0)
            snprintf(pids[i], sizeof pids[i], "%s", pool_ids[i]);
        else
            snprintf(pids[i], sizeof pids[i], "a1b2c3d4-%04d-4000-8000-00000000000%d", ci % 10000,
                     i + 1);
    }
    int rc = 0;
    for (int i = 0; rc == 0 && i < 3; i++) {
        sqlite3_bind_text(po, 1, pids[i], -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(po, 2, pool_names[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(po, 3, pool_sizes[i], -1, SQLITE_STATIC);
        sqlite3_bind_text(po, 4, i == 0 ? "spot" : "on-demand", -1, SQLITE_STATIC);
        sqlite3_bind_int64(po, 5, pool_price[i]);
        sqlite3_bind_int64(po, 6, BENCH_T0 - NODE_LIFE);
        sqlite3_bind_int64(po, 7, now);
        sqlite3_bind_text(po, 8, cluster, -1, SQLITE_TRANSIENT);
        rc = step(db, po);
    }
    /* nodes: evenly started over [T0 - life, T0 + span), each living NODE_LIFE */
    int64_t nspan = span + NODE_LIFE;
    for (long i = 0; rc == 0 && i < nnodes; i++) {
        char name[48], u1[37], u2[37], drop[24];
        node_name(name, sizeof name, ci, cluster, i);
        uuid(u1);
        uuid(u2);
        snprintf(drop, sizeof drop, "%ld", 500000000L + (ci < 0 ? 0 : (long)ci * 1000000L) + i);
        int p = (int)(i % 3);
        int64_t created = BENCH_T0 - NODE_LIFE + i * nspan / nnodes;
        int64_t del = created + NODE_LIFE + 240 + rr(0, 3600);
        sqlite3_bind_text(no, 1, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(no, 2, u1, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(no, 3, u2, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(no, 4, pids[p], -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(no, 5, drop, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(no, 6, pool_sizes[p], -1, SQLITE_STATIC);
        sqlite3_bind_text(no, 7, p == 0 ? "spot" : "on-demand", -1, SQLITE_STATIC);
        sqlite3_bind_int64(no, 8, pool_price[p]);
        sqlite3_bind_int64(no, 9, created);
        sqlite3_bind_int64(no, 10, created + 240);
        bind_t(no, 11, del < now ? del : 0);
        bind_t(no, 12, del < now ? del : 0);
        sqlite3_bind_int64(no, 13, del < now ? del : now);
        sqlite3_bind_text(no, 14, cluster, -1, SQLITE_TRANSIENT);
        rc = step(db, no);
    }
    /* tasks: a tenth in the hot week, week_tasks (when > 0) in the normal week, the
     * rest evenly over the other weeks */
    long hot = ntasks / 10;
    if (week_tasks < 0 || week_tasks > ntasks - hot)
        week_tasks = 0;
    long fixed = hot + week_tasks;
    int64_t rest = span - (week_tasks ? 2 : 1) * BENCH_WEEK - 20000;
    for (long i = 0; rc == 0 && i < ntasks; i++) {
        int64_t t0;
        if (i < hot) {
            t0 = BENCH_T0 + BENCH_HOT_WEEK * BENCH_WEEK + (int64_t)i * (BENCH_WEEK - 20000) / hot;
        } else if (i < fixed) {
            t0 = BENCH_T0 + BENCH_NORMAL_WEEK * BENCH_WEEK +
                 (int64_t)(i - hot) * (BENCH_WEEK - 20000) / week_tasks;
        } else {
            int64_t k = ntasks > fixed ? (int64_t)(i - fixed) * rest / (ntasks - fixed) : 0;
            if (week_tasks && k >= BENCH_NORMAL_WEEK * BENCH_WEEK)
                k += BENCH_WEEK;
            t0 = BENCH_T0 + k + (k >= BENCH_HOT_WEEK * BENCH_WEEK ? BENCH_WEEK : 0);
        }
        char tuid[37], name[64];
        uuid(tuid);
        int cfg = (int)(rnd() % 3);
        snprintf(name, sizeof name, "train-%s-%07ld", configs[cfg], i);
        int natt = (int)rr(1, 5);
        bool success = rnd() % 10 != 0;
        int64_t t = t0 + 1;
        for (int a = 0; rc == 0 && a < natt; a++) {
            bool last = a == natt - 1;
            bool ok = last && success;
            int64_t dur = rr(600, 7200);
            /* a node of a pool this configuration may use, alive over [t, t + dur) */
            int pool = cfg == 0 ? 0 : cfg == 2 ? 2 : (a == 0 ? 0 : 1);
            long idx = (long)((t - (BENCH_T0 - NODE_LIFE)) * nnodes / nspan);
            idx -= (long)rr(3, (int64_t)(nnodes * (NODE_LIFE / 2) / nspan) + 3);
            if (idx < 0)
                idx = 0;
            idx -= idx % 3;
            idx += pool;
            if (idx >= nnodes)
                idx = nnodes - 1;
            char auid[37], pname[80], node[48];
            uuid(auid);
            snprintf(pname, sizeof pname, "%s-%05d", name, (int)(rnd() % 100000));
            node_name(node, sizeof node, ci, cluster, idx);
            int64_t fin = t + 2 + 30 + dur;
            sqlite3_bind_text(at, 1, auid, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(at, 2, tuid, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(at, 3, pname, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(at, 4, node, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(at, 5, pids[idx % 3], -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(at, 6, t);
            sqlite3_bind_int64(at, 7, t + 2);
            sqlite3_bind_int64(at, 8, t + 32);
            sqlite3_bind_int64(at, 9, fin);
            sqlite3_bind_int64(at, 10, fin + 5);
            sqlite3_bind_text(at, 11, ok ? "Succeeded" : "Failed", -1, SQLITE_STATIC);
            bool disrupted = !ok && rnd() % 2;
            bind_t(at, 13, ok ? 0 : disrupted ? 143 : 1);
            if (disrupted) {
                sqlite3_bind_text(at, 12, "DisruptionTarget", -1, SQLITE_STATIC);
                sqlite3_bind_int64(at, 14, fin - 10);
                sqlite3_bind_text(at, 15, "EvictionByEvictionAPI", -1, SQLITE_STATIC);
            }
            sqlite3_bind_text(at, 16, ok ? "ok" : "none", -1, SQLITE_STATIC);
            if (ok) {
                sqlite3_bind_int64(at, 17, dur);
                sqlite3_bind_int64(at, 18, a ? 120 : 0);
                sqlite3_bind_int64(at, 19, 30);
            }
            sqlite3_bind_text(at, 20, cluster, -1, SQLITE_TRANSIENT);
            rc = step(db, at);
            t = fin + 10 + (a ? 20 : 10);
        }
        char exp[16];
        snprintf(exp, sizeof exp, "exp-%02d", (int)(i % 12));
        sqlite3_bind_text(ta, 1, tuid, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ta, 2, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ta, 3, configs[cfg], -1, SQLITE_STATIC);
        sqlite3_bind_text(ta, 4, exp, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(ta, 5, t0);
        sqlite3_bind_int64(ta, 6, t);
        sqlite3_bind_text(ta, 7, success ? "succeeded" : "failed", -1, SQLITE_STATIC);
        sqlite3_bind_text(ta, 8, success ? "CompletionsReached" : "BackoffLimitExceeded", -1,
                          SQLITE_STATIC);
        sqlite3_bind_text(ta, 9, cluster, -1, SQLITE_TRANSIENT);
        rc = rc ? rc : step(db, ta);
    }
    static const char *const sources[] = {"do", "k8s", "do_billing"};
    for (int i = 0; rc == 0 && i < 3; i++) {
        if (ci > 0 && i == 2)
            break; /* the account's billing poll: once */
        sqlite3_bind_text(pl, 1, sources[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(pl, 2, now);
        if (i < 2)
            sqlite3_bind_text(pl, 3, cluster, -1, SQLITE_TRANSIENT);
        rc = step(db, pl);
    }
    return rc;
}

/* Creates the database and writes `nclusters` clusters (0: the single-cluster
 * database) of ntasks tasks and nnodes nodes each. */
static int gen_db(const char *path, int nclusters, long ntasks, long nnodes, long week_tasks,
                  uint64_t seed) {
    rs = seed;
    struct store *s = NULL;
    if (store_open(path, STORE_WRITER, &s, NULL) != ERR_OK) {
        fprintf(stderr, "bench_gen: cannot create %s\n", path);
        return -1;
    }
    sqlite3 *db = store_db(s);
    int rc = exec_sql(db, "PRAGMA cache_size=-262144") || exec_sql(db, "BEGIN IMMEDIATE");
    sqlite3_stmt *sz = prep(db, "INSERT INTO sizes VALUES(?1, 96, 1966080, 8, 'H100', 80, ?2, ?2)");
    sqlite3_stmt *pr = prep(db, "INSERT INTO size_prices VALUES(?1, ?2, ?3, ?4)");
    struct gen_stmts g;
    g.po = prep(
        db, "INSERT INTO node_pools(id, cluster_id, name, size, capacity_type, capacity_basis, "
            "price_hourly_micro, auto_scale, min_nodes, max_nodes, node_count, labels_json, "
            "taints_json, first_seen, last_seen, cluster) VALUES(?1, 'bench-cluster', ?2, ?3, ?4, "
            "'slug', ?5, 1, 0, 200, 100, '{}', '[]', ?6, ?7, ?8)");
    g.no = prep(
        db, "INSERT INTO nodes(name, do_id, k8s_uid, pool_id, droplet_id, size, capacity_type, "
            "price_hourly_micro, created_at, ready_at, do_deleted_at, k8s_deleted_at, "
            "ready_status, ready_since, gpu_allocatable, cpu_allocatable_milli, labels_json, "
            "do_state, first_seen, last_seen, cluster) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
            "?10, ?11, ?12, 'True', ?10, 8, 96000, '{}', 'running', ?9, ?13, ?14)");
    g.ta = prep(
        db, "INSERT INTO tasks(uid, job_uid, namespace, name, configuration, experiment, "
            "created_at, started_at, completed_at, outcome, outcome_reason, backoff_limit, "
            "ttl_after_finished, has_pod_failure_policy, pfp_ignores_disruption, spec_json, "
            "first_seen, last_seen, cluster) VALUES(?1, ?1, 'batch', ?2, ?3, ?4, ?5, ?5, ?6, ?7, "
            "?8, 6, 3600, 1, 1, '{\"gpus\":1}', ?5, ?6, ?9)");
    g.at = prep(
        db, "INSERT INTO attempts(uid, task_uid, job_uid, namespace, name, node_name, pool_id, "
            "gpu_request, cpu_request_milli, created_at, scheduled_at, started_at, finished_at, "
            "deleted_at, phase, reason, exit_code, disruption_at, disruption_reason, "
            "report_status, report_work_seconds, report_restore_seconds, "
            "report_checkpoint_seconds, first_seen, last_seen, cluster) VALUES(?1, ?2, ?2, "
            "'batch', ?3, ?4, ?5, 1, 8000, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
            "?17, ?18, ?19, ?6, ?9, ?20)");
    g.pl = prep(db, "INSERT INTO poll_runs(source, started_at, finished_at, source_time, status, "
                    "requests, items, cluster) VALUES(?1, ?2, ?2, ?2, 'ok', 1, 1, ?3)");
    if (rc || !sz || !pr || !g.po || !g.no || !g.ta || !g.at || !g.pl)
        rc = -1;
    /* sizes and prices: the account's */
    for (int i = 0; rc == 0 && i < 2; i++) {
        sqlite3_bind_text(sz, 1, pool_sizes[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(sz, 2, BENCH_T0);
        rc = step(db, sz);
        sqlite3_bind_text(pr, 1, pool_sizes[i], -1, SQLITE_STATIC);
        sqlite3_bind_int64(pr, 2, BENCH_T0);
        sqlite3_bind_int64(pr, 3, pool_price[i]);
        sqlite3_bind_int64(pr, 4, pool_price[i] * 672);
        rc = rc ? rc : step(db, pr);
    }
    if (nclusters <= 0)
        rc = rc ? rc : gen_cluster(db, &g, -1, ntasks, nnodes, week_tasks);
    for (int c = 0; rc == 0 && c < nclusters; c++)
        rc = gen_cluster(db, &g, c, ntasks, nnodes, week_tasks);
    sqlite3_finalize(sz);
    sqlite3_finalize(pr);
    sqlite3_finalize(g.po);
    sqlite3_finalize(g.no);
    sqlite3_finalize(g.ta);
    sqlite3_finalize(g.at);
    sqlite3_finalize(g.pl);
    if (rc == 0)
        rc = exec_sql(db, "COMMIT") || exec_sql(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    else
        exec_sql(db, "ROLLBACK");
    store_free(s);
    return rc ? -1 : 0;
}

int bench_gen_db(const char *path, long ntasks, long nnodes, long week_tasks, uint64_t seed) {
    return gen_db(path, 0, ntasks, nnodes, week_tasks, seed);
}

int bench_gen_fleet_db(const char *path, int clusters, long tasks_per, long nodes_per,
                       long week_tasks_per, uint64_t seed) {
    return gen_db(path, clusters > 0 ? clusters : 1, tasks_per, nodes_per, week_tasks_per, seed);
}
