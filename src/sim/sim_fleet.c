/* sim_fleet — the other clusters of the simulated account (sim_fleet.h). */
#include "sim/sim_fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "sim/sim_engine.h"
#include "sim/sim_scenario.h"
#include "sim/sim_truth.h"
#include "sim/sim_world.h"

enum err sim_fleet_add(struct sim_fleet *f, const char *spec, const struct sim_scenario *first,
                       int64_t horizon, uint64_t seed, bool kube_deletion, char *err,
                       size_t errlen) {
    if (f->n >= SIM_FLEET_MAX) {
        snprintf(err, errlen, "--also-cluster: at most %d", SIM_FLEET_MAX);
        return ERR_TOOBIG;
    }
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || !colon[1]) {
        snprintf(err, errlen, "--also-cluster: expected SCENARIO:TRUTH, got '%.200s'", spec);
        return ERR_INVAL;
    }
    char *path = xstrndup(spec, (size_t)(colon - spec));
    struct sim_scenario *sc = NULL;
    char why[400];
    enum err rc = sim_scenario_load(path, &sc, why, sizeof why);
    free(path);
    if (rc != ERR_OK) {
        snprintf(err, errlen, "--also-cluster: %s", why);
        return ERR_INVAL;
    }
    if (sc->start != first->start) {
        snprintf(err, errlen, "--also-cluster: '%.200s' must start when the first scenario does",
                 spec);
        sim_scenario_free(sc);
        return ERR_INVAL;
    }
    int i = f->n;
    struct sim_world *w = sim_world_build(sc, seed, horizon);
    w->kube_deletion = kube_deletion;
    /* droplet ids are the account's: the first cluster's are SIM_DROPLET_BASE +
     * node, cluster i's (0-based among these) SIM_DROPLET_BASE + (i + 1) x 10^6 +
     * node, so the one invoice names every node once */
    for (int k = 0; k < w->nnodes; k++)
        snprintf(w->nodes[k].droplet_id, sizeof w->nodes[k].droplet_id, "%llu",
                 (unsigned long long)(SIM_DROPLET_BASE + (i + 1) * 1000000LL + k) %
                     1000000000000ULL);
    for (int k = 0; k < i; k++) {
        if (strcmp(f->w[k]->cluster_id, w->cluster_id) == 0) {
            snprintf(err, errlen, "--also-cluster: cluster id %s is used twice", w->cluster_id);
            sim_world_free(w);
            sim_scenario_free(sc);
            return ERR_INVAL;
        }
    }
    buf_init(&f->truth[i], 0);
    if (sim_truth_render(w, &f->truth[i]) != ERR_OK) {
        snprintf(err, errlen, "--also-cluster: cannot render the ground truth of '%.200s'", spec);
        buf_release(&f->truth[i]);
        sim_world_free(w);
        sim_scenario_free(sc);
        return ERR_INVAL;
    }
    f->sc[i] = sc;
    f->w[i] = w;
    f->truth_path[i] = xstrdup(colon + 1);
    f->n++;
    return ERR_OK;
}

enum err sim_fleet_start(struct sim_fleet *f, const struct sim_server_options *base) {
    for (int i = 0; i < f->n; i++) {
        struct sim_server_options o = *base;
        o.world = f->w[i];
        o.port = 0;
        o.tls_port = 0;
        o.truth_json = buf_str(&f->truth[i]);
        o.do_worlds = NULL;
        o.n_do_worlds = 0;
        if (sim_server_start(&o, &f->srv[i]) != ERR_OK)
            return ERR_IO;
        bool v6 = strchr(o.host, ':') != NULL;
        char b[300] = "";
        if (o.tls)
            snprintf(b, sizeof b, " https %s%s%s:%u", v6 ? "[" : "", o.host, v6 ? "]" : "",
                     (unsigned)sim_server_tls_port(f->srv[i]));
        printf("spotsim: cluster http %s%s%s:%u%s cluster %s\n", v6 ? "[" : "", o.host,
               v6 ? "]" : "", (unsigned)sim_server_port(f->srv[i]), b, f->w[i]->cluster_id);
    }
    fflush(stdout);
    return ERR_OK;
}

enum err sim_fleet_down_at(struct sim_fleet *f, const char *spec, int64_t start, char *err,
                           size_t errlen) {
    const char *at = strchr(spec, '@');
    if (!at || at == spec || !at[1]) {
        snprintf(err, errlen, "--cluster-down: expected CLUSTER_ID@TIME|DURATION, got '%.200s'",
                 spec);
        return ERR_INVAL;
    }
    int i = -1;
    for (int k = 0; k < f->n; k++)
        if (strlen(f->w[k]->cluster_id) == (size_t)(at - spec) &&
            strncmp(f->w[k]->cluster_id, spec, (size_t)(at - spec)) == 0)
            i = k;
    if (i < 0) {
        snprintf(err, errlen,
                 "--cluster-down: '%.*s' is not the id of an --also-cluster cluster (the first "
                 "cluster's port serves the DigitalOcean API and cannot go down alone)",
                 (int)(at - spec > 100 ? 100 : at - spec), spec);
        return ERR_INVAL;
    }
    int64_t t;
    if (timeutil_parse_rfc3339(at + 1, strlen(at + 1), &t) != ERR_OK) {
        if (sim_parse_duration(at + 1, &t) != ERR_OK) {
            snprintf(err, errlen, "--cluster-down: expected RFC 3339 or a duration, got '%.100s'",
                     at + 1);
            return ERR_INVAL;
        }
        t += start;
    }
    if (t <= start) {
        snprintf(err, errlen, "--cluster-down: '%.100s' is not after the start", at + 1);
        return ERR_INVAL;
    }
    f->down_at[i] = t;
    return ERR_OK;
}

void sim_fleet_tick(struct sim_fleet *f, int64_t now) {
    for (int i = 0; i < f->n; i++) {
        if (f->down[i] || !f->down_at[i] || now < f->down_at[i] || !f->srv[i])
            continue;
        sim_server_stop(f->srv[i]);
        f->srv[i] = NULL;
        f->down[i] = true;
        char t[TIMEUTIL_RFC3339_MAX];
        timeutil_format_rfc3339(now, t);
        log_msg(LOG_INFO, "sim: cluster %s: Kubernetes API down at %s (--cluster-down)",
                f->w[i]->cluster_id, t);
        printf("spotsim: cluster %s down at %s\n", f->w[i]->cluster_id, t);
        fflush(stdout);
    }
}

void sim_fleet_write_truth(struct sim_fleet *f) {
    for (int i = 0; i < f->n; i++)
        if (sim_truth_write(f->truth_path[i], buf_str(&f->truth[i]), f->truth[i].len) == ERR_OK)
            log_msg(LOG_INFO, "sim: ground truth of cluster %s written to '%s'",
                    f->w[i]->cluster_id, f->truth_path[i]);
}

void sim_fleet_release(struct sim_fleet *f) {
    for (int i = 0; i < f->n; i++) {
        sim_server_stop(f->srv[i]);
        buf_release(&f->truth[i]);
        sim_world_free(f->w[i]);
        sim_scenario_free(f->sc[i]);
        free(f->truth_path[i]);
    }
    memset(f, 0, sizeof *f);
}
