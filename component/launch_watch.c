/*
 * launch_watch.c - the wait: until the judge calls the job finished, the
 * timeout passes, a signal arrives, the job vanishes, or it is stuck.
 *
 * Three watches run on the one loop: the job itself (fieldSelector on its
 * name), its worker pods (launch_workers.c) and the events about the job
 * (FailedCreatePod / FailedCreateService, the only way pod or Service
 * creation failures show: the job just stays Created). Nothing polls: every
 * decision is taken in a callback when the server tells us something, or
 * when one of our timers fires.
 *
 * Fail-fast: a stuck cause (a worker that cannot pull its image or cannot
 * be scheduled, or a creation failure event while the job is not running)
 * arms one timer of --fail-fast-after seconds. When it fires and some cause
 * is still there, the wait ends with END_STUCK; when every cause went away
 * before, the timer is cancelled. So a registry hiccup that resolves itself
 * costs nothing, and a typo in the image name costs the grace period, not
 * the whole --timeout.
 *
 * Finishing: when the job turns terminal, the log follows may still hold
 * the last lines, and a follow cut by an outage may be reconnecting with
 * backoff. We wait until every worker's log is complete
 * (launch_workers_drained: the containers have exited, so the kubelet ends
 * each stream) but at most --log-drain (default 30 s: covers a reconnect
 * after a short API server outage); a SIGTERM cuts the drain short without
 * turning the finished job into a cancelled one. Either way, a worker whose
 * log could not be completed is named in one warning (launch_drain_report):
 * lines are never lost silently.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "launch_state.h"

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

void launch_stop(struct launch_state *st, enum launch_end why)
{
	if (st->phase != RUN_WAITING)
		return;
	if (st->end == END_NONE || (st->end == END_FINISHED && why == END_FINISHED))
		st->end = why;
	kube_loop_stop(st->c);
}

int launch_judge(const cJSON *job, int *succeeded)
{
	struct health_result hr = HEALTH_RESULT_INIT;
	int terminal = 0;

	if (job && health_judge(job, &hr) == 0) {
		terminal = hr.terminal;
		if (succeeded)
			*succeeded = hr.succeeded && !hr.failed;
	}
	health_result_free(&hr);
	return terminal;
}

static void on_drain_timeout(void *ud)
{
	struct launch_state *st = ud;
	st->drain_timer = NULL;
	launch_stop(st, END_FINISHED);
}

/*
 * A JAXJob's status counts its workers; a TrainJob's counts child Jobs, not
 * pods, so for it the counts come from the pods we watch, and "Running" is
 * shown when a worker runs (it has no Running condition).
 */
void launch_show_progress(struct launch_state *st)
{
	struct launch_workers w;
	const char *phase;

	if (!st->job || st->phase != RUN_WAITING)
		return;
	phase = launch_phase_of(st->job);
	if (!launch_workers_of(st->job, &w)) {
		launch_workers_count(st, &w);
		if ((w.active || w.succeeded || w.failed) &&
		    (!strcmp(phase, "Pending") || !strcmp(phase, "Created")))
			phase = "Running";
	}
	launch_progress_counts(&st->prog, phase, &w);
}

static void job_seen(struct launch_state *st, const cJSON *obj)
{
	cJSON_Delete(st->job);
	st->job = cJSON_Duplicate(obj, 1);
	launch_show_progress(st);
	launch_stuck_check(st);
	if (!launch_judge(st->job, NULL) || st->draining)
		return;
	st->draining = 1;
	launch_workers_settle(st);
	if (launch_workers_drained(st) || st->o->log_drain_s <= 0)
		launch_stop(st, END_FINISHED);
	else
		st->drain_timer = kube_timer_add(st->c, st->o->log_drain_s, on_drain_timeout, st);
}

/* After a finished job's wait: say which workers' logs are incomplete. */
void launch_drain_report(struct launch_state *st)
{
	struct buf who = BUF_INIT;
	int n;

	if (st->end != END_FINISHED)
		return;
	n = launch_workers_incomplete(st, &who);
	if (n)
		launch_progress_note(&st->prog, "warning: the log%s of %s %s incomplete: %s",
				     n > 1 ? "s" : "", who.data, n > 1 ? "are" : "is",
				     st->signo ? "the wait for the logs was cut short by a signal" :
				     "the stream broke for good or did not end within --log-drain");
	buf_free(&who);
}

