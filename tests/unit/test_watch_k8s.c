/* test_watch_k8s — the informers against an in-process fake Kubernetes API
 * (libmicrohttpd on 127.0.0.1, port 0): paged lists, a 410 on a continue token,
 * watch streams with bookmarks, a dropped stream, a 410 ERROR event, an HTTP 410,
 * duplicate events; a restart on the same database; a rotated token file.
 * The server only records; every assertion runs on the test thread (docs/style.md 22).
 * Every wait is bounded (wait_for). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "store/store.h"
#include "ingest/watch_k8s.h"
#include "fake_k8s.h"
#include "tmpdb.h"

#define FK_MAX_LISTS 4
#define FK_MAX_PAGES 3
#define FK_MAX_WATCH 8
#define FK_MAX_LOG 8192

struct fk_watch {
    int status;  /* 200, or e.g. 410 */
    char *body;  /* lines, or the error body */
    bool drop;   /* end the stream with an error after the body */
    int hold_ms; /* keep the stream open this long after the body */
    char *tail;  /* sent tail_ms after the body (NULL = none) */
    int tail_ms;
};

struct fk_list {
    char *pages[FK_MAX_PAGES];
    int npages;
};

struct fk_log {
    int res;
    bool watch;
    char query[256];
    char auth[64];
    int status;
};

struct fk {
    struct fk_daemon srv;
    pthread_mutex_t mu;
    atomic_int stopping;
    char token[32];
    struct fk_list lists[R_N][FK_MAX_LISTS];
    int nlists[R_N], list_gen[R_N];
    bool cont_gone_once[R_N];
    struct fk_watch watches[R_N][FK_MAX_WATCH];
    int nwatch[R_N], wpos[R_N];
    int idle_hold_ms;
    struct fk_log log[FK_MAX_LOG];
    int nlog;
};

struct fk_stream {
    struct fk *f;
    char *body;
    size_t len;
    bool drop;
    int hold_ms;
    int64_t hold_until;
    size_t full_len; /* body + tail; len grows to it tail_ms after the body */
    int tail_ms;
    int64_t tail_at;
};

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static ssize_t fk_read(void *cls, uint64_t pos, char *out, size_t max) {
    struct fk_stream *s = cls;
    if (pos < s->len) {
        size_t n = s->len - (size_t)pos;
        if (n > max)
            n = max;
        memcpy(out, s->body + pos, n);
        return (ssize_t)n;
    }
    if (s->len < s->full_len) {
        if (!s->tail_at)
            s->tail_at = now_ms() + s->tail_ms;
        if (now_ms() >= s->tail_at)
            s->len = s->full_len;
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
        return 0;
    }
    if (s->drop)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    if (!s->hold_until)
        s->hold_until = now_ms() + s->hold_ms;
    if (atomic_load(&s->f->stopping) || now_ms() >= s->hold_until)
        return MHD_CONTENT_READER_END_OF_STREAM;
    struct timespec ts = {0, 10 * 1000000L};
    nanosleep(&ts, NULL);
    return 0;
}

static void fk_stream_free(void *cls) {
    struct fk_stream *s = cls;
    free(s->body);
    free(s);
}

static const char STATUS_401[] =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":"
    "\"Unauthorized\",\"code\":401}";

