/* config: flags, environment twins, validation messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "service/app.h"
#include "fake_env.h"
#include "service/config.h"

static int reset_env(void **state) {
    (void)state;
    fake_env_reset();
    return 0;
}

static enum config_result parse(struct config *cfg, char *err, int argc, ...) {
    char *argv[32];
    va_list ap;
    va_start(ap, argc);
    argv[0] = (char *)"spotledger";
    for (int i = 0; i < argc; i++)
        argv[i + 1] = va_arg(ap, char *);
    va_end(ap);
    return config_parse(cfg, argc + 1, argv, fake_getenv, err, 256);
}

static void test_defaults(void **state) {
    (void)state;
    struct config cfg;
    char err[256];
    assert_int_equal(parse(&cfg, err, 0), CONFIG_OK);
    assert_string_equal(cfg.listen_host, "127.0.0.1");
    assert_int_equal(cfg.listen_port, 8080);
    assert_string_equal(cfg.db, "./spotledger.db");
    assert_string_equal(cfg.do_api_url, "https://api.digitalocean.com");
    assert_string_equal(cfg.default_configuration, "fallback");
    assert_int_equal(cfg.poll_interval, 60);
    assert_true(cfg.kube_in_cluster);
    assert_false(cfg.metrics_open);
    config_release(&cfg);
}

static void test_flags_and_env(void **state) {
    (void)state;
    struct config cfg;
    char err[256];
    setenv_fake("SPOTLEDGER_DB", "/env/db");
    setenv_fake("SPOTLEDGER_POLL_INTERVAL", "30");
    setenv_fake("SPOTLEDGER_SPOT_POOL", "a,b");
    setenv_fake("SPOTLEDGER_METRICS_OPEN", "true");
    setenv_fake("DIGITALOCEAN_TOKEN", "secret");
    assert_int_equal(parse(&cfg, err, 7, "--db", "/flag/db", "--spot-label", "k=v",
                           "--on-demand-size=gpu-h100x1-80gb-spot=gpu-h100x1-80gb",
                           "--kube-api-url", "https://127.0.0.1:6443"),
                     CONFIG_OK);
    assert_string_equal(cfg.db, "/flag/db"); /* flag wins */
    assert_int_equal(cfg.poll_interval, 30); /* env fills the rest */
    assert_int_equal(cfg.n_spot_pools, 2);
    assert_string_equal(cfg.spot_pools[1], "b");
    assert_int_equal(cfg.n_spot_labels, 1);
    assert_string_equal(cfg.spot_labels[0].key, "k");
    assert_string_equal(cfg.spot_labels[0].value, "v");
    assert_string_equal(cfg.on_demand_sizes[0].key, "gpu-h100x1-80gb-spot");
    assert_string_equal(cfg.on_demand_sizes[0].value, "gpu-h100x1-80gb");
    assert_true(cfg.metrics_open);
    assert_false(cfg.kube_in_cluster);
    config_release(&cfg);
}

/* app_use_config hands query/ the cost flags as calc_settings (model/settings.h),
 * so query/calc.c never reads struct config: the values are the flags' own. */
static void test_app_use_config_fills_calc_settings(void **state) {
    (void)state;
    struct config cfg;
    char err[256];
    assert_int_equal(parse(&cfg, err, 6, "--default-configuration", "spot", "--on-demand-size",
                           "gpu-h100x1-80gb-spot=gpu-h100x1-80gb", "--on-demand-size", "a-spot=a"),
                     CONFIG_OK);
    struct app app;
    memset(&app, 0, sizeof app);
    app_use_config(&app, &cfg);
    assert_ptr_equal(app.cfg, &cfg);
    assert_string_equal(app.calc.default_configuration, "spot");
    assert_int_equal(app.calc.n_on_demand_sizes, 2);
    assert_string_equal(app.calc.on_demand_sizes[0].key, "gpu-h100x1-80gb-spot");
    assert_string_equal(app.calc.on_demand_sizes[0].value, "gpu-h100x1-80gb");
    assert_string_equal(app.calc.on_demand_sizes[1].key, "a-spot");
    assert_string_equal(app.calc.on_demand_sizes[1].value, "a");
    config_release(&cfg);
}

