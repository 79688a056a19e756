/* test_sim_parse_k8s — every Kubernetes payload spotledger watches, served by
 * the real simulator and read back with spotledger's own parser (k8s_api.h),
 * never with a test-only reading: if spotsim and the parser drifted apart (a
 * renamed field, a watch line it cannot read), the end-to-end figures could still
 * agree by accident; this test says which endpoint broke (DigitalOcean:
 * test_sim_parse_do.c; the fixture: sim_parse_fx.h).
 *
 * small.json at start + 2 h 15 min (the gpu-spot pool was reclaimed at start +
 * 2 h): Jobs, Pods of Jobs (spotledger's controller-uid selector), Nodes, Events
 * (paged with limit/continue), a pod and a node watch with resourceVersion +
 * allowWatchBookmarks, a too-old resourceVersion and an expired continue token
 * (410). Every parsed count is compared with the simulated world as of the frozen
 * time (sim_obj_exists), not with a second parse. Every request has a timeout,
 * every paging loop a bound; nothing asserts inside the server's threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "source/http_client.h"
#include "source/k8s_api.h"
#include "base/money.h"
#include "sim/sim_clock.h"
#include "sim/sim_k8s_obj.h"
#include "sim/sim_scenario.h"
#include "sim/sim_server.h"
#include "sim/sim_world.h"

#include "sim_parse_fx.h"

static enum sim_kind sim_kind_of(enum k8s_kind k) {
    switch (k) {
    case K8S_JOB:
        return SIM_K_JOB;
    case K8S_POD:
        return SIM_K_POD;
    case K8S_NODE:
        return SIM_K_NODE;
    case K8S_EVENT:
        return SIM_K_EVENT;
    case K8S_PDB:
        return SIM_K_PDB;
    }
    return SIM_K_COUNT;
}

static bool has_label(const struct sim_world *w, enum sim_kind kind, int idx, const char *key) {
    struct sim_labels l;
    sim_obj_labels(w, kind, idx, &l);
    for (int i = 0; i < l.n; i++)
        if (strcmp(l.key[i], key) == 0)
            return true;
    return false;
}

/* Index of the world object of `kind` with this uid, -1 if none. */
static int world_index(const struct sim_world *w, enum sim_kind kind, const char *uid) {
    int n = sim_obj_count(w, kind);
    for (int i = 0; i < n; i++) {
        const char *u = kind == SIM_K_POD    ? w->pods[i].uid
                        : kind == SIM_K_JOB  ? w->jobs[i].uid
                        : kind == SIM_K_NODE ? w->nodes[i].uid
                                             : w->events[i].uid;
        if (strcmp(u, uid) == 0)
            return i;
    }
    return -1;
}

/* As world_index for a listed object; a PDB (whose uid spotsim derives when it
 * renders it) by its name, one per workload. */
static int world_index_of(const struct sim_world *w, enum sim_kind kind, const struct k8s_meta *m) {
    for (int i = 0; kind == SIM_K_PDB && i < sim_obj_count(w, kind); i++)
        if (strcmp(sim_obj_name(w, kind, i), m->name) == 0)
            return i;
    return kind == SIM_K_PDB ? -1 : world_index(w, kind, m->uid);
}

/* Lists `path` (query already escaped, may be "") in pages of `limit` as spotledger's
 * informer does (limit, then continue), parsing each page with k8s_list_parse; checks
 * every page has the first page's resourceVersion, every item is a world object that
 * exists now (and carries `label` if given), and no object is listed twice. Returns the
 * number of objects, the pages in *pages. */
