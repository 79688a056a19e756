/* api_uncertainty — the summary's optional "uncertainty" object
 * (docs/uncertainty.md): `uncertainty=true` asks for it, `resamples=N`
 * (100..10000, default 2000) sets the bootstrap's size. Computing it resamples
 * every task of the window, so it is on request and, like every answer about a
 * closed window, cached. Windows longer than API_UNC_MAX_DAYS get null and a
 * reason. Thread rule: any thread. */
#ifndef SPOTLEDGER_API_UNCERTAINTY_H
#define SPOTLEDGER_API_UNCERTAINTY_H

#include <stdbool.h>

#include "http/api.h"
#include "query/uncertainty.h"

#define API_UNC_MAX_DAYS UNC_MAX_WINDOW_DAYS
#define API_UNC_MIN_RESAMPLES 100
#define API_UNC_MAX_RESAMPLES 10000

/* Route parameters the summary accepts for it (NULL-terminated). */
extern const char *const api_unc_params[];

struct api_unc {
    bool on;
    int resamples;
    char key[32];    /* for the response cache key: "" off, else "unc=N" */
    struct buf body; /* the JSON value, when on */
};

/* Parses the parameters; on a bad value fills resp with 400 and returns false. */
bool api_unc_parse(struct request *req, struct response *resp, struct api_unc *u);
/* When u->on: computes the window q->w (with its filters) with per-attempt
 * figures and writes the object into u->body. The intervals are drawn on the
 * accrual basis only: with completion, and on windows longer than
 * API_UNC_MAX_DAYS, the object has null intervals and a "reason". On a
 * computation failure fills resp (500/503) and returns false. */
bool api_unc_compute(struct request *req, struct response *resp, const struct api_query *q,
                     bool completion, struct api_unc *u);
void api_unc_release(struct api_unc *u);

#endif
