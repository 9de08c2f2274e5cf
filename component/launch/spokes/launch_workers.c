/*
 * launch_workers.c - a spoke of the wait (launch_hub.c is the hub): the
 * job's worker pods (launch_pods.c), a watch on them (by the operator's
 * job-name label), and one log follow per worker container
 * (launch_follow.c, with the stream slots; how a follow ends early
 * launch_tails.c). What it sees it reports to the hub (struct
 * workers_reports); the hub asks it back here (workers_drained, _settle,
 * _stuck, _count), and here is what the verdict waits for.
 *
 * A follow starts when the pod watch shows the worker container running or
 * terminated (following a container that is still being created gets 400
 * "waiting to start"). Workers that appear late are picked up by the same
 * watch. A container restart (restartCount + 1) starts a new follow of the
 * new container from its beginning; a follow that ends while its container
 * is still running (a dropped connection) is resumed after a short pause,
 * skipping the lines already printed (launch_logs.h). `--logs=first` follows
 * only worker 0, `--logs=none` none, `--log-workers 0-7` workers 0 to 7.
 *
 * A worker whose container has already exited when we first see it (fast
 * workers, a big job whose pods finish before we get to them) gets its log
 * read once, without follow=true. At most LAUNCH_LOG_STREAMS_MAX streams
 * are open at once (each is a connection to the API server): the other
 * workers queue, exited ones first since their read ends at once; a
 * queued worker's log is read from its beginning when its turn comes, so
 * nothing is lost, only delayed (with more running workers than slots, a
 * queued worker's lines appear when a slot frees; with --log-turn, the
 * followed workers take turns, launch_follow.c's on_turn, so each one's
 * lines appear within about running/slots turns).
 *
 * After the job finished (draining), the hub ends the wait when every
 * worker's log is complete - workers_drained() - or after a whole
 * --log-drain in which no finished worker's log moved on
 * (workers_progress()).
 * Complete means certain, never guessed from a quiet stream: the kubelet
 * ended the stream (the container exited), or a read of the log's end
 * (kube_log_complete, started when the pod watch shows the container
 * terminated, so that it is done when the operator's verdict comes; its
 * answer is always waited for) placed the stream in it and delivered the
 * rest. A stream that is
 * slow, stalled or behind is waited for, so no line of a terminated
 * container is lost unless --log-drain runs out, and then it is named.
 *
 * The same pod states feed fail-fast: a worker container waiting with
 * ErrImagePull / ImagePullBackOff / InvalidImageName /
 * CreateContainerConfigError, or a pod the scheduler calls Unschedulable.
 */
#include <stdlib.h>
#include <string.h>

#include "yj/jtree.h"
#include "launch_workers_int.h"

struct workers *workers_new(const struct launch_ctx *ctx, const struct workers_reports *rep,
			    void *hub)
{
	struct workers *w = xcalloc(1, sizeof(*w));

	w->ctx = ctx;
	w->rep = rep;
	w->hub = hub;
	return w;
}

int workers_start(struct workers *w, const char *from, struct err *e)
{
	struct buf sel = BUF_INIT;

	if (from)	/* right after our create: no pod can be older */
		w->synced = 1;
	if (w->ctx->deny.pods)	/* cannot list pods: said before the create */
		return 0;
	jobapi_pod_selector(w->ctx->api, w->ctx->name, &sel);
	w->watch = pods_watch(w, sel.data, from, e);
	/* what the run needs of a pod is in struct launch_pod and the diagnosis:
	 * the watch need not hold every pod object too (1,000 workers: ~15 MB) */
	kube_watch_track_meta(w->watch);
	buf_free(&sel);
	return w->watch ? 0 : -1;
}

/* Has some worker been seen fail (a non-zero exit, a restart, its pod gone)? */
static int failure_seen(const struct workers *w)
{
	for (int i = 0; i < w->npods; i++)
		if (w->pods[i]->exit_code != 0 || w->pods[i]->restarts > 0 || w->pods[i]->gone)
			return 1;
	return 0;
}

/*
 * Workers the job's status counts as finished whose pods we have not seen
 * finish (or go) yet: the pod watch is a separate stream and, with many
 * workers, its events can trail the job's terminal event by seconds. Only
 * workers whose logs we want count (--logs first: worker 0).
 */
