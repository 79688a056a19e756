/* tmpdb — a temporary database file for a test, and its removal (header only).
 *
 * tmpdb_unlink removes what SQLite leaves beside a database in WAL mode (the
 * -wal and -shm files) with the file itself; a missing file is no error. */
#ifndef SPOTLEDGER_TEST_TMPDB_H
#define SPOTLEDGER_TEST_TMPDB_H

#include <stdio.h>
#include <unistd.h>

/* Removes the database at path and its -wal and -shm files. */
static inline void tmpdb_unlink(const char *path) {
    char p[4096];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
}

#endif
