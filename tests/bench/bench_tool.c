/* bench_tool — the in-process half of `make bench` (tests/bench/bench.sh runs it).
 *
 *   bench_tool gen-k8s DIR JOBS PODS LIMIT SEED     List pages (bench_gen.h)
 *   bench_tool gen-db PATH TASKS NODES SEED [WEEK]   a database in spotledger's schema
 *                                                    (WEEK tasks in 2026-W20)
 *   bench_tool gen-fleet PATH CLUSTERS TASKS NODES SEED [WEEK]
 *                                                    CLUSTERS clusters c00.. of TASKS
 *                                                    tasks and NODES nodes each
 *                                                    (docs/fleet.md)
 *   bench_tool migrate DB                            applies migrations newer than the data
 *   bench_tool ingest DIR DB                         k8s_list_parse + store_k8s, page by
 *                                                    page, one transaction per page, as
 *                                                    the watcher's apply_page; also
 *                                                    the peak RSS after a tenth of the
 *                                                    pages and at the end does
 *   bench_tool ingest DIR DB CLUSTER                 the same into an existing DB, as
 *                                                    cluster CLUSTER (store_set_cluster)
 *   bench_tool bare DIR                              json-c parse of the same pages only
 *   bench_tool bare-trim DIR                         the same, fed around managedFields
 *   bench_tool summary DB FROM TO REPS               calc_run + report_summary_json, the
 *                                                    code path of GET /api/v1/summary
 *   bench_tool summary-by-cluster DB FROM TO REPS N  one summary per cluster c00..c(N-1)
 *                                                    (aggregate=cluster's work), all N
 *                                                    timed together
 *   bench_tool do-budget N PER_HOUR PER_MINUTE HOURS N http_client pacers (the
 *                                                    DigitalOcean pollers' clients) with
 *                                                    the given shares, each asking as
 *                                                    fast as it lets them for HOURS of
 *                                                    virtual time (sleep and clock hooks,
 *                                                    no network), started together: the
 *                                                    most requests of all N in any hour
 *                                                    and in any minute
 *   bench_tool compose DB FROM TO REPS               compose_run (query/compose.h): the
 *                                                    window from its days' partial sums,
 *                                                    kept days written to DB; each run
 *   bench_tool stored DB FROM TO REPS                compose_stored, the request path: kept
 *                                                    days read, the rest captured, nothing
 *                                                    written (read-only connection)
 *   bench_tool export DB FROM TO                     export_build (tasks CSV)
 *
 * Every measuring command prints one line "key=value ..." with times in ms
 * (median of REPS where there are repetitions). Files are read into memory
 * before the clock starts. */
#include <dirent.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_gen.h"
#include "model/settings.h"
#include "query/calc.h"
#include "query/compose.h"
#include "query/export.h"
#include "source/json_trim.h"
#include "source/http_client.h"
#include "source/k8s_api.h"
#include "base/log.h"
#include "query/report.h"
#include "store/store.h"
#include "store/store_k8s.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CPU time of the process so far (user + system), ms: on the shared machine a
 * steadier figure than wall time for CPU-bound work. */
static double cpu_ms(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* The process's peak resident set (KiB), as the kernel counts it. */
static long peak_rss_kib(void) {
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

struct page {
    char *data;
    size_t len;
    enum k8s_kind kind;
};

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* jobs-*.json then pods-*.json, in name order, read into memory. */
static struct page *read_pages(const char *dir, size_t *n, size_t *bytes) {
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **names = NULL;
    size_t nn = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "jobs-", 5) && strncmp(e->d_name, "pods-", 5))
            continue;
        if (nn == cap) {
            cap = cap ? cap * 2 : 256;
            names = realloc(names, cap * sizeof *names);
        }
        names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, nn, sizeof *names, cmp_str);
    struct page *p = calloc(nn ? nn : 1, sizeof *p);
    *bytes = 0;
    for (size_t i = 0; i < nn; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "rb");
        if (!f)
            return NULL;
        fseek(f, 0, SEEK_END);
        long sz = ftell(f);
        fseek(f, 0, SEEK_SET);
        p[i].data = malloc((size_t)sz + 1);
        p[i].len = fread(p[i].data, 1, (size_t)sz, f);
        p[i].data[p[i].len] = '\0';
        fclose(f);
        p[i].kind = names[i][0] == 'j' ? K8S_JOB : K8S_POD;
        *bytes += p[i].len;
        free(names[i]);
    }
    free(names);
    *n = nn;
    return p;
}

