/*
 * launch_kueue.c - a spoke of the wait (launch_hub.c is the hub): Kueue, the batch admission system, as far as a launcher must
 * know it to tell "queued" from "stuck".
 *
 * A job joins a Kueue LocalQueue through the label kueue.x-k8s.io/queue-name
 * on the job itself. Kueue's webhook creates it suspended
 * (ApplyDefaultForSuspend, pkg/controller/jobframework/defaults.go:36-46 in
 * kubernetes-sigs/kueue at ff69552e); without the webhook its reconciler
 * suspends a running job whose Workload is not admitted ("Not admitted by
 * cluster queue", pkg/controller/jobframework/reconciler.go:667-676). It
 * makes one Workload per job, labelled kueue.x-k8s.io/job-uid=<job uid> and
 * owned by the job as its controller (reconciler.go:1619-1636,
 * pkg/controller/constants/constants.go:43), named
 * "<kind>-<job name>-<5 hex of a SHA-1>" (pkg/controller/jobframework/
 * workload_names.go:64-118). The Workload's conditions
 * (apis/kueue/v1beta2/workload_types.go:933-1017) say where it stands:
 * QuotaReserved=False carries the pending reason in its message (reason
 * "Pending", pkg/scheduler/scheduler.go:1188), Admitted=True lets the job
 * run, Evicted=True (reason "Preempted", workload_types.go:1085) takes it
 * back. Kueue records Normal events on the job: Started "Admitted by
 * clusterQueue CQ" (reconciler.go:1489, 1518), Stopped with the eviction's
 * message (reconciler.go:1567), Suspended (events.go:21-23). They say
 * nothing the Workload does not: Started is sent when the job is
 * un-suspended because its Workload is Admitted (reconciler.go:634-639,
 * pkg/workload/workload.go:1273-1275) and names status.admission.clusterQueue;
 * Stopped carries the Evicted condition's message (reconciler.go:594-596).
 *
 * What this spoke does:
 *  - the queue of a job (its label), or none: a job without it is never
 *    "queued", whatever its suspend flag says (a person suspended it);
 *  - one watch on the job's Workload (label selector on the job's uid), only
 *    for a queue-managed job: the request budget grows by one watch, for
 *    those jobs only. Admission and eviction come from it and from the
 *    job's own suspend flag, never from the namespace's events, so what a
 *    launcher reads does not grow with the other jobs of its namespace (a
 *    sweep of N launches in one namespace: N watches of one object each,
 *    not N watches of every event);
 *  - where the Workload cannot be read (the access check, launch_access.c,
 *    sets ctx->deny.workloads; or its watch fails for good: 403, or 404
 *    where Kueue's API is not served), instead one watch on the job's own
 *    Normal events (fieldSelector involvedObject.uid and type=Normal,
 *    selectable fields of core events: kubernetes
 *    pkg/registry/core/event/strategy.go ToSelectableFields): Kueue's
 *    Started/Stopped, said as one line each, the eviction's reason kept;
 *  - the judgement "held by Kueue" (kueue_held) and its reason, which
 *    the hub turns into the Queued state, the queue clock and the lines.
 * It reports a Workload change through struct kueue_reports; the hub
 * decides what it means.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yj/jtree.h"
#include "launch_kueue.h"
#include "launch_kueue_reasons.h"

struct kueue {
	const struct launch_ctx *ctx;
	const struct kueue_reports *rep;
	void *hub;
	cJSON *workload;	/* the job's Workload as last seen, or NULL */
	struct kube_watch *watch;
	struct kube_watch *events;	/* the job's Normal events: no Workload to read */
	char *from;		/* the resourceVersion the watches start at, or NULL */
	int unreadable;		/* the Workload watch failed for good */
	char stopped[512];	/* Kueue's last Stopped event message */
	int started;		/* Kueue's Started event seen (admitted once) */
	struct kueue_eviction ev;	/* the evictions seen (kueue_evictions) */
	char ev_at[64];		/* lastTransitionTime of the Evicted=True counted last */
};

