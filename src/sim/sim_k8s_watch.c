/* sim_k8s_watch — watch streams of spotsim's Kubernetes API (sim_k8s_api.h):
 * replay of the log after the requested resourceVersion, then new entries as
 * the clock reaches them, BOOKMARKs, 410 Gone, injected drops. */
#include "sim/sim_k8s_serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "base/xalloc.h"
#include "sim/sim_clock.h"
#include "sim/sim_k8s_obj.h"
#include "sim/sim_k8s_table.h"

#define K8S_DEFAULT_TIMEOUT 1800 /* seconds: a watch without timeoutSeconds */
#define K8S_MAX_TIMEOUT 3600
#define WATCH_CHUNK (256 * 1024)

/* --- watch --- */

struct sim_watch {
    const struct sim_world *w;
    struct k8s_target t;
    char *ns;
    char *fsel;
    struct sim_selector *sel;
    int64_t last; /* events up to this seq are sent */
    bool initial; /* rv "" or "0": send ADDED for the current objects first */
    bool bookmarks;
    bool table; /* objects as one-row meta.k8s.io/v1 Tables (kubectl get -w) */
    bool gone;  /* answer with an ERROR 410 and end */
    int64_t gone_rv, gone_oldest;
    bool ended;
    bool checked_faults;
    int64_t deadline_ms;
    int64_t last_bookmark_ms;
    struct buf out;
    size_t off;
};

void sim_watch_free(struct sim_watch *wt) {
    if (!wt)
        return;
    sim_selector_free(wt->sel);
    free(wt->ns);
    free(wt->fsel);
    buf_release(&wt->out);
    free(wt);
}

int sim_watch_kind(const struct sim_watch *wt) {
    return (int)wt->t.kind;
}

static void watch_event(struct sim_watch *wt, const char *type, enum sim_kind kind, int idx,
                        int64_t asof) {
    struct jsonw j;
    jsonw_init(&j, &wt->out);
    jsonw_obj(&j);
    jsonw_kstr(&j, "type", type);
    jsonw_key(&j, "object");
    if (wt->table) {
        int64_t t = 0;
        for (int i = sim_world_log_after(wt->w, asof - 1); i < wt->w->nlog; i++)
            if (wt->w->log[i].seq == asof) {
                t = wt->w->log[i].t;
                break;
            }
        sim_table_begin(&j, kind, asof, NULL, 0);
        sim_table_row(&j, wt->w, kind, idx, asof, t);
        sim_table_end(&j);
    } else {
        sim_obj_render(&j, wt->w, kind, idx, asof, true);
    }
    jsonw_obj_end(&j);
    buf_putc(&wt->out, '\n');
}

static void watch_bookmark(struct sim_watch *wt, int64_t rv) {
    enum sim_kind k = wt->t.kind;
    buf_printf(&wt->out,
               "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\",\"apiVersion\":\"%s\","
               "\"metadata\":{\"resourceVersion\":\"%lld\",\"creationTimestamp\":null}%s}}\n",
               sim_kind_name(k), sim_kind_api_version(k), (long long)rv,
               k == SIM_K_POD    ? ",\"spec\":{\"containers\":null},\"status\":{}"
               : k == SIM_K_JOB  ? ",\"spec\":{\"template\":{\"metadata\":{\"creationTimestamp\":"
                                   "null},\"spec\":{\"containers\":null}}},\"status\":{}"
               : k == SIM_K_NODE ? ",\"spec\":{},\"status\":{\"daemonEndpoints\":{"
                                   "\"kubeletEndpoint\":{\"Port\":0}},\"nodeInfo\":{}}"
               : k == SIM_K_PDB  ? ",\"spec\":{},\"status\":{\"disruptionsAllowed\":0,"
                                   "\"currentHealthy\":0,\"desiredHealthy\":0,\"expectedPods\":0}"
                                 : ",\"involvedObject\":{},\"source\":{},\"firstTimestamp\":null,"
                                   "\"lastTimestamp\":null,\"eventTime\":null,"
                                   "\"reportingComponent\":\"\",\"reportingInstance\":\"\"");
}

static void watch_gone(struct sim_watch *wt) {
    buf_printf(&wt->out,
               "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
               "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: "
               "%lld (%lld)\",\"reason\":\"Expired\",\"code\":410}}\n",
               (long long)wt->gone_rv, (long long)wt->gone_oldest);
}

