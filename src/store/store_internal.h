/* store_internal — shared by the store_*.c files only, never by other modules.
 *
 * Statements are prepared once per connection and cached by their SQL text's
 * address (so always pass a static string). store_stmt returns a reset statement
 * with cleared bindings (sqlite3_reset keeps bindings: sqlite3.h), ready to bind. */
#ifndef SPOTLEDGER_STORE_INTERNAL_H
#define SPOTLEDGER_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "store/store.h"

sqlite3 *store_db(struct store *s);

/* --- write generation and read memo (store_gen.c) ---------------------------
 * The generation counts the commits of this process's writer, bumped after each
 * commit is visible to readers. The store has one writer connection, in the
 * service's own process (store.h); a value read under generation G is still right
 * while the generation is G. Nothing is tracked (store_gen_current is false) until
 * a writer in WAL mode is open, and never again once a writer is not in WAL mode;
 * nor for a connection inside a transaction (it may see its own uncommitted
 * writes, or an older snapshot). */
void store_gen_watch(sqlite3 *db, bool wal); /* the writer, once open */
bool store_gen_current(struct store *s, uint64_t *gen);

#define STORE_MEMO_WINDOWS 8
struct store_memo_window {
    uint64_t gen; /* 0: empty */
    int64_t from, to, v[2];
};
/* Per connection: the source clock and the latest window versions. */
struct store_memo {
    bool have_now;
    uint64_t now_gen;
    int64_t now;
    struct store_memo_window win[STORE_MEMO_WINDOWS];
    int next;
};
struct store_memo *store_memo(struct store *s);
bool store_memo_now(struct store_memo *m, uint64_t gen, int64_t *now);
void store_memo_set_now(struct store_memo *m, uint64_t gen, int64_t now);
bool store_memo_window(struct store_memo *m, uint64_t gen, int64_t from, int64_t to,
                       int64_t out[2]);
void store_memo_set_window(struct store_memo *m, uint64_t gen, int64_t from, int64_t to,
                           const int64_t v[2]);
/* A statement that names the parameter :cluster comes back with the cluster of
 * the writes (store_set_cluster) bound to it, one naming :clusters with the
 * clusters of the reads (store_set_read_clusters; NULL = all). */
#define STORE_IN_CLUSTERS(col) "(:clusters IS NULL OR instr(:clusters, ',' || " col " || ',') > 0)"

enum err store_stmt(struct store *s, const char *sql, sqlite3_stmt **out);
/* Steps a statement that returns no rows; resets it. ERR_DB (logged) on failure. */
enum err store_exec_stmt(struct store *s, sqlite3_stmt *st);
/* Maps a sqlite3 result code, logging the detail once with `what`. */
enum err store_fail(struct store *s, int rc, const char *what);

/* Binding helpers: NULL strings and 0 times (unknown) become SQL NULL. */
int store_bind_text(sqlite3_stmt *st, int idx, const char *v);
int store_bind_time(sqlite3_stmt *st, int idx, int64_t t);
/* A count or limit: negative (absent) becomes SQL NULL. */
int store_bind_opt_int(sqlite3_stmt *st, int idx, int64_t v);
/* Copies column text into out (truncated to cap-1, NUL-terminated; "" for NULL). */
void store_column_copy(sqlite3_stmt *st, int col, char *out, size_t cap);
/* Column text duplicated with xstrdup; NULL for SQL NULL. */
char *store_column_dup(sqlite3_stmt *st, int col);

/* Column as int64, or dflt for SQL NULL. */
int64_t store_col_or(sqlite3_stmt *st, int col, int64_t dflt);

/* store_stmt with ?1 = from and ?2 = to bound (a window's, or any two bounds). */
enum err store_stmt_window(struct store *s, const char *sql, int64_t from, int64_t to,
                           sqlite3_stmt **out);

/* A lookup by one text parameter ?1 = key: ERR_OK with *st on its first row
 * (read it, then sqlite3_reset), ERR_NOTFOUND when it returns none, else
 * store_fail(what); *st is reset unless ERR_OK. */
enum err store_lookup(struct store *s, const char *sql, const char *key, const char *what,
                      sqlite3_stmt **st);
/* Whether a query taking one text parameter ?1 = key returns a row (*out). A
 * failed step: store_fail(what). */
enum err store_exists(struct store *s, const char *sql, const char *key, const char *what,
                      bool *out);

/* Fills the record rec (zeroed) from st's current row; false drops the row. */
typedef bool store_row_fn(sqlite3_stmt *st, void *rec, void *arg);
/* Steps st (prepared and bound) to its end and returns a new array of its rows
 * as records of elem bytes, *n of them (NULL when none); resets st. *rc: ERR_OK,
 * or store_fail(what) on a failed step (the array, the rows read, is the
 * caller's also then). Not for the hot window loaders (docs/performance.md):
 * one call per row. */
void *store_rows(struct store *s, sqlite3_stmt *st, size_t elem, store_row_fn *row, void *arg,
                 size_t *n, const char *what, enum err *rc);

/* As store_rows, into the caller's array out of max records (rows past them are
 * not kept): ERR_OK with *n records filled, or store_fail(what) (*n untouched). */
enum err store_rows_into(struct store *s, sqlite3_stmt *st, void *out, size_t elem, size_t max,
                         store_row_fn *row, void *arg, size_t *n, const char *what);

/* A query without parameters that returns one row: *out = its first column, or dflt
 * for SQL NULL. No row or a failed step: store_fail(what). */
enum err store_one_int(struct store *s, const char *sql, int64_t dflt, const char *what,
                       int64_t *out);

/* A string arena for loaders that hand out many borrowed strings: one malloc
 * per 64 KiB, freed at once. Start with a NULL pointer. */
struct store_arena;
/* Copies column col's text into the arena; NULL for SQL NULL. */
const char *store_arena_col(struct store_arena **a, sqlite3_stmt *st, int col);
/* Copies s[0..n) plus a NUL into the arena. */
const char *store_arena_dup(struct store_arena **a, const char *s, size_t n);
void store_arena_free(struct store_arena *a);

#endif