/* cluster NULL: into a new database; else into dbpath as it is, as that cluster. */
static int cmd_ingest(const char *dir, const char *dbpath, const char *cluster) {
    size_t n, bytes;
    struct page *p = read_pages(dir, &n, &bytes);
    if (!p || !n)
        return fprintf(stderr, "bench_tool: no pages in %s\n", dir), 1;
    struct store *s;
    if (!cluster)
        remove(dbpath);
    if (store_open(dbpath, STORE_WRITER, &s, NULL) != ERR_OK)
        return 1;
    if (cluster && store_set_cluster(s, cluster) != ERR_OK)
        return fprintf(stderr, "bench_tool: bad cluster name %s\n", cluster), 1;
    size_t items = 0, skipped = 0;
    long rss_early = 0;
    double t0 = now_ms(), c0 = cpu_ms(), parse_ms = 0;
    enum k8s_kind prev = K8S_EVENT;
    for (size_t i = 0; i < n; i++) {
        struct k8s_list l;
        double a = now_ms();
        if (k8s_list_parse(p[i].data, p[i].len, p[i].kind, &l) != ERR_OK)
            return fprintf(stderr, "bench_tool: page %zu does not parse\n", i), 1;
        parse_ms += now_ms() - a;
        enum err rc = store_begin(s);
        if (rc == ERR_OK && p[i].kind != prev)
            rc = store_k8s_seen_reset(s, p[i].kind);
        prev = p[i].kind;
        for (size_t k = 0; rc == ERR_OK && k < l.n; k++) {
            rc = store_k8s_seen_add(s, p[i].kind, k8s_object_meta(&l.items[k])->uid);
            if (rc == ERR_OK)
                rc = store_k8s_put(s, &l.items[k], 0, BENCH_T0);
        }
        if (rc == ERR_OK)
            rc = store_commit(s);
        if (rc != ERR_OK)
            return fprintf(stderr, "bench_tool: store failed on page %zu\n", i), 1;
        items += l.n;
        skipped += l.skipped;
        k8s_list_release(&l);
        if (i == n / 10)
            rss_early = peak_rss_kib();
    }
    double total = now_ms() - t0, cpu = cpu_ms() - c0;
    store_free(s);
    printf("ingest_ms=%.1f cpu_ms=%.1f parse_ms=%.1f pages=%zu items=%zu skipped=%zu bytes=%zu "
           "rss_early_kib=%ld rss_end_kib=%ld\n",
           total, cpu, parse_ms, n, items, skipped, bytes, rss_early, peak_rss_kib());
    return 0;
}

