/*
 * launch_follow.c - the workers' log follows (the workers spoke: the pods
 * in launch_pods.c, how a follow ends in launch_tails.c; launch_workers.c
 * is the spoke's face).
 *
 * A follow starts when the pod watch shows the worker container running or
 * terminated; every line goes to stdout, the metrics and the diagnosis
 * (on_line); a follow that ends while its container runs is followed again
 * after a pause, skipping the lines printed (on_log_end, on_refollow). At
 * most LAUNCH_LOG_STREAMS_MAX follows at once (each a connection to the API
 * server): the other workers queue, exited ones first, then the longest
 * waiting (next_queued), and with --log-turn the followed ones take turns
 * (on_turn). What it reports goes to the hub through the spoke's report
 * table; it calls nothing of launch_pods.c or launch_workers.c (they call
 * it), only launch_tails.c, below it.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "kube/kube_clock.h"
#include "launch_workers_int.h"

/* The pause before a re-follow: REFOLLOW_DELAY_S after a drop or after a
 * follow that brought new lines, doubled for each clean end in a row that
 * brought none, up to REFOLLOW_MAX_S. A clean end while the pod watch still
 * says "running" is ambiguous - a stream the kubelet closed, or the exit
 * seen before its pod update, which a busy operator or API server can
 * hold back for many seconds (issue 32: 17 s, 20 re-follows at a fixed
 * 0.5 s) - so it is followed again, but at a pace that backs off; the pod
 * update saying "terminated" cancels the pending one (refollow_settled). */
#define REFOLLOW_DELAY_S 0.5
#define REFOLLOW_MAX_S 4.0
#define MAX_DROPS 20

static int wants_logs(const struct workers *w, const struct launch_pod *p)
{
	if (w->ctx->o->logs == LOGS_NONE || !w->rep->waiting(w->hub) || workers_logs_denied(w) ||
	    w->ctx->deny.pods)
		return 0;	/* (a denial was said once, before the create) */
	return launch_opts_logs_worker(w->ctx->o, p->index);	/* --logs, --log-workers */
}

/* --log-turn: the soonest a turn that was kept looks again */
#define TURN_RECHECK_S 0.1

/* The queued worker to start next: an exited one first (its read ends at
 * once and frees the slot), then the one that has waited longest (so that
 * --log-turn's turns go round every waiting worker). */
static struct launch_pod *next_queued(const struct workers *w)
{
	struct launch_pod *best = NULL;

	for (int i = 0; i < w->npods; i++) {
		struct launch_pod *p = w->pods[i];
		if (!p->queued)
			continue;
		if (!best || (p->terminated && !best->terminated) ||
		    (p->terminated == best->terminated && p->queued_seq < best->queued_seq))
			best = p;
	}
	return best;
}

/* Queue p for a stream, behind the workers already waiting. */
static void enqueue(struct launch_pod *p)
{
	p->queued = 1;
	p->queued_seq = ++p->w->seq;
	p->queued_at = kube_now();
}

/* Start queued follows while slots are free. */
static void start_queued(struct workers *w)
{
	while (w->nfollows < LAUNCH_LOG_STREAMS_MAX) {
		struct launch_pod *p = next_queued(w);
		if (!p)
			return;
		follow_start(p);	/* unqueues it, whether it starts or not */
	}
}

/*
 * --log-turn: a followed worker's turn is over. While workers wait for a
 * stream (more running than LAUNCH_LOG_STREAMS_MAX), it hands its stream
 * to the one that has waited longest - once that one has waited a whole
 * turn, so that each turn moves as many streams as workers wait - and
 * queues behind the others. Its
 * next follow takes up where this one stood: from the second of its last
 * line (sinceTime), skipping the lines of that second it printed
 * (kube_log_resume_point: several lines share a second, and the count of
 * them is exact where the time alone is not) - so a turn costs a request,
 * not a second reading of the log, which at 1,000 workers kept most of
 * them from ever getting a turn while the job ran. Where the stream cannot
 * say (its first second began before it), from the log's start, skipping
 * every line printed (launch_logstream_resume), as after a drop. No line
 * is lost or repeated either way. The stream is stopped, not cut: a line
 * half-received is not printed, and the next follow prints it whole. Not
 * after the verdict (the drain settles every stream as it stands), nor
 * while a read of the log's end is in flight for it.
 */
