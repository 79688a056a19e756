/* sim_do_api — see sim_do_api.h: errors, pagination, sizes, pools and clusters,
 * and the routing; droplets and billing are in their own files (sim_do_serve.h).
 * Everything is rendered at simulated time
 * `now`: pools and nodes that exist then, invoices up to then. */
#include "sim/sim_do_api.h"
#include "sim/sim_do_serve.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "sim/sim_billing.h"
#include "plan/rng.h"

#define DO_DEFAULT_PER_PAGE 20
#define DO_MAX_PER_PAGE 200

void sim_do_error(struct response *resp, int status, const char *id, const char *message) {
    buf_reset(&resp->body);
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    jsonw_kstr(&j, "id", id);
    jsonw_kstr(&j, "message", message);
    /* distinct per error, like DigitalOcean's: a process-wide counter */
    static atomic_ullong next_id;
    char rid[40];
    snprintf(rid, sizeof rid, "4d9d8375-3c56-4925-a3e7-%012llx",
             (unsigned long long)atomic_fetch_add(&next_id, 1) & 0xffffffffffffULL);
    jsonw_kstr(&j, "request_id", rid);
    jsonw_obj_end(&j);
    resp->status = status;
    resp->content_type = "application/json; charset=utf-8";
}

void sim_do_not_found(struct response *resp) {
    sim_do_error(resp, 404, "not_found", "The resource you were accessing could not be found.");
}

void sim_do_invoice_uuid(const struct sim_world *w, int64_t month, char out[37]) {
    struct plan_rng r;
    plan_rng_seed(&r, w->seed ^ (uint64_t)month ^ 0x1a7017ce5ULL);
    plan_rng_uuid(&r, out);
}

/* --- pagination --- */

bool sim_do_paginate(const struct request *req, int64_t total, struct page *pg,
                     struct response *resp) {
    pg->page = 1;
    pg->per_page = DO_DEFAULT_PER_PAGE;
    const char *names[2] = {"page", "per_page"};
    int64_t *dst[2] = {&pg->page, &pg->per_page};
    for (int k = 0; k < 2; k++) {
        const char *v = request_param(req, names[k]);
        if (!v)
            continue;
        errno = 0;
        char *end;
        long long x = strtoll(v, &end, 10);
        if (errno || end == v || *end || x < 1) {
            sim_do_error(resp, 400, "bad_request", "page and per_page must be positive integers");
            return false;
        }
        *dst[k] = x;
    }
    if (pg->per_page > DO_MAX_PER_PAGE)
        pg->per_page = DO_MAX_PER_PAGE;
    pg->total = total;
    pg->first = (pg->page - 1) * pg->per_page;
    if (pg->first > total)
        pg->first = total;
    pg->last = pg->first + pg->per_page < total ? pg->first + pg->per_page : total;
    return true;
}

static void page_link(struct jsonw *j, const char *key, const char *base, const char *path,
                      int64_t page, int64_t per_page) {
    char url[1024];
    snprintf(url, sizeof url, "%s%s?page=%lld&per_page=%lld", base, path, (long long)page,
             (long long)per_page);
    jsonw_kstr(j, key, url);
}

void sim_do_links_meta(struct jsonw *j, const struct page *pg, const char *base, const char *path) {
    int64_t pages = pg->total == 0 ? 1 : (pg->total + pg->per_page - 1) / pg->per_page;
    jsonw_key(j, "links");
    jsonw_obj(j);
    if (pages > 1) {
        jsonw_key(j, "pages");
        jsonw_obj(j);
        if (pg->page > 1) {
            page_link(j, "first", base, path, 1, pg->per_page);
            page_link(j, "prev", base, path, pg->page - 1, pg->per_page);
        }
        if (pg->page < pages) {
            page_link(j, "next", base, path, pg->page + 1, pg->per_page);
            page_link(j, "last", base, path, pages, pg->per_page);
        }
        jsonw_obj_end(j);
    }
    jsonw_obj_end(j);
    jsonw_key(j, "meta");
    jsonw_obj(j);
    jsonw_kint(j, "total", pg->total);
    jsonw_obj_end(j);
}

bool sim_do_list_open(const struct request *req, int64_t total, const char *key, struct page *pg,
                      struct jsonw *j, struct response *resp) {
    if (!sim_do_paginate(req, total, pg, resp))
        return false;
    jsonw_init(j, &resp->body);
    jsonw_obj(j);
    jsonw_key(j, key);
    jsonw_arr(j);
    return true;
}

void sim_do_list_close(struct jsonw *j, const struct page *pg, const char *base, const char *path) {
    jsonw_arr_end(j);
    sim_do_links_meta(j, pg, base, path);
    jsonw_obj_end(j);
}