/* A bare json-c parse of the pages; trim: fed around managedFields (json_trim.h). */
static int cmd_bare(const char *dir, bool trim) {
    size_t n, bytes;
    struct page *p = read_pages(dir, &n, &bytes);
    if (!p || !n)
        return 1;
    double t0 = now_ms();
    size_t items = 0;
    for (size_t i = 0; i < n; i++) {
        json_tokener *tok = json_tokener_new_ex(K8S_JSON_DEPTH);
        enum json_tokener_error je;
        json_object *o = trim ? json_trim_parse(tok, p[i].data, p[i].len, &je)
                              : json_tokener_parse_ex(tok, p[i].data, (int)p[i].len);
        json_tokener_free(tok);
        json_object *arr;
        if (!o || !json_object_object_get_ex(o, "items", &arr))
            return fprintf(stderr, "bench_tool: parse failed on page %zu\n", i), 1;
        items += json_object_array_length(arr);
        json_object_put(o);
    }
    printf("%s=%.1f pages=%zu items=%zu bytes=%zu\n", trim ? "trim_ms" : "bare_ms", now_ms() - t0,
           n, items, bytes);
    return 0;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The query of a bench window: no filter, "now" a day after the generated year. */
static struct cost_query bench_query(int64_t from, int64_t to) {
    struct cost_query q;
    memset(&q, 0, sizeof q);
    q.from = from;
    q.to = to;
    q.now = BENCH_T0 + BENCH_WEEKS * BENCH_WEEK + 86400;
    return q;
}

/* One summary per cluster c00 .. c(nc - 1), as GET /api/v1/summary?aggregate=cluster
 * computes them (http/api_fleet.c): the median over reps of the time of all nc. */
static int cmd_summary_by_cluster(const char *dbpath, int64_t from, int64_t to, int reps, int nc) {
    struct store *s;
    if (store_open(dbpath, STORE_READER, &s, NULL) != ERR_OK)
        return 1;
    double *t = calloc((size_t)reps, sizeof *t);
    size_t body = 0;
    for (int r = 0; r < reps; r++) {
        struct buf out;
        buf_init(&out, 0);
        double a = now_ms();
        for (int k = 0; k < nc; k++) {
            char sel[32];
            snprintf(sel, sizeof sel, ",c%02d,", k);
            struct calc_settings cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.clusters = sel;
            struct cost_query q = bench_query(from, to);
            struct calc c;
            if (calc_run(s, &cfg, from, to, &q, &c) != ERR_OK ||
                report_summary_json(c.res, &out) != ERR_OK)
                return fprintf(stderr, "bench_tool: summary of c%02d failed\n", k), 1;
            calc_release(&c);
        }
        t[r] = now_ms() - a;
        body = out.len;
        buf_release(&out);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_d);
    printf("by_cluster_ms=%.2f clusters=%d body=%zu\n", t[reps / 2], nc, body);
    store_free(s);
    free(t);
    return 0;
}

static int cmd_summary(const char *dbpath, int64_t from, int64_t to, int reps) {
    struct store *s;
    if (store_open(dbpath, STORE_READER, &s, NULL) != ERR_OK)
        return 1;
    double *t = calloc((size_t)reps, sizeof *t), *tl = calloc((size_t)reps, sizeof *tl);
    size_t body = 0, ntasks = 0, natt = 0;
    for (int r = 0; r < reps; r++) {
        struct cost_query q = bench_query(from, to);
        struct calc c;
        struct buf out;
        buf_init(&out, 0);
        double a = now_ms();
        struct store_cost_data *d = NULL;
        if (store_cost_load(s, from, to, NULL, &d) != ERR_OK)
            return 1;
        tl[r] = now_ms() - a;
        ntasks = d->in.n_tasks;
        natt = d->in.n_attempts;
        store_cost_free(d);
        a = now_ms();
        if (calc_run(s, NULL, from, to, &q, &c) != ERR_OK ||
            report_summary_json(c.res, &out) != ERR_OK)
            return fprintf(stderr, "bench_tool: summary failed\n"), 1;
        t[r] = now_ms() - a;
        body = out.len;
        calc_release(&c);
        buf_release(&out);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_d);
    qsort(tl, (size_t)reps, sizeof *tl, cmp_d);
    printf("summary_ms=%.2f load_ms=%.2f tasks=%zu attempts=%zu body=%zu\n", t[reps / 2],
           tl[reps / 2], ntasks, natt, body);
    store_free(s);
    free(t);
    free(tl);
    return 0;
}

static int cmd_export(const char *dbpath, int64_t from, int64_t to) {
    struct store *s;
    if (store_open(dbpath, STORE_READER, &s, NULL) != ERR_OK)
        return 1;
    struct buf out;
    buf_init(&out, 0);
    int64_t rows = 0;
    double a = now_ms();
    if (export_build(s, NULL, EXPORT_TASKS, from, to, "bench", to, &out, &rows) != ERR_OK)
        return fprintf(stderr, "bench_tool: export failed\n"), 1;
    printf("export_ms=%.1f rows=%lld bytes=%zu\n", now_ms() - a, (long long)rows, out.len);
    buf_release(&out);
    store_free(s);
    return 0;
}

/* A window composed from its days' partial sums (query/compose.h) on a writer
 * connection (kept days are written to the database): each of reps runs is
 * timed with what it read, computed and kept; peak RSS after. */
static int cmd_compose(const char *dbpath, int64_t from, int64_t to, int reps, bool stored) {
    struct store *s;
    if (store_open(dbpath, stored ? STORE_READER : STORE_WRITER, &s, NULL) != ERR_OK)
        return 1;
    for (int r = 0; r < reps; r++) {
        struct cost_query q = bench_query(from, to);
        struct calc c;
        struct compose_stats st;
        struct buf out;
        buf_init(&out, 0);
        double a = now_ms();
        enum err rc = stored ? compose_stored(s, NULL, &q, &c, &st)
                             : compose_run(s, s, NULL, NULL, &q, &c, &st);
        if (rc != ERR_OK || report_summary_json(c.res, &out) != ERR_OK)
            return fprintf(stderr, "bench_tool: compose failed: %s\n", err_str(rc)), 1;
        double t = now_ms() - a;
        printf("compose_ms=%.2f days=%lld stored=%lld computed=%lld kept=%lld body=%zu "
               "peak_rss_kib=%ld\n",
               t, (long long)st.days, (long long)st.stored, (long long)st.computed,
               (long long)st.kept, out.len, peak_rss_kib());
        calc_release(&c);
        buf_release(&out);
    }
    store_free(s);
    return 0;
}

/* --- the DigitalOcean budget: pacers in virtual time -------------------------- */
struct vclock {
    int64_t ms;
};
static void v_sleep(void *ctx, long ms) {
    ((struct vclock *)ctx)->ms += ms;
}
static int64_t v_now(void *ctx) {
    return ((struct vclock *)ctx)->ms;
}
static long v_answer(void *ctx, const char *url, struct http_response *resp) {
    (void)ctx;
    (void)url;
    buf_puts(&resp->body, "{}");
    return 200;
}
static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}
/* The most of the sorted times t[0..n) in any window [x, x + width). */
static size_t max_in_window(const int64_t *t, size_t n, int64_t width) {
    size_t best = 0;
    for (size_t i = 0, j = 0; j < n; j++) {
        while (t[j] - t[i] >= width)
            i++;
        if (j - i + 1 > best)
            best = j - i + 1;
    }
    return best;
}

