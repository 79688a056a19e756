/* test_k8s_api — Kubernetes JSON parsing: own fixtures, every shared fixture
 * object when present, and the lenient/strict edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "source/k8s_api.h"
#include "k8s_fixtures.h"
#include "base/timeutil.h"

static int64_t ts(const char *s) {
    int64_t t = 0;
    assert_int_equal(timeutil_parse_rfc3339(s, strlen(s), &t), ERR_OK);
    return t;
}

static void parse_list_file(const char *dir, const char *name, enum k8s_kind kind,
                            struct k8s_list *l) {
    size_t len = 0;
    char *body = fx_read_in(dir, name, &len);
    assert_non_null(body);
    assert_int_equal(k8s_list_parse(body, len, kind, l), ERR_OK);
    free(body);
}

/* --- small parsers --------------------------------------------------------- */

static void test_quantity(void **state) {
    (void)state;
    struct {
        const char *s;
        int64_t milli;
    } ok[] = {{"2", 2000},
              {"3900m", 3900},
              {"0.5", 500},
              {"1.5", 1500},
              {"100m", 100},
              {"2k", 2000000},
              {"1Ki", 1024000},
              {"1e3", 1000000},
              {"0.0001", 1},
              {"1", 1000},
              {"250u", 1},
              {"+3", 3000},
              {"1Gi", 1073741824000LL}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t m = -1;
        assert_int_equal(k8s_quantity_milli(ok[i].s, &m), ERR_OK);
        assert_int_equal(m, ok[i].milli);
    }
    const char *bad[] = {"", "m", "abc", "1x", "1.2.3", "--1", "1e", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t m = 77;
        assert_int_equal(k8s_quantity_milli(bad[i], &m), ERR_PARSE);
        assert_int_equal(m, 77);
    }
}

static void test_index_set(void **state) {
    (void)state;
    assert_true(k8s_index_set_contains("0-2,5,7-9", 0));
    assert_true(k8s_index_set_contains("0-2,5,7-9", 2));
    assert_false(k8s_index_set_contains("0-2,5,7-9", 3));
    assert_true(k8s_index_set_contains("0-2,5,7-9", 5));
    assert_true(k8s_index_set_contains("0-2,5,7-9", 8));
    assert_false(k8s_index_set_contains("0-2,5,7-9", 10));
    assert_false(k8s_index_set_contains(NULL, 0));
    assert_false(k8s_index_set_contains("", 0));
    assert_false(k8s_index_set_contains("x", 0));
}

static void test_task_report(void **state) {
    (void)state;
    struct k8s_task_report r;
    const char *m = "{\"work_seconds\":3560,\"restore_seconds\":120,\"checkpoint_seconds\":30}";
    assert_int_equal(k8s_task_report_parse(m, strlen(m), &r), K8S_REPORT_OK);
    assert_int_equal(r.work_seconds, 3560);
    assert_int_equal(r.restore_seconds, 120);
    assert_int_equal(r.checkpoint_seconds, 30);
    m = "done\n{\"work_seconds\": \"42\", \"restore_seconds\": 1.9, \"x\": [1]} bye";
    assert_int_equal(k8s_task_report_parse(m, strlen(m), &r), K8S_REPORT_OK);
    assert_int_equal(r.work_seconds, 42);
    assert_int_equal(r.restore_seconds, 1);
    assert_int_equal(r.checkpoint_seconds, -1);
    m = "{\"work_seconds\": -5, \"restore_seconds\": \"soon\"}";
    assert_int_equal(k8s_task_report_parse(m, strlen(m), &r), K8S_REPORT_BAD);
    m = "{\"work_seconds\": 5,";
    assert_int_equal(k8s_task_report_parse(m, strlen(m), &r), K8S_REPORT_BAD);
    m = "[1,2]";
    assert_int_equal(k8s_task_report_parse(m, strlen(m), &r), K8S_REPORT_BAD);
    m = "OOMKilled";
    assert_int_equal(k8s_task_report_parse(m, strlen(m), &r), K8S_REPORT_BAD);
    m = "  \n ";
    assert_int_equal(k8s_task_report_parse(m, strlen(m), &r), K8S_REPORT_NONE);
    assert_int_equal(k8s_task_report_parse(NULL, 0, &r), K8S_REPORT_NONE);
    m = "{\"work_seconds\":1}{\"work_seconds\":2}";
    assert_int_equal(k8s_task_report_parse(m, strlen(m), &r), K8S_REPORT_BAD);
}