static void on_job_event(void *ud, enum kube_event_type type, const cJSON *obj)
{
	struct launch_state *st = ud;
	const char *uid = jstr(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "uid");

	/* Same name, another object (deleted and re-created by someone): not ours. */
	if (st->uid && uid && strcmp(uid, st->uid) != 0)
		return;
	st->saw_job = 1;
	if (type != KUBE_DELETED) {
		job_seen(st, obj);
		return;
	}
	st->delete_confirmed = 1;
	if (st->phase == RUN_CLEANING) {
		launch_cleanup_wake(st);
		return;
	}
	/* Gone while we waited: finished if its last state was terminal
	 * (ttlSecondsAfterFinished), else deleted by someone else. */
	cJSON_Delete(st->job);
	st->job = cJSON_Duplicate(obj, 1);
	if (launch_judge(st->job, NULL))
		launch_stop(st, END_FINISHED);
	else
		launch_stop(st, END_DELETED);
}

static void on_job_watch_state(void *ud, enum kube_watch_state s, const struct err *e)
{
	struct launch_state *st = ud;

	switch (s) {
	case KUBE_WATCH_SYNCED:
		/* a list after the first (or any, when the watch began at the
		 * create's resourceVersion) is a re-list: a 410 or a recovery */
		if ((st->watch_retry_noted || st->job_lists++ > 0) && !st->job_polling &&
		    st->phase == RUN_WAITING)
			launch_progress_note(&st->prog, "resynced: %s %s/%s listed again",
					     st->kind, st->ns, st->name);
		st->watch_retry_noted = 0;
		/* The first list did not hold our job: gone before we looked. */
		if (!st->saw_job && st->phase == RUN_WAITING)
			launch_stop(st, END_DELETED);
		else if (!st->saw_job && st->phase == RUN_CLEANING) {
			st->delete_confirmed = 1;
			launch_cleanup_wake(st);
		}
		break;
	case KUBE_WATCH_RETRYING:
		if (!st->watch_retry_noted++)
			launch_progress_note(&st->prog, "reconnecting to the API server… (%s)",
					     e ? e->msg : "?");
		break;
	case KUBE_WATCH_RESUMED:
		if (st->watch_retry_noted && st->phase == RUN_WAITING)
			launch_progress_note(&st->prog, "reconnected: watching %s/%s again from "
					     "where it stopped", st->ns, st->name);
		st->watch_retry_noted = 0;
		break;
	case KUBE_WATCH_POLLING:
		st->job_polling = 1;
		if (!st->deny.watch_job)	/* else said before the create */
			launch_progress_note(&st->prog, "warning: watching %s is forbidden; "
				     "polling instead (grant the watch verb)", st->res->plural);
		break;
	case KUBE_WATCH_FAILED:
		st->job_watch_failed = 1;
		if (e)
			st->end_err = *e;
		if (st->phase == RUN_CLEANING)
			launch_cleanup_wake(st);
		else
			launch_stop(st, END_API);
		break;
	}
}

/* ---- events: creation failures that never become conditions ------------ */

static int creation_failure(const char *reason)
{
	static const char *const reasons[] = {
		"FailedCreatePod", "FailedCreateService",	/* training operator */
		"TrainJobResourcesCreationFailed",		/* Trainer v2 */
	};
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strcmp(reason, reasons[i]) == 0)
			return 1;
	return 0;
}

/*
 * A creation failure that no retry can heal: the API refused the object
 * itself - a 422 validation error ("... is invalid: ..."), or an admission
 * denial (a webhook that "denied the request", Pod Security). The operator
 * retries for ever with the same answer, so waiting --fail-fast-after for
 * it is waste. A quota ("exceeded quota"), a timeout or an unreachable
 * webhook may clear up: those keep the bounded grace.
 */
static int permanent_failure(const char *msg)
{
	return strstr(msg, " is invalid") || strstr(msg, "denied the request") ||
	       strstr(msg, "violates PodSecurity");
}

