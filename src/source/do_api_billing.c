/* do_api_billing — DigitalOcean invoices, invoice items, billing history and
 * balance: JSON into the structs of do_api.h (do_api_json.h). Every json-c
 * string is copied before the document is put. */
#include "source/do_api_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* --- invoices ------------------------------------------------------------------------ */

static void invoice_release(struct do_invoice *v) {
    free(v->uuid);
    free(v->id);
    free(v->period);
    free(v->updated_at);
    memset(v, 0, sizeof *v);
}

static enum err parse_invoice(json_object *o, bool preview, struct do_invoice *v, char *why,
                              size_t wl) {
    memset(v, 0, sizeof *v);
    v->preview = preview;
    const char *what = preview ? "invoice_preview" : "invoice";
    if (!json_object_is_type(o, json_type_object))
        return do_api_why_set(why, wl, "%s: not an object", what);
    enum err e;
    if ((e = do_api_get_str(o, "invoice_uuid", true, false, what, &v->uuid, why, wl)) != ERR_OK ||
        (e = do_api_get_str(o, "invoice_id", false, true, what, &v->id, why, wl)) != ERR_OK ||
        (e = do_api_get_str(o, "invoice_period", false, false, what, &v->period, why, wl)) !=
            ERR_OK ||
        (e = do_api_get_amount(o, "amount", true, what, &v->amount, why, wl)) != ERR_OK ||
        (e = do_api_get_str(o, "updated_at", false, false, what, &v->updated_at, why, wl)) !=
            ERR_OK) {
        invoice_release(v);
        return e;
    }
    return ERR_OK;
}

enum err do_api_parse_invoices(const char *buf, size_t len, struct do_invoices *out, char *why,
                               size_t wl) {
    json_object *doc = NULL, *arr;
    enum err e = do_api_parse_doc(buf, len, &doc, why, wl);
    if (e != ERR_OK)
        return e;
    struct do_invoices l = {0};
    if ((e = do_api_get_list(doc, "invoices", &arr, why, wl)) != ERR_OK ||
        (e = do_api_get_next(doc, &l.next, why, wl)) != ERR_OK)
        goto out;
    size_t n = json_object_array_length(arr);
    l.v = xcalloc(n + 1, sizeof *l.v);
    for (size_t i = 0; i < n; i++) {
        if (parse_invoice(json_object_array_get_idx(arr, i), false, &l.v[l.n], why, wl) == ERR_OK)
            l.n++;
        else
            l.skipped++;
    }
    json_object *pv = do_api_field(doc, "invoice_preview");
    if (pv) {
        if (parse_invoice(pv, true, &l.v[l.n], why, wl) == ERR_OK)
            l.n++;
        else
            l.skipped++;
    }
out:
    json_object_put(doc);
    if (e != ERR_OK) {
        do_invoices_release(&l);
        return e;
    }
    *out = l;
    return ERR_OK;
}

void do_invoices_release(struct do_invoices *l) {
    for (size_t i = 0; i < l->n; i++)
        invoice_release(&l->v[i]);
    free(l->v);
    free(l->next);
    memset(l, 0, sizeof *l);
}

static void item_release(struct do_invoice_item *it) {
    free(it->product);
    free(it->resource_uuid);
    free(it->resource_id);
    free(it->group_description);
    free(it->description);
    free(it->duration);
    free(it->duration_unit);
    free(it->project_name);
    free(it->category);
    memset(it, 0, sizeof *it);
}

static enum err parse_item(json_object *o, size_t idx, struct do_invoice_item *it, char *why,
                           size_t wl) {
    memset(it, 0, sizeof *it);
    char what[48];
    snprintf(what, sizeof what, "invoice item %zu", idx);
    if (!json_object_is_type(o, json_type_object))
        return do_api_why_set(why, wl, "%s: not an object", what);
    enum err e;
    if ((e = do_api_get_str(o, "product", false, false, what, &it->product, why, wl)) != ERR_OK ||
        (e = do_api_get_str(o, "resource_uuid", false, false, what, &it->resource_uuid, why, wl)) !=
            ERR_OK ||
        (e = do_api_get_str(o, "resource_id", false, true, what, &it->resource_id, why, wl)) !=
            ERR_OK ||
        (e = do_api_get_str(o, "group_description", false, false, what, &it->group_description, why,
                            wl)) != ERR_OK ||
        (e = do_api_get_str(o, "description", false, false, what, &it->description, why, wl)) !=
            ERR_OK ||
        (e = do_api_get_amount(o, "amount", true, what, &it->amount, why, wl)) != ERR_OK ||
        (e = do_api_get_str(o, "duration", false, true, what, &it->duration, why, wl)) != ERR_OK ||
        (e = do_api_get_str(o, "duration_unit", false, false, what, &it->duration_unit, why, wl)) !=
            ERR_OK ||
        (e = do_api_get_time(o, "start_time", false, what, &it->start_time, why, wl)) != ERR_OK ||
        (e = do_api_get_time(o, "end_time", false, what, &it->end_time, why, wl)) != ERR_OK ||
        (e = do_api_get_str(o, "project_name", false, false, what, &it->project_name, why, wl)) !=
            ERR_OK ||
        (e = do_api_get_str(o, "category", false, false, what, &it->category, why, wl)) != ERR_OK) {
        item_release(it);
        return e;
    }
    return ERR_OK;
}

