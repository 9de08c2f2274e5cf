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
 * message (reconciler.go:1567), Suspended (events.go:21-23).
 *
 * What this spoke does:
 *  - the queue of a job (its label), or none: a job without it is never
 *    "queued", whatever its suspend flag says (a person suspended it);
 *  - one watch on the job's Workload (label selector on the job's uid), only
 *    for a queue-managed job and only when the Workload may be read (the
 *    access check, launch_access.c, sets ctx->deny.workloads): the request
 *    budget grows by one watch, for those jobs only;
 *  - the judgement "held by Kueue" (kueue_held) and its reason, which
 *    the hub turns into the Queued state, the queue clock and the lines;
 *  - Kueue's Normal events on the job (launch_jobwatch.c hands them over
 *    through the hub), said as one line each.
 * It reports a Workload change through struct kueue_reports; the hub
 * decides what it means.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jtree.h"
#include "launch_kueue.h"

struct kueue {
	const struct launch_ctx *ctx;
	const struct kueue_reports *rep;
	void *hub;
	cJSON *workload;	/* the job's Workload as last seen, or NULL */
	struct kube_watch *watch;
	int unreadable;		/* the Workload watch failed for good */
	char stopped[512];	/* Kueue's last Stopped event message */
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
		cond_words(launch_condition(wl, "Evicted", NULL), why, n);
	else if (wl && (quota = launch_condition(wl, "QuotaReserved", NULL)) &&
		 !cond_true(wl, "QuotaReserved"))
		snprintf(why, n, "%s", jtree_get_string(quota, "message", "waiting for quota"));
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
		cond_words(launch_condition(wl, "Evicted", NULL), why, n);
	else if (k->stopped[0])
		snprintf(why, n, "%s", k->stopped);
	else
		snprintf(why, n, "suspended again by Kueue");
}

const char *kueue_admitted_by(const struct kueue *k)
{
	return jtree_get_string(k->workload, "status.admission.clusterQueue", NULL);
}

/* ---- the Workload watch ------------------------------------------------------ */

static void on_workload(void *ud, enum kube_event_type type, const cJSON *obj)
{
	struct kueue *k = ud;

	cJSON_Delete(k->workload);
	k->workload = type == KUBE_DELETED ? NULL : cJSON_Duplicate(obj, 1);
	k->rep->changed(k->hub);
}

static void on_workload_state(void *ud, enum kube_watch_state s, const struct err *e)
{
	struct kueue *k = ud;

	if (s != KUBE_WATCH_FAILED)
		return;
	k->unreadable = 1;
	launch_progress_note(k->ctx->prog, "warning: cannot watch Kueue Workloads: %s (queued "
			     "jobs are told by their suspend flag and Kueue's events only)",
			     e ? e->msg : "?");
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

	if (!ctx->queue || ctx->deny.workloads || !ctx->uid || !*ctx->uid)
		return 0;
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
	k->watch = NULL;
}

void kueue_free(struct kueue *k)
{
	if (!k)
		return;
	kube_watch_stop(k->watch);
	cJSON_Delete(k->workload);
	free(k);
}

/* ---- Kueue's events on the job -------------------------------------------------- */

int kueue_event(struct kueue *k, const cJSON *ev)
{
	const char *reason = jtree_get_string(ev, "reason", "");
	const char *msg = jtree_get_string(ev, "message", "");

	/* events.go:21-23: the reasons of Kueue's job reconciler */
	if (!k->ctx->queue || (strcmp(reason, "Started") && strcmp(reason, "Stopped") &&
			     strcmp(reason, "Suspended")))
		return 0;
	if (!strcmp(reason, "Stopped"))
		snprintf(k->stopped, sizeof(k->stopped), "%s", msg);
	launch_progress_note(k->ctx->prog, "kueue: %s: %s", reason, msg);
	return 1;
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
