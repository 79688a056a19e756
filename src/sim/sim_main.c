/* spotsim — a simulated DOKS cluster serving the DigitalOcean and Kubernetes
 * APIs spotledger polls. main: flags, wiring, signals; nothing else. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/secret.h"
#include "base/log.h"
#include "base/stopsig.h"
#include "sim/sim_authz.h"
#include "sim/sim_clock.h"
#include "sim/sim_fault.h"
#include "sim/sim_fleet.h"
#include "sim/sim_scenario.h"
#include "sim/sim_server.h"
#include "sim/sim_tls.h"
#include "sim/sim_truth.h"
#include "sim/sim_world.h"
#include "base/timeutil.h"
#include "base/xalloc.h"

struct opts {
    const char *scenario;
    uint64_t seed;
    int64_t speed;
    bool hold;
    const char *until;
    const char *listen;
    const char *tls_listen;
    bool no_tls;
    const char *tls_cert_out;
    const char *truth;
    bool truth_only;
    bool kube_deletion; /* --kube-deletion-timestamps */
    const char *do_token_file;
    const char *kube_token_file;
    int64_t retention;
    int rate_per_minute;
    int64_t bookmark_ms;
    int64_t pace_ms; /* --pace-watches: the longest stand, real ms; 0 off */
    const char *fault[SIM_FAULT_COUNT];
    int64_t fault_slow_ms;
    uint64_t fault_seed;
    enum log_level log_level;
    struct sim_authz authz;          /* --deny-scope, --deny-verb */
    const char *also[SIM_FLEET_MAX]; /* --also-cluster SCENARIO:TRUTH */
    int n_also;
    const char *down[SIM_FLEET_MAX]; /* --cluster-down ID@WHEN */
    int n_down;
};

static const char *const fault_flags[SIM_FAULT_COUNT] = {
    "--fault-429",        "--fault-5xx",       "--fault-slow",     "--fault-truncate",
    "--fault-watch-drop", "--fault-watch-410", "--fault-watch-dup"};

static void usage(FILE *f) {
    fputs("usage: spotsim --scenario FILE [options]\n"
          "  --scenario FILE        scenario JSON (src/sim/README.md)\n"
          "  --seed N               PRNG seed (1)\n"
          "  --speed N              simulated seconds per real second (1)\n"
          "  --hold                 keep the clock at the start until the first request for\n"
          "                         pods, or 5 s after the first Kubernetes request (so a client\n"
          "                         started a moment later misses nothing)\n"
          "  --until TIME|DURATION  stop the simulation there (RFC 3339, or a duration after the\n"
          "                         start such as 36h); default: the scenario's end\n"
          "  --listen HOST:PORT     plain HTTP (127.0.0.1:0 = a free port)\n"
          "  --tls-listen HOST:PORT HTTPS with a generated certificate (same host, port 0)\n"
          "  --no-tls               serve plain HTTP only\n"
          "  --tls-cert-out FILE    write the certificate PEM (a CA file for clients)\n"
          "  --truth FILE           write the ground truth when the simulation reaches --until\n"
          "  --truth-only           simulate, write --truth (or stdout) and exit\n"
          "  --also-cluster S:T     another cluster of the account: scenario S (same start),\n"
          "                         its own Kubernetes port, truth written to T (repeatable);\n"
          "                         the first port's DigitalOcean API serves every cluster\n"
          "  --cluster-down ID@WHEN  the --also-cluster cluster ID's Kubernetes API stops at\n"
          "                         WHEN (RFC 3339, or a duration after the start): its ports\n"
          "                         close; the DigitalOcean API still answers for it (repeatable)\n"
          "  --kube-deletion-timestamps  pods' deletionTimestamp = request + grace (Kubernetes)\n"
          "  --do-token-file F      DigitalOcean Bearer token to accept (default: any)\n"
          "  --kube-token-file F    Kubernetes Bearer token to accept (default: any)\n"
          "  --watch-retention DUR  watch history in simulated time (default 300s x speed)\n"
          "  --rate-limit N         DigitalOcean requests per real minute, then 429 (250; 0 off)\n"
          "  --bookmark-ms MS       real milliseconds between watch BOOKMARKs (1000)\n"
          "  --pace-watches MS      the clock stands while a Kubernetes kind that was watched\n"
          "                         has no open watch (a client reconnecting, relisting after a\n"
          "                         410, backing off), at most MS real milliseconds a time, so\n"
          "                         a fast clock loses nothing to the gap (0: off, the default)\n"
          "  --fault-429 R, --fault-5xx R, --fault-slow R, --fault-truncate R,\n"
          "  --fault-watch-drop R, --fault-watch-410 R, --fault-watch-dup R\n"
          "                         R = a probability (0.05) or a count (3 = the first three)\n"
          "  --fault-slow-ms MS     delay of a slow answer (35000)\n"
          "  --fault-seed N         seed of the fault generator (the --seed)\n"
          "  --deny-scope SCOPE     the DigitalOcean token lacks SCOPE (billing:read, ...): 403\n"
          "  --deny-verb VERB:RES   the service account may not VERB RES (watch:pods): 403 and\n"
          "                         SelfSubjectAccessReview allowed=false (both repeatable)\n"
          "  --log-level LEVEL      debug|info|warn|error (info)\n"
          "On start, one line on stdout: spotsim: http HOST:PORT https HOST:PORT2\n",
          f);
}