static enum MHD_Result fk_answer(void *cls, struct MHD_Connection *c, int res, bool is_watch) {
    struct fk *f = cls;
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    const char *rv = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "resourceVersion");
    const char *cont = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "continue");
    const char *sel = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "labelSelector");

    pthread_mutex_lock(&f->mu);
    struct fk_log *lg = f->nlog < FK_MAX_LOG ? &f->log[f->nlog++] : NULL;
    char want[64];
    snprintf(want, sizeof want, "Bearer %s", f->token);
    int status = 200;
    const char *body = NULL;
    struct fk_stream *st = NULL;
    if (res < 0) {
        status = 404;
        body = "{\"kind\":\"Status\",\"code\":404}";
    } else if (!auth || strcmp(auth, want) != 0) {
        status = 401;
        body = STATUS_401;
    } else if (is_watch) {
        st = calloc(1, sizeof *st);
        st->f = f;
        st->hold_ms = f->idle_hold_ms;
        if (f->wpos[res] < f->nwatch[res]) {
            struct fk_watch *w = &f->watches[res][f->wpos[res]++];
            if (w->status != 200) {
                status = w->status;
                body = w->body;
                free(st);
                st = NULL;
            } else {
                size_t bl = strlen(w->body), tl = w->tail ? strlen(w->tail) : 0;
                st->body = malloc(bl + tl + 1);
                memcpy(st->body, w->body, bl);
                memcpy(st->body + bl, w->tail ? w->tail : "", tl + 1);
                st->len = bl;
                st->full_len = bl + tl;
                st->tail_ms = w->tail_ms;
                st->drop = w->drop;
                st->hold_ms = w->hold_ms;
            }
        }
        if (st && !st->body)
            st->body = strdup("");
    } else {
        if (!cont)
            f->list_gen[res]++;
        int gen = f->list_gen[res] - 1;
        if (gen >= f->nlists[res])
            gen = f->nlists[res] - 1;
        struct fk_list *l = gen >= 0 ? &f->lists[res][gen] : NULL;
        int page = 0;
        if (cont && f->cont_gone_once[res]) {
            f->cont_gone_once[res] = false;
            status = 410;
            body = STATUS_410;
        } else if (cont) {
            page = (int)strtol(cont + 1, NULL, 10); /* tokens are "c<page>" */
        }
        if (status == 200)
            body = l && page < l->npages
                       ? l->pages[page]
                       : "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[]}";
    }
    if (lg) {
        lg->res = res;
        lg->watch = is_watch;
        snprintf(lg->query, sizeof lg->query, "rv=%s cont=%s sel=%s", rv ? rv : "",
                 cont ? cont : "", sel ? sel : "");
        snprintf(lg->auth, sizeof lg->auth, "%s", auth ? auth : "");
        lg->status = status;
    }
    char *copy = body ? strdup(body) : NULL;
    pthread_mutex_unlock(&f->mu);

    enum MHD_Result ret;
    if (st) {
        struct MHD_Response *r =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, fk_read, st, fk_stream_free);
        MHD_add_response_header(r, "Content-Type", "application/json");
        ret = MHD_queue_response(c, 200, r);
        MHD_destroy_response(r);
    } else {
        ret = fk_queue(c, status, copy ? copy : "");
    }
    free(copy);
    return ret;
}

static struct fk *fk_start(void) {
    struct fk *f = calloc(1, sizeof *f);
    pthread_mutex_init(&f->mu, NULL);
    snprintf(f->token, sizeof f->token, "tok-A");
    f->idle_hold_ms = 100;
    if (fk_listen(&f->srv, fk_answer, f) != 0) {
        free(f);
        return NULL;
    }
    return f;
}

static void fk_stop(struct fk *f) {
    atomic_store(&f->stopping, 1);
    fk_unlisten(&f->srv);
    for (int r = 0; r < R_N; r++) {
        for (int g = 0; g < f->nlists[r]; g++)
            for (int p = 0; p < f->lists[r][g].npages; p++)
                free(f->lists[r][g].pages[p]);
        for (int i = 0; i < f->nwatch[r]; i++) {
            free(f->watches[r][i].body);
            free(f->watches[r][i].tail);
        }
    }
    pthread_mutex_destroy(&f->mu);
    free(f);
}

/* --- scripting ------------------------------------------------------------------- */

/* Adds a list generation: items joined per page; page i>0 is reached with "c<i>". */
static void fk_list(struct fk *f, int res, const char *rv, const char *page0, const char *page1) {
    pthread_mutex_lock(&f->mu);
    struct fk_list *l = &f->lists[res][f->nlists[res]++];
    const char *pages[2] = {page0, page1};
    int n = page1 ? 2 : 1;
    for (int i = 0; i < n; i++) {
        struct buf b;
        buf_init(&b, 0);
        buf_printf(&b,
                   "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":"
                   "\"%s\"%s},\"items\":[%s]}",
                   rv, i + 1 < n ? ",\"continue\":\"c1\",\"remainingItemCount\":1" : "", pages[i]);
        l->pages[i] = buf_detach(&b, NULL);
    }
    l->npages = n;
    pthread_mutex_unlock(&f->mu);
}

