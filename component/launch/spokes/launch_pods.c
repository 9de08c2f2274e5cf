/*
 * launch_pods.c - the workers' pods as the pod watch shows them (by the
 * operator's job-name label), and as the verdict's list holds them: one
 * struct launch_pod each (launch_workers_int.h), its container's state,
 * what fail-fast needs (a stuck reason), what the diagnosis is fed; a
 * pod's change starts or finishes its follow (launch_follow.c). Part of the
 * workers spoke (launch_workers.c is its face).
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
	follow_start(p);
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
		pods_list(w, cont);
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

/*
 * The list at the verdict (catch_up_due) is of what the pod watch has yet
 * to deliver: the API server's watch cache, which sent the watch its
 * events, holds them already. So it is asked not older than the newest pod
 * the watch showed, which the cache serves at once. A consistent list
 * (no resourceVersion) would also wait for the cache to catch up with
 * etcd: 0-100 ms on a 1.36 server (kube_list_opts.not_older_than), the
 * largest part of a Failed run's exit on the real stack. What it gives
 * up: with several API servers, the one asked can trail the operator's
 * by its own etcd watch (milliseconds); what it has not seen, the watch
 * still delivers within --log-drain.
 */
static void newest_rv(const struct workers *w, char *out, size_t n)
{
	unsigned long long rv = 0;

	for (int i = 0; i < w->npods; i++)
		if (w->pods[i]->rv > rv)
			rv = w->pods[i]->rv;
	snprintf(out, n, "%llu", rv);	/* "0": any state of the cache */
}

void pods_list(struct workers *w, const char *cont)
{
	struct kube_list_opts sel = { NULL, NULL, 500, cont, NULL };
	struct kube_request rq;
	struct buf label = BUF_INIT;
	char rv[32];

	newest_rv(w, rv, sizeof(rv));
	sel.not_older_than = rv;
	jobapi_pod_selector(w->ctx->api, w->ctx->name, &label);
	sel.label_selector = label.data;
	kube_req_list(&rq, &KUBE_POD, w->ctx->ns, &sel);
	w->list_call = kube_start(w->ctx->c, &rq, on_list_page, w);
	kube_request_free(&rq);
	buf_free(&label);
}

struct kube_watch *pods_watch(struct workers *w, const char *selector, const char *from,
			      struct err *e)
{
	return launch_ctx_watch(w->ctx, &KUBE_POD, selector, NULL, from, NULL, on_pod_event,
				on_pod_watch_state, w, e);
}

void pods_free(struct workers *w)
{
	for (int i = 0; i < w->npods; i++)
		pod_free(w->pods[i]);
	free(w->pods);
	w->pods = NULL;
	w->npods = w->cap_pods = 0;
}
