/*
 * launch_cleanup.c - a spoke of the launch state machine (launch_machine.c
 * is the hub): what happens to the job when we stop caring about it:
 * delete it (and wait until the server confirms), suspend it, or leave it.
 *
 * Both are conditional on the object the decision was made on (st->job, as
 * launch_ending.c looked at it): a DELETE carries DeleteOptions.preconditions
 * {uid, resourceVersion}, a suspend patch carries metadata.resourceVersion.
 * The server answers 409 when the job changed since; we report that to the
 * ending (CLEANUP_CHANGED), which looks again and decides again - a job that
 * succeeded meanwhile is reported Succeeded, not deleted as a cancelled one.
 *
 * Deletion uses propagationPolicy=Foreground: the JAXJob object goes away
 * only after its pods did, so the DELETED event we wait for means the GPUs
 * are free, not merely that a garbage collection was requested. We wait for
 * that event on the job watch (or a 404; the hub sets delete_confirmed and
 * stops the loop). Requests are retried with backoff and the wait lasts
 * until the ending's deadline (--delete-timeout for the whole cleanup): a
 * pod's terminationGracePeriodSeconds (30 s by default) bounds how long we
 * may take after SIGTERM, hence the bound (default 20 s). A signal during
 * cleanup does not interrupt it, a second SIGTERM included (launch_machine.c
 * on_signal); the SIGTERM that ended the wait cannot cancel the DELETE
 * either (kube_loop_cancel_call() never outlives its call).
 *
 * Suspend is a JSON merge patch of the API's suspend flag (JAXJob
 * spec.runPolicy.suspend, TrainJob spec.suspend; lib/jobapi.h): the
 * operator deletes the pods and keeps the job, to be resumed later.
 *
 * Nothing here fails the run: the exit code says how the job ended; a
 * cleanup problem is a warning on stderr and a note in the outputs. When
 * the wait ended because the API server's certificate failed verification
 * (kube_err_tls_untrusted), no cleanup is attempted: the job is left as is,
 * and the warning says so.
 */
#include <string.h>

#include "jtree.h"
#include "launch_state.h"

static void on_delete_wait_over(void *ud)
{
	struct launch_state *st = ud;
	st->delete_timer = NULL;
	kube_loop_stop(st->c);
}

void launch_retry_until(struct launch_state *st, double deadline)
{
	double left = deadline - kube_now();
	kube_client_set_retry(st->c, left > 1 ? left : 1);
}

/* The object the decision was made on: its uid and resourceVersion. */
static struct kube_precond seen(const struct launch_state *st)
{
	struct kube_precond p = {
		st->uid && *st->uid ? st->uid : jtree_get_string(st->job, "metadata.uid", NULL),
		jtree_get_string(st->job, "metadata.resourceVersion", NULL),
	};
	return p;
}

static int delete_job(struct launch_state *st, double deadline, struct buf *note)
{
	struct err e = ERR_INIT;
	struct kube_precond pre = seen(st);
	cJSON *answer = NULL;
	int rc;

	if (st->hub->job_watch(st, &e))
		launch_progress_note(&st->prog, "warning: %s", e.msg);
	err_clear(&e);
	launch_retry_until(st, deadline);
	rc = kube_delete(st->c, st->res, st->ns, st->name, KUBE_PROPAGATE_FOREGROUND, &pre, 0,
			 &answer, &e);
	cJSON_Delete(answer);
	if (rc) {
		if (e.code == ERR_CONFLICT)
			return CLEANUP_CHANGED;
		if (e.code == ERR_NOTFOUND) {
			st->delete_confirmed = 1;
			buf_addf(note, "already deleted");
			return CLEANUP_DONE;
		}
		launch_progress_note(&st->prog, "warning: could not delete %s %s/%s: %s; the job "
				     "is left as is", st->kind, st->ns, st->name, e.msg);
		buf_addf(note, "delete failed: %s", e.msg);
		return CLEANUP_DONE;
	}
	st->delete_requested = 1;
	launch_progress_note(&st->prog, "deleting %s %s/%s", st->kind, st->ns, st->name);
	if (!st->delete_confirmed && st->job_watch && deadline > kube_now()) {
		st->delete_timer = kube_timer_add(st->c, deadline - kube_now(), on_delete_wait_over, st);
		err_clear(&e);
		st->in_delete_wait = 1;
		while (!st->delete_confirmed && st->delete_timer && !st->job_watch_failed &&
		       kube_loop_run(st->c, &e) == 0)
			;
		st->in_delete_wait = 0;
		kube_timer_cancel(st->delete_timer);
		st->delete_timer = NULL;
	}
	if (st->delete_confirmed) {
		launch_progress_note(&st->prog, "deleted %s %s/%s", st->kind, st->ns, st->name);
		buf_addf(note, "deleted");
	} else {
		launch_progress_note(&st->prog, "warning: deletion of %s/%s not confirmed within %.0fs",
				     st->ns, st->name, st->o->delete_wait_s);
		buf_addf(note, "deletion requested, not confirmed within %.0fs", st->o->delete_wait_s);
	}
	return CLEANUP_DONE;
}