/* kueue.x-k8s.io/v1beta2 workloads (v1beta1 is served but deprecated:
 * config/components/crd/bases/kueue.x-k8s.io_workloads.yaml:41-42). */
const struct kube_resource KUEUE_WORKLOAD = { "kueue.x-k8s.io", "v1beta2", "workloads",
					      "Workload", 1 };
const struct kube_resource KUEUE_LOCALQUEUE = { "kueue.x-k8s.io", "v1beta2", "localqueues",
						"LocalQueue", 1 };

const char *launch_kueue_queue_of(const cJSON *job)
{
	struct buf path = BUF_INIT;
	const char *q;

	buf_adds(&path, "metadata.labels");
	jtree_path_add_key(&path, KUEUE_QUEUE_LABEL);
	q = jtree_get_string(job, path.data, NULL);
	buf_free(&path);
	return q && *q ? q : NULL;
}

static int cond_true(const cJSON *obj, const char *type)
{
	const char *s = jtree_get_string(launch_condition(obj, type, NULL), "status", NULL);
	return s && !strcmp(s, "True");
}

/* "Reason: message" of a condition, or just one of them. */
static void cond_words(const cJSON *c, char *out, size_t n)
{
	const char *r = jtree_get_string(c, "reason", ""), *m = jtree_get_string(c, "message", "");

	if (*r && *m)
		snprintf(out, n, "%s: %s", r, m);
	else
		snprintf(out, n, "%s", *m ? m : r);
}

/* "Preempted (InClusterQueue): message": the Evicted condition's reason
 * with the Preempted condition's beside it, which says who took the quota
 * (workload_types.go:1064-1091: Evicted "is accompanied by the Preempted
 * condition which contains a more detailed reason"). */
static void eviction_words(const cJSON *wl, char *out, size_t n)
{
	const cJSON *ev = launch_condition(wl, "Evicted", NULL);
	const char *pre = cond_true(wl, "Preempted") ?
		jtree_get_string(launch_condition(wl, "Preempted", NULL), "reason", NULL) : NULL;
	const char *r = jtree_get_string(ev, "reason", ""), *m = jtree_get_string(ev, "message", "");

	if (pre && *pre)
		snprintf(out, n, "%s (%s)%s%s", *r ? r : "Evicted", pre, *m ? ": " : "", m);
	else
		cond_words(ev, out, n);
}

/* The pending reason as the queued line says it: Kueue's message, after
 * what the reason means when waiting alone will not do it
 * (launch_kueue_reasons.c). */
static void pending_words(const cJSON *quota, char *out, size_t n)
{
	const char *r = jtree_get_string(quota, "reason", NULL);
	const char *m = jtree_get_string(quota, "message", "waiting for quota");
	enum kueue_pending p = kueue_pending_of(r, m);

	if (p == KUEUE_WAIT)
		snprintf(out, n, "%s", m);
	else
		snprintf(out, n, "%s%s: %s", kueue_pending_label(p), r ? r : "?", m);
}

/* Is the job's own suspend flag set (or, when it has none, its Suspended
 * condition true)? */
static int job_suspended(const struct kueue *k, const cJSON *job, const struct launch_verdict *v)
{
	const cJSON *flag = jobapi_suspend_flag(k->ctx->api, job);

	return flag ? cJSON_IsTrue(flag) : v->suspended;
}

int kueue_held(const struct kueue *k, const cJSON *job, const struct launch_verdict *v,
	       char *why, size_t n)
{
	const cJSON *wl = k->workload, *quota;

	why[0] = 0;
	if (!k->ctx->queue || !job || v->terminal || !job_suspended(k, job, v))
		return 0;
	if (wl && cond_true(wl, "Admitted") && !cond_true(wl, "Evicted"))
		return 0;	/* admitted: Kueue is about to un-suspend it */
	if (wl && cond_true(wl, "Evicted"))
		eviction_words(wl, why, n);
	else if (wl && (quota = launch_condition(wl, "QuotaReserved", NULL)) &&
		 !cond_true(wl, "QuotaReserved"))
		pending_words(quota, why, n);
	else if (wl)
		snprintf(why, n, "Workload %s not admitted yet",
			 jtree_get_string(wl, "metadata.name", "?"));
	else if (k->ctx->deny.workloads || k->unreadable)
		snprintf(why, n, "waiting for Kueue to admit it (its Workload cannot be read)");
	else
		snprintf(why, n, "waiting for Kueue to create its Workload");
	return 1;
}