static void expect_bad(const char *want, int argc, const char *a, const char *b) {
    struct config cfg;
    char err[256];
    enum config_result r = argc == 1 ? parse(&cfg, err, 1, a) : parse(&cfg, err, 2, a, b);
    assert_int_equal(r, CONFIG_BAD);
    if (!strstr(err, want))
        fail_msg("error '%s' does not mention '%s'", err, want);
    config_release(&cfg);
}

static void test_invalid(void **state) {
    (void)state;
    expect_bad("--poll-interval", 2, "--poll-interval", "0");
    expect_bad("--poll-interval", 2, "--poll-interval", "12x");
    expect_bad("--listen", 2, "--listen", "nohostport");
    expect_bad("--listen", 2, "--listen", "127.0.0.1:99999");
    expect_bad("--api-token-file", 2, "--listen", "0.0.0.0:8080");
    expect_bad("--default-configuration", 2, "--default-configuration", "cheap");
    expect_bad("--log-level", 2, "--log-level", "loud");
    expect_bad("--do-api-url", 2, "--do-api-url", "ftp://x");
    expect_bad("--spot-label", 2, "--spot-label", "novalue");
    expect_bad("unknown flag '--frobnicate'", 1, "--frobnicate", NULL);
    expect_bad("needs a value", 1, "--db", NULL);
    expect_bad("takes no value", 1, "--metrics-open=1", NULL);
    expect_bad("unexpected argument", 1, "stray", NULL);
}

static void test_env_invalid_names_variable(void **state) {
    (void)state;
    struct config cfg;
    char err[256];
    setenv_fake("SPOTLEDGER_POLL_INTERVAL", "soon");
    assert_int_equal(parse(&cfg, err, 0), CONFIG_BAD);
    assert_non_null(strstr(err, "SPOTLEDGER_POLL_INTERVAL"));
    config_release(&cfg);
}

static void test_non_loopback_with_token(void **state) {
    (void)state;
    struct config cfg;
    char err[256];
    assert_int_equal(parse(&cfg, err, 4, "--listen", "0.0.0.0:8080", "--api-token-file", "/t"),
                     CONFIG_OK);
    assert_string_equal(cfg.listen_host, "0.0.0.0");
    config_release(&cfg);
    assert_int_equal(parse(&cfg, err, 2, "--listen", "[::1]:0"), CONFIG_OK);
    assert_string_equal(cfg.listen_host, "::1");
    assert_int_equal(cfg.listen_port, 0);
    config_release(&cfg);
    assert_true(config_host_is_loopback("127.1.2.3"));
    assert_false(config_host_is_loopback("10.0.0.1"));
    assert_false(config_host_is_loopback("127.evil.example.com"));
}

/* issue 18: a short API token is refused off loopback, and the error says why */
static void test_token_length(void **state) {
    (void)state;
    struct config cfg;
    char err[256];
    assert_int_equal(parse(&cfg, err, 4, "--listen", "0.0.0.0:8080", "--api-token-file", "/t"),
                     CONFIG_OK);
    assert_int_equal(config_check_token(&cfg, "api-token-file", "x", err, sizeof err), CONFIG_BAD);
    assert_non_null(strstr(err, "--api-token-file"));
    assert_non_null(strstr(err, "at least 16"));
    assert_int_equal(config_check_token(&cfg, "api-token-file", "0123456789abcde", err, sizeof err),
                     CONFIG_BAD); /* 15 bytes */
    assert_int_equal(
        config_check_token(&cfg, "api-token-file", "0123456789abcdef", err, sizeof err),
        CONFIG_OK); /* 16 */
    assert_int_equal(config_check_token(&cfg, "admin-token-file", NULL, err, sizeof err),
                     CONFIG_OK);
    config_release(&cfg);
    /* on loopback a short token is the operator's business */
    assert_int_equal(parse(&cfg, err, 2, "--listen", "127.0.0.1:8080"), CONFIG_OK);
    assert_int_equal(config_check_token(&cfg, "api-token-file", "x", err, sizeof err), CONFIG_OK);
    config_release(&cfg);
}

