/*
 * render_set.h - what the parts of `jaxjob render` share: the jobs of a
 * repository and the names of its format (not a library interface; lib/
 * knows nothing of this). It stands below the parts (render_repo,
 * render_params, render_job, render_diff), which render.c calls: so no
 * part includes the header of the file that calls it.
 *
 * A job goes through three stages, all kept in struct render_job:
 * `doc` (the merged job document: defaults, then the file), `params`
 * (jobparams after overrides), `manifest` (the rendered JAXJob or TrainJob).
 *
 * Ownership: a struct render_set owns its jobs and everything in them;
 * render_set_free() releases all of it.
 */
#ifndef JAXJOB_RENDER_SET_H
#define JAXJOB_RENDER_SET_H

#include <stddef.h>
#include <cJSON.h>

#include "buf.h"
#include "err.h"
#include "job/jobapi.h"

/* The names of the repository format. */
#define RENDER_JOB_SUFFIX ".jaxjob.yaml"
#define RENDER_DEFAULTS_FILE "jaxjob-defaults.yaml"
#define RENDER_KEY_TEMPLATE "template"
#define RENDER_KEY_NAME_SUFFIX "nameSuffix"
#define RENDER_KEY_API "api"		/* jaxjob (default) | trainjob, lib/job/jobapi.h */
#define RENDER_MAX_FILE (1024u * 1024)	/* bytes per job, defaults or template file */
#define RENDER_MAX_JOBS 10000

/* Annotations and labels stamped on every rendered job. */
#define RENDER_ANN_PATH "jaxjob.dev/source-path"
#define RENDER_ANN_REVISION "jaxjob.dev/source-revision"
#define RENDER_ANN_HASH "jaxjob.dev/spec-hash"
#define RENDER_ANN_SUFFIX "jaxjob.dev/name-suffix"	/* opt-in for plain manifests */
#define RENDER_LABEL_JOB "jaxjob.dev/job"
#define RENDER_HASH_LEN 8	/* hex digits of the spec hash in the name */

struct render_job {
	char *file;		/* repository-relative job file */
	int index;		/* document index in the file (0-based) */
	char *name;		/* the job's name before any hash suffix */
	cJSON *doc;		/* merged concise job document, or NULL (plain) */
	cJSON *params;		/* jobparams object (concise jobs) */
	char *tmpl;		/* repository-relative template, NULL = built-in */
	const struct jobapi *api;	/* JAXJob or TrainJob (static descriptor) */
	int hash_name;		/* nameSuffix: hash */
	cJSON *manifest;	/* plain input, then the rendered manifest (freed once emitted) */
	char *final_name;	/* name after the suffix */
	char *ns;		/* the rendered job's namespace, or NULL */
	char *yaml;		/* the rendered job as YAML, without "---" */
	char spec_hash[65];
};

struct render_set {
	struct render_job *v;
	size_t n, cap;
};

/* What Argo CD (or the flags) told us. Strings point into the environment. */
struct render_env {
	const char *app_name;
	const char *app_namespace;	/* default namespace of the jobs */
	const char *revision;		/* ARGOCD_APP_REVISION, or from .git, or --revision */
	const char *params_json;	/* ARGOCD_APP_PARAMETERS */
	char **environ;			/* for ARGOCD_ENV_* */
};

/* render_set.c: release the jobs of `s` and all they hold. */
void render_set_free(struct render_set *s);

/* Prefix `e` with where it happened: "FILE: job NAME: ". */
int render_job_err(const struct render_job *j, struct err *e);

#endif
