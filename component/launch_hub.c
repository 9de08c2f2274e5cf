/*
 * launch_hub.c - the hub of a launch run (launch_hub.h): the one place that
 * changes what the run is doing (its phase, why the wait ended, the
 * draining, the wait's timers, the job as last seen) and decides what an
 * observation means.
 *
 * The spokes observe and act, each on its own part of the state:
 *
 *   launch_watch.c    the job watch and the event watch
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
 * (workers_drained: the containers have exited, so the kubelet ends
 * each stream) but at most --log-drain (default 30 s: covers a reconnect
 * after a short API server outage); a SIGTERM cuts the drain short without
 * turning the finished job into a cancelled one. Either way, a worker whose
 * log could not be completed is named in one warning (launch_hub_drain_report):
 * lines are never lost silently.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "launch_hub_int.h"

void hub_stop(struct launch_hub *h, enum launch_end why)
{
	if (h->phase != RUN_WAITING)
		return;
	if (h->why.end == END_NONE || (h->why.end == END_FINISHED && why == END_FINISHED))
		h->why.end = why;
	kube_loop_stop(h->ctx->c);
}

/* Every job object the hub keeps is judged here, once. */
static void take_job(struct launch_hub *h, cJSON *job)
{
	cJSON_Delete(h->job);
	h->job = job;
	launch_verdict_of(job, &h->v);
}

static void on_drain_timeout(void *ud)
{
	struct launch_hub *h = ud;
	h->drain_timer = NULL;
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
	if (h->q.queued || (h->ctx->queue && !strcmp(phase, "Suspended")))
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
		h->drain_timer = kube_timer_add(ctx->c, ctx->o->log_drain_s, on_drain_timeout, h);
}

/*
 * Stop the wait for the deletion - only while we are in it: stopping the
 * loop during a blocking call (the DELETE itself, whose DELETED event can
 * arrive before its answer) would cancel that call instead.
 */
