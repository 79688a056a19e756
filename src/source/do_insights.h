/* do_insights — DigitalOcean billing insights JSON -> records:
 * GET /v2/billing/{account_urn}/insights/{start_date}/{end_date} (one page of
 * daily usage data points) and the account's team URN from GET /v2/account.
 *
 * A data point: start_date ("YYYY-MM-DD", the UTC day), total_amount (a decimal
 * string, exact to the micro-dollar), sku, region, description,
 * group_description (DOKS: the cluster's name). A point without a day or an
 * amount is skipped and counted; a page that is not an object with a
 * data_points array is ERR_PARSE.
 *
 * No SQL, no I/O, no clock. Thread rule: any thread. */
#ifndef SPOTLEDGER_DO_INSIGHTS_H
#define SPOTLEDGER_DO_INSIGHTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct do_insight {
    int64_t day;                                          /* Unix seconds of the UTC midnight */
    int64_t amount;                                       /* micro-dollars */
    char *sku, *region, *description, *group_description; /* "" when absent, never NULL */
};

struct do_insights {
    struct do_insight *v;
    size_t n;
    size_t skipped;
    int64_t total_pages, current_page; /* -1 absent */
};

/* ERR_PARSE (why says what), ERR_TOOBIG. On ERR_OK release with do_insights_release. */
enum err do_insights_parse(const char *buf, size_t len, struct do_insights *out, char *why,
                           size_t wl);
void do_insights_release(struct do_insights *l);

/* "do:team:<uuid>" from GET /v2/account's account.team.uuid (else account.uuid).
 * ERR_PARSE when neither is there or the result does not fit cap. */
enum err do_insights_account_urn(const char *buf, size_t len, char *urn, size_t cap);

#endif
