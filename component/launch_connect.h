/*
 * launch_connect.h - the run's connection: the kubeconfig read, the client
 * made, and the SelfSubjectRulesReview sent before the job is built
 * (launch_early_start, declared in launch_run.h), taken by the run when it
 * starts (launch_connect).
 */
#ifndef JAXJOB_LAUNCH_CONNECT_H
#define JAXJOB_LAUNCH_CONNECT_H

#include "launch_ctx.h"
#include "launch_run.h"

/* The connection opened before the job was built (launch_early_start). */
struct launch_early {
	struct kube_client *c;		/* NULL once the run has taken it */
	struct kube_client *loop;	/* the same client, taken or not */
	char *ns;			/* the namespace of the flags and kubeconfig */
	char *warnings;			/* the kubeconfig's warnings, printed by the run */
	struct kube_call *review;	/* the rules review in flight, or NULL */
	int answered, ok;		/* it came back; with a 2xx */
	cJSON *json;			/* its answer */
};

/* ctx->c and ctx->ns (the manifest's namespace, else the kubeconfig's):
 * the early connection's when there is one, else made now. -1 with `r`
 * set (exit 4) when the kubeconfig or the client fails. */
struct launch_result;
int launch_connect(struct launch_ctx *ctx, struct launch_result *r);

#endif