static void cleanup_wake(struct launch_hub *h)
{
	if (h->in_delete_wait)
		kube_loop_stop(h->ctx->c);
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

/* A Normal event about the job: Kueue's are said. */
static void normal_event(void *hub, const cJSON *ev)
{
	struct launch_hub *h = hub;
	kueue_event(h->kueue, ev);
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

/* The job's Workload changed. */
static void queue_changed(void *hub)
{
	hub_queue_check(hub);
}

static const struct jobwatch_reports jobwatch_reports = {
	.seen = job_seen,
	.deleted = job_deleted,
	.absent = job_absent,
	.failed = job_watch_failed,
	.creation_failure = creation_failure,
	.normal_event = normal_event,
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

/* ---- fail-fast ----------------------------------------------------------- */

/* The current stuck cause, or 0. Creation-failure events count only while
 * the job has not got as far as Running. */
static int stuck_cause(const struct launch_hub *h, char *reason, size_t rn, char *msg, size_t mn)
{
	const char *phase = h->v.phase, *ev, *evmsg;
	int count;

	if (h->q.queued)	/* waiting for quota is not being stuck */
		return 0;
	if (workers_stuck(h->workers, reason, rn, msg, mn))
		return 1;
	ev = jobwatch_creation_failure(h->jw, &evmsg, &count);
	if (ev && (strcmp(phase, "Created") == 0 || strcmp(phase, "Pending") == 0)) {
		snprintf(reason, rn, "%s", ev);
		if (count > 1)
			snprintf(msg, mn, "%s (event %s, %d times)", evmsg, ev, count);
		else
			snprintf(msg, mn, "%s (event %s)", evmsg, ev);
		return 1;
	}
	return 0;
}

static void on_stuck_timer(void *ud)
{
	struct launch_hub *h = ud;

	h->stuck_timer = NULL;
	if (stuck_cause(h, h->why.stuck_reason, sizeof(h->why.stuck_reason),
			h->why.stuck_msg, sizeof(h->why.stuck_msg)))
		hub_stop(h, END_STUCK);
}

void hub_stuck_check(struct launch_hub *h)
{
	const struct launch_ctx *ctx = h->ctx;
	char reason[64], msg[768];
	int stuck;

	if (h->phase != RUN_WAITING || ctx->o->fail_fast_s <= 0)
		return;
	stuck = stuck_cause(h, reason, sizeof(reason), msg, sizeof(msg));
	if (stuck && !h->stuck_timer) {
		launch_progress_note(ctx->prog, "%s; failing in %.0fs unless it recovers",
				     msg, ctx->o->fail_fast_s);
		h->stuck_timer = kube_timer_add(ctx->c, ctx->o->fail_fast_s, on_stuck_timer, h);
	} else if (!stuck && h->stuck_timer) {
		launch_progress_note(ctx->prog, "recovered");
		kube_timer_cancel(h->stuck_timer);
		h->stuck_timer = NULL;
	}
}

/* ---- signals ------------------------------------------------------------- */

static void on_signal(void *ud, int signo)
{
	struct launch_hub *h = ud;
	const struct launch_ctx *ctx = h->ctx;

	h->why.signo = signo;
	if (h->phase == RUN_WAITING && h->draining) {
		/* the job has finished: its outcome stands, stop waiting for logs */
		launch_progress_note(ctx->prog, "%s received: not waiting for the rest of the logs",
				     signo == SIGINT ? "SIGINT" : "SIGTERM");
		hub_stop(h, END_FINISHED);
		return;
	}
	switch (h->phase) {
	case RUN_CREATING:
	case RUN_WAITING:
		launch_progress_note(ctx->prog, "%s received: cancelling",
				     signo == SIGINT ? "SIGINT" : "SIGTERM");
		if (h->why.end == END_NONE || h->why.end == END_FINISHED)
			h->why.end = END_SIGNAL;
		/* ends the wait, or cancels the blocking create/get in flight
		 * (ERR_CANCELLED); neither lingers to cancel the cleanup */
		kube_loop_stop(ctx->c);
		kube_loop_cancel_call(ctx->c);
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
		kube_loop_stop(ctx->c);
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
	h->why.queue_why = h->q.why;
	launch_verdict_of(NULL, &h->v);
	h->jw = jobwatch_new(ctx, &jobwatch_reports, h);
	h->workers = workers_new(ctx, &workers_reports, h);
	h->kueue = kueue_new(ctx, &kueue_reports, h);
	return h;
}

void launch_hub_free(struct launch_hub *h)
{
	if (!h)
		return;
	workers_free(h->workers);
	kueue_free(h->kueue);
	jobwatch_free(h->jw);
	cJSON_Delete(h->job);
	free(h);
}

void launch_hub_creating(struct launch_hub *h) { h->phase = RUN_CREATING; }
void launch_hub_cleaning(struct launch_hub *h) { h->phase = RUN_CLEANING; }
void launch_hub_done(struct launch_hub *h) { h->phase = RUN_DONE; }

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

void launch_hub_wait(struct launch_hub *h, const char *from)
{
	struct err e = ERR_INIT;

	h->phase = RUN_WAITING;
	if (h->why.end != END_NONE)	/* a signal arrived during create */
		return;
	if (start_spokes(h, from, &e) == 0) {
		hub_queue_check(h);	/* created suspended for its queue: queued from the start */
		if (!h->q.queued)
			hub_arm_deadline(h);
		if (kube_loop_run(h->ctx->c, &e) == 0 && h->why.end == END_NONE)
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
	h->stuck_timer = h->drain_timer = NULL;
	jobwatch_stop_events(h->jw);
	kueue_stop(h->kueue);
}

/* ---- for the ending ------------------------------------------------------ */

int launch_hub_finished_meanwhile(struct launch_hub *h)
{
	enum launch_end end = h->why.end;

	if (end == END_FINISHED || end == END_DELETED || !h->v.terminal)
		return 0;
	h->why.end = END_FINISHED;
	return 1;
}

void launch_hub_drain_report(const struct launch_hub *h)
{
	struct buf who = BUF_INIT;
	int n;

	if (h->why.end != END_FINISHED)
		return;
	n = workers_incomplete(h->workers, &h->v, &who);
	if (n)
		launch_progress_note(h->ctx->prog, "warning: the log%s of %s %s incomplete: %s",
				     n > 1 ? "s" : "", who.data, n > 1 ? "are" : "is",
				     h->why.signo ? "the wait for the logs was cut short by a signal" :
				     "the stream broke for good or did not end within --log-drain");
	buf_free(&who);
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
	kube_loop_stop(h->ctx->c);
}

int launch_hub_await_deletion(struct launch_hub *h, double deadline)
{
	struct err e = ERR_INIT;

	if (h->delete_confirmed || !jobwatch_watching(h->jw) || deadline <= kube_now())
		return h->delete_confirmed;
	h->delete_timer = kube_timer_add(h->ctx->c, deadline - kube_now(), on_delete_wait_over, h);
	h->in_delete_wait = 1;
	while (!h->delete_confirmed && h->delete_timer && !jobwatch_failed(h->jw) &&
	       kube_loop_run(h->ctx->c, &e) == 0)
		;
	h->in_delete_wait = 0;
	kube_timer_cancel(h->delete_timer);
	h->delete_timer = NULL;
	err_clear(&e);
	return h->delete_confirmed;
}
