/*
 * launch_workers.c - a spoke of the launch state machine (launch_machine.c
 * is the hub): the job's worker pods, a watch on them (by the operator's
 * job-name label), and one log follow per worker container. What it sees
 * it reports to the hub (st->hub->pods_changed, ->logs_changed); the hub
 * asks it back (launch_workers_drained, _settle, _stuck, _count).
 *
 * A follow starts when the pod watch shows the worker container running or
 * terminated (following a container that is still being created gets 400
 * "waiting to start"). Workers that appear late are picked up by the same
 * watch. A container restart (restartCount + 1) starts a new follow of the
 * new container from its beginning; a follow that ends while its container
 * is still running (a dropped connection) is resumed after a short pause,
 * skipping the lines already printed (launch_logs.h). `--logs=first` follows
 * only worker 0, `--logs=none` none.
 *
 * A worker whose container has already exited when we first see it (fast
 * workers, a big job whose pods finish before we get to them) gets its log
 * read once, without follow=true. At most LAUNCH_LOG_STREAMS_MAX streams
 * are open at once (each is a connection to the API server): the other
 * workers queue, exited ones first since their read ends at once; a
 * queued worker's log is read from its beginning when its turn comes, so
 * nothing is lost, only delayed (with more running workers than slots, a
 * queued worker's lines appear when a slot frees).
 *
 * After the job finished (draining), the hub ends the wait when every
 * worker's log is complete - launch_workers_drained() - or at --log-drain.
 * Complete means certain, never guessed from a quiet stream: the kubelet
 * ended the stream (the container exited), or a read of the log's end
 * (kube_log_complete, after the verdict: only then is its answer waited
 * for) placed the stream in it and delivered the rest. A stream that is
 * slow, stalled or behind is waited for, so no line of a terminated
 * container is lost unless --log-drain runs out, and then it is named.
 *
 * The same pod states feed fail-fast: a worker container waiting with
 * ErrImagePull / ImagePullBackOff / InvalidImageName /
 * CreateContainerConfigError, or a pod the scheduler calls Unschedulable.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jtree.h"
#include "launch_state.h"

#define REFOLLOW_DELAY_S 0.5
#define MAX_DROPS 20
/* How far back the end of an exited container's log is read to finish its
 * stream at once (kube_log_complete): a stream that keeps up is a few lines
 * behind at most; one further behind ends when the kubelet ends it (about a
 * second after the exit on a real one). There used to be a shortcut for a
 * quiet stream that had always kept up (cut after 100 ms of quiet): a
 * kubelet stalled across the verdict (tests/suites/94-stall.sh) made it cut
 * streams that still held half their lines. */
#define DRAIN_TAIL_LINES 32

/* Which worker a pod is, and its container, per API (lib/jobapi.h). */
static const char *index_label(const struct launch_state *st)
{
	return st->api->pod_index_label;
}

static const char *worker_container(const struct launch_state *st)
{
	return st->api->container;
}

static struct launch_pod *pod_find(struct launch_state *st, const char *uid)
{
	for (int i = 0; i < st->npods; i++)
		if (strcmp(st->pods[i]->uid, uid) == 0)
			return st->pods[i];
	return NULL;
}

static struct launch_pod *pod_add(struct launch_state *st, const char *uid, const char *name)
{
	struct launch_pod *p = xcalloc(1, sizeof(*p));

	p->st = st;
	p->uid = xstrdup(uid);
	p->name = xstrdup(name);
	p->index = -1;
	p->done_restarts = -1;
	launch_logstream_init(&p->ls, -1, -1);
	if (st->npods == st->cap_pods) {
		st->cap_pods = st->cap_pods ? 2 * st->cap_pods : 8;
		st->pods = xrealloc(st->pods, (size_t)st->cap_pods * sizeof(*st->pods));
	}
	st->pods[st->npods++] = p;
	return p;
}

static void pod_free(struct launch_pod *p)
{
	kube_log_stop(p->log);
	kube_timer_cancel(p->refollow);
	free(p->uid);
	free(p->name);
	free(p);
}

