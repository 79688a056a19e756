/* test_sim_fleet — spotsim's further clusters (sim/sim_fleet.h, docs/fleet.md):
 * --cluster-down ID@WHEN parsed against the clusters added (ids, RFC 3339 or a
 * duration after the start, refusals with a reason), and sim_fleet_tick
 * closing that cluster's port when the simulated clock reaches WHEN, not
 * before. Expected times by hand from tests/fixtures/sim/small.json
 * (start 2026-11-09T00:00:00Z = 1794182400). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/request.h"
#include "sim/sim_clock.h"
#include "sim/sim_do_api.h"
#include "sim/sim_fleet.h"
#include "sim/sim_scenario.h"
#include "sim/sim_world.h"

#define SMALL "tests/fixtures/sim/small.json"
#define SMALL_ID "5f2c6a0e-1b3d-4c7e-9a8f-0d1e2f3a4b5c"
#define WEST_ID "7b3d9c1a-2e4f-4a6b-8c0d-1e2f3a4b5c6e"
#define START 1794182400LL /* 2026-11-09T00:00:00Z */

struct fx {
    struct sim_scenario *first;
    struct sim_fleet f;
    char path[64];
};

/* small.json with another cluster id, as a scenario file of its own */
static int setup(void **state) {
    struct fx *x = calloc(1, sizeof *x);
    char err[400];
    assert_int_equal(sim_scenario_load(SMALL, &x->first, err, sizeof err), ERR_OK);
    assert_int_equal(x->first->start, START);
    FILE *in = fopen(SMALL, "rb");
    assert_non_null(in);
    static char text[64 * 1024];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    char *id = strstr(text, SMALL_ID);
    assert_non_null(id);
    memcpy(id, WEST_ID, strlen(WEST_ID));
    snprintf(x->path, sizeof x->path, "/tmp/test_sim_fleet_%ld.json", (long)getpid());
    FILE *out = fopen(x->path, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(text, 1, n, out), n);
    fclose(out);
    char spec[128];
    snprintf(spec, sizeof spec, "%s:/tmp/test_sim_fleet_%ld.truth", x->path, (long)getpid());
    assert_int_equal(
        sim_fleet_add(&x->f, spec, x->first, START + 12 * 3600, 2, false, err, sizeof err), ERR_OK);
    *state = x;
    return 0;
}

static int teardown(void **state) {
    struct fx *x = *state;
    sim_fleet_release(&x->f);
    sim_scenario_free(x->first);
    remove(x->path);
    free(x);
    return 0;
}