static int list_all(struct fx *f, const char *path, const char *query, enum k8s_kind kind,
                    int limit, const char *label, int *pages) {
    enum sim_kind sk = sim_kind_of(kind);
    int n = sim_obj_count(f->w, sk);
    char *seen = calloc((size_t)n + 1, 1);
    assert_non_null(seen);
    char rv[K8S_RV_MAX] = "";
    char *cont = NULL;
    int got = 0;
    *pages = 0;
    for (;;) {
        char p[4096];
        int len = snprintf(p, sizeof p, "%s?%s%slimit=%d", path, query, query[0] ? "&" : "", limit);
        if (cont) {
            char *esc = http_client_escape(cont);
            len += snprintf(p + len, sizeof p - (size_t)len, "&continue=%s", esc);
            free(esc);
        }
        assert_true(len < (int)sizeof p);
        struct reply r;
        get_ok(f, p, 200, &r);
        struct k8s_list l;
        memset(&l, 0, sizeof l);
        enum err rc = k8s_list_parse(buf_str(&r.body), r.body.len, kind, &l);
        if (rc != ERR_OK)
            fail_msg("%s page %d: %s", path, *pages + 1, err_str(rc));
        buf_release(&r.body);
        assert_int_equal(l.skipped, 0);
        assert_true(l.n <= (size_t)limit);
        if (*pages == 0)
            snprintf(rv, sizeof rv, "%s", l.resource_version);
        assert_string_equal(l.resource_version, rv);
        for (size_t i = 0; i < l.n; i++) {
            const struct k8s_meta *m = k8s_object_meta(&l.items[i]);
            int idx = world_index_of(f->w, sk, m);
            if (idx < 0)
                fail_msg("%s: %s '%s' is not in the world", path, k8s_kind_name(kind), m->name);
            assert_true(sim_obj_exists(f->w, sk, idx, f->asof));
            assert_false(seen[idx]);
            seen[idx] = 1;
            assert_string_equal(m->name, sim_obj_name(f->w, sk, idx));
            if (label)
                assert_true(has_label(f->w, sk, idx, label));
        }
        got += (int)l.n;
        (*pages)++;
        free(cont);
        cont = l.continue_token ? strdup(l.continue_token) : NULL;
        k8s_list_release(&l);
        if (!cont)
            break;
        assert_true(*pages < MAX_PAGES);
    }
    /* the list's resourceVersion is the world's seq at the frozen time */
    assert_int_equal(strtoll(rv, NULL, 10), f->asof);
    free(seen);
    return got;
}

/* Objects of a kind that exist at the frozen time (with `label` if not NULL). */
static int world_count(struct fx *f, enum sim_kind sk, const char *label) {
    int n = sim_obj_count(f->w, sk), want = 0;
    for (int i = 0; i < n; i++)
        if (sim_obj_exists(f->w, sk, i, f->asof) && (!label || has_label(f->w, sk, i, label)))
            want++;
    return want;
}

static void check_list(struct fx *f, const char *path, const char *query, enum k8s_kind kind,
                       const char *label, int small_limit) {
    int want = world_count(f, sim_kind_of(kind), label);
    int p500, psmall;
    int a = list_all(f, path, query, kind, 500, label, &p500); /* spotledger's page size */
    int b = list_all(f, path, query, kind, small_limit, label, &psmall);
    assert_int_equal(a, want);
    assert_int_equal(b, want);
    assert_true(want > 0);
    assert_int_equal(p500, (want + 499) / 500);
    assert_int_equal(psmall, (want + small_limit - 1) / small_limit);
    print_message("%s: %d %ss (world: %d), 1 page of 500 and %d pages of %d\n", path, a,
                  k8s_kind_name(kind), want, psmall, small_limit);
}

static void test_k8s_lists(void **state) {
    struct fx *f = *state;
    /* spotledger's pod query: labelSelector=<escaped controller-uid key> (watch_k8s.c) */
    char podq[256];
    char *esc = http_client_escape(K8S_LABEL_CONTROLLER_UID);
    snprintf(podq, sizeof podq, "labelSelector=%s", esc);
    free(esc);
    check_list(f, "/apis/batch/v1/jobs", "", K8S_JOB, NULL, 2);
    check_list(f, "/api/v1/pods", podq, K8S_POD, K8S_LABEL_CONTROLLER_UID, 3);
    check_list(f, "/api/v1/nodes", "", K8S_NODE, NULL, 2);
    check_list(f, "/api/v1/events", "", K8S_EVENT, NULL, 5);
    /* the PodDisruptionBudgets the watcher lists (issue 19) */
    check_list(f, "/apis/policy/v1/poddisruptionbudgets", "", K8S_PDB, NULL, 1);
    /* every pod of this world belongs to a Job, so the selector keeps them all */
    assert_int_equal(world_count(f, SIM_K_POD, K8S_LABEL_CONTROLLER_UID),
                     world_count(f, SIM_K_POD, NULL));
}

/* The parsed content, not only the counts: jobs' configurations and outcomes, pods'
 * jobs, nodes, GPU requests and disruptions, nodes' pools and providerIDs, and no
 * node of the reclaimed pool. */