static void test_malformed(void **state) {
    (void)state;
    struct k8s_list l;
    memset(&l, 0, sizeof l);
    const char *t = "{\"items\":[{\"metadata\":{\"uid\":\"a\"";
    assert_int_equal(k8s_list_parse(t, strlen(t), K8S_POD, &l), ERR_PARSE);
    t = "{\"items\":[]} trailing";
    assert_int_equal(k8s_list_parse(t, strlen(t), K8S_POD, &l), ERR_PARSE);
    t = "{\"kind\":\"Status\",\"code\":500}";
    assert_int_equal(k8s_list_parse(t, strlen(t), K8S_POD, &l), ERR_PARSE);
    t = "[]";
    assert_int_equal(k8s_list_parse(t, strlen(t), K8S_POD, &l), ERR_PARSE);
    t = "{\"metadata\":{\"resourceVersion\":\"5\"},\"items\":null}\n";
    assert_int_equal(k8s_list_parse(t, strlen(t), K8S_POD, &l), ERR_OK);
    assert_int_equal(l.n, 0);
    assert_string_equal(l.resource_version, "5");
    k8s_list_release(&l);
    struct k8s_watch_event ev;
    t = "{\"type\":\"WHAT\",\"object\":{}}";
    assert_int_equal(k8s_watch_parse(t, strlen(t), K8S_POD, &ev), ERR_PARSE);
    t = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{}}}";
    assert_int_equal(k8s_watch_parse(t, strlen(t), K8S_POD, &ev), ERR_PARSE);
    t = "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{}}}";
    assert_int_equal(k8s_watch_parse(t, strlen(t), K8S_POD, &ev), ERR_PARSE);
    t = "{\"type\":\"ADDED\"";
    assert_int_equal(k8s_watch_parse(t, strlen(t), K8S_POD, &ev), ERR_PARSE);
    /* wrong types never coerce: a string backoffLimit is "absent", not 0 */
    t = "{\"metadata\":{\"uid\":\"u\"},\"spec\":{\"backoffLimit\":\"6\",\"completions\":null}}";
    struct k8s_object o;
    assert_int_equal(k8s_object_parse(t, strlen(t), K8S_JOB, &o), ERR_OK);
    assert_int_equal(o.u.job.backoff_limit, -1);
    assert_int_equal(o.u.job.completions, -1);
    assert_string_equal(o.u.job.spec_json, "{}");
    k8s_object_release(&o);
}

/* --- own fixtures ----------------------------------------------------------- */

static void test_own_jobs(void **state) {
    (void)state;
    struct k8s_list l;
    parse_list_file(OWN_K8S, "JobList.json", K8S_JOB, &l);
    assert_string_equal(l.resource_version, "210");
    assert_null(l.continue_token);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.skipped, 1);
    const struct k8s_job *j = &l.items[0].u.job;
    assert_string_equal(j->meta.uid, "j-0001");
    assert_string_equal(j->meta.ns, "ml");
    assert_string_equal(j->configuration, "fallback");
    assert_string_equal(j->experiment, "exp-1");
    assert_int_equal(j->outcome, K8S_SUCCEEDED);
    assert_string_equal(j->outcome_reason, "CompletionsReached");
    assert_int_equal(j->completed_at, ts("2026-03-02T10:50:00Z"));
    assert_int_equal(j->started_at, ts("2026-03-02T10:05:00Z"));
    assert_int_equal(j->backoff_limit, 3);
    assert_int_equal(j->ttl_after_finished, 600);
    assert_int_equal(j->active_deadline, 7200);
    assert_false(j->indexed);
    assert_false(j->has_pod_failure_policy);
    assert_non_null(strstr(j->spec_json, "\"nodeSelector\":{\"gpu\":\"h100\"}"));
    assert_non_null(strstr(j->spec_json, "\"preferredNodeAffinity\":[{\"weight\":50"));
    assert_non_null(strstr(j->spec_json, "\"tolerations\":[{\"key\":\"nvidia.com/gpu\""));
    assert_non_null(strstr(j->spec_json, "\"ignoreAdvice\":\"checkpoint\""));
    assert_null(strstr(j->spec_json, "requiredNodeAffinity"));
    j = &l.items[1].u.job;
    assert_true(j->indexed);
    assert_int_equal(j->completions, 2);
    assert_int_equal(j->outcome, K8S_RUNNING);
    assert_string_equal(j->completed_indexes, "0");
    assert_null(j->failed_indexes);
    assert_true(j->has_pod_failure_policy);
    assert_true(j->pfp_ignores_disruption);
    k8s_list_release(&l);
}

