/* test_watch_storm — the informers' request budget (README "Limits") against a
 * fake Kubernetes API on 127.0.0.1 that lies or loops:
 *   - every watch answered 200 with an empty body (closed at once),
 *   - every watch answered 410 Gone,
 *   - every request answered 500 (a dead API server behind a proxy),
 *   - a node list whose continue token never changes.
 * The first three run side by side for 10 s with the default options; each resource
 * may receive at most the documented budget of requests in that time, and the log
 * stays small. Before the budget, the first took ~49,000 requests in 6 s and the
 * second ~1,000 with ~175 log lines a second. The server only records; every
 * assertion runs on the test thread (docs/style.md 22); every wait is bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "ingest/watch_k8s.h"
#include "store/store.h"
#include "fake_k8s.h"
#include "tmpdb.h"

enum mode { M_CLOSE, M_GONE, M_DEAD, M_FROZEN };

/* The documented budget with the default options (watch_k8s.h, README "Limits"):
 * watch starts: 6 at once, then one per 5 s -> at most 6 + 10/5 = 8 in 10 s;
 * lists: the first, plus at most 3 unscheduled relists a minute -> 4.
 * Lists here are one page each, so at most 8 + 4 = 12 requests per resource.
 * A dead server: each list start is tried 3 times, the retries after 250-500 ms
 * and 500-1000 ms (so a start lasts >= 0.75 s), and starts back off 0.5, 1, 2,
 * 4, 8 s less 25% jitter at most: starts at >= 0, 1.125, 2.625, 4.875, 8.625 s,
 * the next after 10 s: at most 5 x 3 = 15. */
#define BUDGET_10S 12
#define BUDGET_DEAD_10S 15
#define RUN_MS 10000
#define FROZEN_STOP_AFTER 50 /* the fake then fails the list, so old code ends too */

struct fk {
    struct fk_daemon srv;
    enum mode mode;
    pthread_mutex_t mu;
    int lists[R_N], watches[R_N];
};

static const char NODE_PAGE[] =
    "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"5\","
    "\"continue\":\"same-token\"},\"items\":["
    "{\"metadata\":{\"name\":\"n1\",\"uid\":\"node-1\",\"resourceVersion\":\"3\","
    "\"creationTimestamp\":\"2026-03-02T09:00:00Z\"}},"
    "{\"metadata\":{\"name\":\"n2\",\"uid\":\"node-2\",\"resourceVersion\":\"4\","
    "\"creationTimestamp\":\"2026-03-02T09:00:00Z\"}}]}";
static const char EMPTY_LIST[] =
    "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"5\"},"
    "\"items\":[]}";

static enum MHD_Result fk_answer(void *cls, struct MHD_Connection *c, int res, bool is_watch) {
    struct fk *f = cls;
    int status = 200;
    const char *body = EMPTY_LIST;
    pthread_mutex_lock(&f->mu);
    if (res < 0) {
        status = 404;
        body = "{}";
    } else if (f->mode == M_DEAD) {
        f->lists[res]++; /* every request counts; none gets past the list */
        status = 500;
        body = "{\"kind\":\"Status\",\"code\":500}";
    } else if (is_watch) {
        f->watches[res]++;
        if (f->mode == M_GONE) {
            status = 410;
            body = STATUS_410;
        } else {
            body = ""; /* M_CLOSE: 200, nothing, closed */
        }
    } else {
        f->lists[res]++;
        if (f->mode == M_FROZEN && res == R_NODES)
            body = f->lists[res] > FROZEN_STOP_AFTER ? "{}" : NODE_PAGE;
        if (f->mode == M_FROZEN && res == R_NODES && f->lists[res] > FROZEN_STOP_AFTER)
            status = 500;
    }
    pthread_mutex_unlock(&f->mu);
    return fk_queue(c, status, body);
}

static struct fk *fk_start(enum mode mode) {
    struct fk *f = calloc(1, sizeof *f);
    f->mode = mode;
    pthread_mutex_init(&f->mu, NULL);
    if (fk_listen(&f->srv, fk_answer, f) != 0) {
        free(f);
        return NULL;
    }
    return f;
}

static void fk_stop(struct fk *f) {
    fk_unlisten(&f->srv);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

static int count(struct fk *f, const int *per_res, int res) {
    pthread_mutex_lock(&f->mu);
    int n = per_res[res];
    pthread_mutex_unlock(&f->mu);
    return n;
}

/* --- a watcher on its own database ------------------------------------------------ */

struct rig {
    char db[64];
    struct fk *f;
    struct store *s;
    pthread_mutex_t lock;
    struct watch_k8s *w;
};

static void rig_start(struct rig *r, enum mode mode) {
    memset(r, 0, sizeof *r);
    snprintf(r->db, sizeof r->db, "/tmp/test_watch_storm_XXXXXX");
    assert_int_equal(tmpdb_open(r->db, &r->s), 0);
    pthread_mutex_init(&r->lock, NULL);
    r->f = fk_start(mode);
    assert_non_null(r->f);
    struct watch_k8s_options o;
    memset(&o, 0, sizeof o); /* every budget option at its default */
    o.api_url = r->f->srv.base;
    assert_int_equal(watch_k8s_new(&o, r->s, &r->lock, &r->w), ERR_OK);
}

static void rig_stop(struct rig *r) {
    watch_k8s_free(r->w);
    fk_stop(r->f);
    store_free(r->s);
    pthread_mutex_destroy(&r->lock);
    tmpdb_unlink(r->db);
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int count_lines(const char *path, const char *needle) {
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, fp))
        if (strstr(line, needle))
            n++;
    fclose(fp);
    return n;
}

