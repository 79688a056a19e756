/* kube_exec: an exec credential plugin's token cached until its expiry, re-run on
 * expiry and on a rejected token, client certificates written 0600, and clear
 * errors for a missing, failing, slow or garbled plugin. The plugins are small sh
 * scripts written into a temporary directory; the clock is a fake. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/log.h"
#include "base/secret.h"
#include "source/kube_exec.h"
#include "dirfx.h"

static int64_t fake_now(void *ctx) {
    return ((struct dirfx *)ctx)->now;
}

static int setup(void **state) {
    if (dirfx_setup(state, "/tmp/spotledger-ke-XXXXXX") != 0)
        return -1;
    ((struct dirfx *)*state)->now = 1796000000; /* 2026-11-30T00:53:20Z */
    return 0;
}

/* Writes an executable script `name` with body; returns its path (static). */
static const char *script(struct dirfx *f, const char *name, const char *body) {
    static char path[160];
    snprintf(path, sizeof path, "%s/%s", f->dir, name);
    FILE *o = fopen(path, "w");
    assert_non_null(o);
    fprintf(o, "#!/bin/sh\n%s", body);
    fclose(o);
    chmod(path, 0700);
    return path;
}

static struct kube_exec *make(struct dirfx *f, const char *cmd, const char *api, long timeout_ms) {
    struct kube_exec_config c;
    memset(&c, 0, sizeof c);
    c.api_version = (char *)(api ? api : "client.authentication.k8s.io/v1beta1");
    c.command = (char *)cmd;
    c.args[0] = (char *)"exec-credential";
    c.n_args = 1;
    c.env_names[0] = (char *)"PLUGIN_DIR";
    c.env_values[0] = f->dir;
    c.n_env = 1;
    c.install_hint = (char *)"install the fake plugin";
    char cert[160], key[160];
    snprintf(cert, sizeof cert, "%s/cert.pem", f->dir);
    snprintf(key, sizeof key, "%s/key.pem", f->dir);
    struct kube_exec_options o = {.cert_file = cert,
                                  .key_file = key,
                                  .timeout_ms = timeout_ms,
                                  .now = fake_now,
                                  .now_ctx = f};
    return kube_exec_new(&c, &o);
}

/* A plugin counting its runs in $PLUGIN_DIR/n and printing token tok-<n>, an
 * argument check, and an expiry 2026-12-01T00:00:00Z = 1796083200. */
static const char COUNTING[] =
    "[ \"$1\" = exec-credential ] || exit 9\n"
    "echo \"$KUBERNETES_EXEC_INFO\" | grep -q '\"interactive\":false' || exit 8\n"
    "n=$(cat \"$PLUGIN_DIR/n\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$PLUGIN_DIR/n\"\n"
    "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
    "\"status\":{\"token\":\"tok-%s\",\"expirationTimestamp\":\"2026-12-01T00:00:00Z\"}}' $n\n";

/* kube_exec_get(ex, rejected: the token the API refused, or NULL) answers with the
 * token want (then freed), not a client certificate. */
static void token_is(struct kube_exec *ex, const char *rejected, const char *want) {
    char *tok = NULL, err[256];
    bool cert = true;
    assert_int_equal(kube_exec_get(ex, rejected, &tok, &cert, err, sizeof err), ERR_OK);
    assert_string_equal(tok, want);
    assert_false(cert);
    secret_free(tok, 0);
}

static void test_cached_until_expiry(void **state) {
    struct dirfx *f = *state;
    struct kube_exec *ex = make(f, script(f, "plugin", COUNTING), NULL, 0);
    f->now = 1796083200 - 3600;
    token_is(ex, NULL, "tok-1");
    /* an hour later, still 100 s before the expiry: the cache answers */
    f->now = 1796083200 - 100;
    token_is(ex, NULL, "tok-1");
    assert_int_equal(kube_exec_runs(ex), 1);
    /* the expiry passed: the plugin runs again */
    f->now = 1796083200;
    token_is(ex, NULL, "tok-2");
    assert_int_equal(kube_exec_runs(ex), 2);
    kube_exec_free(ex);
}

static void test_rejected_token_reruns(void **state) {
    struct dirfx *f = *state;
    struct kube_exec *ex = make(f, script(f, "plugin", COUNTING), NULL, 0);
    f->now = 1796083200 - 3600;
    token_is(ex, NULL, "tok-1");
    /* an older rejected token (another thread already refreshed): no re-run */
    token_is(ex, "tok-0", "tok-1");
    assert_int_equal(kube_exec_runs(ex), 1);
    /* the API answered 401 to the current one: re-run */
    token_is(ex, "tok-1", "tok-2");
    kube_exec_free(ex);
}

