#include "base/utf8.h"

size_t utf8_seq_len(const unsigned char *s, size_t n) {
    unsigned char b = s[0];
    size_t len;
    unsigned cp;
    if (b < 0x80)
        return 1;
    if (b >= 0xc2 && b <= 0xdf) {
        len = 2;
        cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
        len = 3;
        cp = b & 0x0f;
    } else if (b >= 0xf0 && b <= 0xf4) {
        len = 4;
        cp = b & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return len;
}
