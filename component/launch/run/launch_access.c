/*
 * launch_access.c - permissions known before the job exists.
 *
 * Before creating, ask the server what this identity may do in the job's
 * namespace: one SelfSubjectRulesReview (authorization.k8s.io/v1; every
 * authenticated user may send it through the default system:basic-user
 * ClusterRole) lists the rules, and each verb and resource the chosen
 * options need is looked up in them - one request, not eleven, before the
 * create. Where the rules are incomplete (an authorizer that cannot list
 * them, e.g. a webhook) or the rules review is not served, the questions
 * not settled go out as SelfSubjectAccessReviews, all at once. Asking first
 * turns what used
 * to be discovered mid-run - 44 forbidden log requests in a loop, a silent
 * fallback, a cancel that cannot suspend - into one decision up front:
 *
 *   create, get the job           required: exit 4 before creating, naming
 *                                 the verb and the resource
 *   list, watch the job           warned (a re-attach or resync cannot list;
 *                                 without watch the job is polled)
 *   delete / patch the job        warned when --delete-after / --on-cancel
 *                                 need them; suspend without patch falls
 *                                 back to delete, and says so
 *   list, watch pods; get pods/log  (--logs all|first) warned: no worker logs
 *   list, watch events            warned: creation failures not seen early
 *   list, watch Kueue workloads   (a job with a queue-name label) warned: the
 *                                 queued reason and preemptions come from
 *                                 the suspend flag and events only
 *   get its Kueue LocalQueue      then GET it: missing -> exit 4 before the
 *                                 create; unreadable -> warned, not checked
 *
 * Each missing permission is one warning line naming it and what is lost,
 * and the run adapts (the `deny` bits the flow keeps in launch_ctx.h). When the review itself is
 * forbidden or fails (a cluster that removed system:basic-user, an old
 * proxy), nothing is said and nothing is assumed: the run goes on as
 * before and the API's own answers decide.
 */
#include <stdio.h>
#include <string.h>

#include "launch_access.h"
#include "launch_connect.h"
#include "spokes/launch_kueue.h"

#define ACCESS_MAX 16

/* One question: may we `verb` `r`(/`sub`)? */
struct review {
	const char *verb;
	const struct kube_resource *r;
	const char *sub;
	int answer;		/* 1 allowed, 0 denied, -1 unknown (the review failed) */
	int ruled;		/* answered by the rules review, not an access review */
	struct kube_call *call;	/* in flight */
	const struct launch_ctx *ctx;
	int *pending;
};

static void review_done(void *ud, struct kube_response *rs, const struct err *e)
{
	struct review *q = ud;
	const cJSON *allowed = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(rs->json, "status"), "allowed");

	q->call = NULL;
	q->answer = !e && cJSON_IsBool(allowed) ? cJSON_IsTrue(allowed) : -1;
	if (--*q->pending == 0)
		launch_loop_wake(q->ctx->loop);
}

