/*
 * launch_ending.c - see launch_ending.h.
 *
 * The view: what the ending is decided on. After a wait that saw the job
 * finish, it is the terminal object the watch delivered. After any other
 * ending, our view may be stale (a watch stuck behind an outage or a
 * restarted API server, a terminal event still in flight), so the job is
 * looked at first. That look is the only licence for a destructive request:
 * a look that fails leaves the job as it is - deleting a job whose state
 * we do not know could destroy a Succeeded run's last evidence, or a run
 * that is about to succeed.
 */
#include <string.h>

#include "yj/jtree.h"
#include "launch_cleanup.h"
#include "launch_ending.h"
#include "decide/launch_outcome.h"

/* Conflicts in a row before we stop deciding again (a job updated faster
 * than we can act on it, e.g. by a controller fighting us). */
#define ENDING_ROUNDS_MAX 5

enum view {
	VIEW_SEEN,	/* the hub's job is what the server holds (or a terminal object) */
	VIEW_GONE,	/* the server says 404 */
	VIEW_NOT_OURS,	/* a job of that name with another uid */
	VIEW_UNREAD,	/* the server could not be read within the bound */
};

static double cleanup_bound(const struct launch_opts *o)
{
	return o->delete_wait_s > 0 ? o->delete_wait_s : 20;
}

static enum launch_cleanup_action on_cancel_action(const struct launch_opts *o)
{
	switch (o->on_cancel) {
	case CANCEL_DELETE: return CLEAN_DELETE;
	case CANCEL_SUSPEND: return CLEAN_SUSPEND;
	case CANCEL_LEAVE: return CLEAN_NONE;
	}
	return CLEAN_DELETE;
}

/*
 * GET the job, the client retrying (with backoff) until `deadline`: a
 * restarting API server answers 503 or refuses connections for seconds.
 */
static enum view look(struct launch_hub *h, const struct launch_ctx *ctx, double deadline,
		      struct err *e)
{
	struct kube_request rq;
	cJSON *fresh = NULL;
	const char *uid;

	kube_req_get(&rq, ctx->res, ctx->ns, ctx->name);
	if (launch_call_until(ctx, &rq, deadline, &fresh, e)) {
		cJSON_Delete(fresh);
		return e->code == ERR_NOTFOUND ? VIEW_GONE : VIEW_UNREAD;
	}
	uid = jtree_get_string(fresh, "metadata.uid", NULL);
	if (ctx->uid && *ctx->uid && uid && strcmp(uid, ctx->uid) != 0) {
		cJSON_Delete(fresh);	/* re-created by someone else: not ours */
		return VIEW_NOT_OURS;
	}
	launch_hub_take(h, fresh);
	/* a wait that did not see the job finish: has it, in fact? */
	if (launch_hub_finished_meanwhile(h)) {
		launch_progress_note(ctx->prog, "%s %s/%s had already %s (seen now, the watch was "
				     "behind): that is the outcome; not cancelling it", ctx->kind,
				     ctx->ns, ctx->name, launch_hub_verdict(h)->succeeded ?
				     "succeeded" : "failed");
		launch_hub_drain_late(h);
	}
	return VIEW_SEEN;
}

/* What the cleanup policy makes of the outcome the hub's end leads to. */
static enum launch_cleanup_action action_of(const struct launch_hub *h,
					   const struct launch_ctx *ctx,
					   enum launch_outcome_row row)
{
	const struct launch_opts *o = ctx->o;

	switch (row) {
	case LAUNCH_OUTCOME_SUCCEEDED:
		return o->delete_after == DELETE_NEVER ? CLEAN_NONE : CLEAN_DELETE;
	case LAUNCH_OUTCOME_FAILED:
		return o->delete_after == DELETE_ALWAYS ? CLEAN_DELETE : CLEAN_NONE;
	case LAUNCH_OUTCOME_CANCELLED:	/* nothing to act on while it was being created */
		return launch_hub_job(h) ? on_cancel_action(o) : CLEAN_NONE;
	case LAUNCH_OUTCOME_DELETED:
		return CLEAN_NONE;
	case LAUNCH_OUTCOME_QUEUE_TIMEOUT:
		/* the job keeps its place in the queue unless --on-cancel deletes it */
		return o->on_cancel == CANCEL_DELETE ? CLEAN_DELETE : CLEAN_NONE;
	case LAUNCH_OUTCOME_QUEUE_INADMISSIBLE:
		/* launch_kueue_reasons.c: Kueue cannot admit it as the queue is
		 * configured; waiting would not help: cleaned up as a cancel */
		return on_cancel_action(o);
	default:	/* a timeout, stuck, the API lost */
		return on_cancel_action(o);
	}
}