static void test_own_pods(void **state) {
    (void)state;
    struct k8s_list l;
    parse_list_file(OWN_K8S, "PodList.json", K8S_POD, &l);
    assert_int_equal(l.n, 4);
    const struct k8s_pod *p = &l.items[0].u.pod;
    assert_string_equal(p->meta.uid, "p-0001");
    assert_string_equal(p->job_uid, "j-0001");
    assert_string_equal(p->job_name, "train-1");
    assert_int_equal(p->completion_index, -1);
    assert_string_equal(p->node_name, "gpu-spot-a");
    assert_int_equal(p->gpu_request, 1);
    assert_int_equal(p->cpu_request_milli, 2000); /* init container 2 > 1.5 */
    assert_int_equal(p->scheduled_at, ts("2026-03-02T10:05:10Z"));
    assert_int_equal(p->started_at, ts("2026-03-02T10:05:30Z"));
    assert_int_equal(p->finished_at, ts("2026-03-02T10:20:00Z"));
    assert_string_equal(p->phase, "Failed");
    assert_string_equal(p->reason, "Terminated");
    assert_true(p->has_exit_code);
    assert_int_equal(p->exit_code, 143);
    assert_int_equal(p->disruption_at, ts("2026-03-02T10:19:30Z"));
    assert_string_equal(p->disruption_reason, "TerminationByKubelet");
    assert_int_equal(p->meta.deletion_at, ts("2026-03-02T10:20:30Z"));
    assert_int_equal(p->meta.deletion_grace, 30);
    assert_int_equal(p->report_status, K8S_REPORT_BAD);
    p = &l.items[1].u.pod;
    assert_int_equal(p->report_status, K8S_REPORT_OK);
    assert_int_equal(p->report.work_seconds, 1500);
    assert_int_equal(p->report.restore_seconds, 90);
    assert_int_equal(p->report.checkpoint_seconds, 12);
    assert_int_equal(p->exit_code, 0);
    p = &l.items[2].u.pod;
    assert_int_equal(p->completion_index, 0);
    assert_int_equal(p->report_status, K8S_REPORT_BAD);
    p = &l.items[3].u.pod;
    assert_int_equal(p->completion_index, 1);
    assert_string_equal(p->phase, "Running");
    assert_int_equal(p->finished_at, 0);
    assert_false(p->has_exit_code);
    assert_int_equal(p->report_status, K8S_REPORT_NONE);
    k8s_list_release(&l);
}

