/* utf8 — validation of UTF-8 sequences (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF). Pure; thread rule: any thread. */
#ifndef SPOTLEDGER_UTF8_H
#define SPOTLEDGER_UTF8_H

#include <stddef.h>

/* Length (1..4) of the valid sequence starting at s (n bytes available), or 0
 * when the bytes there are not valid UTF-8. n must be >= 1. */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/* U+FFFD REPLACEMENT CHARACTER, written in place of invalid bytes. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

#endif
