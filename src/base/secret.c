/* secret — reading a secret file without leaving copies behind (secret.h). */
#include "base/secret.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"

enum err secret_read(const char *path, char **out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ERR_IO;
    char data[4097];
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, data + n, sizeof data - 1 - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            return ERR_IO;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n == sizeof data - 1) {
            close(fd);
            memset(data, 0, sizeof data);
            return ERR_TOOBIG;
        }
    }
    close(fd);
    size_t a = 0, b = n;
    while (a < b && isspace((unsigned char)data[a]))
        a++;
    while (b > a && isspace((unsigned char)data[b - 1]))
        b--;
    if (a == b)
        return ERR_INVAL;
    *out = xstrndup(data + a, b - a);
    memset(data, 0, sizeof data);
    return ERR_OK;
}

void secret_free(char *s, size_t len) {
    if (!s)
        return;
    memset(s, 0, len ? len : strlen(s));
    free(s);
}

enum err secret_write_private(const char *path, const void *data, size_t len) {
    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp)
        return ERR_INVAL;
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return ERR_IO;
    const char *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, p + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            errno = e;
            return ERR_IO;
        }
        done += (size_t)w;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return ERR_IO;
    }
    return ERR_OK;
}
