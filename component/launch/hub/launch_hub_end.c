/*
 * launch_hub_end.c - the hub after the wait: what the ending
 * (launch_ending.c) and the cleanup (launch_cleanup.c) ask of it and tell
 * it. They report what they saw (a fresh look at the job, a 404); the hub
 * decides what it changes (a timeout whose job had finished meanwhile is
 * finished; a deletion is confirmed by the job watch or the 404).
 */
#include "launch_hub_int.h"
#include "decide/launch_outcome.h"

/* ---- for the ending ------------------------------------------------------ */

/*
 * Why the wait ended, as a cause for the outcome table (launch_outcome.h):
 * the row and the words. The table decides the state and the exit code.
 */
void launch_hub_cause(const struct launch_hub *h, struct launch_cause *c)
{
	const struct launch_why *why = &h->why;
	const struct launch_verdict *v = &h->v;
	const struct launch_ctx *ctx = h->ctx;
	const struct launch_opts *o = ctx->o;
	const char *phase = why->queued ? "Queued" : v->phase;
	/* queued by Kueue: no condition of that name */
	const char *reason = why->queued ? NULL : v->reason;
	const char *message = why->queued ? "" : v->message;

	switch (why->end) {
	case END_FINISHED:
		launch_cause_set(c, v->succeeded ? LAUNCH_OUTCOME_SUCCEEDED : LAUNCH_OUTCOME_FAILED,
				 reason, "%s", message);
		return;
	case END_TIMEOUT:
		launch_cause_set(c, LAUNCH_OUTCOME_TIMEOUT, NULL,
				 "--timeout of %.0fs reached while the job was %s", o->timeout_s, phase);
		return;
	case END_SIGNAL:
		launch_cause_set(c, LAUNCH_OUTCOME_CANCELLED, NULL,
				 "cancelled by signal %d while the job was %s", why->signo,
				 h->job ? phase : "being created");
		return;
	case END_DELETED:
		launch_cause_set(c, LAUNCH_OUTCOME_DELETED, NULL,
				 "%s %s/%s was deleted by someone else while it was %s",
				 ctx->kind, ctx->ns, ctx->name, phase);
		return;
	case END_STUCK:
		if (why->stuck_permanent)
			launch_cause_set(c, LAUNCH_OUTCOME_STUCK, why->stuck_reason, "%s",
					 why->stuck_msg);
		else
			launch_cause_set(c, LAUNCH_OUTCOME_STUCK, why->stuck_reason,
					 "%s (for more than %.0fs)", why->stuck_msg, o->fail_fast_s);
		return;
	case END_QUEUE_TIMEOUT:
		launch_cause_set(c, LAUNCH_OUTCOME_QUEUE_TIMEOUT, NULL,
				 "--queue-timeout of %.0fs reached while the job was queued in %s/%s: %s",
				 o->queue_timeout_s, ctx->ns, ctx->queue, why->queue_why);
		return;
	case END_QUEUE_INADMISSIBLE:	/* waiting would not help; a smaller request or
					 * another queue would (launch_kueue_reasons.c) */
		launch_cause_set(c, LAUNCH_OUTCOME_QUEUE_INADMISSIBLE, NULL,
				 "Kueue will not admit the %s in %s/%s (%s for %.0fs): %s; ask for "
				 "fewer GPUs or workers, or use another queue (--local-queue)",
				 ctx->kind, ctx->ns, ctx->queue, why->kueue_reason,
				 o->queue_hopeless_s, why->kueue_msg);
		return;
	case END_API:
	case END_NONE:
		break;
	}
	launch_cause_set(c, LAUNCH_OUTCOME_API_ERROR, why->err.reason[0] ? why->err.reason :
			 "WatchFailed", "lost track of %s %s/%s: %s", ctx->kind, ctx->ns, ctx->name,
			 why->err.msg[0] ? why->err.msg : "the watch ended");
}

int launch_hub_finished_meanwhile(struct launch_hub *h)
{
	if (!launch_end_unseen(h->why.end) || !h->v.terminal)
		return 0;
	h->why.end = END_FINISHED;
	return 1;
}

void launch_hub_drain_report(struct launch_hub *h)
{
	struct buf who = BUF_INIT;
	int n;

	if (h->why.end != END_FINISHED)
		return;
	n = workers_incomplete(h->workers, &h->v, &who);
	buf_reset(&h->incomplete);
	if (n) {
		buf_addf(&h->incomplete, "%s: %s", who.data, h->why.signo ?
			 "the wait for the logs was cut short by a signal" :
			 "the stream broke for good or did not end within --log-drain");
		launch_progress_note(h->ctx->prog, "warning: the log%s of %s %s incomplete: %s",
				     n > 1 ? "s" : "", who.data, n > 1 ? "are" : "is",
				     h->incomplete.data + who.len + 2);
	}
	buf_free(&who);
}

const char *launch_hub_logs_incomplete(const struct launch_hub *h)
{
	return h->incomplete.len ? h->incomplete.data : NULL;
}

void launch_hub_workers_report(const struct launch_hub *h) { workers_report(h->workers); }

int launch_hub_pod_counts(const struct launch_hub *h, struct launch_workers *w)
{
	return workers_count(h->workers, w);
}

void launch_hub_workers_stop(struct launch_hub *h)
{
	workers_stop(h->workers);
}

/* ---- for the cleanup ----------------------------------------------------- */

int launch_hub_watch_job(struct launch_hub *h, struct err *e)
{
	return jobwatch_watching(h->jw) ? 0 : jobwatch_start(h->jw, NULL, NULL, e);
}

void launch_hub_gone(struct launch_hub *h)
{
	h->delete_confirmed = 1;
}

static void on_delete_wait_over(void *ud)
{
	struct launch_hub *h = ud;
	h->delete_timer = NULL;
	launch_loop_wake(h->ctx->loop);
}

/* The wait for the deletion is over: confirmed, out of time, or the job
 * watch that would say it failed for good. */
static int deletion_over(const void *hub)
{
	const struct launch_hub *h = hub;
	return h->delete_confirmed || !h->delete_timer || jobwatch_failed(h->jw);
}

int launch_hub_await_deletion(struct launch_hub *h, double deadline)
{
	struct err e = ERR_INIT;

	if (h->delete_confirmed || !jobwatch_watching(h->jw) || deadline <= kube_now())
		return h->delete_confirmed;
	h->delete_timer = kube_timer_add(h->ctx->c, deadline - kube_now(), on_delete_wait_over, h);
	h->in_delete_wait = 1;
	launch_loop_until(h->ctx->loop, deletion_over, h, &e);
	h->in_delete_wait = 0;
	kube_timer_cancel(h->delete_timer);
	h->delete_timer = NULL;
	err_clear(&e);
	return h->delete_confirmed;
}

/* ---- the end of the run -------------------------------------------------- */

void launch_hub_finish(struct launch_hub *h)
{
	/* what is left of the drain's last window (launch_hub.c, drain_arm) */
	double since = h->drain_from > 0 ? kube_now() - h->drain_from :
		       h->why.decided_at > 0 ? kube_now() - h->why.decided_at : 0;

	double grace = h->signal_at > 0 ? h->signal_at + HUB_SIGNAL_GRACE_S - kube_now() : 0;

	h->phase = RUN_DONE;
	/* after a signal: the lines already read are written within its grace,
	 * unless another signal comes */
	if (h->why.signo)
		launch_stdout_finish(h->ctx->out, grace, &h->signal_again);
	else
		launch_stdout_finish(h->ctx->out, h->ctx->o->log_drain_s - since, &h->why.signo);
}
