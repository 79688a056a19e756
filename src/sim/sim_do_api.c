/* sim_do_api — see sim_do_api.h. Everything is rendered at simulated time
 * `now`: pools and nodes that exist then, invoices up to then. */
#include "sim/sim_do_api.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/money.h"
#include "sim/sim_billing.h"
#include "sim/sim_rng.h"
#include "base/timeutil.h"
#include "base/xalloc.h"
#include "model/billing.h"

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

static void not_found(struct response *resp) {
    sim_do_error(resp, 404, "not_found", "The resource you were accessing could not be found.");
}

void sim_do_invoice_uuid(const struct sim_world *w, int64_t month, char out[37]) {
    struct sim_rng r;
    sim_rng_seed(&r, w->seed ^ (uint64_t)month ^ 0x1a7017ce5ULL);
    sim_rng_uuid(&r, out);
}

/* --- pagination --- */

struct page {
    int64_t page, per_page, first, last; /* items [first, last) */
    int64_t total;
};

static bool paginate(const struct request *req, int64_t total, struct page *pg,
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

static void links_meta(struct jsonw *j, const struct page *pg, const char *base, const char *path) {
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

/* --- sizes --- */

static void size_json(struct jsonw *j, const struct sim_world *w, const struct sim_size *s) {
    jsonw_obj(j);
    jsonw_kstr(j, "slug", s->slug);
    jsonw_kint(j, "memory", s->memory_mb);
    jsonw_kint(j, "vcpus", s->vcpus);
    jsonw_kint(j, "disk", s->disk_gb);
    jsonw_kint(j, "transfer", s->gpus ? 15 : 4);
    /* JSON floats as DO sends them, printed exactly from micro-dollars */
    jsonw_kmoney(j, "price_monthly", s->price_hourly * 672);
    jsonw_key(j, "price_hourly");
    jsonw_raw(j, s->price_hourly_text);
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

static bool node_visible(const struct sim_node *n, int64_t now) {
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

/* "tags": the tags DOKS puts on worker pools and their droplets. */
static void worker_tags(struct jsonw *j, const struct sim_world *w) {
    jsonw_key(j, "tags");
    jsonw_arr(j);
    char tag[64];
    snprintf(tag, sizeof tag, "k8s:%s", w->cluster_id);
    jsonw_str(j, "k8s");
    jsonw_str(j, tag);
    jsonw_str(j, "k8s:worker");
    jsonw_arr_end(j);
}

static void pool_json(struct jsonw *j, const struct sim_world *w, int pool, int64_t now) {
    const struct sim_pool *p = &w->pools[pool];
    const struct sim_pool_spec *ps = &w->sc->pools[p->spec];
    int count = 0;
    for (int i = 0; i < w->nnodes; i++)
        if (w->nodes[i].pool == pool && node_visible(&w->nodes[i], now))
            count++;
    jsonw_obj(j);
    jsonw_kstr(j, "id", p->id);
    jsonw_kstr(j, "name", p->name);
    jsonw_kstr(j, "size", ps->size);
    jsonw_kint(j, "count", count);
    worker_tags(j, w);
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
        if (w->nodes[i].pool == pool && node_visible(&w->nodes[i], now))
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
    jsonw_key(j, "tags");
    jsonw_arr(j);
    char tag[64];
    snprintf(tag, sizeof tag, "k8s:%s", w->cluster_id);
    jsonw_str(j, "k8s");
    jsonw_str(j, tag);
    jsonw_arr_end(j);
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

/* --- droplets (the cluster's nodes as DigitalOcean lists them) --- */

static void droplet_json(struct jsonw *j, const struct sim_world *w, int node, int64_t now) {
    const struct sim_node *n = &w->nodes[node];
    const struct sim_pool *p = &w->pools[n->pool];
    const struct sim_size *sz = &w->sc->sizes[w->sc->pools[p->spec].size_idx];
    jsonw_obj(j);
    jsonw_key(j, "id");
    jsonw_raw(j, n->droplet_id);
    jsonw_kstr(j, "name", n->name);
    jsonw_kint(j, "memory", sz->memory_mb);
    jsonw_kint(j, "vcpus", sz->vcpus);
    jsonw_kint(j, "disk", sz->disk_gb);
    jsonw_kbool(j, "locked", false);
    jsonw_kstr(j, "status", n->ready_t <= now ? "active" : "new");
    jsonw_ktime(j, "created_at", n->created_t);
    jsonw_key(j, "features");
    jsonw_arr(j);
    jsonw_str(j, "private_networking");
    jsonw_arr_end(j);
    jsonw_key(j, "backup_ids");
    jsonw_arr(j);
    jsonw_arr_end(j);
    jsonw_key(j, "next_backup_window");
    jsonw_null(j);
    jsonw_key(j, "snapshot_ids");
    jsonw_arr(j);
    jsonw_arr_end(j);
    jsonw_key(j, "image");
    jsonw_obj(j);
    jsonw_kint(j, "id", 160000000);
    jsonw_kstr(j, "name", "DOKS worker");
    jsonw_kstr(j, "distribution", "Debian");
    jsonw_kbool(j, "public", false);
    jsonw_kstr(j, "type", "base");
    jsonw_kstr(j, "status", "available");
    jsonw_obj_end(j);
    jsonw_key(j, "volume_ids");
    jsonw_arr(j);
    jsonw_arr_end(j);
    jsonw_key(j, "size");
    size_json(j, w, sz);
    jsonw_kstr(j, "size_slug", sz->slug);
    jsonw_key(j, "networks");
    jsonw_obj(j);
    jsonw_key(j, "v4");
    jsonw_arr(j);
    char ip[32];
    snprintf(ip, sizeof ip, "10.116.%d.%d", (node / 250) % 250, node % 250 + 2);
    jsonw_obj(j);
    jsonw_kstr(j, "ip_address", ip);
    jsonw_kstr(j, "netmask", "255.255.0.0");
    jsonw_kstr(j, "gateway", "10.116.0.1");
    jsonw_kstr(j, "type", "private");
    jsonw_obj_end(j);
    jsonw_arr_end(j);
    jsonw_key(j, "v6");
    jsonw_arr(j);
    jsonw_arr_end(j);
    jsonw_obj_end(j);
    jsonw_key(j, "region");
    jsonw_obj(j);
    jsonw_kstr(j, "name", w->sc->region);
    jsonw_kstr(j, "slug", w->sc->region);
    jsonw_key(j, "features");
    jsonw_arr(j);
    jsonw_str(j, "private_networking");
    jsonw_arr_end(j);
    jsonw_kbool(j, "available", true);
    jsonw_key(j, "sizes");
    jsonw_arr(j);
    for (int i = 0; i < w->sc->nsizes; i++)
        jsonw_str(j, w->sc->sizes[i].slug);
    jsonw_arr_end(j);
    jsonw_obj_end(j);
    worker_tags(j, w);
    jsonw_kstr(j, "vpc_uuid", "c33931f2-a26a-4e61-b85c-4e95a2ec431b");
    jsonw_obj_end(j);
}

/* GET /v2/droplets[?type=gpus|droplets][&tag_name=T]: the nodes that exist now. */
static void droplets(const struct sim_world *w, const struct request *req, int64_t now,
                     const char *base, struct response *resp) {
    const char *type = request_param(req, "type");
    const char *tag = request_param(req, "tag_name");
    if (type && strcmp(type, "gpus") && strcmp(type, "droplets")) {
        sim_do_error(resp, 400, "bad_request", "type must be 'droplets' or 'gpus'");
        return;
    }
    char ctag[64];
    snprintf(ctag, sizeof ctag, "k8s:%s", w->cluster_id);
    bool tag_ok =
        !tag || strcmp(tag, "k8s") == 0 || strcmp(tag, ctag) == 0 || strcmp(tag, "k8s:worker") == 0;
    int *sel = xmalloc(sizeof *sel * (size_t)(w->nnodes ? w->nnodes : 1));
    int n = 0;
    for (int i = 0; i < w->nnodes && tag_ok; i++) {
        const struct sim_node *nd = &w->nodes[i];
        if (!node_visible(nd, now))
            continue;
        bool gpu = w->sc->sizes[w->sc->pools[w->pools[nd->pool].spec].size_idx].gpus > 0;
        /* DigitalOcean lists GPU droplets only with type=gpus */
        if (gpu != (type && strcmp(type, "gpus") == 0))
            continue;
        sel[n++] = i;
    }
    struct page pg;
    if (!paginate(req, n, &pg, resp)) {
        free(sel);
        return;
    }
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    jsonw_key(&j, "droplets");
    jsonw_arr(&j);
    for (int64_t i = pg.first; i < pg.last; i++)
        droplet_json(&j, w, sel[i], now);
    jsonw_arr_end(&j);
    links_meta(&j, &pg, base, "/v2/droplets");
    jsonw_obj_end(&j);
    free(sel);
}

static bool droplet_one(const struct sim_world *w, const char *id, int64_t now,
                        struct response *resp) {
    for (int i = 0; i < w->nnodes; i++) {
        if (!node_visible(&w->nodes[i], now) || strcmp(w->nodes[i].droplet_id, id))
            continue;
        struct jsonw j;
        jsonw_init(&j, &resp->body);
        jsonw_obj(&j);
        jsonw_key(&j, "droplet");
        droplet_json(&j, w, i, now);
        jsonw_obj_end(&j);
        return true;
    }
    return false;
}

/* GET /v2/kubernetes/options: the region, the version and the sizes of the scenario. */
static void k8s_options(const struct sim_world *w, struct response *resp) {
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    jsonw_key(&j, "options");
    jsonw_obj(&j);
    jsonw_key(&j, "regions");
    jsonw_arr(&j);
    jsonw_obj(&j);
    jsonw_kstr(&j, "name", w->sc->region);
    jsonw_kstr(&j, "slug", w->sc->region);
    jsonw_obj_end(&j);
    jsonw_arr_end(&j);
    jsonw_key(&j, "versions");
    jsonw_arr(&j);
    jsonw_obj(&j);
    jsonw_kstr(&j, "slug", w->sc->k8s_version);
    char kv[32];
    snprintf(kv, sizeof kv, "%.*s", (int)strcspn(w->sc->k8s_version, "-"), w->sc->k8s_version);
    jsonw_kstr(&j, "kubernetes_version", kv);
    jsonw_key(&j, "supported_features");
    jsonw_arr(&j);
    jsonw_str(&j, "cluster-autoscaler");
    jsonw_str(&j, "docr-integration");
    jsonw_arr_end(&j);
    jsonw_obj_end(&j);
    jsonw_arr_end(&j);
    jsonw_key(&j, "sizes");
    jsonw_arr(&j);
    for (int i = 0; i < w->sc->nsizes; i++) {
        jsonw_obj(&j);
        jsonw_kstr(&j, "name", w->sc->sizes[i].description);
        jsonw_kstr(&j, "slug", w->sc->sizes[i].slug);
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);
    jsonw_obj_end(&j);
    jsonw_obj_end(&j);
}

/* --- billing --- */

#define MAX_MONTHS 24

/* Months (starts) with any billed item up to now, ascending; returns the count. */
static int billed_months(const struct sim_world *w, int64_t now, int64_t *months) {
    int n = 0;
    struct sim_bill_item items[SIM_BILL_MAX_MONTHS];
    for (int i = 0; i < w->nnodes; i++) {
        int k = sim_billing_node(w, i, now, items, SIM_BILL_MAX_MONTHS);
        for (int q = 0; q < k; q++) {
            bool seen = false;
            for (int m = 0; m < n; m++)
                if (months[m] == items[q].month)
                    seen = true;
            if (!seen && n < MAX_MONTHS)
                months[n++] = items[q].month;
        }
    }
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && months[b - 1] > months[b]; b--) {
            int64_t t = months[b];
            months[b] = months[b - 1];
            months[b - 1] = t;
        }
    return n;
}

static int64_t month_total(const struct sim_world *w, int64_t month, int64_t now) {
    int64_t sum = 0;
    struct sim_bill_item items[SIM_BILL_MAX_MONTHS];
    for (int i = 0; i < w->nnodes; i++) {
        int k = sim_billing_node(w, i, now, items, SIM_BILL_MAX_MONTHS);
        for (int q = 0; q < k; q++)
            if (items[q].month == month)
                sum += sim_billing_cents(items[q].amount);
    }
    return sum;
}

/* Dollars with two decimals, as DigitalOcean writes every billing amount ("12.34");
 * callers pass whole cents (sim_billing_cents). */
static void money_str(struct jsonw *j, const char *key, int64_t micro) {
    char tmp[MONEY_FMT_MAX];
    money_format_fixed(micro, tmp);
    size_t len = strlen(tmp);
    if (len > 4)
        tmp[len - 4] = '\0'; /* "12.340000" -> "12.34" */
    jsonw_kstr(j, key, tmp);
}

static void period(int64_t month, char out[16]) {
    int64_t y;
    int m, d;
    timeutil_civil_from_days(month / 86400, &y, &m, &d);
    snprintf(out, 16, "%04lld-%02d", (long long)y, m);
}

static void invoice_summary(struct jsonw *j, const struct sim_world *w, int64_t month, int64_t now,
                            bool preview) {
    char uuid[37], per[16], id[24];
    sim_do_invoice_uuid(w, month, uuid);
    period(month, per);
    snprintf(id, sizeof id, "%lld", 10000000LL + month / 86400);
    jsonw_obj(j);
    jsonw_kstr(j, "invoice_uuid", uuid);
    jsonw_kstr(j, "invoice_id", id);
    money_str(j, "amount", month_total(w, month, now));
    jsonw_kstr(j, "invoice_period", per);
    if (preview)
        jsonw_ktime(j, "updated_at", now);
    jsonw_obj_end(j);
}

/* Closed invoices: billed months that ended by now, newest first (as DO lists them). */
static int closed_months(const struct sim_world *w, int64_t now, int64_t *out) {
    int64_t months[MAX_MONTHS];
    int n = billed_months(w, now, months), k = 0;
    for (int i = n - 1; i >= 0; i--)
        if (timeutil_next_month_start(months[i]) <= now)
            out[k++] = months[i];
    return k;
}

static void invoices(const struct sim_world *w, const struct request *req, int64_t now,
                     const char *base, struct response *resp) {
    int64_t months[MAX_MONTHS];
    int n = closed_months(w, now, months);
    struct page pg;
    if (!paginate(req, n, &pg, resp))
        return;
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    jsonw_key(&j, "invoices");
    jsonw_arr(&j);
    for (int64_t i = pg.first; i < pg.last; i++)
        invoice_summary(&j, w, months[i], now, false);
    jsonw_arr_end(&j);
    jsonw_key(&j, "invoice_preview");
    invoice_summary(&j, w, timeutil_month_start(now), now, true);
    links_meta(&j, &pg, base, "/v2/customers/my/invoices");
    jsonw_obj_end(&j);
}

/* The month of invoice `uuid` (the preview's or a billed month's), -1 if none. */
static int64_t invoice_month(const struct sim_world *w, int64_t now, const char *uuid) {
    int64_t months[MAX_MONTHS];
    int n = billed_months(w, now, months);
    char cand[37];
    int64_t cur = timeutil_month_start(now);
    sim_do_invoice_uuid(w, cur, cand);
    if (strcmp(cand, uuid) == 0)
        return cur;
    for (int i = 0; i < n; i++) {
        sim_do_invoice_uuid(w, months[i], cand);
        if (strcmp(cand, uuid) == 0)
            return months[i];
    }
    return -1;
}

/* GET /v2/customers/my/invoices/{uuid}/summary: the month's product charges
 * (Droplets, the only product spotsim bills), no overages, taxes or credits. */
static bool invoice_summary_doc(const struct sim_world *w, int64_t now, const char *uuid,
                                struct response *resp) {
    int64_t month = invoice_month(w, now, uuid);
    if (month < 0)
        return false;
    char per[16], id[24];
    period(month, per);
    snprintf(id, sizeof id, "%lld", 10000000LL + month / 86400);
    int64_t total = month_total(w, month, now);
    int items = 0;
    struct sim_bill_item it[SIM_BILL_MAX_MONTHS];
    for (int i = 0; i < w->nnodes; i++) {
        int k = sim_billing_node(w, i, now, it, SIM_BILL_MAX_MONTHS);
        for (int q = 0; q < k; q++)
            items += it[q].month == month;
    }
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    jsonw_kstr(&j, "invoice_uuid", uuid);
    jsonw_kstr(&j, "invoice_id", id);
    jsonw_kstr(&j, "billing_period", per);
    money_str(&j, "amount", total);
    jsonw_kstr(&j, "user_name", "spotsim");
    jsonw_kstr(&j, "user_company", "spotsim");
    jsonw_kstr(&j, "user_email", "spotsim@example.com");
    jsonw_key(&j, "product_charges");
    jsonw_obj(&j);
    jsonw_kstr(&j, "name", "Product usage charges");
    money_str(&j, "amount", total);
    jsonw_key(&j, "items");
    jsonw_arr(&j);
    jsonw_obj(&j);
    money_str(&j, "amount", total);
    jsonw_kstr(&j, "name", "Droplets");
    char cnt[16];
    snprintf(cnt, sizeof cnt, "%d", items);
    jsonw_kstr(&j, "count", cnt);
    jsonw_obj_end(&j);
    jsonw_arr_end(&j);
    jsonw_obj_end(&j);
    static const char *const zero[][2] = {{"overages", "Overages"},
                                          {"taxes", "Taxes"},
                                          {"credits_and_adjustments", "Credits & adjustments"}};
    for (int k = 0; k < 3; k++) {
        jsonw_key(&j, zero[k][0]);
        jsonw_obj(&j);
        jsonw_kstr(&j, "name", zero[k][1]);
        jsonw_kstr(&j, "amount", "0.00");
        jsonw_obj_end(&j);
    }
    jsonw_obj_end(&j);
    return true;
}

static bool parse_day(const char *s, int64_t *out) {
    char tmp[32];
    if (strlen(s) != 10)
        return false;
    snprintf(tmp, sizeof tmp, "%sT00:00:00Z", s);
    return timeutil_parse_rfc3339(tmp, strlen(tmp), out) == ERR_OK;
}

/* GET /v2/billing/{account_urn}/insights/{start_date}/{end_date}: per day and node
 * pool, the Droplet usage billed that day (in cents), days up to now. */
static void insights(const struct sim_world *w, const struct request *req, int64_t now,
                     const char *rest, struct response *resp) {
    char urn[80], from_s[16], to_s[16];
    if (sscanf(rest, "%79[^/]/insights/%15[^/]/%15s", urn, from_s, to_s) != 3) {
        not_found(resp);
        return;
    }
    int64_t from, to;
    if (!parse_day(from_s, &from) || !parse_day(to_s, &to) || to < from ||
        to - from > 400LL * 86400) {
        sim_do_error(resp, 400, "bad_request",
                     "start_date and end_date: YYYY-MM-DD, start <= end, at most 400 days");
        return;
    }
    /* the points (day x pool with a non-zero amount), then one page of them */
    struct point {
        int64_t day, amount;
        int pool;
    } *pts = NULL;
    size_t npts = 0, cap = 0;
    for (int64_t d = from; d <= to && d <= now; d += 86400) {
        for (int p = 0; p < w->npools; p++) {
            int64_t amount = 0;
            for (int i = 0; i < w->nnodes; i++) {
                const struct sim_node *n = &w->nodes[i];
                if (n->pool != p || n->ready_t == SIM_NEVER || n->ready_t > now)
                    continue;
                int64_t a = 0;
                if (billing_node_amount(sim_billing_rate(w, i), n->ready_t,
                                        n->deleted_t <= now ? n->deleted_t : 0, now, d, d + 86400,
                                        &a) == ERR_OK)
                    amount += a;
            }
            amount = sim_billing_cents(amount);
            if (amount == 0)
                continue;
            if (npts == cap) {
                cap = cap ? cap * 2 : 64;
                pts = xrealloc(pts, cap * sizeof *pts);
            }
            pts[npts++] = (struct point){d, amount, p};
        }
    }
    struct page pg;
    if (!paginate(req, (int64_t)npts, &pg, resp)) {
        free(pts);
        return;
    }
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    jsonw_key(&j, "data_points");
    jsonw_arr(&j);
    for (int64_t k = pg.first; k < pg.last; k++) {
        const struct point *pt = &pts[k];
        const struct sim_pool_spec *ps = &w->sc->pools[w->pools[pt->pool].spec];
        char day[16], team[96], desc[160];
        int64_t y;
        int mo, dd;
        timeutil_civil_from_days(pt->day / 86400, &y, &mo, &dd);
        snprintf(day, sizeof day, "%04d-%02d-%02d", (int)y, mo, dd);
        snprintf(team, sizeof team, "do:team:%s", w->cluster_id);
        snprintf(desc, sizeof desc, "%s nodes (%s)", w->pools[pt->pool].name, ps->size);
        jsonw_obj(&j);
        jsonw_kstr(&j, "usage_team_urn", team);
        jsonw_kstr(&j, "start_date", day);
        money_str(&j, "total_amount", pt->amount);
        jsonw_kstr(&j, "region", w->sc->region);
        jsonw_kstr(&j, "sku", "1-KS-K8SWN-00109");
        jsonw_kstr(&j, "description", desc);
        jsonw_kstr(&j, "group_description", w->sc->cluster_name);
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);
    jsonw_kint(&j, "total_items", (int64_t)npts);
    jsonw_kint(&j, "total_pages", npts == 0 ? 1 : ((int64_t)npts + pg.per_page - 1) / pg.per_page);
    jsonw_kint(&j, "current_page", pg.page);
    jsonw_obj_end(&j);
    free(pts);
}

static bool invoice_items(const struct sim_world *w, const struct request *req, int64_t now,
                          const char *base, const char *uuid, struct response *resp) {
    int64_t month = invoice_month(w, now, uuid);
    if (month < 0)
        return false;
    /* collect this month's items in node order */
    struct sim_bill_item *all = xmalloc(sizeof *all * (size_t)(w->nnodes ? w->nnodes : 1));
    int count = 0;
    struct sim_bill_item items[SIM_BILL_MAX_MONTHS];
    for (int i = 0; i < w->nnodes; i++) {
        int k = sim_billing_node(w, i, now, items, SIM_BILL_MAX_MONTHS);
        for (int q = 0; q < k; q++)
            if (items[q].month == month)
                all[count++] = items[q];
    }
    struct page pg;
    if (!paginate(req, count, &pg, resp)) {
        free(all);
        return true;
    }
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    jsonw_key(&j, "invoice_items");
    jsonw_arr(&j);
    for (int64_t i = pg.first; i < pg.last; i++) {
        const struct sim_bill_item *it = &all[i];
        const struct sim_node *nd = &w->nodes[it->node];
        const struct sim_pool *p = &w->pools[nd->pool];
        const struct sim_pool_spec *ps = &w->sc->pools[p->spec];
        char tmp[160];
        jsonw_obj(&j);
        jsonw_kstr(&j, "product", "Droplets");
        jsonw_kstr(&j, "resource_id", nd->droplet_id);
        jsonw_kstr(&j, "resource_uuid", nd->do_id);
        snprintf(tmp, sizeof tmp, "Kubernetes cluster %s / node pool %s (%s)", w->sc->cluster_name,
                 p->name, p->id);
        jsonw_kstr(&j, "group_description", tmp);
        snprintf(tmp, sizeof tmp, "%s (%s)", nd->name, ps->size);
        jsonw_kstr(&j, "description", tmp);
        money_str(&j, "amount", sim_billing_cents(it->amount));
        snprintf(tmp, sizeof tmp, "%lld", (long long)sim_billing_hours(it->seconds));
        jsonw_kstr(&j, "duration", tmp);
        jsonw_kstr(&j, "duration_unit", "Hours");
        jsonw_ktime(&j, "start_time", it->start);
        jsonw_ktime(&j, "end_time", it->end);
        jsonw_kstr(&j, "project_name", w->sc->project_name);
        jsonw_kstr(&j, "category", "iaas");
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);
    char path[128];
    snprintf(path, sizeof path, "/v2/customers/my/invoices/%s", uuid);
    links_meta(&j, &pg, base, path);
    jsonw_obj_end(&j);
    free(all);
    return true;
}

static void billing_history(const struct sim_world *w, const struct request *req, int64_t now,
                            const char *base, struct response *resp) {
    int64_t months[MAX_MONTHS];
    int n = closed_months(w, now, months);
    struct page pg;
    if (!paginate(req, n, &pg, resp))
        return;
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    jsonw_key(&j, "billing_history");
    jsonw_arr(&j);
    static const char *const names[] = {"January",   "February", "March",    "April",
                                        "May",       "June",     "July",     "August",
                                        "September", "October",  "November", "December"};
    for (int64_t i = pg.first; i < pg.last; i++) {
        int64_t y;
        int m, d;
        timeutil_civil_from_days(months[i] / 86400, &y, &m, &d);
        char desc[64], uuid[37], id[24];
        snprintf(desc, sizeof desc, "Invoice for %s %lld", names[m - 1], (long long)y);
        sim_do_invoice_uuid(w, months[i], uuid);
        snprintf(id, sizeof id, "%lld", 10000000LL + months[i] / 86400);
        jsonw_obj(&j);
        jsonw_kstr(&j, "description", desc);
        money_str(&j, "amount", month_total(w, months[i], now));
        jsonw_kstr(&j, "invoice_id", id);
        jsonw_kstr(&j, "invoice_uuid", uuid);
        jsonw_ktime(&j, "date", timeutil_next_month_start(months[i]));
        jsonw_kstr(&j, "type", "Invoice");
        jsonw_obj_end(&j);
    }
    jsonw_arr_end(&j);
    links_meta(&j, &pg, base, "/v2/customers/my/billing_history");
    jsonw_obj_end(&j);
}

static void balance(const struct sim_world *w, int64_t now, struct response *resp) {
    int64_t months[MAX_MONTHS];
    int n = closed_months(w, now, months);
    int64_t owed = 0;
    for (int i = 0; i < n; i++)
        owed += month_total(w, months[i], now);
    int64_t mtd = month_total(w, timeutil_month_start(now), now);
    struct jsonw j;
    jsonw_init(&j, &resp->body);
    jsonw_obj(&j);
    money_str(&j, "month_to_date_balance", owed + mtd);
    money_str(&j, "account_balance", owed);
    money_str(&j, "month_to_date_usage", mtd);
    jsonw_ktime(&j, "generated_at", now);
    jsonw_obj_end(&j);
}

bool sim_do_handle(const struct sim_world *w, const struct request *req, int64_t now,
                   const char *base_url, struct response *resp) {
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
        if (!paginate(req, w->sc->nsizes, &pg, resp))
            return true;
        jsonw_obj(&j);
        jsonw_key(&j, "sizes");
        jsonw_arr(&j);
        for (int64_t i = pg.first; i < pg.last; i++)
            size_json(&j, w, &w->sc->sizes[i]);
        jsonw_arr_end(&j);
        links_meta(&j, &pg, base_url, "/v2/sizes");
        jsonw_obj_end(&j);
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
        if (!paginate(req, 1, &pg, resp))
            return true;
        jsonw_obj(&j);
        jsonw_key(&j, "kubernetes_clusters");
        jsonw_arr(&j);
        if (pg.first < pg.last)
            cluster_json(&j, w, now);
        jsonw_arr_end(&j);
        links_meta(&j, &pg, base_url, "/v2/kubernetes/clusters");
        jsonw_obj_end(&j);
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
            not_found(resp);
            return true;
        }
        jsonw_obj(&j);
        jsonw_key(&j, "node_pool");
        pool_json(&j, w, found, now);
        jsonw_obj_end(&j);
    } else if (strcmp(p, "customers/my/balance") == 0) {
        balance(w, now, resp);
    } else if (strcmp(p, "customers/my/billing_history") == 0) {
        billing_history(w, req, now, base_url, resp);
    } else if (strcmp(p, "customers/my/invoices") == 0) {
        invoices(w, req, now, base_url, resp);
    } else if (strncmp(p, "customers/my/invoices/", 22) == 0 && strlen(p + 22) == 36) {
        if (!invoice_items(w, req, now, base_url, p + 22, resp))
            not_found(resp);
    } else if (strncmp(p, "customers/my/invoices/", 22) == 0 && strlen(p + 22) == 44 &&
               strcmp(p + 58, "/summary") == 0) {
        char uuid[37];
        snprintf(uuid, sizeof uuid, "%.36s", p + 22);
        if (!invoice_summary_doc(w, now, uuid, resp))
            not_found(resp);
    } else if (strncmp(p, "billing/", 8) == 0) {
        insights(w, req, now, p + 8, resp);
    } else if (strcmp(p, "kubernetes/options") == 0) {
        k8s_options(w, resp);
    } else if (strcmp(p, "droplets") == 0) {
        droplets(w, req, now, base_url, resp);
    } else if (strncmp(p, "droplets/", 9) == 0) {
        if (!droplet_one(w, p + 9, now, resp))
            not_found(resp);
    } else {
        not_found(resp);
    }
    return true;
}
