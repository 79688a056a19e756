/* secret — reading a secret file without leaving copies behind (secret.h). */
#include "base/secret.h"

#include <ctype.h>
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
