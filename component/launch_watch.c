/*
 * launch_watch.c - a spoke of the launch state machine (launch_machine.c is
 * the hub): the watch on the job itself (fieldSelector on its name) and the
 * watch on the events about it (FailedCreatePod / FailedCreateService, the
 * only way pod or Service creation failures show: the job just stays
 * Created).
 *
 * The event watch selects the namespace's Warning events (type=Warning),
 * not involvedObject.name: a field selector cannot say "the job or its
 * pods", and the events about the worker pods (Evicted, Preempted,
 * FailedMount, FailedScheduling, ...) feed the diagnosis (lib/diagnose.h);
 * a second watch would cost one more connection per step. The price: the
 * namespace's other Warning events are read and dropped here (diag_event()
 * ignores pods that are not our workers). A job in a Kueue queue needs its
 * Normal events too (Kueue's Started "Admitted by clusterQueue ...", Stopped
 * "Preempted ..."): for it alone the watch takes every event of the
 * namespace, still one watch.
 *
 * It turns what the server says into reports to the hub (st->hub): the job
 * seen, deleted, absent from the first list, the watch failed for good; a
 * creation failure the API can never accept stops the wait at once, one
 * that may clear up asks the hub's fail-fast. What those mean - finished,
 * deleted by someone else, the cleanup's confirmation - the hub decides.
 * The connection notes (reconnecting, resynced, polling) are said here.
 */
#include <string.h>

#include "jtree.h"
#include "launch_state.h"

static void on_job_event(void *ud, enum kube_event_type type, const cJSON *obj)
{
	struct launch_state *st = ud;
	const char *uid = jtree_get_string(obj, "metadata.uid", NULL);

	/* Same name, another object (deleted and re-created by someone): not ours. */
	if (st->uid && uid && strcmp(uid, st->uid) != 0)
		return;
	st->saw_job = 1;
	if (type != KUBE_DELETED)
		st->hub->job_seen(st, obj);
	else
		st->hub->job_deleted(st, obj);
}

static void on_job_watch_state(void *ud, enum kube_watch_state s, const struct err *e)
{
	struct launch_state *st = ud;

	switch (s) {
	case KUBE_WATCH_SYNCED:
		/* a list after the first (or any, when the watch began at the
		 * create's resourceVersion) is a re-list: a 410 or a recovery */
		if ((st->watch_retry_noted || st->job_lists++ > 0) && !st->job_polling &&
		    st->phase == RUN_WAITING)
			launch_progress_note(&st->prog, "resynced: %s %s/%s listed again",
					     st->kind, st->ns, st->name);
		st->watch_retry_noted = 0;
		/* The first list did not hold our job: gone before we looked. */
		if (!st->saw_job)
			st->hub->job_absent(st);
		break;
	case KUBE_WATCH_RETRYING:
		if (!st->watch_retry_noted++)
			launch_progress_note(&st->prog, "reconnecting to the API server… (%s)",
					     e ? e->msg : "?");
		break;
	case KUBE_WATCH_RESUMED:
		if (st->watch_retry_noted && st->phase == RUN_WAITING)
			launch_progress_note(&st->prog, "reconnected: watching %s/%s again from "
					     "where it stopped", st->ns, st->name);
		st->watch_retry_noted = 0;
		break;
	case KUBE_WATCH_POLLING:
		st->job_polling = 1;
		if (!st->deny.watch_job)	/* else said before the create */
			launch_progress_note(&st->prog, "warning: watching %s is forbidden; "
				     "polling instead (grant the watch verb)", st->res->plural);
		break;
	case KUBE_WATCH_FAILED:
		st->hub->job_watch_failed(st, e);
		break;
	}
}

/* ---- events: creation failures that never become conditions ------------ */

static int creation_failure(const char *reason)
{
	static const char *const reasons[] = {
		"FailedCreatePod", "FailedCreateService",	/* training operator */
		"TrainJobResourcesCreationFailed",		/* Trainer v2 */
	};
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strcmp(reason, reasons[i]) == 0)
			return 1;
	return 0;
}

