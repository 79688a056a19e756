/* store_gen — the process's write generation and the per-connection memo of
 * reads that only change when something is written (store_internal.h).
 *
 * The generation is bumped by the writer's WAL hook, which SQLite calls after a
 * commit has taken place and its write lock is released (sqlite3.h,
 * sqlite3_wal_hook): a reader that reads generation G before it queries sees at
 * least every commit counted in G, so a value it memoizes under G stays right
 * while the generation is still G. Registering a WAL hook replaces SQLite's
 * automatic checkpoint, so the hook checkpoints the way the default one does
 * (PASSIVE once the WAL holds 1000 frames). */
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "store/store_internal.h"

#define STORE_GEN_AUTOCHECKPOINT 1000

static _Atomic uint64_t generation = 1;
/* 1: a writer in WAL mode counts commits; 2: some writer is not counted (no
 * WAL), so memos are off for the life of the process; 0: no writer yet. */
static atomic_int tracking;

static int on_wal_commit(void *arg, sqlite3 *db, const char *name, int frames) {
    (void)arg;
    atomic_fetch_add(&generation, 1);
    if (frames >= STORE_GEN_AUTOCHECKPOINT)
        sqlite3_wal_checkpoint(db, name);
    return SQLITE_OK;
}

void store_gen_watch(sqlite3 *db, bool wal) {
    if (!wal) {
        atomic_store(&tracking, 2);
        return;
    }
    sqlite3_wal_hook(db, on_wal_commit, NULL);
    int expected = 0;
    atomic_compare_exchange_strong(&tracking, &expected, 1);
}

bool store_gen_current(struct store *s, uint64_t *gen) {
    /* inside a transaction a connection may see its own uncommitted writes, or
     * an older snapshot than the generation says: no memo there */
    if (atomic_load(&tracking) != 1 || !sqlite3_get_autocommit(store_db(s)))
        return false;
    *gen = atomic_load(&generation);
    return true;
}

bool store_memo_now(struct store_memo *m, uint64_t gen, int64_t *now) {
    if (!m->have_now || m->now_gen != gen)
        return false;
    *now = m->now;
    return true;
}

void store_memo_set_now(struct store_memo *m, uint64_t gen, int64_t now) {
    m->have_now = true;
    m->now_gen = gen;
    m->now = now;
}

bool store_memo_window(struct store_memo *m, uint64_t gen, int64_t from, int64_t to,
                       int64_t out[2]) {
    for (int i = 0; i < STORE_MEMO_WINDOWS; i++) {
        const struct store_memo_window *w = &m->win[i];
        if (w->gen == gen && w->from == from && w->to == to) {
            out[0] = w->v[0];
            out[1] = w->v[1];
            return true;
        }
    }
    return false;
}

void store_memo_set_window(struct store_memo *m, uint64_t gen, int64_t from, int64_t to,
                           const int64_t v[2]) {
    struct store_memo_window *w = &m->win[m->next];
    m->next = (m->next + 1) % STORE_MEMO_WINDOWS;
    w->gen = gen;
    w->from = from;
    w->to = to;
    w->v[0] = v[0];
    w->v[1] = v[1];
}