static void fk_watch(struct fk *f, int res, int status, const char *body, bool drop, int hold_ms) {
    pthread_mutex_lock(&f->mu);
    struct fk_watch *w = &f->watches[res][f->nwatch[res]++];
    w->status = status;
    w->body = strdup(body);
    w->drop = drop;
    w->hold_ms = hold_ms;
    pthread_mutex_unlock(&f->mu);
}

/* The last watch queued on res sends tail tail_ms after its body. */
static void fk_watch_tail(struct fk *f, int res, const char *tail, int tail_ms) {
    pthread_mutex_lock(&f->mu);
    struct fk_watch *w = &f->watches[res][f->nwatch[res] - 1];
    w->tail = strdup(tail);
    w->tail_ms = tail_ms;
    pthread_mutex_unlock(&f->mu);
}

/* a Pod of Job "j1" (times are minutes after 2026-03-02T10:00:00Z; <0 = absent) */
static char *pod(const char *uid, const char *phase, const char *rv, int start, int finish,
                 const char *deletion, bool with_kind) {
    char running[160] = "", term[256] = "", del[128] = "";
    if (finish >= 0)
        snprintf(term, sizeof term,
                 "{\"name\":\"m\",\"state\":{\"terminated\":{\"exitCode\":0,\"startedAt\":"
                 "\"2026-03-02T10:%02d:00Z\",\"finishedAt\":\"2026-03-02T10:%02d:00Z\"}}}",
                 start, finish);
    else if (start >= 0)
        snprintf(
            running, sizeof running,
            "{\"name\":\"m\",\"state\":{\"running\":{\"startedAt\":\"2026-03-02T10:%02d:00Z\"}}}",
            start);
    if (deletion)
        snprintf(del, sizeof del, ",\"deletionTimestamp\":\"%s\",\"deletionGracePeriodSeconds\":0",
                 deletion);
    struct buf b;
    buf_init(&b, 0);
    buf_printf(&b,
               "{%s\"metadata\":{\"name\":\"pod-%s\",\"namespace\":\"ml\",\"uid\":\"%s\","
               "\"resourceVersion\":\"%s\",\"creationTimestamp\":\"2026-03-02T10:00:00Z\","
               "\"labels\":{\"batch.kubernetes.io/controller-uid\":\"j1\"},\"ownerReferences\":"
               "[{\"kind\":\"Job\",\"name\":\"job1\",\"uid\":\"j1\",\"controller\":true}]%s},"
               "\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":\"m\",\"resources\":"
               "{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}]},"
               "\"status\":{\"phase\":\"%s\",\"conditions\":[{\"type\":\"PodScheduled\","
               "\"status\":\"True\",\"lastTransitionTime\":\"2026-03-02T10:00:01Z\"}],"
               "\"containerStatuses\":[%s%s]}}",
               with_kind ? "\"kind\":\"Pod\",\"apiVersion\":\"v1\"," : "", uid, uid, rv, del, phase,
               running, term);
    return buf_detach(&b, NULL);
}

static void line(struct buf *b, const char *type, char *obj) {
    buf_printf(b, "{\"type\":\"%s\",\"object\":%s}\n", type, obj);
    free(obj);
}

static void bookmark(struct buf *b, const char *rv) {
    buf_printf(b,
               "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\","
               "\"metadata\":{\"resourceVersion\":\"%s\",\"creationTimestamp\":null},"
               "\"spec\":{\"containers\":null},\"status\":{}}}\n",
               rv);
}

static char *items(int n, ...) {
    va_list ap;
    va_start(ap, n);
    struct buf b;
    buf_init(&b, 0);
    for (int i = 0; i < n; i++) {
        char *o = va_arg(ap, char *);
        buf_printf(&b, "%s%s", i ? "," : "", o);
        free(o);
    }
    va_end(ap);
    return buf_detach(&b, NULL);
}