static void on_turn(void *ud)
{
	struct launch_pod *p = ud;
	struct workers *w = p->w;
	const double turn = w->ctx->o->log_turn_s;
	struct launch_pod *next;
	double waited;
	char since[KUBE_LOG_SINCE_MAX];
	long skip;

	p->turn = NULL;
	if (!p->log || p->log_once || p->leaving || w->draining || kube_log_completing(p->log))
		return;
	next = next_queued(w);
	waited = next ? kube_now() - next->queued_at : 0;
	if (!next || (!next->terminated && waited < turn)) {
		/* nobody waits, or only workers that just had a turn: keep the
		 * stream, look again when the longest waiting has waited a whole
		 * turn. Handing over at every turn's end instead would move all
		 * 64 streams each turn when a few workers wait (72 running: 64
		 * reconnects a turn for 8 workers' sake) */
		double again = turn;

		if (next)
			again = turn - waited > TURN_RECHECK_S ? turn - waited : TURN_RECHECK_S;
		p->turn = kube_timer_add(w->ctx->c, again, on_turn, p);
		return;
	}
	if (kube_log_resume_point(p->log, since, &skip)) {
		p->turn_since = xstrdup(since);
		launch_logstream_resume_since(&p->ls, (unsigned long)skip);
	} else {
		launch_logstream_resume(&p->ls);
	}
	kube_log_stop(p->log);
	p->log = NULL;
	w->nfollows--;
	enqueue(p);
	start_queued(w);
}

static void turn_arm(struct launch_pod *p)
{
	const double turn = p->w->ctx->o->log_turn_s;

	if (turn > 0 && !p->turn)
		p->turn = kube_timer_add(p->w->ctx->c, turn, on_turn, p);
}

/* Tell the hub the logs moved on (it drains after the verdict). */
static void drain_check(struct workers *w)
{
	w->rep->logs_changed(w->hub);
}

/* The pause before the next re-follow (see REFOLLOW_DELAY_S). */
static double refollow_delay(struct launch_pod *p, int clean)
{
	double d = REFOLLOW_DELAY_S;

	if (!clean)
		return d;
	for (int i = 0; i < p->quiet_ends && d < REFOLLOW_MAX_S; i++)
		d *= 2;
	p->quiet_ends++;
	return d < REFOLLOW_MAX_S ? d : REFOLLOW_MAX_S;
}

/*
 * A clean end waits for its re-follow, and its pause need not run out: the
 * pod says the container finished (refollow_settled), or the verdict is in
 * (settle_follows, launch_workers.c). After a first clean end (a pause of
 * REFOLLOW_DELAY_S) that end was the whole log, as it always was. After a
 * longer pause the stream may have been closed with the container running
 * on, for seconds: what it wrote since is read once (resumed after the
 * lines printed: one request, no follow), so the back-off loses no line
 * that the fixed pause would have read. The verdict can come before the pod
 * update that says "terminated" (the two are separate watches: seen in CI,
 * a quiet worker's last line lost, 60-launch-faults rf1), so there the pod's
 * state is not asked: a finished job's worker has written what it will.
 */
void follow_refollow_end(struct launch_pod *p)
{
	kube_timer_cancel(p->refollow);
	p->refollow = NULL;
	p->clean_end = 0;
	if (p->quiet_ends > 1 && !p->gone) {
		launch_logstream_resume(&p->ls);
		p->read_rest = 1;
		follow_start(p);	/* it ends by itself */
	} else {
		p->done_restarts = p->ls.restarts;
	}
}

/* The pod says the container finished, or the pod is gone (a suspended or
 * preempted job's): settle a pending re-follow at once (follow_refollow_end). */
static int refollow_settled(struct launch_pod *p)
{
	if (!p->clean_end || (p->running && !p->gone))
		return 0;
	follow_refollow_end(p);
	return 1;
}

static void on_refollow(void *ud)
{
	struct launch_pod *p = ud;

	p->refollow = NULL;
	if (!refollow_settled(p)) {
		launch_logstream_resume(&p->ls);
		follow_start(p);
	}
	p->clean_end = 0;
	drain_check(p->w);
}

/* A new container's log begins: its drops, pauses and last lines too. */
static void container_began(struct launch_pod *p)
{
	p->drops = 0;
	p->quiet_ends = 0;
	diag_container(p->w->ctx->diag, p->index);
}

static void on_line(void *ud, const char *line, size_t len, int truncated)
{
	struct launch_pod *p = ud;
	int r;
	(void)truncated;
	r = launch_logstream_line(&p->ls, kube_log_line_time(p->log), line, len, p->w->ctx->out);
	if (r & LAUNCH_LINE_NEWER)	/* a restart the pod watch has not shown yet */
		container_began(p);
	if ((r & LAUNCH_LINE_PRINTED) && (p->terminated || p->gone))
		p->w->progress++;	/* a finished worker's log moves on: the drain waits */
	if (r & LAUNCH_LINE_PRINTED) {	/* not a line a resumed follow repeats */
		p->quiet_ends = 0;	/* the stream moves: the next pause is short again */
		launch_metrics_line(p->w->ctx->metrics, p->index, line, len);
		diag_line(p->w->ctx->diag, p->index, line, len);	/* a bounded ring */
	}
}

