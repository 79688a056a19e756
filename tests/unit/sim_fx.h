/* sim_fx — spotsim's server in-process for a unit test (header only; include
 * after cmocka.h): a scenario loaded and its world built, a clock, a fault
 * injector (seed 99; the server gets it only when asked), the server on
 * 127.0.0.1 port 0, and GETs with libcurl that carry a timeout and stay on that
 * server. Shared by test_sim_api.c, test_sim_hold.c and sim_parse_fx.h
 * (test_sim_parse_do.c, test_sim_parse_k8s.c). */
#ifndef SPOTLEDGER_TEST_SIM_FX_H
#define SPOTLEDGER_TEST_SIM_FX_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "sim/sim_clock.h"
#include "sim/sim_fault.h"
#include "sim/sim_scenario.h"
#include "sim/sim_server.h"
#include "sim/sim_world.h"

struct fx {
    struct sim_scenario *sc;
    struct sim_world *w;
    struct sim_clock clock;
    struct sim_faults faults;
    struct sim_server *srv;
    char base[64];
    int64_t S;    /* scenario start */
    int64_t now;  /* the frozen time (sim_parse_fx.h) */
    int64_t asof; /* the world's seq at now (resourceVersion; sim_parse_fx.h) */
};

/* Loads scenario, builds its world and starts the clock at the scenario's start,
 * running at speed simulated seconds per real second (0: frozen). 0, or -1 with
 * the reason on stderr. */
static inline int fx_load(struct fx *f, const char *scenario, int speed) {
    memset(f, 0, sizeof *f);
    char err[256];
    if (sim_scenario_load(scenario, &f->sc, err, sizeof err) != ERR_OK) {
        fprintf(stderr, "%s: %s\n", scenario, err);
        return -1;
    }
    f->S = f->sc->start;
    f->w = sim_world_build(f->sc, 1, f->sc->start + f->sc->duration);
    sim_clock_init(&f->clock, f->S, f->w->horizon, speed);
    sim_faults_init(&f->faults, 99);
    return 0;
}

/* Starts the server on the loaded world: both APIs take token; a watch keeps
 * retention simulated seconds of history; the fault injector when faults. */
static inline int fx_serve(struct fx *f, const char *token, int64_t retention, bool faults) {
    struct sim_server_options so = {
        .world = f->w,
        .clock = &f->clock,
        .faults = faults ? &f->faults : NULL,
        .host = "127.0.0.1",
        .do_token = token,
        .kube_token = token,
        .retention = retention,
        .bookmark_ms = 200,
    };
    if (sim_server_start(&so, &f->srv) != ERR_OK)
        return -1;
    snprintf(f->base, sizeof f->base, "http://127.0.0.1:%u", (unsigned)sim_server_port(f->srv));
    return 0;
}

/* cmocka teardown of a fixture made with calloc, fx_load and fx_serve. */
static inline int fx_teardown(void **state) {
    struct fx *f = *state;
    sim_server_stop(f->srv);
    sim_faults_release(&f->faults);
    sim_world_free(f->w);
    sim_scenario_free(f->sc);
    free(f);
    return 0;
}

/* A response: status, body, the headers tests read, and the transfer's code. */
struct reply {
    long status;
    struct buf body;
    char date[64];
    char retry_after[32];
    char ratelimit_remaining[32];
    CURLcode cc;
};

static inline size_t on_body(char *p, size_t size, size_t n, void *ud) {
    struct reply *r = ud;
    if (buf_append(&r->body, p, size * n) != ERR_OK)
        return 0;
    return size * n;
}

/* Copies header `name`'s value from line (len bytes) into out (max bytes). */
static inline void header_value(const char *line, size_t len, const char *name, char *out,
                                size_t max) {
    size_t nl = strlen(name);
    if (len <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
        return;
    const char *v = line + nl + 1;
    size_t vl = len - nl - 1;
    while (vl && (*v == ' '))
        v++, vl--;
    while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n'))
        vl--;
    if (vl >= max)
        vl = max - 1;
    memcpy(out, v, vl);
    out[vl] = '\0';
}

static inline size_t on_header(char *p, size_t size, size_t n, void *ud) {
    struct reply *r = ud;
    header_value(p, size * n, "Date", r->date, sizeof r->date);
    header_value(p, size * n, "retry-after", r->retry_after, sizeof r->retry_after);
    header_value(p, size * n, "ratelimit-remaining", r->ratelimit_remaining,
                 sizeof r->ratelimit_remaining);
    return size * n;
}

/* GET url (absolute, must be on our loopback server) with the Bearer token (NULL:
 * none), within timeout_ms. The caller releases r->body. */
static inline void fx_get_url(struct fx *f, const char *url, const char *token, long timeout_ms,
                              struct reply *r) {
    memset(r, 0, sizeof *r);
    buf_init(&r->body, 64 * 1024 * 1024);
    assert_memory_equal(url, f->base, strlen(f->base)); /* loopback only */
    CURL *c = curl_easy_init();
    assert_non_null(c);
    struct curl_slist *h = NULL;
    char auth[128];
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    r->cc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
}

/* fx_get_url of the server's path. */
static inline void fx_get(struct fx *f, const char *path, const char *token, long timeout_ms,
                          struct reply *r) {
    char url[4096];
    int n = snprintf(url, sizeof url, "%s%s", f->base, path);
    assert_true(n > 0 && (size_t)n < sizeof url);
    fx_get_url(f, url, token, timeout_ms, r);
}

#endif
