/* sim_file — spotsim's files written whole (the truth JSON, the TLS certificate):
 * into "<path>.tmp.<pid>", flushed, fsynced and renamed over path, so a reader
 * sees the old file or the new one, never a part. Thread rule: any thread
 * (distinct paths). */
#ifndef SPOTLEDGER_SIM_FILE_H
#define SPOTLEDGER_SIM_FILE_H

#include <stddef.h>

#include "base/err.h"

/* Writes data[len] to path; ERR_IO on failure, logged as "<what>: cannot write
 * '<file>'" (no temporary file is left behind). */
enum err sim_file_write(const char *what, const char *path, const char *data, size_t len);

#endif
