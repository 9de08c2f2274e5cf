/*
 * launch_cleanup.h - what happens to the job when the run stops caring
 * about it: delete it (and wait until the server confirms), suspend it, or
 * leave it; each conditional on the object the decision was made on (the
 * hub's job as last seen). launch_cleanup.c says why each step is so.
 */
#ifndef JAXJOB_LAUNCH_CLEANUP_H
#define JAXJOB_LAUNCH_CLEANUP_H

#include "buf.h"
#include "context/launch_ctx.h"
#include "hub/launch_hub.h"

enum launch_cleanup_action { CLEAN_NONE, CLEAN_DELETE, CLEAN_SUSPEND };
enum launch_cleanup_done {
	CLEANUP_DONE,		/* done, or failed with a warning */
	CLEANUP_CHANGED,	/* 409: the job is not the hub's job: look again */
};

/*
 * Apply `action` to the job as the hub last saw it (its uid and
 * resourceVersion are the request's preconditions), retrying until
 * `deadline` (kube_now() clock); a one-line note of what was done (for
 * outputs) goes into `note`. Never fails the run: problems are warnings.
 */
int launch_cleanup(struct launch_hub *h, const struct launch_ctx *ctx,
		   enum launch_cleanup_action action, double deadline, struct buf *note);

/*
 * One request of the ending (the look) or the cleanup, bounded by
 * `deadline`: retried until then, at least 1 s, and no one attempt
 * outlasts it (struct kube_request's retry_s and timeout_s: the client's
 * own settings stay as its owner set them). `rq` is freed; *out (may be
 * NULL) is the answer when it succeeded, else NULL. 0, or -1 with `e`.
 */
int launch_call_until(const struct launch_ctx *ctx, struct kube_request *rq, double deadline,
		      cJSON **out, struct err *e);

#endif
