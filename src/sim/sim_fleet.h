/* sim_fleet — the other clusters of the simulated account (spotsim
 * --also-cluster FILE:TRUTH, docs/fleet.md): each its own scenario (pools,
 * reclaim timings, region, ids; the same start and the same clock as the
 * first), its own world and ground truth, its own Kubernetes API on a port of
 * its own. The first cluster's server answers the DigitalOcean API of all of
 * them (sim_server_options.do_worlds) and bills every cluster's nodes on the
 * account's invoices (droplet ids distinct across clusters: sim_fleet_add);
 * sizes, the cluster list and the droplets are the first cluster's.
 *
 * A cluster can be taken down mid-run (--cluster-down ID@WHEN): when the
 * simulated clock reaches WHEN, its Kubernetes server stops (both ports close:
 * new connections are refused, open watches end); the DigitalOcean API, served
 * by the first cluster's port, goes on answering for it (an API server outage,
 * not a deleted cluster).
 *
 * Thread rule: main thread only. */
#ifndef SPOTLEDGER_SIM_FLEET_H
#define SPOTLEDGER_SIM_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "sim/sim_server.h"

#define SIM_FLEET_MAX 31 /* with the first: 32, the service's --cluster limit */

struct sim_scenario;
struct sim_world;

struct sim_fleet {
    int n;
    struct sim_scenario *sc[SIM_FLEET_MAX];
    struct sim_world *w[SIM_FLEET_MAX];
    struct buf truth[SIM_FLEET_MAX];
    char *truth_path[SIM_FLEET_MAX];
    struct sim_server *srv[SIM_FLEET_MAX];
    const struct sim_world *all[SIM_FLEET_MAX + 1]; /* the first, then these */
    int64_t down_at[SIM_FLEET_MAX];                 /* simulated time its API stops; 0: never */
    bool down[SIM_FLEET_MAX];                       /* stopped already */
};

/* Loads spec "FILE:TRUTH" (TRUTH: where its ground truth is written when the
 * clock reaches the horizon), checks it starts when `first` does, builds its
 * world with `seed` and renders its truth. ERR_INVAL (err says why), ERR_TOOBIG
 * past SIM_FLEET_MAX. */
enum err sim_fleet_add(struct sim_fleet *f, const char *spec, const struct sim_scenario *first,
                       int64_t horizon, uint64_t seed, bool kube_deletion, char *err,
                       size_t errlen);
/* Serves each cluster like `base` (same host, clock, tokens, TLS, faults) on
 * free ports, its own world and truth; prints one line per cluster on stdout:
 * "spotsim: cluster http HOST:PORT [https HOST:PORT2] cluster ID". */
enum err sim_fleet_start(struct sim_fleet *f, const struct sim_server_options *base);
/* Parses spec "ID@WHEN" (--cluster-down): ID is one of the added clusters' DO
 * cluster ids (not the first cluster's, whose port serves the DigitalOcean
 * API), WHEN an RFC 3339 time or a duration after `start` (sim_parse_duration).
 * ERR_INVAL with err saying why. */
enum err sim_fleet_down_at(struct sim_fleet *f, const char *spec, int64_t start, char *err,
                           size_t errlen);
/* Stops the Kubernetes server of every cluster whose down time `now` (simulated)
 * has reached, once, printing "spotsim: cluster ID down at TIME" on stdout. */
void sim_fleet_tick(struct sim_fleet *f, int64_t now);
/* Writes every cluster's truth to its TRUTH file. */
void sim_fleet_write_truth(struct sim_fleet *f);
/* Stops the servers and frees everything. */
void sim_fleet_release(struct sim_fleet *f);

#endif
