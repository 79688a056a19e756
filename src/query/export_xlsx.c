/* export_xlsx — see export_xlsx.h. */
#include "query/export_xlsx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fileutil.h"
#include "base/log.h"
#include "base/timeutil.h"
#include "base/xalloc.h"

void export_xlsx_file_name(int64_t week_start, enum export_kind kind, char *out, size_t len) {
    char wk[TIMEUTIL_ISOWEEK_MAX];
    timeutil_format_iso_week(week_start, wk);
    snprintf(out, len, "spotledger-%s-%s.xlsx", wk, export_kind_name(kind));
}

#ifndef SPOTLEDGER_HAVE_XLSX

bool export_xlsx_available(void) {
    return false;
}
enum err export_xlsx_open(struct export_xlsx **out, const char *dir, enum export_kind kind,
                          const char *label) {
    (void)dir;
    (void)kind;
    (void)label;
    *out = NULL;
    return ERR_INVAL;
}
const struct export_sink *export_xlsx_sink(struct export_xlsx *x) {
    (void)x;
    return NULL;
}
enum err export_xlsx_finish(struct export_xlsx *x, const char *dir, const char *name,
                            int64_t created, int64_t *bytes) {
    (void)x;
    (void)dir;
    (void)name;
    (void)created;
    (void)bytes;
    return ERR_INVAL;
}
void export_xlsx_free(struct export_xlsx *x) {
    (void)x;
}

#else

#include <unistd.h>
#include <xlsxwriter.h>

#define XLSX_MAX_BYTES (512L * 1024 * 1024)

struct export_xlsx {
    lxw_workbook *wb;
    lxw_worksheet *ws;
    lxw_format *bold, *money, *time, *percent, *wrap;
    char path[4096]; /* the workbook's temporary file, in the export directory */
    char label[16];
    lxw_row_t row;
    lxw_col_t col;
    bool failed;
    struct export_sink sink;
};

static void check(struct export_xlsx *x, lxw_error e) {
    if (e != LXW_NO_ERROR && !x->failed) {
        log_msg(LOG_ERROR, "export: xlsx: %s", lxw_strerror(e));
        x->failed = true;
    }
}

static void sink_header(void *ctx, const char *const *names) {
    struct export_xlsx *x = ctx;
    for (lxw_col_t c = 0; names[c]; c++) {
        check(x, worksheet_write_string(x->ws, 0, c, names[c], x->bold));
        /* readable widths: times and money wider than counts */
        size_t w = strlen(names[c]) + 2;
        bool is_time = !strcmp(names[c], "from") || !strcmp(names[c], "to") ||
                       !strcmp(names[c], "completed_at");
        if (w < (is_time ? 20u : 12u))
            w = is_time ? 20 : 12;
        check(x, worksheet_set_column(x->ws, c, c, (double)w, NULL));
    }
    worksheet_freeze_panes(x->ws, 1, 0);
    x->row = 1;
    x->col = 0;
}

static void sink_text(void *ctx, const char *s) {
    struct export_xlsx *x = ctx;
    if (s && *s) /* a string cell: never parsed as a formula */
        check(x, worksheet_write_string(x->ws, x->row, x->col, s, NULL));
    x->col++;
}

static void sink_int(void *ctx, int64_t v) {
    struct export_xlsx *x = ctx;
    if (v != COST_NULL)
        check(x, worksheet_write_number(x->ws, x->row, x->col, (double)v, NULL));
    x->col++;
}

static void sink_money(void *ctx, int64_t micro) {
    struct export_xlsx *x = ctx;
    /* micro-dollars are exact in a double below 2^53; one division gives the
     * double nearest to the exact decimal amount */
    if (micro != COST_NULL)
        check(x, worksheet_write_number(x->ws, x->row, x->col, (double)micro / 1e6, x->money));
    x->col++;
}

static void sink_percent(void *ctx, int64_t bp) {
    struct export_xlsx *x = ctx;
    if (bp != COST_NULL)
        check(x, worksheet_write_number(x->ws, x->row, x->col, (double)bp / 100.0, x->percent));
    x->col++;
}

static void sink_time(void *ctx, int64_t t) {
    struct export_xlsx *x = ctx;
    if (t != 0) {
        int64_t days = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
        int64_t sec = t - days * 86400;
        int64_t y;
        int m, d;
        timeutil_civil_from_days(days, &y, &m, &d);
        lxw_datetime dt = {.year = (int)y,
                           .month = m,
                           .day = d,
                           .hour = (int)(sec / 3600),
                           .min = (int)(sec / 60 % 60),
                           .sec = (double)(sec % 60)};
        check(x, worksheet_write_datetime(x->ws, x->row, x->col, &dt, x->time));
    }
    x->col++;
}

static void sink_end(void *ctx) {
    struct export_xlsx *x = ctx;
    x->row++;
    x->col = 0;
}

bool export_xlsx_available(void) {
    return true;
}

