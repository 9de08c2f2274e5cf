/*
 * launch_connect.h - the run's connection: the kubeconfig read, the client
 * made, and the SelfSubjectRulesReview sent before the job is built
 * (launch_early_start), taken by the run when it starts (launch_connect).
 */
#ifndef JAXJOB_LAUNCH_CONNECT_H
#define JAXJOB_LAUNCH_CONNECT_H

#include "context/launch_ctx.h"
#include "outputs/launch_progress.h"

/* kube_config_load's options from the flags: the same for every client of a launch. */
void launch_config_opts(const struct launch_opts *o, struct kube_config_opts *ko);

/*
 * The run's connection, its one first contact, opened before the job is
 * built: the kubeconfig is read once, the one client of the run made, and
 * (with `rules_review`) the SelfSubjectRulesReview of the namespace the
 * flags and kubeconfig name is sent, pushed as far as the TLS handshake
 * goes without waiting (kube_loop_poke) - so the server works on the
 * handshake while launch builds and validates the job. Read-only: nothing
 * is created before launch_run() decides to. Never NULL: a kubeconfig or
 * client that fails is kept in `err` and said by whoever asks for the
 * client (launch_early_client). --api auto, the runtime check, the Kueue
 * preflight and the whole run use this client; free it after launch_run().
 *
 * One window for reaching the server (LAUNCH_CONTACT_S): until it has
 * answered a request, the requests of every step before the create share
 * it (kube_client_set_contact_window), their attempts counted together and
 * said on stderr as they go, so a server that is not there ends the step
 * (exit 4) after one window, whichever step was waiting.
 */
struct launch_early;
struct launch_early *launch_early_start(const struct launch_opts *o, int rules_review);
void launch_early_free(struct launch_early *early);

/* The first contact's one window (seconds), from the start of the command. */
#define LAUNCH_CONTACT_S 10.0

/* The connection opened before the job was built (launch_early_start). */
struct launch_early {
	struct kube_client *c;		/* NULL once the run has taken it, or on `err` */
	struct launch_loop loop;	/* the same client's, taken or not: the run's waits */
	char *ns;			/* the namespace of the flags and kubeconfig */
	char *warnings;			/* the kubeconfig's warnings, said once */
	struct err err;			/* the kubeconfig or the client failed */
	int said;			/* the first contact was said */
	double said_retry_at;		/* kube_now() of the last "waiting" line */
	struct launch_progress prog;	/* its lines (stderr, none with --quiet) */
	struct kube_call *review;	/* the rules review in flight, or NULL */
	int answered, ok;		/* it came back; with a 2xx */
	cJSON *json;			/* its answer */
};

/*
 * The client, before anything waits for the server: the first time, the
 * kubeconfig's warnings and "connecting to SERVER (context X of FILE)" are
 * said (the one place either is said; not with --quiet). NULL with `e` set
 * (reason ConfigError or ClientError) when the kubeconfig or the client
 * failed. The run takes it (launch_connect); --api auto and the like only
 * borrow it.
 */
struct kube_client *launch_early_client(struct launch_early *early, struct err *e);

/* The create is done (or will not be): the first contact's retry lines and
 * its short window for an unreachable server end; the wait keeps the
 * client's own retries. */
void launch_contact_over(struct kube_client *c);

/* How long an access review (rules or access) is retried: a review that
 * cannot be made is no answer, not a reason to hold the step. */
#define LAUNCH_REVIEW_RETRY_S 5.0

/* The SelfSubjectRulesReview request for a namespace (sent early by
 * launch_early_start, or by the access check, launch_access.c). */
void launch_rules_request(struct kube_request *rq, const char *ns);

/* The run's client, its loop's driver (the first contact's, which frees
 * it) and namespace (the manifest's, else the kubeconfig's; the caller's to
 * free), taken from the first contact (ctx->early). -1
 * with `e` set (reason ConfigError or ClientError) when the kubeconfig or
 * the client failed. */
int launch_connect(const struct launch_ctx *ctx, struct kube_client **c,
		   struct launch_loop **loop, char **ns, struct err *e);

#endif
