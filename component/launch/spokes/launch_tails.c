/*
 * launch_tails.c - how a worker's follow ends early: a terminated
 * container's follow finished from its log's tail (tails_complete), a
 * survivor of a failure read once more, then named and left (tails_leave,
 * tails_survivor_left). Part of the workers spoke (launch_workers_int.h),
 * at its bottom: it calls nothing of the spoke's other files.
 */
#include "kube/kube_clock.h"
#include "launch_workers_int.h"

/* How far back the end of an exited container's log is read to finish its
 * stream at once (kube_log_complete): a stream that keeps up is a few lines
 * behind at most; one further behind is read once more after the verdict,
 * then ends when the kubelet ends it (about a second after the exit on a
 * real one). There used to be a shortcut for a
 * quiet stream that had always kept up (cut after 100 ms of quiet): a
 * kubelet stalled across the verdict (tests/suites/94-stall.sh) made it cut
 * streams that still held half their lines. */
#define DRAIN_TAIL_LINES 32

/*
 * The container has terminated, so its log is final: finish its follow from
 * the log's end now (kube_log_complete) rather than when the kubelet notices
 * the exit, up to a second later. Asked as soon as the pod watch says
 * "terminated" - before the verdict, which the operator writes after its
 * next reconcile (100 ms to seconds on a real cluster): the read is done by
 * the time the verdict comes, and the step exits when it does. Such a read
 * is never cancelled because the kubelet's end came first (kube_log keeps
 * that end until the read answers; cancelled, each was an HTTP 500 in the
 * API server, issue 21). Not for a read of an exited container (it ends by
 * itself). Twice at most per follow: a read that could not place the
 * stream (it was more than DRAIN_TAIL_LINES behind when the worker exited)
 * is asked once more after the verdict, when the stream has had time to
 * catch up; after that, the kubelet's end is waited for.
 */
void tails_complete(struct launch_pod *p)
{
	struct err e = ERR_INIT;

	if (!p->log || p->log_once || !p->terminated || p->running ||
	    p->ls.restarts > p->restarts || kube_log_completing(p->log))
		return;
	if (p->tail_asked >= 2 || (p->tail_asked == 1 && !p->w->draining))
		return;
	p->tail_asked++;	/* done: on_log_end, as for a stream the kubelet ended */
	if (kube_log_complete(p->log, DRAIN_TAIL_LINES, &e))
		err_clear(&e);
}

/* Stop following a log: what was printed stays, the rest is not read. */
static void log_done(struct launch_pod *p)
{
	if (p->log) {
		kube_log_cut(p->log);
		p->log = NULL;
		p->w->nfollows--;
	}
	kube_timer_cancel(p->refollow);
	kube_timer_cancel(p->turn);
	p->refollow = p->turn = NULL;
	p->queued = 0;
	p->clean_end = 0;
	p->quiet_ends = 0;
	p->done_restarts = p->restarts > p->ls.restarts ? p->restarts : p->ls.restarts;
}

/* The survivor is left: say so (and what its last read could not bring). */
void tails_survivor_left(struct launch_pod *p, const struct err *e)
{
	launch_progress_note(p->w->ctx->prog, "worker-%d still running: log not "
			     "followed further%s%s%s", p->index, e ? " (its lines up to now: " : "", e ? e->msg : "", e ? ")" : "");
	log_done(p);
}

/*
 * After Failed, a worker still running is left. Its stream may still have
 * lines on the way that it wrote before the verdict (seen: a `step 5/10`
 * written around the verdict, in the log file, not on stdout), so one
 * bounded read first delivers what it wrote up to now
 * (kube_log_complete_until); on_log_end then names it. A survivor without
 * an open stream (reconnecting, queued) is named at once.
 *
 * This read is the one round trip left after the verdict (issue 32; the
 * exited workers' ends were read when their pods said terminated), and it
 * cannot be started earlier without giving up "every line written before
 * the verdict": a running container's log is known only to its kubelet,
 * which sends nothing while the worker is silent (a survivor stuck in a
 * collective is), so only a read the kubelet answers after the verdict was
 * written can tell that no line came in between. The verdict carries no
 * moment finer than a second (a condition's metav1.Time is written as RFC
 * 3339 seconds: kubernetes/apimachinery pkg/apis/meta/v1/time.go:162-173,
 * MarshalJSON), so a read sent before we saw
 * it cannot be shown to be after it; one started at the failing pod's
 * exit leaves the lines between it and the verdict - typically the
 * collective's own errors - to a read after all.
 */
void tails_leave(struct launch_pod *p)
{
	struct err e = ERR_INIT;

	if (p->leaving)
		return;
	p->leaving = 1;
	if (p->log && p->log_once)
		return;		/* a read of what it wrote: it ends by itself */
	if (p->log && kube_log_complete_until(p->log, kube_wall_now(), &e) == 0)
		return;
	err_clear(&e);
	tails_survivor_left(p, NULL);
}
