/* fuzz_common — shared by the libFuzzer harnesses in tests/fuzz/ (built by
 * `make fuzz` with clang -fsanitize=fuzzer,address,undefined into build/fuzz/).
 * A harness aborts (FUZZ_CHECK) when an invariant of the code under test breaks;
 * ASan/UBSan catch memory and undefined-behaviour errors. */
#ifndef SPOTLEDGER_FUZZ_COMMON_H
#define SPOTLEDGER_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* A NUL-terminated copy of data[0..n) (the caller frees). */
static inline char *fuzz_strndup(const uint8_t *data, size_t n) {
    char *s = malloc(n + 1);
    if (!s)
        abort();
    if (n)
        memcpy(s, data, n);
    s[n] = '\0';
    return s;
}

/* An exact-size heap copy (no NUL), so ASan sees any read past len. */
static inline char *fuzz_copy(const uint8_t *data, size_t n) {
    char *s = malloc(n ? n : 1);
    if (!s)
        abort();
    if (n)
        memcpy(s, data, n);
    return s;
}

#endif
