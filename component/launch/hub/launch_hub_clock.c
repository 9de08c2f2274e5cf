/*
 * launch_hub_clock.c - the hub's clocks: --timeout, the fail-fast grace,
 * and Kueue's queue.
 *
 * Fail-fast: a stuck cause (a worker that cannot pull its image or cannot
 * be scheduled, or a creation failure event while the job is not running)
 * arms one timer of --fail-fast-after seconds. When it fires and some cause
 * is still there, the wait ends with END_STUCK; when every cause went away
 * before, the timer is cancelled. So a registry hiccup that resolves itself
 * costs nothing, and a typo in the image name costs the grace period, not
 * the whole --timeout.
 *
 * --timeout bounds the run: the time since the start less the time the job
 * was held by Kueue. A queue-managed job that Kueue holds (launch_kueue.c
 * answers "held, and why") is Queued: the --timeout deadline and the
 * fail-fast timer stop, --queue-timeout and the repeated "queued ... in
 * NS/QUEUE" line run; when Kueue admits it the run's clocks start again;
 * an admitted job held again was preempted, and says so. The queued line
 * carries the job's place in its queue when Kueue's visibility API tells
 * it (launch_queue_position.c: asked at each line and on each Workload
 * change). A reason that says waiting cannot help (ExceedsMaxQuota,
 * NoMatchingFlavor: launch_kueue_reasons.c) arms --queue-hopeless-after;
 * when it still holds then, the wait ends QueueInadmissible.
 *
 * A clock that runs out reports it (h->clock_rep->ran_out, as a spoke
 * reports through its table): the hub decides what ends the wait.
 */
#include <string.h>

#include "launch_hub_int.h"

/* ---- fail-fast ----------------------------------------------------------- */

/* The current stuck cause, or 0. Creation-failure events count only while
 * the job has not got as far as Running. */
