#include "query/respcache.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void respcache_init(struct respcache *c) {
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
}

static void drop(struct respcache *c, size_t i) {
    c->bytes -= c->v[i].len;
    free(c->v[i].key);
    free(c->v[i].body);
    c->v[i] = c->v[--c->n];
}

void respcache_release(struct respcache *c) {
    while (c->n)
        drop(c, 0);
    pthread_mutex_destroy(&c->lock);
}

static long find(struct respcache *c, const char *key) {
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->v[i].key, key))
            return (long)i;
    return -1;
}

bool respcache_get(struct respcache *c, const char *key, const int64_t version[2],
                   struct buf *out) {
    bool hit = false;
    pthread_mutex_lock(&c->lock);
    long i = find(c, key);
    if (i >= 0 && c->v[i].version[0] == version[0] && c->v[i].version[1] == version[1] &&
        buf_append(out, c->v[i].body, c->v[i].len) == ERR_OK) {
        c->v[i].used = ++c->clock;
        hit = true;
    }
    if (hit)
        c->hits++;
    else
        c->misses++;
    pthread_mutex_unlock(&c->lock);
    return hit;
}

void respcache_put(struct respcache *c, const char *key, const int64_t version[2], const char *body,
                   size_t len) {
    if (len > RESPCACHE_MAX_BYTES / 4)
        return; /* one huge answer must not flush everything else */
    pthread_mutex_lock(&c->lock);
    long i = find(c, key);
    if (i >= 0)
        drop(c, (size_t)i);
    while (c->n && (c->n >= RESPCACHE_MAX || c->bytes + len > RESPCACHE_MAX_BYTES)) {
        size_t lru = 0;
        for (size_t k = 1; k < c->n; k++)
            if (c->v[k].used < c->v[lru].used)
                lru = k;
        drop(c, lru);
    }
    struct respcache_entry *e = &c->v[c->n++];
    e->key = xstrdup(key);
    e->version[0] = version[0];
    e->version[1] = version[1];
    e->body = xmalloc(len ? len : 1);
    memcpy(e->body, body, len);
    e->len = len;
    e->used = ++c->clock;
    c->bytes += len;
    pthread_mutex_unlock(&c->lock);
}