static void on_job_k8s_event(void *ud, enum kube_event_type type, const cJSON *ev)
{
	struct launch_state *st = ud;
	const char *reason = jstr(ev, "reason"), *etype = jstr(ev, "type");
	const char *msg = jstr(ev, "message") ? jstr(ev, "message") : "";
	const cJSON *count = cJSON_GetObjectItemCaseSensitive(ev, "count");
	int n = cJSON_IsNumber(count) && count->valueint > 0 ? count->valueint : 1;

	if (type == KUBE_DELETED || !reason || !etype || strcmp(etype, "Warning") != 0)
		return;
	if (!creation_failure(reason))
		return;
	/* the same failure again (the server counts repeats in one event, the
	 * operator may also send new ones): one line, counted */
	if (strcmp(st->event_stuck, reason) == 0 && strncmp(st->event_stuck_msg, msg,
							    sizeof(st->event_stuck_msg) - 1) == 0) {
		st->event_stuck_count = n > st->event_stuck_count ? n : st->event_stuck_count + 1;
		return;
	}
	snprintf(st->event_stuck, sizeof(st->event_stuck), "%s", reason);
	snprintf(st->event_stuck_msg, sizeof(st->event_stuck_msg), "%s", msg);
	st->event_stuck_count = n;
	launch_progress_note(&st->prog, "warning: %s: %s", reason, st->event_stuck_msg);
	if (permanent_failure(msg) && st->phase == RUN_WAITING && !st->draining) {
		snprintf(st->stuck_reason, sizeof(st->stuck_reason), "%s", reason);
		snprintf(st->stuck_msg, sizeof(st->stuck_msg), "%s (event %s: the API rejects it, "
			 "retrying cannot help)", st->event_stuck_msg, reason);
		st->stuck_permanent = 1;
		launch_stop(st, END_STUCK);
		return;
	}
	launch_stuck_check(st);
}

static void on_event_watch_state(void *ud, enum kube_watch_state s, const struct err *e)
{
	struct launch_state *st = ud;
	if (s == KUBE_WATCH_FAILED)
		launch_progress_note(&st->prog, "warning: cannot watch events: %s "
				     "(creation failures are not detected early)", e ? e->msg : "?");
}

static int start_event_watch(struct launch_state *st, struct err *e)
{
	struct buf sel = BUF_INIT;

	if (st->deny.events)	/* said before the create */
		return 0;
	buf_addf(&sel, "involvedObject.kind=%s,involvedObject.name=%s", st->kind, st->name);
	st->event_watch = launch_watch_start(st, &KUBE_EVENT, NULL, sel.data, on_job_k8s_event,
					     on_event_watch_state, e);
	buf_free(&sel);
	return st->event_watch ? 0 : -1;
}

/* ---- fail-fast ----------------------------------------------------------- */

/* The current stuck cause, or 0. Creation-failure events count only while
 * the job has not got as far as Running. */
static int stuck_cause(struct launch_state *st, char *reason, size_t rn, char *msg, size_t mn)
{
	const struct launch_pod *p = launch_workers_stuck(st);
	const char *phase = launch_phase_of(st->job);

	if (p) {
		snprintf(reason, rn, "%s", p->stuck);
		snprintf(msg, mn, "worker-%d (%s): %s%s%s", p->index, p->name, p->stuck,
			 p->stuck_msg[0] ? ": " : "", p->stuck_msg);
		return 1;
	}
	if (st->event_stuck[0] && (strcmp(phase, "Created") == 0 || strcmp(phase, "Pending") == 0)) {
		snprintf(reason, rn, "%s", st->event_stuck);
		if (st->event_stuck_count > 1)
			snprintf(msg, mn, "%s (event %s, %d times)", st->event_stuck_msg,
				 st->event_stuck, st->event_stuck_count);
		else
			snprintf(msg, mn, "%s (event %s)", st->event_stuck_msg, st->event_stuck);
		return 1;
	}
	return 0;
}

static void on_stuck_timer(void *ud)
{
	struct launch_state *st = ud;

	st->stuck_timer = NULL;
	if (stuck_cause(st, st->stuck_reason, sizeof(st->stuck_reason),
			st->stuck_msg, sizeof(st->stuck_msg)))
		launch_stop(st, END_STUCK);
}

void launch_stuck_check(struct launch_state *st)
{
	char reason[64], msg[768];
	int stuck;

	if (st->phase != RUN_WAITING || st->o->fail_fast_s <= 0)
		return;
	stuck = stuck_cause(st, reason, sizeof(reason), msg, sizeof(msg));
	if (stuck && !st->stuck_timer) {
		launch_progress_note(&st->prog, "%s; failing in %.0fs unless it recovers",
				     msg, st->o->fail_fast_s);
		st->stuck_timer = kube_timer_add(st->c, st->o->fail_fast_s, on_stuck_timer, st);
	} else if (!stuck && st->stuck_timer) {
		launch_progress_note(&st->prog, "recovered");
		kube_timer_cancel(st->stuck_timer);
		st->stuck_timer = NULL;
	}
}

/* ---- timeout and signals -------------------------------------------------- */

static void on_deadline(void *ud)
{
	struct launch_state *st = ud;
	st->deadline = NULL;
	launch_stop(st, END_TIMEOUT);
}

