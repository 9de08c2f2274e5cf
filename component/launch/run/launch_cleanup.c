/*
 * launch_cleanup.c - after the wait, driven by the ending (launch_ending.c):
 * what happens to the job when we stop caring about it:
 * delete it (and wait until the server confirms), suspend it, or leave it.
 *
 * Both are conditional on the object the decision was made on (the hub's
 * job, as launch_ending.c looked at it): a DELETE carries DeleteOptions.preconditions
 * {uid, resourceVersion}, a suspend patch carries metadata.resourceVersion.
 * The server answers 409 when the job changed since; we report that to the
 * ending (CLEANUP_CHANGED), which looks again and decides again - a job that
 * succeeded meanwhile is reported Succeeded, not deleted as a cancelled one.
 *
 * Deletion uses propagationPolicy=Foreground: the JAXJob object goes away
 * only after its pods did, so the DELETED event we wait for means the GPUs
 * are free, not merely that a garbage collection was requested. We wait for
 * that event on the job watch (or a 404: launch_hub_gone; the hub decides
 * what the job watch's events mean, launch_hub_await_deletion). Requests are retried with backoff and the wait lasts
 * until the ending's deadline (--delete-timeout for the whole cleanup): a
 * pod's terminationGracePeriodSeconds (30 s by default) bounds how long we
 * may take after SIGTERM, hence the bound (default 20 s). A signal during
 * cleanup does not interrupt it, a second SIGTERM included (launch_hub.c
 * on_signal); the SIGTERM that ended the wait cannot cancel the DELETE
 * either (kube_loop_cancel_call() never outlives its call). The phase
 * (cleaning, since the wait ended) is the hub's.
 *
 * Suspend is a JSON merge patch of the API's suspend flag (JAXJob
 * spec.runPolicy.suspend, TrainJob spec.suspend; lib/job/jobapi.h): the
 * operator deletes the pods and keeps the job, to be resumed later.
 *
 * Nothing here fails the run: the exit code says how the job ended; a
 * cleanup problem is a warning on stderr and a note in the outputs. When
 * the wait ended because the API server's certificate failed verification
 * (kube_err_tls_untrusted), no cleanup is attempted: the job is left as is,
 * and the warning says so.
 */
#include <string.h>

#include "yj/jtree.h"
#include "launch_cleanup.h"

int launch_call_until(const struct launch_ctx *ctx, struct kube_request *rq, double deadline,
		      cJSON **out, struct err *e)
{
	struct kube_response rs;
	double left = deadline - kube_now();
	int rc;

	/* the retries and each attempt: a server that accepts the DELETE's
	 * connection and never answers must not hold the step past the
	 * bound (curl's 60 s would outlast a pod's 30 s grace period) */
	rq->retry_s = left > 1 ? left : 1;
	rq->timeout_s = rq->retry_s;
	rc = kube_call(ctx->c, rq, &rs, e);
	kube_request_free(rq);
	if (out)
		*out = NULL;
	if (out && rc == 0) {
		*out = rs.json;
		rs.json = NULL;
	}
	kube_response_free(&rs);
	return rc;
}

/* The object the decision was made on: its uid and resourceVersion. */
static struct kube_precond seen(const struct launch_hub *h, const struct launch_ctx *ctx)
{
	const cJSON *job = launch_hub_job(h);
	struct kube_precond p = {
		ctx->uid && *ctx->uid ? ctx->uid : jtree_get_string(job, "metadata.uid", NULL),
		jtree_get_string(job, "metadata.resourceVersion", NULL),
	};
	return p;
}

static int delete_job(struct launch_hub *h, const struct launch_ctx *ctx, double deadline,
		      struct buf *note)
{
	struct err e = ERR_INIT;
	struct kube_precond pre = seen(h, ctx);
	struct kube_request rq;
	cJSON *answer = NULL;
	int rc;