static const char JOB_RUNNING[] =
    "{\"metadata\":{\"name\":\"job1\",\"namespace\":\"ml\",\"uid\":\"j1\",\"resourceVersion\":"
    "\"5\",\"creationTimestamp\":\"2026-03-02T10:00:00Z\"},\"spec\":{\"backoffLimit\":3},"
    "\"status\":{\"startTime\":\"2026-03-02T10:00:00Z\"}}";
static const char NODE_N1[] =
    "{\"metadata\":{\"name\":\"n1\",\"uid\":\"node-1\",\"resourceVersion\":\"3\","
    "\"creationTimestamp\":\"2026-03-02T09:00:00Z\",\"labels\":{"
    "\"doks.digitalocean.com/node-pool-id\":\"pool-1\"}},\"spec\":{\"providerID\":"
    "\"digitalocean://77\"},\"status\":{\"allocatable\":{\"cpu\":\"8\",\"nvidia.com/gpu\":\"1\"},"
    "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":"
    "\"2026-03-02T09:01:00Z\"}]}}";

static const char PDB_TRAIN[] =
    "{\"metadata\":{\"name\":\"train\",\"namespace\":\"batch\",\"uid\":\"pdb-1\","
    "\"resourceVersion\":\"5\"},\"spec\":{\"maxUnavailable\":0,\"selector\":{"
    "\"matchLabels\":{\"app\":\"train\"}}},\"status\":{\"expectedPods\":1}}";

static void base_lists(struct fk *f) {
    fk_list(f, R_JOBS, "6", JOB_RUNNING, NULL);
    fk_list(f, R_NODES, "4", NODE_N1, NULL);
    fk_list(f, R_EVENTS, "7", "", NULL);
    fk_list(f, R_PDBS, "8", PDB_TRAIN, NULL);
}

/* base_lists, and pods listed at resourceVersion 10: p1 (running since 10:01). */
static void p1_listed(struct fk *f) {
    base_lists(f);
    char *pg = items(1, pod("p1", "Running", "8", 1, -1, NULL, false));
    fk_list(f, R_PODS, "10", pg, NULL);
    free(pg);
}

/* p1_listed, and the first pods watch stream begun in b (the caller's to queue and
 * release): p2 (running since 10:02) ADDED at resourceVersion 11. */
static void p2_streamed(struct fk *f, struct buf *b) {
    p1_listed(f);
    buf_init(b, 0);
    line(b, "ADDED", pod("p2", "Running", "11", 2, -1, NULL, true));
}

/* --- fixture ------------------------------------------------------------------------ */

struct tfx {
    char db[64];
    char tokfile[96];
    struct fk *f;
    struct store *s;
    pthread_mutex_t lock;
};

static void write_token(const char *path, const char *tok) {
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *fp = fopen(tmp, "w");
    assert_non_null(fp);
    fprintf(fp, "%s\n", tok);
    fclose(fp);
    assert_int_equal(rename(tmp, path), 0); /* atomic, as the kubelet does */
}

static int setup(void **state) {
    struct tfx *t = calloc(1, sizeof *t);
    snprintf(t->db, sizeof t->db, "/tmp/test_watch_k8s_XXXXXX");
    if (tmpdb_open(t->db, &t->s) != 0)
        return -1;
    snprintf(t->tokfile, sizeof t->tokfile, "%s.token", t->db);
    write_token(t->tokfile, "tok-A");
    pthread_mutex_init(&t->lock, NULL);
    t->f = fk_start();
    if (!t->f)
        return -1;
    *state = t;
    return 0;
}

static int teardown(void **state) {
    struct tfx *t = *state;
    fk_stop(t->f);
    store_free(t->s);
    pthread_mutex_destroy(&t->lock);
    tmpdb_unlink(t->db);
    unlink(t->tokfile);
    free(t);
    return 0;
}

static struct watch_k8s *new_watcher(struct tfx *t, struct store *s) {
    struct watch_k8s_options o;
    memset(&o, 0, sizeof o);
    o.api_url = t->f->srv.base;
    o.token_file = t->tokfile;
    o.resync_seconds = 60;
    o.watch_timeout_seconds = 5;
    o.idle_timeout_ms = 5000;
    o.page_limit = 2;
    o.backoff_initial_ms = 20;
    o.backoff_max_ms = 200;
    o.request_timeout_ms = 5000;
    struct watch_k8s *w = NULL;
    assert_int_equal(watch_k8s_new(&o, s, &t->lock, &w), ERR_OK);
    return w;
}

