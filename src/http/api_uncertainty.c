/* api_uncertainty — the summary's "uncertainty" object (api_uncertainty.h). */
#include "http/api_uncertainty.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonw.h"
#include "http/api_cost.h"
#include "query/calc.h"
#include "query/uncertainty.h"

const char *const api_unc_params[] = {"uncertainty", "resamples", NULL};

bool api_unc_parse(struct request *req, struct response *resp, struct api_unc *u) {
    memset(u, 0, sizeof *u);
    buf_init(&u->body, 0);
    u->resamples = BOOT_DEFAULT_RESAMPLES;
    const char *v = request_param(req, "uncertainty");
    if (v) {
        if (strcmp(v, "true") == 0) {
            u->on = true;
        } else if (strcmp(v, "false") != 0) {
            response_error(resp, 400, "bad_parameter", "uncertainty: expected true or false");
            return false;
        }
    }
    const char *r = request_param(req, "resamples");
    if (r) {
        char *end;
        errno = 0;
        long n = strtol(r, &end, 10);
        if (errno || end == r || *end || n < API_UNC_MIN_RESAMPLES || n > API_UNC_MAX_RESAMPLES) {
            response_error(resp, 400, "bad_parameter", "resamples: expected %d..%d",
                           API_UNC_MIN_RESAMPLES, API_UNC_MAX_RESAMPLES);
            return false;
        }
        u->resamples = (int)n;
    }
    if (u->on)
        snprintf(u->key, sizeof u->key, "unc=%d", u->resamples);
    return true;
}

/* The object with null intervals and why there are none. */
static void unc_none(struct api_unc *u, const char *why) {
    struct jsonw w;
    jsonw_init(&w, &u->body);
    jsonw_obj(&w);
    jsonw_key(&w, "cost_per_successful_task");
    jsonw_null(&w);
    jsonw_key(&w, "comparisons");
    jsonw_null(&w);
    jsonw_kstr(&w, "reason", why);
    jsonw_obj_end(&w);
}

bool api_unc_compute(struct request *req, struct response *resp, const struct api_query *q,
                     bool completion, struct api_unc *u) {
    if (!u->on)
        return true;
    if (completion) { /* as the experiments route and the CSV say (docs/uncertainty.md) */
        unc_none(u, UNC_REASON_COMPLETION);
        return true;
    }
    if (q->w.to - q->w.from > (int64_t)API_UNC_MAX_DAYS * 86400) {
        char why[128];
        snprintf(why, sizeof why, UNC_REASON_LONG_FMT, API_UNC_MAX_DAYS);
        unc_none(u, why);
        return true;
    }
    struct jsonw w;
    jsonw_init(&w, &u->body);
    struct calc c;
    if (!api_calc_run(req, resp, q, q->w.from, q->w.to, true, &c))
        return false;
    struct boot_params p = {.resamples = u->resamples};
    struct unc_result r;
    struct cost_query cq = {.from = q->w.from, .to = q->w.to};
    enum err rc = unc_compute(&c.data->in, &cq, c.res, &p, &r);
    if (rc == ERR_OK)
        unc_write_json(&r, &w);
    calc_release(&c);
    if (rc != ERR_OK || w.rc != ERR_OK) {
        response_error(resp, 500, "internal", "cannot compute the uncertainty: %s",
                       err_str(rc != ERR_OK ? rc : w.rc));
        return false;
    }
    return true;
}

void api_unc_release(struct api_unc *u) {
    buf_release(&u->body);
}