static int workers_unseen(const struct workers *w, const struct launch_verdict *v)
{
	int done = 0, seen = 0, unseen;

	if (w->ctx->o->logs == LOGS_NONE || workers_logs_denied(w) || w->ctx->deny.pods)
		return 0;
	done = v->w.succeeded + v->w.failed;
	/*
	 * A Succeeded status without worker counts (TrainJob) has ended every
	 * worker, and the job watch can deliver it before the pod watch
	 * delivers the last pod's exit: ending then counted that worker as
	 * still active in the outputs (60-launch-run's tj1, on a busy machine).
	 * So every pod seen is waited for until seen finished. Only those seen:
	 * a pod never seen (never created, or already collected) will not
	 * show up, and waiting for numNodes of them held such a run for the
	 * whole --log-drain.
	 */
	int succeeded_uncounted = !v->counted && v->terminal && v->succeeded, ours = 0;
	for (int i = 0; i < w->npods; i++) {
		const struct launch_pod *p = w->pods[i];
		if (!launch_opts_logs_worker(w->ctx->o, p->index))
			continue;
		ours++;
		if (p->terminated || p->gone)
			seen++;
	}
	if (succeeded_uncounted) {
		unseen = ours - seen;
	} else if (w->ctx->o->logs == LOGS_FIRST) {
		unseen = done > 0 && seen == 0 ? 1 : 0;
	} else if (w->ctx->o->log_workers.n) {
		/* --log-workers: of the `done`, at most those outside the set are not
		 * ours to wait for (which ones finished, the counts do not say) */
		int want = v->w.replicas > 0 ? launch_opts_logs_count(w->ctx->o, v->w.replicas) : 0;
		int done_ours = v->w.replicas > 0 ? done - (v->w.replicas - want) : 0;
		unseen = done_ours > seen ? done_ours - seen : 0;
	} else {
		unseen = done > seen ? done - seen : 0;
	}
	/*
	 * A status without worker counts (TrainJob: it counts child Jobs) does
	 * not say which worker failed; after Failed, that worker is the one
	 * still to see. The job watch can deliver Failed before the pod watch
	 * delivers the worker's exit, and ending then loses its last lines and
	 * the diagnosis its cause (63-launch-failure did, on a busy machine):
	 * it is waited for like any unseen worker, within --log-drain.
	 */
	if (!unseen && !v->counted && launch_verdict_failed(v) && !failure_seen(w))
		unseen = 1;
	return unseen;
}

/*
 * After Failed, may the workers still running be let go? Not before the
 * failure itself is in: the job watch can deliver Failed before the pod
 * watch delivers the failed worker's "terminated", and that worker's last
 * lines (its error) must not be cut. So: every worker the status counts as
 * finished has been seen finish, and, when the status has no worker counts
 * (TrainJob), some worker has been seen fail - after the verdict's list,
 * which alone can say which pods the job had. With counts, the survivors'
 * reads go out beside the list rather than after it (one round trip after
 * the verdict instead of two): a survivor read is of a log up to now, right
 * whatever the list then shows, and the exit waits for the list all the
 * same (workers_drained).
 */
static int survivors_only(const struct workers *w, const struct launch_verdict *v)
{
	if (workers_unseen(w, v))
		return 0;
	return v->counted || (!w->list_call && failure_seen(w));
}

/*
 * At a Failed verdict, what the pod watch showed is caught up with a list
 * of the pods. The job watch and the pod watch are separate streams, and
 * the pod watch can trail by seconds (a busy apiserver, a watch cache
 * behind): the operator wrote the verdict after the pod updates it judged,
 * yet those can still be on their way, and the diagnosis must be of them -
 * a worker restarted under restartPolicy ExitCode is judged on its last
 * run, not on the crash before it (63-launch-failure's rst named exit 137,
 * or no worker at all, on a busy machine). So must the wait for logs when
 * the status does not count the workers (a TrainJob's counts child Jobs):
 * only a list can say which pods the job had, and a node the watch had
 * not shown yet was not waited for (61-launch-trainjob's late node, with
 * the pods' watch behind). A success whose status counts its workers
 * waits for the watch to show them finished (workers_unseen), and its exit
 * waits for no request.
 */
static int catch_up_due(const struct workers *w, const struct launch_verdict *v)
{
	if (!w->watch || w->watch_failed || w->ctx->deny.pods)
		return 0;
	return launch_verdict_failed(v) ||
	       (!v->counted && w->ctx->o->logs != LOGS_NONE && !workers_logs_denied(w));
}

/*
 * The job is finished (draining): stop waiting for what cannot come.
 * - A follow that ended cleanly is settled, even if the pod update saying
 *   "terminated" has not arrived yet: complete after a first clean end,
 *   else what was written since is read once (follow_refollow_end).
 * - A worker whose container has terminated (pod status) has its follow
 *   finished from the log's end (tails_complete). When that cannot
 *   place the stream, the stream's own end is waited for, as is a stream
 *   still delivering, reconnecting or queued (--log-drain).
 * - After Failed, when leave_survivors (survivors_only decides it), a
 *   worker still running (a survivor stuck in a collective) is left
 *   (tails_leave): the lines it wrote by then are read once, then
 *   it is named and its log not followed further - the verdict stands and
 *   nothing it could still print is worth holding the step for.
 */
