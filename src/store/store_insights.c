/* store_insights — see store_insights.h. */
#include "store/store_insights.h"

#include <stdlib.h>

#include "base/xalloc.h"
#include "store/store_internal.h"

// clang-format off
static const char SQL_PUT[] =
    "INSERT INTO billing_insights(day, sku, region, description, group_description, amount, "
    " first_seen, last_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) "
    "ON CONFLICT(day, sku, region, description, group_description) DO UPDATE SET "
    " amount = excluded.amount, last_seen = max(last_seen, excluded.last_seen)";
static const char SQL_LOAD[] =
    "SELECT description, group_description, amount FROM billing_insights "
    "WHERE day >= ?1 AND day < ?2 ORDER BY day, sku, region, description, group_description";
// clang-format on

static const char *nn(const char *s) {
    return s ? s : "";
}

enum err store_insights_put(struct store *s, const struct do_insight *x, int64_t seen_at) {
    sqlite3_stmt *st;
    enum err rc = store_stmt(s, SQL_PUT, &st);
    if (rc != ERR_OK)
        return rc;
    sqlite3_bind_int64(st, 1, x->day);
    sqlite3_bind_text(st, 2, nn(x->sku), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, nn(x->region), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, nn(x->description), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, nn(x->group_description), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 6, x->amount);
    sqlite3_bind_int64(st, 7, seen_at);
    return store_exec_stmt(s, st);
}

/* One insight as an invoice item of product "insights" (no resource). */
static bool item_row(sqlite3_stmt *st, void *rec, void *arg) {
    (void)arg;
    struct reconcile_item *it = rec;
    it->product = xstrdup("insights");
    it->description = store_column_dup(st, 0);
    it->group_description = store_column_dup(st, 1);
    it->amount = sqlite3_column_int64(st, 2);
    return true;
}

enum err store_insights_load(struct store *s, int64_t from, int64_t to, struct reconcile_item **out,
                             size_t *n) {
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    enum err rc = store_stmt_window(s, SQL_LOAD, from, to, &st);
    if (rc != ERR_OK)
        return rc;
    size_t cnt;
    struct reconcile_item *v =
        store_rows(s, st, sizeof *v, item_row, NULL, &cnt, "insights load", &rc);
    if (rc != ERR_OK) {
        struct reconcile_input tmp = {.insights = v, .n_insights = cnt};
        reconcile_input_release(&tmp);
        return rc;
    }
    *out = v;
    *n = cnt;
    return ERR_OK;
}
