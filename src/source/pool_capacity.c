/* pool_capacity — Spot or On-Demand (pool_capacity.h). */
#include "source/pool_capacity.h"

#include <string.h>

const char *pool_capacity(const struct do_pool *pool, char *const *spot_pools, int n_spot_pools,
                          const struct config_pair *spot_labels, int n_spot_labels,
                          const char **basis) {
    for (int i = 0; i < n_spot_pools; i++)
        if (strcmp(spot_pools[i], pool->id) == 0) {
            *basis = "flag";
            return "spot";
        }
    size_t n = pool->size ? strlen(pool->size) : 0;
    if (n >= 5 && strcmp(pool->size + n - 5, "-spot") == 0) {
        *basis = "slug";
        return "spot";
    }
    for (size_t i = 0; i < pool->n_labels; i++)
        for (int j = 0; j < n_spot_labels; j++)
            if (strcmp(pool->labels[i].key, spot_labels[j].key) == 0 &&
                strcmp(pool->labels[i].value, spot_labels[j].value) == 0) {
                *basis = "label";
                return "spot";
            }
    *basis = "default";
    return "on-demand";
}