enum err export_xlsx_open(struct export_xlsx **out, const char *dir, enum export_kind kind,
                          const char *label) {
    *out = NULL;
    struct export_xlsx *x = xcalloc(1, sizeof *x);
    /* ".*.tmp-*": what fileutil_clean_temporaries removes after a crash */
    int n = snprintf(x->path, sizeof x->path, "%s/.xlsx.tmp-XXXXXX", dir);
    int fd = n > 0 && (size_t)n < sizeof x->path ? mkstemp(x->path) : -1;
    if (fd < 0) {
        log_msg(LOG_ERROR, "export: xlsx: cannot create a temporary file in %s", x->path);
        free(x);
        return ERR_IO;
    }
    close(fd);
    snprintf(x->label, sizeof x->label, "%s", label ? label : "");
    x->wb = workbook_new(x->path);
    if (!x->wb) {
        unlink(x->path);
        free(x);
        return ERR_NOMEM;
    }
    x->ws = workbook_add_worksheet(x->wb, export_kind_name(kind));
    x->bold = workbook_add_format(x->wb);
    x->money = workbook_add_format(x->wb);
    x->time = workbook_add_format(x->wb);
    x->percent = workbook_add_format(x->wb);
    x->wrap = workbook_add_format(x->wb);
    if (!x->ws || !x->bold || !x->money || !x->time || !x->percent || !x->wrap) {
        export_xlsx_free(x);
        return ERR_NOMEM;
    }
    format_set_bold(x->bold);
    /* currency, two decimals shown, up to six when the amount has them */
    format_set_num_format(x->money, "[$$-409]#,##0.00####");
    format_set_num_format(x->time, "yyyy-mm-dd hh:mm:ss");
    format_set_num_format(x->percent, "0.00");
    format_set_text_wrap(x->wrap);
    x->sink = (struct export_sink){.ctx = x,
                                   .header = sink_header,
                                   .text = sink_text,
                                   .integer = sink_int,
                                   .money = sink_money,
                                   .percent_bp = sink_percent,
                                   .time = sink_time,
                                   .end = sink_end};
    *out = x;
    return ERR_OK;
}

const struct export_sink *export_xlsx_sink(struct export_xlsx *x) {
    return &x->sink;
}

/* The Notes sheet: one line of export_notes_parts per row. */
static void write_notes(struct export_xlsx *x) {
    lxw_worksheet *ns = workbook_add_worksheet(x->wb, "Notes");
    if (!ns) {
        x->failed = true;
        return;
    }
    check(x, worksheet_set_column(ns, 0, 0, 110, x->wrap));
    char title[64];
    snprintf(title, sizeof title, "spotledger %s", x->label);
    check(x, worksheet_write_string(ns, 0, 0, title, x->bold));
    lxw_row_t r = 2;
    char line[1024];
    for (int part = 0; export_notes_parts[part]; part++) {
        const char *p = export_notes_parts[part];
        while (*p) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            if (len >= sizeof line)
                len = sizeof line - 1;
            memcpy(line, p, len);
            line[len] = '\0';
            if (len)
                check(x, worksheet_write_string(ns, r, 0, line, NULL));
            r++;
            p = nl ? nl + 1 : p + strlen(p);
        }
    }
}

enum err export_xlsx_finish(struct export_xlsx *x, const char *dir, const char *name,
                            int64_t created, int64_t *bytes) {
    write_notes(x);
    static char author[] = "spotledger"; /* libxlsxwriter's fields are not const */
    lxw_doc_properties props = {
        .title = x->label[0] ? x->label : NULL, .author = author, .created = (time_t)created};
    check(x, workbook_set_properties(x->wb, &props));
    lxw_error e = workbook_close(x->wb);
    x->wb = NULL;
    check(x, e);
    if (x->failed)
        return ERR_IO;
    /* read the finished workbook back and land it atomically beside the CSV */
    FILE *f = fopen(x->path, "rb");
    if (!f)
        return ERR_IO;
    enum err rc = ERR_OK;
    char *data = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        len = ftell(f);
    if (len < 0 || len > XLSX_MAX_BYTES || fseek(f, 0, SEEK_SET) != 0)
        rc = len > XLSX_MAX_BYTES ? ERR_TOOBIG : ERR_IO;
    if (rc == ERR_OK) {
        data = xmalloc((size_t)len + 1);
        if (fread(data, 1, (size_t)len, f) != (size_t)len)
            rc = ERR_IO;
    }
    fclose(f);
    if (rc == ERR_OK)
        rc = fileutil_write_atomic(dir, name, data, (size_t)len);
    if (rc == ERR_OK && bytes)
        *bytes = len;
    free(data);
    return rc;
}

void export_xlsx_free(struct export_xlsx *x) {
    if (!x)
        return;
    if (x->wb)
        workbook_close(x->wb); /* frees it (writes the temporary file, removed below) */
    unlink(x->path);
    free(x);
}

#endif
