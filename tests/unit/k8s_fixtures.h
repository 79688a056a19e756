/* k8s_fixtures — fixture lookup shared by tests/test_*k8s*.c (header only).
 *
 * Own fixtures live in tests/fixtures/k8s (tests run from the repository root).
 * The shared fixtures are found through $SHARED_FIXTURES (set by
 * tests/run_tests.sh), else ../shared/fixtures; when absent, tests that need them
 * print "SKIP: ..." (counted by tests/run_tests.sh) and pass. */
#ifndef SPOTLEDGER_TEST_K8S_FIXTURES_H
#define SPOTLEDGER_TEST_K8S_FIXTURES_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OWN_K8S "tests/fixtures/k8s"

/* Reads a whole file; NULL if it cannot. Caller frees. */
static inline char *fx_read(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct buf_s {
        char *p;
        size_t n, cap;
    } b = {NULL, 0, 0};
    char chunk[65536];
    size_t r;
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.n + r + 1 > b.cap) {
            size_t cap = (b.n + r + 1) * 2;
            char *np = realloc(b.p, cap);
            if (!np) {
                free(b.p);
                fclose(f);
                return NULL;
            }
            b.p = np;
            b.cap = cap;
        }
        memcpy(b.p + b.n, chunk, r);
        b.n += r;
    }
    fclose(f);
    if (!b.p) {
        b.p = malloc(1);
        if (!b.p)
            return NULL;
    }
    b.p[b.n] = '\0';
    if (len)
        *len = b.n;
    return b.p;
}

/* The shared k8s fixture directory into out, or false (skip) when absent. */
static inline bool fx_shared_k8s(char *out, size_t cap) {
    const char *env = getenv("SHARED_FIXTURES");
    const char *base = env && *env ? env : "../shared/fixtures";
    snprintf(out, cap, "%s/k8s", base);
    struct stat st;
    if (stat(out, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("SKIP: shared fixtures not found at '%s'; own fixtures only\n", out);
        return false;
    }
    return true;
}

static inline char *fx_read_in(const char *dir, const char *name, size_t *len) {
    char path[2048];
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= sizeof path)
        return NULL;
    return fx_read(path, len);
}

#endif
