#include "http/metrics.h"

#include <stdio.h>
#include <string.h>

#include "http/api.h"
#include "http/api_advice.h"
#include "service/app.h"
#include "service/config.h"
#include "http/metrics_cost.h"
#include "base/promw.h"
#include "store/store_do.h"
#include "store/store_read.h"
#include "base/money.h"
#include "base/timeutil.h"
#include "engine/reconcile.h"

static void poll_metrics(struct request *req, struct buf *b) {
    static const char *const sources[] = {"do", "do_billing", "k8s"};
    struct store_poll_stats st[3] = {{0}};
    for (int i = 0; i < 3; i++)
        store_poll_stats(req->db, sources[i], &st[i]);
    promw_family(b, "spotledger_polls_total", "counter", "Polls of each source by result.");
    for (int i = 0; i < 3; i++) {
        const char *ok[] = {"source", sources[i], "result", "ok", NULL};
        const char *er[] = {"source", sources[i], "result", "error", NULL};
        promw_sample_int(b, "spotledger_polls_total", ok, st[i].ok);
        promw_sample_int(b, "spotledger_polls_total", er, st[i].errors);
    }
    promw_family(b, "spotledger_poll_errors_total", "counter", "Failed polls of each source.");
    for (int i = 0; i < 3; i++) {
        const char *l[] = {"source", sources[i], NULL};
        promw_sample_int(b, "spotledger_poll_errors_total", l, st[i].errors);
    }
    promw_family(b, "spotledger_poll_duration_seconds", "gauge",
                 "Duration of the latest finished poll of each source.");
    for (int i = 0; i < 3; i++) {
        const char *l[] = {"source", sources[i], NULL};
        promw_sample_int(b, "spotledger_poll_duration_seconds", l, st[i].last_duration);
    }
    promw_family(b, "spotledger_last_successful_poll_timestamp_seconds", "gauge",
                 "Unix time of the latest successful poll of each source (0: never).");
    for (int i = 0; i < 3; i++) {
        const char *l[] = {"source", sources[i], NULL};
        promw_sample_int(b, "spotledger_last_successful_poll_timestamp_seconds", l,
                         st[i].last_success);
    }
    promw_family(b, "spotledger_upstream_requests_total", "counter",
                 "HTTP requests made to each source.");
    for (int i = 0; i < 3; i++) {
        const char *l[] = {"source", sources[i], NULL};
        promw_sample_int(b, "spotledger_upstream_requests_total", l, st[i].requests);
    }
}

/* docs/fleet.md: per cluster and per-cluster source (k8s, do), whether the
 * latest poll succeeded (0 also when that side does not run) and when the
 * latest success was. */
static void cluster_metrics(struct request *req, struct buf *b) {
    const struct app *app = req->app;
    if (!app || app->n_clusters == 0)
        return;
    static const char *const sources[] = {"k8s", "do"};
    promw_family(b, "spotledger_cluster_up", "gauge",
                 "1 when the latest poll of the cluster's source succeeded, else 0.");
    for (int i = 0; i < app->n_clusters; i++) {
        const struct app_cluster *c = &app->clusters[i];
        for (int s = 0; s < 2; s++) {
            bool on = s == 0 ? c->k8s_enabled : c->do_enabled;
            struct store_poll last;
            bool up =
                on &&
                store_poll_last_cluster(req->db, sources[s], c->name, false, &last) == ERR_OK &&
                strcmp(last.status, "ok") == 0;
            const char *l[] = {"cluster", c->name, "source", sources[s], NULL};
            promw_sample_int(b, "spotledger_cluster_up", l, up ? 1 : 0);
        }
    }
    promw_family(b, "spotledger_cluster_last_successful_poll_timestamp_seconds", "gauge",
                 "Unix time of the latest successful poll of the cluster's source (0: never).");
    for (int i = 0; i < app->n_clusters; i++) {
        for (int s = 0; s < 2; s++) {
            struct store_poll ok;
            int64_t t = store_poll_last_cluster(req->db, sources[s], app->clusters[i].name, true,
                                                &ok) == ERR_OK
                            ? ok.finished_at
                            : 0;
            const char *l[] = {"cluster", app->clusters[i].name, "source", sources[s], NULL};
            promw_sample_int(b, "spotledger_cluster_last_successful_poll_timestamp_seconds", l, t);
        }
    }
}

/* Setup advisor findings over the last 7 days; every severity always present
 * (0 when the advisor could not run: its error is logged where it happened). */
static void advice_metrics(struct request *req, struct buf *b) {
    int64_t counts[ADVICE_NSEVERITY] = {0};
    if (api_advice_counts(req, counts) != ERR_OK)
        memset(counts, 0, sizeof counts);
    promw_family(b, "spotledger_advice_findings", "gauge",
                 "Setup advisor findings by severity (GET /api/v1/advice, last 7 days).");
    for (int s = 0; s < ADVICE_NSEVERITY; s++) {
        const char *l[] = {"severity", advice_severity_name((enum advice_severity)s), NULL};
        promw_sample_int(b, "spotledger_advice_findings", l, counts[s]);
    }
}

/* The reconciliation's unexplained drift (README "Reconciliation"): for the
 * current and the previous invoice period that have an invoice, the TOTAL
 * line's unexplained / estimated as a ratio (0.02 = 2 %); absent without an
 * invoice or an estimate. */
static void reconcile_metrics(struct request *req, struct buf *b) {
    int64_t now = api_now(req);
    int64_t m = timeutil_month_start(now);
    promw_family(b, "spotledger_reconciliation_unexplained_ratio", "gauge",
                 "Invoice period's billed - estimated - rounding, over the estimate "
                 "(GET /api/v1/reconciliation, TOTAL line).");
    for (int k = 0; k < 2; k++) {
        char period[16];
        int64_t y;
        int mo, d;
        timeutil_civil_from_days(m / 86400, &y, &mo, &d);
        snprintf(period, sizeof period, "%04d-%02d", (int)y, mo);
        m = timeutil_month_start(m - 1);
        struct reconcile_result r;
        if (api_reconcile_period(req, period, NULL, now, &r) != ERR_OK) /* the fleet's */
            continue;
        const struct reconcile_line *t = r.n_lines ? &r.lines[r.n_lines - 1] : NULL;
        int64_t ratio;
        if (r.has_invoice && t && t->estimated > 0 &&
            money_muldiv(t->unexplained, 1000000, t->estimated, &ratio) == ERR_OK) {
            const char *l[] = {"period", period, NULL};
            promw_sample_micro(b, "spotledger_reconciliation_unexplained_ratio", l, ratio);
        }
        reconcile_result_release(&r);
    }
}

void metrics_handle(struct request *req, struct response *resp) {
    if (!api_db_open(req, resp))
        return;
    struct buf *b = &resp->body;
    const char *ver[] = {"version", SPOTLEDGER_VERSION, NULL};
    promw_family(b, "spotledger_build_info", "gauge", "Build information.");
    promw_sample_int(b, "spotledger_build_info", ver, 1);
    if (req->app) {
        promw_family(b, "spotledger_start_time_seconds", "gauge", "Unix time the process started.");
        promw_sample_int(b, "spotledger_start_time_seconds", NULL, req->app->started_at);
    }
    poll_metrics(req, b);
    cluster_metrics(req, b);
    if (req->app)
        metrics_cost_write(req, &req->app->metrics, b);
    advice_metrics(req, b);
    reconcile_metrics(req, b);
    resp->status = 200;
    resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
}
