/* kubeconfig: YAML -> json-c (yaml_json), merged KUBECONFIG lists, contexts,
 * relative paths, -data fields (base64), exec blocks, refusals, DOKS cluster ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/log.h"
#include "source/kubeconfig.h"
#include "source/yaml_json.h"
#include "dirfx.h"

static int setup(void **state) {
    return dirfx_setup(state, "/tmp/spotledger-kc-XXXXXX");
}

static const char *put(struct dirfx *f, const char *name, const char *text) {
    static char path[4][128];
    static int k;
    char *p = path[k++ % 4];
    snprintf(p, 128, "%s/%s", f->dir, name);
    FILE *o = fopen(p, "w");
    assert_non_null(o);
    fputs(text, o);
    fclose(o);
    return p;
}

/* --- yaml_json --------------------------------------------------------------------- */

static void test_yaml_shapes(void **state) {
    (void)state;
    const char *y = "a: 1\n"
                    "b: [x, 'y z']\n"
                    "c:\n  d: ~\n  e: \"\"\n"
                    "a: 2\n" /* duplicate: the first wins */
                    "f: |\n  line1\n  line2\n";
    struct json_object *o = NULL;
    char err[256];
    assert_int_equal(yaml_json_parse(y, strlen(y), &o, err, sizeof err), ERR_OK);
    assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                        "{\"a\":\"1\",\"b\":[\"x\",\"y z\"],\"c\":{\"d\":null,\"e\":\"\"},"
                        "\"f\":\"line1\\nline2\\n\"}");
    json_object_put(o);
}

static void test_yaml_refusals(void **state) {
    (void)state;
    struct json_object *o = NULL;
    char err[256];
    const char *alias = "a: &x [1, 2]\nb: *x\n";
    assert_int_equal(yaml_json_parse(alias, strlen(alias), &o, err, sizeof err), ERR_PARSE);
    assert_non_null(strstr(err, "aliases"));
    assert_null(o);
    const char *bad = "a: [1, 2\nb: c\n";
    assert_int_equal(yaml_json_parse(bad, strlen(bad), &o, err, sizeof err), ERR_PARSE);
    assert_non_null(strstr(err, "line"));
    /* 100 nested sequences: deeper than YAML_JSON_MAX_DEPTH (64) */
    char deep[256];
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    deep[200] = '\0';
    assert_int_equal(yaml_json_parse(deep, 200, &o, err, sizeof err), ERR_TOOBIG);
    assert_null(o);
    /* an empty document is no error, just nothing */
    assert_int_equal(yaml_json_parse("", 0, &o, err, sizeof err), ERR_OK);
    assert_null(o);
}

/* --- base64 and DOKS ids ------------------------------------------------------------ */

static void test_base64(void **state) {
    (void)state;
    char *o = NULL;
    size_t n = 0;
    /* "hello" = aGVsbG8= ; with a line break inside, and without padding */
    assert_int_equal(kubeconfig_base64_decode("aGVs\nbG8=", &o, &n), ERR_OK);
    assert_int_equal(n, 5);
    assert_string_equal(o, "hello");
    free(o);
    assert_int_equal(kubeconfig_base64_decode("aGVsbG8", &o, &n), ERR_OK);
    assert_string_equal(o, "hello");
    free(o);
    assert_int_equal(kubeconfig_base64_decode("aGV*bG8=", &o, &n), ERR_PARSE);
    assert_int_equal(kubeconfig_base64_decode("aGVsb", &o, &n), ERR_PARSE); /* 5 sextets */
    assert_int_equal(kubeconfig_base64_decode("aG==Vs", &o, &n), ERR_PARSE);
}

static void test_doks_id(void **state) {
    (void)state;
    char id[37];
    assert_true(kubeconfig_doks_cluster_id(
        "https://5F1B2A3C-0000-4a4a-8b8b-0123456789ab.k8s.ondigitalocean.com", id));
    assert_string_equal(id, "5f1b2a3c-0000-4a4a-8b8b-0123456789ab");
    assert_true(kubeconfig_doks_cluster_id(
        "https://5f1b2a3c-0000-4a4a-8b8b-0123456789ab.k8s.ondigitalocean.com:443/", id));
    assert_false(kubeconfig_doks_cluster_id(
        "https://5f1b2a3c-0000-4a4a-8b8b-0123456789ab.k8s.ondigitalocean.com.evil.example", id));
    assert_false(kubeconfig_doks_cluster_id("https://127.0.0.1:6443", id));
    assert_false(kubeconfig_doks_cluster_id(
        "http://5f1b2a3c-0000-4a4a-8b8b-0123456789ab.k8s.ondigitalocean.com", id));
}

/* --- kubeconfig --------------------------------------------------------------------- */

