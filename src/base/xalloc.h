/* xalloc — allocation that cannot fail silently (STYLE.md 14).
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

#endif
