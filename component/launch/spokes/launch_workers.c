/*
 * launch_workers.c - a spoke of the wait (launch_hub.c is the hub): the
 * job's worker pods, a watch on them (by the operator's job-name label),
 * and one log follow per worker container (launch_follow.c). What it sees
 * it reports to the hub (struct workers_reports); the hub asks it back
 * (workers_drained, _settle, _stuck, _count).
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
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "yj/jtree.h"
#include "launch_workers_int.h"

static struct launch_pod *pod_find(struct workers *w, const char *uid)
{
	for (int i = 0; i < w->npods; i++)
		if (strcmp(w->pods[i]->uid, uid) == 0)
			return w->pods[i];
	return NULL;
}

static struct launch_pod *pod_add(struct workers *w, const char *uid, const char *name)
{
	struct launch_pod *p = xcalloc(1, sizeof(*p));

	p->w = w;
	p->uid = xstrdup(uid);
	p->name = xstrdup(name);
	p->index = -1;
	p->done_restarts = -1;
	launch_logstream_init(&p->ls, -1, -1);
	if (w->npods == w->cap_pods) {
		w->cap_pods = w->cap_pods ? 2 * w->cap_pods : 8;
		w->pods = xrealloc(w->pods, (size_t)w->cap_pods * sizeof(*w->pods));
	}
	w->pods[w->npods++] = p;
	return p;
}

static void pod_free(struct launch_pod *p)
{
	kube_log_stop(p->log);
	kube_timer_cancel(p->refollow);
	kube_timer_cancel(p->turn);
	free(p->uid);
	free(p->name);
	free(p->stuck_msg);
	free(p->turn_since);
	free(p);
}

/* The status of the worker container (by name, else the first one). */
static const cJSON *container_status(const struct workers *w, const cJSON *pod)
{
	const cJSON *list = jtree_get(jtree_get(pod, "status"), "containerStatuses");
	const cJSON *cs;

	cJSON_ArrayForEach(cs, list) {
		const char *n = jtree_get_string(cs, "name", NULL);
		if (n && strcmp(n, w->ctx->api->container) == 0)
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

/* A stuck pod's message, as said: at most STUCK_MSG_MAX bytes of it */
#define STUCK_MSG_MAX 511
static char *stuck_text(const char *msg)
{
	return xstrndup(msg, strnlen(msg, STUCK_MSG_MAX));
}

/* Record from a pod object what fail-fast needs. */
static void pod_stuck_state(struct launch_pod *p, const cJSON *pod, const cJSON *cs)
{
	const cJSON *waiting = jtree_get(jtree_get(cs, "state"), "waiting");
	const cJSON *c;

	p->stuck[0] = '\0';
	free(p->stuck_msg);
	p->stuck_msg = NULL;
	if (waiting && is_stuck_reason(jtree_get_string(waiting, "reason", NULL))) {
		snprintf(p->stuck, sizeof(p->stuck), "%s", jtree_get_string(waiting, "reason", NULL));
		p->stuck_msg = stuck_text(jtree_get_string(waiting, "message", ""));
		return;
	}
	cJSON_ArrayForEach(c, jtree_get(jtree_get(pod, "status"), "conditions")) {
		const char *t = jtree_get_string(c, "type", NULL);
		const char *s = jtree_get_string(c, "status", NULL);
		const char *r = jtree_get_string(c, "reason", NULL);
		if (t && s && r && strcmp(t, "PodScheduled") == 0 && strcmp(s, "False") == 0 &&
		    strcmp(r, "Unschedulable") == 0) {
			snprintf(p->stuck, sizeof(p->stuck), "Unschedulable");
			free(p->stuck_msg);
			p->stuck_msg = stuck_text(jtree_get_string(c, "message", ""));
		}
	}
}

/*
 * Tell the diagnosis about a worker's pod - unless a newer pod of the same
 * index exists (the operator re-created it): the old one's late updates and
 * its deletion must not overwrite what the new one says.
 */
static void diagnose(struct workers *w, const struct launch_pod *p, const cJSON *pod)
{
	int i = 0;

	while (i < w->npods && w->pods[i] != p)
		i++;
	for (i++; i < w->npods; i++)
		if (w->pods[i]->index == p->index && !w->pods[i]->gone)
			return;
	diag_pod(w->ctx->diag, p->index, pod, w->ctx->api->container);
}

/*
 * A pod's resourceVersion as a number, 0 when it is not one. The API calls
 * it opaque; etcd-backed servers give one object's versions increasing
 * (its mod revision), and it is compared here only to keep a late watch
 * event from undoing the verdict's list (catch_up_due): with 0, nothing is
 * compared and every event is taken as before.
 */
static unsigned long long rv_of(const cJSON *obj)
{
	const char *s = jtree_get_string(obj, "metadata.resourceVersion", NULL);
	char *end;
	unsigned long long rv;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	rv = strtoull(s, &end, 10);
	return *end || errno ? 0 : rv;
}

/* The pod was deleted: its log cannot be read any more. */
static void pod_gone(struct launch_pod *p)
{
	p->gone = 1;
	p->queued = 0;
	p->stuck[0] = '\0';
}

/* An older state of the pod than the one taken (a watch event that trails
 * the verdict's list), or, from the watch, a pod that list did not hold:
 * deleted already? */
static int pod_stale(const struct workers *w, const struct launch_pod *p, const cJSON *pod,
		     int listed)
{
	unsigned long long rv = rv_of(pod);

	if (!rv)
		return 0;
	return p ? rv < p->rv : !listed && rv < w->list_rv;
}

/* A pod as the watch delivered it, or as the verdict's list held it
 * (listed). Returns our entry for it (NULL: the pod has no uid or name, or
 * it is a stale event of a pod we do not have). */
static struct launch_pod *pod_update(struct workers *w, const cJSON *pod, int listed)
{
	const char *uid = jtree_get_string(pod, "metadata.uid", NULL);
	const char *name = jtree_get_string(pod, "metadata.name", NULL);
	struct buf label = BUF_INIT;
	const char *idx;
	struct launch_pod *p;
	const cJSON *cs, *state;

	if (!uid || !name)
		return NULL;
	p = pod_find(w, uid);
	if (pod_stale(w, p, pod, listed))
		return p;
	buf_adds(&label, "metadata.labels");
	jtree_path_add_key(&label, w->ctx->api->pod_index_label);	/* a label has dots: escaped */
	idx = jtree_get_string(pod, label.data, NULL);
	buf_free(&label);
	if (!p)
		p = pod_add(w, uid, name);
	p->rv = rv_of(pod);
	p->index = idx ? atoi(idx) : -1;
	p->ls.index = p->index;
	cs = container_status(w, pod);
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
	diagnose(w, p, pod);
	workers_follow(p);
	return p;
}

static void on_pod_event(void *ud, enum kube_event_type type, const cJSON *pod)
{
	struct workers *w = ud;

	if (type == KUBE_DELETED) {
		const char *uid = jtree_get_string(pod, "metadata.uid", NULL);
		struct launch_pod *p = uid ? pod_find(w, uid) : NULL;
		if (p) {
			/* its last state: a preemption or eviction may show only here
			 * (a deletion found by a re-list has only the pod's metadata:
			 * the watch keeps no more of it, kube_watch_track_meta) */
			if (jtree_get(pod, "status"))
				diagnose(w, p, pod);
			pod_gone(p);
			p->deletion_due = 0;
		}
	} else {
		pod_update(w, pod, 0);
	}
	w->rep->pods_changed(w->hub);
}

static void on_pod_watch_state(void *ud, enum kube_watch_state s, const struct err *e)
{
	struct workers *w = ud;

	/* Pods are for logs and fail-fast only: the job watch decides the end,
	 * but the drain after it waits for the first list (the pods' logs). */
	if (s == KUBE_WATCH_SYNCED || s == KUBE_WATCH_FAILED) {
		w->synced = 1;
		w->watch_failed = s == KUBE_WATCH_FAILED;
		w->rep->logs_changed(w->hub);
	}
	if (s == KUBE_WATCH_FAILED)
		launch_progress_note(w->ctx->prog, "warning: cannot watch the worker pods: %s "
				     "(no worker logs)", e ? e->msg : "?");
	else if (s == KUBE_WATCH_POLLING && !w->ctx->deny.watch_pods)
		launch_progress_note(w->ctx->prog, "warning: watching pods is forbidden: polling");
}

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
	w->watch = launch_ctx_watch(w->ctx, &KUBE_POD, sel.data, NULL, from, NULL, on_pod_event,
				    on_pod_watch_state, w, e);
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
 * (TrainJob), some worker has been seen fail.
 */
static int survivors_only(const struct workers *w, const struct launch_verdict *v)
{
	if (w->list_call || workers_unseen(w, v))
		return 0;
	return v->counted || failure_seen(w);
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

static void list_page(struct workers *w, const char *cont);

/*
 * A page of the verdict's list. Each pod is taken as the watch would have
 * delivered it, unless the watch already delivered a newer state; the
 * watch stream is kept, so a deleted pod's last state (its DELETED event
 * carries it: a restart's exit code) still arrives if it was on its way.
 * The list's resourceVersion is that of its first page (a paged list is
 * one snapshot). After the last page: a pod the list did not hold, last
 * seen in a state older than the list, has been deleted since, and the
 * watch has its DELETED event still to deliver, with the pod's last state
 * (a worker that restarted, then was deleted by cleanPodPolicy: the exit
 * code of its crash is there only; 63-launch-failure's bo2 under load).
 * The drain waits for it (workers_drained), as for a worker not yet seen.
 */
static void on_list_page(void *ud, struct kube_response *rs, const struct err *e)
{
	struct workers *w = ud;
	const cJSON *pod, *items = e ? NULL : jtree_get(rs->json, "items");
	const char *cont = e ? NULL : jtree_get_string(rs->json, "metadata.continue", NULL);

	w->list_call = NULL;
	if (!e && !w->list_rv)
		w->list_rv = rv_of(rs->json);
	cJSON_ArrayForEach(pod, items) {
		struct launch_pod *p = pod_update(w, pod, 1);
		if (p)
			p->listed = 1;
	}
	if (!e && cont && *cont) {
		list_page(w, cont);
		return;
	}
	for (int i = 0; !e && i < w->npods; i++) {
		struct launch_pod *p = w->pods[i];
		if (!p->listed && !p->gone && p->rv && p->rv < w->list_rv) {
			pod_gone(p);
			p->deletion_due = 1;
		}
	}
	/* a list that failed leaves what the watch showed: the drain goes on
	 * with it, as it did before there was a list; the pods of the pages
	 * it did not get are the watch's to show, however late */
	if (e)
		w->list_rv = 0;
	w->rep->pods_changed(w->hub);
}

static void list_page(struct workers *w, const char *cont)
{
	struct kube_list_opts sel = { NULL, NULL, 500, cont };
	struct kube_request rq;
	struct buf label = BUF_INIT;

	jobapi_pod_selector(w->ctx->api, w->ctx->name, &label);
	sel.label_selector = label.data;
	kube_req_list(&rq, &KUBE_POD, w->ctx->ns, &sel);
	w->list_call = kube_start(w->ctx->c, &rq, on_list_page, w);
	kube_request_free(&rq);
	buf_free(&label);
}

/* The follows settle (launch_follow.c); this side says whether the
 * survivors of a failure may be left. */
void workers_settle(struct workers *w, const struct launch_verdict *v)
{
	if (!w->list_asked && v->terminal && catch_up_due(w, v)) {
		w->list_asked = 1;
		list_page(w, NULL);
	}
	workers_follows_settle(w, launch_verdict_failed(v) && survivors_only(w, v));
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
	       !deletions_due(w) && !workers_streaming(w) && !workers_unseen(w, v);
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

int workers_stuck(const struct workers *w, char *reason, size_t rn, char *msg, size_t mn)
{
	for (int i = 0; i < w->npods; i++) {
		const struct launch_pod *p = w->pods[i];
		if (p->gone || !p->stuck[0])
			continue;
		snprintf(reason, rn, "%s", p->stuck);
		snprintf(msg, mn, "worker-%d (%s): %s%s%s", p->index, p->name, p->stuck,
			 p->stuck_msg && p->stuck_msg[0] ? ": " : "", p->stuck_msg ? p->stuck_msg : "");
		return 1;
	}
	return 0;
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
	for (int i = 0; i < w->npods; i++)
		pod_free(w->pods[i]);
	free(w->pods);
	w->pods = NULL;
	w->npods = w->cap_pods = 0;
}

void workers_free(struct workers *w)
{
	if (!w)
		return;
	workers_stop(w);
	free(w);
}