	if (launch_hub_watch_job(h, &e))
		launch_progress_note(ctx->prog, "warning: %s", e.msg);
	err_clear(&e);
	kube_req_delete(&rq, ctx->res, ctx->ns, ctx->name, KUBE_PROPAGATE_FOREGROUND, &pre, 0);
	rc = launch_call_until(ctx, &rq, deadline, &answer, &e);
	cJSON_Delete(answer);
	if (rc) {
		if (e.code == ERR_CONFLICT)
			return CLEANUP_CHANGED;
		if (e.code == ERR_NOTFOUND) {
			launch_hub_gone(h);
			buf_addf(note, "already deleted");
			return CLEANUP_DONE;
		}
		launch_progress_note(ctx->prog, "warning: could not delete %s %s/%s: %s; the job "
				     "is left as is", ctx->kind, ctx->ns, ctx->name, e.msg);
		buf_addf(note, "delete failed: %s", e.msg);
		return CLEANUP_DONE;
	}
	launch_progress_note(ctx->prog, "deleting %s %s/%s", ctx->kind, ctx->ns, ctx->name);
	if (launch_hub_await_deletion(h, deadline)) {
		launch_progress_note(ctx->prog, "deleted %s %s/%s", ctx->kind, ctx->ns, ctx->name);
		buf_addf(note, "deleted");
	} else {
		launch_progress_note(ctx->prog, "warning: deletion of %s/%s not confirmed within %.0fs",
				     ctx->ns, ctx->name, ctx->o->delete_wait_s);
		buf_addf(note, "deletion requested, not confirmed within %.0fs", ctx->o->delete_wait_s);
	}
	return CLEANUP_DONE;
}

static int suspend_job(struct launch_hub *h, const struct launch_ctx *ctx, double deadline,
		       struct buf *note)
{
	struct err e = ERR_INIT;
	cJSON *patch = jobapi_suspend_patch(ctx->api, 1);
	cJSON *answer = NULL;
	const char *rv = seen(h, ctx).resource_version;
	struct kube_request rq;
	int rc;

	/* optimistic concurrency: the server refuses (409) if the job changed */
	if (rv)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(patch, "metadata"),
					"resourceVersion", rv);
	kube_req_patch(&rq, ctx->res, ctx->ns, ctx->name, KUBE_PATCH_MERGE, patch, 0);
	rc = launch_call_until(ctx, &rq, deadline, &answer, &e);
	cJSON_Delete(patch);
	if (rc && e.code == ERR_CONFLICT) {
		cJSON_Delete(answer);
		return CLEANUP_CHANGED;
	}
	if (rc) {
		launch_progress_note(ctx->prog, "warning: could not suspend %s/%s: %s",
				     ctx->ns, ctx->name, e.msg);
		buf_addf(note, "suspend failed: %s", e.msg);
		cJSON_Delete(answer);
		return CLEANUP_DONE;
	}
	launch_progress_note(ctx->prog, "suspended %s %s/%s (resume: set its suspend "
			     "flag back to false)", ctx->kind, ctx->ns, ctx->name);
	buf_addf(note, "suspended");
	launch_hub_take(h, answer);
	return CLEANUP_DONE;
}

int launch_cleanup(struct launch_hub *h, const struct launch_ctx *ctx,
		   enum launch_cleanup_action action, double deadline, struct buf *note)
{
	if (action != CLEAN_NONE && kube_err_tls_untrusted(&launch_hub_why(h)->err)) {
		/* every request would fail the same way: do not pretend to try */
		launch_progress_note(ctx->prog, "warning: cannot %s %s %s/%s: the API server's "
				     "certificate is not trusted; the job is left as is (%s it by "
				     "hand once the cluster's CA is sorted out)",
				     action == CLEAN_DELETE ? "delete" : "suspend", ctx->kind, ctx->ns,
				     ctx->name, action == CLEAN_DELETE ? "delete" : "suspend");
		buf_addf(note, "cleanup impossible (TLS verification failed): job left as is");
		return CLEANUP_DONE;
	}
	/* what SelfSubjectAccessReview said cannot be done (warned before the create) */
	if (action == CLEAN_SUSPEND && ctx->deny.patch_job) {
		launch_progress_note(ctx->prog, "cannot suspend %s %s/%s (no patch permission): %s",
				     ctx->kind, ctx->ns, ctx->name, ctx->deny.delete_job ?
				     "nor delete it; it is left as is" : "deleting it instead");
		action = ctx->deny.delete_job ? CLEAN_NONE : CLEAN_DELETE;
		if (action == CLEAN_NONE)
			buf_addf(note, "left as is: suspend and delete are forbidden");
	}
	if (action == CLEAN_DELETE && ctx->deny.delete_job) {
		launch_progress_note(ctx->prog, "%s %s/%s is left as is (no delete permission, "
				     "as warned at the start)", ctx->kind, ctx->ns, ctx->name);
		buf_addf(note, "left as is: delete is forbidden");
		action = CLEAN_NONE;
	}
	switch (action) {
	case CLEAN_NONE:
		break;
	case CLEAN_DELETE:
		return delete_job(h, ctx, deadline, note);
	case CLEAN_SUSPEND:
		return suspend_job(h, ctx, deadline, note);
	}
	return CLEANUP_DONE;
}
