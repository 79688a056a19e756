/* log — leveled, one line per event, to stderr (docs/style.md 16).
 *
 * Format: "2026-11-29T15:04:05Z warn store: insert failed: database error".
 * log_msg checks the level before formatting anything. Lines are written with a
 * single write so threads never interleave within a line. Never pass a token, an
 * Authorization header or an upstream body above LOG_DEBUG.
 * Thread rule: any thread; log_set_level at start-up only. */
#ifndef SPOTLEDGER_LOG_H
#define SPOTLEDGER_LOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"

enum log_level { LOG_DEBUG = 0, LOG_INFO = 1, LOG_WARN = 2, LOG_ERROR = 3, LOG_OFF = 4 };

extern enum log_level log_threshold;

void log_set_level(enum log_level level);
/* Parses "debug|info|warn|error|off"; ERR_INVAL otherwise. */
enum err log_level_parse(const char *s, enum log_level *out);
void log_write(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_enabled(level) ((level) >= log_threshold)
#define log_msg(level, ...)                                                                        \
    do {                                                                                           \
        if (log_enabled(level))                                                                    \
            log_write((level), __VA_ARGS__);                                                       \
    } while (0)

/* A rate limit for one kind of line: at most `burst` lines per `interval_ms`;
 * the rest are counted, and the next line let through reports how many were
 * dropped (README "Limits": log lines). Initialise with LOG_LIMIT_INIT. Thread
 * rule: any thread (it has its own mutex). */
struct log_limit {
    pthread_mutex_t mu;
    int64_t interval_ms;
    int burst;
    int64_t window_start_ms;
    int used;
    unsigned long dropped;
};
#define LOG_LIMIT_INIT(interval_ms, burst)                                                         \
    { PTHREAD_MUTEX_INITIALIZER, (interval_ms), (burst), 0, 0, 0 }

/* True when a line may be written at monotonic time now_ms; then *dropped is the
 * number of lines suppressed since the last one let through (and is reset). */
bool log_limit_take(struct log_limit *l, int64_t now_ms, unsigned long *dropped);
/* Monotonic milliseconds, for log_limit_take. */
int64_t log_now_ms(void);

#endif