static void settle_follows(struct workers *w, int leave_survivors)
{
	w->draining = 1;
	for (int i = 0; i < w->npods; i++) {
		struct launch_pod *p = w->pods[i];
		if (p->refollow && p->clean_end)	/* even if it still says running */
			follow_refollow_end(p);
		tails_complete(p);
		if (leave_survivors && p->running && !p->gone && (p->log || p->refollow || p->queued))
			tails_leave(p);
	}
}

/* The follows settle (settle_follows); this side says whether the
 * survivors of a failure may be left. */
void workers_settle(struct workers *w, const struct launch_verdict *v)
{
	if (!w->list_asked && v->terminal && catch_up_due(w, v)) {
		w->list_asked = 1;
		pods_list(w, NULL);
	}
	settle_follows(w, launch_verdict_failed(v) && survivors_only(w, v));
}

/* Pods the verdict's list showed deleted whose DELETED event the watch
 * has yet to deliver. */
static int deletions_due(const struct workers *w)
{
	for (int i = 0; !w->watch_failed && i < w->npods; i++)
		if (w->pods[i]->deletion_due)
			return 1;
	return 0;
}

int workers_drained(const struct workers *w, const struct launch_verdict *v)
{
	return (w->synced || !w->watch || w->ctx->o->logs == LOGS_NONE) && !w->list_call &&
	       !deletions_due(w) && !follow_any(w) && !workers_unseen(w, v);
}

unsigned long workers_progress(const struct workers *w)
{
	return w->progress;
}

int workers_incomplete(const struct workers *w, const struct launch_verdict *v, struct buf *out)
{
	int n = 0, unseen = workers_unseen(w, v);

	for (int i = 0; i < w->npods; i++) {
		const struct launch_pod *p = w->pods[i];
		if (workers_logs_denied(w) || !launch_opts_logs_worker(w->ctx->o, p->index))
			continue;
		if ((!p->running && !p->terminated) || p->done_restarts >= p->restarts)
			continue;
		if (n < 10)
			buf_addf(out, "%sworker-%d", n ? ", " : "", p->index);
		n++;
	}
	if (n > 10)
		buf_addf(out, " and %d more", n - 10);
	if (unseen)
		buf_addf(out, "%s%d worker%s whose pod was never seen finished", n ? " and " : "",
			  unseen, unseen > 1 ? "s" : "");
	return n + unseen;
}

/* Of the stuck workers, the one the diagnosis names first (diag_first_of):
 * the message and --out-failure name the same worker by one rule. */
int workers_stuck(const struct workers *w, char *reason, size_t rn, char *msg, size_t mn)
{
	int *stuck = xcalloc((size_t)w->npods + 1, sizeof(*stuck)), n = 0, first;
	const struct launch_pod *p = NULL;

	for (int i = 0; i < w->npods; i++)
		if (!w->pods[i]->gone && w->pods[i]->stuck[0])
			stuck[n++] = w->pods[i]->index;
	first = diag_first_of(w->ctx->diag, stuck, n);
	free(stuck);
	for (int i = 0; n && !p; i++)
		if (!w->pods[i]->gone && w->pods[i]->stuck[0] && w->pods[i]->index == first)
			p = w->pods[i];
	if (!p)
		return 0;
	snprintf(reason, rn, "%s", p->stuck);
	snprintf(msg, mn, "worker-%d (%s): %s%s%s", p->index, p->name, p->stuck,
		 p->stuck_msg && p->stuck_msg[0] ? ": " : "", p->stuck_msg ? p->stuck_msg : "");
	return 1;
}

int workers_count(const struct workers *w, struct launch_workers *c)
{
	c->active = c->succeeded = c->failed = 0;
	for (int i = 0; i < w->npods; i++) {
		const struct launch_pod *p = w->pods[i];
		if (p->gone)
			continue;
		if (p->running)
			c->active++;
		else if (p->terminated && p->exit_code == 0)
			c->succeeded++;
		else if (p->terminated)
			c->failed++;
	}
	return w->npods;
}

/* On stderr: how each worker that did not succeed ended. */
void workers_report(const struct workers *w)
{
	for (int i = 0; i < w->npods; i++) {
		const struct launch_pod *p = w->pods[i];
		if (p->terminated && p->exit_code != 0)
			launch_progress_note(w->ctx->prog, "worker-%d (%s) exited with code %d%s%s%s",
					     p->index, p->name, p->exit_code,
					     p->term_reason[0] ? " (" : "", p->term_reason,
					     p->term_reason[0] ? ")" : "");
		if (p->restarts > 0)
			launch_progress_note(w->ctx->prog, "worker-%d (%s) restarted %d time(s)",
					     p->index, p->name, p->restarts);
	}
}

void workers_stop(struct workers *w)
{
	kube_watch_stop(w->watch);
	w->watch = NULL;
	kube_cancel(w->list_call);
	w->list_call = NULL;
	pods_free(w);
}

void workers_free(struct workers *w)
{
	if (!w)
		return;
	workers_stop(w);
	free(w);
}
