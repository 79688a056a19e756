/* daykeeper — the background pass that keeps closed days' partial sums
 * (docs/performance.md "Kept off the request path"): on its own read connection,
 * every few seconds and when woken, it computes the closed days from the first
 * day with data to the source clock's last midnight that are not stored under
 * their current change version (query/compose.h compose_keep_days), a bounded
 * number of days per pass, newest first, and writes them through the app's
 * writer (the writer lock held for each batch's write only). The request path
 * (compose_stored) then reads kept days and computes only the rest.
 * Thread rule: daykeeper_start/stop on the main thread; it owns its thread. */
#ifndef SPOTLEDGER_DAYKEEPER_H
#define SPOTLEDGER_DAYKEEPER_H

#include "base/err.h"

struct app;
struct daykeeper;

/* Starts the thread (reads db_path; writes through app->writer). ERR_NOMEM. */
enum err daykeeper_start(struct app *app, const char *db_path, struct daykeeper **out);
/* Asks every background thread to stop (app_stop), joins this one. NULL: no-op. */
void daykeeper_stop(struct daykeeper *k);

#endif
