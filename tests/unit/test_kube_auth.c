/* kube_auth + do_token: where the Kubernetes API and the DigitalOcean token come
 * from. Sources in order, kubeconfig credentials (-data written 0600 and removed
 * on release, cert/key, insecure refused without --kube-insecure, a failing exec
 * plugin stops resolution), the token of a kube_token from each source, and the
 * DigitalOcean token's sources (file, two env vars, doctl contexts). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/log.h"
#include "base/secret.h"
#include "source/do_token.h"
#include "source/kube_auth.h"
#include "fake_env.h"
#include "tmpdir.h"

static char g_dir[64];

static int setup(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/spotledger-ka-XXXXXX");
    if (!mkdtemp(g_dir))
        return -1;
    fake_env_reset();
    setenv_fake("TMPDIR", g_dir);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    return tmpdir_remove(g_dir);
}

static const char *put(const char *name, const char *text) {
    static char path[4][160];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, 160, "%s/%s", g_dir, name);
    char dir[160];
    snprintf(dir, sizeof dir, "%s", p);
    /* mkdir -p of the parents below g_dir */
    for (char *s = dir + strlen(g_dir) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        mkdir(dir, 0700);
        *s = '/';
    }
    FILE *o = fopen(p, "w");
    assert_non_null(o);
    fputs(text, o);
    fclose(o);
    return p;
}

/* cert "CERT" and key "KEY" as -data; a CA as -data ("CA") */
static const char KC_DATA[] = "apiVersion: v1\n"
                              "clusters:\n"
                              "- name: c\n"
                              "  cluster:\n"
                              "    server: https://0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b.k8s."
                              "ondigitalocean.com/\n"
                              "    certificate-authority-data: Q0E=\n"
                              "users:\n"
                              "- name: u\n"
                              "  user:\n"
                              "    client-certificate-data: Q0VSVA==\n"
                              "    client-key-data: S0VZ\n"
                              "contexts:\n"
                              "- {name: x, context: {cluster: c, user: u}}\n"
                              "current-context: x\n";