/* --- tests ----------------------------------------------------------------------- */

/* Watches closed at once and watches answered 410, 10 s each, side by side. */
static void test_storms_stay_in_budget(void **state) {
    (void)state;
    /* the log goes to a file for the run, to be counted */
    char logpath[] = "/tmp/test_watch_storm_log_XXXXXX";
    int lfd = mkstemp(logpath);
    assert_true(lfd >= 0);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    fflush(stderr);
    dup2(lfd, STDERR_FILENO);
    log_set_level(LOG_INFO);

    struct rig closing, gone, dead;
    rig_start(&closing, M_CLOSE);
    rig_start(&gone, M_GONE);
    rig_start(&dead, M_DEAD);
    int64_t t0 = now_ms();
    assert_int_equal(watch_k8s_start(closing.w), ERR_OK);
    assert_int_equal(watch_k8s_start(gone.w), ERR_OK);
    assert_int_equal(watch_k8s_start(dead.w), ERR_OK);
    while (now_ms() - t0 < RUN_MS) {
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
    watch_k8s_stop(closing.w);
    watch_k8s_stop(gone.w);
    watch_k8s_stop(dead.w);

    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(lfd);
    log_set_level(LOG_OFF);

    const char *names[R_N] = {"jobs", "pods", "nodes", "events", "pdbs"};
    struct rig *rigs[3] = {&closing, &gone, &dead};
    const char *what[3] = {"closed at once", "410 Gone", "dead (500)"};
    for (int k = 0; k < 3; k++) {
        int budget = k == 2 ? BUDGET_DEAD_10S : BUDGET_10S;
        for (int r = 0; r < R_N; r++) {
            int lists = count(rigs[k]->f, rigs[k]->f->lists, r);
            int watches = count(rigs[k]->f, rigs[k]->f->watches, r);
            printf("watch_storm: %s: %s: %d list(s) + %d watch(es) in 10 s (budget %d)\n", what[k],
                   names[r], lists, watches, budget);
            assert_true(lists >= 1 && (watches >= 1 || k == 2)); /* it did try */
            assert_true(lists + watches <= budget);
            if (k == 1)
                assert_true(lists <= 4); /* the first list + 3 relists a minute */
        }
    }
    /* at most one storm line per resource per minute (+ "watching N resource(s)") */
    int lines = count_lines(logpath, "watch_k8s:");
    printf("watch_storm: %d watch_k8s log line(s) in 10 s over 15 informers\n", lines);
    assert_true(lines <= 3 * (1 + R_N));
    /* the HTTP client's failure and retry lines: at most 2 a minute per client */
    lines = count_lines(logpath, "http: GET");
    printf("watch_storm: %d http failure/retry line(s) in 10 s over 15 clients\n", lines);
    assert_true(lines <= 2 * 3 * R_N);
    unlink(logpath);
    rig_stop(&closing);
    rig_stop(&gone);
    rig_stop(&dead);
}

/* A node list whose continue token never changes: stopped at the repeat with a
 * clear error, and a second list stores nothing new. */
static void test_frozen_continue_token(void **state) {
    (void)state;
    struct rig r;
    rig_start(&r, M_FROZEN);
    enum err rc = watch_k8s_sync_once(r.w);
    assert_int_not_equal(rc, ERR_OK);
    /* the first page, then the page that repeated its token: two requests */
    assert_int_equal(count(r.f, r.f->lists, R_NODES), 2);
    assert_int_equal(fk_db_int(r.db, "SELECT count(*) FROM nodes"), 2);
    assert_int_equal(fk_db_int(r.db, "SELECT count(*) FROM poll_runs WHERE source = 'k8s' AND "
                                     "error LIKE '%continue token repeated%'"),
                     1);
    int64_t pages = fk_db_int(r.db, "PRAGMA page_count");
    int64_t rows = fk_db_int(r.db, "SELECT (SELECT count(*) FROM nodes) + "
                                   "(SELECT count(*) FROM node_conditions)");
    /* a relist of the same objects replaces, never appends */
    watch_k8s_free(r.w);
    struct watch_k8s_options o;
    memset(&o, 0, sizeof o);
    o.api_url = r.f->srv.base;
    assert_int_equal(watch_k8s_new(&o, r.s, &r.lock, &r.w), ERR_OK);
    assert_int_not_equal(watch_k8s_sync_once(r.w), ERR_OK);
    assert_int_equal(count(r.f, r.f->lists, R_NODES), 4);
    assert_int_equal(fk_db_int(r.db, "SELECT (SELECT count(*) FROM nodes) + "
                                     "(SELECT count(*) FROM node_conditions)"),
                     rows);
    assert_int_equal(fk_db_int(r.db, "PRAGMA page_count"), pages);
    rig_stop(&r);
}

int main(void) {
    log_set_level(LOG_OFF);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frozen_continue_token),
        cmocka_unit_test(test_storms_stay_in_budget),
    };
    return cmocka_run_group_tests_name("watch_storm", tests, NULL, NULL);
}
