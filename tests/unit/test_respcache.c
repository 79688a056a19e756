/* respcache and the change marks behind it: a closed window's response is reused
 * until a fact it depends on changes; a no-op re-upsert (what pollers do all the
 * time) changes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "base/log.h"
#include "query/respcache.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "store/store_read.h"
#include "tmpdb.h"

static void test_cache(void **state) {
    (void)state;
    struct respcache c;
    respcache_init(&c);
    int64_t v1[2] = {10, 3}, v2[2] = {11, 3};
    struct buf b;
    buf_init(&b, 0);
    assert_false(respcache_get(&c, "k", v1, &b));
    respcache_put(&c, "k", v1, "{\"a\":1}", 7);
    assert_true(respcache_get(&c, "k", v1, &b));
    assert_string_equal(buf_str(&b), "{\"a\":1}");
    buf_reset(&b);
    assert_false(respcache_get(&c, "k", v2, &b)); /* new data: stale */
    assert_int_equal(b.len, 0);
    respcache_put(&c, "k", v2, "{\"a\":2}", 7); /* replaces */
    assert_int_equal(c.n, 1);
    /* bounded: the least recently used goes */
    char key[32];
    for (int i = 0; i < RESPCACHE_MAX + 10; i++) {
        snprintf(key, sizeof key, "k%d", i);
        respcache_put(&c, key, v1, "x", 1);
    }
    assert_int_equal(c.n, RESPCACHE_MAX);
    assert_false(respcache_get(&c, "k0", v1, &b));
    snprintf(key, sizeof key, "k%d", RESPCACHE_MAX + 9);
    assert_true(respcache_get(&c, key, v1, &b));
    buf_release(&b);
    respcache_release(&c);
}

static int64_t day(int64_t d) {
    return d * 86400;
}

static void exec_ok(struct store *s, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(store_db(s), sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("%s: %s", sql, err);
}

static void test_window_version(void **state) {
    (void)state;
    log_set_level(LOG_OFF);
    char path[] = "/tmp/spotledger-rc-XXXXXX";
    struct store *s = NULL;
    assert_int_equal(tmpdb_open(path, &s), 0);
    char sql[1024];
    /* an attempt on day 100, its task completing the same day */
    snprintf(
        sql, sizeof sql,
        "INSERT INTO tasks(uid, job_uid, namespace, name, created_at, completed_at, outcome,"
        " first_seen, last_seen) VALUES ('t1','j1','ns','job',%lld,%lld,'succeeded',1,1);"
        "INSERT INTO attempts(uid, task_uid, namespace, name, scheduled_at, finished_at, "
        " phase, first_seen, last_seen) VALUES ('a1','t1','ns','pod',%lld,%lld,'Succeeded',1,1);",
        (long long)day(100), (long long)(day(100) + 3600), (long long)day(100),
        (long long)(day(100) + 3000));
    exec_ok(s, sql);
    int64_t v[2], w[2], far[2], far2[2];
    assert_int_equal(store_window_version(s, day(100), day(107), v), ERR_OK);
    assert_int_equal(store_window_version(s, day(300), day(307), far), ERR_OK);
    /* a no-op re-upsert (a relist) changes nothing */
    exec_ok(s, "UPDATE attempts SET last_seen = 99, phase = 'Succeeded' WHERE uid = 'a1'");
    exec_ok(s, "UPDATE tasks SET last_seen = 99 WHERE uid = 't1'");
    assert_int_equal(store_window_version(s, day(100), day(107), w), ERR_OK);
    assert_int_equal(w[0], v[0]);
    assert_int_equal(w[1], v[1]);
    /* a fact of the window changes: the version moves; a far window's does not */
    exec_ok(s, "UPDATE attempts SET finished_at = finished_at + 1 WHERE uid = 'a1'");
    assert_int_equal(store_window_version(s, day(100), day(107), w), ERR_OK);
    assert_true(w[0] != v[0] || w[1] != v[1]);
    assert_int_equal(store_window_version(s, day(300), day(307), far2), ERR_OK);
    assert_int_equal(far2[0], far[0]);
    /* a price (global fact) moves every window */
    exec_ok(s, "INSERT INTO size_prices(slug, observed_at, price_hourly_micro, "
               "price_monthly_micro) VALUES ('x', 1, 1, 1)");
    assert_int_equal(store_window_version(s, day(300), day(307), far2), ERR_OK);
    assert_true(far2[0] != far[0]);
    store_free(s);
    tmpdb_unlink(path);
}

static void add_poll(struct store *s, int64_t source_time) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "INSERT INTO poll_runs(source, started_at, finished_at, source_time, status, "
             "requests, items) VALUES ('do', 1, 1, %lld, 'ok', 1, 1)",
             (long long)source_time);
    exec_ok(s, sql);
}

/* The read memo (store_internal.h: the source clock and window versions are
 * reused while the writer's commit generation is unchanged): a reader connection
 * sees every commit of the writer at once, whether autocommit or a transaction,
 * and a value read inside a rolled-back transaction is never reused. */
static void test_read_memo(void **state) {
    (void)state;
    log_set_level(LOG_OFF);
    char path[] = "/tmp/spotledger-memo-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct store *w = NULL, *r = NULL;
    assert_int_equal(store_open(path, STORE_WRITER, &w, NULL), ERR_OK);
    assert_int_equal(store_open(path, STORE_READER, &r, NULL), ERR_OK);
    int64_t now = 0, v[2], v2[2];
    assert_int_equal(store_source_now(r, &now), ERR_NOTFOUND);
    assert_int_equal(store_source_now(r, &now), ERR_NOTFOUND); /* memoized "none" */
    add_poll(w, 1000);                                         /* autocommit */
    assert_int_equal(store_source_now(r, &now), ERR_OK);
    assert_int_equal(now, 1000);
    assert_int_equal(store_window_version(r, day(100), day(107), v), ERR_OK);
    assert_int_equal(store_window_version(r, day(100), day(107), v2), ERR_OK);
    assert_int_equal(v2[0], v[0]);
    /* a transaction of the writer: seen after its commit */
    assert_int_equal(store_begin(w), ERR_OK);
    add_poll(w, 2000);
    exec_ok(w, "INSERT INTO tasks(uid, job_uid, namespace, name, created_at, completed_at, "
               "outcome, first_seen, last_seen) VALUES ('t9','j9','ns','job',8640000,8643600,"
               "'succeeded',1,1)");
    assert_int_equal(store_source_now(r, &now), ERR_OK);
    assert_int_equal(now, 1000); /* not committed yet */
    assert_int_equal(store_commit(w), ERR_OK);
    assert_int_equal(store_source_now(r, &now), ERR_OK);
    assert_int_equal(now, 2000);
    assert_int_equal(store_window_version(r, day(100), day(107), v2), ERR_OK);
    assert_true(v2[0] != v[0]); /* the task's days were marked */
    /* the writer reads its own uncommitted row, then rolls back: not kept */
    assert_int_equal(store_begin(w), ERR_OK);
    add_poll(w, 3000);
    assert_int_equal(store_source_now(w, &now), ERR_OK);
    assert_int_equal(now, 3000);
    store_rollback(w);
    assert_int_equal(store_source_now(w, &now), ERR_OK);
    assert_int_equal(now, 2000);
    assert_int_equal(store_source_now(r, &now), ERR_OK);
    assert_int_equal(now, 2000);
    store_free(r);
    store_free(w);
    tmpdb_unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_window_version),
        cmocka_unit_test(test_read_memo),
    };
    return cmocka_run_group_tests_name("respcache", tests, NULL, NULL);
}