/* The status of the worker container (by name, else the first one). */
static const cJSON *container_status(const struct launch_state *st, const cJSON *pod)
{
	const cJSON *list = jtree_get(jtree_get(pod, "status"), "containerStatuses");
	const cJSON *cs;

	cJSON_ArrayForEach(cs, list) {
		const char *n = jtree_get_string(cs, "name", NULL);
		if (n && strcmp(n, worker_container(st)) == 0)
			return cs;
	}
	return cJSON_GetArrayItem(list, 0);
}

static int is_stuck_reason(const char *r)
{
	static const char *const never[] = {
		"ErrImagePull", "ImagePullBackOff", "InvalidImageName",
		"CreateContainerConfigError", "ErrImageNeverPull",
	};
	for (size_t i = 0; r && i < sizeof(never) / sizeof(never[0]); i++)
		if (strcmp(r, never[i]) == 0)
			return 1;
	return 0;
}

/* Record from a pod object what fail-fast needs. */
static void pod_stuck_state(struct launch_pod *p, const cJSON *pod, const cJSON *cs)
{
	const cJSON *waiting = jtree_get(jtree_get(cs, "state"), "waiting");
	const cJSON *c;

	p->stuck[0] = '\0';
	p->stuck_msg[0] = '\0';
	if (waiting && is_stuck_reason(jtree_get_string(waiting, "reason", NULL))) {
		snprintf(p->stuck, sizeof(p->stuck), "%s", jtree_get_string(waiting, "reason", NULL));
		snprintf(p->stuck_msg, sizeof(p->stuck_msg), "%s",
			 jtree_get_string(waiting, "message", ""));
		return;
	}
	cJSON_ArrayForEach(c, jtree_get(jtree_get(pod, "status"), "conditions")) {
		const char *t = jtree_get_string(c, "type", NULL);
		const char *s = jtree_get_string(c, "status", NULL);
		const char *r = jtree_get_string(c, "reason", NULL);
		if (t && s && r && strcmp(t, "PodScheduled") == 0 && strcmp(s, "False") == 0 &&
		    strcmp(r, "Unschedulable") == 0) {
			snprintf(p->stuck, sizeof(p->stuck), "Unschedulable");
			snprintf(p->stuck_msg, sizeof(p->stuck_msg), "%s",
				 jtree_get_string(c, "message", ""));
		}
	}
}

static int wants_logs(const struct launch_state *st, const struct launch_pod *p)
{
	if (st->o->logs == LOGS_NONE || st->phase != RUN_WAITING || st->deny.logs ||
	    st->deny.pods)
		return 0;	/* (a denial was said once, before the create) */
	return st->o->logs == LOGS_ALL || p->index == 0;
}

static void follow(struct launch_pod *p);
static void survivor_left(struct launch_pod *p, const struct err *e);

/* Start queued follows while slots are free: exited containers first. */
static void start_queued(struct launch_state *st)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < st->npods && st->nfollows < LAUNCH_LOG_STREAMS_MAX; i++)
			if (st->pods[i]->queued && (pass || st->pods[i]->terminated))
				follow(st->pods[i]);
}

/* Tell the hub the logs moved on (it drains after the verdict). */
static void drain_check(struct launch_state *st)
{
	st->hub->logs_changed(st);
}

static void on_refollow(void *ud)
{
	struct launch_pod *p = ud;

	p->refollow = NULL;
	if (p->clean_end && (!p->running || p->gone)) {
		/* the container did finish, or its pod is gone (a suspended or
		 * preempted job's): that clean end was the whole log */
		p->done_restarts = p->ls.restarts;
	} else {
		launch_logstream_resume(&p->ls);
		follow(p);
	}
	p->clean_end = 0;
	drain_check(p->st);
}