ssize_t sim_watch_read(struct sim_watch *wt, const struct sim_watch_io *io, char *dst, size_t max) {
    const struct sim_world *w = wt->w;
    int64_t bookmark_ms = io->bookmark_ms > 0 ? io->bookmark_ms : 1000;
    for (;;) {
        if (wt->off < wt->out.len) {
            size_t n = wt->out.len - wt->off;
            if (n > max)
                n = max;
            memcpy(dst, wt->out.data + wt->off, n);
            wt->off += n;
            if (wt->off == wt->out.len) {
                buf_reset(&wt->out);
                wt->off = 0;
            }
            return (ssize_t)n;
        }
        if (wt->ended || (io->stop && atomic_load(io->stop)))
            return -1;
        int64_t now = io->now(io->ctx);
        if (!wt->checked_faults) {
            wt->checked_faults = true;
            if (io->faults && sim_fault_hit(io->faults, SIM_FAULT_WATCH_410)) {
                wt->gone = true;
                wt->gone_rv = wt->last;
                wt->gone_oldest = sim_world_seq_at(w, now);
            }
        }
        if (wt->gone) {
            watch_gone(wt);
            wt->ended = true;
            continue;
        }
        int64_t head = sim_world_seq_at(w, now);
        if (wt->initial) {
            wt->initial = false;
            int total = sim_obj_count(w, wt->t.kind);
            for (int i = 0; i < total; i++)
                if (sim_obj_exists(w, wt->t.kind, i, head) &&
                    sim_k8s_matches(w, &wt->t, wt->sel, wt->fsel, wt->t.kind, i, head))
                    watch_event(wt, "ADDED", wt->t.kind, i, head);
            wt->last = head;
            if (wt->out.len)
                continue;
        }
        if (wt->last < head) {
            bool drop = false;
            for (int i = sim_world_log_after(w, wt->last); i < w->nlog && w->log[i].seq <= head;
                 i++) {
                const struct sim_entry *en = &w->log[i];
                wt->last = en->seq;
                if (en->kind != wt->t.kind ||
                    !sim_k8s_matches(w, &wt->t, wt->sel, wt->fsel, wt->t.kind, en->idx, en->seq))
                    continue;
                const char *type = en->etype == SIM_ADDED      ? "ADDED"
                                   : en->etype == SIM_MODIFIED ? "MODIFIED"
                                                               : "DELETED";
                watch_event(wt, type, wt->t.kind, en->idx, en->seq);
                if (io->faults && sim_fault_hit(io->faults, SIM_FAULT_WATCH_DUP))
                    watch_event(wt, type, wt->t.kind, en->idx, en->seq);
                if (io->faults && sim_fault_hit(io->faults, SIM_FAULT_WATCH_DROP)) {
                    drop = true;
                    break;
                }
                if (wt->out.len > WATCH_CHUNK)
                    break;
            }
            if (drop) {
                /* send what we have, then cut the connection mid-stream */
                if (wt->out.len == 0)
                    return -2;
                size_t n = wt->out.len > max ? max : wt->out.len;
                memcpy(dst, wt->out.data, n);
                buf_reset(&wt->out);
                wt->off = 0;
                wt->ended = true;
                wt->gone = false;
                return (ssize_t)n > 0 ? (ssize_t)n : -2;
            }
            if (wt->out.len)
                continue;
        }
        int64_t real = sim_clock_real_ms();
        if (real >= wt->deadline_ms)
            return -1;
        if (wt->bookmarks && real - wt->last_bookmark_ms >= bookmark_ms) {
            wt->last_bookmark_ms = real;
            if (head > wt->last)
                wt->last = head;
            watch_bookmark(wt, wt->last);
            continue;
        }
        sim_clock_sleep_ms(20);
    }
}

void sim_k8s_do_watch(const struct sim_world *w, const struct request *req,
                      const struct k8s_target *t, int64_t now, int64_t retention,
                      struct sim_selector *sel, const char *fsel, bool table, struct response *resp,
                      struct sim_watch **out) {
    bool ok;
    const char *rvs = request_param(req, "resourceVersion");
    int64_t rv = sim_k8s_parse_rv(rvs, &ok);
    if (!ok) {
        sim_k8s_status(resp, 400, "BadRequest", "resourceVersion: expected an integer");
        sim_selector_free(sel);
        return;
    }
    int64_t timeout = K8S_DEFAULT_TIMEOUT;
    const char *ts = request_param(req, "timeoutSeconds");
    if (ts && *ts) {
        timeout = sim_k8s_parse_rv(ts, &ok);
        if (!ok) {
            sim_k8s_status(resp, 400, "BadRequest", "timeoutSeconds: expected an integer");
            sim_selector_free(sel);
            return;
        }
        if (timeout > K8S_MAX_TIMEOUT)
            timeout = K8S_MAX_TIMEOUT;
    }
    struct sim_watch *wt = xcalloc(1, sizeof *wt);
    wt->w = w;
    wt->t = *t;
    wt->ns = t->ns ? xstrdup(t->ns) : NULL;
    wt->t.ns = wt->ns;
    wt->t.name = NULL;
    wt->fsel = fsel ? xstrdup(fsel) : NULL;
    wt->sel = sel;
    wt->table = table;
    buf_init(&wt->out, 0);
    const char *bm = request_param(req, "allowWatchBookmarks");
    wt->bookmarks = bm && sim_k8s_parse_bool(bm) == 1;
    wt->deadline_ms = sim_clock_real_ms() + timeout * 1000;
    wt->last_bookmark_ms = sim_clock_real_ms();
    if (rv == 0) {
        wt->initial = true;
    } else {
        int64_t oldest = sim_k8s_oldest_rv(w, now, retention);
        if (rv < oldest) {
            wt->gone = true;
            wt->gone_rv = rv;
            wt->gone_oldest = oldest;
        }
        wt->last = rv;
    }
    resp->status = 200;
    *out = wt;
}