static void on_signal(void *ud, int signo)
{
	struct launch_state *st = ud;

	st->signo = signo;
	if (st->phase == RUN_WAITING && st->draining) {
		/* the job has finished: its outcome stands, stop waiting for logs */
		launch_progress_note(&st->prog, "%s received: not waiting for the rest of the logs",
				     signo == SIGINT ? "SIGINT" : "SIGTERM");
		launch_stop(st, END_FINISHED);
		return;
	}
	switch (st->phase) {
	case RUN_CREATING:
	case RUN_WAITING:
		launch_progress_note(&st->prog, "%s received: cancelling",
				     signo == SIGINT ? "SIGINT" : "SIGTERM");
		if (st->end == END_NONE || st->end == END_FINISHED)
			st->end = END_SIGNAL;
		/* ends the wait, or cancels the blocking create/get in flight
		 * (ERR_CANCELLED); neither lingers to cancel the cleanup */
		kube_loop_stop(st->c);
		kube_loop_cancel_call(st->c);
		break;
	case RUN_CLEANING:
		/* Finish what protects the cluster; the deadline is bounded. A
		 * further signal does not abort the cleanup either: only the
		 * kubelet's SIGKILL at the end of the grace period does. */
		launch_progress_note(&st->prog, "signal received during cleanup: finishing it first");
		if (st->end == END_NONE)
			st->end = END_SIGNAL;
		break;
	case RUN_DONE:
		break;
	}
}

int launch_catch_signals(struct launch_state *st, struct err *e)
{
	return kube_loop_catch_signals(st->c, on_signal, st, e);
}

/* ---- the wait ------------------------------------------------------------ */

struct kube_watch *launch_watch_start(struct launch_state *st,
				      const struct kube_resource *res,
				      const char *label_sel, const char *field_sel,
				      kube_event_fn *on_event, kube_watch_state_fn *on_state,
				      struct err *e)
{
	struct kube_watch_opts wo;

	memset(&wo, 0, sizeof(wo));
	wo.res = res;
	wo.ns = st->ns;
	wo.sel.label_selector = label_sel;
	wo.sel.field_selector = field_sel;
	wo.on_event = on_event;
	wo.on_state = on_state;
	wo.ud = st;
	if (st->watch_from) {	/* right after our create: nothing older to list */
		wo.resource_version = st->watch_from;
		if (res == st->res)
			wo.known = st->job;
	}
	return kube_watch_start(st->c, &wo, e);	/* copies the options */
}

int launch_start_job_watch(struct launch_state *st, struct err *e)
{
	struct buf sel = BUF_INIT;

	buf_addf(&sel, "metadata.name=%s", st->name);
	st->job_watch = launch_watch_start(st, st->res, NULL, sel.data, on_job_event,
					   on_job_watch_state, e);
	buf_free(&sel);
	return st->job_watch ? 0 : -1;
}

int launch_wait(struct launch_state *st, struct err *e)
{
	double left;

	st->phase = RUN_WAITING;
	if (st->end != END_NONE)	/* a signal arrived during create */
		return 0;
	/*
	 * The request floor: after our own create, the job, its pods and its
	 * events are watched from the create's resourceVersion - the answer is
	 * the job as of then, and no pod or event of it can be older - so no
	 * LIST is sent. A re-attach, a 410 or a resync lists as usual.
	 */
	if (st->watch_from) {
		st->saw_job = 1;
		st->pods_synced = 1;
		st->job_lists = 1;	/* no initial list: every list is a re-list */
	}
	if (launch_start_job_watch(st, e) || launch_workers_start(st, e) ||
	    start_event_watch(st, e)) {
		free(st->watch_from);
		st->watch_from = NULL;
		return -1;
	}
	free(st->watch_from);
	st->watch_from = NULL;
	if (st->o->timeout_s > 0) {
		left = st->o->timeout_s - (launch_now() - st->t0);
		st->deadline = kube_timer_add(st->c, left > 0 ? left : 0, on_deadline, st);
	}
	if (kube_loop_run(st->c, e))
		return -1;
	if (st->end == END_NONE)	/* nothing left that could end it */
		st->end = END_API;
	return 0;
}

/* Stop everything the wait started except the job watch (cleanup uses it). */
void launch_wait_done(struct launch_state *st)
{
	kube_timer_cancel(st->deadline);
	kube_timer_cancel(st->stuck_timer);
	kube_timer_cancel(st->drain_timer);
	st->deadline = st->stuck_timer = st->drain_timer = NULL;
	kube_watch_stop(st->event_watch);
	st->event_watch = NULL;
}
