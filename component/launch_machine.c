/*
 * launch_machine.c - the hub of the launch state machine: the one place that
 * changes what the run is doing (st->end, st->draining, the wait's timers)
 * and decides what an observation means.
 *
 * The spokes observe and act, each on its own part of the state:
 *
 *   launch_watch.c    the job watch and the event watch
 *   launch_workers.c  the worker pods and their log follows
 *   launch_cleanup.c  delete / suspend / leave
 *
 * A spoke calls no other spoke and nothing of this file by name: it reports
 * through the callbacks in st->hub (struct launch_hub, launch_state.h),
 * which launch_machine_init() points here. The hub calls the spokes'
 * functions and reads their answers (launch_workers_drained() and
 * friends). So every transition is written here once: a job turned
 * terminal -> settle the logs and drain or stop; a pod changed -> progress,
 * fail-fast, drain; the job vanished -> finished, deleted, or the
 * cleanup's confirmation.
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

static void launch_stuck_check(struct launch_state *st);
static void queue_check(struct launch_state *st);

static void launch_stop(struct launch_state *st, enum launch_end why)
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
static void launch_show_progress(struct launch_state *st)
{
	struct launch_workers w;
	const char *phase;

	if (!st->job || st->phase != RUN_WAITING)
		return;
	phase = launch_phase_of(st->job);
	/* held by Kueue: the queued lines say it (queue_check) */
	if (st->q.queued || (st->q.queue && !strcmp(phase, "Suspended")))
		return;
	if (!launch_workers_of(st->job, &w)) {
		launch_workers_count(st, &w);
		if ((w.active || w.succeeded || w.failed) &&
		    (!strcmp(phase, "Pending") || !strcmp(phase, "Created")))
			phase = "Running";
	}
	launch_progress_counts(&st->prog, phase, &w);
}

/* Was the job, as last seen, judged Failed? (the workers' settle lets
 * survivors go only then) */
static int job_failed(const struct launch_state *st)
{
	int ok = 0;
	return launch_judge(st->job, &ok) && !ok;
}

/* hub->job_seen: the job watch delivered our job (not its deletion). */
static void job_seen(struct launch_state *st, const cJSON *obj)
{
	cJSON_Delete(st->job);
	st->job = cJSON_Duplicate(obj, 1);
	queue_check(st);
	launch_trainer_seen(st);
	launch_show_progress(st);
	launch_stuck_check(st);
	if (!launch_judge(st->job, NULL) || st->draining)
		return;
	st->draining = 1;
	st->decided_at = kube_now();
	launch_workers_settle(st, job_failed(st));
	if (launch_workers_drained(st) || st->o->log_drain_s <= 0)
		launch_stop(st, END_FINISHED);
	else
		st->drain_timer = kube_timer_add(st->c, st->o->log_drain_s, on_drain_timeout, st);
}

/*
 * Stop the wait for the deletion - only while we are in it: stopping the
 * loop during a blocking call (the DELETE itself, whose DELETED event can
 * arrive before its answer) would cancel that call instead.
 */
static void cleanup_wake(struct launch_state *st)
{
	if (st->in_delete_wait)
		kube_loop_stop(st->c);
}