static void test_down_at_parse(void **state) {
    struct fx *x = *state;
    char err[400];
    /* a duration after the start: 6 h = 21600 s */
    assert_int_equal(sim_fleet_down_at(&x->f, WEST_ID "@6h", START, err, sizeof err), ERR_OK);
    assert_int_equal(x->f.down_at[0], START + 21600);
    /* an RFC 3339 time: 03:00 = start + 10800 */
    assert_int_equal(
        sim_fleet_down_at(&x->f, WEST_ID "@2026-11-09T03:00:00Z", START, err, sizeof err), ERR_OK);
    assert_int_equal(x->f.down_at[0], START + 10800);
    /* refused, each with its reason */
    static const struct {
        const char *spec, *why;
    } bad[] = {
        {SMALL_ID "@1h", "not the id of an --also-cluster cluster"}, /* the first cluster */
        {"nope@1h", "not the id"},
        {WEST_ID, "expected CLUSTER_ID@TIME|DURATION"},
        {WEST_ID "@", "expected CLUSTER_ID@TIME|DURATION"},
        {"@1h", "expected CLUSTER_ID@TIME|DURATION"},
        {WEST_ID "@soon", "expected RFC 3339 or a duration"},
        {WEST_ID "@0s", "not after the start"},
        {WEST_ID "@2026-11-08T23:00:00Z", "not after the start"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(sim_fleet_down_at(&x->f, bad[i].spec, START, err, sizeof err), ERR_INVAL);
        if (!strstr(err, bad[i].why))
            fail_msg("'%s': '%s' lacks '%s'", bad[i].spec, err, bad[i].why);
    }
    assert_int_equal(x->f.down_at[0], START + 10800); /* unchanged by the refusals */
}

static bool port_open(uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

static void test_tick_closes_the_port(void **state) {
    struct fx *x = *state;
    char err[400];
    assert_int_equal(sim_fleet_down_at(&x->f, WEST_ID "@6h", START, err, sizeof err), ERR_OK);
    struct sim_clock clock;
    sim_clock_init(&clock, START, START + 12 * 3600, 0);
    struct sim_server_options base = {.clock = &clock, .host = "127.0.0.1", .retention = 300};
    assert_int_equal(sim_fleet_start(&x->f, &base), ERR_OK);
    uint16_t port = sim_server_port(x->f.srv[0]);
    assert_true(port_open(port));
    sim_fleet_tick(&x->f, START + 21599); /* a second before: still up */
    assert_non_null(x->f.srv[0]);
    assert_false(x->f.down[0]);
    assert_true(port_open(port));
    sim_fleet_tick(&x->f, START + 21600);
    assert_null(x->f.srv[0]);
    assert_true(x->f.down[0]);
    assert_false(port_open(port));        /* refused: the API is down */
    sim_fleet_tick(&x->f, START + 30000); /* once only */
    assert_true(x->f.down[0]);
}

/* GET path (with "?k=v" params added by the caller) on the account's first
 * port at now; the parsed body (200 asserted). */
static json_object *account_get(const struct sim_fleet *f, const struct sim_world *first,
                                struct request *req, const char *path, int64_t now) {
    free(req->method);
    free(req->path);
    req->method = strdup("GET");
    req->path = strdup(path);
    struct response resp;
    response_init(&resp);
    assert_true(sim_do_handle_account(first, f->all, f->n + 1, req, now, "http://sim", &resp));
    assert_int_equal(resp.status, 200);
    json_object *o = json_tokener_parse(buf_str(&resp.body));
    assert_non_null(o);
    response_release(&resp);
    return o;
}

/* The GPU droplets listed for tag (NULL: none) at now: their count, the first
 * one's id copied to first_id when given. */
static size_t gpu_droplets(const struct sim_fleet *f, const struct sim_world *first,
                           const char *tag, int64_t now, char *first_id, size_t cap) {
    struct request req;
    request_init(&req);
    request_add_param(&req, "type", "gpus");
    request_add_param(&req, "per_page", "200");
    if (tag)
        request_add_param(&req, "tag_name", tag);
    json_object *o = account_get(f, first, &req, "/v2/droplets", now);
    json_object *arr = json_object_object_get(o, "droplets");
    size_t n = json_object_array_length(arr);
    if (first_id && n)
        snprintf(first_id, cap, "%lld",
                 (long long)json_object_get_int64(
                     json_object_object_get(json_object_array_get_idx(arr, 0), "id")));
    json_object_put(o);
    request_release(&req);
    return n;
}

/* The account's DigitalOcean API (the first port) lists every cluster of the
 * account and every cluster's droplets, as DigitalOcean does for a token of
 * the account: /v2/kubernetes/clusters has both ids; /v2/droplets?type=gpus
 * is east's (tag k8s:<east id>) and west's (tag k8s:<west id>) together, each
 * of them some; a west droplet is found by id. Before, both answered the first
 * cluster's only (west's tag listed nothing). At 1 h into small.json every GPU
 * pool has its nodes. */
static void test_account_lists_every_cluster(void **state) {
    struct fx *x = *state;
    struct sim_world *first = sim_world_build(x->first, 1, START + 12 * 3600);
    assert_non_null(first);
    x->f.all[0] = first; /* as spotsim's main: the first, then the others */
    x->f.all[1] = x->f.w[0];
    int64_t now = START + 3600;

    struct request req;
    request_init(&req);
    json_object *o = account_get(&x->f, first, &req, "/v2/kubernetes/clusters", now);
    json_object *arr = json_object_object_get(o, "kubernetes_clusters");
    assert_int_equal(json_object_array_length(arr), 2);
    assert_string_equal(
        json_object_get_string(json_object_object_get(json_object_array_get_idx(arr, 0), "id")),
        SMALL_ID);
    assert_string_equal(
        json_object_get_string(json_object_object_get(json_object_array_get_idx(arr, 1), "id")),
        WEST_ID);
    json_object_put(o);
    request_release(&req);

    char west_droplet[32] = "";
    size_t east = gpu_droplets(&x->f, first, "k8s:" SMALL_ID, now, NULL, 0);
    size_t west =
        gpu_droplets(&x->f, first, "k8s:" WEST_ID, now, west_droplet, sizeof west_droplet);
    size_t all = gpu_droplets(&x->f, first, NULL, now, NULL, 0);
    assert_true(east > 0);
    assert_true(west > 0);
    assert_int_equal(all, east + west);

    char path[64];
    snprintf(path, sizeof path, "/v2/droplets/%s", west_droplet);
    request_init(&req);
    o = account_get(&x->f, first, &req, path, now);
    assert_non_null(json_object_object_get(o, "droplet"));
    json_object_put(o);
    request_release(&req);
    x->f.all[0] = x->f.all[1] = NULL;
    sim_world_free(first);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_down_at_parse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tick_closes_the_port, setup, teardown),
        cmocka_unit_test_setup_teardown(test_account_lists_every_cluster, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
