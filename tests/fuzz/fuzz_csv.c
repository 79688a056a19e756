/* fuzz_csv — the CSV writer (csv.h) against a minimal RFC 4180 reader.
 *
 * Input: fields separated by NUL bytes, written as one record with csv_text, then
 * an integer and a money cell. Invariants: the output is valid UTF-8, ends with
 * CRLF, and a strict reader gets back every field exactly, modulo the documented
 * changes: invalid UTF-8 bytes become U+FFFD, and a field beginning with
 * = + - @ TAB or CR gets a leading apostrophe. */
#include "base/csv.h"
#include "fuzz_common.h"
#include "base/utf8.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    log_set_level(LOG_OFF);
    return 0;
}

/* What csv_text promises to write, unquoted. */
static void expected(const char *s, struct buf *out) {
    buf_reset(out);
    size_t n = strlen(s);
    if (n && strchr("=+-@\t\r", s[0]))
        buf_putc(out, '\'');
    for (size_t i = 0; i < n;) {
        size_t l = utf8_seq_len((const unsigned char *)s + i, n - i);
        if (l == 0) {
            buf_puts(out, UTF8_REPLACEMENT);
            i++;
        } else {
            buf_append(out, s + i, l);
            i += l;
        }
    }
}

/* Reads one field at *pos of text[0..len); returns it unquoted in out and
 * advances past the separator. *end_rec is set at CRLF. */
static void read_field(const char *t, size_t len, size_t *pos, struct buf *out, bool *end_rec) {
    buf_reset(out);
    size_t i = *pos;
    if (i < len && t[i] == '"') {
        i++;
        for (;;) {
            FUZZ_CHECK(i < len); /* an unterminated quoted field */
            if (t[i] == '"') {
                if (i + 1 < len && t[i + 1] == '"') {
                    buf_putc(out, '"');
                    i += 2;
                    continue;
                }
                i++;
                break;
            }
            buf_putc(out, t[i++]);
        }
    } else {
        while (i < len && t[i] != ',' && t[i] != '\r') {
            FUZZ_CHECK(t[i] != '"' && t[i] != '\n'); /* must have been quoted */
            buf_putc(out, t[i++]);
        }
    }
    FUZZ_CHECK(i < len);
    if (t[i] == ',') {
        *end_rec = false;
        i++;
    } else {
        FUZZ_CHECK(t[i] == '\r' && i + 1 < len && t[i + 1] == '\n');
        *end_rec = true;
        i += 2;
    }
    *pos = i;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = fuzz_strndup(data, size);
    struct buf text, want, got;
    buf_init(&text, 0);
    buf_init(&want, 0);
    buf_init(&got, 0);
    struct csv c;
    csv_init(&c, &text);
    size_t nfields = 0;
    for (size_t off = 0; off <= size; off += strlen(s + off) + 1, nfields++)
        csv_text(&c, s + off);
    int64_t iv = (int64_t)size * 1000003 - 5000000;
    csv_int(&c, iv);
    csv_money(&c, iv);
    csv_end_record(&c);
    FUZZ_CHECK(c.rc == ERR_OK);

    const char *t = text.data;
    size_t len = text.len;
    for (size_t i = 0; i < len;) {
        size_t l = utf8_seq_len((const unsigned char *)t + i, len - i);
        FUZZ_CHECK(l > 0);
        i += l;
    }
    FUZZ_CHECK(len >= 2 && t[len - 2] == '\r' && t[len - 1] == '\n');

    size_t pos = 0, off = 0;
    bool end = false;
    for (size_t f = 0; f < nfields; f++, off += strlen(s + off) + 1) {
        FUZZ_CHECK(!end);
        read_field(t, len, &pos, &got, &end);
        expected(s + off, &want);
        FUZZ_CHECK(got.len == want.len && (got.len == 0 || !memcmp(got.data, want.data, got.len)));
    }
    char num[32];
    FUZZ_CHECK(!end);
    read_field(t, len, &pos, &got, &end);
    snprintf(num, sizeof num, "%lld", (long long)iv);
    FUZZ_CHECK(!strcmp(buf_str(&got), num));
    read_field(t, len, &pos, &got, &end);
    FUZZ_CHECK(end && pos == len);
    buf_release(&text);
    buf_release(&want);
    buf_release(&got);
    free(s);
    return 0;
}