static int cmd_do_budget(int n, int per_hour, int per_minute, int hours) {
    int64_t end = (int64_t)hours * 3600000;
    size_t cap = (size_t)n * ((size_t)per_hour * (size_t)hours + 16), nt = 0;
    int64_t *t = calloc(cap, sizeof *t);
    if (!t)
        return 1;
    for (int k = 0; k < n; k++) {
        struct vclock vc = {0};
        struct http_client_options o = {.rate_per_hour = per_hour,
                                        .rate_per_minute = per_minute,
                                        .sleep_ms = v_sleep,
                                        .now_ms = v_now,
                                        .sleep_ctx = &vc,
                                        .transport = v_answer};
        struct http_client *c;
        if (http_client_new(&o, &c) != ERR_OK)
            return 1;
        struct http_response r;
        http_response_init(&r);
        while (nt < cap) {
            if (http_client_get(c, "http://127.0.0.1:9/v2/kubernetes/clusters", "t", NULL, &r) !=
                ERR_OK)
                return fprintf(stderr, "bench_tool: do-budget: a request failed\n"), 1;
            if (vc.ms >= end)
                break;
            t[nt++] = vc.ms; /* the time it was let through */
        }
        http_response_release(&r);
        http_client_free(c);
    }
    qsort(t, nt, sizeof *t, cmp_i64);
    printf("clients=%d requests=%zu hours=%d max_per_hour=%zu max_per_minute=%zu\n", n, nt, hours,
           max_in_window(t, nt, 3600000), max_in_window(t, nt, 60000));
    free(t);
    return 0;
}

static long num(const char *s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end) {
        fprintf(stderr, "bench_tool: not a number: %s\n", s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv) {
    log_set_level(LOG_WARN);
    if (argc == 7 && !strcmp(argv[1], "gen-k8s"))
        return bench_gen_k8s(argv[2], num(argv[3]), num(argv[4]), num(argv[5]),
                             strtoull(argv[6], NULL, 10)) != 0;
    if (argc == 3 && !strcmp(argv[1], "migrate")) {
        struct store *s; /* a writer applies the migrations it has not seen */
        if (store_open(argv[2], STORE_WRITER, &s, NULL) != ERR_OK)
            return 1;
        store_free(s);
        return 0;
    }
    if ((argc == 6 || argc == 7) && !strcmp(argv[1], "gen-db"))
        return bench_gen_db(argv[2], num(argv[3]), num(argv[4]), argc == 7 ? num(argv[6]) : 0,
                            strtoull(argv[5], NULL, 10)) != 0;
    if ((argc == 7 || argc == 8) && !strcmp(argv[1], "gen-fleet"))
        return bench_gen_fleet_db(argv[2], (int)num(argv[3]), num(argv[4]), num(argv[5]),
                                  argc == 8 ? num(argv[7]) : 0, strtoull(argv[6], NULL, 10)) != 0;
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "ingest"))
        return cmd_ingest(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
    if (argc == 7 && !strcmp(argv[1], "summary-by-cluster"))
        return cmd_summary_by_cluster(argv[2], strtoll(argv[3], NULL, 10),
                                      strtoll(argv[4], NULL, 10), (int)num(argv[5]),
                                      (int)num(argv[6]));
    if (argc == 3 && !strcmp(argv[1], "bare"))
        return cmd_bare(argv[2], false);
    if (argc == 3 && !strcmp(argv[1], "bare-trim"))
        return cmd_bare(argv[2], true);
    if (argc == 6 && !strcmp(argv[1], "summary"))
        return cmd_summary(argv[2], strtoll(argv[3], NULL, 10), strtoll(argv[4], NULL, 10),
                           (int)num(argv[5]));
    if (argc == 6 && !strcmp(argv[1], "do-budget"))
        return cmd_do_budget((int)num(argv[2]), (int)num(argv[3]), (int)num(argv[4]),
                             (int)num(argv[5]));
    if (argc == 6 && (!strcmp(argv[1], "compose") || !strcmp(argv[1], "stored")))
        return cmd_compose(argv[2], strtoll(argv[3], NULL, 10), strtoll(argv[4], NULL, 10),
                           (int)num(argv[5]), !strcmp(argv[1], "stored"));
    if (argc == 5 && !strcmp(argv[1], "export"))
        return cmd_export(argv[2], strtoll(argv[3], NULL, 10), strtoll(argv[4], NULL, 10));
    fprintf(stderr, "usage: see tests/bench/bench_tool.c\n");
    return 2;
}