static void review_start(const struct launch_ctx *ctx, struct review *q)
{
	struct kube_request rq;
	cJSON *body = cJSON_CreateObject(), *spec, *ra;
	char *json;

	cJSON_AddStringToObject(body, "apiVersion", "authorization.k8s.io/v1");
	cJSON_AddStringToObject(body, "kind", "SelfSubjectAccessReview");
	spec = cJSON_AddObjectToObject(body, "spec");
	ra = cJSON_AddObjectToObject(spec, "resourceAttributes");
	cJSON_AddStringToObject(ra, "namespace", ctx->ns);
	cJSON_AddStringToObject(ra, "verb", q->verb);
	cJSON_AddStringToObject(ra, "group", q->r->group);
	cJSON_AddStringToObject(ra, "resource", q->r->plural);
	if (q->sub)
		cJSON_AddStringToObject(ra, "subresource", q->sub);
	json = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	kube_request_init(&rq, KUBE_POST, "create");
	buf_adds(&rq.path, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews");
	buf_adds(&rq.body, json);
	rq.content_type = "application/json";
	buf_adds(&rq.what, "selfsubjectaccessreviews.authorization.k8s.io");
	rq.retry_s = LAUNCH_REVIEW_RETRY_S;
	cJSON_free(json);
	q->answer = -1;
	q->call = kube_start(ctx->c, &rq, review_done, q);
	if (q->call)
		(*q->pending)++;
	kube_request_free(&rq);
}

/* ---- SelfSubjectRulesReview: every rule at once ------------------------------ */

static int has(const cJSON *list, const char *want)
{
	const cJSON *v;
	cJSON_ArrayForEach(v, list)
		if (cJSON_IsString(v) && (!strcmp(v->valuestring, "*") || !strcmp(v->valuestring, want)))
			return 1;
	return 0;
}

/* RBAC's ResourceMatches: "*", the resource ("pods/log" with its
 * subresource), or "*\/log" for a subresource of anything. */
static int resource_matches(const cJSON *list, const char *resource, const char *sub)
{
	char combined[128];
	const cJSON *v;

	snprintf(combined, sizeof(combined), "%s%s%s", resource, sub ? "/" : "", sub ? sub : "");
	cJSON_ArrayForEach(v, list) {
		const char *r = cJSON_IsString(v) ? v->valuestring : "";
		if (!strcmp(r, "*") || !strcmp(r, combined) ||
		    (sub && r[0] == '*' && r[1] == '/' && !strcmp(r + 2, sub)))
			return 1;
	}
	return 0;
}

/* Does a rule grant it? Rules limited to resourceNames count only when they
 * name our job (they never grant create, list or watch of a collection). */
static int rules_allow(const cJSON *rules, const struct launch_ctx *ctx, const struct review *q)
{
	const cJSON *rule;

	cJSON_ArrayForEach(rule, rules) {
		const cJSON *names = cJSON_GetObjectItemCaseSensitive(rule, "resourceNames");
		if (!has(cJSON_GetObjectItemCaseSensitive(rule, "verbs"), q->verb) ||
		    !has(cJSON_GetObjectItemCaseSensitive(rule, "apiGroups"), q->r->group) ||
		    !resource_matches(cJSON_GetObjectItemCaseSensitive(rule, "resources"),
				      q->r->plural, q->sub))
			continue;
		if (cJSON_GetArraySize(names) == 0)
			return 1;
		if (q->r == ctx->res && ctx->name && strcmp(q->verb, "create") &&
		    strcmp(q->verb, "list") && strcmp(q->verb, "watch") && has(names, ctx->name))
			return 1;
	}
	return 0;
}


/* The wait for the rules review sent before the build: answered, or a
 * signal ended the run. */
struct early_wait {
	const struct launch_early *early;
	const struct launch_hub *h;
};

static int early_answered(const void *ud)
{
	const struct early_wait *w = ud;
	return !w->early->review || launch_hub_ended(w->h);
}

/* The wait for the access reviews: all answered, or a signal. */
struct reviews_wait {
	const int *pending;
	const struct launch_hub *h;
};

static int reviews_answered(const void *ud)
{
	const struct reviews_wait *w = ud;
	return *w->pending <= 0 || launch_hub_ended(w->h);
}

/*
 * The rules review's answer: the one sent before the build when it asked
 * about this namespace (waited for here), else asked now. *json is the
 * caller's to delete. -1 when it failed, or a signal came (launch_hub_ended).
 */
static int rules_answer(const struct launch_ctx *ctx, const struct launch_hub *h, cJSON **json)
{
	struct launch_early *early = ctx->early;
	struct kube_request rq;
	struct kube_response rs;
	struct err e = ERR_INIT;
	int rc;

	*json = NULL;
	if (early && strcmp(early->ns, ctx->ns) != 0) {
		kube_cancel(early->review);	/* another namespace: the manifest names it */
		early->review = NULL;
		early = NULL;
	}
	if (early) {
		struct early_wait w = { early, h };
		launch_loop_until(ctx->loop, early_answered, &w, &e);
		err_clear(&e);
		kube_cancel(early->review);	/* a signal: it must not outlive the wait */
		early->review = NULL;
		if (!early->answered || launch_hub_ended(h))
			return -1;
		*json = early->json;
		early->json = NULL;
		return early->ok ? 0 : -1;
	}
	launch_rules_request(&rq, ctx->ns);
	kube_response_init(&rs);
	rc = kube_call(ctx->c, &rq, &rs, &e);
	*json = rs.json;
	rs.json = NULL;
	kube_response_free(&rs);
	kube_request_free(&rq);
	return rc ? -1 : 0;
}

/*
 * Settle what the rules can settle: allowed, or denied when the rules are
 * complete. 0 when the review answered (even partly), -1 when it could not
 * be made (forbidden, not served, failing: then every question is asked).
 */
static int rules_review(const struct launch_ctx *ctx, const struct launch_hub *h, struct review *qs,
			int n)
{
	cJSON *json;
	const cJSON *status, *rules;
	int rc = rules_answer(ctx, h, &json), complete;

	status = cJSON_GetObjectItemCaseSensitive(json, "status");
	rules = cJSON_GetObjectItemCaseSensitive(status, "resourceRules");
	if (rc == 0 && cJSON_IsArray(rules)) {
		complete = !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(status, "incomplete"));
		for (int i = 0; i < n; i++)
			qs[i].answer = rules_allow(rules, ctx, &qs[i]) ? 1 : complete ? 0 : -1;
		for (int i = 0; i < n; i++)
			qs[i].ruled = qs[i].answer >= 0;
	} else {
		rc = -1;
	}
	cJSON_Delete(json);
	return rc ? -1 : 0;
}

