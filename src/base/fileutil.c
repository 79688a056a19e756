#include "base/fileutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"

static enum err io_fail(const char *what, const char *path) {
    log_msg(LOG_ERROR, "fileutil: %s '%s' failed: %s", what, path, strerror(errno));
    return ERR_IO;
}

enum err fileutil_ensure_dir(const char *dir) {
    if (mkdir(dir, 0750) == 0 || errno == EEXIST)
        return ERR_OK;
    return io_fail("mkdir", dir);
}

enum err fileutil_write_atomic(const char *dir, const char *name, const void *data, size_t len) {
    if (!*name || strchr(name, '/') || name[0] == '.')
        return ERR_INVAL;
    char tmp[4096], final[4096];
    int n1 = snprintf(tmp, sizeof tmp, "%s/.%s.tmp-%ld", dir, name, (long)getpid());
    int n2 = snprintf(final, sizeof final, "%s/%s", dir, name);
    if (n1 < 0 || n2 < 0 || (size_t)n1 >= sizeof tmp || (size_t)n2 >= sizeof final)
        return ERR_INVAL;
    /* exported costs are finance data: not world-readable (the umask may narrow it) */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
    if (fd < 0)
        return io_fail("create", tmp);
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            enum err rc = io_fail("write", tmp);
            close(fd);
            unlink(tmp);
            return rc;
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0) {
        enum err rc = io_fail("fsync", tmp);
        close(fd);
        unlink(tmp);
        return rc;
    }
    close(fd);
    if (rename(tmp, final) != 0) {
        enum err rc = io_fail("rename", final);
        unlink(tmp);
        return rc;
    }
    /* the rename itself must reach the disk: fsync the directory */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return ERR_OK;
}

int fileutil_clean_temporaries(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] != '.' || !strstr(e->d_name, ".tmp-"))
            continue;
        char path[4096];
        int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n > 0 && (size_t)n < sizeof path && unlink(path) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}