static void test_own_nodes_events(void **state) {
    (void)state;
    struct k8s_list l;
    parse_list_file(OWN_K8S, "NodeList.json", K8S_NODE, &l);
    assert_int_equal(l.n, 2);
    const struct k8s_node *n = &l.items[0].u.node;
    assert_string_equal(n->meta.name, "gpu-spot-a");
    assert_string_equal(n->pool_id, "spot-id-1");
    assert_string_equal(n->droplet_id, "9001");
    assert_int_equal(n->gpu_allocatable, 1);
    assert_int_equal(n->cpu_allocatable_milli, 7800);
    assert_string_equal(n->ready_status, "True");
    assert_int_equal(n->ready_since, ts("2026-03-02T10:02:00Z"));
    assert_false(n->unschedulable);
    assert_non_null(strstr(n->labels_json, "\"doks.digitalocean.com/node-pool-id\":\"spot-id-1\""));
    n = &l.items[1].u.node;
    assert_true(n->unschedulable);
    assert_int_equal(n->cordoned_at, ts("2026-03-02T10:40:00Z"));
    k8s_list_release(&l);

    parse_list_file(OWN_K8S, "EventList.json", K8S_EVENT, &l);
    assert_int_equal(l.n, 5);
    const struct k8s_event *e = &l.items[0].u.event;
    assert_string_equal(e->object_kind, "Node");
    assert_string_equal(e->reason, "NodeNotReady");
    assert_int_equal(e->first_at, ts("2026-03-02T10:19:00Z"));
    assert_true(k8s_event_is_relevant(e));
    assert_true(k8s_event_is_relevant(&l.items[1].u.event));
    assert_false(k8s_event_is_relevant(&l.items[2].u.event)); /* Job SuccessfulCreate */
    e = &l.items[4].u.event; /* events.k8s.io/v1 shape with a series */
    assert_string_equal(e->object_kind, "Pod");
    assert_string_equal(e->object_uid, "p-0004");
    assert_string_equal(e->reason, "TriggeredScaleUp");
    assert_string_equal(e->source, "cluster-autoscaler");
    assert_string_equal(e->message, "pod triggered scale-up");
    assert_int_equal(e->first_at, ts("2026-03-02T10:30:00Z"));
    assert_int_equal(e->last_at, ts("2026-03-02T10:32:00Z"));
    assert_int_equal(e->count, 3);
    assert_true(k8s_event_is_relevant(e));
    k8s_list_release(&l);
}

static void test_own_watch(void **state) {
    (void)state;
    size_t len = 0;
    char *body = fx_read(OWN_K8S "/pods-watch.ndjson", &len);
    assert_non_null(body);
    enum k8s_watch_type want[] = {K8S_MODIFIED, K8S_BOOKMARK, K8S_DELETED, K8S_ERROR};
    const char *rv[] = {"231", "232", "233", ""};
    size_t i = 0;
    for (char *line = body, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1, i++) {
        struct k8s_watch_event ev;
        assert_true(i < 4);
        assert_int_equal(k8s_watch_parse(line, (size_t)(nl - line), K8S_POD, &ev), ERR_OK);
        assert_int_equal(ev.type, want[i]);
        assert_string_equal(ev.resource_version, rv[i]);
        if (ev.type == K8S_DELETED)
            assert_string_equal(ev.obj.u.pod.meta.uid, "p-0001");
        if (ev.type == K8S_ERROR) {
            assert_int_equal(ev.status.code, 410);
            assert_string_equal(ev.status.reason, "Expired");
        }
        k8s_watch_event_release(&ev);
    }
    assert_int_equal(i, 4);
    free(body);
}

/* --- shared fixtures -------------------------------------------------------- */

/* Days from 1970-01-01 to y-m-d (1970 <= y < 2200), counted year by year and month
 * by month: a different method from timeutil's days_from_civil, so an oracle. */
static int64_t days_civil(int y, int m, int d) {
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    assert_true(y >= 1970 && y < 2200 && m >= 1 && m <= 12);
    int64_t days = 0;
    for (int yy = 1970; yy < y; yy++)
        days += (yy % 4 == 0 && (yy % 100 != 0 || yy % 400 == 0)) ? 366 : 365;
    bool leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    for (int mm = 1; mm < m; mm++)
        days += mdays[mm - 1] + (mm == 2 && leap);
    return days + d - 1;
}

/* "YYYY-MM-DDTHH:MM:SS[.frac]Z" to Unix seconds, independently of timeutil. */
static int64_t indep_utc(const char *s) {
    int y, mo, d, h, mi, se;
    assert_int_equal(sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &se), 6);
    return days_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
}

