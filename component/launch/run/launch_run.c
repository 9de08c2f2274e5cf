/*
 * launch_run.c - the flow of a real `jaxjob launch`: connect
 * (launch_connect.c), check access (launch_access.c), create the job or
 * re-attach to the one this step already created (launch_create.c), wait
 * (launch_hub.c, the hub of the run), decide the ending and clean up
 * (launch_ending.c), write the outputs (launch_outputs.c).
 *
 * The flow owns the run's context (struct launch_ctx) and its sinks; the
 * hub owns what the run is doing. This file only sequences them.
 *
 * Every ending after the manifest was accepted as input writes the outputs,
 * including API errors, timeouts and cancellations.
 */
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yj/jtree.h"
#include "launch_access.h"
#include "launch_connect.h"
#include "launch_create.h"
#include "launch_ending.h"
#include "decide/launch_failure.h"
#include "spokes/launch_kueue.h"
#include "decide/launch_outcome.h"
#include "outputs/launch_outputs.h"
#include "launch_run.h"

static void set_string(cJSON *obj, const char *key, const char *val)
{
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	cJSON_AddStringToObject(obj, key, val);
}

/* ---- the whole run ---------------------------------------------------------- */

/* The run's sinks, owned here; the context points at them. */
struct sinks {
	struct launch_progress prog;
	struct launch_metrics metrics;
	struct launch_stdout out;
};

/*
 * SIGTERM/SIGINT are held back from the start of the run until our handler
 * is in place (it needs the client, which needs the configuration): a signal
 * in that window then cancels the run properly - outputs written, exit 5 -
 * instead of killing the process with nothing said.
 */