/* hub->job_deleted: the job watch saw our job's DELETED event. */
static void job_deleted(struct launch_state *st, const cJSON *obj)
{
	st->delete_confirmed = 1;
	if (st->phase == RUN_CLEANING) {
		cleanup_wake(st);
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

/* hub->job_absent: the job watch's first list did not hold our job. */
static void job_absent(struct launch_state *st)
{
	if (st->phase == RUN_WAITING) {
		launch_stop(st, END_DELETED);
	} else if (st->phase == RUN_CLEANING) {
		st->delete_confirmed = 1;
		cleanup_wake(st);
	}
}

/* hub->job_watch_failed: the job watch ended for good. */
static void job_watch_failed(struct launch_state *st, const struct err *e)
{
	st->job_watch_failed = 1;
	if (e)
		st->end_err = *e;
	if (st->phase == RUN_CLEANING)
		cleanup_wake(st);
	else
		launch_stop(st, END_API);
}

/* hub->logs_changed: a follow ended, resumed, or may be cut; after the
 * verdict, the wait ends once every worker's log is complete. */
static void logs_changed(struct launch_state *st)
{
	if (!st->draining)
		return;
	launch_workers_settle(st, job_failed(st));
	if (launch_workers_drained(st))
		launch_stop(st, END_FINISHED);
}

/* hub->pods_changed: the pod watch delivered a worker pod. */
static void pods_changed(struct launch_state *st)
{
	launch_show_progress(st);
	launch_stuck_check(st);
	logs_changed(st);	/* a pod the drain was waiting to see */
}

/* hub->job_watch: the cleanup needs the job watch to see the deletion. */
static int job_watch(struct launch_state *st, struct err *e)
{
	return st->job_watch ? 0 : launch_start_job_watch(st, e);
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

/* ---- fail-fast ----------------------------------------------------------- */

/* The current stuck cause, or 0. Creation-failure events count only while
 * the job has not got as far as Running. */
static int stuck_cause(struct launch_state *st, char *reason, size_t rn, char *msg, size_t mn)
{
	const struct launch_pod *p = launch_workers_stuck(st);
	const char *phase = launch_phase_of(st->job);

	if (st->q.queued)	/* waiting for quota is not being stuck */
		return 0;
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

static void launch_stuck_check(struct launch_state *st)
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

/* --timeout bounds the run: the time since the start less the time queued. */
static void arm_deadline(struct launch_state *st)
{
	double left;

	if (st->o->timeout_s <= 0 || st->deadline)
		return;
	left = st->o->timeout_s - (launch_now() - st->t0 - launch_queued_seconds(st));
	st->deadline = kube_timer_add(st->c, left > 0 ? left : 0, on_deadline, st);
}

/* ---- queued by Kueue --------------------------------------------------------- */

double launch_queued_seconds(const struct launch_state *st)
{
	return st->q.queued_s + (st->q.queued ? launch_now() - st->q.since : 0);
}

/* "queued 12m05s in NS/Q: why": this wait; after a preemption also the
 * time queued in all (what --queue-timeout bounds). */
static void say_queued(struct launch_state *st)
{
	struct buf d = BUF_INIT, all = BUF_INIT;

	launch_duration(&d, launch_now() - st->q.since);
	if (st->q.admissions) {
		buf_adds(&all, " (");
		launch_duration(&all, launch_queued_seconds(st));
		buf_adds(&all, " in all)");
	}
	launch_progress_note(&st->prog, "queued %s in %s/%s%s: %s", d.data, st->ns, st->q.queue,
			     all.len ? all.data : "", st->q.why);
	buf_free(&d);
	buf_free(&all);
}

static void on_queue_ticker(void *ud)
{
	struct launch_state *st = ud;

	st->q.ticker = NULL;
	if (!st->q.queued || st->phase != RUN_WAITING)
		return;
	say_queued(st);
	st->q.ticker = kube_timer_add(st->c, st->o->queue_every_s, on_queue_ticker, st);
}

static void on_queue_deadline(void *ud)
{
	struct launch_state *st = ud;
	st->q.deadline = NULL;
	launch_stop(st, END_QUEUE_TIMEOUT);
}

static void enter_queue(struct launch_state *st, const char *why)
{
	double left;

	st->q.queued = 1;
	st->q.since = launch_now();
	snprintf(st->q.why, sizeof(st->q.why), "%s", why);
	/* the run's clocks stop: --timeout and the fail-fast grace */
	kube_timer_cancel(st->deadline);
	kube_timer_cancel(st->stuck_timer);
	st->deadline = st->stuck_timer = NULL;
	if (st->q.admissions) {
		char ev[512];
		launch_kueue_evicted(st, ev, sizeof(ev));
		launch_progress_note(&st->prog, "preempted, requeued (%s); the run's clock stops "
				     "until it is admitted again", ev);
	}
	launch_progress_note(&st->prog, "queued in %s/%s: %s", st->ns, st->q.queue, why);
	if (st->o->queue_every_s > 0)
		st->q.ticker = kube_timer_add(st->c, st->o->queue_every_s, on_queue_ticker, st);
	if (st->o->queue_timeout_s > 0) {
		left = st->o->queue_timeout_s - launch_queued_seconds(st);
		st->q.deadline = kube_timer_add(st->c, left > 0 ? left : 0, on_queue_deadline, st);
	}
}

static void leave_queue(struct launch_state *st)
{
	const char *cq = launch_kueue_admitted_by(st);
	struct buf d = BUF_INIT;

	st->q.queued_s += launch_now() - st->q.since;
	st->q.queued = 0;
	kube_timer_cancel(st->q.ticker);
	kube_timer_cancel(st->q.deadline);
	st->q.ticker = st->q.deadline = NULL;
	st->q.admissions++;
	launch_duration(&d, launch_now() - st->q.since);
	if (st->q.admissions > 1) {
		launch_progress_note(&st->prog, "admitted again%s%s after %s in the queue: attempt %d; "
				     "the new workers' logs follow", cq ? " by clusterQueue " : "",
				     cq ? cq : "", d.data, st->q.admissions);
		/* mark the seam in the logs themselves: the lines after it are the
		 * new attempt's (the same stdout the worker lines go to, in order) */
		if (st->o->logs != LOGS_NONE) {
			char seam[128];
			int n = snprintf(seam, sizeof(seam), "[jaxjob] attempt %d: re-admitted after "
					 "preemption; the workers start again\n", st->q.admissions);
			launch_stdout_line(&st->out, -1, seam, (size_t)n);
		}
	}
	else
		launch_progress_note(&st->prog, "admitted%s%s after %s in the queue",
				     cq ? " by clusterQueue " : "", cq ? cq : "", d.data);
	buf_free(&d);
	arm_deadline(st);
	launch_stuck_check(st);
}

/* The job or its Workload changed: held by Kueue, admitted, or still the same? */
static void queue_check(struct launch_state *st)
{
	char why[512];
	int held;

	if (!st->q.queue || st->phase != RUN_WAITING || st->draining)
		return;
	held = launch_kueue_held(st, why, sizeof(why));
	if (held && !st->q.queued)
		enter_queue(st, why);
	else if (!held && st->q.queued)
		leave_queue(st);
	else if (held && strcmp(why, st->q.why)) {	/* a new pending reason: say it now */
		snprintf(st->q.why, sizeof(st->q.why), "%s", why);
		say_queued(st);
		if (st->q.ticker) {	/* and the next repeat a full period later */
			kube_timer_cancel(st->q.ticker);
			st->q.ticker = kube_timer_add(st->c, st->o->queue_every_s, on_queue_ticker, st);
		}
	}
}

/* hub->normal_event: a Normal event about the job (Kueue's are said). */
static int normal_event(struct launch_state *st, const cJSON *ev)
{
	return launch_kueue_event(st, ev);
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
		/* outcome decided: stop writing the last queued log lines
		 * (launch_stdout_finish) and exit */
		kube_loop_stop(st->c);
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

int launch_wait(struct launch_state *st, struct err *e)
{
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
	    launch_events_start(st, e) || launch_kueue_start(st, e)) {
		free(st->watch_from);
		st->watch_from = NULL;
		return -1;
	}
	free(st->watch_from);
	st->watch_from = NULL;
	queue_check(st);	/* created suspended for its queue: queued from the start */
	if (!st->q.queued)
		arm_deadline(st);
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
	kube_timer_cancel(st->q.ticker);
	kube_timer_cancel(st->q.deadline);
	st->q.ticker = st->q.deadline = NULL;
	kube_watch_stop(st->q.watch);
	st->q.watch = NULL;
}

static const struct launch_hub hub = {
	.watch = launch_watch_start,
	.stop = launch_stop,
	.job_seen = job_seen,
	.job_deleted = job_deleted,
	.job_absent = job_absent,
	.job_watch_failed = job_watch_failed,
	.stuck_check = launch_stuck_check,
	.pods_changed = pods_changed,
	.logs_changed = logs_changed,
	.job_watch = job_watch,
	.queue_changed = queue_check,
	.normal_event = normal_event,
};

void launch_machine_init(struct launch_state *st)
{
	st->hub = &hub;
}
