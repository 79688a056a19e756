/* export_xlsx — the .xlsx twin of a weekly CSV file, for finance's spreadsheets.
 *
 * The same rows as the CSV (export_summary_rows / export_tasks_rows through an
 * export_sink), typed: times as date-time cells ("yyyy-mm-dd hh:mm:ss", UTC),
 * money as currency-formatted numbers holding the exact micro-dollar value,
 * counts and percentages as numbers, text as text (never a formula). The header
 * row is bold and frozen; a second sheet "Notes" holds export_notes_parts.
 * Written with libxlsxwriter (Debian libxlsxwriter-dev); a build without it
 * (SPOTLEDGER_HAVE_XLSX undefined) writes CSV only and export_xlsx_available()
 * says so. Files land atomically (fileutil_write_atomic).
 * Thread rule: one export_xlsx per thread. */
#ifndef SPOTLEDGER_EXPORT_XLSX_H
#define SPOTLEDGER_EXPORT_XLSX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "query/export.h"

struct export_xlsx;

bool export_xlsx_available(void);

/* A workbook being filled, in a temporary file in dir (removed by
 * fileutil_clean_temporaries if the process dies); the sheet is named after
 * kind ("summary"/"tasks"), label ("2026-W46") goes into the Notes sheet's
 * title. ERR_NOMEM/ERR_IO, or ERR_INVAL when built without libxlsxwriter. */
enum err export_xlsx_open(struct export_xlsx **out, const char *dir, enum export_kind kind,
                          const char *label);
const struct export_sink *export_xlsx_sink(struct export_xlsx *x);
/* Writes the workbook as dir/name (atomically); created = the document's
 * creation time (the week's end, so a re-export has the same properties). */
enum err export_xlsx_finish(struct export_xlsx *x, const char *dir, const char *name,
                            int64_t created, int64_t *bytes);
void export_xlsx_free(struct export_xlsx *x);

/* "spotledger-2026-W48-summary.xlsx" */
void export_xlsx_file_name(int64_t week_start, enum export_kind kind, char *out, size_t len);

#endif