enum err do_api_parse_invoice_items(const char *buf, size_t len, struct do_invoice_items *out,
                                    char *why, size_t wl) {
    json_object *doc = NULL, *arr;
    enum err e = do_api_parse_doc(buf, len, &doc, why, wl);
    if (e != ERR_OK)
        return e;
    struct do_invoice_items l = {0};
    if ((e = do_api_get_list(doc, "invoice_items", &arr, why, wl)) != ERR_OK ||
        (e = do_api_get_next(doc, &l.next, why, wl)) != ERR_OK)
        goto out;
    size_t n = json_object_array_length(arr);
    l.v = xcalloc(n ? n : 1, sizeof *l.v);
    for (size_t i = 0; i < n; i++) {
        if ((e = parse_item(json_object_array_get_idx(arr, i), i, &l.v[i], why, wl)) != ERR_OK)
            goto out;
        l.n++;
    }
out:
    json_object_put(doc);
    if (e != ERR_OK) {
        do_invoice_items_release(&l);
        return e;
    }
    *out = l;
    return ERR_OK;
}

void do_invoice_items_release(struct do_invoice_items *l) {
    for (size_t i = 0; i < l->n; i++)
        item_release(&l->v[i]);
    free(l->v);
    free(l->next);
    memset(l, 0, sizeof *l);
}

/* --- billing history, balance ---------------------------------------------------------- */

static void entry_release(struct do_billing_entry *b) {
    free(b->type);
    free(b->description);
    free(b->invoice_id);
    free(b->invoice_uuid);
    memset(b, 0, sizeof *b);
}

static enum err parse_entry(json_object *o, size_t idx, struct do_billing_entry *b, char *why,
                            size_t wl) {
    memset(b, 0, sizeof *b);
    char what[48];
    snprintf(what, sizeof what, "billing_history entry %zu", idx);
    if (!json_object_is_type(o, json_type_object))
        return do_api_why_set(why, wl, "%s: not an object", what);
    enum err e;
    if ((e = do_api_get_time(o, "date", true, what, &b->date, why, wl)) != ERR_OK ||
        (e = do_api_get_str(o, "type", true, false, what, &b->type, why, wl)) != ERR_OK ||
        (e = do_api_get_str(o, "description", false, false, what, &b->description, why, wl)) !=
            ERR_OK ||
        (e = do_api_get_amount(o, "amount", true, what, &b->amount, why, wl)) != ERR_OK ||
        (e = do_api_get_str(o, "invoice_id", false, true, what, &b->invoice_id, why, wl)) !=
            ERR_OK ||
        (e = do_api_get_str(o, "invoice_uuid", false, false, what, &b->invoice_uuid, why, wl)) !=
            ERR_OK) {
        entry_release(b);
        return e;
    }
    if (!b->description)
        b->description = xstrdup("");
    return ERR_OK;
}

enum err do_api_parse_billing_history(const char *buf, size_t len, struct do_billing_history *out,
                                      char *why, size_t wl) {
    json_object *doc = NULL, *arr;
    enum err e = do_api_parse_doc(buf, len, &doc, why, wl);
    if (e != ERR_OK)
        return e;
    struct do_billing_history l = {0};
    if ((e = do_api_get_list(doc, "billing_history", &arr, why, wl)) != ERR_OK ||
        (e = do_api_get_next(doc, &l.next, why, wl)) != ERR_OK)
        goto out;
    size_t n = json_object_array_length(arr);
    l.v = xcalloc(n ? n : 1, sizeof *l.v);
    for (size_t i = 0; i < n; i++) {
        if (parse_entry(json_object_array_get_idx(arr, i), i, &l.v[l.n], why, wl) == ERR_OK)
            l.n++;
        else
            l.skipped++;
    }
out:
    json_object_put(doc);
    if (e != ERR_OK) {
        do_billing_history_release(&l);
        return e;
    }
    *out = l;
    return ERR_OK;
}

void do_billing_history_release(struct do_billing_history *l) {
    for (size_t i = 0; i < l->n; i++)
        entry_release(&l->v[i]);
    free(l->v);
    free(l->next);
    memset(l, 0, sizeof *l);
}

enum err do_api_parse_balance(const char *buf, size_t len, struct do_balance *out, char *why,
                              size_t wl) {
    json_object *doc = NULL;
    enum err e = do_api_parse_doc(buf, len, &doc, why, wl);
    if (e != ERR_OK)
        return e;
    struct do_balance b = {0};
    if ((e = do_api_get_amount(doc, "month_to_date_balance", true, "balance",
                               &b.month_to_date_balance, why, wl)) == ERR_OK &&
        (e = do_api_get_amount(doc, "account_balance", true, "balance", &b.account_balance, why,
                               wl)) == ERR_OK &&
        (e = do_api_get_amount(doc, "month_to_date_usage", true, "balance", &b.month_to_date_usage,
                               why, wl)) == ERR_OK)
        e = do_api_get_time(doc, "generated_at", false, "balance", &b.generated_at, why, wl);
    json_object_put(doc);
    if (e != ERR_OK)
        return e;
    *out = b;
    return ERR_OK;
}
