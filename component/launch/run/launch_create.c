/*
 * launch_create.c - create the job, or re-attach to the one this step
 * already created (launch_create.h).
 *
 * Re-attach: the job carries our launch identity (launch_identity.h). A 409
 * on create means the name is taken; we GET the job and adopt it only if its
 * identity is ours (a retried step, a rescheduled step pod, or our own POST
 * retried after a lost answer). Otherwise we refuse with exit 4 and never
 * touch it: jaxjob deletes only jobs it created.
 *
 * A signal during the create: the POST may or may not have reached the
 * server. We look (GET by name, or by identity label for generateName) and,
 * if a job with our identity is there, treat it like any cancelled job
 * (--on-cancel), so no job is left behind. The same look follows a create
 * whose answer was lost (connection broken or 5xx after the retries): a job
 * with our identity is adopted and waited for like one we created.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yj/jtree.h"
#include "launch_create.h"
#include "yj/yj.h"

/* ---- create or re-attach ------------------------------------------------- */

static void adopt(const struct launch_ctx *ctx, struct launch_hub *h, struct launch_created *out,
		  cJSON *job, const char *how)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");

	free(out->uid);
	out->uid = xstrdup(jtree_get_string(meta, "uid", ""));
	if (!ctx->name && !out->name)	/* generateName: the server's */
		out->name = xstrdup(jtree_get_string(meta, "name", ""));
	launch_progress_note(ctx->prog, "%s %s %s/%s (uid %s)", how, ctx->kind, ctx->ns,
			     ctx->name ? ctx->name : out->name, out->uid);
	launch_hub_take(h, job);
}

static int find_by_identity(const struct launch_ctx *ctx, cJSON **found, struct err *e);

/* Was `job` created by `jaxjob launch` outside any pipeline (no identity)? */
static int local_run(const cJSON *job)
{
	struct buf path = BUF_INIT;
	const char *src;

	buf_adds(&path, "metadata.annotations");
	jtree_path_add_key(&path, LAUNCH_SOURCE_ANNOTATION);	/* "jaxjob.dev/...": escaped */
	src = jtree_get_string(job, path.data, NULL);
	buf_free(&path);
	return src && !strncmp(src, "local run", 9);
}