static void signals_blocked(int on)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(on ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* The context, the connection and the hub: -1 with `cause` set. */
static int prepare(struct launch_ctx *ctx, struct launch_hub **hub, const cJSON *manifest,
		   struct launch_result *r, struct launch_cause *cause)
{
	struct err e = ERR_INIT;
	const char *name = jtree_get_string(manifest, "metadata.name", NULL);

	ctx->manifest = cJSON_Duplicate(manifest, 1);
	ctx->res = ctx->api->res;
	ctx->kind = ctx->api->kind;
	ctx->name = name && *name ? xstrdup(name) : NULL;
	if (launch_connect(ctx, &ctx->c, &ctx->loop, &ctx->ns, &e)) {
		launch_cause_of_err(cause, LAUNCH_OUTCOME_API_ERROR, &e);
		return -1;
	}
	launch_stdout_attach(ctx->out, ctx->loop, ctx->prog);
	r->ns = ctx->ns;
	if (launch_runtime_check(ctx, &e)) {
		launch_cause_of_err(cause, LAUNCH_OUTCOME_API_ERROR, &e);
		return -1;
	}
	if (launch_identity_derive_task(ctx->o->identity, &ctx->o->task, ctx->ns, ctx->name,
					&ctx->id, &e)) {
		launch_cause_of_err(cause, LAUNCH_OUTCOME_BAD_INPUT, &e);
		return -1;
	}
	launch_identity_stamp(ctx->manifest, &ctx->id);
	/* Kueue: the job's queue, created suspended */
	ctx->queue = launch_kueue_prepare(ctx->api, &ctx->manifest);
	set_string(cJSON_GetObjectItemCaseSensitive(ctx->manifest, "metadata"), "namespace",
		   ctx->ns);
	r->manifest = ctx->manifest;
	*hub = launch_hub_new(ctx);
	if (launch_hub_catch_signals(*hub, &e)) {
		snprintf(e.reason, sizeof(e.reason), "Internal");
		launch_cause_of_err(cause, LAUNCH_OUTCOME_API_ERROR, &e);
		return -1;
	}
	/* a signal that came while we were getting here is delivered now */
	signals_blocked(0);
	return 0;
}

/* What the wait saw of the queue, for the outputs. */
static void queue_seen(const struct launch_hub *h, struct launch_queue_seen *kq)
{
	struct kueue_eviction ev;

	launch_hub_queue_seen(h, &kq->in_lq, &kq->in_cq, &ev);
	kq->preemptions = ev.count;
	snprintf(kq->evicted, sizeof(kq->evicted), "%s", ev.evicted);
	snprintf(kq->preempted, sizeof(kq->preempted), "%s", ev.preempted);
	snprintf(kq->message, sizeof(kq->message), "%s", ev.message);
}

/* Access, create, wait, ending: the job's part of the run. 1 when it came
 * to the ending (the failure diagnosis then has something to say). */
static int run_job(struct launch_ctx *ctx, struct launch_hub *h, struct launch_result *r,
		   struct launch_ending_fact *end, struct buf *note)
{
	struct err e = ERR_INIT;
	struct launch_created cr = { NULL, NULL, NULL, 0 };

	int failed = launch_access_check(ctx, h, &ctx->deny, &e) ||
		/* a signal during the review: nothing was created, nothing will be */
		(!launch_hub_ended(h) && launch_create(ctx, h, &cr, &e));

	if (!failed && cr.look) {	/* did the cancelled create go through? */
		kube_client_set_retry(ctx->c, LAUNCH_LOOK_RETRY_S);
		launch_create_look(ctx, h, &cr);
	}

	launch_contact_over(ctx->c);	/* the first contact ends with the create */
	if (failed) {
		launch_cause_of_err(&end->cause, LAUNCH_OUTCOME_API_ERROR, &e);
		return 0;
	}
	if (cr.uid)	/* the job the hub holds: the context says which */
		ctx->uid = cr.uid;
	if (cr.name)
		ctx->name = cr.name;
	launch_hub_wait(h, cr.from);
	free(cr.from);
	if (ctx->queue) {	/* queue time and run time apart */
		r->queue = ctx->queue;
		r->queued_s = launch_hub_queued_seconds(h);
		r->run_s = kube_now() - ctx->t0 - r->queued_s;
		queue_seen(h, &r->kq);
	}
	launch_ending(h, ctx, end, note);
	return 1;
}

/* --server-dry-run: the server's answer, or its refusal. */
static void server_dry_run(const struct launch_ctx *ctx, struct launch_cause *cause)
{
	struct err e = ERR_INIT;

	if (launch_server_dry_run(ctx, &e))
		launch_cause_of_err(cause, LAUNCH_OUTCOME_API_ERROR, &e);
	else
		launch_cause_set(cause, LAUNCH_OUTCOME_DRY_RUN, NULL,
				 "accepted by the server (dryRun=All)");
}

/* The context and its sinks, before anything runs; SIGTERM/SIGINT held
 * until the hub's handler is in place (prepare). */
static void ctx_init(struct launch_ctx *ctx, struct sinks *sk, const struct launch_opts *o,
		     const struct jobapi *api, struct launch_early *early)
{
	struct err me = ERR_INIT;

	memset(sk, 0, sizeof(*sk));
	memset(ctx, 0, sizeof(*ctx));
	ctx->o = o;
	ctx->api = api;
	ctx->early = early;
	ctx->prog = &sk->prog;
	ctx->metrics = &sk->metrics;
	ctx->out = &sk->out;
	ctx->t0 = kube_now();
	signals_blocked(1);
	launch_stdout_init(ctx->out, STDOUT_FILENO);
	launch_progress_init(ctx->prog, o->quiet ? NULL : stderr, ctx->t0);
	if (launch_metrics_init(ctx->metrics, &o->metrics, ctx->prog, &me))	/* the parser checked */
		fprintf(stderr, "warning: no training metrics: %s\n", me.msg);
	ctx->diag = diag_new((int)o->failure_lines);
}

/* The last worker lines, then what the run leaves for the outputs: the
 * job, the lines lost, the logs incomplete, the cleanup (`note`), the
 * traffic, the workers counted (by the ending, `end`, NULL when the run
 * did not come to it). `lost` holds the lines lost's text. */
static void result_of(const struct launch_ctx *ctx, struct launch_hub *h,
		      const struct launch_ending_fact *end, const struct buf *note,
		      struct buf *lost, struct launch_result *r)
{
	int signo = 0;

	if (h)
		launch_hub_finish(h);	/* the last worker lines, within --log-drain */
	else
		launch_stdout_finish(ctx->out, ctx->o->log_drain_s, &signo);
	unsigned long nlost = launch_stdout_lost(ctx->out, lost);
	r->log_lines = ctx->out->lines - nlost;
	if (nlost) {
		launch_progress_note(ctx->prog, "warning: worker log lines not written to stdout (%s): %s",
				     ctx->out->closed ? "it was closed" : "it was not read in time",
				     lost->data);
		r->logs_lost = lost->data;
	}
	r->job = h ? launch_hub_job(h) : NULL;
	r->logs_incomplete = h ? launch_hub_logs_incomplete(h) : NULL;
	r->cleanup = note->len ? note->data : NULL;
	r->now = kube_wall_now();
	if (ctx->c) {
		struct kube_traffic t;
		kube_client_traffic(ctx->c, &t);
		r->api_requests = t.requests;
		r->api_bytes_in = t.bytes_in;
	}
	r->metrics = ctx->metrics->m;
	launch_ending_workers(h, end, r->manifest, &r->workers);
}

/* Why it failed, for a run that came to the ending: the `failure` output
 * (the caller's to delete) and the diagnosis's headline. */
static cJSON *failure_of(const struct launch_ctx *ctx, const struct launch_hub *h,
			 const struct launch_ending_fact *end, struct launch_result *r,
			 struct buf *headline)
{
	const struct launch_verdict *v = launch_hub_verdict(h);
	cJSON *failure = NULL;

	/* the Failed condition's message, as the verdict read it (the phase
	 * shown is Failed whenever that condition is True, lib/health/health.c) */
	launch_failure_judge(ctx->diag, !strcmp(v->phase, "Failed") && v->message[0] ?
			     v->message : NULL, end->cause.row, &failure,
			     &r->failure_category, headline);
	return failure;
}

/*
 * The outputs, once the outcome is decided and said. From here on
 * SIGTERM/SIGINT are held back for good (the client's end restores their
 * default action), so a late signal cannot turn an exit code the outputs
 * already state into a death by signal. The process returns and exits at
 * once.
 */
static void write_outputs(const struct launch_ctx *ctx, const struct launch_result *r)
{
	struct err e = ERR_INIT;

	signals_blocked(1);
	if (ctx->o->server_dry_run)
		return;
	if (launch_outputs_write(&ctx->o->out, r, &e))
		fprintf(stderr, "warning: %s\n", e.msg);
	err_clear(&e);
	if (launch_metrics_write(ctx->metrics, &ctx->o->out, r, &e))
		fprintf(stderr, "warning: %s\n", e.msg);
}

/* The context's parts, the hub and the client, freed. */
static void ctx_free(struct launch_ctx *ctx, struct launch_hub *h)
{
	launch_metrics_free(ctx->metrics);
	diag_free(ctx->diag);
	launch_stdout_free(ctx->out);	/* before the client it watches with */
	launch_hub_free(h);
	if (ctx->c)
		kube_client_free(ctx->c);
	cJSON_Delete(ctx->manifest);
	free(ctx->ns);
	free(ctx->name);
	free(ctx->uid);
}

int launch_run(const struct launch_opts *o, const struct jobapi *api, const cJSON *manifest,
	       struct launch_early *early, struct launch_outcome_end *outcome)
{
	struct sinks sk;
	struct launch_ctx ctx;
	struct launch_hub *h = NULL;
	struct launch_result r;
	struct launch_ending_fact end;
	struct buf note = BUF_INIT, lost = BUF_INIT, headline = BUF_INIT;
	cJSON *failure = NULL;
	int ended = 0;

	memset(&r, 0, sizeof(r));
	memset(&end, 0, sizeof(end));
	ctx_init(&ctx, &sk, o, api, early);
	r.manifest = manifest;
	if (prepare(&ctx, &h, manifest, &r, &end.cause) == 0) {
		if (o->server_dry_run)
			server_dry_run(&ctx, &end.cause);
		else
			ended = run_job(&ctx, h, &r, &end, &note);
	}
	result_of(&ctx, h, ended ? &end : NULL, &note, &lost, &r);
	if (ended)	/* why it failed, first */
		failure = failure_of(&ctx, h, &end, &r, &headline);
	r.failure = failure;
	/* the one place the outcome is decided */
	launch_outcome_decide(&end.cause, headline.data, &r.outcome);
	launch_metrics_end(ctx.metrics);
	launch_ending_report(&ctx, &r.outcome);
	write_outputs(&ctx, &r);
	*outcome = r.outcome;
	cJSON_Delete(failure);
	ctx_free(&ctx, h);
	buf_free(&note);
	buf_free(&lost);
	buf_free(&headline);
	return outcome->exit_code;
}