static int suspend_job(struct launch_state *st, double deadline, struct buf *note)
{
	struct err e = ERR_INIT;
	cJSON *patch = jobapi_suspend_patch(st->api, 1);
	cJSON *answer = NULL;
	const char *rv = seen(st).resource_version;
	int rc;

	/* optimistic concurrency: the server refuses (409) if the job changed */
	if (rv)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(patch, "metadata"),
					"resourceVersion", rv);
	launch_retry_until(st, deadline);
	rc = kube_patch(st->c, st->res, st->ns, st->name, KUBE_PATCH_MERGE, patch, 0,
			&answer, &e);
	cJSON_Delete(patch);
	if (rc && e.code == ERR_CONFLICT) {
		cJSON_Delete(answer);
		return CLEANUP_CHANGED;
	}
	if (rc) {
		launch_progress_note(&st->prog, "warning: could not suspend %s/%s: %s",
				     st->ns, st->name, e.msg);
		buf_addf(note, "suspend failed: %s", e.msg);
		cJSON_Delete(answer);
		return CLEANUP_DONE;
	}
	launch_progress_note(&st->prog, "suspended %s %s/%s (resume: set its suspend "
			     "flag back to false)", st->kind, st->ns, st->name);
	buf_addf(note, "suspended");
	cJSON_Delete(st->job);
	st->job = answer;
	return CLEANUP_DONE;
}

int launch_cleanup(struct launch_state *st, enum launch_cleanup_action action, double deadline,
		   struct buf *note)
{
	st->phase = RUN_CLEANING;
	if (action != CLEAN_NONE && kube_err_tls_untrusted(&st->end_err)) {
		/* every request would fail the same way: do not pretend to try */
		launch_progress_note(&st->prog, "warning: cannot %s %s %s/%s: the API server's "
				     "certificate is not trusted; the job is left as is (%s it by "
				     "hand once the cluster's CA is sorted out)",
				     action == CLEAN_DELETE ? "delete" : "suspend", st->kind, st->ns,
				     st->name, action == CLEAN_DELETE ? "delete" : "suspend");
		buf_addf(note, "cleanup impossible (TLS verification failed): job left as is");
		return CLEANUP_DONE;
	}
	/* what SelfSubjectAccessReview said cannot be done (warned before the create) */
	if (action == CLEAN_SUSPEND && st->deny.patch_job) {
		launch_progress_note(&st->prog, "cannot suspend %s %s/%s (no patch permission): %s",
				     st->kind, st->ns, st->name, st->deny.delete_job ?
				     "nor delete it; it is left as is" : "deleting it instead");
		action = st->deny.delete_job ? CLEAN_NONE : CLEAN_DELETE;
		if (action == CLEAN_NONE)
			buf_addf(note, "left as is: suspend and delete are forbidden");
	}
	if (action == CLEAN_DELETE && st->deny.delete_job) {
		launch_progress_note(&st->prog, "%s %s/%s is left as is (no delete permission, "
				     "as warned at the start)", st->kind, st->ns, st->name);
		buf_addf(note, "left as is: delete is forbidden");
		action = CLEAN_NONE;
	}
	switch (action) {
	case CLEAN_NONE:
		break;
	case CLEAN_DELETE:
		return delete_job(st, deadline, note);
	case CLEAN_SUSPEND:
		return suspend_job(st, deadline, note);
	}
	return CLEANUP_DONE;
}
