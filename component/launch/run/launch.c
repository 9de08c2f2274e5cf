/*
 * launch.c - `jaxjob launch`: flags -> params -> template -> JAXJob or
 * TrainJob (--api, lib/jobapi.h) -> merge patch -> validate -> print it
 * (--dry-run) or run it (launch_run.c).
 *
 * Everything before launch_run() is pure - no files written, nothing on
 * stdout until the whole job is built, so bad input always ends as one
 * `error: ...` line on stderr and exit status 2 - except questions for the
 * cluster: which API it serves (--api auto) and whether a TrainJob's runtime
 * exists (struct preflight), and the rules review, sent before the build so
 * that its connection is under way meanwhile (launch_early_start).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../commands.h"
#include "buf.h"
#include "err.h"
#include "jobapi.h"
#include "jobbuild.h"
#include "jtree.h"
#include "jobparams.h"
#include "jobparams_required.h"
#include "kube.h"
#include "launch_opts.h"
#include "launch_outputs.h"
#include "launch_progress.h"
#include "launch_connect.h"
#include "launch_run.h"
#include "tmpl.h"
#include "yj.h"

/*
 * Before the run, two questions only the cluster can answer: which API it
 * serves (--api auto) and whether a TrainJob's runtime exists. They share
 * one client, made on first use and freed before launch_run() connects for
 * the run itself.
 */
struct preflight {
	struct kube_client *c;
	int tried;
	int quiet;
};

/*
 * The questions asked before the create (--api auto, the TrainJob's runtime)
 * wait for a server that cannot be reached no longer than the create does
 * (about 10 s, launch_run.c), saying so, instead of the client's 30 s.
 */
#define PREFLIGHT_RETRY_S 10.0

static void on_preflight_retry(void *ud, unsigned attempt, double delay_s, const struct err *why)
{
	const struct preflight *pf = ud;

	(void)why;
	if (delay_s >= 1.0 && !pf->quiet)
		fprintf(stderr, "jaxjob: waiting for the API server at %s (attempt %u, next in %.0f s)\n",
			kube_client_config(pf->c)->server, attempt, delay_s);
}

static struct kube_client *preflight_client(const struct launch_opts *o, struct preflight *pf,
					    struct err *e)
{
	struct kube_config_opts ko;
	struct kube_config cfg;

	if (pf->tried)
		return pf->c;
	pf->tried = 1;
	memset(&cfg, 0, sizeof(cfg));
	launch_config_opts(o, &ko);
	int rc = kube_config_load(&ko, &cfg, e);
	launch_print_warnings(cfg.warnings.data);
	if (rc == 0)
		pf->c = kube_client_new(&cfg, e);
	kube_config_free(&cfg);
	if (pf->c) {
		kube_client_set_unreachable_retry(pf->c, PREFLIGHT_RETRY_S);
		pf->quiet = o->quiet;
		kube_client_on_retry(pf->c, on_preflight_retry, pf);
	}
	return pf->c;
}

/*
 * --api auto (lib/jobapi.h, jobapi_discover). A failure here is the
 * cluster's answer, so it exits 4 like any API error; it comes before a
 * manifest exists, so no outputs are written.
 */
static const struct jobapi *discover(const struct launch_opts *o, struct preflight *pf,
				     struct err *e)
{
	struct kube_client *c = preflight_client(o, pf, e);
	const struct jobapi *api = NULL;
	int both = 0;

	if (c && jobapi_discover(c, &api, &both, e) == 0 && !o->quiet)
		fprintf(stderr, "jaxjob: --api auto: the cluster serves %s; launching a %s%s\n",
			both ? "both JAXJob and TrainJob" : api->kind, api->kind,
			both ? " (JAXJob wins; say --api trainjob for Trainer v2)" : "");
	return api;
}

/*
 * The API the job is built for. `auto` asks the cluster which API it serves,
 * so it needs one: with --dry-run the user must choose. *api_error is set
 * when the cluster could not tell (exit 4, not 2).
 */
static const struct jobapi *chosen_api(const struct launch_opts *o, struct preflight *pf,
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
	api = discover(o, pf, e);
	*api_error = !api;
	return api;
}

