/* money — integer micro-dollars (1 USD = 1,000,000 µ$) in and out of text.
 *
 * Money never passes through double (docs/cost-model.md): DigitalOcean's decimal strings
 * ("23.44") and JSON number literals (0.00744) are parsed digit by digit, and
 * output is printed digit by digit. The one exit as a double is the .xlsx
 * twin's currency cell, a double by the file format (docs/cost-model.md,
 * "Money in the .xlsx twin"); the CSV beside it holds the exact decimal text.
 * Pure; thread rule: any thread.
 *
 * Rounding decision (documented in README "Money"): amounts with more than six
 * decimals are rejected (ERR_PARSE) unless the extra digits are zeros, except with
 * MONEY_ROUND, used for list prices such as price_hourly, where they are rounded
 * half away from zero to the micro-dollar. */
#ifndef SPOTLEDGER_MONEY_H
#define SPOTLEDGER_MONEY_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define MONEY_MICRO 1000000LL
/* Longest formatted amount: "-9223372036854.775808" + NUL. */
#define MONEY_FMT_MAX 24

enum money_flags {
    MONEY_ROUND = 1 << 0,    /* round >6 decimals half away from zero instead of rejecting */
    MONEY_EXPONENT = 1 << 1, /* accept a JSON exponent: 1.5e-3 */
};

/* Parses s[0..len) ("-12.5", "0.00744", "23") into micro-dollars.
 * ERR_PARSE on anything that is not a plain decimal number (empty, "12.3.4", " 1",
 * "1,5", "NaN"), on >6 decimals without MONEY_ROUND; ERR_TOOBIG on int64 overflow.
 * *out is written only on ERR_OK. */
enum err money_parse(const char *s, size_t len, enum money_flags flags, int64_t *out);

/* Shortest exact decimal: 4800000 -> "4.8", 4213 -> "0.004213", -1 -> "-0.000001",
 * 0 -> "0". Suitable as a JSON number. Returns the length written to out. */
size_t money_format(int64_t micro, char out[MONEY_FMT_MAX]);

/* Fixed six decimals: 4800000 -> "4.800000" (CSV and display). */
size_t money_format_fixed(int64_t micro, char out[MONEY_FMT_MAX]);

/* round(a * b / c) half away from zero, exact for any int64 inputs whose true
 * result fits in int64 (128-bit intermediate). c must not be 0.
 * ERR_TOOBIG when the result does not fit. */
enum err money_muldiv(int64_t a, int64_t b, int64_t c, int64_t *out);

#endif
