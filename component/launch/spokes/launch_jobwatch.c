/*
 * launch_jobwatch.c - a spoke of the wait (launch_hub.c is the hub): the watch on the job itself (fieldSelector on its name) and the
 * watch on the events about it (FailedCreatePod / FailedCreateService, the
 * only way pod or Service creation failures show: the job just stays
 * Created).
 *
 * The event watch selects the namespace's Warning events (type=Warning),
 * not involvedObject.name: a field selector cannot say "the job or its
 * pods", and the events about the worker pods (Evicted, Preempted,
 * FailedMount, FailedScheduling, ...) feed the diagnosis (lib/health/diagnose.h);
 * a second watch would cost one more connection per step. The price: the
 * namespace's other Warning events are read and dropped here (diag_event()
 * ignores pods that are not our workers); field selectors cannot OR ("the
 * job's events, or Warnings"), so this stays one namespace-wide type=Warning
 * watch. Never every event of the namespace: a job in a Kueue queue learns
 * its admission and eviction from its Workload (launch_kueue.c, which also
 * owns the job-scoped watch of Kueue's Normal events where the Workload
 * cannot be read), so a launcher in a sweep of N does not read the other
 * jobs' Normal pod events (Scheduled, Pulled, Created, Started...).
 *
 * It turns what the server says into reports to the hub (struct
 * jobwatch_reports): the job
 * seen, deleted, absent from the first list, the watch failed for good; a
 * creation failure the API can never accept stops the wait at once, one
 * that may clear up asks the hub's fail-fast. What those mean - finished,
 * deleted by someone else, the cleanup's confirmation - the hub decides.
 * The connection notes (reconnecting, resynced, polling) are said here.
 */
#include <stdlib.h>
#include <string.h>

#include "yj/jtree.h"
#include "launch_jobwatch.h"

struct jobwatch {
	const struct launch_ctx *ctx;
	const struct jobwatch_reports *rep;
	void *hub;
	struct kube_watch *job_watch, *event_watch;
	int retry_noted;	/* "reconnecting" said, "reconnected" not yet */
	int lists;		/* lists the job watch made (for "resynced") */
	int polling;		/* the job watch polls (watch forbidden) */
	int saw_job;		/* the job watch delivered our job */
	int failed;		/* it ended for good (KUBE_WATCH_FAILED) */
	char stuck[64];		/* FailedCreatePod/FailedCreateService seen */
	char stuck_msg[512];
	int stuck_count;	/* how often the server reported it (event count) */
};

struct jobwatch *jobwatch_new(const struct launch_ctx *ctx, const struct jobwatch_reports *rep,
			      void *hub)
{
	struct jobwatch *jw = xcalloc(1, sizeof(*jw));

	jw->ctx = ctx;
	jw->rep = rep;
	jw->hub = hub;
	return jw;
}

void jobwatch_free(struct jobwatch *jw)
{
	if (!jw)
		return;
	kube_watch_stop(jw->job_watch);
	kube_watch_stop(jw->event_watch);
	free(jw);
}

static void on_job_event(void *ud, enum kube_event_type type, const cJSON *obj)
{
	struct jobwatch *jw = ud;
	const char *uid = jtree_get_string(obj, "metadata.uid", NULL);

	/* Same name, another object (deleted and re-created by someone): not ours. */
	if (jw->ctx->uid && uid && strcmp(uid, jw->ctx->uid) != 0)
		return;
	jw->saw_job = 1;
	if (type != KUBE_DELETED)
		jw->rep->seen(jw->hub, obj);
	else
		jw->rep->deleted(jw->hub, obj);
}

static void on_job_watch_state(void *ud, enum kube_watch_state s, const struct err *e)
{
	struct jobwatch *jw = ud;
	const struct launch_ctx *ctx = jw->ctx;

	switch (s) {
	case KUBE_WATCH_SYNCED:
		/* a list after the first (or any, when the watch began at the
		 * create's resourceVersion) is a re-list: a 410 or a recovery */
		if ((jw->retry_noted || jw->lists++ > 0) && !jw->polling &&
		    jw->rep->waiting(jw->hub))
			launch_progress_note(ctx->prog, "resynced: %s %s/%s listed again",
					     ctx->kind, ctx->ns, ctx->name);
		jw->retry_noted = 0;
		/* The first list did not hold our job: gone before we looked. */
		if (!jw->saw_job)
			jw->rep->absent(jw->hub);
		break;
	case KUBE_WATCH_RETRYING:
		if (!jw->retry_noted++)
			launch_progress_note(ctx->prog, "reconnecting to the API server… (%s)",
					     e ? e->msg : "?");
		break;
	case KUBE_WATCH_RESUMED:
		if (jw->retry_noted && jw->rep->waiting(jw->hub))
			launch_progress_note(ctx->prog, "reconnected: watching %s/%s again from "
					     "where it stopped", ctx->ns, ctx->name);
		jw->retry_noted = 0;
		break;
	case KUBE_WATCH_POLLING:
		jw->polling = 1;
		if (!ctx->deny.watch_job)	/* else said before the create */
			launch_progress_note(ctx->prog, "warning: watching %s is forbidden; "
				     "polling instead (grant the watch verb)", ctx->res->plural);
		break;
	case KUBE_WATCH_FAILED:
		jw->failed = 1;
		jw->rep->failed(jw->hub, e);
		break;
	}
}