/* issue 17: outside a cluster with no Kubernetes flags the service must not
 * start silently without a watcher; --no-kube is the explicit way to run DO-only. */
static void test_kube_required_unless_no_kube(void **state) {
    (void)state;
    struct config cfg;
    char err[256];
    /* outside a cluster, nothing given: one line naming what to pass */
    assert_int_equal(parse(&cfg, err, 0), CONFIG_OK);
    assert_false(cfg.no_kube);
    err[0] = '\0';
    assert_int_equal(config_check_kube(&cfg, fake_getenv, err, sizeof err), CONFIG_BAD);
    assert_non_null(strstr(err, "--kube-api-url"));
    assert_non_null(strstr(err, "--no-kube"));
    assert_null(strchr(err, '\n'));
    config_release(&cfg);
    /* --no-kube: fine, and not in-cluster */
    assert_int_equal(parse(&cfg, err, 1, "--no-kube"), CONFIG_OK);
    assert_true(cfg.no_kube);
    assert_false(cfg.kube_in_cluster);
    assert_int_equal(config_check_kube(&cfg, fake_getenv, err, sizeof err), CONFIG_OK);
    config_release(&cfg);
    /* an explicit API URL: fine */
    assert_int_equal(parse(&cfg, err, 2, "--kube-api-url", "https://127.0.0.1:6443"), CONFIG_OK);
    assert_int_equal(config_check_kube(&cfg, fake_getenv, err, sizeof err), CONFIG_OK);
    config_release(&cfg);
    /* inside a cluster: the service account */
    setenv_fake("KUBERNETES_SERVICE_HOST", "10.245.0.1");
    assert_int_equal(parse(&cfg, err, 0), CONFIG_OK);
    assert_int_equal(config_check_kube(&cfg, fake_getenv, err, sizeof err), CONFIG_OK);
    config_release(&cfg);
    /* the environment twin, and the conflict */
    setenv_fake("SPOTLEDGER_NO_KUBE", "true");
    assert_int_equal(parse(&cfg, err, 0), CONFIG_OK);
    assert_true(cfg.no_kube);
    config_release(&cfg);
    expect_bad("--no-kube", 2, "--kube-api-url", "https://127.0.0.1:6443");
}

static void test_secret_read(void **state) {
    (void)state;
    char path[] = "/tmp/spotledger-secret-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "  tok-123\n", 10), 10);
    close(fd);
    char *s = NULL;
    assert_int_equal(secret_read(path, &s), ERR_OK);
    assert_string_equal(s, "tok-123");
    free(s);
    FILE *f = fopen(path, "w");
    fputs(" \n", f);
    fclose(f);
    s = NULL;
    assert_int_equal(secret_read(path, &s), ERR_INVAL);
    assert_null(s);
    unlink(path);
    assert_int_equal(secret_read(path, &s), ERR_IO);
}

/* --cluster NAME=TARGET (docs/fleet.md): repeatable, names checked, targets
 * split into context and DigitalOcean id, single-cluster flags refused beside it. */
