/*
 * launch_access.h - before the create: may this identity do what the
 * options need? (SelfSubjectRulesReview first, SelfSubjectAccessReview for
 * what the rules leave open; launch_access.c.)
 */
#ifndef JAXJOB_LAUNCH_ACCESS_H
#define JAXJOB_LAUNCH_ACCESS_H

#include "context/launch_ctx.h"
#include "hub/launch_hub.h"

/*
 * -1 with `e` set (reason Forbidden) when it may not create or get the
 * job, or the job's Kueue LocalQueue does not exist (launch_kueue_preflight);
 * otherwise 0, with one warning per other missing permission and `deny`
 * set (zeroed first by the caller) so the run adapts. A review that cannot be made is no answer: 0,
 * nothing said. A signal during the review (launch_hub_ended) returns 0.
 */
int launch_access_check(const struct launch_ctx *ctx, const struct launch_hub *h,
			struct launch_deny *deny, struct err *e);

/*
 * A TrainJob naming a runtime that does not exist is accepted and then never
 * starts: only an event says why. So it is an error before anything is
 * created (like a cluster without the operator: the cluster lacks something,
 * whether the name is a typo or the runtime is not installed): -1 with `e`
 * set (reason RuntimeNotFound, or Unreachable: a server that is not there
 * will not take the create either). Not allowed to read runtimes (403), or
 * any other failure: a warning, and the run goes on (the create will say).
 */
int launch_runtime_check(const struct launch_ctx *ctx, struct err *e);

#endif
