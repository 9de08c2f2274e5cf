/*
 * launch_access.h - before the create: may this identity do what the
 * options need? (SelfSubjectRulesReview first, SelfSubjectAccessReview for
 * what the rules leave open; launch_access.c.)
 */
#ifndef JAXJOB_LAUNCH_ACCESS_H
#define JAXJOB_LAUNCH_ACCESS_H

#include "launch_ctx.h"
#include "launch_hub.h"

/*
 * -1 (with `r` set: exit 4) when it may not create or get the job;
 * otherwise 0, with one warning per other missing permission and ctx->deny
 * set so the run adapts. A review that cannot be made is no answer: 0,
 * nothing said. A signal during the review (launch_hub_ended) returns 0.
 */
struct launch_result;
int launch_access_check(struct launch_ctx *ctx, struct launch_hub *h, struct launch_result *r);

#endif