static void test_k8s_content(void **state) {
    struct fx *f = *state;
    struct reply r;
    struct k8s_list l;
    get_ok(f, "/apis/batch/v1/jobs?limit=500", 200, &r);
    memset(&l, 0, sizeof l);
    assert_int_equal(k8s_list_parse(buf_str(&r.body), r.body.len, K8S_JOB, &l), ERR_OK);
    buf_release(&r.body);
    int done = 0;
    for (size_t i = 0; i < l.n; i++) {
        const struct k8s_job *j = &l.items[i].u.job;
        const struct sim_job *sj = &f->w->jobs[world_index(f->w, SIM_K_JOB, j->meta.uid)];
        const struct sim_workload *wl = &f->sc->workloads[sj->workload];
        assert_string_equal(j->configuration, sim_config_name(wl->configuration));
        assert_int_equal(j->meta.created_at, sj->created_t);
        if (sj->done_seq <= f->asof) {
            done++;
            assert_int_equal(j->outcome, sj->failed ? K8S_FAILED : K8S_SUCCEEDED);
            assert_int_equal(j->completed_at, sj->done_t);
        } else {
            assert_int_equal(j->outcome, K8S_RUNNING);
        }
    }
    k8s_list_release(&l);

    get_ok(f, "/api/v1/pods?limit=500", 200, &r);
    memset(&l, 0, sizeof l);
    assert_int_equal(k8s_list_parse(buf_str(&r.body), r.body.len, K8S_POD, &l), ERR_OK);
    buf_release(&r.body);
    int on_node = 0, finished = 0;
    for (size_t i = 0; i < l.n; i++) {
        const struct k8s_pod *p = &l.items[i].u.pod;
        const struct sim_pod *sp = &f->w->pods[world_index(f->w, SIM_K_POD, p->meta.uid)];
        const struct sim_job *sj = &f->w->jobs[sp->job];
        assert_string_equal(p->job_uid, sj->uid);
        assert_string_equal(p->job_name, sj->name);
        assert_int_equal(p->gpu_request, f->sc->workloads[sj->workload].gpus);
        if (sp->node >= 0 && sp->sched_seq <= f->asof) {
            on_node++;
            assert_string_equal(p->node_name, f->w->nodes[sp->node].name);
            assert_int_equal(p->scheduled_at, sp->sched_t);
        }
        if (sp->start_seq <= f->asof)
            assert_int_equal(p->started_at, sp->start_t);
        if (sp->fin_seq <= f->asof) {
            finished++;
            assert_int_equal(p->finished_at, sp->fin_t);
            assert_int_equal(p->exit_code, sp->exit_code);
        }
        /* two hours after the reclaim, pods left from gpu-spot are finished ones */
        if (strstr(p->node_name, "gpu-spot"))
            assert_true(strcmp(p->phase, "Succeeded") == 0 || strcmp(p->phase, "Failed") == 0);
    }
    k8s_list_release(&l);

    get_ok(f, "/api/v1/nodes?limit=500", 200, &r);
    memset(&l, 0, sizeof l);
    assert_int_equal(k8s_list_parse(buf_str(&r.body), r.body.len, K8S_NODE, &l), ERR_OK);
    buf_release(&r.body);
    for (size_t i = 0; i < l.n; i++) {
        const struct k8s_node *n = &l.items[i].u.node;
        const struct sim_node *sn = &f->w->nodes[world_index(f->w, SIM_K_NODE, n->meta.uid)];
        const struct sim_pool *sp = &f->w->pools[sn->pool];
        assert_string_equal(n->pool_id, sp->id);
        assert_string_equal(n->pool_name, sp->name);
        assert_string_equal(n->droplet_id, sn->droplet_id);
        assert_int_equal(n->gpu_allocatable, sn->gpus);
        assert_string_not_equal(n->pool_name, "gpu-spot");
        if (sn->ready_seq <= f->asof) {
            assert_string_equal(n->ready_status, "True");
            assert_int_equal(n->ready_since, sn->ready_t);
        }
    }
    print_message("jobs: %d finished of %d listed; pods: %d placed, %d finished; nodes: %zu, "
                  "none of gpu-spot; fields equal the world's\n",
                  done, world_count(f, SIM_K_JOB, NULL), on_node, finished, l.n);
    k8s_list_release(&l);
}

struct watch_count {
    int added, modified, deleted, bookmarks, errors, disrupted;
    long long last_rv;
};

