/* rate_window — a sliding window of the last N request times (milliseconds), the
 * hard guarantee behind http_client's pacing: never more than N requests in any
 * window. Oldest time at head.
 *
 * Thread rule: one window per client (the client's thread). */
#ifndef SPOTLEDGER_RATE_WINDOW_H
#define SPOTLEDGER_RATE_WINDOW_H

#include <stdint.h>

struct rate_window {
    int64_t *t;
    int cap, head, count;
};

/* cap <= 0: unlimited (the window never makes anyone wait). */
void rate_window_init(struct rate_window *r, int cap);
void rate_window_release(struct rate_window *r);
/* ms to wait before one more request fits in `window` ms. */
int64_t rate_window_wait(const struct rate_window *r, int64_t window, int64_t now);
/* Records a request at `now`. */
void rate_window_push(struct rate_window *r, int64_t now);
/* Requests within the last `window` ms. */
int rate_window_recent(const struct rate_window *r, int64_t window, int64_t now);

#endif
