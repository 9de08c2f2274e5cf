/*
 * launch_hub.c - the hub of a launch run (launch_hub.h): the one place that
 * changes what the run is doing (its phase, why the wait ended, the
 * draining, the wait's timers, the job as last seen) and decides what an
 * observation means.
 *
 * The spokes observe and act, each on its own part of the state:
 *
 *   launch_jobwatch.c    the job watch and the event watch
 *   launch_workers.c  the worker pods and their log follows (launch_follow.c)
 *   launch_kueue.c    the job's Kueue Workload (the clocks: launch_hub_clock.c)
 *
 * A spoke calls no other spoke and nothing of this file by name: it reports
 * through its report table (the *_reports structs below), and keeps its
 * state to itself. The hub calls the spokes' functions and reads their
 * answers (workers_drained() and friends). So every transition is written here
 * once: a job turned
 * terminal -> settle the logs and drain or stop; a pod changed -> progress,
 * fail-fast, drain; the job vanished -> finished, deleted, or the
 * cleanup's confirmation. Every job object is judged once, when the hub
 * takes it (take_job): everything after reads that verdict.
 *
 * The clocks (--timeout, the fail-fast grace, Kueue's queue) are in
 * launch_hub_clock.c, which reports to this file through its table as a
 * spoke does (clock_reports); what the ending and the cleanup ask of the hub after
 * the wait, in launch_hub_end.c.
 *
 * Finishing: when the job turns terminal, the log follows may still hold
 * the last lines, and a follow cut by an outage may be reconnecting with
 * backoff. We wait until every worker's log is complete
 * (workers_drained: the containers have exited, so the kubelet ends
 * each stream) but at most --log-drain (default 30 s: covers a reconnect
 * after a short API server outage) without progress: the window starts
 * again whenever a finished worker's log moved on (a line or its end,
 * workers_progress), since a busy server delivering 1,000 logs at its own
 * pace is not a broken one (tests/suites/93-fault-matrix-scale-fast.sh
 * lost 85-705 logs to a window counted from the verdict on a loaded
 * machine). Only finished workers count: their logs are finite, so the
 * drain ends. A SIGTERM cuts the drain short without
 * turning the finished job into a cancelled one. Either way, a worker whose
 * log could not be completed is named in one warning (launch_hub_drain_report):
 * lines are never lost silently.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "launch_hub_int.h"

static void hub_stop(struct launch_hub *h, enum launch_end why)
{
	if (h->phase != RUN_WAITING)
		return;
	h->stopped = 1;
	if (h->why.end == END_NONE || (h->why.end == END_FINISHED && why == END_FINISHED))
		h->why.end = why;
	launch_loop_wake(h->ctx->loop);
}

/* Every job object the hub keeps is judged here, once. */
static void take_job(struct launch_hub *h, cJSON *job)
{
	cJSON_Delete(h->job);
	h->job = job;
	launch_verdict_of(job, &h->v);
}

static void on_drain_timeout(void *ud);

/* The drain's window, from now. */
static void drain_arm(struct launch_hub *h)
{
	h->drain_from = kube_now();
	h->drain_mark = workers_progress(h->workers);
	h->drain_timer = kube_timer_add(h->ctx->c, h->ctx->o->log_drain_s, on_drain_timeout, h);
}

/* --log-drain has passed since the window began: over, unless the logs
 * moved on meanwhile (then the window starts again from now). */
static void on_drain_timeout(void *ud)
{
	struct launch_hub *h = ud;
	h->drain_timer = NULL;
	if (workers_progress(h->workers) != h->drain_mark)
		drain_arm(h);
	else
		hub_stop(h, END_FINISHED);
}

/*
 * A JAXJob's status counts its workers; a TrainJob's counts child Jobs, not
 * pods, so for it the counts come from the pods we watch, and "Running" is
 * shown when a worker runs (it has no Running condition).
 */
static void show_progress(struct launch_hub *h)
{
	struct launch_workers w;
	const char *phase;

	if (!h->job || h->phase != RUN_WAITING)
		return;
	phase = h->v.phase;
	/* held by Kueue: the queued lines say it (hub_queue_check) */
	if (h->why.queued || (h->ctx->queue && !strcmp(phase, "Suspended")))
		return;
	w = h->v.w;
	if (!h->v.counted) {
		workers_count(h->workers, &w);
		if ((w.active || w.succeeded || w.failed) &&
		    (!strcmp(phase, "Pending") || !strcmp(phase, "Created")))
			phase = "Running";
	}
	launch_progress_counts(h->ctx->prog, phase, &w);
}

