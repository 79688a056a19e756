/* window — the time window of a query: `window=` in OpenCost's grammar where it
 * fits, or `from=`/`to=`.
 *
 *   7d, 24h, 90m, 2w     the last N days/hours/minutes/weeks up to now
 *   today, yesterday     UTC calendar days ("today" ends now)
 *   week, lastweek       the current ISO week up to now / the previous ISO week
 *   month, lastmonth     the current calendar month up to now / the previous one
 *   2026-W48             that ISO week (Monday 00:00 UTC, 7 days)
 *   2026-11              that calendar month
 *   A,B                  two RFC 3339 times: [A, B)
 *   from=A&to=B          the same; to defaults to now
 *
 * `now` is the source clock (the latest Date seen from the cluster), so a
 * simulated or lagging cluster is read in its own time. Windows are half-open
 * [from, to), at most WINDOW_MAX_SPAN long, and from < to.
 * Pure; thread rule: any thread. */
#ifndef SPOTLEDGER_WINDOW_H
#define SPOTLEDGER_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define WINDOW_MAX_SPAN (20LL * 366 * 86400)
/* Every window lies in [2000-01-01T00:00:00Z, 9999-12-31T23:59:59Z], so both of
 * its ends print as RFC 3339 (README "Limits"). */
#define WINDOW_MIN_TIME 946684800LL
#define WINDOW_MAX_TIME 253402300799LL

struct window {
    int64_t from;
    int64_t to;
};

/* Parses the window expression s. ERR_PARSE (with a reason in why, if not NULL)
 * when it is not one of the forms above. */
enum err window_parse(const char *s, int64_t now, struct window *out, char *why, size_t whylen);
/* from/to parameters (either may be NULL: from defaults to to - 7 days, to to now). */
enum err window_from_to(const char *from, const char *to, int64_t now, struct window *out,
                        char *why, size_t whylen);

#endif