static void test_expired_token_from_plugin(void **state) {
    struct dirfx *f = *state;
    /* the plugin hands out a token that is already expired: every get re-runs it */
    struct kube_exec *ex = make(f, script(f, "plugin", COUNTING), NULL, 0);
    f->now = 1796083200 + 10;
    for (int i = 1; i <= 3; i++) {
        char want[16];
        snprintf(want, sizeof want, "tok-%d", i);
        token_is(ex, NULL, want);
    }
    assert_int_equal(kube_exec_runs(ex), 3);
    kube_exec_free(ex);
}

static void test_client_certificate(void **state) {
    struct dirfx *f = *state;
    const char *p = script(f, "plugin",
                           "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                           "\"kind\":\"ExecCredential\",\"status\":{\"clientCertificateData\":"
                           "\"-----BEGIN CERTIFICATE-----\\\\nC\\\\n\",\"clientKeyData\":"
                           "\"-----BEGIN PRIVATE KEY-----\\\\nK\\\\n\"}}'\n");
    struct kube_exec *ex = make(f, p, "client.authentication.k8s.io/v1", 0);
    char *tok = NULL, err[256];
    bool cert = false;
    assert_int_equal(kube_exec_get(ex, NULL, &tok, &cert, err, sizeof err), ERR_OK);
    assert_true(cert);
    assert_null(tok);
    char path[160];
    snprintf(path, sizeof path, "%s/key.pem", f->dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char *key = NULL;
    assert_int_equal(secret_read(path, &key), ERR_OK);
    assert_string_equal(key, "-----BEGIN PRIVATE KEY-----\nK");
    secret_free(key, 0);
    kube_exec_free(ex);
}

static void test_failures_are_clear(void **state) {
    struct dirfx *f = *state;
    char *tok = NULL, err[256];
    bool cert;
    char missing[160];
    snprintf(missing, sizeof missing, "%s/no-such-plugin", f->dir);
    struct kube_exec *ex = make(f, missing, NULL, 0);
    assert_int_equal(kube_exec_get(ex, NULL, &tok, &cert, err, sizeof err), ERR_NOTFOUND);
    assert_non_null(strstr(err, "no-such-plugin"));
    assert_non_null(strstr(err, "install the fake plugin"));
    kube_exec_free(ex);
    /* a bare name is looked up on PATH */
    ex = make(f, "spotledger-no-such-plugin-xyz", NULL, 0);
    assert_int_equal(kube_exec_get(ex, NULL, &tok, &cert, err, sizeof err), ERR_NOTFOUND);
    kube_exec_free(ex);

    ex =
        make(f, script(f, "fail", "echo 'error: token expired, run doctl auth init' >&2\nexit 3\n"),
             NULL, 0);
    assert_int_equal(kube_exec_get(ex, NULL, &tok, &cert, err, sizeof err), ERR_IO);
    assert_non_null(strstr(err, "status 3: error: token expired, run doctl auth init"));
    kube_exec_free(ex);

    ex = make(f, script(f, "garbage", "echo not json\n"), NULL, 0);
    assert_int_equal(kube_exec_get(ex, NULL, &tok, &cert, err, sizeof err), ERR_PARSE);
    assert_non_null(strstr(err, "ExecCredential"));
    kube_exec_free(ex);

    ex = make(f, script(f, "plugin", COUNTING), "client.authentication.k8s.io/v1", 0);
    assert_int_equal(kube_exec_get(ex, NULL, &tok, &cert, err, sizeof err), ERR_PARSE);
    assert_non_null(strstr(err, "apiVersion"));
    kube_exec_free(ex);

    /* a plugin that hangs is killed at the timeout (300 ms), not waited for */
    ex = make(f, script(f, "slow", "exec sleep 30\n"), NULL, 300);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    assert_int_equal(kube_exec_get(ex, NULL, &tok, &cert, err, sizeof err), ERR_IO);
    clock_gettime(CLOCK_MONOTONIC, &b);
    assert_true(b.tv_sec - a.tv_sec < 10);
    assert_non_null(strstr(err, "in time"));
    kube_exec_free(ex);
}

int main(void) {
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cached_until_expiry, setup, dirfx_teardown),
        cmocka_unit_test_setup_teardown(test_rejected_token_reruns, setup, dirfx_teardown),
        cmocka_unit_test_setup_teardown(test_expired_token_from_plugin, setup, dirfx_teardown),
        cmocka_unit_test_setup_teardown(test_client_certificate, setup, dirfx_teardown),
        cmocka_unit_test_setup_teardown(test_failures_are_clear, setup, dirfx_teardown),
    };
    return cmocka_run_group_tests_name("kube_exec", tests, NULL, NULL);
}