static bool parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out) {
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* A repeatable fleet flag's value (at most SIM_FLEET_MAX of them). */
static bool push_spec(const char *flag, const char **list, int *n, const char *v) {
    if (*n >= SIM_FLEET_MAX) {
        fprintf(stderr, "spotsim: %s: at most %d\n", flag, SIM_FLEET_MAX);
        return false;
    }
    list[(*n)++] = v;
    return true;
}

static int parse_args(int argc, char **argv, struct opts *o) {
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->speed = 1;
    o->listen = "127.0.0.1:0";
    o->rate_per_minute = 250;
    o->bookmark_ms = 1000;
    o->fault_slow_ms = 35000;
    o->log_level = LOG_INFO;
    o->retention = -1;
    bool fault_seed_set = false;
    /* the flags that keep their value as given, that set a switch, that take a
     * whole number in [lo, hi]; the others are parsed one by one below */
    const struct {
        const char *flag;
        const char **dst;
    } text_flags[] = {{"--scenario", &o->scenario},
                      {"--until", &o->until},
                      {"--listen", &o->listen},
                      {"--tls-listen", &o->tls_listen},
                      {"--tls-cert-out", &o->tls_cert_out},
                      {"--truth", &o->truth},
                      {"--do-token-file", &o->do_token_file},
                      {"--kube-token-file", &o->kube_token_file}};
    const struct {
        const char *flag;
        bool *dst;
    } switch_flags[] = {{"--hold", &o->hold},
                        {"--no-tls", &o->no_tls},
                        {"--truth-only", &o->truth_only},
                        {"--kube-deletion-timestamps", &o->kube_deletion}};
    const struct int_flag {
        const char *flag;
        int64_t lo, hi;
        int64_t *dst;
    } int_flags[] = {{"--speed", 0, 10000000, &o->speed},
                     {"--bookmark-ms", 10, 3600000, &o->bookmark_ms},
                     {"--pace-watches", 0, 600000, &o->pace_ms},
                     {"--fault-slow-ms", 0, 600000, &o->fault_slow_ms}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t x;
#define NEED()                                                                                     \
    do {                                                                                           \
        if (!v) {                                                                                  \
            fprintf(stderr, "spotsim: %s needs a value\n", a);                                     \
            return 2;                                                                              \
        }                                                                                          \
        i++;                                                                                       \
    } while (0)
        const char **text = NULL;
        bool *on = NULL;
        const struct int_flag *num = NULL;
        for (size_t k = 0; k < sizeof text_flags / sizeof text_flags[0]; k++)
            if (strcmp(a, text_flags[k].flag) == 0)
                text = text_flags[k].dst;
        for (size_t k = 0; k < sizeof switch_flags / sizeof switch_flags[0]; k++)
            if (strcmp(a, switch_flags[k].flag) == 0)
                on = switch_flags[k].dst;
        for (size_t k = 0; k < sizeof int_flags / sizeof int_flags[0]; k++)
            if (strcmp(a, int_flags[k].flag) == 0)
                num = &int_flags[k];
        if (text) {
            NEED();
            *text = v;
        } else if (on) {
            *on = true;
        } else if (num) {
            NEED();
            if (!parse_int(v, num->lo, num->hi, num->dst))
                goto bad;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(a, "--seed") == 0) {
            NEED();
            if (!parse_int(v, 0, INT64_MAX, &x))
                goto bad;
            o->seed = (uint64_t)x;
        } else if (strcmp(a, "--also-cluster") == 0) {
            NEED();
            if (!push_spec(a, o->also, &o->n_also, v))
                return 2;
        } else if (strcmp(a, "--cluster-down") == 0) {
            NEED();
            if (!push_spec(a, o->down, &o->n_down, v))
                return 2;
        } else if (strcmp(a, "--deny-scope") == 0) {
            NEED();
            if (sim_authz_deny_scope(&o->authz, v) != ERR_OK) {
                fprintf(stderr, "spotsim: --deny-scope: unknown scope '%s' (e.g. billing:read)\n",
                        v);
                return 2;
            }
        } else if (strcmp(a, "--deny-verb") == 0) {
            NEED();
            if (sim_authz_deny_verb(&o->authz, v) != ERR_OK) {
                fprintf(stderr,
                        "spotsim: --deny-verb: expected get|list|watch:RESOURCE, got '%s'\n", v);
                return 2;
            }
        } else if (strcmp(a, "--watch-retention") == 0) {
            NEED();
            if (sim_parse_duration(v, &o->retention) != ERR_OK)
                goto bad;
        } else if (strcmp(a, "--rate-limit") == 0) {
            NEED();
            if (!parse_int(v, 0, 1000000, &x))
                goto bad;
            o->rate_per_minute = (int)x;
        } else if (strcmp(a, "--fault-seed") == 0) {
            NEED();
            if (!parse_int(v, 0, INT64_MAX, &x))
                goto bad;
            o->fault_seed = (uint64_t)x;
            fault_seed_set = true;
        } else if (strcmp(a, "--log-level") == 0) {
            NEED();
            if (log_level_parse(v, &o->log_level) != ERR_OK)
                goto bad;
        } else {
            bool known = false;
            for (int k = 0; k < SIM_FAULT_COUNT; k++)
                if (strcmp(a, fault_flags[k]) == 0) {
                    NEED();
                    struct sim_fault_rule r;
                    if (sim_fault_rule_parse(v, &r) != ERR_OK)
                        goto bad;
                    o->fault[k] = v;
                    known = true;
                }
            if (!known) {
                fprintf(stderr, "spotsim: unknown flag '%s' (see --help)\n", a);
                return 2;
            }
        }
        continue;
    bad:
        fprintf(stderr, "spotsim: %s: invalid value '%s'\n", a, v);
        return 2;
#undef NEED
    }
    if (!o->scenario) {
        fprintf(stderr, "spotsim: --scenario is required (see --help)\n");
        return 2;
    }
    if (!fault_seed_set)
        o->fault_seed = o->seed;
    return 0;
}

static bool split_hostport(const char *s, char *host, size_t hostlen, uint16_t *port) {
    const char *colon = strrchr(s, ':');
    int64_t p;
    if (!colon || colon == s || (size_t)(colon - s) >= hostlen ||
        !parse_int(colon + 1, 0, 65535, &p))
        return false;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    if (host[0] == '[') { /* [::1]:8080 */
        size_t n = strlen(host);
        if (n < 3 || host[n - 1] != ']')
            return false;
        memmove(host, host + 1, n - 2);
        host[n - 2] = '\0';
    }
    *port = (uint16_t)p;
    return true;
}

static bool is_loopback(const char *host) {
    return strcmp(host, "127.0.0.1") == 0 || strcmp(host, "localhost") == 0 ||
           strcmp(host, "::1") == 0 || strncmp(host, "127.", 4) == 0;
}

static char *read_token(const char *flag, const char *path) {
    char *tok = NULL;
    if (!path)
        return NULL;
    enum err rc = secret_read(path, &tok);
    if (rc != ERR_OK) {
        fprintf(stderr, "spotsim: %s: cannot read '%s': %s\n", flag, path, err_str(rc));
        exit(2);
    }
    return tok;
}

static void free_secret(char *s) {
    if (s) {
        memset(s, 0, strlen(s));
        free(s);
    }
}

/* The --also-cluster clusters and their --cluster-down times; false with err
 * saying why (the caller releases f). */
static bool build_fleet(const struct opts *o, const struct sim_scenario *sc,
                        const struct sim_world *w, int64_t horizon, struct sim_fleet *f, char *err,
                        size_t errlen) {
    for (int i = 0; i < o->n_also; i++) {
        if (sim_fleet_add(f, o->also[i], sc, horizon, o->seed + 1 + (uint64_t)i, o->kube_deletion,
                          err, errlen) != ERR_OK)
            return false;
        if (strcmp(f->w[f->n - 1]->cluster_id, w->cluster_id) == 0) {
            snprintf(err, errlen, "--also-cluster: cluster id %s is the first's", w->cluster_id);
            return false;
        }
    }
    for (int i = 0; i < o->n_down; i++)
        if (sim_fleet_down_at(f, o->down[i], sc->start, err, errlen) != ERR_OK)
            return false;
    return true;
}

int main(int argc, char **argv) {
    struct opts o;
    int pr = parse_args(argc, argv, &o);
    if (pr)
        return pr == 1 ? 0 : pr;
    log_set_level(o.log_level);

    char err[512];
    struct sim_scenario *sc = NULL;
    if (sim_scenario_load(o.scenario, &sc, err, sizeof err) != ERR_OK) {
        fprintf(stderr, "spotsim: %s\n", err);
        return 2;
    }
    int64_t horizon = sc->start + sc->duration;
    if (o.until) {
        int64_t t;
        if (timeutil_parse_rfc3339(o.until, strlen(o.until), &t) == ERR_OK)
            horizon = t;
        else if (sim_parse_duration(o.until, &t) == ERR_OK)
            horizon = sc->start + t;
        else {
            fprintf(stderr, "spotsim: --until: expected RFC 3339 or a duration, got '%s'\n",
                    o.until);
            sim_scenario_free(sc);
            return 2;
        }
        if (horizon < sc->start) {
            fprintf(stderr, "spotsim: --until: before the scenario start\n");
            sim_scenario_free(sc);
            return 2;
        }
    }
    char host[256], tls_host[256];
    uint16_t port = 0, tls_port = 0;
    if (!split_hostport(o.listen, host, sizeof host, &port) ||
        (o.tls_listen && !split_hostport(o.tls_listen, tls_host, sizeof tls_host, &tls_port))) {
        fprintf(stderr, "spotsim: --listen/--tls-listen: expected HOST:PORT\n");
        sim_scenario_free(sc);
        return 2;
    }
    if (!is_loopback(host)) {
        fprintf(stderr,
                "spotsim: --listen: '%s' is not a loopback address; spotsim serves "
                "loopback only\n",
                host);
        sim_scenario_free(sc);
        return 2;
    }
    if (o.tls_listen && strcmp(tls_host, host) != 0) {
        fprintf(stderr, "spotsim: --tls-listen: must use the same host as --listen\n");
        sim_scenario_free(sc);
        return 2;
    }

    struct sim_world *w = sim_world_build(sc, o.seed, horizon);
    w->kube_deletion = o.kube_deletion;
    struct buf truth;
    buf_init(&truth, 0);
    if (sim_truth_render(w, &truth) != ERR_OK) {
        fprintf(stderr, "spotsim: cannot render the ground truth\n");
        return 1;
    }
    log_msg(LOG_INFO, "sim: %d nodes, %d jobs, %d pods, %d events, %d reclaims, %d log entries",
            w->nnodes, w->njobs, w->npods, w->nevents, w->nreclaims, w->nlog);
    int status = 0;
    if (o.truth_only) {
        if (o.truth)
            status = sim_truth_write(o.truth, buf_str(&truth), truth.len) == ERR_OK ? 0 : 1;
        else
            status = fwrite(buf_str(&truth), 1, truth.len, stdout) == truth.len ? 0 : 1;
        buf_release(&truth);
        sim_world_free(w);
        sim_scenario_free(sc);
        return status;
    }

    struct sim_fleet fleet;
    memset(&fleet, 0, sizeof fleet);
    if (!build_fleet(&o, sc, w, horizon, &fleet, err, sizeof err)) {
        fprintf(stderr, "spotsim: %s\n", err);
        sim_fleet_release(&fleet);
        buf_release(&truth);
        sim_world_free(w);
        sim_scenario_free(sc);
        return 2;
    }
    fleet.all[0] = w;
    for (int i = 0; i < fleet.n; i++)
        fleet.all[i + 1] = fleet.w[i];

    char *do_token = read_token("--do-token-file", o.do_token_file);
    char *kube_token = read_token("--kube-token-file", o.kube_token_file);

    sigset_t stop_set;
    stopsig_block(&stop_set);

    struct sim_tls tls = {NULL, NULL};
    struct sim_faults faults;
    sim_faults_init(&faults, o.fault_seed);
    faults.slow_ms = o.fault_slow_ms;
    for (int k = 0; k < SIM_FAULT_COUNT; k++)
        if (o.fault[k])
            sim_fault_rule_parse(o.fault[k], &faults.rule[k]);
    struct sim_clock clock;
    struct sim_server *srv = NULL;
    status = 1;
    if (!o.no_tls) {
        if (sim_tls_generate(&tls) != ERR_OK) {
            fprintf(stderr, "spotsim: cannot generate a TLS certificate\n");
            goto out;
        }
        if (o.tls_cert_out && sim_tls_write_cert(&tls, o.tls_cert_out) != ERR_OK) {
            fprintf(stderr, "spotsim: --tls-cert-out: cannot write '%s'\n", o.tls_cert_out);
            goto out;
        }
    }
    sim_clock_init(&clock, sc->start, horizon, o.speed);
    if (o.hold)
        sim_clock_hold(&clock);
    if (o.pace_ms > 0)
        sim_clock_pace(&clock, o.pace_ms);
    int64_t retention = o.retention >= 0 ? o.retention : 300 * (o.speed > 1 ? o.speed : 1);
    struct sim_server_options so = {
        .world = w,
        .clock = &clock,
        .faults = sim_faults_any(&faults) ? &faults : NULL,
        .host = host,
        .port = port,
        .tls = o.no_tls ? NULL : &tls,
        .tls_port = tls_port,
        .do_token = do_token,
        .kube_token = kube_token,
        .authz = &o.authz,
        .retention = retention,
        .rate_per_minute = o.rate_per_minute,
        .truth_json = buf_str(&truth),
        .bookmark_ms = o.bookmark_ms,
        .do_worlds = fleet.n ? fleet.all : NULL,
        .n_do_worlds = fleet.n ? fleet.n + 1 : 0,
    };
    if (sim_server_start(&so, &srv) != ERR_OK) {
        fprintf(stderr, "spotsim: --listen: cannot serve on '%s'\n", o.listen);
        goto out;
    }
    bool v6 = strchr(host, ':') != NULL;
    char a[300], b[300] = "";
    snprintf(a, sizeof a, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "",
             (unsigned)sim_server_port(srv));
    if (!o.no_tls)
        snprintf(b, sizeof b, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "",
                 (unsigned)sim_server_tls_port(srv));
    printf("spotsim: http %s%s%s cluster %s\n", a, o.no_tls ? "" : " https ", b, w->cluster_id);
    fflush(stdout);
    if (fleet.n && sim_fleet_start(&fleet, &so) != ERR_OK) {
        fprintf(stderr, "spotsim: --also-cluster: cannot serve\n");
        goto out;
    }
    char s0[TIMEUTIL_RFC3339_MAX], s1[TIMEUTIL_RFC3339_MAX];
    timeutil_format_rfc3339(sc->start, s0);
    timeutil_format_rfc3339(horizon, s1);
    log_msg(LOG_INFO, "sim: simulating %s .. %s at %lldx (seed %llu)", s0, s1, (long long)o.speed,
            (unsigned long long)o.seed);

    bool truth_written = false;
    for (;;) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        int sig = sigtimedwait(&stop_set, NULL, &ts);
        if (sig == SIGINT || sig == SIGTERM) {
            log_msg(LOG_INFO, "sim: %s received, stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
            break;
        }
        sim_fleet_tick(&fleet, sim_clock_now(&clock));
        if (!truth_written && sim_clock_done(&clock)) {
            truth_written = true;
            log_msg(LOG_INFO, "sim: reached %s; serving the final state", s1);
            if (o.truth && sim_truth_write(o.truth, buf_str(&truth), truth.len) == ERR_OK)
                log_msg(LOG_INFO, "sim: ground truth written to '%s'", o.truth);
            sim_fleet_write_truth(&fleet);
        }
    }
    status = 0;
out:
    sim_fleet_release(&fleet);
    sim_server_stop(srv);
    sim_tls_release(&tls);
    sim_faults_release(&faults);
    free_secret(do_token);
    free_secret(kube_token);
    buf_release(&truth);
    sim_world_free(w);
    sim_scenario_free(sc);
    return status;
}
