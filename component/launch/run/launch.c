/*
 * launch.c - `jaxjob launch`: flags -> params -> template -> JAXJob or
 * TrainJob (--api, lib/job/jobapi.h) -> merge patch -> validate -> print it
 * (--dry-run) or run it (launch_run.c).
 *
 * Everything before launch_run() is pure - no files written, nothing on
 * stdout until the whole job is built, so bad input always ends as one
 * `error: ...` line on stderr and exit status 2 - except the cluster's
 * answer to which API it serves (--api auto), and the first contact: the
 * run's one client and its rules review, sent before the build so that its
 * connection is under way meanwhile (launch_early_start). The API is
 * chosen here, once; the run gets it.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "buf.h"
#include "err.h"
#include "job/jobapi.h"
#include "job/jobbuild.h"
#include "yj/jtree.h"
#include "job/jobparams.h"
#include "job/jobparams_required.h"
#include "kube/kube.h"
#include "cli/launch_opts.h"
#include "decide/launch_outcome.h"
#include "outputs/launch_progress.h"
#include "launch_connect.h"
#include "launch_run.h"
#include "job/tmpl.h"
#include "yj/yj.h"

/*
 * --api auto (lib/job/jobapi.h, jobapi_discover), on the run's one client (the
 * first contact, launch_connect.h). A failure here is the cluster's answer,
 * so it exits 4 like any API error; it comes before a manifest exists, so
 * no outputs are written.
 */
static const struct jobapi *discover(const struct launch_opts *o, struct launch_early *early,
				     struct err *e)
{
	struct kube_client *c = launch_early_client(early, e);
	const struct jobapi *api = NULL;
	int both = 0;

	if (c && jobapi_discover(c, &api, &both, e) == 0 && !o->quiet)
		fprintf(stderr, "jaxjob: --api auto: the cluster serves %s; launching a %s%s\n",
			both ? "both JAXJob and TrainJob" : api->kind, api->kind,
			both ? " (JAXJob wins; say --api trainjob for Trainer v2)" : "");
	return api;
}

/*
 * The API the job is built for, chosen once (the run gets it). `auto` asks
 * the cluster which API it serves, so it needs one: with --dry-run the user
 * must choose. *api_error is set when the cluster could not tell (exit 4,
 * not 2).
 */
static const struct jobapi *chosen_api(const struct launch_opts *o, struct launch_early *early,
				       int *api_error, struct err *e)
{
	const struct jobapi *api;
	if (o->api == API_TRAINJOB)
		return &JOBAPI_TRAINJOB;
	if (o->api == API_JAXJOB)
		return &JOBAPI_JAXJOB;
	if (o->dry_run) {
		err_set(e, ERR_INPUT, "--api auto asks the cluster which API it serves, and "
			"--dry-run touches no cluster; choose --api jaxjob or --api trainjob");
		return NULL;
	}
	api = discover(o, early, e);
	*api_error = !api;
	return api;
}

/* The template of the job: --template FILE or the API's built-in one. */
struct launch_build {
	const struct launch_opts *o;
	const struct jobapi *api;
};

static int load_template(void *ud, cJSON **tmpl, const char **source, struct err *e)
{
	const struct launch_build *lb = ud;
	if (jobapi_template(lb->api, lb->o->template_path, tmpl, source, e) < 0)
		return -1;
	/* a required option, named as the user typed it, not as a placeholder */
	const struct jobparam *missing = jobparams_first_missing(*tmpl, lb->o->params);
	if (missing) {
		cJSON_Delete(*tmpl);
		*tmpl = NULL;
		return err_set(e, ERR_INPUT, "--%s is required; see `jaxjob launch --help`",
			       missing->flag);
	}
	return 0;
}

/* Render, patch and validate the job the options describe (lib/job/jobbuild.h). */
static int build_job(const struct launch_opts *o, const struct jobapi *api, cJSON **out,
		     struct err *e)
{
	struct launch_build lb = { o, api };
	struct job_build b = {
		.api = api,
		.params = o->params,
		.user_template = o->template_path != NULL,
		.load = load_template,
		.patch = o->patch,
		.invalid_note = o->patch ? " after --patch" : "",
		.ud = &lb,
	};
	*out = NULL;
	if (!o->template_path && !cJSON_GetObjectItemCaseSensitive(o->params, "name"))
		return err_set(e, ERR_INPUT, "--name is required (or --name-prefix with --run-id, "
			       "which derive one per run); see `jaxjob launch --help`");
	return job_build(&b, out, e);
}

static int print_job(const struct launch_opts *o, const cJSON *job, struct err *e)
{
	struct buf out = BUF_INIT;
	if (o->format == OUTPUT_JSON) {
		jtree_json_pretty(job, &out);
	} else if (yj_emit(job, YJ_SORT_KEYS, &out, e) < 0) {
		buf_free(&out);
		return -1;
	}
	fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	return fflush(stdout) == 0 ? 0 : err_set(e, ERR_IO, "cannot write to stdout");
}

/* An error before the run (no outputs: nothing was accepted as input yet):
 * one line, and the table's exit code. */
static int refused(const struct err *e, enum launch_outcome_row row)
{
	struct launch_cause c;
	struct launch_outcome_end out;

	launch_cause_of_err(&c, row, e);
	launch_outcome_decide(&c, NULL, &out);
	fprintf(stderr, "error: %s\n", out.message);
	return out.exit_code;
}

int cmd_launch(int argc, char **argv)
{
	struct launch_opts o;
	struct launch_outcome_end outcome;
	struct err e = ERR_INIT;
	cJSON *job = NULL;
	int rc = launch_opts_parse(&o, argc, argv, &e);
	if (rc == 1) {
		launch_opts_free(&o);
		return 0;
	}
	int api_error = 0;
	/* the run's one connection (and its rules review) go first: the server
	 * answers the handshake while the job is built (launch_connect.h) */
	struct launch_early *early = rc == 0 && !o.dry_run ?
		launch_early_start(&o, !o.server_dry_run) : NULL;
	const struct jobapi *api = rc == 0 ? chosen_api(&o, early, &api_error, &e) : NULL;
	if (rc == 0)
		rc = api ? build_job(&o, api, &job, &e) : -1;
	if (rc == 0 && o.dry_run)
		rc = print_job(&o, job, &e);
	else if (rc == 0)
		rc = launch_outcome_exit(o.outcome == OUTCOME_OUTPUTS,
					 (launch_run(&o, api, job, early, &outcome), &outcome));
	if (rc < 0)
		rc = refused(&e, api_error ? LAUNCH_OUTCOME_API_ERROR : LAUNCH_OUTCOME_BAD_INPUT);
	launch_early_free(early);
	cJSON_Delete(job);
	launch_opts_free(&o);
	return rc;
}
