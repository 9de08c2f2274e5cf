/*
 * launch_connect.h - the run's connection: the kubeconfig read, the client
 * made, and the SelfSubjectRulesReview sent before the job is built
 * (launch_early_start), taken by the run when it starts (launch_connect).
 */
#ifndef JAXJOB_LAUNCH_CONNECT_H
#define JAXJOB_LAUNCH_CONNECT_H

#include "launch_ctx.h"

/* kube_config_load's options from the flags: the same for every client of a launch. */
void launch_config_opts(const struct launch_opts *o, struct kube_config_opts *ko);

/*
 * The run's connection, opened before the job is built: the kubeconfig is
 * read, the client made and the SelfSubjectRulesReview of the namespace the
 * flags and kubeconfig name is sent, pushed as far as the TLS handshake goes
 * without waiting (kube_loop_poke) - so the server works on the handshake
 * while launch builds and validates the job. Read-only: nothing is created
 * before launch_run() decides to. NULL when any of it fails; launch_run()
 * then does it all itself and reports the problem as before. `early` may be
 * NULL; launch_run() takes its client; free it after launch_run() returns.
 */
struct launch_early;
struct launch_early *launch_early_start(const struct launch_opts *o);
void launch_early_free(struct launch_early *early);

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

/* How long an access review (rules or access) is retried: a review that
 * cannot be made is no answer, not a reason to hold the step. */
#define LAUNCH_REVIEW_RETRY_S 5.0

/* The SelfSubjectRulesReview request for a namespace (sent early by
 * launch_early_start, or by the access check, launch_access.c). */
void launch_rules_request(struct kube_request *rq, const char *ns);

/* ctx->c and ctx->ns (the manifest's namespace, else the kubeconfig's):
 * the early connection's when there is one, else made now. -1 with `r`
 * set (exit 4) when the kubeconfig or the client fails. */
struct launch_result;
int launch_connect(struct launch_ctx *ctx, struct launch_result *r);

#endif
