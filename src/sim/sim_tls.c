#include "sim/sim_tls.h"

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/xalloc.h"
#include "sim/sim_file.h"

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ < 0) {                                                                             \
            log_msg(LOG_ERROR, "tls: %s: %s", #call, gnutls_strerror(rc_));                        \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

enum err sim_tls_generate(struct sim_tls *out) {
    enum err rc = ERR_IO;
    gnutls_x509_privkey_t key = NULL;
    gnutls_x509_crt_t crt = NULL;
    gnutls_datum_t cert_pem = {NULL, 0}, key_pem = {NULL, 0};
    CHECK(gnutls_x509_privkey_init(&key));
    CHECK(gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
                                       GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0));
    CHECK(gnutls_x509_crt_init(&crt));
    CHECK(gnutls_x509_crt_set_version(crt, 3));
    unsigned char serial[8];
    time_t now = time(NULL);
    for (int i = 0; i < 8; i++)
        serial[i] = (unsigned char)((uint64_t)now >> (8 * (7 - i)));
    serial[0] &= 0x7f;
    CHECK(gnutls_x509_crt_set_serial(crt, serial, sizeof serial));
    CHECK(gnutls_x509_crt_set_activation_time(crt, now - 3600));
    CHECK(gnutls_x509_crt_set_expiration_time(crt, now + 30 * 86400));
    CHECK(gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, "spotsim", 7));
    CHECK(
        gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_ORGANIZATION_NAME, 0, "spotledger", 10));
    CHECK(gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_DNSNAME, "localhost", 9,
                                               GNUTLS_FSAN_APPEND));
    static const unsigned char loopback[4] = {127, 0, 0, 1};
    CHECK(gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, loopback, 4,
                                               GNUTLS_FSAN_APPEND));
    CHECK(gnutls_x509_crt_set_basic_constraints(crt, 1, -1));
    CHECK(gnutls_x509_crt_set_key_usage(crt,
                                        GNUTLS_KEY_DIGITAL_SIGNATURE | GNUTLS_KEY_KEY_CERT_SIGN));
    CHECK(gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0));
    CHECK(gnutls_x509_crt_set_key(crt, key));
    unsigned char kid[64];
    size_t kidlen = sizeof kid;
    CHECK(gnutls_x509_crt_get_key_id(crt, 0, kid, &kidlen));
    CHECK(gnutls_x509_crt_set_subject_key_id(crt, kid, kidlen));
    {
        gnutls_privkey_t pk = NULL;
        CHECK(gnutls_privkey_init(&pk));
        int r = gnutls_privkey_import_x509(pk, key, 0);
        if (r >= 0)
            r = gnutls_x509_crt_privkey_sign(crt, crt, pk, GNUTLS_DIG_SHA256, 0);
        gnutls_privkey_deinit(pk);
        CHECK(r);
    }
    CHECK(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &cert_pem));
    CHECK(gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &key_pem));
    out->cert_pem = xstrndup((const char *)cert_pem.data, cert_pem.size);
    out->key_pem = xstrndup((const char *)key_pem.data, key_pem.size);
    rc = ERR_OK;
out:
    if (key_pem.data) {
        memset(key_pem.data, 0, key_pem.size);
        gnutls_free(key_pem.data);
    }
    gnutls_free(cert_pem.data);
    if (crt)
        gnutls_x509_crt_deinit(crt);
    if (key)
        gnutls_x509_privkey_deinit(key);
    return rc;
}

void sim_tls_release(struct sim_tls *t) {
    if (t->key_pem) {
        memset(t->key_pem, 0, strlen(t->key_pem));
        free(t->key_pem);
    }
    free(t->cert_pem);
    t->key_pem = t->cert_pem = NULL;
}

enum err sim_tls_write_cert(const struct sim_tls *t, const char *path) {
    return sim_file_write("tls", path, t->cert_pem, strlen(t->cert_pem));
}
