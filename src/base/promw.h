/* promw — Prometheus text exposition format 0.0.4 onto a struct buf.
 *
 * promw_family writes "# HELP" and "# TYPE" once per metric family; promw_sample
 * writes one sample line with label pairs (values escaped: backslash, quote,
 * newline). Values are integers or exact decimals (micro-units), never printed
 * through double. Thread rule: one writer per thread. */
#ifndef SPOTLEDGER_PROMW_H
#define SPOTLEDGER_PROMW_H

#include <stdint.h>

#include "base/buf.h"

/* type: "gauge", "counter", "histogram". */
void promw_family(struct buf *b, const char *name, const char *type, const char *help);
/* labels: NULL-terminated list of key, value, key, value, ... (may be NULL). */
void promw_sample_int(struct buf *b, const char *name, const char *const *labels, int64_t v);
/* value given in millionths: 4800000 -> 4.8 */
void promw_sample_micro(struct buf *b, const char *name, const char *const *labels, int64_t micro);

#endif
