/* tmpdb — a temporary database file for a test, and its removal (header only).
 *
 * tmpdb_open makes the file from a mkstemp template and opens it as the writer,
 * so every migration runs (an empty file is a new SQLite database).
 *
 * tmpdb_unlink removes what SQLite leaves beside a database in WAL mode (the
 * -wal and -shm files) with the file itself; a missing file is no error. */
#ifndef SPOTLEDGER_TEST_TMPDB_H
#define SPOTLEDGER_TEST_TMPDB_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store/store.h"

/* Creates the file named by the mkstemp template path (rewritten in place) and
 * opens it with STORE_WRITER into *out; 0, or -1 when either fails. */
static inline int tmpdb_open(char *path, struct store **out) {
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return store_open(path, STORE_WRITER, out, NULL) == ERR_OK ? 0 : -1;
}

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
