/* dirfx — a cmocka fixture that is a fresh temporary directory (header only), for
 * the tests of code that reads the files a user points it at (kubeconfig,
 * kube_exec): dirfx_setup makes the directory from a mkdtemp template under /tmp,
 * dirfx_teardown removes it with everything in it and frees the fixture. */
#ifndef SPOTLEDGER_TEST_DIRFX_H
#define SPOTLEDGER_TEST_DIRFX_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tmpdir.h"

struct dirfx {
    char dir[64];
    int64_t now; /* a fake clock (Unix seconds) for a test that needs one; 0 */
};

/* cmocka setup: *state is a new dirfx whose directory is made from tmpl (a
 * "/tmp/...-XXXXXX" template); -1 when it cannot be made. */
static inline int dirfx_setup(void **state, const char *tmpl) {
    struct dirfx *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "%s", tmpl);
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

/* cmocka teardown: removes the directory and frees the fixture. */
static inline int dirfx_teardown(void **state) {
    struct dirfx *f = *state;
    if (tmpdir_remove(f->dir) != 0)
        return -1;
    free(f);
    return 0;
}

#endif