/* The job watch delivered our job (not its deletion). */
static void job_seen(void *hub, const cJSON *obj)
{
	struct launch_hub *h = hub;
	const struct launch_ctx *ctx = h->ctx;

	take_job(h, cJSON_Duplicate(obj, 1));
	hub_queue_check(h);
	launch_trainer_seen(&h->trainer, ctx, h->job);
	show_progress(h);
	hub_stuck_check(h);
	if (!h->v.terminal || h->draining)
		return;
	h->draining = 1;
	h->why.decided_at = kube_now();
	workers_settle(h->workers, &h->v);
	if (workers_drained(h->workers, &h->v) || ctx->o->log_drain_s <= 0)
		hub_stop(h, END_FINISHED);
	else
		drain_arm(h);
}

/*
 * Stop the wait for the deletion - only while we are in it: stopping the
 * loop during a blocking call (the DELETE itself, whose DELETED event can
 * arrive before its answer) would cancel that call instead.
 */
static void cleanup_wake(struct launch_hub *h)
{
	if (h->in_delete_wait)
		launch_loop_wake(h->ctx->loop);
}

/* The job watch saw our job's DELETED event. */
static void job_deleted(void *hub, const cJSON *obj)
{
	struct launch_hub *h = hub;

	h->delete_confirmed = 1;
	if (h->phase == RUN_CLEANING) {
		cleanup_wake(h);
		return;
	}
	/* Gone while we waited: finished if its last state was terminal
	 * (ttlSecondsAfterFinished), else deleted by someone else. */
	take_job(h, cJSON_Duplicate(obj, 1));
	hub_stop(h, h->v.terminal ? END_FINISHED : END_DELETED);
}

/* The job watch's first list did not hold our job. */
static void job_absent(void *hub)
{
	struct launch_hub *h = hub;

	if (h->phase == RUN_WAITING) {
		hub_stop(h, END_DELETED);
	} else if (h->phase == RUN_CLEANING) {
		h->delete_confirmed = 1;
		cleanup_wake(h);
	}
}

/* The job watch ended for good. */
static void job_watch_failed(void *hub, const struct err *e)
{
	struct launch_hub *h = hub;

	if (e)
		h->why.err = *e;
	if (h->phase == RUN_CLEANING)
		cleanup_wake(h);
	else
		hub_stop(h, END_API);
}

/* A creation failure event; one the API can never accept ends the wait at
 * once, one that may clear up is fail-fast's. */
static void creation_failure(void *hub, int permanent)
{
	struct launch_hub *h = hub;
	const char *msg, *reason = jobwatch_creation_failure(h->jw, &msg, NULL);

	if (permanent && reason && h->phase == RUN_WAITING && !h->draining) {
		snprintf(h->why.stuck_reason, sizeof(h->why.stuck_reason), "%s", reason);
		snprintf(h->why.stuck_msg, sizeof(h->why.stuck_msg), "%s (event %s: the API "
			 "rejects it, retrying cannot help)", msg, reason);
		h->why.stuck_permanent = 1;
		hub_stop(h, END_STUCK);
		return;
	}
	hub_stuck_check(h);
}

static int waiting(void *hub)
{
	const struct launch_hub *h = hub;
	return h->phase == RUN_WAITING;
}

/* A follow ended, resumed, or may be cut; after the verdict, the wait ends
 * once every worker's log is complete. */
static void logs_changed(void *hub)
{
	struct launch_hub *h = hub;

	if (!h->draining)
		return;
	workers_settle(h->workers, &h->v);
	if (workers_drained(h->workers, &h->v))
		hub_stop(h, END_FINISHED);
}

/* The pod watch delivered a worker pod. */
static void pods_changed(void *hub)
{
	struct launch_hub *h = hub;

	show_progress(h);
	hub_stuck_check(h);
	logs_changed(h);	/* a pod the drain was waiting to see */
}

/* The job's Workload changed: and its place in the queue? */
static void queue_changed(void *hub)
{
	struct launch_hub *h = hub;

	hub_queue_check(h);
	if (h->why.queued)
		qpos_look(h->qpos, kueue_workload_name(h->kueue));
}

/* A new place in the queue was seen. */
static void position_changed(void *hub)
{
	hub_queue_position(hub);
}

static const struct jobwatch_reports jobwatch_reports = {
	.seen = job_seen,
	.deleted = job_deleted,
	.absent = job_absent,
	.failed = job_watch_failed,
	.creation_failure = creation_failure,
	.waiting = waiting,
};

