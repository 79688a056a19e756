/* health — /healthz (the process answers) and /readyz (the database is open and
 * every configured source polled successfully within 3 poll intervals; the body
 * explains what is missing). Thread rule: any thread. */
#ifndef SPOTLEDGER_HEALTH_H
#define SPOTLEDGER_HEALTH_H

#include "base/request.h"

void health_live(struct request *req, struct response *resp);
void health_ready(struct request *req, struct response *resp);

#endif
