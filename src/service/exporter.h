/* exporter — the weekly CSV files (README "CSV exports") on disk: export_week
 * writes both files of one ISO week into --export-dir, atomically (fileutil), and
 * records them in the exports table through the app's writer; the exporter thread
 * (export_start) writes every closed week not yet exported, back-filling missed
 * weeks after downtime. The files' content is query/export.h's.
 * Thread rule: export_week on a thread owning db; the exporter owns its thread. */
#ifndef SPOTLEDGER_EXPORTER_H
#define SPOTLEDGER_EXPORTER_H

#include <stdint.h>

#include "base/err.h"

struct app;
struct store;

/* Writes both files of the ISO week starting at week_start into dir and records
 * them (exports table) through the app's writer. */
enum err export_week(struct store *db, struct app *app, const char *dir, int64_t week_start,
                     int64_t now);

/* The background exporter: every minute, and when woken, writes each closed week
 * (end <= the source clock) from the first week with data that has no file yet.
 * ERR_IO when the directory cannot be created. */
struct exporter;
enum err export_start(struct app *app, const char *db_path, const char *dir, struct exporter **out);
void export_stop(struct exporter *e);

#endif
