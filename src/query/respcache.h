/* respcache — computed responses for closed windows, reused until new data for
 * the window arrives.
 *
 * A window is closed when it ends at or before the source clock; its figures
 * are then computed as of its end, so they depend only on the stored facts. An
 * entry is valid while the window's change version (store_window_version: the
 * change marks the triggers of schema/004 keep per day) is what it was when the
 * entry was computed. Bounded: RESPCACHE_MAX entries, RESPCACHE_MAX_BYTES in
 * all, least recently used evicted. Thread rule: any thread (one lock). */
#ifndef SPOTLEDGER_RESPCACHE_H
#define SPOTLEDGER_RESPCACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

#define RESPCACHE_MAX 512
#define RESPCACHE_MAX_BYTES (16u * 1024 * 1024)

struct respcache_entry {
    char *key;
    int64_t version[2];
    char *body;
    size_t len;
    uint64_t used; /* LRU clock */
};

struct respcache {
    pthread_mutex_t lock;
    struct respcache_entry v[RESPCACHE_MAX];
    size_t n;
    size_t bytes;
    uint64_t clock;
    uint64_t hits, misses;
};

void respcache_init(struct respcache *c);
void respcache_release(struct respcache *c);
/* Appends the cached body of key to out when it is there with this version. */
bool respcache_get(struct respcache *c, const char *key, const int64_t version[2], struct buf *out);
/* Stores body (copied) under key and version, replacing an older entry. */
void respcache_put(struct respcache *c, const char *key, const int64_t version[2], const char *body,
                   size_t len);

#endif
