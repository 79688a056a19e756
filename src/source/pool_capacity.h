/* pool_capacity — whether a DigitalOcean node pool is Spot, and why (README
 * "Node pools"): first match of its id given with --spot-pool ('flag'), a size
 * slug ending in "-spot" ('slug'), a pool label equal to one of the spot labels
 * ('label'); else on-demand ('default'). Pure; shared by the poller and
 * `spotledger check`.
 *
 * Thread rule: any thread. */
#ifndef SPOTLEDGER_POOL_CAPACITY_H
#define SPOTLEDGER_POOL_CAPACITY_H

#include "model/do.h"
#include "model/settings.h"

/* "spot" or "on-demand"; *basis one of "flag", "slug", "label", "default". */
const char *pool_capacity(const struct do_pool *pool, char *const *spot_pools, int n_spot_pools,
                          const struct config_pair *spot_labels, int n_spot_labels,
                          const char **basis);

#endif