/* --- sizes --- */

void sim_do_size_json(struct jsonw *j, const struct sim_world *w, const struct sim_size *s,
                      int64_t at) {
    const char *price_text;
    int64_t price = sim_billing_price_at(s, at, &price_text);
    jsonw_obj(j);
    jsonw_kstr(j, "slug", s->slug);
    jsonw_kint(j, "memory", s->memory_mb);
    jsonw_kint(j, "vcpus", s->vcpus);
    jsonw_kint(j, "disk", s->disk_gb);
    jsonw_kint(j, "transfer", s->gpus ? 15 : 4);
    /* JSON floats as DO sends them, printed exactly from micro-dollars */
    jsonw_kmoney(j, "price_monthly", price * 672);
    jsonw_key(j, "price_hourly");
    jsonw_raw(j, price_text);
    jsonw_key(j, "regions");
    jsonw_arr(j);
    jsonw_str(j, w->sc->region);
    jsonw_arr_end(j);
    jsonw_kbool(j, "available", true);
    jsonw_kstr(j, "description", s->description);
    if (s->gpus) {
        jsonw_key(j, "gpu_info");
        jsonw_obj(j);
        jsonw_kint(j, "count", s->gpus);
        jsonw_key(j, "vram");
        jsonw_obj(j);
        jsonw_kint(j, "amount", s->vram_gib);
        jsonw_kstr(j, "unit", "gib");
        jsonw_obj_end(j);
        jsonw_kstr(j, "model", s->gpu_model);
        jsonw_obj_end(j);
    }
    jsonw_key(j, "disk_info");
    jsonw_arr(j);
    jsonw_obj(j);
    jsonw_kstr(j, "type", "local");
    jsonw_key(j, "size");
    jsonw_obj(j);
    jsonw_kint(j, "amount", s->disk_gb);
    jsonw_kstr(j, "unit", "gib");
    jsonw_obj_end(j);
    jsonw_obj_end(j);
    jsonw_arr_end(j);
    jsonw_obj_end(j);
}

/* --- pools and clusters --- */

static bool pool_visible(const struct sim_pool *p, int64_t now) {
    return p->created_t <= now && p->gone_t > now;
}

bool sim_do_node_visible(const struct sim_node *n, int64_t now) {
    return n->created_t <= now && n->deleted_t > now;
}

static void node_json(struct jsonw *j, const struct sim_node *n, int64_t now) {
    const char *state = "provisioning";
    int64_t updated = n->created_t;
    if (n->deleting_t <= now) {
        state = "deleting";
        updated = n->deleting_t;
    } else if (n->cordon_t <= now && !n->cordon_by_ca) {
        state = "draining";
        updated = n->cordon_t;
    } else if (n->ready_t <= now) {
        state = "running";
        updated = n->ready_t;
    }
    jsonw_obj(j);
    jsonw_kstr(j, "id", n->do_id);
    jsonw_kstr(j, "name", n->name);
    jsonw_key(j, "status");
    jsonw_obj(j);
    jsonw_kstr(j, "state", state);
    jsonw_obj_end(j);
    jsonw_kstr(j, "droplet_id", n->droplet_id);
    jsonw_ktime(j, "created_at", n->created_t);
    jsonw_ktime(j, "updated_at", updated);
    jsonw_obj_end(j);
}

/* "tags": the tags DOKS puts on the cluster and, with worker, those on its worker
 * pools and their droplets (one more). */
static void tags_json(struct jsonw *j, const struct sim_world *w, bool worker) {
    jsonw_key(j, "tags");
    jsonw_arr(j);
    char tag[64];
    snprintf(tag, sizeof tag, "k8s:%s", w->cluster_id);
    jsonw_str(j, "k8s");
    jsonw_str(j, tag);
    if (worker)
        jsonw_str(j, "k8s:worker");
    jsonw_arr_end(j);
}

void sim_do_worker_tags(struct jsonw *j, const struct sim_world *w) {
    tags_json(j, w, true);
}

