/* do — the DigitalOcean records spotledger keeps (sizes and their prices, the
 * cluster, node pools and their nodes, invoices and invoice items, billing
 * history, balance) as plain structs: what the parsers (source/do_api.h) produce
 * and the store (store/store_do.h) writes. No I/O, no JSON.
 *
 * Invariants: money is int64 micro-dollars (base/money.h); times are Unix seconds,
 * 0 = absent; strings are owned copies, NULL = absent. The lists carry `next`, the
 * API's link to the following page (NULL on the last page). Release them with the
 * parser's *_release functions (source/do_api.h).
 *
 * Thread rule: any thread; the structs belong to their caller. */
#ifndef SPOTLEDGER_DO_H
#define SPOTLEDGER_DO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct do_size {
    char *slug;
    int64_t vcpus;     /* -1 unknown */
    int64_t memory_mb; /* -1 unknown */
    int64_t gpu_count; /* 0 when no gpu_info */
    char *gpu_model;
    int64_t gpu_vram_gb; /* -1 unknown */
    int64_t price_hourly;
    int64_t price_monthly;
    bool available;
};

struct do_sizes {
    struct do_size *v;
    size_t n;
    size_t skipped;
    char *next; /* links.pages.next, NULL on the last page */
};

struct do_cluster {
    char *id;
    char *name;
    char *region;
    char *version;
};

struct do_label {
    char *key;
    char *value;
};

struct do_node {
    char *id; /* DO node uuid */
    char *name;
    char *state; /* status.state */
    char *droplet_id;
    int64_t created_at;
    int64_t updated_at;
};

struct do_pool {
    char *id;
    char *name;
    char *size;
    int64_t count;
    bool auto_scale;
    int64_t min_nodes;
    int64_t max_nodes;
    struct do_label *labels;
    size_t n_labels;
    char *labels_json; /* compact JSON object, NULL when labels is null/absent */
    char *taints_json; /* compact JSON array, NULL when absent */
    struct do_node *nodes;
    size_t n_nodes;
};

struct do_pools {
    struct do_pool *v;
    size_t n;
    size_t skipped; /* always 0: a page of pools is all-or-nothing */
    char *next;
};

struct do_invoice {
    char *uuid;
    char *id;
    char *period; /* "2019-12" */
    int64_t amount;
    char *updated_at; /* as sent (preview only) */
    bool preview;
};

struct do_invoices {
    struct do_invoice *v; /* invoices, then the preview (preview = true) if any */
    size_t n;
    size_t skipped;
    char *next;
};

struct do_invoice_item {
    char *product;
    char *resource_uuid;
    char *resource_id;
    char *group_description;
    char *description;
    int64_t amount;
    char *duration;
    char *duration_unit;
    int64_t start_time;
    int64_t end_time;
    char *project_name;
    char *category;
};

struct do_invoice_items {
    struct do_invoice_item *v;
    size_t n;
    size_t skipped; /* always 0: a page of items is all-or-nothing */
    char *next;
};

struct do_billing_entry {
    int64_t date;
    char *type;
    char *description;
    int64_t amount;
    char *invoice_id;
    char *invoice_uuid;
};

struct do_billing_history {
    struct do_billing_entry *v;
    size_t n;
    size_t skipped;
    char *next;
};

struct do_balance {
    int64_t month_to_date_balance;
    int64_t account_balance;
    int64_t month_to_date_usage;
    int64_t generated_at;
};

#endif
