/*
 * launch_kueue.c - a spoke of the launch state machine (launch_machine.c is
 * the hub): Kueue, the batch admission system, as far as a launcher must
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
 * message (reconciler.go:1567), Suspended (events.go:21-23).
 *
 * What this spoke does:
 *  - the queue of a job (its label), or none: a job without it is never
 *    "queued", whatever its suspend flag says (a person suspended it);
 *  - one watch on the job's Workload (label selector on the job's uid), only
 *    for a queue-managed job and only when the Workload may be read (the
 *    access check, launch_access.c, sets st->deny.workloads): the request
 *    budget grows by one watch, for those jobs only;
 *  - the judgement "held by Kueue" (launch_kueue_held) and its reason, which
 *    the hub turns into the Queued state, the queue clock and the lines;
 *  - Kueue's Normal events on the job (launch_watch.c hands them over
 *    through the hub), said as one line each.
 * It reports a Workload change through st->hub->queue_changed; the hub
 * decides what it means.
 */
#include <string.h>

#include "health.h"
#include "jtree.h"
#include "launch_outputs.h"
#include "launch_run.h"
#include "launch_state.h"

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

/* Is the job's own suspend flag set (or, when it has none, its Suspended
 * condition true)? */
static int job_suspended(const struct launch_state *st)
{
	const cJSON *flag = jobapi_suspend_flag(st->api, st->job);
	struct health_result hr = HEALTH_RESULT_INIT;
	int s;

	if (flag)
		return cJSON_IsTrue(flag);
	health_judge(st->job, &hr);
	s = hr.suspended;
	health_result_free(&hr);
	return s;
}

int launch_kueue_held(const struct launch_state *st, char *why, size_t n)
{
	const cJSON *wl = st->q.workload, *quota;

	why[0] = 0;
	if (!st->q.queue || !st->job || launch_judge(st->job, NULL) || !job_suspended(st))
		return 0;
	if (wl && cond_true(wl, "Admitted") && !cond_true(wl, "Evicted"))
		return 0;	/* admitted: Kueue is about to un-suspend it */
	if (wl && cond_true(wl, "Evicted"))
		cond_words(launch_condition(wl, "Evicted", NULL), why, n);
	else if (wl && (quota = launch_condition(wl, "QuotaReserved", NULL)) &&
		 !cond_true(wl, "QuotaReserved"))
		snprintf(why, n, "%s", jtree_get_string(quota, "message", "waiting for quota"));
	else if (wl)
		snprintf(why, n, "Workload %s not admitted yet",
			 jtree_get_string(wl, "metadata.name", "?"));
	else if (st->deny.workloads || st->q.unreadable)
		snprintf(why, n, "waiting for Kueue to admit it (its Workload cannot be read)");
	else
		snprintf(why, n, "waiting for Kueue to create its Workload");
	return 1;
}

void launch_kueue_evicted(const struct launch_state *st, char *why, size_t n)
{
	const cJSON *wl = st->q.workload;

	if (wl && launch_condition(wl, "Evicted", NULL))
		cond_words(launch_condition(wl, "Evicted", NULL), why, n);
	else if (st->q.stopped[0])
		snprintf(why, n, "%s", st->q.stopped);
	else
		snprintf(why, n, "suspended again by Kueue");
}

const char *launch_kueue_admitted_by(const struct launch_state *st)
{
	return jtree_get_string(st->q.workload, "status.admission.clusterQueue", NULL);
}

/* ---- the Workload watch ------------------------------------------------------ */

static void on_workload(void *ud, enum kube_event_type type, const cJSON *obj)
{
	struct launch_state *st = ud;

	cJSON_Delete(st->q.workload);
	st->q.workload = type == KUBE_DELETED ? NULL : cJSON_Duplicate(obj, 1);
	st->hub->queue_changed(st);
}

static void on_workload_state(void *ud, enum kube_watch_state s, const struct err *e)
{
	struct launch_state *st = ud;

	if (s != KUBE_WATCH_FAILED)
		return;
	st->q.unreadable = 1;
	launch_progress_note(&st->prog, "warning: cannot watch Kueue Workloads: %s (queued jobs "
			     "are told by their suspend flag and Kueue's events only)",
			     e ? e->msg : "?");
}