void kueue_evicted(const struct kueue *k, char *why, size_t n)
{
	const cJSON *wl = k->workload;

	if (wl && launch_condition(wl, "Evicted", NULL))
		eviction_words(wl, why, n);
	else if (k->stopped[0])
		snprintf(why, n, "%s", k->stopped);
	else
		snprintf(why, n, "suspended again by Kueue");
}

const char *kueue_admitted_by(const struct kueue *k)
{
	return jtree_get_string(k->workload, "status.admission.clusterQueue", NULL);
}

/* ---- evictions and what still holds it (issue 33) ----------------------------- */

/*
 * One eviction per Evicted=True transition of the Workload (a new
 * lastTransitionTime: Kueue's resetActiveCondition sets it anew on each,
 * pkg/workload/workload.go:926-945). Without the Workload, Kueue's Stopped
 * event on an admitted job says the same (reconciler.go:1567: the
 * eviction's message), counted only then: a Stopped event before any
 * admission is the reconciler stopping a job that started unadmitted
 * (reconciler.go:667-676), not a preemption.
 */
static void count_eviction(struct kueue *k)
{
	const cJSON *ev = launch_condition(k->workload, "Evicted", NULL);
	const char *at;

	if (!ev || !cond_true(k->workload, "Evicted"))
		return;
	at = jtree_get_string(ev, "lastTransitionTime", "");
	if (!strcmp(at, k->ev_at) && k->ev.count)
		return;
	snprintf(k->ev_at, sizeof(k->ev_at), "%s", at);
	k->ev.count++;
	snprintf(k->ev.evicted, sizeof(k->ev.evicted), "%s", jtree_get_string(ev, "reason", ""));
	k->ev.preempted[0] = 0;
	if (cond_true(k->workload, "Preempted"))
		snprintf(k->ev.preempted, sizeof(k->ev.preempted), "%s", jtree_get_string(
			launch_condition(k->workload, "Preempted", NULL), "reason", ""));
	snprintf(k->ev.message, sizeof(k->ev.message), "%s", jtree_get_string(ev, "message", ""));
}

static void count_stopped(struct kueue *k, const char *msg)
{
	if (!k->started || (k->workload && !k->ctx->deny.workloads && !k->unreadable))
		return;	/* the Workload says it (count_eviction) */
	k->started = 0;
	k->ev.count++;
	snprintf(k->ev.evicted, sizeof(k->ev.evicted), "%s",
		 strstr(msg, "Preempted") ? "Preempted" : "");
	k->ev.preempted[0] = 0;
	snprintf(k->ev.message, sizeof(k->ev.message), "%s", msg);
}

void kueue_evictions(const struct kueue *k, struct kueue_eviction *out)
{
	*out = k->ev;
}

int kueue_pending(const struct kueue *k, char *reason, size_t rn, char *msg, size_t mn)
{
	const cJSON *wl = k->workload, *quota;
	const char *r, *m;

	if (!wl || cond_true(wl, "Evicted") || cond_true(wl, "Admitted") ||
	    !(quota = launch_condition(wl, "QuotaReserved", NULL)) || cond_true(wl, "QuotaReserved"))
		return KUEUE_WAIT;
	r = jtree_get_string(quota, "reason", "");
	m = jtree_get_string(quota, "message", "");
	snprintf(reason, rn, "%s", r);
	snprintf(msg, mn, "%s", m);
	return kueue_pending_of(r, m);
}

