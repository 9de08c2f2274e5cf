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

#include "jtree.h"
#include "launch_ending.h"
#include "launch_outputs.h"
#include "launch_run.h"
#include "launch_state.h"

/* Conflicts in a row before we stop deciding again (a job updated faster
 * than we can act on it, e.g. by a controller fighting us). */
#define ENDING_ROUNDS_MAX 5

enum view {
	VIEW_SEEN,	/* st->job is what the server holds (or a terminal object) */
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
static enum view look(struct launch_state *st, double deadline, struct err *e)
{
	cJSON *fresh = NULL;
	const char *uid;

	launch_retry_until(st, deadline);
	if (kube_get(st->c, st->res, st->ns, st->name, &fresh, e)) {
		cJSON_Delete(fresh);
		return e->code == ERR_NOTFOUND ? VIEW_GONE : VIEW_UNREAD;
	}
	uid = jtree_get_string(fresh, "metadata.uid", NULL);
	if (st->uid && *st->uid && uid && strcmp(uid, st->uid) != 0) {
		cJSON_Delete(fresh);	/* re-created by someone else: not ours */
		return VIEW_NOT_OURS;
	}
	cJSON_Delete(st->job);
	st->job = fresh;
	return VIEW_SEEN;
}

/* A wait that did not see the job finish: has it, in fact? */
static int unfinished_end(const struct launch_state *st)
{
	return st->end == END_TIMEOUT || st->end == END_SIGNAL || st->end == END_STUCK ||
	       st->end == END_API || st->end == END_NONE || st->end == END_QUEUE_TIMEOUT;
}

static void finished_meanwhile(struct launch_state *st)
{
	int ok = 0;

	if (!unfinished_end(st) || !launch_judge(st->job, &ok))
		return;
	launch_progress_note(&st->prog, "%s %s/%s had already %s (seen now, the watch was behind): "
			     "that is the outcome; not cancelling it", st->kind, st->ns, st->name,
			     ok ? "succeeded" : "failed");
	st->end = END_FINISHED;
}

/* Fill the result from why the wait ended; return what cleanup to apply. */
static enum launch_cleanup_action judge_end(struct launch_state *st, struct launch_result *r)
{
	const char *phase = st->q.queued ? "Queued" : launch_phase_of(st->job);
	const cJSON *c = launch_condition(st->job, phase, "True");
	int succeeded = 0;

	switch (st->end) {
	case END_FINISHED:
		launch_judge(st->job, &succeeded);
		if (succeeded) {
			launch_result_set(r, "Succeeded", EXIT_SUCCEEDED,
					  jtree_get_string(c, "reason", NULL), "%s",
					  jtree_get_string(c, "message", ""));
			return st->o->delete_after == DELETE_NEVER ? CLEAN_NONE : CLEAN_DELETE;
		}
		launch_result_set(r, "Failed", EXIT_JOB_FAILED, jtree_get_string(c, "reason", NULL),
				  "%s", jtree_get_string(c, "message", ""));
		return st->o->delete_after == DELETE_ALWAYS ? CLEAN_DELETE : CLEAN_NONE;
	case END_TIMEOUT:
		launch_result_set(r, "Timeout", EXIT_TIMEOUT, "Timeout",
				  "--timeout of %.0fs reached while the job was %s",
				  st->o->timeout_s, phase);
		return on_cancel_action(st->o);
	case END_SIGNAL:
		launch_result_set(r, "Cancelled", EXIT_CANCELLED, "Cancelled",
				  "cancelled by signal %d while the job was %s", st->signo,
				  st->job ? phase : "being created");
		return st->job ? on_cancel_action(st->o) : CLEAN_NONE;
	case END_DELETED:
		launch_result_set(r, "Deleted", EXIT_JOB_LOST, "Deleted",
				  "%s %s/%s was deleted by someone else while it was %s",
				  st->kind, st->ns, st->name, phase);
		return CLEAN_NONE;
	case END_STUCK:
		if (st->stuck_permanent)
			launch_result_set(r, "Stuck", EXIT_STUCK, st->stuck_reason, "%s",
					  st->stuck_msg);
		else
			launch_result_set(r, "Stuck", EXIT_STUCK, st->stuck_reason,
					  "%s (for more than %.0fs)", st->stuck_msg,
					  st->o->fail_fast_s);
		return on_cancel_action(st->o);
	case END_QUEUE_TIMEOUT:
		launch_result_set(r, "QueueTimeout", EXIT_QUEUE_TIMEOUT, "QueueTimeout",
				  "--queue-timeout of %.0fs reached while the job was queued in %s/%s: %s",
				  st->o->queue_timeout_s, st->ns, st->q.queue, st->q.why);
		/* the job keeps its place in the queue unless --on-cancel deletes it */
		return st->o->on_cancel == CANCEL_DELETE ? CLEAN_DELETE : CLEAN_NONE;
	case END_API:
	case END_NONE:
		launch_result_set(r, "Error", EXIT_API_ERROR,
				  st->end_err.reason[0] ? st->end_err.reason : "WatchFailed",
				  "lost track of %s %s/%s: %s", st->kind, st->ns, st->name,
				  st->end_err.msg[0] ? st->end_err.msg : "the watch ended");
		return on_cancel_action(st->o);
	}
	return CLEAN_NONE;
}

/* A TrainJob's status counts child Jobs, not pods: count the pods we saw. */
static void count_from_pods(const struct launch_state *st, struct launch_result *r)
{
	struct launch_workers w;

	if (!st->job || launch_workers_of(st->job, &w) || !st->npods)
		return;
	launch_workers_count(st, &w);
	r->pod_counts = 1;
	r->counted.active = w.active;
	r->counted.succeeded = w.succeeded;
	r->counted.failed = w.failed;
}

static const char *verb_of(enum launch_cleanup_action a)
{
	return a == CLEAN_SUSPEND ? "suspend" : "delete";
}

/* No licence to act: say so, once, in stderr and in the outputs' note. */
static void leave_unread(struct launch_state *st, struct launch_result *r,
			 enum launch_cleanup_action action, const struct err *e, struct buf *note)
{
	size_t n = strlen(r->message);