static int stuck_cause(const struct launch_hub *h, char *reason, size_t rn, char *msg, size_t mn)
{
	const char *phase = h->v.phase, *ev, *evmsg;
	int count;

	if (h->why.queued)	/* waiting for quota is not being stuck */
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
		h->clock_rep->ran_out(h, END_STUCK);
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

/* ---- --timeout and the queue ------------------------------------------------ */

static void on_deadline(void *ud)
{
	struct launch_hub *h = ud;
	h->deadline = NULL;
	h->clock_rep->ran_out(h, END_TIMEOUT);
}

void hub_arm_deadline(struct launch_hub *h)
{
	const struct launch_ctx *ctx = h->ctx;
	double left;

	if (ctx->o->timeout_s <= 0 || h->deadline)
		return;
	left = ctx->o->timeout_s - (kube_now() - ctx->t0 - launch_hub_queued_seconds(h));
	h->deadline = kube_timer_add(ctx->c, left > 0 ? left : 0, on_deadline, h);
}

double launch_hub_queued_seconds(const struct launch_hub *h)
{
	return h->q.queued_s + (h->why.queued ? kube_now() - h->q.since : 0);
}

void launch_hub_queue_seen(const struct launch_hub *h, int *in_lq, int *in_cq,
			   struct kueue_eviction *ev)
{
	qpos_get(h->qpos, in_lq, in_cq);
	kueue_evictions(h->kueue, ev);
}

/* "queued 12m05s in NS/Q: position 3 in q, 7 in cq: why": this wait;
 * after a preemption also the time queued in all (what --queue-timeout
 * bounds); the place in the queue when one was seen. */
static void say_queued(struct launch_hub *h)
{
	struct buf d = BUF_INIT, all = BUF_INIT, pos = BUF_INIT;
	const char *cq = qpos_cluster_queue(h->qpos);
	int lq_at, cq_at;

	launch_duration(&d, kube_now() - h->q.since);
	if (h->q.admissions) {
		buf_adds(&all, " (");
		launch_duration(&all, launch_hub_queued_seconds(h));
		buf_adds(&all, " in all)");
	}
	if (qpos_get(h->qpos, &lq_at, &cq_at))
		buf_addf(&pos, "position %d in %s, %d in %s: ", lq_at, h->ctx->queue, cq_at,
			 cq ? cq : "its ClusterQueue");
	h->q.said_lq = lq_at;
	h->q.said_cq = cq_at;
	launch_progress_note(h->ctx->prog, "queued %s in %s/%s%s: %s%s", d.data, h->ctx->ns,
			     h->ctx->queue, all.len ? all.data : "", pos.len ? pos.data : "",
			     h->q.why);
	buf_free(&d);
	buf_free(&all);
	buf_free(&pos);
}

void hub_queue_position(struct launch_hub *h)
{
	int lq_at, cq_at;

	if (!h->why.queued || h->phase != RUN_WAITING || !qpos_get(h->qpos, &lq_at, &cq_at) ||
	    (lq_at == h->q.said_lq && cq_at == h->q.said_cq))
		return;
	say_queued(h);	/* a new place: said now, as a new reason is */
}

static void on_queue_ticker(void *ud)
{
	struct launch_hub *h = ud;

	h->q.ticker = NULL;
	if (!h->why.queued || h->phase != RUN_WAITING)
		return;
	say_queued(h);
	qpos_look(h->qpos, kueue_workload_name(h->kueue));	/* for the next line */
	h->q.ticker = kube_timer_add(h->ctx->c, h->ctx->o->queue_every_s, on_queue_ticker, h);
}

static void on_queue_deadline(void *ud)
{
	struct launch_hub *h = ud;
	h->q.deadline = NULL;
	h->clock_rep->ran_out(h, END_QUEUE_TIMEOUT);
}

static void enter_queue(struct launch_hub *h, const char *why)
{
	const struct launch_ctx *ctx = h->ctx;
	double left;

	h->why.queued = 1;
	h->q.since = kube_now();
	snprintf(h->q.why, sizeof(h->q.why), "%s", why);
	/* the run's clocks stop: --timeout and the fail-fast grace */
	kube_timer_cancel(h->deadline);
	kube_timer_cancel(h->stuck_timer);
	h->deadline = h->stuck_timer = NULL;
	if (h->q.admissions) {
		char ev[512];
		kueue_evicted(h->kueue, ev, sizeof(ev));
		launch_progress_note(ctx->prog, "preempted, requeued (%s); the run's clock stops "
				     "until it is admitted again", ev);
	}
	launch_progress_note(ctx->prog, "queued in %s/%s: %s", ctx->ns, ctx->queue, why);
	qpos_look(h->qpos, kueue_workload_name(h->kueue));
	if (ctx->o->queue_every_s > 0)
		h->q.ticker = kube_timer_add(ctx->c, ctx->o->queue_every_s, on_queue_ticker, h);
	if (ctx->o->queue_timeout_s > 0) {
		left = ctx->o->queue_timeout_s - launch_hub_queued_seconds(h);
		h->q.deadline = kube_timer_add(ctx->c, left > 0 ? left : 0, on_queue_deadline, h);
	}
}

static void leave_queue(struct launch_hub *h)
{
	const struct launch_ctx *ctx = h->ctx;
	const char *cq = kueue_admitted_by(h->kueue);
	struct buf d = BUF_INIT;

	h->q.queued_s += kube_now() - h->q.since;
	h->why.queued = 0;
	kube_timer_cancel(h->q.ticker);
	kube_timer_cancel(h->q.deadline);
	kube_timer_cancel(h->q.hopeless);
	h->q.ticker = h->q.deadline = h->q.hopeless = NULL;
	h->q.admissions++;
	launch_duration(&d, kube_now() - h->q.since);
	if (h->q.admissions > 1) {
		launch_progress_note(ctx->prog, "admitted again%s%s after %s in the queue: attempt "
				     "%d; the new workers' logs follow", cq ? " by clusterQueue " : "",
				     cq ? cq : "", d.data, h->q.admissions);
		/* mark the seam in the logs themselves: the lines after it are the
		 * new attempt's (the same stdout the worker lines go to, in order) */
		if (ctx->o->logs != LOGS_NONE) {
			char seam[128];
			int n = snprintf(seam, sizeof(seam), "[jaxjob] attempt %d: re-admitted after "
					 "preemption; the workers start again\n", h->q.admissions);
			launch_stdout_line(ctx->out, -1, seam, (size_t)n);
		}
	}
	else
		launch_progress_note(ctx->prog, "admitted%s%s after %s in the queue",
				     cq ? " by clusterQueue " : "", cq ? cq : "", d.data);
	buf_free(&d);
	hub_arm_deadline(h);
	hub_stuck_check(h);
}

/* ---- requests Kueue says it cannot admit ---------------------------------- */

static int hopeless_now(const struct launch_hub *h, char *reason, size_t rn, char *msg, size_t mn)
{
	return h->why.queued && kueue_pending(h->kueue, reason, rn, msg, mn) == KUEUE_HOPELESS;
}

static void on_hopeless_timer(void *ud)
{
	struct launch_hub *h = ud;
	struct launch_why *w = &h->why;

	h->q.hopeless = NULL;
	if (hopeless_now(h, w->kueue_reason, sizeof(w->kueue_reason), w->kueue_msg,
			 sizeof(w->kueue_msg)))
		h->clock_rep->ran_out(h, END_QUEUE_INADMISSIBLE);
}

/* The grace runs while the reason lasts, and starts again when it comes
 * back: only a reason that held for all of it ends the wait. */
static void hopeless_check(struct launch_hub *h)
{
	const struct launch_ctx *ctx = h->ctx;
	char reason[64], msg[512];
	int hopeless = hopeless_now(h, reason, sizeof(reason), msg, sizeof(msg));

	if (ctx->o->queue_hopeless_s <= 0)
		return;
	if (hopeless && !h->q.hopeless) {
		launch_progress_note(ctx->prog, "Kueue says it cannot admit it (%s); ending in %.0fs "
				     "unless that changes", reason, ctx->o->queue_hopeless_s);
		h->q.hopeless = kube_timer_add(ctx->c, ctx->o->queue_hopeless_s, on_hopeless_timer, h);
	} else if (!hopeless && h->q.hopeless) {
		kube_timer_cancel(h->q.hopeless);
		h->q.hopeless = NULL;
	}
}

void hub_queue_check(struct launch_hub *h)
{
	char why[512];
	int held;

	if (!h->ctx->queue || h->phase != RUN_WAITING || h->draining)
		return;
	held = kueue_held(h->kueue, h->job, &h->v, why, sizeof(why));
	if (held && !h->why.queued)
		enter_queue(h, why);
	else if (!held && h->why.queued)
		leave_queue(h);
	else if (held && strcmp(why, h->q.why)) {	/* a new pending reason: say it now */
		snprintf(h->q.why, sizeof(h->q.why), "%s", why);
		say_queued(h);
		if (h->q.ticker) {	/* and the next repeat a full period later */
			kube_timer_cancel(h->q.ticker);
			h->q.ticker = kube_timer_add(h->ctx->c, h->ctx->o->queue_every_s,
						     on_queue_ticker, h);
		}
	}
	hopeless_check(h);
}

void hub_clocks_stop(struct launch_hub *h)
{
	kube_timer_cancel(h->deadline);
	kube_timer_cancel(h->q.ticker);
	kube_timer_cancel(h->q.deadline);
	kube_timer_cancel(h->q.hopeless);
	h->deadline = h->q.ticker = h->q.deadline = h->q.hopeless = NULL;
}