/*
 * A creation failure that no retry can heal: the API refused the object
 * itself - a 422 validation error ("... is invalid: ..."), or an admission
 * denial (a webhook that "denied the request", Pod Security). The operator
 * retries for ever with the same answer, so waiting --fail-fast-after for
 * it is waste. A quota ("exceeded quota"), a timeout or an unreachable
 * webhook may clear up: those keep the bounded grace.
 */
static int permanent_failure(const char *msg)
{
	return strstr(msg, " is invalid") || strstr(msg, "denied the request") ||
	       strstr(msg, "violates PodSecurity");
}

static void on_job_k8s_event(void *ud, enum kube_event_type type, const cJSON *ev)
{
	struct launch_state *st = ud;
	const char *reason = jtree_get_string(ev, "reason", NULL);
	const char *etype = jtree_get_string(ev, "type", NULL);
	const char *msg = jtree_get_string(ev, "message", "");
	const cJSON *count = cJSON_GetObjectItemCaseSensitive(ev, "count");
	int n = cJSON_IsNumber(count) && count->valueint > 0 ? count->valueint : 1;

	if (type == KUBE_DELETED || !reason || !etype)
		return;
	if (!strcmp(jtree_get_string(ev, "involvedObject.kind", ""), "Pod")) {
		if (!strcmp(etype, "Warning"))
			diag_event(st->diag, ev);	/* a worker's, or ignored */
		return;
	}
	if (strcmp(jtree_get_string(ev, "involvedObject.kind", ""), st->kind) ||
	    strcmp(jtree_get_string(ev, "involvedObject.name", ""), st->name))
		return;	/* another object of the namespace */
	if (strcmp(etype, "Warning") != 0) {	/* Kueue's Started/Stopped: the hub's to say */
		st->hub->normal_event(st, ev);
		return;
	}
	if (!creation_failure(reason))
		return;
	/* the same failure again (the server counts repeats in one event, the
	 * operator may also send new ones): one line, counted */
	if (strcmp(st->event_stuck, reason) == 0 && strncmp(st->event_stuck_msg, msg,
							    sizeof(st->event_stuck_msg) - 1) == 0) {
		st->event_stuck_count = n > st->event_stuck_count ? n : st->event_stuck_count + 1;
		return;
	}
	snprintf(st->event_stuck, sizeof(st->event_stuck), "%s", reason);
	snprintf(st->event_stuck_msg, sizeof(st->event_stuck_msg), "%s", msg);
	st->event_stuck_count = n;
	launch_progress_note(&st->prog, "warning: %s: %s", reason, st->event_stuck_msg);
	if (permanent_failure(msg) && st->phase == RUN_WAITING && !st->draining) {
		snprintf(st->stuck_reason, sizeof(st->stuck_reason), "%s", reason);
		snprintf(st->stuck_msg, sizeof(st->stuck_msg), "%s (event %s: the API rejects it, "
			 "retrying cannot help)", st->event_stuck_msg, reason);
		st->stuck_permanent = 1;
		st->hub->stop(st, END_STUCK);
		return;
	}
	st->hub->stuck_check(st);
}

static void on_event_watch_state(void *ud, enum kube_watch_state s, const struct err *e)
{
	struct launch_state *st = ud;
	if (s == KUBE_WATCH_FAILED)
		launch_progress_note(&st->prog, "warning: cannot watch events: %s "
				     "(creation failures are not detected early)", e ? e->msg : "?");
}

int launch_events_start(struct launch_state *st, struct err *e)
{
	struct buf sel = BUF_INIT;

	if (st->deny.events)	/* said before the create */
		return 0;
	if (!launch_kueue_queue_of(st->manifest))
		buf_adds(&sel, "type=Warning");
	st->event_watch = st->hub->watch(st, &KUBE_EVENT, NULL, sel.len ? sel.data : NULL,
					 on_job_k8s_event,
					 on_event_watch_state, e);
	buf_free(&sel);
	return st->event_watch ? 0 : -1;
}

int launch_start_job_watch(struct launch_state *st, struct err *e)
{
	struct buf sel = BUF_INIT;

	buf_addf(&sel, "metadata.name=%s", st->name);
	st->job_watch = st->hub->watch(st, st->res, NULL, sel.data, on_job_event,
				       on_job_watch_state, e);
	buf_free(&sel);
	return st->job_watch ? 0 : -1;
}