/* Item i of the scenario's core/v1 EventList: firstTimestamp, else eventTime. */
static int64_t fixture_event_first(const char *dir, size_t i) {
    size_t len = 0;
    char *body = fx_read_in(dir, "scenario/EventList.core-v1.json", &len);
    assert_non_null(body);
    struct json_object *root = json_tokener_parse(body), *items, *it, *v;
    assert_non_null(root);
    assert_true(json_object_object_get_ex(root, "items", &items));
    it = json_object_array_get_idx(items, i);
    assert_non_null(it);
    const char *t = NULL;
    if (json_object_object_get_ex(it, "firstTimestamp", &v) &&
        json_object_is_type(v, json_type_string))
        t = json_object_get_string(v);
    else if (json_object_object_get_ex(it, "eventTime", &v) &&
             json_object_is_type(v, json_type_string))
        t = json_object_get_string(v);
    assert_non_null(t);
    int64_t r = indep_utc(t);
    json_object_put(root);
    free(body);
    return r;
}

static void test_shared_upstream(void **state) {
    (void)state;
    char dir[1024];
    if (!fx_shared_k8s(dir, sizeof dir))
        return;
    struct {
        const char *file;
        enum k8s_kind kind;
    } objs[] = {{"upstream/batch.v1.Job.json", K8S_JOB},
                {"upstream/core.v1.Pod.json", K8S_POD},
                {"upstream/core.v1.Node.json", K8S_NODE},
                {"upstream/core.v1.Event.json", K8S_EVENT},
                {"upstream/events.k8s.io.v1.Event.json", K8S_EVENT}};
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) {
        size_t len = 0;
        char *body = fx_read_in(dir, objs[i].file, &len);
        assert_non_null(body);
        struct k8s_object o;
        assert_int_equal(k8s_object_parse(body, len, objs[i].kind, &o), ERR_OK);
        const struct k8s_meta *m = k8s_object_meta(&o);
        assert_true(m->uid[0] != '\0');
        assert_true(m->name[0] != '\0');
        /* every upstream object: creationTimestamp 2008-01-01T01:01:01Z =
         * (38 y x 365 + 9 leap days) x 86400 + 3661 */
        assert_int_equal(m->created_at, 1199149261);
        if (objs[i].kind == K8S_EVENT) {
            assert_true(o.u.event.reason[0] != '\0');
            assert_true(o.u.event.object_kind[0] != '\0');
            /* core/v1: firstTimestamp 2006-01-01T01:01:01Z = 13149 d x 86400 + 3661;
             * events.k8s.io/v1: deprecatedFirstTimestamp 2013-01-01T01:01:01Z =
             * 15706 d x 86400 + 3661 (both win over eventTime) */
            assert_int_equal(o.u.event.first_at, i == 3 ? 1136077261 : 1357002061);
        }
        if (objs[i].kind == K8S_JOB)
            assert_non_null(o.u.job.spec_json);
        k8s_object_release(&o);
        free(body);
    }
}

static const struct k8s_object *find_named(const struct k8s_list *l, const char *name) {
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(k8s_object_meta(&l->items[i])->name, name) == 0)
            return &l->items[i];
    return NULL;
}

