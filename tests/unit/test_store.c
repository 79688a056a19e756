/* store: migrations on an empty and an already-migrated database, readers,
 * transactions, poll runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "base/log.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "testdb.h"
#include "tmpdb.h"

static int setup(void **state) {
    struct testdb *f = calloc(1, sizeof *f);
    assert_non_null(f);
    testdb_mkdir(f); /* start from no file at all */
    log_set_level(LOG_OFF);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    testdb_remove(*state);
    free(*state);
    return 0;
}

static void test_migrate_empty_then_again(void **state) {
    struct testdb *f = *state;
    struct store *s = NULL;
    int migrated = -1, v = -1;
    assert_int_equal(store_open(f->path, STORE_WRITER, &s, &migrated), ERR_OK);
    assert_true(migrated >= 1);
    assert_int_equal(store_schema_version(s, &v), ERR_OK);
    assert_int_equal(v, store_latest_version());
    store_free(s);
    /* second start migrates nothing */
    assert_int_equal(store_open(f->path, STORE_WRITER, &s, &migrated), ERR_OK);
    assert_int_equal(migrated, 0);
    bool ok = false;
    assert_int_equal(store_integrity_ok(s, &ok), ERR_OK);
    assert_true(ok);
    /* WAL is on */
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(store_db(s), "PRAGMA journal_mode", -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    store_free(s);
}

static void test_newer_schema_refused(void **state) {
    struct testdb *f = *state;
    struct store *s = NULL;
    assert_int_equal(store_open(f->path, STORE_WRITER, &s, NULL), ERR_OK);
    assert_int_equal(sqlite3_exec(store_db(s), "PRAGMA user_version = 9999", NULL, NULL, NULL),
                     SQLITE_OK);
    store_free(s);
    s = NULL;
    assert_int_equal(store_open(f->path, STORE_WRITER, &s, NULL), ERR_DB);
    assert_null(s);
}

static void test_reader_is_read_only(void **state) {
    struct testdb *f = *state;
    struct store *w = NULL, *r = NULL;
    assert_int_equal(store_open(f->path, STORE_READER, &r, NULL), ERR_DB); /* no file yet */
    assert_int_equal(store_open(f->path, STORE_WRITER, &w, NULL), ERR_OK);
    assert_int_equal(store_open(f->path, STORE_READER, &r, NULL), ERR_OK);
    assert_int_not_equal(sqlite3_exec(store_db(r), "INSERT INTO watch_state(resource) VALUES ('x')",
                                      NULL, NULL, NULL),
                         SQLITE_OK);
    store_free(r);
    store_free(w);
}

static void test_poll_runs_and_rollback(void **state) {
    struct testdb *f = *state;
    struct store *s = NULL;
    struct store_poll p;
    int64_t id = 0;
    assert_int_equal(store_open(f->path, STORE_WRITER, &s, NULL), ERR_OK);
    assert_int_equal(store_poll_last(s, "do", false, &p), ERR_NOTFOUND);
    assert_int_equal(store_poll_begin(s, "do", 1000, &id), ERR_OK);
    assert_int_equal(store_poll_last(s, "do", false, &p), ERR_NOTFOUND); /* still running */
    assert_int_equal(store_poll_end(s, id, 1005, 2000, NULL, 3, 40), ERR_OK);
    assert_int_equal(store_poll_begin(s, "do", 1100, &id), ERR_OK);
    assert_int_equal(store_poll_end(s, id, 1101, 0, "http error: 500", 4, 0), ERR_OK);
    assert_int_equal(store_poll_last(s, "do", false, &p), ERR_OK);
    assert_string_equal(p.status, "error");
    assert_string_equal(p.error, "http error: 500");
    assert_int_equal(store_poll_last(s, "do", true, &p), ERR_OK);
    assert_string_equal(p.status, "ok");
    assert_int_equal(p.finished_at, 1005);
    assert_int_equal(p.source_time, 2000);
    assert_int_equal(p.items, 40);
    /* a rolled-back transaction leaves nothing */
    assert_int_equal(store_begin(s), ERR_OK);
    assert_int_equal(store_poll_begin(s, "k8s", 5, &id), ERR_OK);
    store_rollback(s);
    assert_int_equal(store_poll_begin(s, "k8s", 6, &id), ERR_OK);
    assert_int_equal(store_poll_end(s, id, 7, 0, NULL, 1, 1), ERR_OK);
    assert_int_equal(store_poll_last(s, "k8s", false, &p), ERR_OK);
    assert_int_equal(p.started_at, 6);
    store_rollback(s); /* harmless outside a transaction */
    store_free(s);
}

static unsigned mode_of(const char *path) {
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (unsigned)(st.st_mode & 0777);
}

/* issue 18: the database and its WAL are finance data: 0640 under umask 022
 * (SQLite alone makes them 0644), 0600 under umask 077 */
static void test_file_modes(void **state) {
    struct testdb *f = *state;
    mode_t old = umask(022);
    struct store *s = NULL;
    assert_int_equal(store_open(f->path, STORE_WRITER, &s, NULL), ERR_OK);
    char wal[sizeof f->path + 4];
    snprintf(wal, sizeof wal, "%s-wal", f->path);
    assert_int_equal(mode_of(f->path), 0640);
    assert_int_equal(mode_of(wal), 0640);
    store_free(s);
    tmpdb_unlink(f->path);
    umask(077);
    assert_int_equal(store_open(f->path, STORE_WRITER, &s, NULL), ERR_OK);
    assert_int_equal(mode_of(f->path), 0600);
    assert_int_equal(mode_of(wal), 0600);
    store_free(s);
    umask(old);
}

static void test_busy_writer(void **state) {
    struct testdb *f = *state;
    struct store *a = NULL, *b = NULL;
    assert_int_equal(store_open(f->path, STORE_WRITER, &a, NULL), ERR_OK);
    assert_int_equal(store_open(f->path, STORE_WRITER, &b, NULL), ERR_OK);
    sqlite3_busy_timeout(store_db(b), 50);
    assert_int_equal(store_begin(a), ERR_OK);
    assert_int_equal(store_begin(b), ERR_BUSY);
    assert_int_equal(store_commit(a), ERR_OK);
    assert_int_equal(store_begin(b), ERR_OK);
    assert_int_equal(store_commit(b), ERR_OK);
    store_free(b);
    store_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_migrate_empty_then_again, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reader_is_read_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_poll_runs_and_rollback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_busy_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_modes, setup, teardown),
    };
    return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
