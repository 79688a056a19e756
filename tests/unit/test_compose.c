/* test_compose — query/compose through the store: a window composed from its
 * days' partial sums (stored in cost_partials or computed from each day's rows
 * alone) equals calc_run over the whole window, every figure of the summary,
 * pools, nodes and reclaims bodies byte for byte; stored days are read back on
 * the next request; a late row about a stored day makes that day be computed
 * again (and the answer follows the new row); the per-day change versions are
 * store_window_version's.
 *
 * Rows: partial_world.h's random clusters (seeded), written with plain SQL.
 * The expected side is calc_run, the service's direct path (its figures are
 * checked by test_cost, test_stability, test_oracle); this test proves the
 * composition through the store loses nothing. COMPOSE_SEEDS=k (default 6). */
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

#include "base/buf.h"
#include "base/log.h"
#include "engine/cost.h"
#include "query/calc.h"
#include "query/compose.h"
#include "query/report.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "store/store_partial.h"
#include "store/store_read.h"

#include "partial_world.h"
#include "tmpdb.h"

static const char *PHASE[] = {"Unknown", "Pending", "Running", "Succeeded", "Failed"};
static const char *OUTCOME[] = {"running", "succeeded", "failed"};

static void bind_time(sqlite3_stmt *st, int i, int64_t t) {
    if (t)
        sqlite3_bind_int64(st, i, t);
    else
        sqlite3_bind_null(st, i);
}

static void step(sqlite3 *db, sqlite3_stmt *st) {
    if (sqlite3_step(st) != SQLITE_DONE)
        fail_msg("insert: %s", sqlite3_errmsg(db));
    sqlite3_reset(st);
}

static sqlite3_stmt *prep(sqlite3 *db, const char *sql) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    return st;
}

static void put_attempt(sqlite3 *db, const struct world *w, const struct cost_attempt *a) {
    sqlite3_stmt *st = prep(
        db, "INSERT INTO attempts(uid, task_uid, namespace, name, node_name, gpu_request,"
            " cpu_request_milli, created_at, scheduled_at, started_at, finished_at, deleted_at,"
            " delete_requested_at, phase, reason, disruption_at, not_ready_at, report_work_seconds,"
            " report_restore_seconds, report_checkpoint_seconds, terminal_seen_at, first_seen,"
            " last_seen) VALUES (?1, ?2, 'ns', ?1, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
            " ?14, ?15, ?16, ?17, ?18, ?19, 1, 1)");
    sqlite3_bind_text(st, 1, a->uid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, w->tasks[a->task].uid, -1, SQLITE_STATIC);
    if (a->node >= 0)
        sqlite3_bind_text(st, 3, w->nodes[a->node].name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, a->gpu_request);
    sqlite3_bind_int64(st, 5, a->cpu_request_milli);
    bind_time(st, 6, a->created_at);
    bind_time(st, 7, a->scheduled_at);
    bind_time(st, 8, a->started_at);
    bind_time(st, 9, a->finished_at);
    bind_time(st, 10, a->deleted_at);
    bind_time(st, 11, a->delete_requested_at);
    sqlite3_bind_text(st, 12, PHASE[a->phase], -1, SQLITE_STATIC);
    if (a->reason)
        sqlite3_bind_text(st, 13, a->reason, -1, SQLITE_STATIC);
    bind_time(st, 14, a->disruption_at);
    bind_time(st, 15, a->not_ready_at);
    int64_t rep[3] = {a->work_seconds, a->restore_seconds, a->checkpoint_seconds};
    for (int k = 0; k < 3; k++)
        if (rep[k] >= 0)
            sqlite3_bind_int64(st, 16 + k, rep[k]);
    bind_time(st, 19, a->terminal_at);
    step(db, st);
    sqlite3_finalize(st);
}