/* Number of logged requests for res (watch or list) whose query contains `needle`. */
static int logged(struct fk *f, int res, bool watch, const char *needle) {
    pthread_mutex_lock(&f->mu);
    int n = 0;
    for (int i = 0; i < f->nlog; i++)
        if (f->log[i].res == res && f->log[i].watch == watch &&
            (!needle || strstr(f->log[i].query, needle)))
            n++;
    pthread_mutex_unlock(&f->mu);
    return n;
}

static int logged_auth(struct fk *f, const char *auth, int status) {
    pthread_mutex_lock(&f->mu);
    int n = 0;
    for (int i = 0; i < f->nlog; i++)
        if (strcmp(f->log[i].auth, auth) == 0 && (status == 0 || f->log[i].status == status))
            n++;
    pthread_mutex_unlock(&f->mu);
    return n;
}

/* Polls cond for up to ms milliseconds (bounded wait). */
#define wait_for(cond, ms)                                                                         \
    do {                                                                                           \
        int64_t until_ = now_ms() + (ms);                                                          \
        while (!(cond) && now_ms() < until_) {                                                     \
            struct timespec ts_ = {0, 20 * 1000000L};                                              \
            nanosleep(&ts_, NULL);                                                                 \
        }                                                                                          \
    } while (0)

/* --- tests ---------------------------------------------------------------------------- */

/* p2 was removed, the only removal, at a watch stream's Date (the real clock here:
 * from since - 1 to now + 1); its deletionTimestamp is kept as delete_requested_at
 * (requested_at). */
static void p2_removed_at_stream_date(struct tfx *t, int64_t since, int64_t requested_at) {
    int64_t removed = fk_db_int(t->db, "SELECT deleted_at FROM attempts WHERE uid = 'p2'");
    assert_true(removed >= since - 1 && removed <= (int64_t)time(NULL) + 1);
    assert_int_equal(fk_db_int(t->db, "SELECT delete_requested_at FROM attempts WHERE uid = 'p2'"),
                     requested_at);
    assert_int_equal(fk_db_int(t->db, "SELECT count(*) FROM attempts WHERE deleted_at IS NOT NULL"),
                     1);
}

static void test_sync_once(void **state) {
    struct tfx *t = *state;
    base_lists(t->f);
    char *p1 = items(2, pod("p1", "Running", "8", 1, -1, NULL, false),
                     pod("p2", "Running", "8", 2, -1, NULL, false));
    char *p2 = items(1, pod("p3", "Pending", "9", -1, -1, NULL, false));
    fk_list(t->f, R_PODS, "10", p1, p2);
    free(p1);
    free(p2);
    t->f->cont_gone_once[R_PODS] = true; /* the first continue token has expired */
    struct watch_k8s *w = new_watcher(t, t->s);
    assert_int_equal(watch_k8s_sync_once(w), ERR_OK);
    struct watch_k8s_stats st;
    watch_k8s_stats(w, &st);
    watch_k8s_free(w);
    assert_int_equal(st.lists, 5); /* jobs, pods (twice: the 410), nodes, events, pdbs */
    assert_int_equal(st.gone, 1);
    /* the PodDisruptionBudget list is stored (issue 19) */
    assert_int_equal(fk_db_int(t->db, "SELECT count(*) FROM pdbs WHERE name = 'train' AND "
                                      "max_unavailable = 0 AND expected_pods = 1 AND "
                                      "selector_json = '{\"app\":\"train\"}'"),
                     1);
    assert_int_equal(fk_db_int(t->db, "SELECT count(*) FROM attempts"), 3);
    assert_int_equal(fk_db_int(t->db, "SELECT count(*) FROM tasks"), 1);
    assert_int_equal(fk_db_int(t->db, "SELECT count(*) FROM nodes WHERE pool_id = 'pool-1'"), 1);
    assert_int_equal(fk_db_int(t->db, "SELECT count(*) FROM attempts WHERE pool_id = 'pool-1'"), 3);
    assert_int_equal(
        fk_db_int(t->db, "SELECT count(*) FROM poll_runs WHERE source = 'k8s' AND status = 'ok'"),
        5); /* one complete list per resource */
    /* the pods list restarted without continue after the 410, and used the selector */
    assert_int_equal(logged(t->f, R_PODS, false, "cont= "), 2);
    assert_int_equal(logged(t->f, R_PODS, false, "sel=batch.kubernetes.io/controller-uid"), 4);
    /* 7 answered requests: jobs, nodes, events, pdbs, and pods' 3 pages (the 410 is not a 200) */
    assert_int_equal(logged_auth(t->f, "Bearer tok-A", 200), 7);
}