/* The name is taken (409): ours from an earlier attempt, or someone else's. */
static int already_exists(struct err *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The name is taken by a job we may not adopt: the step's error. */
static int already_exists(struct err *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(out, ERR_CONFLICT, fmt, ap);
	va_end(ap);
	snprintf(out->reason, sizeof(out->reason), "AlreadyExists");
	return -1;
}

static int on_conflict(const struct launch_ctx *ctx, struct launch_hub *h,
		       struct launch_created *cr, struct err *out)
{
	struct err e = ERR_INIT;
	cJSON *existing = NULL;
	const char *theirs;

	if (kube_get(ctx->c, ctx->res, ctx->ns, ctx->name, &existing, &e)) {
		if (e.code == ERR_CANCELLED) {	/* a signal: nothing of ours to adopt */
			cr->look = 1;
			return 0;
		}
		return already_exists(out, "%s %s/%s already exists and cannot be read: %s",
				      ctx->kind, ctx->ns, ctx->name, e.msg);
	}
	theirs = launch_identity_of(existing);
	if (launch_identity_matches(existing, &ctx->id) && (ctx->o->adopt || !ctx->id.adoptable)) {
		adopt(ctx, h, cr, existing, "re-attached to");
		return 0;
	}
	if (launch_identity_matches(existing, &ctx->id))
		already_exists(out, "%s %s/%s already exists (created by an earlier attempt of this "
				  "step) and --adopt=false: delete it or allow re-attaching",
				  ctx->kind, ctx->ns, ctx->name);
	else if (local_run(existing))	/* a person ran the same command before */
		already_exists(out, "%s %s/%s already exists, left by an earlier local run (local runs "
				  "are never re-attached): delete it with `kubectl delete %s.%s %s -n %s`, "
				  "choose another --name, or give every run the same --identity",
				  ctx->kind, ctx->ns, ctx->name, ctx->res->plural, ctx->res->group,
				  ctx->name, ctx->ns);
	else
		already_exists(out, "%s %s/%s already exists and was not launched by this step "
				  "(its %s is %s, ours is %s from %s): choose another name; "
				  "jaxjob never adopts or deletes a job it did not create",
				  ctx->kind, ctx->ns, ctx->name, LAUNCH_ID_LABEL,
				  theirs ? theirs : "absent", ctx->id.id, ctx->id.source);
	cJSON_Delete(existing);
	return -1;
}

/*
 * A signal cut the create short: did it happen? The POST may still be in the
 * server's hands (a slow admission webhook, a loaded apiserver), so a 404
 * right now proves nothing: look, then watch the name for a bounded while.
 * A job that shows up with our identity is ours to clean up.
 */
#define CREATE_SETTLE_S 5.0

struct settle {
	const struct launch_ctx *ctx;
	cJSON *job;			/* ours, seen after the signal */
	struct kube_timer *timer;	/* the bound of the look */
};

static void on_settle_event(void *ud, enum kube_event_type type, const cJSON *obj)
{
	struct settle *s = ud;

	if (type == KUBE_DELETED || !launch_identity_matches(obj, &s->ctx->id) || s->job)
		return;
	s->job = cJSON_Duplicate(obj, 1);
	launch_loop_wake(s->ctx->loop);
}

static void on_settle_timer(void *ud)
{
	struct settle *s = ud;
	s->timer = NULL;
	launch_loop_wake(s->ctx->loop);
}

/* The look is over: ours showed up, or its time ran out. */
static int settled(const void *ud)
{
	const struct settle *s = ud;
	return s->job || !s->timer;
}

void launch_create_look(const struct launch_ctx *ctx, struct launch_hub *h,
			struct launch_created *out)
{
	struct settle s = { ctx, NULL, NULL };
	struct err e = ERR_INIT;
	struct kube_watch *w;
	struct buf sel = BUF_INIT;
	cJSON *job = NULL;
	double wait_s = ctx->o->delete_wait_s > 0 && ctx->o->delete_wait_s < CREATE_SETTLE_S ?
		ctx->o->delete_wait_s : CREATE_SETTLE_S;
	int rc;

	if (!ctx->name) {	/* generateName: ours carries our identity label */
		if (ctx->id.adoptable && find_by_identity(ctx, &job, &e) == 0 && job)
			adopt(ctx, h, out, job, "the create went through before the signal:");
		return;
	}
	rc = kube_get(ctx->c, ctx->res, ctx->ns, ctx->name, &job, &e);
	if (rc == 0 && launch_identity_matches(job, &ctx->id)) {
		adopt(ctx, h, out, job, "the create went through before the signal:");
		return;
	}
	cJSON_Delete(job);
	if (e.code != ERR_NOTFOUND && e.code != ERR_OK)
		return;		/* it exists but is not ours, or we cannot look */
	buf_addf(&sel, "metadata.name=%s", ctx->name);
	w = launch_ctx_watch(ctx, ctx->res, NULL, sel.data, NULL, NULL, on_settle_event, NULL, &s,
			     &e);
	buf_free(&sel);
	if (!w)
		return;
	s.timer = kube_timer_add(ctx->c, wait_s, on_settle_timer, &s);
	launch_loop_until(ctx->loop, settled, &s, &e);
	kube_timer_cancel(s.timer);
	kube_watch_stop(w);
	if (s.job)
		adopt(ctx, h, out, s.job, "the create went through after the signal:");
}

/* generateName jobs cannot 409: look for ours by label before creating. */
static int find_by_identity(const struct launch_ctx *ctx, cJSON **found, struct err *e)
{
	struct kube_list_opts lo;
	struct buf sel = BUF_INIT;
	cJSON *list = NULL;
	int rc;

	*found = NULL;
	memset(&lo, 0, sizeof(lo));
	buf_addf(&sel, "%s=%s", LAUNCH_ID_LABEL, ctx->id.id);
	lo.label_selector = sel.data;
	rc = kube_list(ctx->c, ctx->res, ctx->ns, &lo, &list, e);
	buf_free(&sel);
	if (rc == 0) {
		cJSON *items = cJSON_GetObjectItemCaseSensitive(list, "items");
		cJSON *first = cJSON_GetArrayItem(items, 0);
		if (first)
			*found = cJSON_DetachItemFromArray(items, 0);
	}
	cJSON_Delete(list);
	return rc;
}

/* A create into a namespace that does not exist: say where the name came
 * from, since the user may never have typed it. */
static int missing_namespace(const struct launch_ctx *ctx, struct err *e)
{
	const struct kube_config *cfg = ctx->c ? kube_client_config(ctx->c) : NULL;
	char want[300];

	snprintf(want, sizeof(want), "namespaces \"%s\" not found", ctx->ns ? ctx->ns : "");
	if (e->code != ERR_NOTFOUND || strncmp(e->msg, want, strlen(want)))
		return 0;
	if (ctx->o->namespace_flag)
		err_set(e, ERR_NOTFOUND, "namespace \"%s\" does not exist (it is the one -n/--namespace "
				  "gave): create it, or pass an existing one with -n", ctx->ns);
	else
		err_set(e, ERR_NOTFOUND, "namespace \"%s\" does not exist (it is the namespace of context "
				  "\"%s\" in %s, or the template's): create it, or pass an existing "
				  "one with -n", ctx->ns, cfg && cfg->context ? cfg->context : "?",
				  cfg && cfg->source ? cfg->source : "the kubeconfig");
	snprintf(e->reason, sizeof(e->reason), "NamespaceNotFound");
	return 1;
}

/* The API's refusal, with the fix when it is a missing permission. */
static int api_error(struct err *e)
{
	size_t n = strlen(e->msg);

	if (e->code == ERR_AUTH && e->http_status == 403)
		snprintf(e->msg + n, sizeof(e->msg) - n, "%s",
			 " (the step's service account needs the Role in examples/rbac.yaml)");
	return -1;
}

/* The create failed in a way that says nothing about whether it happened:
 * the connection broke or the server failed after our POST may have landed. */
static int answer_lost(const struct err *e)
{
	if (kube_err_tls_untrusted(e) || !strcmp(e->reason, KUBE_REASON_UNREACHABLE))
		return 0;	/* the POST never left */
	return e->code == ERR_NETWORK || e->code == ERR_TIMEOUT ||
	       (e->code == ERR_API && e->http_status >= 500);
}

/*
 * The POST's answer was lost (after the client's retries): look for the job
 * by name (or by identity label for generateName) and adopt it if it carries
 * our identity - then the wait and the cleanup policy apply as to any job we
 * created, so none is orphaned. 1 when adopted; else `e` gets a note when we
 * could not even look.
 */
static int found_after_lost_answer(const struct launch_ctx *ctx, struct launch_hub *h,
				   struct launch_created *out, struct err *e)
{
	struct err ge = ERR_INIT;
	cJSON *job = NULL;
	int rc;

	if (ctx->name)
		rc = kube_get(ctx->c, ctx->res, ctx->ns, ctx->name, &job, &ge);
	else if (ctx->id.adoptable)
		rc = find_by_identity(ctx, &job, &ge);
	else
		return 0;
	if (rc == 0 && job && launch_identity_matches(job, &ctx->id)) {
		adopt(ctx, h, out, job, "the create's answer was lost, but it went through:");
		return 1;
	}
	cJSON_Delete(job);
	if (rc && ge.code != ERR_NOTFOUND) {
		size_t n = strlen(e->msg);
		snprintf(e->msg + n, sizeof(e->msg) - n, "; whether the %s was created could not "
			 "be checked (%.200s): look for it by its %s label", ctx->kind, ge.msg,
			 LAUNCH_ID_LABEL);
	}
	return 0;
}

int launch_create(const struct launch_ctx *ctx, struct launch_hub *h, struct launch_created *cr,
		  struct err *out)
{
	struct err e = ERR_INIT;
	cJSON *created = NULL;

	memset(cr, 0, sizeof(*cr));

	if (!ctx->name && ctx->id.adoptable) {
		if (find_by_identity(ctx, &created, out)) {
			if (out->code == ERR_CANCELLED) {
				err_clear(out);
				return 0;	/* nothing created yet: END_SIGNAL */
			}
			return api_error(out);
		}
		if (created) {
			adopt(ctx, h, cr, created, "re-attached to");
			return 0;
		}
	}
	/* a server that cannot be reached at all is retried within what is
	 * left of the first contact's window (launch_connect.h), saying so */
	int rc = kube_create(ctx->c, ctx->res, ctx->ns, ctx->manifest, 0, &created, &e);
	if (rc == 0) {
		const char *rv = jtree_get_string(created, "metadata.resourceVersion", NULL);
		cr->from = rv && *rv ? xstrdup(rv) : NULL;
		adopt(ctx, h, cr, created, "created");
		return 0;
	}
	cJSON_Delete(created);
	if (e.code == ERR_CANCELLED) {
		cr->look = 1;
		return 0;	/* launch_hub_ended(): the flow looks, then cleans up */
	}
	if (e.code == ERR_CONFLICT && ctx->name)
		return on_conflict(ctx, h, cr, out);
	if (answer_lost(&e) && found_after_lost_answer(ctx, h, cr, &e))
		return 0;
	if (!missing_namespace(ctx, &e))
		api_error(&e);
	*out = e;
	return -1;
}

/* ---- server-side dry run --------------------------------------------------- */

int launch_server_dry_run(const struct launch_ctx *ctx, struct err *e)
{
	struct buf out = BUF_INIT;
	cJSON *answer = NULL;

	if (kube_create(ctx->c, ctx->res, ctx->ns, ctx->manifest, KUBE_DRY_RUN, &answer, e)) {
		cJSON_Delete(answer);
		return api_error(e);
	}
	if (ctx->o->format == OUTPUT_JSON)
		jtree_json_pretty(answer, &out);
	else if (yj_emit(answer, 0, &out, e))
		buf_reset(&out);
	fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	cJSON_Delete(answer);
	err_clear(e);
	return 0;
}