const char *kueue_workload_name(const struct kueue *k)
{
	return jtree_get_string(k->workload, "metadata.name", NULL);
}

/* ---- the Workload watch ------------------------------------------------------ */

static void on_workload(void *ud, enum kube_event_type type, const cJSON *obj)
{
	struct kueue *k = ud;

	cJSON_Delete(k->workload);
	k->workload = type == KUBE_DELETED ? NULL : cJSON_Duplicate(obj, 1);
	count_eviction(k);
	k->rep->changed(k->hub);
}

static int watch_job_events(struct kueue *k, struct err *e);

static void on_workload_state(void *ud, enum kube_watch_state s, const struct err *e)
{
	struct kueue *k = ud;
	struct err ee = ERR_INIT;

	if (s != KUBE_WATCH_FAILED)
		return;
	k->unreadable = 1;
	launch_progress_note(k->ctx->prog, "warning: cannot watch Kueue Workloads: %s (queued "
			     "jobs are told by their suspend flag and Kueue's events only)",
			     e ? e->msg : "?");
	if (watch_job_events(k, &ee))
		launch_progress_note(k->ctx->prog, "warning: cannot watch the events of %s %s: %s",
				     k->ctx->kind, k->ctx->name, ee.msg);
}

struct kueue *kueue_new(const struct launch_ctx *ctx, const struct kueue_reports *rep, void *hub)
{
	struct kueue *k = xcalloc(1, sizeof(*k));

	k->ctx = ctx;
	k->rep = rep;
	k->hub = hub;
	return k;
}

int kueue_start(struct kueue *k, const char *from, struct err *e)
{
	const struct launch_ctx *ctx = k->ctx;
	struct buf sel = BUF_INIT;

	if (!ctx->queue || !ctx->uid || !*ctx->uid)
		return 0;
	free(k->from);
	k->from = from ? xstrdup(from) : NULL;
	if (ctx->deny.workloads)
		return watch_job_events(k, e);
	buf_addf(&sel, "%s=%s", KUEUE_JOB_UID_LABEL, ctx->uid);
	/* after our own create the watch starts at the create's
	 * resourceVersion (the hub's rule): Kueue makes the Workload after the
	 * job, so no LIST is needed; a re-attach lists first */
	k->watch = launch_ctx_watch(ctx, &KUEUE_WORKLOAD, sel.data, NULL, from, NULL, on_workload,
				    on_workload_state, k, e);
	buf_free(&sel);
	return k->watch ? 0 : -1;
}

void kueue_stop(struct kueue *k)
{
	kube_watch_stop(k->watch);
	kube_watch_stop(k->events);
	k->watch = k->events = NULL;
}

void kueue_free(struct kueue *k)
{
	if (!k)
		return;
	kueue_stop(k);
	cJSON_Delete(k->workload);
	free(k->from);
	free(k);
}

/* ---- without the Workload: Kueue's events on the job ------------------------------ */

static void on_job_event(void *ud, enum kube_event_type type, const cJSON *ev)
{
	struct kueue *k = ud;
	const char *reason = jtree_get_string(ev, "reason", "");
	const char *msg = jtree_get_string(ev, "message", "");

	/* events.go:21-23: the reasons of Kueue's job reconciler */
	if (type == KUBE_DELETED || (strcmp(reason, "Started") && strcmp(reason, "Stopped") &&
				     strcmp(reason, "Suspended")))
		return;
	if (!strcmp(reason, "Stopped"))
		snprintf(k->stopped, sizeof(k->stopped), "%s", msg);
	if (!strcmp(reason, "Started"))
		k->started = 1;
	else if (!strcmp(reason, "Stopped"))
		count_stopped(k, msg);
	launch_progress_note(k->ctx->prog, "kueue: %s: %s", reason, msg);
}

static void on_job_events_state(void *ud, enum kube_watch_state s, const struct err *e)
{
	struct kueue *k = ud;

	if (s == KUBE_WATCH_FAILED)
		launch_progress_note(k->ctx->prog, "warning: cannot watch the events of %s %s: %s "
				     "(Kueue's reasons are not said)", k->ctx->kind, k->ctx->name,
				     e ? e->msg : "?");
}