/* The deletionTimestamp the world gives a deleted object of `kind` with this uid: its
 * deletion time (deleted_t), or for a pod with kube_deletion the request time plus
 * the grace period (sim_world.h). Fails when no world object has the uid. */
static int64_t world_deletion_at(const struct fx *f, enum k8s_kind kind, const char *uid) {
    int i = world_index(f->w, sim_kind_of(kind), uid);
    if (i < 0)
        fail_msg("deleted %s %s is not in the world", k8s_kind_name(kind), uid);
    switch (kind) {
    case K8S_POD:
        return f->w->kube_deletion ? f->w->pods[i].delreq_t + f->w->pods[i].delgrace
                                   : f->w->pods[i].deleted_t;
    case K8S_JOB:
        return f->w->jobs[i].deleted_t;
    case K8S_NODE:
        return f->w->nodes[i].deleted_t;
    case K8S_EVENT:
        return f->w->events[i].deleted_t;
    case K8S_PDB: /* static in spotsim: never deleted */
        break;
    }
    return -1;
}

/* Parses every line of a watch body with k8s_watch_parse; resourceVersions never go
 * back; a DELETED object's deletionTimestamp is the world's. Returns the number of lines. */
static int parse_watch(const struct fx *f, const char *body, enum k8s_kind kind,
                       struct watch_count *c) {
    memset(c, 0, sizeof *c);
    int lines = 0;
    const char *p = body;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > 0) {
            struct k8s_watch_event ev;
            memset(&ev, 0, sizeof ev);
            enum err rc = k8s_watch_parse(p, len, kind, &ev);
            if (rc != ERR_OK)
                fail_msg("watch line %d: %s: %.*s", lines + 1, err_str(rc), (int)len, p);
            lines++;
            switch (ev.type) {
            case K8S_ADDED:
                c->added++;
                break;
            case K8S_MODIFIED:
                c->modified++;
                break;
            case K8S_DELETED:
                c->deleted++;
                assert_int_equal(k8s_object_meta(&ev.obj)->deletion_at,
                                 world_deletion_at(f, kind, k8s_object_meta(&ev.obj)->uid));
                break;
            case K8S_BOOKMARK:
                c->bookmarks++;
                break;
            case K8S_ERROR:
                c->errors++;
                break;
            }
            if (ev.type != K8S_ERROR) {
                long long rv = strtoll(ev.resource_version, NULL, 10);
                assert_true(rv >= c->last_rv);
                c->last_rv = rv;
            }
            if (kind == K8S_POD && ev.type != K8S_BOOKMARK && ev.type != K8S_ERROR &&
                ev.obj.u.pod.disruption_at > 0)
                c->disrupted++;
            k8s_watch_event_release(&ev);
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    return lines;
}

/* spotledger's watch (watch_k8s.c build_url) from a resourceVersion a minute before
 * the reclaim, with allowWatchBookmarks: every change since, then BOOKMARKs up to
 * the head, all readable by k8s_watch_parse. */
static void test_watch(void **state) {
    struct fx *f = *state;
    int64_t from = sim_world_seq_at(f->w, f->S + RECLAIM_AFTER - 60);
    struct {
        const char *path, *query;
        enum k8s_kind kind;
        enum sim_kind sk;
    } res[] = {
        {"/api/v1/pods", "labelSelector=batch.kubernetes.io%2Fcontroller-uid&", K8S_POD, SIM_K_POD},
        {"/api/v1/nodes", "", K8S_NODE, SIM_K_NODE},
        {"/apis/batch/v1/jobs", "", K8S_JOB, SIM_K_JOB},
        {"/api/v1/events", "", K8S_EVENT, SIM_K_EVENT}};
    for (size_t k = 0; k < sizeof res / sizeof *res; k++) {
        char path[512];
        snprintf(path, sizeof path,
                 "%s?%swatch=1&allowWatchBookmarks=true&resourceVersion=%lld&timeoutSeconds=1",
                 res[k].path, res[k].query, (long long)from);
        struct reply r;
        get_ok(f, path, 200, &r);
        struct watch_count c;
        int lines = parse_watch(f, buf_str(&r.body), res[k].kind, &c);
        buf_release(&r.body);
        /* the world's changes of that kind after `from` up to now, one line each */
        int want_changes = 0, want_deleted = 0;
        for (int i = sim_world_log_after(f->w, from); i < f->w->nlog; i++) {
            const struct sim_entry *e = &f->w->log[i];
            if (e->seq > f->asof)
                break;
            if (e->kind != res[k].sk)
                continue;
            want_changes++;
            want_deleted += e->etype == SIM_DELETED;
        }
        assert_int_equal(c.added + c.modified + c.deleted, want_changes);
        assert_int_equal(c.deleted, want_deleted);
        /* every kind's BOOKMARK parses (spotsim's Node bookmark once had a stray '}') */
        assert_true(c.bookmarks > 0);
        assert_int_equal(c.errors, 0);
        assert_int_equal(c.last_rv, f->asof); /* the bookmarks reach the head */
        if (res[k].kind == K8S_POD)
            assert_true(c.disrupted > 0 && c.deleted > 0);
        if (res[k].kind == K8S_NODE)
            assert_true(c.deleted >= 2); /* the two gpu-spot nodes */
        print_message("watch %s: %d lines parsed: %d ADDED, %d MODIFIED, %d DELETED, "
                      "%d BOOKMARK (last resourceVersion %lld = head)\n",
                      res[k].path, lines, c.added, c.modified, c.deleted, c.bookmarks, c.last_rv);
    }
}

