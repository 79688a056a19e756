/* timeutil — calendar arithmetic on int64 Unix seconds, UTC only.
 *
 * Pure: nothing here reads the clock (callers pass `now`). Every observation
 * time in spotledger is the source's clock (docs/cost-model.md "Sources and time").
 * Thread rule: any thread. */
#ifndef SPOTLEDGER_TIMEUTIL_H
#define SPOTLEDGER_TIMEUTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/err.h"

#define TIMEUTIL_RFC3339_MAX 21  /* "2026-11-29T15:04:05Z" + NUL */
#define TIMEUTIL_HTTPDATE_MAX 30 /* "Sun, 29 Nov 2026 15:04:05 GMT" + NUL */
#define TIMEUTIL_ISOWEEK_MAX 12  /* "2026-W48" + NUL (room for 5-digit years) */

/* Days since 1970-01-01 of a proleptic Gregorian date (m 1..12, d 1..31). */
int64_t timeutil_days_from_civil(int64_t y, int m, int d);
void timeutil_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

/* Parses RFC 3339 ("2026-11-29T15:04:05Z", "…T15:04:05.123+01:00"; 't'/'z' and a
 * space separator accepted; fractions truncated toward the earlier second).
 * ERR_PARSE on anything else, including out-of-range fields. */
enum err timeutil_parse_rfc3339(const char *s, size_t len, int64_t *out);
/* "YYYY-MM-DDTHH:MM:SSZ". Returns the length. */
size_t timeutil_format_rfc3339(int64_t t, char out[TIMEUTIL_RFC3339_MAX]);

/* HTTP IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), as in a Date header. */
enum err timeutil_parse_http_date(const char *s, int64_t *out);
size_t timeutil_format_http_date(int64_t t, char out[TIMEUTIL_HTTPDATE_MAX]);

/* ISO 8601 week of t: weeks start Monday 00:00 UTC; week 1 holds the year's
 * first Thursday. */
void timeutil_iso_week(int64_t t, int *iso_year, int *week);
/* Monday 00:00 UTC of the ISO week; ERR_INVAL if week is not in 1..weeks(year). */
enum err timeutil_iso_week_start(int iso_year, int week, int64_t *out);
/* Exactly "YYYY-Www" (e.g. "2026-W48"): the week [start, start + 7 days). */
enum err timeutil_parse_iso_week(const char *s, int64_t *start, int64_t *end);
size_t timeutil_format_iso_week(int64_t t, char out[TIMEUTIL_ISOWEEK_MAX]);

/* Start of the UTC calendar month holding t, and of the next month. */
int64_t timeutil_month_start(int64_t t);
int64_t timeutil_next_month_start(int64_t t);
/* Floor of t to a multiple of `step` seconds (e.g. 86400), correct for negatives. */
int64_t timeutil_floor(int64_t t, int64_t step);

/* Milliseconds of CLOCK_MONOTONIC (for timeouts and pacing, not dates). */
int64_t timeutil_mono_ms(void);
/* CLOCK_MONOTONIC ms (>= 0) from now, normalised, as pthread_cond_timedwait
 * takes it on a condition variable whose clock is CLOCK_MONOTONIC. */
struct timespec timeutil_mono_deadline(long ms);
/* Initialises *c as such a condition variable (its clock CLOCK_MONOTONIC), so that a
 * wall-clock jump neither cuts nor stretches a timed wait. */
void timeutil_mono_cond_init(pthread_cond_t *c);

#endif
