#define _XOPEN_SOURCE 700 /* realpath */
#include "http/static_files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"

bool static_path_is_safe(const char *rel) {
    if (!*rel)
        return false;
    const char *seg = rel;
    for (;;) {
        const char *end = strchr(seg, '/');
        size_t n = end ? (size_t)(end - seg) : strlen(seg);
        if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
            return false;
        if (seg[0] == '.') /* no hidden files */
            return false;
        for (size_t i = 0; i < n; i++)
            if (seg[i] == '\\' || (unsigned char)seg[i] < 0x20)
                return false;
        if (!end)
            return true;
        seg = end + 1;
    }
}

const char *static_mime_type(const char *name) {
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
        {".csv", "text/csv; charset=utf-8"},
        {".map", "application/json"},
        {".webmanifest", "application/manifest+json"},
    };
    const char *dot = strrchr(name, '.');
    if (dot)
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
            if (strcmp(dot, types[i].ext) == 0)
                return types[i].type;
    return "application/octet-stream";
}

void static_serve(const char *root, const char *rel, struct response *resp) {
    if (!static_path_is_safe(rel)) {
        response_error(resp, 400, "bad_path", "path is not allowed");
        return;
    }
    char real_root[PATH_MAX], path[PATH_MAX], real[PATH_MAX];
    if (!realpath(root, real_root)) {
        response_error(resp, 404, "not_found", "no such file");
        return;
    }
    int n = snprintf(path, sizeof path, "%s/%s", real_root, rel);
    if (n < 0 || (size_t)n >= sizeof path || !realpath(path, real)) {
        response_error(resp, 404, "not_found", "no such file");
        return;
    }
    size_t rl = strlen(real_root);
    if (strncmp(real, real_root, rl) != 0 || (real[rl] != '/' && real[rl] != '\0')) {
        response_error(resp, 404, "not_found", "no such file");
        return;
    }
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        response_error(resp, 404, "not_found", "no such file");
        return;
    }
    resp->fd = fd;
    resp->fd_len = (uint64_t)st.st_size;
    resp->status = 200;
    resp->content_type = static_mime_type(real);
    response_header(resp, "Cache-Control", "no-cache");
}