static void test_watch_stream_edges(void **state) {
    struct tfx *t = *state;
    struct fk *f = t->f;
    base_lists(f);
    char *pg1 = items(2, pod("p1", "Running", "8", 1, -1, NULL, false),
                      pod("p2", "Running", "8", 2, -1, NULL, false));
    char *pg2 = items(1, pod("p3", "Pending", "9", -1, -1, NULL, false));
    fk_list(f, R_PODS, "10", pg1, pg2);
    free(pg1);
    free(pg2);
    /* w0 (from 10): p4 appears and runs, a bookmark, then the stream drops mid-line */
    struct buf b;
    buf_init(&b, 0);
    line(&b, "ADDED", pod("p4", "Pending", "11", -1, -1, NULL, true));
    line(&b, "MODIFIED", pod("p4", "Running", "12", 3, -1, NULL, true));
    bookmark(&b, "13");
    buf_puts(&b, "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Po");
    fk_watch(f, R_PODS, 200, buf_str(&b), true, 0);
    /* w1 (from 13): a duplicate, p1 finishes, p2 deleted, a duplicate again, 410 */
    buf_reset(&b);
    line(&b, "MODIFIED", pod("p4", "Running", "12", 3, -1, NULL, true));
    line(&b, "MODIFIED", pod("p1", "Succeeded", "14", 1, 9, NULL, true));
    line(&b, "DELETED", pod("p2", "Failed", "15", 2, -1, "2026-03-02T10:07:00Z", true));
    line(&b, "MODIFIED", pod("p1", "Succeeded", "14", 1, 9, NULL, true));
    buf_puts(&b, "not json at all\n");
    buf_puts(&b, "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,\"reason\":"
                 "\"Expired\",\"message\":\"too old resource version: 13 (14)\"}}\n");
    fk_watch(f, R_PODS, 200, buf_str(&b), false, 0);
    /* w2 (from the list's 10): HTTP 410 -> relist */
    fk_watch(f, R_PODS, 410, STATUS_410, false, 0);
    /* relist at 20: p2 is gone, p5 is new */
    char *r1 = items(2, pod("p1", "Succeeded", "14", 1, 9, NULL, false),
                     pod("p3", "Running", "16", 4, -1, NULL, false));
    char *r2 = items(2, pod("p4", "Running", "12", 3, -1, NULL, false),
                     pod("p5", "Running", "18", 5, -1, NULL, false));
    fk_list(f, R_PODS, "20", r1, r2);
    free(r1);
    free(r2);
    /* w3 (from 20): p6 appears, the stream closes normally */
    buf_reset(&b);
    line(&b, "ADDED", pod("p6", "Running", "21", 6, -1, NULL, true));
    line(&b, "ADDED", pod("p6", "Running", "21", 6, -1, NULL, true));
    fk_watch(f, R_PODS, 200, buf_str(&b), false, 0);
    buf_release(&b);

    int64_t started = (int64_t)time(NULL);
    struct watch_k8s *w = new_watcher(t, t->s);
    assert_int_equal(watch_k8s_start(w), ERR_OK);
    wait_for(logged(f, R_PODS, true, "rv=21 ") > 0, 15000);
    watch_k8s_free(w);

    assert_true(logged(f, R_PODS, true, "rv=21 ") > 0);
    /* resumed from the bookmark after the drop, fell back to the list, relisted */
    assert_int_equal(logged(f, R_PODS, true, "rv=10 "), 2);
    assert_int_equal(logged(f, R_PODS, true, "rv=13 "), 1);
    assert_int_equal(logged(f, R_PODS, false, "cont= "), 2);
    /* every attempt exactly once */
    assert_int_equal(fk_db_int(t->db, "SELECT count(*) FROM attempts"), 6);
    assert_int_equal(fk_db_int(t->db, "SELECT count(DISTINCT uid) FROM attempts"), 6);
    assert_int_equal(fk_db_int(t->db, "SELECT count(*) FROM attempts WHERE task_uid = 'j1'"), 6);
    assert_int_equal(fk_db_int(t->db, "SELECT count(*) FROM tasks"), 1);
    /* p2's removal is the DELETED event's source time: the Date of its watch
     * stream (this fake sends the real clock's), never its deletionTimestamp
     * (10:07, a request) -- decisions 5 and 6 of docs/cost-model.md */
    p2_removed_at_stream_date(t, started, 1772445600 + 7 * 60);
    assert_int_equal(fk_db_int(t->db, "SELECT finished_at FROM attempts WHERE uid = 'p1'"),
                     1772445600 + 9 * 60);
    assert_int_equal(fk_db_int(t->db, "SELECT started_at FROM attempts WHERE uid = 'p4'"),
                     1772445600 + 3 * 60);
    char rv[16];
    snprintf(rv, sizeof rv, "%lld",
             (long long)fk_db_int(t->db,
                                  "SELECT CAST(resource_version AS INTEGER) FROM watch_state WHERE "
                                  "resource = 'pods'"));
    assert_string_equal(rv, "21");
}

