#include "query/metrics_cache.h"

#include <stdlib.h>
#include <string.h>

void metrics_cache_init(struct metrics_cache *c) {
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
}

void metrics_cache_release(struct metrics_cache *c) {
    free(c->weeks);
    pthread_mutex_destroy(&c->lock);
}
