#include "http/metrics.h"

#include <string.h>

#include "http/api.h"
#include "http/api_advice.h"
#include "service/app.h"
#include "service/config.h"
#include "http/metrics_cost.h"
#include "base/promw.h"
#include "store/store_read.h"

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

void metrics_handle(struct request *req, struct response *resp) {
    if (!req->db) {
        response_error(resp, 503, "unavailable", "the database is not open");
        return;
    }
    struct buf *b = &resp->body;
    const char *ver[] = {"version", SPOTLEDGER_VERSION, NULL};
    promw_family(b, "spotledger_build_info", "gauge", "Build information.");
    promw_sample_int(b, "spotledger_build_info", ver, 1);
    if (req->app) {
        promw_family(b, "spotledger_start_time_seconds", "gauge", "Unix time the process started.");
        promw_sample_int(b, "spotledger_start_time_seconds", NULL, req->app->started_at);
    }
    poll_metrics(req, b);
    if (req->app)
        metrics_cost_write(req, &req->app->metrics, b);
    advice_metrics(req, b);
    resp->status = 200;
    resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
}