/*
 * The rules first; what they leave open as access reviews, all at once
 * (they do not depend on each other). 0, or -1 when a signal cut it.
 */
static int ask(const struct launch_ctx *ctx, const struct launch_hub *h, struct review *qs, int n)
{
	struct err e = ERR_INIT;
	int pending = 0, ruled;

	for (int i = 0; i < n; i++)
		qs[i].answer = -1;
	ruled = rules_review(ctx, h, qs, n) == 0;
	if (launch_hub_ended(h))
		return -1;
	for (int i = 0; i < n; i++) {
		qs[i].ctx = ctx;
		qs[i].pending = &pending;
		if (!ruled || qs[i].answer < 0)
			review_start(ctx, &qs[i]);
	}
	struct reviews_wait w = { &pending, h };
	launch_loop_until(ctx->loop, reviews_answered, &w, &e);
	for (int i = 0; i < n; i++) {	/* cut short by a signal: none may outlive `qs` */
		kube_cancel(qs[i].call);
		qs[i].call = NULL;
	}
	return pending == 0 && !launch_hub_ended(h) ? 0 : -1;
}

static int denied(const struct review *qs, int n, const char *verb,
		  const struct kube_resource *r, const char *sub)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(qs[i].verb, verb) && qs[i].r == r &&
		    !strcmp(qs[i].sub ? qs[i].sub : "", sub ? sub : ""))
			return qs[i].answer == 0;
	return 0;
}

static void warn(const struct launch_ctx *ctx, const char *verb, const char *what,
		 const char *lost)
{
	launch_progress_note(ctx->prog, "warning: cannot %s %s in namespace %s: %s", verb, what,
			     ctx->ns, lost);
}

/* The questions the chosen options raise. */
static int questions(const struct launch_ctx *ctx, struct review *qs)
{
	const struct launch_opts *o = ctx->o;
	int n = 0;

#define Q(v, res, s) (qs[n].verb = (v), qs[n].r = (res), qs[n].sub = (s), n++)
	Q("create", ctx->res, NULL);
	Q("get", ctx->res, NULL);
	Q("list", ctx->res, NULL);
	Q("watch", ctx->res, NULL);
	if (o->delete_after != DELETE_NEVER || o->on_cancel != CANCEL_LEAVE)
		Q("delete", ctx->res, NULL);
	if (o->on_cancel == CANCEL_SUSPEND)
		Q("patch", ctx->res, NULL);
	if (o->logs != LOGS_NONE) {
		Q("list", &KUBE_POD, NULL);
		Q("watch", &KUBE_POD, NULL);
		Q("get", &KUBE_POD, "log");
	}
	Q("list", &KUBE_EVENT, NULL);
	Q("watch", &KUBE_EVENT, NULL);
	if (ctx->queue) {	/* a Kueue job: its Workload says why it waits */
		Q("list", &KUEUE_WORKLOAD, NULL);
		Q("watch", &KUEUE_WORKLOAD, NULL);
		Q("get", &KUEUE_LOCALQUEUE, NULL);
	}
#undef Q
	return n;
}