static void test_shared_scenario_lists(void **state) {
    (void)state;
    char dir[1024];
    if (!fx_shared_k8s(dir, sizeof dir))
        return;
    struct k8s_list l;
    parse_list_file(dir, "scenario/JobList.json", K8S_JOB, &l);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.skipped, 0);
    assert_string_equal(l.resource_version, "48214601");
    const struct k8s_job *a = &find_named(&l, "transcode-7f3a")->u.job;
    assert_int_equal(a->outcome, K8S_SUCCEEDED);
    assert_string_equal(a->outcome_reason, "CompletionsReached");
    assert_int_equal(a->completed_at, ts("2025-11-04T09:18:15Z"));
    assert_int_equal(a->completed_at - a->started_at, 1095);
    assert_int_equal(a->ttl_after_finished, 3600);
    assert_int_equal(a->backoff_limit, 6);
    assert_non_null(strstr(a->spec_json, "preferredNodeAffinity"));
    const struct k8s_job *c = &find_named(&l, "ingest-5d0e")->u.job;
    assert_int_equal(c->outcome, K8S_FAILED);
    assert_string_equal(c->outcome_reason, "BackoffLimitExceeded");
    assert_int_equal(c->completed_at, ts("2025-11-04T09:17:22Z"));
    assert_int_equal(c->backoff_limit, 2);
    assert_false(c->has_pod_failure_policy);
    const struct k8s_job *b = &find_named(&l, "thumbnail-91c2")->u.job;
    assert_int_equal(b->completed_at - b->started_at, 98);
    k8s_list_release(&l);

    parse_list_file(dir, "scenario/PodList.json", K8S_POD, &l);
    assert_int_equal(l.n, 6);
    assert_int_equal(l.skipped, 0);
    const struct k8s_pod *p = &find_named(&l, "transcode-7f3a-q7m4z")->u.pod;
    assert_string_equal(p->job_uid, "797af485-f686-5a8c-83a8-5bd900aaee04");
    assert_string_equal(p->node_name, "spot-pool-k3v9f");
    assert_int_equal(p->cpu_request_milli, 2000);
    assert_int_equal(p->gpu_request, 0);
    assert_int_equal(p->started_at, ts("2025-11-04T09:04:20Z"));
    assert_int_equal(p->finished_at, ts("2025-11-04T09:16:47Z"));
    assert_int_equal(p->exit_code, 143);
    assert_string_equal(p->disruption_reason, "DeletionByTaintManager");
    assert_int_equal(p->disruption_at, ts("2025-11-04T09:14:41Z"));
    assert_int_equal(p->meta.deletion_at - p->meta.deletion_grace, ts("2025-11-04T09:14:41Z"));
    p = &find_named(&l, "ingest-5d0e-t6x2n")->u.pod;
    assert_string_equal(p->reason, "Terminated");
    assert_string_equal(p->disruption_reason, "TerminationByKubelet");
    k8s_list_release(&l);

    struct k8s_list p1, p2;
    parse_list_file(dir, "scenario/pages/PodList.limit4.page1.json", K8S_POD, &p1);
    parse_list_file(dir, "scenario/pages/PodList.limit4.page2.json", K8S_POD, &p2);
    assert_int_equal(p1.n, 4);
    assert_non_null(p1.continue_token);
    assert_int_equal(p1.remaining, 2);
    assert_int_equal(p2.n, p1.remaining);
    assert_null(p2.continue_token);
    assert_string_equal(p1.resource_version, p2.resource_version);
    k8s_list_release(&p1);
    k8s_list_release(&p2);

    parse_list_file(dir, "scenario/NodeList.json", K8S_NODE, &l);
    assert_int_equal(l.n, 3);
    const struct k8s_node *n = &find_named(&l, "spot-pool-k3v9f")->u.node;
    assert_string_equal(n->droplet_id, "512340002");
    assert_string_equal(n->pool_id, "6a1f0c2e-3b7d-4c55-9e8a-1d2f3a4b5c6d");
    assert_string_equal(n->ready_status, "Unknown");
    assert_int_equal(n->ready_since, ts("2025-11-04T09:18:21Z"));
    assert_int_equal(n->cpu_allocatable_milli, 3900);
    assert_int_equal(n->gpu_allocatable, 0);
    n = &find_named(&l, "spot-pool-k3wb2")->u.node;
    assert_string_equal(n->ready_status, "True");
    assert_int_equal(n->ready_since, ts("2025-11-04T09:16:52Z"));
    k8s_list_release(&l);

    struct k8s_list e1, e2;
    parse_list_file(dir, "scenario/EventList.core-v1.json", K8S_EVENT, &e1);
    parse_list_file(dir, "scenario/EventList.events-k8s-io-v1.json", K8S_EVENT, &e2);
    assert_int_equal(e1.n, 53);
    assert_int_equal(e2.n, 53);
    size_t relevant = 0;
    for (size_t i = 0; i < e1.n; i++) {
        const struct k8s_event *x = &e1.items[i].u.event, *y = &e2.items[i].u.event;
        assert_string_equal(x->meta.uid, y->meta.uid);
        assert_string_equal(x->object_kind, y->object_kind);
        assert_string_equal(x->object_name, y->object_name);
        assert_string_equal(x->object_uid, y->object_uid);
        assert_string_equal(x->reason, y->reason);
        assert_int_equal(x->first_at, y->first_at);
        assert_int_equal(x->last_at, y->last_at);
        assert_int_equal(x->count, y->count);
        /* the time the fixture states (firstTimestamp, else eventTime), read here
         * without the parser under test */
        assert_int_equal(x->first_at, fixture_event_first(dir, i));
        if ((x->message == NULL) != (y->message == NULL) ||
            (x->message && strcmp(x->message, y->message) != 0))
            fail_msg("event %zu message differs", i);
        relevant += k8s_event_is_relevant(x);
    }
    assert_true(relevant >= 10);
    k8s_list_release(&e1);
    k8s_list_release(&e2);
}

