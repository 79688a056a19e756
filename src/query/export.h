/* export — the weekly CSV files finance closes the books from.
 *
 * For each ISO week (Monday 00:00 UTC, by the source clock) two files in
 * --export-dir: spotledger-YYYY-Www-summary.csv (one row per configuration,
 * every summary figure) and spotledger-YYYY-Www-tasks.csv (one row per task
 * completed in the week, or running in it); each with an .xlsx twin (typed
 * cells, export_xlsx.h), and spotledger-exports-about.txt explaining the columns.
 * Column order is fixed and documented in README "CSV exports". The bytes depend
 * only on the stored rows, so a closed week re-exported is byte-identical.
 *
 * export_*_csv are pure (rows in, bytes out); export_build loads and computes;
 * the files and the thread that writes them are service/exporter.h's.
 * Thread rule: any thread (export_build: the thread owning db). */
#ifndef SPOTLEDGER_EXPORT_H
#define SPOTLEDGER_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/cost.h"
#include "base/err.h"
#include "query/taskview.h"
#include "query/uncertainty.h"

struct calc_settings;
struct store;

enum export_kind { EXPORT_SUMMARY, EXPORT_TASKS };

/* "summary" / "tasks" -> kind; ERR_INVAL otherwise. */
enum err export_kind_parse(const char *s, enum export_kind *out);
const char *export_kind_name(enum export_kind k);

/* Where export rows go: the CSV writer, or the .xlsx writer (export_xlsx.c).
 * Every method takes ctx; a NULL text and COST_NULL numbers are empty cells.
 * Times are Unix seconds (0: empty), money micro-dollars, percentages basis points. */
struct export_sink {
    void *ctx;
    void (*header)(void *ctx, const char *const *names); /* NULL-terminated */
    void (*text)(void *ctx, const char *s);
    void (*integer)(void *ctx, int64_t v);
    void (*money)(void *ctx, int64_t micro);
    void (*percent_bp)(void *ctx, int64_t bp);
    void (*time)(void *ctx, int64_t t);
    void (*end)(void *ctx); /* end of a row */
};

/* The fixed column orders (README "CSV exports"), NULL-terminated. */
extern const char *const export_summary_header[];
extern const char *const export_tasks_header[];

/* What the summary rows carry beyond r (README "CSV exports"): the cost basis
 * and the 95 % intervals (docs/uncertainty.md). */
struct export_summary_extra {
    const struct cost_completion *comp; /* NULL: the accrual basis; else its money figures */
    const struct unc_result *unc;       /* NULL: interval cells empty, unc_reason in the
                                           reason cell */
    const char *unc_reason;
    const char *cluster; /* the cluster cell (docs/fleet.md): NULL/empty the whole fleet */
    bool no_header;      /* rows only (a further cluster's rows of one file) */
};

/* Options of export_build_opts / export_build_sinks (NULL: every default). */
struct export_opts {
    bool completion; /* the summary on the completion basis (docs/cost-model.md) */
    int resamples;   /* the summary's bootstrap: 0 BOOT_DEFAULT_RESAMPLES, < 0 none */
    /* the summary's rows per cluster (aggregate=cluster, docs/fleet.md): each
     * cluster's rows, cluster cell its name, under one header; tasks: ignored */
    bool by_cluster;
};

/* The longest cluster cell: a cluster= list (http/api.h API_CLUSTERS_MAX). */
#define EXPORT_CLUSTER_CELL_MAX 2200
/* At most this many clusters in one by-cluster file (docs/fleet.md: --cluster
 * takes up to 32). */
#define EXPORT_CLUSTERS_MAX 64

/* The rows of the summary / tasks files, header first, into a sink. e NULL:
 * accrual, no intervals. */
void export_summary_rows(const struct cost_result *r, const char *label,
                         const struct export_summary_extra *e, const struct export_sink *k);
void export_tasks_rows(const struct cost_input *in, const char *const *names,
                       const char *const *clusters, const struct taskview_row *rows, size_t n,
                       const struct export_sink *k);

/* The notes written next to the weekly files as EXPORT_ABOUT_FILE and as the
 * .xlsx files' Notes sheet: what each column means, the basis, the time form. */
#define EXPORT_ABOUT_FILE "spotledger-exports-about.txt"
/* The text in parts (NULL-terminated), each ending with a newline: joined, the
 * file's content; line by line, the Notes sheet. */
extern const char *const export_notes_parts[];

/* The summary CSV of r (computed for [r->from, r->to), no filters). label names
 * the period in the first column ("2026-W48" or "FROM/TO"); e as export_summary_rows. */
enum err export_summary_csv(const struct cost_result *r, const char *label,
                            const struct export_summary_extra *e, struct buf *out);
/* The tasks CSV: one row per rows[i] (taskview), names[i] the Job names,
 * clusters[i] the tasks' fleet names (NULL: empty cells). */
enum err export_tasks_csv(const struct cost_input *in, const char *const *names,
                          const char *const *clusters, const struct taskview_row *rows, size_t n,
                          struct buf *out);

/* Builds the CSV of one kind for [from, to) from the database (read-only
 * connection db), on the accrual basis with the default intervals. *rows (if
 * not NULL) receives the data row count. */
enum err export_build(struct store *db, const struct calc_settings *cfg, enum export_kind kind,
                      int64_t from, int64_t to, const char *label, int64_t now, struct buf *out,
                      int64_t *rows);
/* export_build with options (o NULL: defaults). The completion basis applies to
 * the summary only (ERR_INVAL for EXPORT_TASKS); a window whose tasks ran over
 * more than COST_BASIS_MAX_WINDOWS of its length: ERR_TOOBIG. */
enum err export_build_opts(struct store *db, const struct calc_settings *cfg, enum export_kind kind,
                           int64_t from, int64_t to, const char *label, int64_t now,
                           const struct export_opts *o, struct buf *out, int64_t *rows);

/* The same rows handed to several sinks (the weekly CSV and its .xlsx twin,
 * service/exporter.c), computed once; o as export_build_opts. */
enum err export_build_sinks(struct store *db, const struct calc_settings *cfg,
                            enum export_kind kind, int64_t from, int64_t to, const char *label,
                            int64_t now, const struct export_opts *o,
                            const struct export_sink *const *sinks, int nsinks, int64_t *rows);

/* A sink that writes CSV into out (errors in c->rc). */
struct csv;
void export_csv_sink_init(struct export_sink *k, struct csv *c, struct buf *out);

/* File name of a week's file: "spotledger-2026-W48-summary.csv". */
void export_file_name(int64_t week_start, enum export_kind kind, char *out, size_t len);

#endif
