#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum log_level log_threshold = LOG_INFO;

void log_set_level(enum log_level level) {
    log_threshold = level;
}

enum err log_level_parse(const char *s, enum log_level *out) {
    static const char *names[] = {"debug", "info", "warn", "error", "off"};
    for (int i = 0; i < 5; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (enum log_level)i;
            return ERR_OK;
        }
    }
    return ERR_INVAL;
}

void log_write(enum log_level level, const char *fmt, ...) {
    static const char *names[] = {"debug", "info", "warn", "error", "off"};
    char line[2048];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%SZ ", &tm);
    int k = snprintf(line + n, sizeof line - n, "%s ", names[level < LOG_OFF ? level : LOG_ERROR]);
    if (k > 0)
        n += (size_t)k;
    va_list ap;
    va_start(ap, fmt);
    k = vsnprintf(line + n, sizeof line - n, fmt, ap);
    va_end(ap);
    if (k < 0)
        k = 0;
    n = n + (size_t)k >= sizeof line - 1 ? sizeof line - 2 : n + (size_t)k;
    /* control characters from upstream data must not forge log lines */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
            line[i] = ' ';
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w;
}

bool log_limit_take(struct log_limit *l, int64_t now_ms, unsigned long *dropped) {
    pthread_mutex_lock(&l->mu);
    if (l->window_start_ms == 0 || now_ms - l->window_start_ms >= l->interval_ms) {
        l->window_start_ms = now_ms;
        l->used = 0;
    }
    bool ok = l->used < l->burst;
    if (ok) {
        l->used++;
        *dropped = l->dropped;
        l->dropped = 0;
    } else {
        l->dropped++;
    }
    pthread_mutex_unlock(&l->mu);
    return ok;
}

int64_t log_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
