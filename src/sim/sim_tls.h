/* sim_tls — a throw-away self-signed certificate for 127.0.0.1 / localhost,
 * generated with GnuTLS at start-up (ECDSA P-256, SHA-256, valid from one hour
 * ago for 30 days of *real* time, since clients check validity against their own
 * clock). The certificate is its own CA (basicConstraints CA:TRUE), so clients
 * use the PEM as their CA file (kubectl's certificate-authority, curl --cacert).
 * Thread rule: main thread. */
#ifndef SPOTLEDGER_SIM_TLS_H
#define SPOTLEDGER_SIM_TLS_H

#include "base/err.h"

struct sim_tls {
    char *cert_pem; /* NUL-terminated PEM */
    char *key_pem;
};

/* ERR_IO (logged) when GnuTLS fails. */
enum err sim_tls_generate(struct sim_tls *out);
void sim_tls_release(struct sim_tls *t);
/* Writes the certificate PEM atomically (temp file + rename). ERR_IO on failure. */
enum err sim_tls_write_cert(const struct sim_tls *t, const char *path);

#endif