/* 410 Gone, both ways spotledger meets it: a watch from a resourceVersion older than
 * the retention (one ERROR line whose object is a Status), and a list continue token
 * that expired (an HTTP 410 whose body is a Status). */
static void test_gone_410(void **state) {
    struct fx *f = *state;
    char path[1024];
    struct reply r;
    snprintf(path, sizeof path,
             "/api/v1/pods?labelSelector=batch.kubernetes.io%%2Fcontroller-uid&watch=1&"
             "allowWatchBookmarks=true&resourceVersion=%lld&timeoutSeconds=1",
             (long long)sim_world_seq_at(f->w, f->S + 60));
    get_ok(f, path, 200, &r);
    struct watch_count c;
    assert_int_equal(parse_watch(f, buf_str(&r.body), K8S_POD, &c), 1);
    assert_int_equal(c.errors, 1);
    struct k8s_watch_event ev;
    memset(&ev, 0, sizeof ev);
    const char *line = buf_str(&r.body);
    assert_int_equal(k8s_watch_parse(line, strcspn(line, "\n"), K8S_POD, &ev), ERR_OK);
    assert_int_equal(ev.type, K8S_ERROR);
    assert_int_equal(ev.status.code, 410);
    assert_string_equal(ev.status.reason, "Expired");
    k8s_watch_event_release(&ev);
    buf_release(&r.body);

    /* a continue token taken before the retention window: 410 Expired as a Status */
    sim_clock_set(&f->clock, f->S + 1800);
    get_ok(f, "/api/v1/events?limit=1", 200, &r);
    struct k8s_list l;
    memset(&l, 0, sizeof l);
    assert_int_equal(k8s_list_parse(buf_str(&r.body), r.body.len, K8S_EVENT, &l), ERR_OK);
    buf_release(&r.body);
    assert_non_null(l.continue_token);
    char *esc = http_client_escape(l.continue_token);
    snprintf(path, sizeof path, "/api/v1/events?limit=1&continue=%s", esc);
    free(esc);
    k8s_list_release(&l);
    sim_clock_set(&f->clock, f->now);
    get_ok(f, path, 410, &r);
    struct k8s_status st;
    memset(&st, 0, sizeof st);
    assert_int_equal(k8s_status_parse(buf_str(&r.body), r.body.len, &st), ERR_OK);
    assert_int_equal(st.code, 410);
    assert_string_equal(st.reason, "Expired");
    assert_true(st.message[0] != '\0');
    buf_release(&r.body);
    /* and a list body is not a Status */
    get_ok(f, "/api/v1/nodes?limit=1", 200, &r);
    assert_int_equal(k8s_status_parse(buf_str(&r.body), r.body.len, &st), ERR_PARSE);
    buf_release(&r.body);
    print_message("410: watch ERROR line and expired continue token both parse as Status "
                  "410 Expired\n");
}

int main(void) {
    curl_global_init(CURL_GLOBAL_ALL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_k8s_lists, setup_small, fx_teardown),
        cmocka_unit_test_setup_teardown(test_k8s_content, setup_small, fx_teardown),
        cmocka_unit_test_setup_teardown(test_watch, setup_small, fx_teardown),
        cmocka_unit_test_setup_teardown(test_gone_410, setup_small, fx_teardown),
    };
    int rc = cmocka_run_group_tests_name("sim_parse_k8s", tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