/* A TrainJob's status counts child Jobs, not pods: count the pods we saw. */
static void count_from_pods(const struct launch_hub *h, struct launch_ending_fact *end)
{
	struct launch_workers w;

	if (!launch_hub_job(h) || launch_hub_verdict(h)->counted || !launch_hub_pod_counts(h, &w))
		return;
	end->pod_counts = 1;
	end->counted = w;
}

void launch_ending_workers(const struct launch_hub *h, const struct launch_ending_fact *end,
			   const cJSON *manifest, struct launch_workers *w)
{
	if (h && launch_hub_job(h))
		*w = launch_hub_verdict(h)->w;	/* the job as last seen, judged once */
	else
		launch_workers_of(manifest, w);
	if (end && end->pod_counts) {
		w->active = end->counted.active;
		w->succeeded = end->counted.succeeded;
		w->failed = end->counted.failed;
	}
}

static const char *verb_of(enum launch_cleanup_action a)
{
	return a == CLEAN_SUSPEND ? "suspend" : "delete";
}

/* No licence to act: say so, once, in stderr and in the outputs' note. */
static void leave_unread(const struct launch_ctx *ctx, struct launch_ending_fact *end,
			 enum launch_cleanup_action action, const struct err *e, struct buf *note)
{
	launch_progress_note(ctx->prog, "warning: could not read %s %s/%s within %.0fs (%s): it is "
			     "left as is, not %sd on a guess; look at it with `kubectl get %s -n %s %s`",
			     ctx->kind, ctx->ns, ctx->name, cleanup_bound(ctx->o), e->msg, verb_of(action),
			     ctx->res->plural, ctx->ns, ctx->name);
	buf_addf(note, "left as is: its state could not be read (%s)", e->msg);
	end->cause.unread = 1;
}

void launch_ending(struct launch_hub *h, const struct launch_ctx *ctx,
		   struct launch_ending_fact *end, struct buf *note)
{
	const struct launch_why *why = launch_hub_why(h);
	double deadline = kube_now() + cleanup_bound(ctx->o);
	enum view v = VIEW_SEEN;
	struct err e = ERR_INIT;

	memset(end, 0, sizeof(*end));
	if (launch_hub_job(h) && ctx->name && launch_end_unseen(why->end) &&
	    !kube_err_tls_untrusted(&why->err))
		v = look(h, ctx, deadline, &e);
	launch_hub_drain_report(h);
	if (why->end != END_FINISHED || !launch_hub_verdict(h)->terminal ||
	    !launch_hub_verdict(h)->succeeded)
		launch_hub_workers_report(h);
	for (int round = 0;; round++) {
		enum launch_cleanup_action action;

		launch_hub_cause(h, &end->cause);
		action = action_of(h, ctx, end->cause.row);
		if (round == 0) {
			count_from_pods(h, end);
			launch_hub_workers_stop(h);
		}
		if (action == CLEAN_NONE)
			break;
		if (v == VIEW_UNREAD) {
			leave_unread(ctx, end, action, &e, note);
			break;
		}
		if (v == VIEW_GONE) {
			buf_addf(note, "already deleted");
			break;
		}
		if (v == VIEW_NOT_OURS) {
			launch_progress_note(ctx->prog, "%s %s/%s now has another uid: not the job this "
					     "step created, left as is", ctx->kind, ctx->ns, ctx->name);
			buf_addf(note, "left as is: the job of that name is not ours (another uid)");
			break;
		}
		if (launch_cleanup(h, ctx, action, deadline, note) != CLEANUP_CHANGED)
			break;
		if (round + 1 == ENDING_ROUNDS_MAX) {
			launch_progress_note(ctx->prog, "warning: %s %s/%s changed under every attempt "
					     "to %s it (%d in a row): it is left as is", ctx->kind,
					     ctx->ns, ctx->name, verb_of(action), ENDING_ROUNDS_MAX);
			buf_addf(note, "left as is: it changed under every attempt to %s it",
				 verb_of(action));
			break;
		}
		/* the job is not what we decided on: look again, decide again */
		launch_progress_note(ctx->prog, "%s %s/%s changed since it was seen: looking again "
				     "before acting", ctx->kind, ctx->ns, ctx->name);
		err_clear(&e);
		v = look(h, ctx, deadline, &e);
	}
}

void launch_ending_report(const struct launch_ctx *ctx, const struct launch_outcome_end *out)
{
	if (launch_outcome_def(out->row)->error_line) {
		fprintf(stderr, "error: %s\n", out->message);
		return;
	}
	if (ctx->o->quiet)
		return;
	/* "Timeout: --timeout of 60s reached", never "Timeout: Timeout: ..." */
	int same = !strcmp(out->reason, out->state);
	launch_progress_note(ctx->prog, "%s%s%s%s%s (exit %d)", out->state,
			     out->reason[0] && !same ? ": " : "", same ? "" : out->reason,
			     out->message[0] ? ": " : "", out->message, out->exit_code);
}
