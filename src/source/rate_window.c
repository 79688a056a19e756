/* rate_window — ring buffer of request times (rate_window.h). */
#include "source/rate_window.h"

#include <stdlib.h>

#include "base/xalloc.h"

void rate_window_init(struct rate_window *r, int cap) {
    r->cap = cap > 0 ? cap : 0;
    r->t = r->cap ? xcalloc((size_t)r->cap, sizeof *r->t) : NULL;
    r->head = r->count = 0;
}

void rate_window_release(struct rate_window *r) {
    free(r->t);
    r->t = NULL;
    r->cap = r->head = r->count = 0;
}

int64_t rate_window_wait(const struct rate_window *r, int64_t window, int64_t now) {
    if (!r->cap || r->count < r->cap)
        return 0;
    int64_t oldest = r->t[r->head];
    return oldest + window > now ? oldest + window - now : 0;
}

void rate_window_push(struct rate_window *r, int64_t now) {
    if (!r->cap)
        return;
    if (r->count < r->cap) {
        r->t[(r->head + r->count) % r->cap] = now;
        r->count++;
    } else {
        r->t[r->head] = now;
        r->head = (r->head + 1) % r->cap;
    }
}

int rate_window_recent(const struct rate_window *r, int64_t window, int64_t now) {
    int n = 0;
    for (int i = 0; i < r->count; i++)
        if (r->t[(r->head + i) % r->cap] + window > now)
            n++;
    return n;
}