static void on_line(void *ud, const char *line, size_t len, int truncated)
{
	struct launch_pod *p = ud;
	int fresh = !p->ls.skip;	/* not a line a resumed follow repeats */
	(void)truncated;
	launch_logstream_line(&p->ls, line, len, &p->st->out);
	if (fresh) {
		launch_metrics_line(&p->st->metrics, p->index, line, len);
		diag_line(p->st->diag, p->index, line, len);	/* a bounded ring */
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
	struct launch_state *st = p->st;

	p->log = NULL;
	st->nfollows--;
	if (p->leaving) {	/* a survivor's last read (leave_survivor) */
		survivor_left(p, e);
		start_queued(st);
		drain_check(st);
		return;
	}
	if (e && e->http_status == 403 && !st->deny.logs) {
		/* what the access review would have said, had it been allowed
		 * to answer: no follow will do better, so none is retried (each
		 * would cost a backoff, and the drain would wait for them) */
		st->deny.logs = 1;
		launch_progress_note(&st->prog, "warning: reading worker logs is forbidden (%s): "
				     "logs are not shown", e->msg);
	}
	if (e && st->deny.logs) {
		p->done_restarts = p->ls.restarts;	/* as complete as it will ever be */
	} else if (!e && (!p->running || st->draining || p->gone)) {
		p->done_restarts = p->ls.restarts;
	} else if (!p->gone && wants_logs(st, p) && !kube_err_tls_untrusted(e) &&
		   ++p->drops <= MAX_DROPS) {
		p->clean_end = !e;
		p->refollow = kube_timer_add(st->c, REFOLLOW_DELAY_S, on_refollow, p);
	} else if (e) {
		launch_progress_note(&st->prog, "warning: worker-%d log: %s", p->index, e->msg);
	}
	start_queued(st);
	drain_check(st);
}

/* Start (or resume) the follow of the current container if it is due. */
static void follow(struct launch_pod *p)
{
	struct launch_state *st = p->st;
	struct kube_log_opts lo;
	struct err e = ERR_INIT;

	p->queued = 0;
	if (p->log || p->refollow || p->gone || !wants_logs(st, p))
		return;
	if (!p->running && !p->terminated)
		return;
	if (p->ls.restarts != p->restarts) {
		/* a new container: new log, from its start */
		launch_logstream_init(&p->ls, p->index, p->restarts);
		p->drops = 0;
		diag_container(st->diag, p->index);	/* its last lines start again */
	}
	if (p->done_restarts >= p->ls.restarts)
		return;
	if (st->nfollows >= LAUNCH_LOG_STREAMS_MAX) {
		p->queued = 1;
		return;
	}
	memset(&lo, 0, sizeof(lo));
	/* exited before we got to it: read what it wrote, no follow needed */
	lo.once = p->terminated && !p->running;
	lo.timestamps = 1;	/* how far behind the stream is: launch_workers_settle */
	lo.ns = st->ns;
	lo.pod = p->name;
	lo.container = worker_container(st);
	lo.on_line = on_line;
	lo.on_end = on_log_end;
	lo.ud = p;
	p->tail_asked = 0;
	p->log_once = lo.once;
	p->log = kube_log_follow(st->c, &lo, &e);
	if (p->log)
		st->nfollows++;
	else
		launch_progress_note(&st->prog, "warning: cannot follow the log of %s: %s",
				     p->name, e.msg);
}

/*
 * The container has terminated, so its log is final: finish its follow from
 * the log's end now (kube_log_complete) rather than when the kubelet notices
 * the exit, up to a second later. Only after the verdict (draining): then
 * the step waits for the answer; asked before, the kubelet's end usually
 * came first and the read was cancelled, an HTTP 500 in the API server for
 * every worker (issue 21). Not for a read of an exited container (it ends
 * by itself) nor twice for one follow.
 */
static void complete_from_tail(struct launch_pod *p)
{
	struct err e = ERR_INIT;

	if (!p->st->draining || !p->log || p->log_once || p->tail_asked || !p->terminated ||
	    p->running || p->ls.restarts > p->restarts)
		return;
	p->tail_asked = 1;	/* done: on_log_end, as for a stream the kubelet ended */
	if (kube_log_complete(p->log, DRAIN_TAIL_LINES, &e))
		err_clear(&e);
}

/*
 * Tell the diagnosis about a worker's pod - unless a newer pod of the same
 * index exists (the operator re-created it): the old one's late updates and
 * its deletion must not overwrite what the new one says.
 */
static void diagnose(struct launch_state *st, const struct launch_pod *p, const cJSON *pod)
{
	int i = 0;

	while (i < st->npods && st->pods[i] != p)
		i++;
	for (i++; i < st->npods; i++)
		if (st->pods[i]->index == p->index && !st->pods[i]->gone)
			return;
	diag_pod(st->diag, p->index, pod, worker_container(st));
}

static void pod_update(struct launch_state *st, const cJSON *pod)
{
	const char *uid = jtree_get_string(pod, "metadata.uid", NULL);
	const char *name = jtree_get_string(pod, "metadata.name", NULL);
	struct buf label = BUF_INIT;
	const char *idx;
	struct launch_pod *p;
	const cJSON *cs, *state;

	if (!uid || !name)
		return;
	buf_adds(&label, "metadata.labels");
	jtree_path_add_key(&label, index_label(st));	/* a label has dots: escaped */
	idx = jtree_get_string(pod, label.data, NULL);
	buf_free(&label);
	p = pod_find(st, uid);
	if (!p)
		p = pod_add(st, uid, name);
	p->index = idx ? atoi(idx) : -1;
	p->ls.index = p->index;
	cs = container_status(st, pod);
	state = jtree_get(cs, "state");
	p->restarts = cJSON_IsNumber(jtree_get(cs, "restartCount")) ?
		(int)jtree_get(cs, "restartCount")->valuedouble : 0;
	p->running = jtree_get(state, "running") != NULL;
	p->terminated = jtree_get(state, "terminated") != NULL;
	if (p->terminated) {
		const cJSON *t = jtree_get(state, "terminated");
		const cJSON *code = jtree_get(t, "exitCode");
		p->exit_code = cJSON_IsNumber(code) ? (int)code->valuedouble : 0;
		snprintf(p->term_reason, sizeof(p->term_reason), "%s",
			 jtree_get_string(t, "reason", ""));
	}
	pod_stuck_state(p, pod, cs);
	diagnose(st, p, pod);
	follow(p);
}

static void on_pod_event(void *ud, enum kube_event_type type, const cJSON *pod)
{
	struct launch_state *st = ud;

	if (type == KUBE_DELETED) {
		const char *uid = jtree_get_string(pod, "metadata.uid", NULL);
		struct launch_pod *p = uid ? pod_find(st, uid) : NULL;
		if (p) {
			/* its last state: a preemption or eviction may show only here */
			diagnose(st, p, pod);
			p->gone = 1;
			p->queued = 0;	/* its log cannot be read any more */
			p->stuck[0] = '\0';
		}
	} else {
		pod_update(st, pod);
	}
	st->hub->pods_changed(st);
}

static void on_pod_watch_state(void *ud, enum kube_watch_state s, const struct err *e)
{
	struct launch_state *st = ud;

	/* Pods are for logs and fail-fast only: the job watch decides the end,
	 * but the drain after it waits for the first list (the pods' logs). */
	if (s == KUBE_WATCH_SYNCED || s == KUBE_WATCH_FAILED) {
		st->pods_synced = 1;
		drain_check(st);
	}
	if (s == KUBE_WATCH_FAILED)
		launch_progress_note(&st->prog, "warning: cannot watch the worker pods: %s "
				     "(no worker logs)", e ? e->msg : "?");
	else if (s == KUBE_WATCH_POLLING && !st->deny.watch_pods)
		launch_progress_note(&st->prog, "warning: watching pods is forbidden: polling");
}

int launch_workers_start(struct launch_state *st, struct err *e)
{
	struct buf sel = BUF_INIT;

	if (st->deny.pods)	/* cannot list pods: said before the create */
		return 0;
	jobapi_pod_selector(st->api, st->name, &sel);
	st->pod_watch = st->hub->watch(st, &KUBE_POD, sel.data, NULL, on_pod_event,
				       on_pod_watch_state, e);
	buf_free(&sel);
	return st->pod_watch ? 0 : -1;
}

/* Stop following a log: what was printed stays, the rest is not read. */
static void log_done(struct launch_pod *p)
{
	if (p->log) {
		kube_log_cut(p->log);
		p->log = NULL;
		p->st->nfollows--;
	}
	kube_timer_cancel(p->refollow);
	p->refollow = NULL;
	p->queued = 0;
	p->clean_end = 0;
	p->done_restarts = p->restarts > p->ls.restarts ? p->restarts : p->ls.restarts;
}

/*
 * The job is finished (draining): stop waiting for what cannot come.
 * - A follow that ended cleanly is complete, even if the pod update saying
 *   "terminated" has not arrived yet (no REFOLLOW_DELAY_S pause).
 * - A worker whose container has terminated (pod status) has its follow
 *   finished from the log's end (complete_from_tail). When that cannot
 *   place the stream, the stream's own end is waited for, as is a stream
 *   still delivering, reconnecting or queued (--log-drain).
 * - After Failed, a worker still running (a survivor stuck in a collective)
 *   is left (leave_survivor): the lines it wrote by then are read once, then
 *   it is named and its log not followed further - the verdict stands and
 *   nothing it could still print is worth holding the step for.
 */
static int workers_unseen(const struct launch_state *st);

/*
 * After Failed, may the workers still running be let go? Not before the
 * failure itself is in: the job watch can deliver Failed before the pod
 * watch delivers the failed worker's "terminated", and that worker's last
 * lines (its error) must not be cut. So: every worker the status counts as
 * finished has been seen finish, and, when the status has no worker counts
 * (TrainJob), some worker has been seen fail.
 */
/* Has some worker been seen fail (a non-zero exit, a restart, its pod gone)? */
static int failure_seen(const struct launch_state *st)
{
	for (int i = 0; i < st->npods; i++)
		if (st->pods[i]->exit_code != 0 || st->pods[i]->restarts > 0 || st->pods[i]->gone)
			return 1;
	return 0;
}

static int survivors_only(const struct launch_state *st)
{
	struct launch_workers w;
	int counted = launch_workers_of(st->job, &w);	/* the handler's answer */

	if (workers_unseen(st))
		return 0;
	return counted || failure_seen(st);
}

/* wall clock, as the kubelet's timestamps */
static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The survivor is left: say so (and what its last read could not bring). */
static void survivor_left(struct launch_pod *p, const struct err *e)
{
	launch_progress_note(&p->st->prog, "worker-%d still running: log not followed further%s%s%s",
			     p->index, e ? " (its lines up to now: " : "", e ? e->msg : "", e ? ")" : "");
	log_done(p);
}

/*
 * After Failed, a worker still running is left. Its stream may still have
 * lines on the way that it wrote before the verdict (seen: a `step 5/10`
 * written around the verdict, in the log file, not on stdout), so one
 * bounded read first delivers what it wrote up to now
 * (kube_log_complete_until); on_log_end then names it. A survivor without
 * an open stream (reconnecting, queued) is named at once.
 */
static void leave_survivor(struct launch_pod *p)
{
	struct err e = ERR_INIT;

	if (p->leaving)
		return;
	p->leaving = 1;
	if (p->log && !p->log_once && kube_log_complete_until(p->log, wall_now(), &e) == 0)
		return;
	err_clear(&e);
	survivor_left(p, NULL);
}

void launch_workers_settle(struct launch_state *st, int job_failed)
{
	int failed = job_failed && survivors_only(st);

	for (int i = 0; i < st->npods; i++) {
		struct launch_pod *p = st->pods[i];
		if (p->refollow && p->clean_end) {
			kube_timer_cancel(p->refollow);
			p->refollow = NULL;
			p->clean_end = 0;
			p->done_restarts = p->ls.restarts;
		}
		complete_from_tail(p);
		if (failed && p->running && !p->gone && (p->log || p->refollow || p->queued))
			leave_survivor(p);
	}
}

int launch_workers_streaming(const struct launch_state *st)
{
	for (int i = 0; i < st->npods; i++)
		if (st->pods[i]->log || st->pods[i]->refollow || st->pods[i]->queued)
			return 1;
	return 0;
}

/*
 * Every log that can still come has come: the pod list is in (a job can be
 * seen finished before its pods are), and no stream is open, waiting to
 * resume, or queued. A log that can never be completed (the pod is gone,
 * the follow gave up) does not hold the wait: it is reported instead.
 */
/*
 * Workers the job's status counts as finished whose pods we have not seen
 * finish (or go) yet: the pod watch is a separate stream and, with many
 * workers, its events can trail the job's terminal event by seconds. Only
 * workers whose logs we want count (--logs first: worker 0).
 */
static int workers_unseen(const struct launch_state *st)
{
	struct launch_workers w;
	int done = 0, seen = 0, unseen, counted, ok = 1;

	if (st->o->logs == LOGS_NONE || st->deny.logs || st->deny.pods)
		return 0;
	counted = launch_workers_of(st->job, &w);
	done = w.succeeded + w.failed;
	for (int i = 0; i < st->npods; i++) {
		const struct launch_pod *p = st->pods[i];
		if (st->o->logs == LOGS_FIRST && p->index != 0)
			continue;
		if (p->terminated || p->gone)
			seen++;
	}
	if (st->o->logs == LOGS_FIRST)
		unseen = done > 0 && seen == 0 ? 1 : 0;
	else
		unseen = done > seen ? done - seen : 0;
	/*
	 * A status without worker counts (TrainJob: it counts child Jobs) does
	 * not say which worker failed; after Failed, that worker is the one
	 * still to see. The job watch can deliver Failed before the pod watch
	 * delivers the worker's exit, and ending then loses its last lines and
	 * the diagnosis its cause (63-launch-failure did, on a busy machine):
	 * it is waited for like any unseen worker, within --log-drain.
	 */
	if (!unseen && !counted && launch_judge(st->job, &ok) && !ok && !failure_seen(st))
		unseen = 1;
	return unseen;
}

int launch_workers_drained(const struct launch_state *st)
{
	return (st->pods_synced || !st->pod_watch || st->o->logs == LOGS_NONE) &&
	       !launch_workers_streaming(st) && !workers_unseen(st);
}

int launch_workers_incomplete(const struct launch_state *st, struct buf *out)
{
	int n = 0, unseen = workers_unseen(st);

	for (int i = 0; i < st->npods; i++) {
		const struct launch_pod *p = st->pods[i];
		if (st->o->logs == LOGS_NONE || st->deny.logs ||
		    (st->o->logs == LOGS_FIRST && p->index != 0))
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

const struct launch_pod *launch_workers_stuck(const struct launch_state *st)
{
	for (int i = 0; i < st->npods; i++)
		if (!st->pods[i]->gone && st->pods[i]->stuck[0])
			return st->pods[i];
	return NULL;
}

void launch_workers_count(const struct launch_state *st, struct launch_workers *w)
{
	w->active = w->succeeded = w->failed = 0;
	for (int i = 0; i < st->npods; i++) {
		const struct launch_pod *p = st->pods[i];
		if (p->gone)
			continue;
		if (p->running)
			w->active++;
		else if (p->terminated && p->exit_code == 0)
			w->succeeded++;
		else if (p->terminated)
			w->failed++;
	}
}

/* On stderr: how each worker that did not succeed ended. */
void launch_workers_report(struct launch_state *st)
{
	for (int i = 0; i < st->npods; i++) {
		const struct launch_pod *p = st->pods[i];
		if (p->terminated && p->exit_code != 0)
			launch_progress_note(&st->prog, "worker-%d (%s) exited with code %d%s%s%s",
					     p->index, p->name, p->exit_code,
					     p->term_reason[0] ? " (" : "", p->term_reason,
					     p->term_reason[0] ? ")" : "");
		if (p->restarts > 0)
			launch_progress_note(&st->prog, "worker-%d (%s) restarted %d time(s)",
					     p->index, p->name, p->restarts);
	}
}

void launch_workers_stop(struct launch_state *st)
{
	kube_watch_stop(st->pod_watch);
	st->pod_watch = NULL;
	for (int i = 0; i < st->npods; i++)
		pod_free(st->pods[i]);
	free(st->pods);
	st->pods = NULL;
	st->npods = st->cap_pods = 0;
}