static const struct workers_reports workers_reports = {
	.pods_changed = pods_changed,
	.logs_changed = logs_changed,
	.waiting = waiting,
};

static const struct kueue_reports kueue_reports = {
	.changed = queue_changed,
};

/* The position spoke has something to say. */
static void position_note(void *hub, const char *line)
{
	struct launch_hub *h = hub;
	launch_progress_note(h->ctx->prog, "%s", line);
}

static const struct qpos_reports qpos_reports = {
	.changed = position_changed,
	.note = position_note,
};

/* A clock ran out (launch_hub_clock.c): --fail-fast-after, --timeout,
 * --queue-timeout, --queue-hopeless-after. */
static void clock_ran_out(void *hub, enum launch_end why)
{
	hub_stop(hub, why);
}

static const struct hub_clock_reports clock_reports = {
	.ran_out = clock_ran_out,
};

/* ---- signals ------------------------------------------------------------- */

static void on_grace_over(void *ud)
{
	struct launch_hub *h = ud;
	h->grace_timer = NULL;
	hub_stop(h, END_FINISHED);
}

static void on_signal(void *ud, int signo)
{
	struct launch_hub *h = ud;
	const struct launch_ctx *ctx = h->ctx;
	const char *name = signo == SIGINT ? "SIGINT" : "SIGTERM";
	int first = h->signal_at <= 0;

	h->why.signo = signo;
	if (first)
		h->signal_at = kube_now();
	else
		h->signal_again = 1;
	if (h->phase == RUN_WAITING && h->draining) {
		/* the job has finished: its outcome stands; the logs are read
		 * within the signal's grace, unless it is the second signal */
		if (!first) {
			launch_progress_note(ctx->prog, "%s received again: not waiting for the rest "
					     "of the logs", name);
			hub_stop(h, END_FINISHED);
			return;
		}
		launch_progress_note(ctx->prog, "%s received after the verdict: reading the rest of "
				     "the logs for up to %.0fs (a second signal stops now)", name,
				     HUB_SIGNAL_GRACE_S);
		h->grace_timer = kube_timer_add(ctx->c, HUB_SIGNAL_GRACE_S, on_grace_over, h);
		return;
	}
	switch (h->phase) {
	case RUN_CREATING:
	case RUN_WAITING:
		launch_progress_note(ctx->prog, "%s received: cancelling", name);
		if (h->why.end == END_NONE || h->why.end == END_FINISHED)
			h->why.end = END_SIGNAL;
		/* ends the wait, or cancels the blocking create/get in flight
		 * (ERR_CANCELLED); neither lingers to cancel the cleanup */
		launch_loop_wake(ctx->loop);
		kube_loop_cancel_call(ctx->c);
		/* the run's end is decided: what follows before the wait (the
		 * look after a cancelled create) protects the cluster */
		if (h->phase == RUN_CREATING)
			h->phase = RUN_CLEANING;
		break;
	case RUN_CLEANING:
		/* Finish what protects the cluster; the deadline is bounded. A
		 * further signal does not abort the cleanup either: only the
		 * kubelet's SIGKILL at the end of the grace period does. */
		launch_progress_note(ctx->prog, "signal received during cleanup: finishing it first");
		if (h->why.end == END_NONE)
			h->why.end = END_SIGNAL;
		break;
	case RUN_DONE:
		/* outcome decided: stop writing the last queued log lines
		 * (launch_stdout_finish) and exit */
		launch_loop_wake(ctx->loop);
		break;
	}
}

int launch_hub_catch_signals(struct launch_hub *h, struct err *e)
{
	return kube_loop_catch_signals(h->ctx->c, on_signal, h, e);
}

/* ---- the run's phases and the job ------------------------------------------ */

struct launch_hub *launch_hub_new(const struct launch_ctx *ctx)
{
	struct launch_hub *h = xcalloc(1, sizeof(*h));

	h->ctx = ctx;
	h->phase = RUN_CREATING;
	buf_init(&h->incomplete);
	h->why.queue_why = h->q.why;
	h->clock_rep = &clock_reports;
	launch_verdict_of(NULL, &h->v);
	h->jw = jobwatch_new(ctx, &jobwatch_reports, h);
	h->workers = workers_new(ctx, &workers_reports, h);
	h->kueue = kueue_new(ctx, &kueue_reports, h);
	h->qpos = qpos_new(ctx, &qpos_reports, h);
	return h;
}