	launch_progress_note(&st->prog, "warning: could not read %s %s/%s within %.0fs (%s): it is "
			     "left as is, not %sd on a guess; look at it with `kubectl get %s -n %s %s`",
			     st->kind, st->ns, st->name, cleanup_bound(st->o), e->msg, verb_of(action),
			     st->res->plural, st->ns, st->name);
	buf_addf(note, "left as is: its state could not be read (%s)", e->msg);
	snprintf(r->message + n, sizeof(r->message) - n, "%s",
		 " (as last seen; its state could not be read since, so it was left as is)");
}

void launch_ending(struct launch_state *st, struct launch_result *r, struct buf *note)
{
	double deadline = kube_now() + cleanup_bound(st->o);
	enum view v = VIEW_SEEN;
	struct err e = ERR_INIT;
	int ok = 0;

	st->phase = RUN_CLEANING;	/* a further signal must not cancel the look */
	if (st->job && st->name && unfinished_end(st) && !kube_err_tls_untrusted(&st->end_err)) {
		v = look(st, deadline, &e);
		if (v == VIEW_SEEN)
			finished_meanwhile(st);
	}
	launch_drain_report(st);
	if (st->end != END_FINISHED || !launch_judge(st->job, &ok) || !ok)
		launch_workers_report(st);
	for (int round = 0;; round++) {
		enum launch_cleanup_action action = judge_end(st, r);

		if (round == 0) {
			count_from_pods(st, r);
			launch_workers_stop(st);
		}
		if (action == CLEAN_NONE)
			break;
		if (v == VIEW_UNREAD) {
			leave_unread(st, r, action, &e, note);
			break;
		}
		if (v == VIEW_GONE) {
			buf_addf(note, "already deleted");
			break;
		}
		if (v == VIEW_NOT_OURS) {
			launch_progress_note(&st->prog, "%s %s/%s now has another uid: not the job this "
					     "step created, left as is", st->kind, st->ns, st->name);
			buf_addf(note, "left as is: the job of that name is not ours (another uid)");
			break;
		}
		if (launch_cleanup(st, action, deadline, note) != CLEANUP_CHANGED)
			break;
		if (round + 1 == ENDING_ROUNDS_MAX) {
			launch_progress_note(&st->prog, "warning: %s %s/%s changed under every attempt "
					     "to %s it (%d in a row): it is left as is", st->kind,
					     st->ns, st->name, verb_of(action), ENDING_ROUNDS_MAX);
			buf_addf(note, "left as is: it changed under every attempt to %s it",
				 verb_of(action));
			break;
		}
		/* the job is not what we decided on: look again, decide again */
		launch_progress_note(&st->prog, "%s %s/%s changed since it was seen: looking again "
				     "before acting", st->kind, st->ns, st->name);
		err_clear(&e);
		v = look(st, deadline, &e);
		if (v == VIEW_SEEN)
			finished_meanwhile(st);
	}
}

void launch_ending_report(struct launch_state *st, const struct launch_result *r)
{
	if (r->exit_code == EXIT_API_ERROR || r->exit_code == EXIT_BAD_INPUT) {
		fprintf(stderr, "error: %s\n", r->message);
		return;
	}
	if (st->o->quiet)
		return;
	/* "Timeout: --timeout of 60s reached", never "Timeout: Timeout: ..." */
	int same = !strcmp(r->reason, r->state);
	launch_progress_note(&st->prog, "%s%s%s%s%s (exit %d)", r->state,
			     r->reason[0] && !same ? ": " : "", same ? "" : r->reason,
			     r->message[0] ? ": " : "", r->message, r->exit_code);
}