/* ---- events: creation failures that never become conditions ------------ */

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
	struct jobwatch *jw = ud;
	const struct launch_ctx *ctx = jw->ctx;
	const char *reason = jtree_get_string(ev, "reason", NULL);
	const char *etype = jtree_get_string(ev, "type", "");
	const char *msg = jtree_get_string(ev, "message", "");
	const cJSON *count = cJSON_GetObjectItemCaseSensitive(ev, "count");
	int n = cJSON_IsNumber(count) && count->valueint > 0 ? count->valueint : 1;

	/* the selector asks for Warnings only; the check keeps that true of
	 * whatever a server sends */
	if (type == KUBE_DELETED || !reason || strcmp(etype, "Warning"))
		return;
	if (!strcmp(jtree_get_string(ev, "involvedObject.kind", ""), "Pod")) {
		diag_event(ctx->diag, ev);	/* a worker's, or ignored */
		return;
	}
	if (strcmp(jtree_get_string(ev, "involvedObject.kind", ""), ctx->kind) ||
	    strcmp(jtree_get_string(ev, "involvedObject.name", ""), ctx->name) ||
	    !jobapi_creation_failure(ctx->api, reason))
		return;	/* another object of the namespace, or not a creation failure */
	/* the same failure again (the server counts repeats in one event, the
	 * operator may also send new ones): one line, counted */
	if (strcmp(jw->stuck, reason) == 0 && strncmp(jw->stuck_msg, msg,
							    sizeof(jw->stuck_msg) - 1) == 0) {
		jw->stuck_count = n > jw->stuck_count ? n : jw->stuck_count + 1;
		return;
	}
	snprintf(jw->stuck, sizeof(jw->stuck), "%s", reason);
	snprintf(jw->stuck_msg, sizeof(jw->stuck_msg), "%s", msg);
	jw->stuck_count = n;
	launch_progress_note(ctx->prog, "warning: %s: %s", reason, jw->stuck_msg);
	jw->rep->creation_failure(jw->hub, permanent_failure(msg));
}

static void on_event_watch_state(void *ud, enum kube_watch_state s, const struct err *e)
{
	struct jobwatch *jw = ud;
	if (s == KUBE_WATCH_FAILED)
		launch_progress_note(jw->ctx->prog, "warning: cannot watch events: %s "
				     "(creation failures are not detected early)", e ? e->msg : "?");
}

int jobwatch_start_events(struct jobwatch *jw, const char *from, struct err *e)
{
	if (jw->ctx->deny.events)	/* said before the create */
		return 0;
	jw->event_watch = launch_ctx_watch(jw->ctx, &KUBE_EVENT, NULL, "type=Warning", from, NULL,
					   on_job_k8s_event, on_event_watch_state, jw, e);
	return jw->event_watch ? 0 : -1;
}

void jobwatch_stop_events(struct jobwatch *jw)
{
	kube_watch_stop(jw->event_watch);
	jw->event_watch = NULL;
}

int jobwatch_start(struct jobwatch *jw, const char *from, const cJSON *known, struct err *e)
{
	struct buf sel = BUF_INIT;

	/* right after our create: the job is known as of then, and every
	 * list is a re-list */
	if (from) {
		jw->saw_job = 1;
		jw->lists = 1;
	}
	buf_addf(&sel, "metadata.name=%s", jw->ctx->name);
	jw->job_watch = launch_ctx_watch(jw->ctx, jw->ctx->res, NULL, sel.data, from, known,
					 on_job_event, on_job_watch_state, jw, e);
	buf_free(&sel);
	return jw->job_watch ? 0 : -1;
}

int jobwatch_watching(const struct jobwatch *jw)
{
	return jw->job_watch != NULL;
}

int jobwatch_failed(const struct jobwatch *jw)
{
	return jw->failed;
}

const char *jobwatch_creation_failure(const struct jobwatch *jw, const char **msg, int *count)
{
	if (msg)
		*msg = jw->stuck_msg;
	if (count)
		*count = jw->stuck_count;
	return jw->stuck[0] ? jw->stuck : NULL;
}
