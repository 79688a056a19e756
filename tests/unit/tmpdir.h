/* tmpdir — removing a test's temporary directory (header only). */
#ifndef SPOTLEDGER_TEST_TMPDIR_H
#define SPOTLEDGER_TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

/* Removes dir and everything below it (rm -rf; dir is a mkdtemp name, no quote in
 * it); 0, or -1 when that fails. */
static inline int tmpdir_remove(const char *dir) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

#endif