/*
 * The job's own Normal events, scoped by field selector to its uid: the
 * namespace's other events never reach this launcher. (A field selector
 * cannot OR, so this is a second watch beside the namespace's type=Warning
 * one, launch_watch.c; it runs only where the Workload cannot be read.)
 */
static int watch_job_events(struct kueue *k, struct err *e)
{
	const struct launch_ctx *ctx = k->ctx;
	struct buf sel = BUF_INIT;

	if (ctx->deny.events || k->events)	/* said before the create */
		return 0;
	buf_addf(&sel, "involvedObject.uid=%s,type=Normal", ctx->uid);
	k->events = launch_ctx_watch(ctx, &KUBE_EVENT, NULL, sel.data, k->from, NULL, on_job_event,
				    on_job_events_state, k, e);
	buf_free(&sel);
	return k->events ? 0 : -1;
}

/* ---- before the create ------------------------------------------------------------ */

const char *launch_kueue_prepare(const struct jobapi *api, cJSON **manifest)
{
	const cJSON *flag;
	cJSON *patch;

	if (!launch_kueue_queue_of(*manifest))
		return NULL;
	flag = jobapi_suspend_flag(api, *manifest);
	if (cJSON_IsTrue(flag))
		return launch_kueue_queue_of(*manifest);
	/*
	 * Created suspended, as Kueue's webhook would make it (defaults.go:36-46):
	 * where the webhook is absent, an unsuspended job would start its
	 * workers before admission, and Kueue's reconciler would stop them
	 * again (reconciler.go:667-676). Kueue un-suspends it when admitted.
	 * Launch only: a rendered manifest (Argo CD) must not pin a flag Kueue
	 * changes, or every admission would show as drift.
	 */
	patch = jobapi_suspend_patch(api, 1);
	jtree_merge_patch(manifest, patch);
	cJSON_Delete(patch);
	return launch_kueue_queue_of(*manifest);
}

/* ---- before the create: does the LocalQueue exist? ----------------------------- */

int launch_kueue_preflight(const struct launch_ctx *ctx, int may_get, struct err *out)
{
	struct err e = ERR_INIT;
	cJSON *lq = NULL;

	if (!ctx->queue)
		return 0;
	if (!may_get) {
		launch_progress_note(ctx->prog, "warning: cannot get localqueues.kueue.x-k8s.io in "
				     "namespace %s: whether LocalQueue %s exists is not checked (a job "
				     "in a missing queue waits for ever)", ctx->ns, ctx->queue);
		return 0;
	}
	if (kube_get(ctx->c, &KUEUE_LOCALQUEUE, ctx->ns, ctx->queue, &lq, &e) == 0) {
		cJSON_Delete(lq);
		return 0;
	}
	cJSON_Delete(lq);
	if (e.code == ERR_NOTFOUND && strstr(e.msg, "\" not found")) {
		err_set(out, ERR_NOTFOUND, "LocalQueue \"%s\" does not exist in namespace \"%s\" "
			"(label %s): Kueue would hold the %s for ever; create the LocalQueue or "
			"name an existing one", ctx->queue, ctx->ns, KUEUE_QUEUE_LABEL, ctx->kind);
		snprintf(out->reason, sizeof(out->reason), "LocalQueueNotFound");
		return -1;
	}
	if (e.code == ERR_NOTFOUND)	/* 404 page not found: no such API */
		launch_progress_note(ctx->prog, "warning: Kueue is not installed (the API serves no "
				     "localqueues.kueue.x-k8s.io): nothing will admit a job held for "
				     "queue %s", ctx->queue);
	else if (e.code != ERR_CANCELLED)
		launch_progress_note(ctx->prog, "warning: cannot read LocalQueue %s/%s: %s (whether "
				     "it exists is not checked)", ctx->ns, ctx->queue, e.msg);
	return 0;
}
