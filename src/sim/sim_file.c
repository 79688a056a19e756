/* sim_file — see sim_file.h. */
#include "sim/sim_file.h"

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "base/log.h"

enum err sim_file_write(const char *what, const char *path, const char *data, size_t len) {
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof tmp)
        return ERR_IO;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        log_msg(LOG_ERROR, "%s: cannot write '%s'", what, tmp);
        return ERR_IO;
    }
    bool ok = fwrite(data, 1, len, f) == len;
    ok = fflush(f) == 0 && ok;
    ok = fsync(fileno(f)) == 0 && ok;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        log_msg(LOG_ERROR, "%s: cannot write '%s'", what, path);
        return ERR_IO;
    }
    return ERR_OK;
}
