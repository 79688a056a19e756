/* do_api_billing — DigitalOcean invoices, invoice items, billing history and
 * balance: JSON into the structs of do_api.h (do_api_json.h). Every json-c
 * string is copied before the document is put. */
#include "source/do_api_json.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* --- invoices ------------------------------------------------------------------------ */

static const struct do_api_member invoice_members[] = {
    {"invoice_uuid", DO_STR, true, offsetof(struct do_invoice, uuid), 0},
    {"invoice_id", DO_ID, false, offsetof(struct do_invoice, id), 0},
    {"invoice_period", DO_STR, false, offsetof(struct do_invoice, period), 0},
    {"amount", DO_AMOUNT, true, offsetof(struct do_invoice, amount), 0},
    {"updated_at", DO_STR, false, offsetof(struct do_invoice, updated_at), 0},
};

static void invoice_release(void *v) {
    do_api_free_members(invoice_members, DO_API_N(invoice_members), sizeof(struct do_invoice), v);
}

static enum err parse_invoice(json_object *o, bool preview, struct do_invoice *v, char *why,
                              size_t wl) {
    enum err e = do_api_get_record(o, invoice_members, DO_API_N(invoice_members), sizeof *v,
                                   preview ? "invoice_preview" : "invoice", v, why, wl);
    v->preview = e == ERR_OK && preview;
    return e;
}

static enum err invoice_entry(json_object *o, size_t idx, void *out, char *why, size_t wl) {
    (void)idx;
    return parse_invoice(o, false, out, why, wl);
}

/* invoice_preview, when present, after the invoices (the slot spec->extra kept) */
static enum err invoices_preview(json_object *doc, struct do_api_list *l, char *why, size_t wl) {
    json_object *pv = do_api_field(doc, "invoice_preview");
    if (pv) {
        if (parse_invoice(pv, true, (struct do_invoice *)l->v + l->n, why, wl) == ERR_OK)
            l->n++;
        else
            l->skipped++;
    }
    return ERR_OK;
}

/* invoices skip a bad entry (do_api.h) */
static const struct do_api_list_spec invoices_spec = {.key = "invoices",
                                                      .elem = sizeof(struct do_invoice),
                                                      .extra = 1,
                                                      .parse = invoice_entry,
                                                      .release = invoice_release,
                                                      .after = invoices_preview};

DO_API_LIST_FUNCS(invoices, invoices_spec)

static const struct do_api_member item_members[] = {
    {"product", DO_STR, false, offsetof(struct do_invoice_item, product), 0},
    {"resource_uuid", DO_STR, false, offsetof(struct do_invoice_item, resource_uuid), 0},
    {"resource_id", DO_ID, false, offsetof(struct do_invoice_item, resource_id), 0},
    {"group_description", DO_STR, false, offsetof(struct do_invoice_item, group_description), 0},
    {"description", DO_STR, false, offsetof(struct do_invoice_item, description), 0},
    {"amount", DO_AMOUNT, true, offsetof(struct do_invoice_item, amount), 0},
    {"duration", DO_ID, false, offsetof(struct do_invoice_item, duration), 0},
    {"duration_unit", DO_STR, false, offsetof(struct do_invoice_item, duration_unit), 0},
    {"start_time", DO_TIME, false, offsetof(struct do_invoice_item, start_time), 0},
    {"end_time", DO_TIME, false, offsetof(struct do_invoice_item, end_time), 0},
    {"project_name", DO_STR, false, offsetof(struct do_invoice_item, project_name), 0},
    {"category", DO_STR, false, offsetof(struct do_invoice_item, category), 0},
};

static void item_release(void *it) {
    do_api_free_members(item_members, DO_API_N(item_members), sizeof(struct do_invoice_item), it);
}

static enum err parse_item(json_object *o, size_t idx, void *out, char *why, size_t wl) {
    char what[48];
    snprintf(what, sizeof what, "invoice item %zu", idx);
    return do_api_get_record(o, item_members, DO_API_N(item_members),
                             sizeof(struct do_invoice_item), what, out, why, wl);
}

/* invoice items are all-or-nothing (they replace the stored set, do_api.h) */
static const struct do_api_list_spec items_spec = {.key = "invoice_items",
                                                   .elem = sizeof(struct do_invoice_item),
                                                   .all_or_nothing = true,
                                                   .parse = parse_item,
                                                   .release = item_release};

DO_API_LIST_FUNCS(invoice_items, items_spec)

/* --- billing history, balance ---------------------------------------------------------- */

static const struct do_api_member entry_members[] = {
    {"date", DO_TIME, true, offsetof(struct do_billing_entry, date), 0},
    {"type", DO_STR, true, offsetof(struct do_billing_entry, type), 0},
    {"description", DO_STR, false, offsetof(struct do_billing_entry, description), 0},
    {"amount", DO_AMOUNT, true, offsetof(struct do_billing_entry, amount), 0},
    {"invoice_id", DO_ID, false, offsetof(struct do_billing_entry, invoice_id), 0},
    {"invoice_uuid", DO_STR, false, offsetof(struct do_billing_entry, invoice_uuid), 0},
};

static void entry_release(void *b) {
    do_api_free_members(entry_members, DO_API_N(entry_members), sizeof(struct do_billing_entry), b);
}

static enum err parse_entry(json_object *o, size_t idx, void *out, char *why, size_t wl) {
    struct do_billing_entry *b = out;
    char what[48];
    snprintf(what, sizeof what, "billing_history entry %zu", idx);
    enum err e =
        do_api_get_record(o, entry_members, DO_API_N(entry_members), sizeof *b, what, b, why, wl);
    if (e == ERR_OK && !b->description)
        b->description = xstrdup("");
    return e;
}

/* billing history skips a bad entry (do_api.h) */
static const struct do_api_list_spec history_spec = {.key = "billing_history",
                                                     .elem = sizeof(struct do_billing_entry),
                                                     .parse = parse_entry,
                                                     .release = entry_release};

DO_API_LIST_FUNCS(billing_history, history_spec)

static const struct do_api_member balance_members[] = {
    {"month_to_date_balance", DO_AMOUNT, true, offsetof(struct do_balance, month_to_date_balance),
     0},
    {"account_balance", DO_AMOUNT, true, offsetof(struct do_balance, account_balance), 0},
    {"month_to_date_usage", DO_AMOUNT, true, offsetof(struct do_balance, month_to_date_usage), 0},
    {"generated_at", DO_TIME, false, offsetof(struct do_balance, generated_at), 0},
};

enum err do_api_parse_balance(const char *buf, size_t len, struct do_balance *out, char *why,
                              size_t wl) {
    return do_api_parse_record(buf, len, NULL, balance_members, DO_API_N(balance_members),
                               sizeof *out, "balance", out, why, wl);
}
