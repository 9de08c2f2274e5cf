/*
 * launch.c - `jaxjob launch`: flags -> params -> template -> JAXJob or
 * TrainJob (--api, lib/jobapi.h) -> merge patch -> validate -> print it
 * (--dry-run) or run it (launch_run.c).
 *
 * Everything before launch_run() is pure: no cluster, no files written, and
 * nothing on stdout until the whole job is built, so bad input always ends
 * as one `error: ...` line on stderr and exit status 2.
 */
#include <stdio.h>

#include "../commands.h"
#include "buf.h"
#include "err.h"
#include "jobapi.h"
#include "jtree.h"
#include "jobparams.h"
#include "launch_opts.h"
#include "launch_run.h"
#include "tmpl.h"
#include "yj.h"

/*
 * The API the job is built for. `auto` asks the cluster which API it serves,
 * so it needs one: with --dry-run the user must choose.
 */
static const struct jobapi *chosen_api(const struct launch_opts *o, struct err *e)
{
	if (o->api == API_TRAINJOB)
		return &JOBAPI_TRAINJOB;
	if (o->api == API_JAXJOB)
		return &JOBAPI_JAXJOB;
	if (o->dry_run)
		err_set(e, ERR_INPUT, "--api auto asks the cluster which API it serves, and "
			"--dry-run touches no cluster; choose --api jaxjob or --api trainjob");
	else
		err_set(e, ERR_INPUT, "--api auto is not available yet; choose --api jaxjob or "
			"--api trainjob");
	return NULL;
}

/* Render, patch and validate the job the options describe. */
static int build_job(const struct launch_opts *o, const struct jobapi *api, cJSON **out,
		     struct err *e)
{
	cJSON *tmpl = NULL, *job = NULL;
	const char *source = NULL;
	*out = NULL;
	/* the built-in template has a place for everything its API can express */
	if (!o->template_path && jobapi_check_params(api, o->params, e) < 0)
		return -1;
	if (jobapi_template(api, o->template_path, &tmpl, &source, e) < 0)
		return -1;
	int rc = jobparams_render(tmpl, o->params, source, &job, e);
	cJSON_Delete(tmpl);
	if (rc < 0)
		return -1;
	if (api->tidy)
		api->tidy(job);
	if (o->patch)
		jtree_merge_patch(&job, o->patch);
	if (api->validate(job, e) < 0) {
		cJSON_Delete(job);
		return err_prefix(e, "invalid %s%s", api->kind, o->patch ? " after --patch" : "");
	}
	*out = job;
	return 0;
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
	const struct jobapi *api = rc == 0 ? chosen_api(&o, &e) : NULL;
	if (rc == 0)
		rc = api ? build_job(&o, api, &job, &e) : -1;
	if (rc == 0 && o.dry_run)
		rc = print_job(&o, job, &e) < 0 ? -1 : EXIT_SUCCEEDED;
	else if (rc == 0)
		rc = launch_run(&o, job);
	if (rc < 0) {
		fprintf(stderr, "error: %s\n", e.msg);
		rc = EXIT_BAD_INPUT;
	}
	cJSON_Delete(job);
	launch_opts_free(&o);
	return rc;
}