static void pool_json(struct jsonw *j, const struct sim_world *w, int pool, int64_t now) {
    const struct sim_pool *p = &w->pools[pool];
    const struct sim_pool_spec *ps = &w->sc->pools[p->spec];
    int count = 0;
    for (int i = 0; i < w->nnodes; i++)
        if (w->nodes[i].pool == pool && sim_do_node_visible(&w->nodes[i], now))
            count++;
    jsonw_obj(j);
    jsonw_kstr(j, "id", p->id);
    jsonw_kstr(j, "name", p->name);
    jsonw_kstr(j, "size", ps->size);
    jsonw_kint(j, "count", count);
    sim_do_worker_tags(j, w);
    jsonw_key(j, "labels");
    if (ps->nlabels == 0) {
        jsonw_null(j);
    } else {
        jsonw_obj(j);
        for (int k = 0; k < ps->nlabels; k++)
            jsonw_kstr(j, ps->labels[k].key, ps->labels[k].value);
        jsonw_obj_end(j);
    }
    jsonw_key(j, "taints");
    jsonw_arr(j);
    for (int k = 0; k < ps->ntaints; k++) {
        jsonw_obj(j);
        jsonw_kstr(j, "key", ps->taints[k].key);
        jsonw_kstr(j, "value", ps->taints[k].value);
        jsonw_kstr(j, "effect", ps->taints[k].effect);
        jsonw_obj_end(j);
    }
    jsonw_arr_end(j);
    jsonw_kbool(j, "auto_scale", ps->auto_scale);
    jsonw_kint(j, "min_nodes", ps->auto_scale ? ps->min_nodes : 0);
    jsonw_kint(j, "max_nodes", ps->auto_scale ? ps->max_nodes : 0);
    jsonw_key(j, "nodes");
    jsonw_arr(j);
    for (int i = 0; i < w->nnodes; i++)
        if (w->nodes[i].pool == pool && sim_do_node_visible(&w->nodes[i], now))
            node_json(j, &w->nodes[i], now);
    jsonw_arr_end(j);
    jsonw_obj_end(j);
}

static void cluster_json(struct jsonw *j, const struct sim_world *w, int64_t now) {
    const struct sim_scenario *sc = w->sc;
    jsonw_obj(j);
    jsonw_kstr(j, "id", w->cluster_id);
    jsonw_kstr(j, "name", sc->cluster_name);
    jsonw_kstr(j, "region", sc->region);
    jsonw_kstr(j, "version", sc->k8s_version);
    jsonw_kstr(j, "cluster_subnet", "10.244.0.0/16");
    jsonw_kstr(j, "service_subnet", "10.245.0.0/16");
    jsonw_kstr(j, "vpc_uuid", "c33931f2-a26a-4e61-b85c-4e95a2ec431b");
    jsonw_kstr(j, "ipv4", "127.0.0.1");
    char endpoint[96];
    snprintf(endpoint, sizeof endpoint, "https://%s.k8s.ondigitalocean.com", w->cluster_id);
    jsonw_kstr(j, "endpoint", endpoint);
    tags_json(j, w, false);
    jsonw_key(j, "node_pools");
    jsonw_arr(j);
    for (int i = 0; i < w->npools; i++)
        if (pool_visible(&w->pools[i], now))
            pool_json(j, w, i, now);
    jsonw_arr_end(j);
    jsonw_key(j, "maintenance_policy");
    jsonw_obj(j);
    jsonw_kstr(j, "start_time", "00:00");
    jsonw_kstr(j, "duration", "4h0m0s");
    jsonw_kstr(j, "day", "any");
    jsonw_obj_end(j);
    jsonw_kbool(j, "auto_upgrade", false);
    jsonw_key(j, "status");
    jsonw_obj(j);
    jsonw_kstr(j, "state", "running");
    jsonw_obj_end(j);
    jsonw_ktime(j, "created_at", sc->start - 30 * 86400);
    jsonw_ktime(j, "updated_at", sc->start - 30 * 86400);
    jsonw_kbool(j, "surge_upgrade", true);
    jsonw_kbool(j, "registry_enabled", false);
    jsonw_kbool(j, "ha", false);
    jsonw_obj_end(j);
}

bool sim_do_handle(const struct sim_world *w, const struct request *req, int64_t now,
                   const char *base_url, struct response *resp) {
    return sim_do_handle_account(w, NULL, 0, req, now, base_url, resp);
}

