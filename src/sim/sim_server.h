/* sim_server — spotsim's HTTP front: one plain-HTTP and (optionally) one TLS
 * libmicrohttpd daemon, thread per connection (watches block while they wait for
 * the simulated clock). Both serve the same paths:
 *
 *   /v2/...                    DigitalOcean (sim_do_api), Bearer token required
 *   /version /api /apis ...    Kubernetes (sim_k8s_api), Bearer token required
 *   /sim/status /sim/truth     the simulator itself (no token)
 *   /healthz
 *
 * Every response carries `Date` in simulated time; DigitalOcean answers carry
 * ratelimit-limit / -remaining / -reset (reset = Date + real seconds until the
 * window resets) and a real-time per-minute limit answers 429 + retry-after.
 * Injected faults (sim_fault) apply to /v2 and Kubernetes paths only.
 * Thread rule: start/stop from the main thread; handlers on MHD's threads. */
#ifndef SPOTLEDGER_SIM_SERVER_H
#define SPOTLEDGER_SIM_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "sim/sim_clock.h"
#include "sim/sim_fault.h"
#include "sim/sim_tls.h"
#include "sim/sim_world.h"

struct sim_server;
struct sim_authz;

struct sim_server_options {
    const struct sim_world *world;
    struct sim_clock *clock;
    struct sim_faults *faults; /* NULL: none */
    const char *host;          /* numeric address or "localhost" */
    uint16_t port;             /* 0: any free port */
    const struct sim_tls *tls; /* NULL: no TLS daemon */
    uint16_t tls_port;
    const char *do_token;          /* NULL: any non-empty Bearer token */
    const char *kube_token;        /* NULL: any non-empty Bearer token */
    int64_t retention;             /* watch history, simulated seconds */
    int rate_per_minute;           /* DigitalOcean per-minute limit (real time); 0 = off */
    int rate_per_hour;             /* the ratelimit-limit header (default 5000) */
    const char *truth_json;        /* body of /sim/truth (borrowed), or NULL */
    int64_t bookmark_ms;           /* real ms between watch BOOKMARKs (default 1000) */
    const struct sim_authz *authz; /* planted denials (sim_authz.h), NULL: none */
    /* Several clusters of one account (spotsim --also-cluster): the DigitalOcean
     * API of this server answers /v2/kubernetes/clusters/{id}/... from the world
     * whose cluster id that is, and the account's billing (invoices, history,
     * balance, insights) from all of them; everything else (the cluster list,
     * sizes, droplets) from `world`. NULL/0: `world` only. Borrowed. */
    const struct sim_world *const *do_worlds;
    int n_do_worlds;
};

/* ERR_IO when an address cannot be bound. */
enum err sim_server_start(const struct sim_server_options *opt, struct sim_server **out);
uint16_t sim_server_port(const struct sim_server *s);
uint16_t sim_server_tls_port(const struct sim_server *s);
/* Ends watches, stops both daemons, frees. NULL is a no-op. */
void sim_server_stop(struct sim_server *s);

#endif
