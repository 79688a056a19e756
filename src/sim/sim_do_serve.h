/* sim_do_serve — the parts of spotsim's DigitalOcean API (sim_do_api.h is the
 * contract for callers; this header is internal to src/sim/sim_do_*.c): errors,
 * pagination, sizes, pools, clusters and the routing (sim_do_api.c), droplets
 * and the Kubernetes options (sim_do_droplet.c), invoices, billing history,
 * balance and insights (sim_do_invoice.c). Everything is rendered at simulated
 * time `now`. Thread rule: any thread; the world is immutable. */
#ifndef SPOTLEDGER_SIM_DO_SERVE_H
#define SPOTLEDGER_SIM_DO_SERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/jsonw.h"
#include "sim/sim_do_api.h"
#include "sim/sim_world.h"

/* One page of a list: items [first, last) of total. */
struct page {
    int64_t page, per_page, first, last; /* items [first, last) */
    int64_t total;
};

/* The account whose billing is served: its clusters' worlds, the first
 * cluster's first (sim_do_handle_account). */
struct sim_account {
    const struct sim_world *const *w;
    int n;
};

/* --- sim_do_api.c --- */

/* 404 {"id":"not_found"}. */
void sim_do_not_found(struct response *resp);
/* The page the request's page/per_page ask for; false (resp holds a 400) when
 * they are malformed. */
bool sim_do_paginate(const struct request *req, int64_t total, struct page *pg,
                     struct response *resp);
/* "links" (pages: first, prev, next, last under base + path) and "meta" (total). */
void sim_do_links_meta(struct jsonw *j, const struct page *pg, const char *base, const char *path);
/* Opens a paged list of total items in resp's body: the page the request asks
 * for (sim_do_paginate), then {"key":[ ; false (resp holds a 400) when the
 * request's page/per_page are malformed. */
bool sim_do_list_open(const struct request *req, int64_t total, const char *key, struct page *pg,
                      struct jsonw *j, struct response *resp);
/* Closes such a list: ], its links and meta (sim_do_links_meta), }. */
void sim_do_list_close(struct jsonw *j, const struct page *pg, const char *base, const char *path);
/* One size object of /v2/sizes, with the list price in force at `at`. */
void sim_do_size_json(struct jsonw *j, const struct sim_world *w, const struct sim_size *s,
                      int64_t at);
/* The node exists at now (as DigitalOcean lists it). */
bool sim_do_node_visible(const struct sim_node *n, int64_t now);
/* "tags" of the cluster's worker droplets. */
void sim_do_worker_tags(struct jsonw *j, const struct sim_world *w);

/* --- sim_do_droplet.c --- */

/* GET /v2/droplets (paged; tag_name filter): every cluster's of the account. */
void sim_do_droplets(const struct sim_account *a, const struct request *req, int64_t now,
                     const char *base, struct response *resp);
/* GET /v2/droplets/{id}, of any cluster of the account; false when id is no
 * droplet then. */
bool sim_do_droplet_one(const struct sim_account *a, const char *id, int64_t now,
                        struct response *resp);
/* GET /v2/kubernetes/options. */
void sim_do_k8s_options(const struct sim_world *w, struct response *resp);

/* --- sim_do_invoice.c --- */

/* GET /v2/customers/my/invoices (paged; the month in progress as invoice_preview). */
void sim_do_invoices(const struct sim_account *a, const struct request *req, int64_t now,
                     const char *base, struct response *resp);
/* GET .../invoices/{uuid}/summary; false when uuid is no closed month. */
bool sim_do_invoice_summary_doc(const struct sim_account *a, int64_t now, const char *uuid,
                                struct response *resp);
/* GET /v2/billing/{account}/insights/... (rest: the path after "insights"). */
void sim_do_insights(const struct sim_account *a, const struct request *req, int64_t now,
                     const char *rest, struct response *resp);
/* GET .../invoices/{uuid} (paged items); false when uuid is unknown. */
bool sim_do_invoice_items(const struct sim_account *a, const struct request *req, int64_t now,
                          const char *base, const char *uuid, struct response *resp);
/* GET /v2/customers/my/billing_history (paged). */
void sim_do_billing_history(const struct sim_account *a, const struct request *req, int64_t now,
                            const char *base, struct response *resp);
/* GET /v2/customers/my/balance. */
void sim_do_balance(const struct sim_account *a, int64_t now, struct response *resp);

#endif