static void put_world(struct store *s, const struct world *w) {
    sqlite3 *db = store_db(s);
    assert_int_equal(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_stmt *st = prep(db, "INSERT INTO node_pools(id, name, size, capacity_type,"
                                " price_hourly_micro, first_seen, last_seen, deleted_at)"
                                " VALUES (?1, ?1, ?2, ?3, ?4, 1, 1, ?5)");
    for (size_t p = 0; p < w->in.n_pools; p++) {
        const struct cost_pool *pl = &w->pools[p];
        sqlite3_bind_text(st, 1, pl->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, pl->size, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, pl->capacity == COST_CAP_SPOT ? "spot" : "on-demand", -1,
                          SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, pl->price_hourly);
        bind_time(st, 5, pl->deleted_at);
        step(db, st);
    }
    sqlite3_finalize(st);
    st = prep(db, "INSERT INTO nodes(name, pool_id, price_hourly_micro, created_at, ready_at,"
                  " k8s_deleted_at, do_deleted_at, not_ready_at, cordoned_at, gpu_allocatable,"
                  " cpu_allocatable_milli, first_seen, last_seen)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 1, 1)");
    sqlite3_stmt *cond = prep(db, "INSERT INTO node_conditions(node_name, status, at, origin,"
                                  " first_seen) VALUES (?1, ?2, ?3, 'condition', 1)");
    for (size_t i = 0; i < w->in.n_nodes; i++) {
        const struct cost_node *n = &w->nodes[i];
        sqlite3_bind_text(st, 1, n->name, -1, SQLITE_STATIC);
        if (n->pool >= 0)
            sqlite3_bind_text(st, 2, w->pools[n->pool].id, -1, SQLITE_STATIC);
        if (n->price_hourly)
            sqlite3_bind_int64(st, 3, n->price_hourly);
        bind_time(st, 4, n->created_at);
        bind_time(st, 5, n->ready_at);
        bind_time(st, 6, n->k8s_deleted_at);
        bind_time(st, 7, n->do_deleted_at);
        bind_time(st, 8, n->not_ready_at);
        bind_time(st, 9, n->cordoned_at);
        sqlite3_bind_int64(st, 10, n->gpu_allocatable);
        if (n->cpu_allocatable_milli)
            sqlite3_bind_int64(st, 11, n->cpu_allocatable_milli);
        step(db, st);
        for (size_t k = 0; k < n->n_spells; k++) {
            sqlite3_bind_text(cond, 1, n->name, -1, SQLITE_STATIC);
            sqlite3_bind_text(cond, 2, "False", -1, SQLITE_STATIC);
            sqlite3_bind_int64(cond, 3, n->spells[2 * k]);
            step(db, cond);
            if (n->spells[2 * k + 1]) {
                sqlite3_bind_text(cond, 1, n->name, -1, SQLITE_STATIC);
                sqlite3_bind_text(cond, 2, "True", -1, SQLITE_STATIC);
                sqlite3_bind_int64(cond, 3, n->spells[2 * k + 1]);
                step(db, cond);
            }
        }
    }
    sqlite3_finalize(st);
    sqlite3_finalize(cond);
    st = prep(db, "INSERT OR IGNORE INTO sizes(slug, gpu_count, first_seen, last_seen)"
                  " VALUES (?1, ?2, 1, 1)");
    sqlite3_stmt *pr = prep(db, "INSERT INTO size_prices(slug, observed_at, price_hourly_micro,"
                                " price_monthly_micro) VALUES (?1, ?2, ?3, 0)");
    for (size_t k = 0; k < w->in.n_prices; k++) {
        const struct cost_price *p = &w->prices[k];
        sqlite3_bind_text(st, 1, p->size, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, p->gpus);
        step(db, st);
        sqlite3_bind_text(pr, 1, p->size, -1, SQLITE_STATIC);
        sqlite3_bind_int64(pr, 2, p->at);
        sqlite3_bind_int64(pr, 3, p->price_hourly);
        step(db, pr);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(pr);
    st = prep(db, "INSERT INTO tasks(uid, job_uid, namespace, name, configuration, experiment,"
                  " created_at, completed_at, outcome, completions, first_seen, last_seen)"
                  " VALUES (?1, ?1, ?2, ?1, ?3, ?4, ?5, ?6, ?7, ?8, 1, 1)");
    for (size_t t = 0; t < w->in.n_tasks; t++) {
        const struct cost_task *task = &w->tasks[t];
        sqlite3_bind_text(st, 1, task->uid, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, task->ns, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, cost_config_name(task->config), -1, SQLITE_STATIC);
        if (task->experiment)
            sqlite3_bind_text(st, 4, task->experiment, -1, SQLITE_STATIC);
        bind_time(st, 5, T0 - DAY);
        bind_time(st, 6, task->completed_at);
        sqlite3_bind_text(st, 7, OUTCOME[task->outcome], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 8, task->completions);
        step(db, st);
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < w->in.n_attempts; i++)
        put_attempt(db, w, &w->attempts[i]);
    assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
}

/* A new store at a fresh name made from path's template. */
static struct store *open_temp(char *path) {
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    struct store *s = NULL;
    assert_int_equal(store_open(path, STORE_WRITER, &s, NULL), ERR_OK);
    return s;
}

/* Direct and composed (compose_run, or compose_stored when `stored`); returns the
 * compose stats (days -1: not composable). */
static struct compose_stats check_mode(struct store *s, uint64_t seed, const struct cost_query *q,
                                       bool stored) {
    struct calc direct, comp;
    struct buf want, got;
    buf_init(&want, 0);
    buf_init(&got, 0);
    assert_int_equal(calc_run(s, NULL, q->from, q->to, q, &direct), ERR_OK);
    render(direct.res, &want);
    struct compose_stats st;
    enum err rc = stored ? compose_stored(s, NULL, q, &comp, &st)
                         : compose_run(s, s, NULL, NULL, q, &comp, &st);
    if (rc == ERR_NOTFOUND) {
        st.days = -1;
    } else {
        assert_int_equal(rc, ERR_OK);
        render(comp.res, &got);
        if (strcmp(want.data, got.data) != 0) {
            size_t at = 0;
            while (want.data[at] == got.data[at])
                at++;
            size_t from = at > 300 ? at - 300 : 0;
            fprintf(stderr,
                    "seed %llu window [%lld, %lld) differs at byte %zu\nwant ...%.400s\ngot  "
                    "...%.400s\n",
                    (unsigned long long)seed, (long long)(q->from - T0), (long long)(q->to - T0),
                    at, want.data + from, got.data + from);
            fail();
        }
        calc_release(&comp);
    }
    calc_release(&direct);
    buf_release(&want);
    buf_release(&got);
    return st;
}

static struct compose_stats check(struct store *s, uint64_t seed, const struct cost_query *q) {
    return check_mode(s, seed, q, false);
}

static void test_composed_equals_calc_run(void **state) {
    (void)state;
    const char *ns = getenv("COMPOSE_SEEDS");
    uint64_t n = ns ? strtoull(ns, NULL, 10) : 6;
    struct world *w = malloc(sizeof *w);
    assert_non_null(w);
    int composed = 0, reread = 0, recomputed = 0;
    for (uint64_t seed = 1; seed <= n; seed++) {
        char path[] = "/tmp/test_compose_XXXXXX";
        struct store *s = open_temp(path);
        make_world(w, seed);
        w->pools[2].signal_at = 0; /* no reclaims row: the store knows no pool signal */
        put_world(s, w);
        /* the per-day versions are store_window_version's, day by day */
        int64_t v[9][2];
        int64_t d0 = T0 / DAY - 1;
        assert_int_equal(store_day_versions(s, d0, d0 + 9, v), ERR_OK);
        for (int i = 0; i < 9; i++) {
            int64_t one[2];
            assert_int_equal(store_window_version(s, (d0 + i) * DAY, (d0 + i + 1) * DAY, one),
                             ERR_OK);
            assert_int_equal(v[i][0], one[0]);
            assert_int_equal(v[i][1], one[1]);
        }
        for (int k = 0; k < 6; k++) {
            struct cost_query q = {0};
            q.from = k % 2 ? T0 + rr(-DAY, 2 * DAY) : T0 + rr(-1, 2) * DAY;
            q.to = q.from + rr(3, 5) * DAY + (k % 2 ? rr(0, DAY) : 0);
            q.now = T0 + 7 * DAY < q.to ? T0 + 7 * DAY : q.to; /* as the API clamps it */
            q.configs = k == 5 ? 1u << COST_FALLBACK : 0;
            struct compose_stats a = check(s, seed, &q);
            if (a.days < 0)
                continue;
            composed++;
            /* again: every day kept the first time is read back */
            struct compose_stats b = check(s, seed, &q);
            assert_true(b.days >= 0);
            assert_true(b.stored >= a.kept);
            reread += b.stored > 0;
            if (a.kept == 0 || k != 2)
                continue;
            /* a late attempt on the window's second day: that day is computed
             * again, and the answer is calc_run's with the new row */
            struct cost_attempt late = w->attempts[0];
            late.uid = "late-pod";
            late.node = 0;
            late.created_at = late.scheduled_at = late.started_at = (q.from / DAY + 2) * DAY + H;
            late.finished_at = late.started_at + 600;
            late.deleted_at = late.terminal_at = 0;
            late.phase = COST_PHASE_FAILED;
            put_attempt(store_db(s), w, &late);
            struct compose_stats c = check(s, seed, &q);
            if (c.days >= 0) {
                assert_true(c.computed > b.computed); /* the late row's day, at least */
                recomputed++;
            }
        }
        if (seed == 1) { /* four weeks before the data, no day kept yet: two batches */
            struct cost_query q = {.from = T0 - 30 * DAY, .to = T0 - 2 * DAY, .now = T0 + 7 * DAY};
            struct compose_stats a = check(s, seed, &q);
            struct compose_stats b = check(s, seed, &q);
            assert_int_equal(a.days, 28);
            assert_int_equal(a.kept, 28);
            assert_int_equal(b.stored, 28);
        }
        store_free(s);
        tmpdb_unlink(path);
    }
    printf("test_compose: %d windows composed equal to calc_run, %d read back stored days, "
           "%d recomputed a day after a late row\n",
           composed, reread, recomputed);
    assert_true(composed >= (int)n * 3);
    assert_true(reread >= (int)n * 2);
    assert_true(recomputed >= 1);
    free(w);
}

/* Every task finished and every attempt ended (the days after the data are
 * closed only then: a running task or an open attempt keeps its days open). */
static void close_world(struct world *w) {
    for (size_t i = 0; i < w->in.n_attempts; i++) {
        struct cost_attempt *a = &w->attempts[i];
        if (!a->finished_at && !a->deleted_at) {
            a->finished_at = (a->started_at     ? a->started_at
                              : a->scheduled_at ? a->scheduled_at
                                                : a->created_at) +
                             600;
            a->phase = COST_PHASE_SUCCEEDED;
        }
    }
    for (size_t t = 0; t < w->in.n_tasks; t++) {
        struct cost_task *task = &w->tasks[t];
        if (task->outcome != COST_TASK_RUNNING)
            continue;
        task->outcome = COST_TASK_SUCCEEDED;
        for (size_t i = 0; i < w->in.n_attempts; i++) {
            const struct cost_attempt *a = &w->attempts[i];
            int64_t end = a->finished_at > a->deleted_at ? a->finished_at : a->deleted_at;
            if ((size_t)a->task == t && end > task->completed_at)
                task->completed_at = end;
        }
    }
}

/* The background pass and the request path (docs/performance.md "Kept off the
 * request path"): compose_keep_days keeps closed days a few per pass, newest
 * first; compose_stored reads the kept days, captures each run of the others in
 * one load, and equals calc_run byte for byte with none, some or all days kept;
 * with none kept it declines (ERR_NOTFOUND: the caller computes directly); a
 * day found not closed is not computed again at the same version; a late row
 * makes the next pass compute its day again. */
static void test_kept_off_the_request_path(void **state) {
    (void)state;
    const char *ns = getenv("COMPOSE_SEEDS");
    uint64_t n = ns ? strtoull(ns, NULL, 10) : 6;
    struct world *w = malloc(sizeof *w);
    assert_non_null(w);
    int mixed = 0, all = 0, declined = 0, again = 0;
    for (uint64_t seed = 1; seed <= n; seed++) {
        char path[] = "/tmp/test_compose_XXXXXX";
        struct store *s = open_temp(path);
        make_world(w, seed);
        w->pools[2].signal_at = 0;
        if (seed % 2) /* odd seeds: every day after the data closed */
            close_world(w);
        put_world(s, w);
        int64_t now = T0 + 7 * DAY, d0 = T0 / DAY - 2, d1 = T0 / DAY + 8;
        struct cost_query q = {
            .from = T0 - DAY + rr(0, DAY), .to = T0 + 6 * DAY + rr(0, DAY), .now = now};
        /* nothing kept: declined */
        struct compose_stats st = check_mode(s, seed, &q, true);
        assert_int_equal(st.days, -1);
        declined++;
        /* passes of 2 days, newest first, until none is left; after each, the
         * request path equals calc_run with what is kept so far */
        struct compose_keeper *kp = compose_keeper_new();
        struct compose_stats p;
        int64_t kept_so_far = 0;
        /* a day's version must have held settle_ms (1 s here) before it is computed */
        assert_int_equal(compose_keep_days(kp, s, s, NULL, NULL, d0, d1, now, 2, 5000, 1000, &p),
                         ERR_OK);
        assert_int_equal(p.computed, 0);
        assert_int_equal(compose_keep_days(kp, s, s, NULL, NULL, d0, d1, now, 2, 5999, 1000, &p),
                         ERR_OK);
        assert_int_equal(p.computed, 0);
        for (int k = 0; k < 12; k++) {
            assert_int_equal(compose_keep_days(kp, s, s, NULL, NULL, d0, d1, now, 2, 7000, 0, &p),
                             ERR_OK);
            assert_int_equal(p.days, 9); /* d1 is cut to now's day */
            assert_int_equal(p.stored, kept_so_far);
            assert_true(p.computed <= 2);
            kept_so_far += p.kept;
            st = check_mode(s, seed, &q, true);
            if (st.days < 0) {
                declined++;
            } else {
                assert_int_equal(st.stored + st.computed, st.days);
                mixed += st.stored > 0 && st.computed > 0;
            }
            if (p.computed < 2)
                break;
        }
        assert_int_equal(compose_keep_days(kp, s, s, NULL, NULL, d0, d1, now, 2, 7000, 0, &p),
                         ERR_OK);
        assert_int_equal(p.computed, 0); /* not-closed days are not computed again */
        int64_t kept = p.stored;
        assert_true(kept >= 1);
        st = check_mode(s, seed, &q, true);
        if (st.days < 0) { /* no day of the window closed (a task runs through it) */
            assert_true(seed % 2 == 0);
            declined++;
            compose_keeper_free(kp);
            store_free(s);
            tmpdb_unlink(path);
            continue;
        }
        assert_int_equal(st.stored + st.computed, st.days);
        all += st.computed == 0;
        /* a late row on a kept day: the next pass computes that day again */
        struct cost_attempt late = w->attempts[0];
        late.uid = "late-pod";
        late.node = 0;
        late.created_at = late.scheduled_at = late.started_at = T0 + 2 * DAY + H;
        late.finished_at = late.started_at + 600;
        late.deleted_at = late.terminal_at = 0;
        late.phase = COST_PHASE_FAILED;
        put_attempt(store_db(s), w, &late);
        st = check_mode(s, seed, &q, true); /* declined when no kept day is valid */
        assert_true(st.days < 0 || st.computed >= 1);
        assert_int_equal(compose_keep_days(kp, s, s, NULL, NULL, d0, d1, now, 20, 7000, 0, &p),
                         ERR_OK);
        assert_true(p.stored < kept);
        assert_true(p.computed >= 1);
        again++;
        st = check_mode(s, seed, &q, true);
        assert_true(st.days >= 0);
        compose_keeper_free(kp);
        store_free(s);
        tmpdb_unlink(path);
    }
    printf("test_compose: request path: %d declined with no day kept, %d mixed kept and "
           "captured days, %d all days kept, %d late rows computed again\n",
           declined, mixed, all, again);
    assert_true(mixed >= 1);
    assert_true(all >= 1);
    free(w);
}

int main(void) {
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_composed_equals_calc_run),
        cmocka_unit_test(test_kept_off_the_request_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
