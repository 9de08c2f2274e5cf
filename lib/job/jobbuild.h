/*
 * jobbuild.h - the one way a job object is built, for every front-end:
 * `jaxjob launch`, its --dry-run, and `jaxjob render` all call job_build().
 *
 *   params --(api refuses?)--> template --(values, render)--> check used
 *          --> tidy --> patch --> finish (front-end stamps) --> validate
 *
 * 1. A built-in template has a place for everything its API can express, so
 *    a parameter the API cannot take is refused with the reason
 *    (jobapi_check_params); a user's own template decides for itself.
 * 2. load() hands over the template (launch: a file or the built-in; render:
 *    a repository file, cached). Without params it hands over a whole
 *    object instead (render's plain manifests), and steps 3-4 are skipped.
 * 3. The parameters become template values (jobparams_values), the
 *    template is rendered (tmpl_render), and every parameter the user set
 *    must have reached it (jobparams_check_used).
 * 4. The API's tidy() (e.g. a TrainJob patch that names only a container).
 * 5. An optional JSON merge patch (launch --patch).
 * 6. An optional finish() of the front-end (render's name suffix, namespace
 *    default and annotations), which may fail.
 * 7. The API's validate(); with `invalid_note` its message reads
 *    "invalid JAXJob<note>: ...".
 *
 * Ownership: *out is the caller's on success (cJSON_Delete), NULL on
 * failure. load() gives up ownership of its tree; finish() only edits it.
 */
#ifndef JAXJOB_JOBBUILD_H
#define JAXJOB_JOBBUILD_H

#include <cJSON.h>

#include "err.h"
#include "jobapi.h"

struct job_build {
	const struct jobapi *api;
	const cJSON *params;		/* name -> typed value (jobparams.h), or NULL */
	int user_template;		/* load() gives the user's template, not the API's */
	const char *const *known;	/* placeholder vocabulary for hints, or NULL */
	/* the template (or, without params, the object); *tree NULL on failure */
	int (*load)(void *ud, cJSON **tree, const char **source, struct err *e);
	const cJSON *patch;		/* merge patch after tidy, or NULL */
	int (*finish)(void *ud, cJSON *job, struct err *e);	/* or NULL */
	const char *invalid_note;	/* see step 7, or NULL: message as is */
	void *ud;
};

int job_build(const struct job_build *b, cJSON **out, struct err *e);

#endif