/*
 * A TrainJob naming a runtime that does not exist is accepted and then never
 * starts: only an event says why. So it is an error before anything is
 * created: exit 4, like a cluster without the operator (the cluster lacks
 * something, whether the name is a typo or the runtime is not installed),
 * with the outputs written. Not allowed to read runtimes (403), or any other
 * failure: a warning, and the run goes on (and reports what the create says).
 * Returns 0 to go on, else the exit code.
 */
static int check_runtime(const struct launch_opts *o, const struct jobapi *api,
			 const cJSON *job, struct preflight *pf)
{
	struct err e = ERR_INIT, we = ERR_INIT;
	struct launch_result r;
	struct kube_client *c;
	const char *ns;

	if (!api->check_runtime)
		return 0;	/* nothing the job refers to (a JAXJob) */
	c = preflight_client(o, pf, &e);
	if (!c)
		return 0;	/* launch_run() reports the configuration problem */
	ns = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(job, "metadata"), "namespace"));
	if (!ns || !*ns)
		ns = kube_client_config(c)->ns;
	if (jobapi_check_runtime(c, api, job, ns, &e) == 0)
		return 0;
	/* a server that is not there will not take the create either */
	int unreachable = !strcmp(e.reason, KUBE_REASON_UNREACHABLE);
	if (e.code != ERR_NOTFOUND && !unreachable) {
		fprintf(stderr, "warning: cannot check that the TrainJob's runtime exists: %s; "
			"going on\n", e.msg);
		return 0;
	}
	fprintf(stderr, "error: %s\n", e.msg);
	if (o->server_dry_run)
		return EXIT_API_ERROR;
	memset(&r, 0, sizeof(r));
	launch_result_set(&r, "Error", EXIT_API_ERROR, unreachable ? "Unreachable" : "RuntimeNotFound",
			  "%s", e.msg);
	r.manifest = job;
	r.ns = ns;
	r.now = (double)time(NULL);
	if (launch_outputs_write(&o->out, &r, &we) < 0)
		fprintf(stderr, "warning: %s\n", we.msg);
	return EXIT_API_ERROR;
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

/* Render, patch and validate the job the options describe (lib/jobbuild.h). */
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
		yj_json_pretty(job, &out);
	} else if (yj_emit(job, YJ_SORT_KEYS, &out, e) < 0) {
		buf_free(&out);
		return -1;
	}
	fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	return fflush(stdout) == 0 ? 0 : err_set(e, ERR_IO, "cannot write to stdout");
}

int cmd_launch(int argc, char **argv)
{
	struct launch_opts o;
	struct err e = ERR_INIT;
	cJSON *job = NULL;
	int rc = launch_opts_parse(&o, argc, argv, &e);
	if (rc == 1) {
		launch_opts_free(&o);
		return 0;
	}
	struct preflight pf = { NULL, 0, 0 };
	int api_error = 0;
	/* the run's connection and rules review go first: the server answers the
	 * handshake while the job is built (launch_run.h) */
	struct launch_early *early = rc == 0 && !o.dry_run && !o.server_dry_run ?
		launch_early_start(&o) : NULL;
	const struct jobapi *api = rc == 0 ? chosen_api(&o, &pf, &api_error, &e) : NULL;
	if (rc == 0)
		rc = api ? build_job(&o, api, &job, &e) : -1;
	if (rc == 0 && o.dry_run)
		rc = print_job(&o, job, &e) < 0 ? -1 : EXIT_SUCCEEDED;
	else if (rc == 0)
		rc = check_runtime(&o, api, job, &pf);
	kube_client_free(pf.c);
	if (rc == 0 && !o.dry_run)
		rc = launch_outcome_exit(o.outcome, launch_run(&o, job, early));
	if (rc < 0) {
		fprintf(stderr, "error: %s\n", e.msg);
		rc = api_error ? EXIT_API_ERROR : EXIT_BAD_INPUT;
	}
	launch_early_free(early);
	cJSON_Delete(job);
	launch_opts_free(&o);
	return rc;
}