bool sim_do_handle_account(const struct sim_world *w, const struct sim_world *const *acct, int n,
                           const struct request *req, int64_t now, const char *base_url,
                           struct response *resp) {
    const struct sim_world *alone[1] = {w};
    struct sim_account a = {acct && n > 0 ? acct : alone, acct && n > 0 ? n : 1};
    const char *path = req->path;
    if (strncmp(path, "/v2/", 4) != 0)
        return false;
    resp->status = 200;
    resp->content_type = "application/json; charset=utf-8";
    buf_reset(&resp->body);
    if (strcmp(req->method, "GET") != 0) {
        sim_do_error(resp, 405, "method_not_allowed", "spotsim serves GET only.");
        return true;
    }
    const char *p = path + 4;
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    char cl_prefix[96];
    snprintf(cl_prefix, sizeof cl_prefix, "kubernetes/clusters/%s", w->cluster_id);
    size_t cl_len = strlen(cl_prefix);
    if (strcmp(p, "sizes") == 0) {
        struct page pg;
        if (!sim_do_list_open(req, w->sc->nsizes, "sizes", &pg, &j, resp))
            return true;
        for (int64_t i = pg.first; i < pg.last; i++)
            sim_do_size_json(&j, w, &w->sc->sizes[i], now);
        sim_do_list_close(&j, &pg, base_url, "/v2/sizes");
    } else if (strcmp(p, "account") == 0) {
        jsonw_obj(&j);
        jsonw_key(&j, "account");
        jsonw_obj(&j);
        jsonw_kint(&j, "droplet_limit", 25);
        jsonw_kint(&j, "floating_ip_limit", 5);
        jsonw_kstr(&j, "email", "spotsim@example.com");
        jsonw_kstr(&j, "uuid", w->cluster_id);
        jsonw_kbool(&j, "email_verified", true);
        jsonw_kstr(&j, "status", "active");
        jsonw_kstr(&j, "status_message", "");
        jsonw_key(&j, "team");
        jsonw_obj(&j);
        jsonw_kstr(&j, "uuid", w->cluster_id);
        jsonw_kstr(&j, "name", "spotsim");
        jsonw_obj_end(&j);
        jsonw_obj_end(&j);
        jsonw_obj_end(&j);
    } else if (strcmp(p, "kubernetes/clusters") == 0) {
        struct page pg;
        if (!sim_do_list_open(req, a.n, "kubernetes_clusters", &pg, &j, resp))
            return true;
        for (int64_t i = pg.first; i < pg.last; i++) /* every cluster of the account */
            cluster_json(&j, a.w[i], now);
        sim_do_list_close(&j, &pg, base_url, "/v2/kubernetes/clusters");
    } else if (strncmp(p, cl_prefix, cl_len) == 0 && p[cl_len] == '\0') {
        jsonw_obj(&j);
        jsonw_key(&j, "kubernetes_cluster");
        cluster_json(&j, w, now);
        jsonw_obj_end(&j);
    } else if (strncmp(p, cl_prefix, cl_len) == 0 && strcmp(p + cl_len, "/node_pools") == 0) {
        /* one unpaginated list, as DigitalOcean's endpoint (no links, no meta) */
        jsonw_obj(&j);
        jsonw_key(&j, "node_pools");
        jsonw_arr(&j);
        for (int i = 0; i < w->npools; i++)
            if (pool_visible(&w->pools[i], now))
                pool_json(&j, w, i, now);
        jsonw_arr_end(&j);
        jsonw_obj_end(&j);
    } else if (strncmp(p, cl_prefix, cl_len) == 0 && strncmp(p + cl_len, "/node_pools/", 12) == 0) {
        const char *id = p + cl_len + 12;
        int found = -1;
        for (int i = 0; i < w->npools; i++)
            if (pool_visible(&w->pools[i], now) && strcmp(w->pools[i].id, id) == 0)
                found = i;
        if (found < 0) {
            sim_do_not_found(resp);
            return true;
        }
        jsonw_obj(&j);
        jsonw_key(&j, "node_pool");
        pool_json(&j, w, found, now);
        jsonw_obj_end(&j);
    } else if (strcmp(p, "customers/my/balance") == 0) {
        sim_do_balance(&a, now, resp);
    } else if (strcmp(p, "customers/my/billing_history") == 0) {
        sim_do_billing_history(&a, req, now, base_url, resp);
    } else if (strcmp(p, "customers/my/invoices") == 0) {
        sim_do_invoices(&a, req, now, base_url, resp);
    } else if (strncmp(p, "customers/my/invoices/", 22) == 0 && strlen(p + 22) == 36) {
        if (!sim_do_invoice_items(&a, req, now, base_url, p + 22, resp))
            sim_do_not_found(resp);
    } else if (strncmp(p, "customers/my/invoices/", 22) == 0 && strlen(p + 22) == 44 &&
               strcmp(p + 58, "/summary") == 0) {
        char uuid[37];
        snprintf(uuid, sizeof uuid, "%.36s", p + 22);
        if (!sim_do_invoice_summary_doc(&a, now, uuid, resp))
            sim_do_not_found(resp);
    } else if (strncmp(p, "billing/", 8) == 0) {
        sim_do_insights(&a, req, now, p + 8, resp);
    } else if (strcmp(p, "kubernetes/options") == 0) {
        sim_do_k8s_options(w, resp);
    } else if (strcmp(p, "droplets") == 0) {
        sim_do_droplets(&a, req, now, base_url, resp);
    } else if (strncmp(p, "droplets/", 9) == 0) {
        if (!sim_do_droplet_one(&a, p + 9, now, resp))
            sim_do_not_found(resp);
    } else {
        sim_do_not_found(resp);
    }
    return true;
}