void launch_hub_free(struct launch_hub *h)
{
	if (!h)
		return;
	workers_free(h->workers);
	kueue_free(h->kueue);
	qpos_free(h->qpos);
	jobwatch_free(h->jw);
	cJSON_Delete(h->job);
	buf_free(&h->incomplete);
	free(h);
}

int launch_hub_ended(const struct launch_hub *h)
{
	return h->why.end != END_NONE;
}

void launch_hub_take(struct launch_hub *h, cJSON *job)
{
	take_job(h, job);
}

const cJSON *launch_hub_job(const struct launch_hub *h) { return h->job; }
const struct launch_verdict *launch_hub_verdict(const struct launch_hub *h) { return &h->v; }
const struct launch_why *launch_hub_why(const struct launch_hub *h) { return &h->why; }

/* ---- the wait ------------------------------------------------------------ */

static int start_spokes(struct launch_hub *h, const char *from, struct err *e)
{
	/*
	 * The request floor: after our own create, the job, its pods and its
	 * events are watched from the create's resourceVersion - the answer is
	 * the job as of then, and no pod or event of it can be older - so no
	 * LIST is sent. A re-attach, a 410 or a resync lists as usual.
	 */
	return jobwatch_start(h->jw, from, h->job, e) || workers_start(h->workers, from, e) ||
	       jobwatch_start_events(h->jw, from, e) || kueue_start(h->kueue, from, e);
}

/* What the late drain waits for: an end of the drain (hub_stop). */
static int hub_stopped(const void *hub)
{
	const struct launch_hub *h = hub;
	return h->stopped;
}

/*
 * The wait ended on a signal while the job was running as far as the watch
 * showed, and the ending's look found it had finished meanwhile (the watch
 * was behind: the step stopped, the server away). That is no cancel, and the
 * logs are read as a verdict's would be: within what is left of the
 * signal's grace and --log-drain; a further signal stops at once.
 */
void launch_hub_drain_late(struct launch_hub *h)
{
	const struct launch_ctx *ctx = h->ctx;
	struct err e = ERR_INIT;
	double left = h->signal_at + HUB_SIGNAL_GRACE_S - kube_now();

	if (h->why.end != END_FINISHED || h->signal_at <= 0 || h->draining ||
	    ctx->o->log_drain_s <= 0 || left <= 0)
		return;
	h->draining = 1;
	h->why.decided_at = kube_now();
	workers_settle(h->workers, &h->v);
	if (workers_drained(h->workers, &h->v))
		return;
	launch_progress_note(ctx->prog, "reading the rest of the logs for up to %.0fs of the "
			     "signal's grace", left);
	h->phase = RUN_WAITING;
	h->stopped = 0;
	drain_arm(h);
	h->grace_timer = kube_timer_add(ctx->c, left, on_grace_over, h);
	launch_loop_until(ctx->loop, hub_stopped, h, &e);
	kube_timer_cancel(h->drain_timer);
	kube_timer_cancel(h->grace_timer);
	h->drain_timer = h->grace_timer = NULL;
	h->phase = RUN_CLEANING;
}

/* What the wait waits for: an end. */
static int hub_ended(const void *hub)
{
	const struct launch_hub *h = hub;
	return h->why.end != END_NONE;
}

void launch_hub_wait(struct launch_hub *h, const char *from)
{
	struct err e = ERR_INIT;

	if (h->why.end != END_NONE) {	/* a signal arrived during create */
		h->phase = RUN_CLEANING;
		return;
	}
	h->phase = RUN_WAITING;
	if (start_spokes(h, from, &e) == 0) {
		hub_queue_check(h);	/* created suspended for its queue: queued from the start */
		if (!h->why.queued)
			hub_arm_deadline(h);
		/* until an end is decided (one decided already needs no loop) */
		if (launch_loop_until(h->ctx->loop, hub_ended, h, &e) == 1)
			h->why.end = END_API;	/* nothing left that could end it */
	}
	if (e.code != ERR_OK) {
		h->why.end = END_API;
		h->why.err = e;
	}
	/* stop everything the wait started except the job watch (the cleanup's) */
	hub_clocks_stop(h);
	kube_timer_cancel(h->stuck_timer);
	kube_timer_cancel(h->drain_timer);
	kube_timer_cancel(h->grace_timer);
	h->stuck_timer = h->drain_timer = h->grace_timer = NULL;
	jobwatch_stop_events(h->jw);
	kueue_stop(h->kueue);
	qpos_stop(h->qpos);
	/* the wait is over: a further signal must not cancel the ending's look
	 * or the cleanup */
	h->phase = RUN_CLEANING;
}