int launch_kueue_start(struct launch_state *st, struct err *e)
{
	struct buf sel = BUF_INIT;

	if (!st->q.queue || st->deny.workloads || !st->uid || !*st->uid)
		return 0;
	buf_addf(&sel, "%s=%s", KUEUE_JOB_UID_LABEL, st->uid);
	/* after our own create the watch starts at the create's
	 * resourceVersion (the hub's rule): Kueue makes the Workload after the
	 * job, so no LIST is needed; a re-attach lists first */
	st->q.watch = st->hub->watch(st, &KUEUE_WORKLOAD, sel.data, NULL, on_workload,
				     on_workload_state, e);
	buf_free(&sel);
	return st->q.watch ? 0 : -1;
}

void launch_kueue_stop(struct launch_state *st)
{
	kube_watch_stop(st->q.watch);
	st->q.watch = NULL;
	cJSON_Delete(st->q.workload);
	st->q.workload = NULL;
}

/* ---- Kueue's events on the job -------------------------------------------------- */

int launch_kueue_event(struct launch_state *st, const cJSON *ev)
{
	const char *reason = jtree_get_string(ev, "reason", "");
	const char *msg = jtree_get_string(ev, "message", "");

	/* events.go:21-23: the reasons of Kueue's job reconciler */
	if (!st->q.queue || (strcmp(reason, "Started") && strcmp(reason, "Stopped") &&
			     strcmp(reason, "Suspended")))
		return 0;
	if (!strcmp(reason, "Stopped"))
		snprintf(st->q.stopped, sizeof(st->q.stopped), "%s", msg);
	launch_progress_note(&st->prog, "kueue: %s: %s", reason, msg);
	return 1;
}

/* ---- before the create ------------------------------------------------------------ */

void launch_kueue_prepare(struct launch_state *st)
{
	const cJSON *flag;
	cJSON *patch;

	st->q.queue = launch_kueue_queue_of(st->manifest);	/* points into st->manifest */
	if (!st->q.queue)
		return;
	flag = jobapi_suspend_flag(st->api, st->manifest);
	if (cJSON_IsTrue(flag))
		return;
	/*
	 * Created suspended, as Kueue's webhook would make it (defaults.go:36-46):
	 * where the webhook is absent, an unsuspended job would start its
	 * workers before admission, and Kueue's reconciler would stop them
	 * again (reconciler.go:667-676). Kueue un-suspends it when admitted.
	 * Launch only: a rendered manifest (Argo CD) must not pin a flag Kueue
	 * changes, or every admission would show as drift.
	 */
	patch = jobapi_suspend_patch(st->api, 1);
	jtree_merge_patch(&st->manifest, patch);
	cJSON_Delete(patch);
	st->q.queue = launch_kueue_queue_of(st->manifest);
}

/* ---- before the create: does the LocalQueue exist? ----------------------------- */

int launch_kueue_preflight(struct launch_state *st, int may_get, struct launch_result *r)
{
	struct err e = ERR_INIT;
	cJSON *lq = NULL;

	if (!st->q.queue)
		return 0;
	if (!may_get) {
		launch_progress_note(&st->prog, "warning: cannot get localqueues.kueue.x-k8s.io in "
				     "namespace %s: whether LocalQueue %s exists is not checked (a job "
				     "in a missing queue waits for ever)", st->ns, st->q.queue);
		return 0;
	}
	if (kube_get(st->c, &KUEUE_LOCALQUEUE, st->ns, st->q.queue, &lq, &e) == 0) {
		cJSON_Delete(lq);
		return 0;
	}
	cJSON_Delete(lq);
	if (e.code == ERR_NOTFOUND && strstr(e.msg, "\" not found")) {
		launch_result_set(r, "Error", EXIT_API_ERROR, "LocalQueueNotFound",
				  "LocalQueue \"%s\" does not exist in namespace \"%s\" (label %s): "
				  "Kueue would hold the %s for ever; create the LocalQueue or name an "
				  "existing one", st->q.queue, st->ns, KUEUE_QUEUE_LABEL, st->kind);
		return -1;
	}
	if (e.code == ERR_NOTFOUND)	/* 404 page not found: no such API */
		launch_progress_note(&st->prog, "warning: Kueue is not installed (the API serves no "
				     "localqueues.kueue.x-k8s.io): nothing will admit a job held for "
				     "queue %s", st->q.queue);
	else if (e.code != ERR_CANCELLED)
		launch_progress_note(&st->prog, "warning: cannot read LocalQueue %s/%s: %s (whether "
				     "it exists is not checked)", st->ns, st->q.queue, e.msg);
	return 0;
}