static void test_restart_same_db(void **state) {
    struct tfx *t = *state;
    struct fk *f = t->f;
    struct buf b;
    p2_streamed(f, &b);
    bookmark(&b, "12");
    fk_watch(f, R_PODS, 200, buf_str(&b), false, 200);

    struct watch_k8s *w = new_watcher(t, t->s);
    assert_int_equal(watch_k8s_start(w), ERR_OK);
    wait_for(fk_db_int(t->db, "SELECT resource_version FROM watch_state WHERE resource = 'pods'") ==
                 12,
             10000);
    watch_k8s_free(w);
    assert_int_equal(fk_db_int(t->db, "SELECT count(*) FROM attempts"), 2);

    /* while the watcher is down: p2 is deleted, p3 created; the API server replays
     * both to a watch from 12, and a relist shows p1 and p3 only */
    char *pg = items(2, pod("p1", "Running", "8", 1, -1, NULL, false),
                     pod("p3", "Running", "14", 3, -1, NULL, false));
    fk_list(f, R_PODS, "20", pg, NULL);
    free(pg);
    buf_reset(&b);
    line(&b, "DELETED", pod("p2", "Failed", "13", 2, -1, "2026-03-02T10:04:00Z", true));
    line(&b, "ADDED", pod("p3", "Running", "14", 3, -1, NULL, true));
    fk_watch(f, R_PODS, 200, buf_str(&b), false, 0);
    buf_release(&b);

    int before = logged(f, R_PODS, true, "rv=12 ");
    int64_t restarted = (int64_t)time(NULL);
    /* a new instance with its own connection: a restarted process */
    struct store *s2 = NULL;
    assert_int_equal(store_open(t->db, STORE_WRITER, &s2, NULL), ERR_OK);
    pthread_mutex_t lock2;
    pthread_mutex_init(&lock2, NULL);
    struct watch_k8s_options o;
    memset(&o, 0, sizeof o);
    o.api_url = f->srv.base;
    o.token_file = t->tokfile;
    o.watch_timeout_seconds = 5;
    o.backoff_initial_ms = 20;
    o.backoff_max_ms = 200;
    struct watch_k8s *w2 = NULL;
    assert_int_equal(watch_k8s_new(&o, s2, &lock2, &w2), ERR_OK);
    assert_int_equal(watch_k8s_start(w2), ERR_OK);
    wait_for(logged(f, R_PODS, true, "rv=14 ") > 0, 10000);
    watch_k8s_free(w2);
    store_free(s2);
    pthread_mutex_destroy(&lock2);

    /* it replayed from the persisted 12 (not from its own list's 20) */
    assert_int_equal(logged(f, R_PODS, true, "rv=12 ") - before, 1);
    assert_int_equal(fk_db_int(t->db, "SELECT count(*) FROM attempts"), 3);
    /* removed at the replaying stream's Date (the real clock here), not at its
     * deletionTimestamp 10:04 (a request, kept as delete_requested_at) */
    p2_removed_at_stream_date(t, restarted, 1772445600 + 4 * 60);
}

