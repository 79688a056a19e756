/* csv — RFC 4180 writing for finance's spreadsheets.
 *
 * Fields are separated by ',' and records end with CRLF (RFC 4180 2.1). A field
 * is quoted when it holds ',', '"', CR or LF, with '"' doubled. Text cells that
 * begin with '=', '+', '-', '@', TAB or CR are made inert for spreadsheets
 * (OWASP "CSV injection"): a leading apostrophe is added inside quotes, so
 * =HYPERLINK("x") reads back as the text '=HYPERLINK("x"). Numbers we format
 * ourselves (csv_money, csv_int) are never altered, so -1.5 stays a number.
 * Invalid UTF-8 bytes are replaced by U+FFFD so the file is always UTF-8.
 * Thread rule: one writer per thread. */
#ifndef SPOTLEDGER_CSV_H
#define SPOTLEDGER_CSV_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"

struct csv {
    struct buf *out;
    bool first;  /* no field yet in the current record */
    enum err rc; /* first error (ERR_TOOBIG), sticky */
};

void csv_init(struct csv *c, struct buf *out);
void csv_text(struct csv *c, const char *s); /* NULL writes an empty field */
void csv_int(struct csv *c, int64_t v);
/* A number formatted by the caller ("12.34"): written as is, never neutralised. */
void csv_number(struct csv *c, const char *literal);
void csv_money(struct csv *c, int64_t micro); /* fixed six decimals: 4.800000 */
void csv_time(struct csv *c, int64_t t);      /* UTC "2026-11-29 15:04:05", empty when 0 */
void csv_end_record(struct csv *c);

#endif