/*
 * A follow ended. A clean end of a container that terminated is its whole
 * log. A clean end while the pod watch still says "running" is usually the
 * same thing seen before the pod update arrives, but could be a cut stream:
 * look again after a short pause (no request if it did terminate). An error
 * end is a drop: follow again, skipping what was printed.
 */
static void on_log_end(void *ud, const struct err *e)
{
	struct launch_pod *p = ud;
	struct workers *w = p->w;

	p->log = NULL;
	w->nfollows--;
	kube_timer_cancel(p->turn);
	p->turn = NULL;
	w->progress++;	/* a stream ended: the drain may see more move on */
	if (p->leaving) {	/* a survivor's last read (tails_leave) */
		tails_survivor_left(p, e);
		start_queued(w);
		drain_check(w);
		return;
	}
	if (e && e->http_status == 403 && !workers_logs_denied(w)) {
		/* what the access review would have said, had it been allowed
		 * to answer: no follow will do better, so none is retried (each
		 * would cost a backoff, and the drain would wait for them) */
		w->logs_forbidden = 1;
		launch_progress_note(w->ctx->prog, "warning: reading worker logs is forbidden (%s): "
				     "logs are not shown", e->msg);
	}
	if (e && workers_logs_denied(w)) {
		p->done_restarts = p->ls.restarts;	/* as complete as it will ever be */
	} else if (!e && (!p->running || w->draining || p->gone)) {
		p->done_restarts = p->ls.restarts;
	} else if (!p->gone && wants_logs(w, p) && !kube_err_tls_untrusted(e) &&
		   ++p->drops <= MAX_DROPS) {
		p->clean_end = !e;
		p->refollow = kube_timer_add(w->ctx->c, refollow_delay(p, !e), on_refollow, p);
	} else if (e) {
		launch_progress_note(w->ctx->prog, "warning: worker-%d log: %s", p->index, e->msg);
	}
	start_queued(w);
	drain_check(w);
}

/* Start (or resume) the follow of the current container if it is due. */
void follow_start(struct launch_pod *p)
{
	struct workers *w = p->w;
	struct kube_log_opts lo;
	struct err e = ERR_INIT;
	int was_queued = p->queued;

	p->queued = 0;
	if (p->log) {	/* the pod changed: its container may have just exited */
		tails_complete(p);
		return;
	}
	if (p->refollow && refollow_settled(p)) {
		drain_check(w);
		return;
	}
	if (p->refollow || p->gone || !wants_logs(w, p))
		return;
	if (!p->running && !p->terminated)
		return;
	if (p->ls.ahead && p->restarts >= p->ls.restarts) {
		/* the pod watch caught up with a restart the log showed first */
		p->ls.restarts = p->restarts;
		p->ls.ahead = 0;
	}
	if (p->ls.restarts != p->restarts && !p->ls.ahead) {
		/* a new container: new log, from its start */
		free(p->turn_since);
		p->turn_since = NULL;
		launch_logstream_init(&p->ls, p->index, p->restarts);
		container_began(p);
	}
	if (p->done_restarts >= p->ls.restarts)
		return;
	if (w->nfollows >= LAUNCH_LOG_STREAMS_MAX) {
		if (was_queued)	/* a pod update keeps its place in the queue */
			p->queued = 1;
		else
			enqueue(p);
		return;
	}
	memset(&lo, 0, sizeof(lo));
	/* exited before we got to it: read what it wrote, no follow needed */
	lo.once = (p->terminated && !p->running) || p->read_rest;
	p->read_rest = 0;
	lo.timestamps = 1;	/* how far behind the stream is: workers_settle */
	lo.ns = w->ctx->ns;
	lo.pod = p->name;
	lo.container = w->ctx->api->container;
	lo.since_time = p->turn_since;	/* one follow only: a drop starts over */
	lo.on_line = on_line;
	lo.on_end = on_log_end;
	lo.ud = p;
	p->tail_asked = 0;
	p->log_once = lo.once;
	p->log = kube_log_follow(w->ctx->c, &lo, &e);
	free(p->turn_since);
	p->turn_since = NULL;
	if (p->log && !lo.once)
		turn_arm(p);
	if (p->log)
		w->nfollows++;
	else
		launch_progress_note(w->ctx->prog, "warning: cannot follow the log of %s: %s",
				     p->name, e.msg);
}

int follow_any(const struct workers *w)
{
	for (int i = 0; i < w->npods; i++)
		if (w->pods[i]->log || w->pods[i]->refollow || w->pods[i]->queued)
			return 1;
	return 0;
}