static void test_token_rotation(void **state) {
    struct tfx *t = *state;
    struct fk *f = t->f;
    p1_listed(f);
    struct watch_k8s *w = new_watcher(t, t->s);
    assert_int_equal(watch_k8s_start(w), ERR_OK);
    wait_for(logged(f, R_PODS, true, NULL) > 0, 10000);
    assert_true(logged_auth(f, "Bearer tok-A", 200) > 0);

    /* the server now only takes tok-B, and the file is rotated */
    pthread_mutex_lock(&f->mu);
    snprintf(f->token, sizeof f->token, "tok-B");
    pthread_mutex_unlock(&f->mu);
    write_token(t->tokfile, "tok-B");
    struct buf b;
    buf_init(&b, 0);
    line(&b, "ADDED", pod("p2", "Running", "11", 2, -1, NULL, true));
    fk_watch(f, R_PODS, 200, buf_str(&b), false, 0);
    buf_release(&b);
    wait_for(fk_db_int(t->db, "SELECT count(*) FROM attempts WHERE uid = 'p2'") == 1 &&
                 logged_auth(f, "Bearer tok-B", 200) >= 4,
             10000);
    watch_k8s_free(w);
    assert_int_equal(fk_db_int(t->db, "SELECT count(*) FROM attempts WHERE uid = 'p2'"), 1);
    assert_true(logged_auth(f, "Bearer tok-B", 200) >= 4);
    /* without a restart, and never a token the file no longer holds for long */
    assert_true(logged_auth(f, "Bearer tok-A", 401) <= 4);
    assert_int_equal(logged_auth(f, "", 0), 0);
}

/* A watch stream lives for minutes and its Date is when it began: a removal
 * that arrives 2.5 s into the stream happened then, not at the stream's Date.
 * Before the fix deleted_at was the stream's Date (up to a watch's lifetime
 * early: 25 simulated minutes were seen against spotsim). */
static void test_event_time_is_stream_age(void **state) {
    struct tfx *t = *state;
    struct fk *f = t->f;
    struct buf b;
    p2_streamed(f, &b);
    fk_watch(f, R_PODS, 200, buf_str(&b), false, 200);
    buf_reset(&b);
    line(&b, "DELETED", pod("p2", "Failed", "12", 2, -1, "2026-03-02T10:04:00Z", true));
    fk_watch_tail(f, R_PODS, buf_str(&b), 2500);
    buf_release(&b);

    int64_t before = (int64_t)time(NULL);
    struct watch_k8s *w = new_watcher(t, t->s);
    assert_int_equal(watch_k8s_start(w), ERR_OK);
    wait_for(fk_db_int(t->db, "SELECT count(*) FROM attempts WHERE deleted_at IS NOT NULL") == 1,
             15000);
    int64_t after = (int64_t)time(NULL);
    watch_k8s_free(w);
    int64_t added = fk_db_int(t->db, "SELECT first_seen FROM attempts WHERE uid = 'p2'");
    int64_t removed = fk_db_int(t->db, "SELECT deleted_at FROM attempts WHERE uid = 'p2'");
    /* the stream's Date is within [before, before + 1]; the DELETED line came
     * 2.5 s later, so its time is at least Date + 2 (whole seconds) */
    assert_true(added >= before - 1 && added <= before + 2);
    assert_true(removed >= added + 2);
    assert_true(removed <= after + 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sync_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_watch_stream_edges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_same_db, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_rotation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_time_is_stream_age, setup, teardown),
    };
    return cmocka_run_group_tests_name("watch_k8s", tests, NULL, NULL);
}