static void test_shared_watch_and_410(void **state) {
    (void)state;
    char dir[1024];
    if (!fx_shared_k8s(dir, sizeof dir))
        return;
    size_t len = 0;
    char *body = fx_read_in(dir, "watch/pods-watch-stream.ndjson", &len);
    assert_non_null(body);
    int counts[5] = {0};
    size_t lines = 0;
    char last_rv[K8S_RV_MAX] = "";
    for (char *line = body, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
        struct k8s_watch_event ev;
        assert_int_equal(k8s_watch_parse(line, (size_t)(nl - line), K8S_POD, &ev), ERR_OK);
        counts[ev.type]++;
        lines++;
        assert_true(ev.resource_version[0] != '\0');
        snprintf(last_rv, sizeof last_rv, "%s", ev.resource_version);
        if (ev.type == K8S_DELETED) {
            assert_string_equal(ev.obj.u.pod.meta.name, "transcode-7f3a-8xk2p");
            /* deletionTimestamp 2025-11-04T09:03:55Z, grace 0:
             * (20089 + 304 + 3) d x 86400 + 32635 */
            assert_int_equal(ev.obj.u.pod.meta.deletion_at, 1762247035);
        }
        k8s_watch_event_release(&ev);
    }
    assert_true(lines > 0);
    assert_int_equal(counts[K8S_BOOKMARK], 2);
    assert_int_equal(counts[K8S_DELETED], 1);
    assert_true(counts[K8S_ADDED] >= 1);
    free(body);

    body = fx_read_in(dir, "watch/watch-error-410-expired.ndjson", &len);
    assert_non_null(body);
    struct k8s_watch_event ev;
    assert_int_equal(k8s_watch_parse(body, len, K8S_POD, &ev), ERR_OK);
    assert_int_equal(ev.type, K8S_ERROR);
    assert_int_equal(ev.status.code, 410);
    assert_string_equal(ev.status.reason, "Expired");
    k8s_watch_event_release(&ev);
    free(body);
    const char *files[] = {"watch/status-410-expired.json",
                           "watch/status-410-continue-expired.json"};
    for (size_t i = 0; i < 2; i++) {
        body = fx_read_in(dir, files[i], &len);
        assert_non_null(body);
        struct k8s_status s;
        assert_int_equal(k8s_status_parse(body, len, &s), ERR_OK);
        assert_int_equal(s.code, 410);
        assert_string_equal(s.reason, "Expired");
        free(body);
    }
}

/* policy/v1 PodDisruptionBudgets: intstr numbers and percentages, the selector
 * kept only when it is matchLabels, status counts; pod template labels reach a
 * Job's spec_json as "podLabels" without the controller's per-Job labels. */