static const char KC_A[] = "apiVersion: v1\n"
                           "kind: Config\n"
                           "current-context: ctx-a\n"
                           "clusters:\n"
                           "- name: shared\n"
                           "  cluster:\n"
                           "    server: https://a.example:6443\n"
                           "    certificate-authority: certs/ca.pem\n"
                           "users:\n"
                           "- name: alice\n"
                           "  user:\n"
                           "    token: tok-from-a\n"
                           "contexts:\n"
                           "- name: ctx-a\n"
                           "  context: {cluster: shared, user: alice, namespace: batch}\n";

static const char KC_B[] = "apiVersion: v1\n"
                           "kind: Config\n"
                           "current-context: ctx-b\n"
                           "clusters:\n"
                           "- name: shared\n" /* loses to file A's "shared" */
                           "  cluster: {server: https://b.example:6443}\n"
                           "- name: only-b\n"
                           "  cluster:\n"
                           "    server: https://only-b.example\n"
                           "    certificate-authority-data: aGVsbG8=\n"
                           "    insecure-skip-tls-verify: true\n"
                           "users:\n"
                           "- name: alice\n" /* loses to file A's "alice" */
                           "  user: {token: tok-from-b}\n"
                           "- name: certy\n"
                           "  user:\n"
                           "    client-certificate-data: Q0VSVA==\n" /* CERT */
                           "    client-key: /abs/key.pem\n"
                           "- name: filer\n"
                           "  user: {tokenFile: tok.txt}\n"
                           "contexts:\n"
                           "- name: ctx-b\n"
                           "  context: {cluster: only-b, user: certy}\n"
                           "- name: ctx-b-shared\n"
                           "  context: {cluster: shared, user: filer}\n";

static void test_merge_first_wins(void **state) {
    struct dirfx *f = *state;
    char list[512];
    const char *a = put(f, "a.yaml", KC_A);
    char pa[128];
    snprintf(pa, sizeof pa, "%s", a);
    const char *b = put(f, "b.yaml", KC_B);
    /* a missing file in the list is skipped, as kubectl does */
    snprintf(list, sizeof list, "%s/missing.yaml:%s::%s", f->dir, pa, b);
    struct kubeconfig_auth au;
    char err[512];
    assert_int_equal(kubeconfig_load(list, NULL, &au, err, sizeof err), ERR_OK);
    /* current-context from the first file that sets it (A), cluster and user from A */
    assert_string_equal(au.context, "ctx-a");
    assert_string_equal(au.server, "https://a.example:6443");
    assert_string_equal(au.token, "tok-from-a");
    assert_string_equal(au.ns, "batch");
    char ca[160];
    snprintf(ca, sizeof ca, "%s/certs/ca.pem", f->dir); /* relative to a.yaml's directory */
    assert_string_equal(au.ca_file, ca);
    assert_null(au.exec);
    kubeconfig_auth_release(&au);

    /* a context defined in B whose cluster name is also in A takes A's cluster */
    assert_int_equal(kubeconfig_load(list, "ctx-b-shared", &au, err, sizeof err), ERR_OK);
    assert_string_equal(au.server, "https://a.example:6443");
    char tf[160];
    snprintf(tf, sizeof tf, "%s/tok.txt", f->dir);
    assert_string_equal(au.token_file, tf);
    assert_null(au.token);
    kubeconfig_auth_release(&au);

    /* B first: B's current-context and B's "shared" */
    snprintf(list, sizeof list, "%s:%s", b, pa);
    assert_int_equal(kubeconfig_load(list, "ctx-b-shared", &au, err, sizeof err), ERR_OK);
    assert_string_equal(au.server, "https://b.example:6443");
    kubeconfig_auth_release(&au);
    assert_int_equal(kubeconfig_load(list, NULL, &au, err, sizeof err), ERR_OK);
    assert_string_equal(au.context, "ctx-b");
    kubeconfig_auth_release(&au);
}

static void test_data_fields_and_insecure(void **state) {
    struct dirfx *f = *state;
    const char *b = put(f, "b.yaml", KC_B);
    struct kubeconfig_auth au;
    char err[512];
    assert_int_equal(kubeconfig_load(b, "ctx-b", &au, err, sizeof err), ERR_OK);
    assert_int_equal(au.ca_data_len, 5);
    assert_memory_equal(au.ca_data, "hello", 5);
    assert_true(au.insecure);
    assert_int_equal(au.cert_data_len, 4);
    assert_string_equal(au.cert_data, "CERT");
    assert_string_equal(au.key_file, "/abs/key.pem");
    assert_null(au.key_data);
    kubeconfig_auth_release(&au);
}

