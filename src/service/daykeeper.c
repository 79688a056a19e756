/* daykeeper — closed days' partial sums kept off the request path (contract in
 * daykeeper.h). */
#define _GNU_SOURCE /* syscall(SYS_gettid): the thread's own nice value (Linux) */
#include "service/daykeeper.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "query/compose.h"
#include "service/app.h"
#include "store/store.h"
#include "store/store_export.h"
#include "store/store_partial.h"
#include "store/store_read.h"

/* Days computed per pass: on the 1M-task bench database a day is about 0.1 s of
 * CPU (docs/performance.md), so a pass stays well under a second. */
#define DAYKEEPER_DAYS_PER_PASS 8
/* Pause between passes while days are left: at least as long as the pass took
 * (the pass uses at most half of a CPU; while a year is being ingested every
 * new longest task moves every day's version, and the ingest comes first), and
 * when none is: a new day closes at most once a day; a late row moves a day's
 * version, and then the day is computed again on the next pass. */
#define DAYKEEPER_BUSY_MS 20L
#define DAYKEEPER_IDLE_MS 5000L
/* The thread's nice value: the request path and the ingest come first. */
#define DAYKEEPER_NICE 10
/* A day is computed once its change version has held this long: while a
 * cluster's rows about it keep coming (a backlog being ingested, the last
 * closed days of a live cluster) it would be replaced at once. */
#define DAYKEEPER_SETTLE_MS 10000
/* A backlog being ingested (a source clock running ahead of the wall clock:
 * more than twice the time since the last pass plus this slack, which covers
 * a poll interval's step) comes first: no day is computed in that pass. */
#define DAYKEEPER_CATCHUP_SLACK_S 600

struct daykeeper {
    struct app *app;
    char *db_path;
    pthread_t thread;
    bool started;
    int64_t last_now, last_mono; /* the source clock at the last pass, and when */
};

static int64_t day_of(int64_t t) {
    return t >= 0 ? t / STORE_DAY : -((-t + STORE_DAY - 1) / STORE_DAY);
}

/* One pass; true when it computed a full pass's days (more may be left). */
static bool keep_pass(struct daykeeper *k, struct store *db, struct compose_keeper *kp) {
    int64_t now = 0, first = 0;
    if (store_source_now(db, &now) != ERR_OK || now <= 0)
        now = (int64_t)time(NULL); /* no poll yet: the wall clock, as api_now */
    if (store_first_data_time(db, &first) != ERR_OK)
        return false; /* no data yet */
    int64_t mono = timeutil_mono_ms(), since_s = (mono - k->last_mono) / 1000;
    bool catching_up = k->last_mono && now - k->last_now > 2 * since_s + DAYKEEPER_CATCHUP_SLACK_S;
    k->last_now = now;
    k->last_mono = mono;
    if (catching_up)
        return false;
    struct compose_stats st;
    enum err rc = compose_keep_days(kp, db, k->app->writer, &k->app->writer_lock, &k->app->calc,
                                    day_of(first), day_of(now), now, DAYKEEPER_DAYS_PER_PASS, mono,
                                    DAYKEEPER_SETTLE_MS, &st);
    if (rc != ERR_OK) {
        log_msg(LOG_WARN, "daykeeper: cannot keep closed days: %s", err_str(rc));
        return false;
    }
    if (st.computed)
        log_msg(LOG_DEBUG, "daykeeper: %lld days, %lld stored, %lld computed, %lld kept",
                (long long)st.days, (long long)st.stored, (long long)st.computed,
                (long long)st.kept);
    return st.computed >= DAYKEEPER_DAYS_PER_PASS;
}

static void *keeper_main(void *arg) {
    struct daykeeper *k = arg;
    /* Linux: a thread's nice value is its own (setpriority(2), "Bugs"); not fatal */
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), DAYKEEPER_NICE) != 0)
        log_msg(LOG_DEBUG, "daykeeper: cannot lower the thread's priority");
    struct compose_keeper *kp = compose_keeper_new();
    struct store *db = NULL;
    uint64_t gen = 0;
    while (!app_stopping(k->app)) {
        if (!db && store_open(k->db_path, STORE_READER, &db, NULL) != ERR_OK)
            db = NULL;
        int64_t t0 = timeutil_mono_ms();
        bool more = db && keep_pass(k, db, kp);
        long took = (long)(timeutil_mono_ms() - t0);
        app_wait(k->app,
                 !more                      ? DAYKEEPER_IDLE_MS
                 : took > DAYKEEPER_BUSY_MS ? took
                                            : DAYKEEPER_BUSY_MS,
                 &gen);
    }
    store_free(db);
    compose_keeper_free(kp);
    return NULL;
}

enum err daykeeper_start(struct app *app, const char *db_path, struct daykeeper **out) {
    struct daykeeper *k = xcalloc(1, sizeof *k);
    k->app = app;
    k->db_path = xstrdup(db_path);
    if (pthread_create(&k->thread, NULL, keeper_main, k) != 0) {
        free(k->db_path);
        free(k);
        return ERR_NOMEM;
    }
    k->started = true;
    *out = k;
    return ERR_OK;
}

void daykeeper_stop(struct daykeeper *k) {
    if (!k)
        return;
    app_stop(k->app);
    if (k->started)
        pthread_join(k->thread, NULL);
    free(k->db_path);
    free(k);
}