static void test_pdb(void **state) {
    (void)state;
    static const char one[] =
        "{\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"uid\":\"u1\",\"name\":\"train\","
        "\"namespace\":\"batch\",\"creationTimestamp\":\"2026-11-08T00:00:00Z\"},"
        "\"spec\":{\"maxUnavailable\":0,\"selector\":{\"matchLabels\":"
        "{\"app.kubernetes.io/name\":\"train\"}}},\"status\":{\"expectedPods\":3,"
        "\"currentHealthy\":3,\"desiredHealthy\":3,\"disruptionsAllowed\":0}}";
    struct k8s_object o;
    assert_int_equal(k8s_object_parse(one, strlen(one), K8S_PDB, &o), ERR_OK);
    const struct k8s_pdb *p = &o.u.pdb;
    assert_string_equal(p->meta.name, "train");
    assert_int_equal(p->meta.created_at, 1794096000); /* 2026-11-08T00:00:00Z */
    assert_int_equal(p->max_unavailable, 0);
    assert_int_equal(p->max_unavailable_pct, -1);
    assert_int_equal(p->min_available, -1);
    assert_int_equal(p->min_available_pct, -1);
    assert_string_equal(p->selector_json, "{\"app.kubernetes.io/name\":\"train\"}");
    assert_int_equal(p->expected_pods, 3);
    assert_int_equal(p->disruptions_allowed, 0);
    k8s_object_release(&o);
    static const struct {
        const char *spec;
        int64_t min, min_pct, max, max_pct;
        const char *selector;
    } cases[] = {
        {"{\"minAvailable\":\"100%\",\"selector\":{}}", -1, 100, -1, -1, "{}"},
        {"{\"maxUnavailable\":\"25%\",\"selector\":{\"matchLabels\":{}}}", -1, -1, -1, 25, "{}"},
        {"{\"minAvailable\":2,\"selector\":{\"matchExpressions\":[{\"key\":\"a\","
         "\"operator\":\"Exists\"}]}}",
         2, -1, -1, -1, NULL},
        {"{\"minAvailable\":\"150%\"}", -1, -1, -1, -1, NULL}, /* no selector: NULL */
        {"{\"minAvailable\":\"x%\",\"maxUnavailable\":-1,\"selector\":{\"matchLabels\":"
         "{\"a\":1}}}",
         -1, -1, -1, -1, NULL}, /* malformed: absent */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[512];
        snprintf(buf, sizeof buf, "{\"metadata\":{\"uid\":\"u%zu\"},\"spec\":%s}", i,
                 cases[i].spec);
        assert_int_equal(k8s_object_parse(buf, strlen(buf), K8S_PDB, &o), ERR_OK);
        assert_int_equal(o.u.pdb.min_available, cases[i].min);
        assert_int_equal(o.u.pdb.min_available_pct, cases[i].min_pct);
        assert_int_equal(o.u.pdb.max_unavailable, cases[i].max);
        assert_int_equal(o.u.pdb.max_unavailable_pct, cases[i].max_pct);
        if (cases[i].selector)
            assert_string_equal(o.u.pdb.selector_json, cases[i].selector);
        else
            assert_null(o.u.pdb.selector_json);
        assert_int_equal(o.u.pdb.expected_pods, -1);
        k8s_object_release(&o);
    }
    static const char job[] =
        "{\"metadata\":{\"uid\":\"j\",\"name\":\"train-1\",\"namespace\":\"batch\"},"
        "\"spec\":{\"template\":{\"metadata\":{\"labels\":{\"app.kubernetes.io/name\":\"train\","
        "\"controller-uid\":\"j\",\"job-name\":\"train-1\","
        "\"batch.kubernetes.io/job-name\":\"train-1\"}},\"spec\":{}}}}";
    assert_int_equal(k8s_object_parse(job, strlen(job), K8S_JOB, &o), ERR_OK);
    assert_string_equal(o.u.job.spec_json,
                        "{\"podLabels\":{\"app.kubernetes.io/name\":\"train\"}}");
    k8s_object_release(&o);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantity),
        cmocka_unit_test(test_index_set),
        cmocka_unit_test(test_task_report),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_pdb),
        cmocka_unit_test(test_own_jobs),
        cmocka_unit_test(test_own_pods),
        cmocka_unit_test(test_own_nodes_events),
        cmocka_unit_test(test_own_watch),
        cmocka_unit_test(test_shared_upstream),
        cmocka_unit_test(test_shared_scenario_lists),
        cmocka_unit_test(test_shared_watch_and_410),
    };
    return cmocka_run_group_tests_name("k8s_api", tests, NULL, NULL);
}