static void test_exec_block(void **state) {
    struct dirfx *f = *state;
    const char *kc =
        "apiVersion: v1\n"
        "clusters:\n"
        "- name: c\n"
        "  cluster: {server: 'https://127.0.0.1:1'}\n"
        "users:\n"
        "- name: do-user\n"
        "  user:\n"
        "    exec:\n"
        "      apiVersion: client.authentication.k8s.io/v1beta1\n"
        "      command: bin/fake-doctl\n"
        "      args: [kubernetes, cluster, kubeconfig, exec-credential, --version=v1beta1]\n"
        "      env:\n"
        "      - {name: DIGITALOCEAN_CONTEXT, value: work}\n"
        "      installHint: install doctl\n"
        "contexts:\n"
        "- name: x\n"
        "  context: {cluster: c, user: do-user}\n"
        "current-context: x\n";
    const char *p = put(f, "e.yaml", kc);
    struct kubeconfig_auth au;
    char err[512];
    assert_int_equal(kubeconfig_load(p, NULL, &au, err, sizeof err), ERR_OK);
    assert_non_null(au.exec);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "%s/bin/fake-doctl", f->dir);
    assert_string_equal(au.exec->command, cmd);
    assert_int_equal(au.exec->n_args, 5);
    assert_string_equal(au.exec->args[4], "--version=v1beta1");
    assert_int_equal(au.exec->n_env, 1);
    assert_string_equal(au.exec->env_names[0], "DIGITALOCEAN_CONTEXT");
    assert_string_equal(au.exec->env_values[0], "work");
    assert_string_equal(au.exec->install_hint, "install doctl");
    kubeconfig_auth_release(&au);

    /* a removed API version is refused by name */
    char *v1a = strdup(kc);
    char *at = strstr(v1a, "v1beta1\n");
    memcpy(at, "v1alpha", 7);
    p = put(f, "e2.yaml", v1a);
    free(v1a);
    assert_int_equal(kubeconfig_load(p, NULL, &au, err, sizeof err), ERR_INVAL);
    assert_non_null(strstr(err, "v1alpha"));
}

/* a context whose cluster is not in the file, and no current-context */
static const char KC_NO_CURRENT[] =
    "apiVersion: v1\ncontexts: [{name: q, context: {cluster: c}}]\nclusters: []\n";

static void test_errors_name_the_fix(void **state) {
    struct dirfx *f = *state;
    /* Each row: a file (not written when text is NULL), the context asked for (NULL:
     * the current one), the error and what its message names (when not NULL). */
    static const struct {
        const char *name, *text, *context;
        enum err rc;
        const char *names, *names_too;
    } rows[] = {
        {"nope.yaml", NULL, NULL, ERR_NOTFOUND, "kubeconfig save", NULL},
        {"a.yaml", KC_A, "nope", ERR_NOTFOUND, "contexts: ctx-a", "--kube-context"},
        {"nc.yaml", KC_NO_CURRENT, NULL, ERR_NOTFOUND, "no current-context", NULL},
        {"nc.yaml", KC_NO_CURRENT, "q", ERR_NOTFOUND, "cluster 'c'", NULL},
        {"ap.yaml",
         "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
         "users: [{name: u, user: {auth-provider: {name: gcp}}}]\n"
         "contexts: [{name: q, context: {cluster: c, user: u}}]\n",
         "q", ERR_INVAL, "auth-provider", NULL},
        {"half.yaml",
         "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
         "users: [{name: u, user: {client-certificate: c.pem}}]\n"
         "contexts: [{name: q, context: {cluster: c, user: u}}]\n",
         "q", ERR_PARSE, "without its key", NULL},
        {"b64.yaml",
         "clusters: [{name: c, cluster: {server: 'https://h', "
         "certificate-authority-data: '%%%'}}]\n"
         "contexts: [{name: q, context: {cluster: c}}]\n",
         "q", ERR_PARSE, "certificate-authority-data", NULL},
        {"l.yaml", "- a\n- b\n", NULL, ERR_PARSE, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        print_message("row %zu: %s, context %s\n", i, rows[i].name,
                      rows[i].context ? rows[i].context : "(current)");
        char path[128];
        snprintf(path, sizeof path, "%s/%s", f->dir, rows[i].name);
        if (rows[i].text)
            put(f, rows[i].name, rows[i].text);
        struct kubeconfig_auth au;
        char err[512];
        assert_int_equal(kubeconfig_load(path, rows[i].context, &au, err, sizeof err), rows[i].rc);
        if (rows[i].names)
            assert_non_null(strstr(err, rows[i].names));
        if (rows[i].names_too)
            assert_non_null(strstr(err, rows[i].names_too));
    }
}

int main(void) {
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yaml_shapes),
        cmocka_unit_test(test_yaml_refusals),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_doks_id),
        cmocka_unit_test_setup_teardown(test_merge_first_wins, setup, dirfx_teardown),
        cmocka_unit_test_setup_teardown(test_data_fields_and_insecure, setup, dirfx_teardown),
        cmocka_unit_test_setup_teardown(test_exec_block, setup, dirfx_teardown),
        cmocka_unit_test_setup_teardown(test_errors_name_the_fix, setup, dirfx_teardown),
    };
    return cmocka_run_group_tests_name("kubeconfig", tests, NULL, NULL);
}