static void test_kubeconfig_data_files(void **state) {
    (void)state;
    const char *kc = put("kc.yaml", KC_DATA);
    struct kube_flags f = {.kubeconfig = kc};
    struct kube_conn c;
    char err[1024];
    assert_int_equal(kube_conn_resolve(&f, fake_getenv, &c, err, sizeof err), ERR_OK);
    assert_string_equal(c.url,
                        "https://0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b.k8s.ondigitalocean.com");
    assert_string_equal(c.doks_cluster_id, "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b");
    /* the -data fields were decoded into private files under TMPDIR */
    assert_int_equal(strncmp(c.tmp_dir, g_dir, strlen(g_dir)), 0);
    struct stat st;
    assert_int_equal(stat(c.tmp_dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(stat(c.key_file, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char *v = NULL;
    assert_int_equal(secret_read(c.key_file, &v), ERR_OK);
    assert_string_equal(v, "KEY");
    secret_free(v, 0);
    assert_int_equal(secret_read(c.cert_file, &v), ERR_OK);
    assert_string_equal(v, "CERT");
    secret_free(v, 0);
    assert_int_equal(secret_read(c.ca_file, &v), ERR_OK);
    assert_string_equal(v, "CA");
    secret_free(v, 0);
    assert_null(c.token);
    assert_null(c.exec);
    char dir[256];
    snprintf(dir, sizeof dir, "%s", c.tmp_dir);
    kube_conn_release(&c);
    assert_int_not_equal(stat(dir, &st), 0); /* removed */
}

static void test_source_order(void **state) {
    (void)state;
    const char *kc = put("kc.yaml", KC_DATA);
    const char *home_kc = put("home/.kube/config",
                              "clusters: [{name: h, cluster: {server: 'https://home.example'}}]\n"
                              "users: [{name: u, user: {token: home-token}}]\n"
                              "contexts: [{name: h, context: {cluster: h, user: u}}]\n"
                              "current-context: h\n");
    (void)home_kc;
    char home[128];
    snprintf(home, sizeof home, "%s/home", g_dir);
    struct kube_conn c;
    char err[1024];
    /* nothing at all: one line naming every way */
    struct kube_flags none = {0};
    assert_int_equal(kube_conn_resolve(&none, fake_getenv, &c, err, sizeof err), ERR_INVAL);
    assert_non_null(strstr(err, "--kubeconfig"));
    assert_non_null(strstr(err, "--no-kube"));
    kube_conn_release(&c);
    /* ~/.kube/config when not in a cluster */
    setenv_fake("HOME", home);
    assert_int_equal(kube_conn_resolve(&none, fake_getenv, &c, err, sizeof err), ERR_OK);
    assert_string_equal(c.url, "https://home.example");
    assert_string_equal(c.token, "home-token");
    kube_conn_release(&c);
    /* in a cluster: the service account beats ~/.kube/config */
    setenv_fake("KUBERNETES_SERVICE_HOST", "10.0.0.1");
    assert_int_equal(kube_conn_resolve(&none, fake_getenv, &c, err, sizeof err), ERR_OK);
    assert_string_equal(c.url, "https://10.0.0.1:443");
    assert_string_equal(c.token_file, KUBE_SA_DIR "/token");
    kube_conn_release(&c);
    /* KUBECONFIG beats the service account */
    setenv_fake("KUBECONFIG", kc);
    assert_int_equal(kube_conn_resolve(&none, fake_getenv, &c, err, sizeof err), ERR_OK);
    assert_non_null(strstr(c.url, "k8s.ondigitalocean.com"));
    kube_conn_release(&c);
    /* --kube-api-url beats everything, the flags' files as given */
    struct kube_flags fl = {
        .api_url = "https://127.0.0.1:6443/", .token_file = "/t", .kubeconfig = kc};
    assert_int_equal(kube_conn_resolve(&fl, fake_getenv, &c, err, sizeof err), ERR_OK);
    assert_string_equal(c.url, "https://127.0.0.1:6443");
    assert_string_equal(c.token_file, "/t");
    assert_string_equal(c.ca_file, "");
    kube_conn_release(&c);
}

static void test_insecure_needs_flag(void **state) {
    (void)state;
    const char *kc = put("ins.yaml", "clusters: [{name: c, cluster: {server: 'https://h', "
                                     "insecure-skip-tls-verify: true}}]\n"
                                     "users: [{name: u, user: {tokenFile: tok}}]\n"
                                     "contexts: [{name: x, context: {cluster: c, user: u}}]\n");
    struct kube_flags f = {.kubeconfig = kc, .context = "x"};
    struct kube_conn c;
    char err[1024];
    assert_int_equal(kube_conn_resolve(&f, fake_getenv, &c, err, sizeof err), ERR_INVAL);
    assert_non_null(strstr(err, "--kube-insecure"));
    kube_conn_release(&c);
    f.insecure_ok = true;
    assert_int_equal(kube_conn_resolve(&f, fake_getenv, &c, err, sizeof err), ERR_OK);
    assert_true(c.insecure);
    char tf[160];
    snprintf(tf, sizeof tf, "%s/tok", g_dir);
    assert_string_equal(c.token_file, tf);
    kube_conn_release(&c);
}

static void test_exec_source(void **state) {
    (void)state;
    const char *plug =
        put("plugin", "#!/bin/sh\nn=$(cat \"$0.n\" 2>/dev/null || echo 0); "
                      "n=$((n+1)); echo $n > \"$0.n\"\n"
                      "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                      "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t%s\"}}' $n\n");
    chmod(plug, 0700);
    const char *kc = put("ex.yaml", "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
                                    "users: [{name: u, user: {exec: {apiVersion: "
                                    "client.authentication.k8s.io/v1, command: ./plugin}}}]\n"
                                    "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
                                    "current-context: x\n");
    struct kube_flags f = {.kubeconfig = kc};
    struct kube_conn c;
    char err[1024];
    /* resolution runs the plugin once (so a broken one stops start-up) */
    assert_int_equal(kube_conn_resolve(&f, fake_getenv, &c, err, sizeof err), ERR_OK);
    assert_non_null(c.exec);
    assert_int_equal(kube_exec_runs(c.exec), 1);
    /* two threads' tokens share the cached credential: no new run */
    struct kube_token a, b;
    kube_token_init_src(&a, c.token_file, c.token, c.exec);
    kube_token_init_src(&b, c.token_file, c.token, c.exec);
    const char *ta = NULL, *tb = NULL;
    assert_int_equal(kube_token_get(&a, &ta), ERR_OK);
    assert_int_equal(kube_token_get(&b, &tb), ERR_OK);
    assert_string_equal(ta, "t1");
    assert_string_equal(tb, "t1");
    assert_int_equal(kube_exec_runs(c.exec), 1);
    assert_true(kube_token_refreshable(&a));
    /* a 401 on thread a: the plugin runs again, thread b then sees the new token */
    kube_token_invalidate(&a);
    assert_int_equal(kube_token_get(&a, &ta), ERR_OK);
    assert_string_equal(ta, "t2");
    kube_token_invalidate(&b);
    assert_int_equal(kube_token_get(&b, &tb), ERR_OK);
    assert_string_equal(tb, "t2"); /* b's rejected t1 is not the cached one: no third run */
    assert_int_equal(kube_exec_runs(c.exec), 2);
    kube_token_release(&a);
    kube_token_release(&b);
    kube_conn_release(&c);

    /* a failing plugin: resolution fails with the plugin's own words */
    const char *bad = put("bad", "#!/bin/sh\necho 'Error: unable to initialize DigitalOcean api "
                                 "client: access token is required' >&2\nexit 1\n");
    chmod(bad, 0700);
    const char *kc2 = put("ex2.yaml", "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
                                      "users: [{name: u, user: {exec: {apiVersion: "
                                      "client.authentication.k8s.io/v1beta1, command: ./bad}}}]\n"
                                      "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
                                      "current-context: x\n");
    f.kubeconfig = kc2;
    assert_int_not_equal(kube_conn_resolve(&f, fake_getenv, &c, err, sizeof err), ERR_OK);
    assert_non_null(strstr(err, "access token is required"));
    assert_non_null(strstr(err, "user 'u'"));
    kube_conn_release(&c);
}

static void test_static_token(void **state) {
    (void)state;
    struct kube_token t;
    /* a token beats tokenFile, as in client-go */
    const char *f = put("tokfile", "from-file\n");
    kube_token_init_src(&t, f, "fixed-token", NULL);
    const char *tok = NULL;
    assert_int_equal(kube_token_get(&t, &tok), ERR_OK);
    assert_string_equal(tok, "fixed-token");
    assert_false(kube_token_refreshable(&t));
    kube_token_release(&t);
    kube_token_init_src(&t, f, NULL, NULL);
    assert_int_equal(kube_token_get(&t, &tok), ERR_OK);
    assert_string_equal(tok, "from-file");
    assert_true(kube_token_refreshable(&t));
    kube_token_release(&t);
}

/* do_token_find(file, doctl) with the fake environment finds want (then freed);
 * the source it names is left in src. */
static void token_found(const char *file, const char *doctl, const char *want, char *src,
                        size_t cap) {
    char *tok = NULL, err[1200];
    assert_int_equal(do_token_find(file, doctl, fake_getenv, &tok, src, cap, err, sizeof err),
                     ERR_OK);
    assert_string_equal(tok, want);
    secret_free(tok, 0);
}

static void test_do_token_sources(void **state) {
    (void)state;
    char *tok = NULL, src[700], err[1200];
    char home[128];
    snprintf(home, sizeof home, "%s/h", g_dir);
    setenv_fake("HOME", home);
    /* nothing: every source named */
    assert_int_equal(do_token_find(NULL, NULL, fake_getenv, &tok, src, sizeof src, err, sizeof err),
                     ERR_NOTFOUND);
    assert_non_null(strstr(err, "--do-token-file"));
    assert_non_null(strstr(err, "DIGITALOCEAN_ACCESS_TOKEN"));
    assert_non_null(strstr(err, "doctl auth init"));
    /* doctl's default file, its default context */
    put("h/.config/doctl/config.yaml", "access-token: from-default\ncontext: default\n"
                                       "auth-contexts:\n  work: from-work\n");
    token_found(NULL, NULL, "from-default", src, sizeof src);
    assert_non_null(strstr(src, "context 'default'"));
    /* DIGITALOCEAN_CONTEXT picks an auth-contexts entry */
    setenv_fake("DIGITALOCEAN_CONTEXT", "work");
    token_found(NULL, NULL, "from-work", src, sizeof src);
    /* an explicit --doctl-config whose context has no token */
    const char *dc = put("d.yaml", "context: gone\nauth-contexts: {work: w}\n");
    fake_env_pop(); /* drop DIGITALOCEAN_CONTEXT */
    assert_int_equal(do_token_find(NULL, dc, fake_getenv, &tok, src, sizeof src, err, sizeof err),
                     ERR_NOTFOUND);
    assert_non_null(strstr(err, "context 'gone'"));
    /* the environment beats doctl, DIGITALOCEAN_TOKEN first */
    setenv_fake("DIGITALOCEAN_ACCESS_TOKEN", "from-access");
    token_found(NULL, NULL, "from-access", src, sizeof src);
    assert_string_equal(src, "DIGITALOCEAN_ACCESS_TOKEN");
    setenv_fake("DIGITALOCEAN_TOKEN", "from-env");
    token_found(NULL, NULL, "from-env", src, sizeof src);
    /* the file beats everything; the source names the file, never the token */
    const char *f = put("do.tok", "  from-file\n");
    token_found(f, NULL, "from-file", src, sizeof src);
    assert_null(strstr(src, "from-file"));
}

int main(void) {
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kubeconfig_data_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_source_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_insecure_needs_flag, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exec_source, setup, teardown),
        cmocka_unit_test_setup_teardown(test_static_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_do_token_sources, setup, teardown),
    };
    return cmocka_run_group_tests_name("kube_auth", tests, NULL, NULL);
}
