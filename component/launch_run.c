/*
 * launch_run.c - the flow of a real `jaxjob launch`: connect, create the job
 * or re-attach to the one this step already created, wait (launch_machine.c,
 * the hub of the wait), turn the ending into an exit code, clean up
 * (launch_cleanup.c), write the outputs (launch_outputs.c).
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
 *
 * Every ending after the manifest was accepted as input writes the outputs,
 * including API errors, timeouts and cancellations.
 */
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jtree.h"
#include "launch_ending.h"
#include "launch_failure.h"
#include "launch_outputs.h"
#include "launch_run.h"
#include "launch_state.h"
#include "yj.h"

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_string(cJSON *obj, const char *key, const char *val)
{
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	cJSON_AddStringToObject(obj, key, val);
}

/* ---- connecting ---------------------------------------------------------- */

void launch_config_opts(const struct launch_opts *o, struct kube_config_opts *ko)
{
	memset(ko, 0, sizeof(*ko));
	ko->kubeconfig = o->kubeconfig;
	ko->context = o->context;
	ko->ns = o->namespace_flag;
	ko->insecure_skip_tls_verify = o->insecure_skip_tls_verify;
}

/* ---- the connection, early or now ------------------------------------------ */

static void on_early_review(void *ud, struct kube_response *rs, const struct err *e)
{
	struct launch_early *early = ud;

	early->review = NULL;
	early->answered = 1;
	early->ok = !e;
	early->json = rs->json;		/* taken: the call frees the rest */
	rs->json = NULL;
	kube_loop_stop(early->loop);	/* the access check may be waiting for it */
}

struct launch_early *launch_early_start(const struct launch_opts *o)
{
	struct kube_config_opts ko;
	struct kube_config cfg;
	struct kube_request rq;
	struct err e = ERR_INIT;
	struct launch_early *early;

	launch_config_opts(o, &ko);
	memset(&cfg, 0, sizeof(cfg));
	if (kube_config_load(&ko, &cfg, &e)) {	/* launch_run() says it */
		kube_config_free(&cfg);
		err_clear(&e);
		return NULL;
	}
	early = xcalloc(1, sizeof(*early));
	early->ns = xstrdup(cfg.ns);
	early->warnings = cfg.warnings.len ? xstrdup(cfg.warnings.data) : NULL;
	early->c = early->loop = kube_client_new(&cfg, &e);
	kube_config_free(&cfg);
	if (!early->c) {
		err_clear(&e);
		launch_early_free(early);
		return NULL;
	}
	launch_access_rules_request(&rq, early->ns);
	early->review = kube_start(early->c, &rq, on_early_review, early);
	kube_request_free(&rq);
	if (kube_loop_poke(early->c, &e))
		err_clear(&e);
	return early;
}

void launch_early_free(struct launch_early *early)
{
	if (!early)
		return;
	kube_client_free(early->c);	/* not taken by a run: its review goes with it */
	free(early->ns);
	free(early->warnings);
	cJSON_Delete(early->json);
	free(early);
}

static int connect_client(struct launch_state *st, struct launch_result *r)
{
	struct kube_config_opts ko;
	struct kube_config cfg;
	struct err e = ERR_INIT;
	const char *mns = jtree_get_string(st->manifest, "metadata.namespace", NULL);
	struct launch_early *early = st->early;

	if (early) {	/* opened before the build (launch_early_start) */
		launch_print_warnings(early->warnings);
		st->ns = xstrdup(mns && *mns ? mns : early->ns);
		st->c = early->c;
		early->c = NULL;
		return 0;
	}
	memset(&cfg, 0, sizeof(cfg));
	launch_config_opts(st->o, &ko);
	int rc = kube_config_load(&ko, &cfg, &e);
	launch_print_warnings(cfg.warnings.data);
	if (rc) {
		kube_config_free(&cfg);
		launch_result_set(r, "Error", EXIT_API_ERROR, "ConfigError", "%s", e.msg);
		return -1;
	}
	st->ns = xstrdup(mns && *mns ? mns : cfg.ns);
	st->c = kube_client_new(&cfg, &e);
	kube_config_free(&cfg);
	if (!st->c) {
		launch_result_set(r, "Error", EXIT_API_ERROR, "ClientError", "%s", e.msg);
		return -1;
	}
	return 0;
}

