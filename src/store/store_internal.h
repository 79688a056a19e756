/* store_internal — shared by the store_*.c files only, never by other modules.
 *
 * Statements are prepared once per connection and cached by their SQL text's
 * address (so always pass a static string). store_stmt returns a reset statement
 * with cleared bindings (sqlite3_reset keeps bindings: sqlite3.h), ready to bind. */
#ifndef SPOTLEDGER_STORE_INTERNAL_H
#define SPOTLEDGER_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "store/store.h"

sqlite3 *store_db(struct store *s);
enum err store_stmt(struct store *s, const char *sql, sqlite3_stmt **out);
/* Steps a statement that returns no rows; resets it. ERR_DB (logged) on failure. */
enum err store_exec_stmt(struct store *s, sqlite3_stmt *st);
/* Maps a sqlite3 result code, logging the detail once with `what`. */
enum err store_fail(struct store *s, int rc, const char *what);

/* Binding helpers: NULL strings and 0 times (unknown) become SQL NULL. */
int store_bind_text(sqlite3_stmt *st, int idx, const char *v);
int store_bind_time(sqlite3_stmt *st, int idx, int64_t t);
/* Copies column text into out (truncated to cap-1, NUL-terminated; "" for NULL). */
void store_column_copy(sqlite3_stmt *st, int col, char *out, size_t cap);
/* Column text duplicated with xstrdup; NULL for SQL NULL. */
char *store_column_dup(sqlite3_stmt *st, int col);

/* Column as int64, or dflt for SQL NULL. */
int64_t store_col_or(sqlite3_stmt *st, int col, int64_t dflt);

/* Appends to a growable array: doubles cap (from 256) when n reaches it. */
#define STORE_GROW(arr, n, cap)                                                                    \
    do {                                                                                           \
        if ((n) == (cap)) {                                                                        \
            (cap) = (cap) ? (cap)*2 : 256;                                                         \
            (arr) = xrealloc((arr), (cap) * sizeof *(arr));                                        \
        }                                                                                          \
    } while (0)

/* A string arena for loaders that hand out many borrowed strings: one malloc
 * per 64 KiB, freed at once. Start with a NULL pointer. */
struct store_arena;
/* Copies column col's text into the arena; NULL for SQL NULL. */
const char *store_arena_col(struct store_arena **a, sqlite3_stmt *st, int col);
/* Copies s[0..n) plus a NUL into the arena. */
const char *store_arena_dup(struct store_arena **a, const char *s, size_t n);
void store_arena_free(struct store_arena *a);

#endif
