/* do_api — DigitalOcean API responses (JSON text) into plain structs (the records
 * are in model/do.h). No SQL, no I/O, no clock: every function takes (buf, len) and returns owned
 * structs.
 *
 * Invariants:
 *   - money is int64 micro-dollars, parsed from the source's text digit by digit
 *     (money.h): decimal strings strictly ("12.3.4" is an error), and the JSON
 *     float literals of /v2/sizes (price_hourly 0.00743999984115362) through the
 *     literal text json-c keeps for doubles, with MONEY_ROUND | MONEY_EXPONENT.
 *     Never through double.
 *   - times are Unix seconds from RFC 3339 strings; 0 = absent.
 *   - strings are copies (never json-c loans); NULL = absent or JSON null.
 *
 * Error policy, per endpoint (why: the poller must never mistake a bad page for
 * "everything vanished"):
 *   - document-level problems (not JSON, e.g. an HTML 200; not an object; the
 *     list missing or not an array; trailing garbage) -> ERR_PARSE, nothing
 *     returned;
 *   - node pools are all-or-nothing: any bad pool or node -> ERR_PARSE, because
 *     a skipped pool would look deleted (a false reclaim);
 *   - invoice items are all-or-nothing per invoice (they replace the stored set);
 *   - sizes, invoices and billing history skip a bad entry (missing field, wrong
 *     type, bad amount), count it in `skipped`, and keep the rest.
 * On ERR_PARSE or skipped > 0, `why` holds a one-line reason (the first problem),
 * naming the field and entry; the caller logs it once with the endpoint.
 *
 * Ownership: out structs are written only on ERR_OK; release them with their
 * *_release function (safe on a zeroed struct). Thread rule: any thread. */
#ifndef SPOTLEDGER_DO_API_H
#define SPOTLEDGER_DO_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "model/do.h"

#define DO_API_WHY_MAX 200

/* GET /v2/sizes page. */
enum err do_api_parse_sizes(const char *buf, size_t len, struct do_sizes *out, char *why,
                            size_t whylen);
void do_sizes_release(struct do_sizes *l);

/* GET /v2/kubernetes/clusters/{id}. */
enum err do_api_parse_cluster(const char *buf, size_t len, struct do_cluster *out, char *why,
                              size_t whylen);
void do_cluster_release(struct do_cluster *c);

/* GET /v2/kubernetes/clusters/{id}/node_pools page (all-or-nothing). */
enum err do_api_parse_pools(const char *buf, size_t len, struct do_pools *out, char *why,
                            size_t whylen);
void do_pools_release(struct do_pools *l);

/* GET /v2/kubernetes/clusters/{id}/node_pools/{pool_id}: {"node_pool": {...}}. */
enum err do_api_parse_pool(const char *buf, size_t len, struct do_pool *out, char *why,
                           size_t whylen);
void do_pool_release(struct do_pool *p);

/* An error body {"id","message","request_id"} (any may be NULL). */
struct do_error {
    char *id;
    char *message;
    char *request_id;
};
enum err do_api_parse_error(const char *buf, size_t len, struct do_error *out, char *why,
                            size_t whylen);
void do_error_release(struct do_error *e);

/* GET /v2/customers/my/invoices page (invoice_preview included when present). */
enum err do_api_parse_invoices(const char *buf, size_t len, struct do_invoices *out, char *why,
                               size_t whylen);
void do_invoices_release(struct do_invoices *l);

/* GET /v2/customers/my/invoices/{uuid} page (all-or-nothing). */
enum err do_api_parse_invoice_items(const char *buf, size_t len, struct do_invoice_items *out,
                                    char *why, size_t whylen);
void do_invoice_items_release(struct do_invoice_items *l);

/* GET /v2/customers/my/billing_history page. */
enum err do_api_parse_billing_history(const char *buf, size_t len, struct do_billing_history *out,
                                      char *why, size_t whylen);
void do_billing_history_release(struct do_billing_history *l);

/* GET /v2/customers/my/balance. */
enum err do_api_parse_balance(const char *buf, size_t len, struct do_balance *out, char *why,
                              size_t whylen);

/* The price of a JSON number or string as money (MONEY_ROUND | MONEY_EXPONENT),
 * from its literal text. Exposed for tests. ERR_PARSE on anything else. */
enum err do_api_price_literal(const char *text, size_t len, int64_t *out);

#endif
