/* sim_do_droplet — droplets (the cluster's nodes as DigitalOcean lists them) and
 * /v2/kubernetes/options of spotsim's DigitalOcean API (sim_do_serve.h). */
#include "sim/sim_do_serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* --- droplets (the cluster's nodes as DigitalOcean lists them) --- */

/* "key": [] */
static void empty_list(struct jsonw *j, const char *key) {
    jsonw_key(j, key);
    jsonw_arr(j);
    jsonw_arr_end(j);
}

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
    empty_list(j, "backup_ids");
    jsonw_key(j, "next_backup_window");
    jsonw_null(j);
    empty_list(j, "snapshot_ids");
    jsonw_key(j, "image");
    jsonw_obj(j);
    jsonw_kint(j, "id", 160000000);
    jsonw_kstr(j, "name", "DOKS worker");
    jsonw_kstr(j, "distribution", "Debian");
    jsonw_kbool(j, "public", false);
    jsonw_kstr(j, "type", "base");
    jsonw_kstr(j, "status", "available");
    jsonw_obj_end(j);
    empty_list(j, "volume_ids");
    jsonw_key(j, "size");
    sim_do_size_json(j, w, sz, n->created_t); /* a Droplet keeps the rate of its creation */
    jsonw_kstr(j, "size_slug", sz->slug);
    jsonw_key(j, "networks");
    jsonw_obj(j);
    jsonw_key(j, "v4");
    jsonw_arr(j);
    char ip[32];
    sim_node_private_ip(node, ip);
    jsonw_obj(j);
    jsonw_kstr(j, "ip_address", ip);
    jsonw_kstr(j, "netmask", "255.255.0.0");
    jsonw_kstr(j, "gateway", "10.116.0.1");
    jsonw_kstr(j, "type", "private");
    jsonw_obj_end(j);
    jsonw_arr_end(j);
    empty_list(j, "v6");
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
    sim_do_worker_tags(j, w);
    jsonw_kstr(j, "vpc_uuid", "c33931f2-a26a-4e61-b85c-4e95a2ec431b");
    jsonw_obj_end(j);
}

/* GET /v2/droplets[?type=gpus|droplets][&tag_name=T]: the nodes that exist now,
 * of every cluster of the account (tag k8s:<cluster id>: that cluster's). */
void sim_do_droplets(const struct sim_account *a, const struct request *req, int64_t now,
                     const char *base, struct response *resp) {
    const char *type = request_param(req, "type");
    const char *tag = request_param(req, "tag_name");
    if (type && strcmp(type, "gpus") && strcmp(type, "droplets")) {
        sim_do_error(resp, 400, "bad_request", "type must be 'droplets' or 'gpus'");
        return;
    }
    size_t total = 0;
    for (int k = 0; k < a->n; k++)
        total += (size_t)a->w[k]->nnodes;
    struct pick {
        int world, node;
    } *sel = xmalloc(sizeof *sel * (total ? total : 1));
    int n = 0;
    for (int k = 0; k < a->n; k++) {
        const struct sim_world *w = a->w[k];
        char ctag[64];
        snprintf(ctag, sizeof ctag, "k8s:%s", w->cluster_id);
        bool tag_ok = !tag || strcmp(tag, "k8s") == 0 || strcmp(tag, ctag) == 0 ||
                      strcmp(tag, "k8s:worker") == 0;
        for (int i = 0; i < w->nnodes && tag_ok; i++) {
            const struct sim_node *nd = &w->nodes[i];
            if (!sim_do_node_visible(nd, now))
                continue;
            bool gpu = w->sc->sizes[w->sc->pools[w->pools[nd->pool].spec].size_idx].gpus > 0;
            /* DigitalOcean lists GPU droplets only with type=gpus */
            if (gpu != (type && strcmp(type, "gpus") == 0))
                continue;
            sel[n++] = (struct pick){k, i};
        }
    }
    struct page pg;
    struct jsonw j;
    if (sim_do_list_open(req, n, "droplets", &pg, &j, resp)) {
        for (int64_t i = pg.first; i < pg.last; i++)
            droplet_json(&j, a->w[sel[i].world], sel[i].node, now);
        sim_do_list_close(&j, &pg, base, "/v2/droplets");
    }
    free(sel);
}

bool sim_do_droplet_one(const struct sim_account *a, const char *id, int64_t now,
                        struct response *resp) {
    for (int k = 0; k < a->n; k++) {
        const struct sim_world *w = a->w[k];
        for (int i = 0; i < w->nnodes; i++) {
            if (!sim_do_node_visible(&w->nodes[i], now) || strcmp(w->nodes[i].droplet_id, id))
                continue;
            struct jsonw j;
            jsonw_init(&j, &resp->body);
            jsonw_obj(&j);
            jsonw_key(&j, "droplet");
            droplet_json(&j, w, i, now);
            jsonw_obj_end(&j);
            return true;
        }
    }
    return false;
}

/* GET /v2/kubernetes/options: the region, the version and the sizes of the scenario. */
void sim_do_k8s_options(const struct sim_world *w, struct response *resp) {
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