/* ---- create or re-attach ------------------------------------------------- */

static void adopt(struct launch_state *st, cJSON *job, const char *how)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");

	cJSON_Delete(st->job);
	st->job = job;
	free(st->uid);
	st->uid = xstrdup(jtree_get_string(meta, "uid", ""));
	if (!st->name)
		st->name = xstrdup(jtree_get_string(meta, "name", ""));
	launch_progress_note(&st->prog, "%s %s %s/%s (uid %s)", how, st->kind, st->ns,
			     st->name, st->uid);
}

static void after_cancelled_create(struct launch_state *st);
static int find_by_identity(struct launch_state *st, cJSON **found, struct err *e);

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
static int on_conflict(struct launch_state *st, struct launch_result *r)
{
	struct err e = ERR_INIT;
	cJSON *existing = NULL;
	const char *theirs;

	if (kube_get(st->c, st->res, st->ns, st->name, &existing, &e)) {
		if (e.code == ERR_CANCELLED) {	/* a signal: nothing of ours to adopt */
			after_cancelled_create(st);
			return 0;
		}
		launch_result_set(r, "Error", EXIT_API_ERROR, "AlreadyExists",
				  "%s %s/%s already exists and cannot be read: %s",
				  st->kind, st->ns, st->name, e.msg);
		return -1;
	}
	theirs = launch_identity_of(existing);
	if (launch_identity_matches(existing, &st->id) && (st->o->adopt || !st->id.adoptable)) {
		adopt(st, existing, "re-attached to");
		return 0;
	}
	if (launch_identity_matches(existing, &st->id))
		launch_result_set(r, "Error", EXIT_API_ERROR, "AlreadyExists",
				  "%s %s/%s already exists (created by an earlier attempt of this "
				  "step) and --adopt=false: delete it or allow re-attaching",
				  st->kind, st->ns, st->name);
	else if (local_run(existing))	/* a person ran the same command before */
		launch_result_set(r, "Error", EXIT_API_ERROR, "AlreadyExists",
				  "%s %s/%s already exists, left by an earlier local run (local runs "
				  "are never re-attached): delete it with `kubectl delete %s.%s %s -n %s`, "
				  "choose another --name, or give every run the same --identity",
				  st->kind, st->ns, st->name, st->res->plural, st->res->group,
				  st->name, st->ns);
	else
		launch_result_set(r, "Error", EXIT_API_ERROR, "AlreadyExists",
				  "%s %s/%s already exists and was not launched by this step "
				  "(its %s is %s, ours is %s from %s): choose another name; "
				  "jaxjob never adopts or deletes a job it did not create",
				  st->kind, st->ns, st->name, LAUNCH_ID_LABEL,
				  theirs ? theirs : "absent", st->id.id, st->id.source);
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

static void on_settle_event(void *ud, enum kube_event_type type, const cJSON *obj)
{
	struct launch_state *st = ud;

	if (type == KUBE_DELETED || !launch_identity_matches(obj, &st->id) || st->job)
		return;
	st->job = cJSON_Duplicate(obj, 1);
	kube_loop_stop(st->c);
}

static void on_settle_timer(void *ud)
{
	struct launch_state *st = ud;
	st->delete_timer = NULL;
	kube_loop_stop(st->c);
}

static void after_cancelled_create(struct launch_state *st)
{
	struct err e = ERR_INIT;
	struct kube_watch *w;
	struct buf sel = BUF_INIT;
	cJSON *job = NULL;
	double wait_s = st->o->delete_wait_s > 0 && st->o->delete_wait_s < CREATE_SETTLE_S ?
		st->o->delete_wait_s : CREATE_SETTLE_S;
	int rc;

	st->phase = RUN_CLEANING;	/* further signals must not cancel this */
	kube_client_set_retry(st->c, 8.0);
	if (!st->name) {	/* generateName: ours carries our identity label */
		if (st->id.adoptable && find_by_identity(st, &job, &e) == 0 && job)
			adopt(st, job, "the create went through before the signal:");
		return;
	}
	rc = kube_get(st->c, st->res, st->ns, st->name, &job, &e);
	if (rc == 0 && launch_identity_matches(job, &st->id)) {
		adopt(st, job, "the create went through before the signal:");
		return;
	}
	cJSON_Delete(job);
	if (e.code != ERR_NOTFOUND && e.code != ERR_OK)
		return;		/* it exists but is not ours, or we cannot look */
	buf_addf(&sel, "metadata.name=%s", st->name);
	w = launch_watch_start(st, st->res, NULL, sel.data, on_settle_event, NULL, &e);
	buf_free(&sel);
	if (!w)
		return;
	st->delete_timer = kube_timer_add(st->c, wait_s, on_settle_timer, st);
	while (!st->job && st->delete_timer && kube_loop_run(st->c, &e) == 0)
		;
	kube_timer_cancel(st->delete_timer);
	st->delete_timer = NULL;
	kube_watch_stop(w);
	if (st->job) {
		job = st->job;
		st->job = NULL;
		adopt(st, job, "the create went through after the signal:");
	}
}

/* generateName jobs cannot 409: look for ours by label before creating. */
static int find_by_identity(struct launch_state *st, cJSON **found, struct err *e)
{
	struct kube_list_opts lo;
	struct buf sel = BUF_INIT;
	cJSON *list = NULL;
	int rc;

	*found = NULL;
	memset(&lo, 0, sizeof(lo));
	buf_addf(&sel, "%s=%s", LAUNCH_ID_LABEL, st->id.id);
	lo.label_selector = sel.data;
	rc = kube_list(st->c, st->res, st->ns, &lo, &list, e);
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
static int missing_namespace(const struct launch_state *st, const struct err *e,
			     struct launch_result *r)
{
	const struct kube_config *cfg = st->c ? kube_client_config(st->c) : NULL;
	char want[300];

	snprintf(want, sizeof(want), "namespaces \"%s\" not found", st->ns ? st->ns : "");
	if (e->code != ERR_NOTFOUND || strncmp(e->msg, want, strlen(want)))
		return 0;
	if (st->o->namespace_flag)
		launch_result_set(r, "Error", EXIT_API_ERROR, "NamespaceNotFound",
				  "namespace \"%s\" does not exist (it is the one -n/--namespace "
				  "gave): create it, or pass an existing one with -n", st->ns);
	else
		launch_result_set(r, "Error", EXIT_API_ERROR, "NamespaceNotFound",
				  "namespace \"%s\" does not exist (it is the namespace of context "
				  "\"%s\" in %s, or the template's): create it, or pass an existing "
				  "one with -n", st->ns, cfg && cfg->context ? cfg->context : "?",
				  cfg && cfg->source ? cfg->source : "the kubeconfig");
	return 1;
}

static void api_error(struct launch_result *r, const struct err *e)
{
	const char *hint = "";

	if (e->code == ERR_AUTH && e->http_status == 403)
		hint = " (the step's service account needs the Role in examples/rbac.yaml)";
	launch_result_set(r, "Error", EXIT_API_ERROR,
			  e->reason[0] ? e->reason : err_code_name(e->code), "%s%s", e->msg, hint);
}

/*
 * The create retries a server that cannot be reached at all for a short
 * while only (that is more likely a wrong kubeconfig than a blip; a server
 * that answers with errors keeps the client's whole window), saying what it
 * waits for.
 */
#define CREATE_RETRY_S 10.0

static void on_create_retry(void *ud, unsigned attempt, double delay_s, const struct err *why)
{
	struct launch_state *st = ud;

	(void)why;
	/* the first quick tries go unsaid; a server that refuses connections
	 * is tried at most a second apart (kube_backoff_after): said at the
	 * 4th, 8th, 16th... attempt, not at every one */
	if (delay_s < 1.0 && (attempt < 4 || (attempt & (attempt - 1))))
		return;
	launch_progress_note(&st->prog, "waiting for the API server at %s (attempt %u, next in %.0f s)",
			     kube_client_config(st->c)->server, attempt, delay_s);
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
static int found_after_lost_answer(struct launch_state *st, struct err *e)
{
	struct err ge = ERR_INIT;
	cJSON *job = NULL;
	int rc;

	if (st->name)
		rc = kube_get(st->c, st->res, st->ns, st->name, &job, &ge);
	else if (st->id.adoptable)
		rc = find_by_identity(st, &job, &ge);
	else
		return 0;
	if (rc == 0 && job && launch_identity_matches(job, &st->id)) {
		adopt(st, job, "the create's answer was lost, but it went through:");
		return 1;
	}
	cJSON_Delete(job);
	if (rc && ge.code != ERR_NOTFOUND) {
		size_t n = strlen(e->msg);
		snprintf(e->msg + n, sizeof(e->msg) - n, "; whether the %s was created could not "
			 "be checked (%.200s): look for it by its %s label", st->kind, ge.msg,
			 LAUNCH_ID_LABEL);
	}
	return 0;
}

static int create_or_adopt(struct launch_state *st, struct launch_result *r)
{
	struct err e = ERR_INIT;
	cJSON *created = NULL;

	st->phase = RUN_CREATING;
	if (!st->name && st->id.adoptable) {
		if (find_by_identity(st, &created, &e)) {
			if (e.code == ERR_CANCELLED)
				return 0;	/* nothing created yet: END_SIGNAL */
			api_error(r, &e);
			return -1;
		}
		if (created) {
			adopt(st, created, "re-attached to");
			return 0;
		}
	}
	kube_client_set_unreachable_retry(st->c, CREATE_RETRY_S);
	kube_client_on_retry(st->c, on_create_retry, st);
	int rc = kube_create(st->c, st->res, st->ns, st->manifest, 0, &created, &e);
	kube_client_on_retry(st->c, NULL, NULL);
	kube_client_set_unreachable_retry(st->c, 0);
	if (rc == 0) {
		const char *rv = jtree_get_string(created, "metadata.resourceVersion", NULL);
		free(st->watch_from);
		st->watch_from = rv && *rv ? xstrdup(rv) : NULL;
		adopt(st, created, "created");
		return 0;
	}
	cJSON_Delete(created);
	if (e.code == ERR_CANCELLED) {
		after_cancelled_create(st);
		return 0;	/* st->end == END_SIGNAL: the flow cleans up */
	}
	if (e.code == ERR_CONFLICT && st->name)
		return on_conflict(st, r);
	if (answer_lost(&e) && found_after_lost_answer(st, &e))
		return 0;
	if (!missing_namespace(st, &e, r))
		api_error(r, &e);
	return -1;
}

/* ---- server-side dry run --------------------------------------------------- */

static int server_dry_run(struct launch_state *st, struct launch_result *r)
{
	struct err e = ERR_INIT;
	struct buf out = BUF_INIT;
	cJSON *answer = NULL;

	if (kube_create(st->c, st->res, st->ns, st->manifest, KUBE_DRY_RUN, &answer, &e)) {
		cJSON_Delete(answer);
		api_error(r, &e);
		return r->exit_code;
	}
	if (st->o->format == OUTPUT_JSON)
		yj_json_pretty(answer, &out);
	else if (yj_emit(answer, 0, &out, &e))
		buf_reset(&out);
	fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	cJSON_Delete(answer);
	launch_result_set(r, "DryRun", EXIT_SUCCEEDED, "", "accepted by the server (dryRun=All)");
	return 0;
}

/* ---- the whole run ---------------------------------------------------------- */

static void state_free(struct launch_state *st)
{
	launch_stdout_free(&st->out);	/* before the client it watches with */
	launch_workers_stop(st);
	launch_kueue_stop(st);
	kube_watch_stop(st->job_watch);
	kube_watch_stop(st->event_watch);
	if (st->c)
		kube_client_free(st->c);
	cJSON_Delete(st->manifest);
	cJSON_Delete(st->job);
	free(st->ns);
	free(st->name);
	free(st->uid);
	free(st->watch_from);
}

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

static int prepare(struct launch_state *st, const cJSON *manifest, struct launch_result *r)
{
	struct err e = ERR_INIT;
	const char *kind = jtree_get_string(manifest, "kind", NULL);
	const char *name = jtree_get_string(manifest, "metadata.name", NULL);

	st->manifest = cJSON_Duplicate(manifest, 1);
	st->api = jobapi_of(manifest);
	if (!st->api)
		st->api = kind && strcmp(kind, "TrainJob") == 0 ? &JOBAPI_TRAINJOB : &JOBAPI_JAXJOB;
	st->res = st->api->res;
	st->kind = st->api->kind;
	st->name = name && *name ? xstrdup(name) : NULL;
	if (connect_client(st, r))
		return -1;
	launch_stdout_attach(&st->out, st->c, &st->prog);
	r->ns = st->ns;
	if (launch_identity_derive_task(st->o->identity, &st->o->task, st->ns, st->name, &st->id,
					&e)) {
		launch_result_set(r, "Error", EXIT_BAD_INPUT, "BadInput", "%s", e.msg);
		return -1;
	}
	launch_identity_stamp(st->manifest, &st->id);
	launch_kueue_prepare(st);	/* Kueue: the job's queue, created suspended */
	set_string(cJSON_GetObjectItemCaseSensitive(st->manifest, "metadata"), "namespace", st->ns);
	r->manifest = st->manifest;
	if (launch_catch_signals(st, &e)) {
		launch_result_set(r, "Error", EXIT_API_ERROR, "Internal", "%s", e.msg);
		return -1;
	}
	/* a signal that came while we were getting here is delivered now */
	signals_blocked(0);
	return 0;
}

int launch_run(const struct launch_opts *o, const cJSON *manifest, struct launch_early *early)
{
	struct launch_state st;
	struct launch_result r;
	struct buf note = BUF_INIT, lost = BUF_INIT;
	struct err e = ERR_INIT, me = ERR_INIT;
	cJSON *failure = NULL;

	memset(&st, 0, sizeof(st));
	memset(&r, 0, sizeof(r));
	st.o = o;
	st.early = early;
	launch_machine_init(&st);
	st.t0 = launch_now();
	signals_blocked(1);
	launch_stdout_init(&st.out, STDOUT_FILENO);
	launch_progress_init(&st.prog, o->quiet ? NULL : stderr, st.t0);
	if (launch_metrics_init(&st.metrics, &o->metrics, &st.prog, &me))	/* the parser checked */
		fprintf(stderr, "warning: no training metrics: %s\n", me.msg);
	st.diag = diag_new((int)o->failure_lines);
	r.manifest = manifest;

	if (prepare(&st, manifest, &r) == 0) {
		if (o->server_dry_run) {
			server_dry_run(&st, &r);
		} else if (launch_access_check(&st, &r) == 0 &&
			   /* a signal during the review: nothing was created, nothing will be */
			   (st.end != END_NONE || create_or_adopt(&st, &r) == 0)) {
			if (launch_wait(&st, &e)) {
				st.end = END_API;
				st.end_err = e;
			}
			launch_wait_done(&st);
			if (st.q.queue) {	/* queue time and run time apart */
				r.queue = st.q.queue;
				r.queued_s = launch_queued_seconds(&st);
				r.run_s = launch_now() - st.t0 - r.queued_s;
			}
			launch_ending(&st, &r, &note);
			launch_failure_judge(st.diag, st.job, &r, &failure);	/* why, first */
		}
	}
	st.phase = RUN_DONE;
	/* the lines still queued for a slow stdout, within what is left of
	 * --log-drain; none after a signal: the grace period was the cleanup's */
	double drain_left = o->log_drain_s - (st.decided_at > 0 ? kube_now() - st.decided_at : 0);
	launch_stdout_finish(&st.out, st.signo ? 0 : drain_left, &st.signo);
	if (launch_stdout_lost(&st.out, &lost)) {
		launch_progress_note(&st.prog, "warning: worker log lines not written to stdout (%s): %s",
				     st.out.closed ? "it was closed" : "it was not read in time",
				     lost.data);
		r.logs_lost = lost.data;
	}
	r.job = st.job;
	r.cleanup = note.len ? note.data : NULL;
	r.now = wall_now();
	r.metrics = st.metrics.m;
	launch_metrics_end(&st.metrics);
	launch_ending_report(&st, &r);
	/*
	 * From here on the outcome is decided and written: hold SIGTERM/SIGINT
	 * back for good (state_free restores their default action), so a late
	 * signal cannot turn an exit code the outputs already state into a
	 * death by signal. The process returns and exits at once.
	 */
	signals_blocked(1);
	err_clear(&e);
	if (!o->server_dry_run && launch_outputs_write(&o->out, &r, &e))
		fprintf(stderr, "warning: %s\n", e.msg);
	err_clear(&e);
	if (!o->server_dry_run && launch_metrics_write(&st.metrics, &o->out, &r, &e))
		fprintf(stderr, "warning: %s\n", e.msg);
	launch_metrics_free(&st.metrics);
	cJSON_Delete(failure);
	diag_free(st.diag);
	state_free(&st);
	buf_free(&note);
	buf_free(&lost);
	return r.exit_code;
}
