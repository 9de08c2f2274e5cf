/*
 * jobbuild.c - see jobbuild.h.
 */
#include "jobbuild.h"

#include "jobparams.h"
#include "yj/jtree.h"

int job_build(const struct job_build *b, cJSON **out, struct err *e)
{
	cJSON *job = NULL;
	const char *source = NULL;

	*out = NULL;
	if (b->params && !b->user_template && jobapi_check_params(b->api, b->params, e) < 0)
		return -1;
	if (b->load(b->ud, &job, &source, e) < 0)
		return -1;
	if (b->params) {
		cJSON *tmpl = job;	/* load() gave us our own copy: render it in place */
		job = NULL;
		int rc = jobparams_render_owned(tmpl, b->params, source, b->known, &job, e);
		if (rc < 0)
			return -1;
	}
	if (b->params && b->api->tidy)
		b->api->tidy(job);
	if (b->patch)
		jtree_merge_patch(&job, b->patch);
	if (b->finish && b->finish(b->ud, job, e) < 0)
		goto fail;
	if (b->api->validate(job, e) < 0) {
		if (b->invalid_note)
			err_prefix(e, "invalid %s%s", b->api->kind, b->invalid_note);
		goto fail;
	}
	*out = job;
	return 0;
fail:
	cJSON_Delete(job);
	return -1;
}
