/* xalloc — allocation that cannot fail silently (docs/style.md 14).
 *
 * xmalloc/xcalloc/xrealloc/xstrdup/xstrndup log and abort() on OOM: used where a
 * NULL could not be handled meaningfully. Thread rule: any thread. */
#ifndef SPOTLEDGER_XALLOC_H
#define SPOTLEDGER_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Makes room in arr (n used of cap) for one more element: when n reaches cap,
 * cap doubles (from first) and arr moves, so pointers into it do not survive an
 * XGROW; hold indexes. Aborts on out-of-memory as xrealloc does (docs/style.md 13). */
#define XGROW(arr, n, cap, first)                                                                  \
    do {                                                                                           \
        if ((n) >= (cap)) {                                                                        \
            (cap) = (cap) ? (cap)*2 : (first);                                                     \
            (arr) = xrealloc((arr), (size_t)(cap) * sizeof *(arr));                                \
        }                                                                                          \
    } while (0)

#endif
