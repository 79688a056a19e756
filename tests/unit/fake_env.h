/* fake_env — an environment for the code that takes a getenv function
 * (config_parse, config_check_kube, kube_conn_resolve, do_token_find): the
 * tests set variables without touching the process's own environment.
 * Static storage: one per test binary; fake_env_reset() in each set-up. */
#ifndef SPOTLEDGER_TEST_FAKE_ENV_H
#define SPOTLEDGER_TEST_FAKE_ENV_H

#include <string.h>

#define FAKE_ENV_MAX 16

static const char *fake_env_vars[FAKE_ENV_MAX][2];
static int fake_env_n;

static inline void fake_env_reset(void) {
    fake_env_n = 0;
}

/* Sets k to v (pointers kept, not copied); more than FAKE_ENV_MAX fails the test. */
static inline void setenv_fake(const char *k, const char *v) {
    if (fake_env_n >= FAKE_ENV_MAX)
        fail_msg("fake_env: more than %d variables", FAKE_ENV_MAX);
    fake_env_vars[fake_env_n][0] = k;
    fake_env_vars[fake_env_n][1] = v;
    fake_env_n++;
}

/* Drops the variable set last. */
static inline void fake_env_pop(void) {
    if (fake_env_n > 0)
        fake_env_n--;
}

static inline const char *fake_getenv(const char *name) {
    for (int i = 0; i < fake_env_n; i++)
        if (strcmp(fake_env_vars[i][0], name) == 0)
            return fake_env_vars[i][1];
    return NULL;
}

#endif
