/* exporter — the weekly CSV files on disk and the thread that writes them
 * (exporter.h); their content is query/export.c's. */
#include "service/exporter.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/csv.h"
#include "base/fileutil.h"
#include "base/log.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "query/export.h"
#include "query/export_xlsx.h"
#include "service/app.h"
#include "store/store.h"
#include "store/store_export.h"
#include "store/store_read.h"

#define EXPORT_MAX_BYTES (512u * 1024 * 1024)

static enum err record_file(struct app *app, const char *label, enum export_kind kind,
                            const char *dir, const char *name, int64_t bytes, int64_t rows,
                            int64_t now) {
    struct store_export_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.week, sizeof row.week, "%s", label);
    snprintf(row.kind, sizeof row.kind, "%s", export_kind_name(kind));
    snprintf(row.path, sizeof row.path, "%s/%s", dir, name);
    row.bytes = bytes;
    row.rows = rows;
    row.written_at = now;
    pthread_mutex_lock(&app->writer_lock);
    enum err rc = store_export_put(app->writer, &row);
    pthread_mutex_unlock(&app->writer_lock);
    return rc;
}

enum err export_week(struct store *db, struct app *app, const char *dir, int64_t week_start,
                     int64_t now) {
    char label[TIMEUTIL_ISOWEEK_MAX];
    timeutil_format_iso_week(week_start, label);
    /* the columns and the basis, next to the files (README "CSV exports") */
    struct buf notes;
    buf_init(&notes, 0);
    for (int i = 0; export_notes_parts[i]; i++)
        buf_puts(&notes, export_notes_parts[i]);
    enum err rc =
        fileutil_write_atomic(dir, EXPORT_ABOUT_FILE, notes.data ? notes.data : "", notes.len);
    buf_release(&notes);
    for (int k = 0; k < 2 && rc == ERR_OK; k++) {
        enum export_kind kind = (enum export_kind)k;
        struct buf b;
        buf_init(&b, EXPORT_MAX_BYTES);
        struct csv c;
        struct export_sink csv_sink;
        export_csv_sink_init(&csv_sink, &c, &b);
        /* the .xlsx twin gets the same rows, computed once */
        struct export_xlsx *x = NULL;
        const struct export_sink *sinks[2] = {&csv_sink, NULL};
        int nsinks = 1;
        if (export_xlsx_available()) {
            rc = export_xlsx_open(&x, dir, kind, label);
            if (rc == ERR_OK)
                sinks[nsinks++] = export_xlsx_sink(x);
        }
        int64_t rows = 0;
        /* a closed week is computed as of its end, so re-exports are identical.
         * The weekly files are on the accrual basis (what reconciles to the
         * invoices) with the default 95 % intervals; the completion basis is
         * GET /api/v1/export.csv?...&basis=completion (README "CSV exports") */
        int64_t as_of = week_start + 7 * 86400;
        if (rc == ERR_OK)
            rc = export_build_sinks(db, &app->calc, kind, week_start, as_of, label,
                                    now < as_of ? now : as_of, NULL, sinks, nsinks, &rows);
        if (rc == ERR_OK)
            rc = c.rc;
        char name[96];
        export_file_name(week_start, kind, name, sizeof name);
        if (rc == ERR_OK)
            rc = fileutil_write_atomic(dir, name, b.data ? b.data : "", b.len);
        if (rc == ERR_OK)
            rc = record_file(app, label, kind, dir, name, (int64_t)b.len, rows, now);
        if (x) {
            char xname[96];
            export_xlsx_file_name(week_start, kind, xname, sizeof xname);
            if (rc == ERR_OK)
                rc = export_xlsx_finish(x, dir, xname, as_of, NULL);
            export_xlsx_free(x);
        }
        buf_release(&b);
        if (rc != ERR_OK)
            log_msg(LOG_ERROR, "export: week '%s' %s failed: %s", label, export_kind_name(kind),
                    err_str(rc));
    }
    if (rc != ERR_OK)
        return rc;
    log_msg(LOG_INFO, "export: wrote week '%s'%s", label,
            export_xlsx_available() ? " (CSV and .xlsx)"
                                    : " (CSV; no .xlsx: built without libxlsxwriter)");
    return ERR_OK;
}

/* ---- the background exporter ------------------------------------------------ */

struct exporter {
    struct app *app;
    char *db_path;
    char *dir;
    pthread_t thread;
    bool started;
};

static void export_due(struct exporter *e, struct store *db) {
    int64_t now = 0, first = 0;
    if (store_source_now(db, &now) != ERR_OK || store_first_data_time(db, &first) != ERR_OK)
        return; /* no data yet */
    int y, w;
    timeutil_iso_week(first, &y, &w);
    int64_t ws;
    if (timeutil_iso_week_start(y, w, &ws) != ERR_OK)
        return;
    for (; ws + 7 * 86400 <= now && !app_stopping(e->app); ws += 7 * 86400) {
        char label[TIMEUTIL_ISOWEEK_MAX], name[96], path[1024];
        struct store_export_row row;
        timeutil_format_iso_week(ws, label);
        bool have = true;
        for (int k = 0; k < 2; k++) {
            export_file_name(ws, (enum export_kind)k, name, sizeof name);
            snprintf(path, sizeof path, "%s/%s", e->dir, name);
            FILE *f = fopen(path, "rb");
            if (f)
                fclose(f);
            if (!f ||
                store_export_get(db, label, export_kind_name((enum export_kind)k), &row) != ERR_OK)
                have = false;
            if (export_xlsx_available()) { /* a twin missing (e.g. after an upgrade) */
                export_xlsx_file_name(ws, (enum export_kind)k, name, sizeof name);
                snprintf(path, sizeof path, "%s/%s", e->dir, name);
                if (access(path, F_OK) != 0)
                    have = false;
            }
        }
        if (!have && export_week(db, e->app, e->dir, ws, now) != ERR_OK)
            return; /* try again next round */
    }
}

static void *export_main(void *arg) {
    struct exporter *e = arg;
    uint64_t gen = 0;
    while (!app_stopping(e->app)) {
        struct store *db = NULL;
        if (store_open(e->db_path, STORE_READER, &db, NULL) == ERR_OK) {
            export_due(e, db);
            store_free(db);
        }
        app_wait(e->app, 60 * 1000L, &gen);
    }
    return NULL;
}

enum err export_start(struct app *app, const char *db_path, const char *dir,
                      struct exporter **out) {
    if (fileutil_ensure_dir(dir) != ERR_OK)
        return ERR_IO;
    int cleaned = fileutil_clean_temporaries(dir);
    if (cleaned)
        log_msg(LOG_WARN, "export: removed %d partial file%s left by an interrupted write", cleaned,
                cleaned == 1 ? "" : "s");
    struct exporter *e = xcalloc(1, sizeof *e);
    e->app = app;
    e->db_path = xstrdup(db_path);
    e->dir = xstrdup(dir);
    if (pthread_create(&e->thread, NULL, export_main, e) != 0) {
        free(e->db_path);
        free(e->dir);
        free(e);
        return ERR_NOMEM;
    }
    e->started = true;
    *out = e;
    return ERR_OK;
}

void export_stop(struct exporter *e) {
    if (!e)
        return;
    app_stop(e->app);
    if (e->started)
        pthread_join(e->thread, NULL);
    free(e->db_path);
    free(e->dir);
    free(e);
}