/* What each denial costs, said once, and how the run adapts. */
static void adapt(const struct launch_ctx *ctx, struct launch_deny *deny, const struct review *qs,
		  int n)
{
	const struct launch_opts *o = ctx->o;
	const char *plural = ctx->res->plural;

	if (denied(qs, n, "list", ctx->res, NULL)) {
		deny->list_job = 1;
		warn(ctx, "list", plural, "a re-attach or a resync after an outage cannot look the "
		     "job up");
	}
	if (denied(qs, n, "watch", ctx->res, NULL)) {
		deny->watch_job = 1;
		warn(ctx, "watch", plural, "the job is polled instead (grant the watch verb)");
	}
	if (denied(qs, n, "delete", ctx->res, NULL)) {
		deny->delete_job = 1;
		if (o->delete_after != DELETE_NEVER || o->on_cancel == CANCEL_DELETE)
			warn(ctx, "delete", plural, "the job will be left behind where --delete-after "
			     "or --on-cancel would delete it");
	}
	if (denied(qs, n, "patch", ctx->res, NULL)) {
		deny->patch_job = 1;
		warn(ctx, "patch", plural, deny->delete_job ?
		     "--on-cancel suspend cannot suspend, nor fall back to delete: a cancelled job "
		     "is left as is" : "--on-cancel suspend falls back to delete");
	}
	if (denied(qs, n, "list", &KUBE_POD, NULL)) {
		deny->pods = 1;
		warn(ctx, "list", "pods", "no worker logs, and worker states are not watched");
	} else {
		if (denied(qs, n, "watch", &KUBE_POD, NULL)) {
			deny->watch_pods = 1;
			warn(ctx, "watch", "pods", "worker states are polled instead");
		}
		if (denied(qs, n, "get", &KUBE_POD, "log")) {
			deny->logs = 1;
			warn(ctx, "get", "pods/log", "no worker logs");
		}
	}
	if (denied(qs, n, "list", &KUBE_EVENT, NULL)) {
		deny->events = 1;
		warn(ctx, "list", "events", "creation failures (FailedCreatePod, FailedCreateService) "
		     "are not detected early");
	} else if (denied(qs, n, "watch", &KUBE_EVENT, NULL)) {
		deny->watch_events = 1;
		warn(ctx, "watch", "events", "events are polled instead");
	}
	if (denied(qs, n, "list", &KUEUE_WORKLOAD, NULL)) {
		deny->workloads = 1;
		warn(ctx, "list", "workloads.kueue.x-k8s.io", "a queued job's pending reason and "
		     "preemptions are told from its suspend flag and Kueue's events only "
		     "(grant get, list, watch on workloads.kueue.x-k8s.io)");
	} else if (denied(qs, n, "watch", &KUEUE_WORKLOAD, NULL)) {
		warn(ctx, "watch", "workloads.kueue.x-k8s.io", "the Workload is polled instead");
	}
}

int launch_access_check(const struct launch_ctx *ctx, const struct launch_hub *h,
			struct launch_deny *deny, struct err *e)
{
	struct review qs[ACCESS_MAX];
	int n;

	memset(qs, 0, sizeof(qs));
	n = questions(ctx, qs);
	/* a signal now cancels (the hub's phase is creating): nothing exists yet */
	if (ask(ctx, h, qs, n))
		return 0;	/* a signal: the flow handles it (nothing created) */
	/* the review itself forbidden or failing: the API's own answers will tell */
	if (qs[0].answer < 0 || qs[1].answer < 0)
		return launch_kueue_preflight(ctx, 1, e);
	for (int i = 0; i < 2; i++) {
		if (qs[i].answer)
			continue;
		err_set(e, ERR_AUTH, "this identity cannot %s resource \"%s\" in API group \"%s\" "
			"in the namespace \"%s\" (%s), so the %s was not created "
			"(the step's service account needs the Role in examples/rbac.yaml)",
			qs[i].verb, ctx->res->plural, ctx->res->group, ctx->ns,
			qs[i].ruled ? "SelfSubjectRulesReview" : "SelfSubjectAccessReview", ctx->kind);
		snprintf(e->reason, sizeof(e->reason), "Forbidden");
		return -1;
	}
	adapt(ctx, deny, qs, n);
	return launch_kueue_preflight(ctx, !denied(qs, n, "get", &KUEUE_LOCALQUEUE, NULL), e);
}

/* ---- does what the job names exist? ----------------------------------------- */

int launch_runtime_check(const struct launch_ctx *ctx, struct err *e)
{
	struct err we = ERR_INIT;

	if (!ctx->api->check_runtime)
		return 0;	/* nothing the job refers to (a JAXJob) */
	if (jobapi_check_runtime(ctx->c, ctx->api, ctx->manifest, ctx->ns, &we) == 0)
		return 0;
	/* a server that is not there will not take the create either */
	int unreachable = !strcmp(we.reason, KUBE_REASON_UNREACHABLE);
	if (we.code != ERR_NOTFOUND && !unreachable) {
		fprintf(stderr, "warning: cannot check that the TrainJob's runtime exists: %s; "
			"going on\n", we.msg);
		return 0;
	}
	*e = we;
	snprintf(e->reason, sizeof(e->reason), "%s", unreachable ? "Unreachable" : "RuntimeNotFound");
	return -1;
}