static void test_cluster_flag(void **state) {
    (void)state;
    struct config cfg;
    char err[256];
    const char *id = "5f2c9a10-0b1e-4c3d-9e8f-0123456789ab";
    char b[128];
    snprintf(b, sizeof b, "b=do-ams3-west@%s", id);
    assert_int_equal(parse(&cfg, err, 6, "--cluster", "a=do-tor1-east", "--cluster", b, "--cluster",
                           "c.3=5f2c9a10-0b1e-4c3d-9e8f-0123456789ab"),
                     CONFIG_OK);
    assert_int_equal(cfg.n_clusters, 3);
    assert_string_equal(cfg.clusters[0].key, "a");
    assert_string_equal(cfg.clusters[1].key, "b");
    assert_string_equal(cfg.clusters[2].key, "c.3");
    assert_false(cfg.kube_in_cluster); /* contexts come from a kubeconfig */
    struct config_cluster_target t;
    assert_true(config_cluster_target(cfg.clusters[0].value, &t));
    assert_string_equal(t.context, "do-tor1-east");
    assert_string_equal(t.do_id, "");
    assert_true(config_cluster_target(cfg.clusters[1].value, &t));
    assert_string_equal(t.context, "do-ams3-west");
    assert_string_equal(t.do_id, id);
    assert_true(config_cluster_target(cfg.clusters[2].value, &t));
    assert_string_equal(t.context, "");
    assert_string_equal(t.do_id, id);
    /* an '@' not followed by a UUID is part of the context name */
    assert_true(config_cluster_target("admin@prod", &t));
    assert_string_equal(t.context, "admin@prod");
    assert_string_equal(t.do_id, "");
    config_release(&cfg);
    /* from the environment: comma-separated */
    setenv_fake("SPOTLEDGER_CLUSTER", "x=ctx-x,y=ctx-y");
    assert_int_equal(parse(&cfg, err, 0), CONFIG_OK);
    assert_int_equal(cfg.n_clusters, 2);
    assert_string_equal(cfg.clusters[1].value, "ctx-y");
    config_release(&cfg);
    fake_env_reset();

    assert_int_equal(parse(&cfg, err, 4, "--cluster", "a=x", "--cluster", "a=y"), CONFIG_BAD);
    assert_string_equal(err, "--cluster: 'a' is named twice");
    config_release(&cfg);
    assert_int_equal(parse(&cfg, err, 2, "--cluster", "a b=x"), CONFIG_BAD);
    assert_non_null(strstr(err, "name 'a b'"));
    config_release(&cfg);
    assert_int_equal(parse(&cfg, err, 2, "--cluster", "=x"), CONFIG_BAD);
    assert_non_null(strstr(err, "--cluster: expected NAME=CONTEXT_OR_ID"));
    config_release(&cfg);
    char longname[80];
    memset(longname, 'n', 64);
    snprintf(longname + 64, sizeof longname - 64, "=ctx");
    assert_int_equal(parse(&cfg, err, 2, "--cluster", longname), CONFIG_BAD);
    assert_non_null(strstr(err, "expected 1 to 63"));
    config_release(&cfg);
    assert_int_equal(parse(&cfg, err, 4, "--cluster", "a=x", "--kube-context", "y"), CONFIG_BAD);
    assert_non_null(strstr(err, "conflicts with --kube-context"));
    config_release(&cfg);
    assert_int_equal(parse(&cfg, err, 4, "--cluster", "a=x", "--cluster-id", id), CONFIG_BAD);
    assert_non_null(strstr(err, "conflicts with --cluster-id"));
    config_release(&cfg);
    /* cluster ids alone need no Kubernetes connection; a context does */
    assert_int_equal(parse(&cfg, err, 2, "--cluster", "c=5f2c9a10-0b1e-4c3d-9e8f-0123456789ab"),
                     CONFIG_OK);
    assert_int_equal(config_check_kube(&cfg, fake_getenv, err, sizeof err), CONFIG_OK);
    config_release(&cfg);
    assert_int_equal(parse(&cfg, err, 2, "--cluster", "a=ctx"), CONFIG_OK);
    assert_int_equal(config_check_kube(&cfg, fake_getenv, err, sizeof err), CONFIG_BAD);
    config_release(&cfg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_defaults, reset_env),
        cmocka_unit_test_setup(test_flags_and_env, reset_env),
        cmocka_unit_test_setup(test_invalid, reset_env),
        cmocka_unit_test_setup(test_env_invalid_names_variable, reset_env),
        cmocka_unit_test_setup(test_non_loopback_with_token, reset_env),
        cmocka_unit_test_setup(test_token_length, reset_env),
        cmocka_unit_test_setup(test_kube_required_unless_no_kube, reset_env),
        cmocka_unit_test_setup(test_secret_read, reset_env),
        cmocka_unit_test_setup(test_app_use_config_fills_calc_settings, reset_env),
        cmocka_unit_test_setup(test_cluster_flag, reset_env),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
