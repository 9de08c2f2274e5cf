/*
 * render.h - the pieces of `jaxjob render`, shared by the files of
 * argocd-plugin/ (not a library interface; lib/ knows nothing of this).
 *
 *   render.c          flags, the three modes (generate, --params, --diff),
 *                     all-or-nothing output
 *   render_repo.c     the repository format: find job files under the app
 *                     directory, apply jaxjob-defaults.yaml files, split
 *                     documents into jobs (concise, or a plain JAXJob or
 *                     TrainJob manifest); `api:` picks JAXJob or TrainJob
 *   render_params.c   Argo CD's environment: ARGOCD_ENV_* and
 *                     ARGOCD_APP_PARAMETERS overrides, and the parameter
 *                     announcements of --params
 *   render_job.c      one job -> one validated manifest (template, hash
 *                     name, stamps), and the sorted set
 *   render_diff.c     --diff REV1 REV2
 *
 * A job goes through three stages, all kept in struct render_job:
 * `doc` (the merged job document: defaults, then the file), `params`
 * (jobparams after overrides), `manifest` (the rendered JAXJob or TrainJob).
 *
 * Ownership: a struct render_set owns its jobs and everything in them;
 * render_set_free() releases all of it.
 */
#ifndef JAXJOB_RENDER_H
#define JAXJOB_RENDER_H

#include <stddef.h>
#include <cJSON.h>

#include "buf.h"
#include "err.h"
#include "gitsrc.h"
#include "jobapi.h"

/* The names of the repository format. */
#define RENDER_JOB_SUFFIX ".jaxjob.yaml"
#define RENDER_DEFAULTS_FILE "jaxjob-defaults.yaml"
#define RENDER_KEY_TEMPLATE "template"
#define RENDER_KEY_NAME_SUFFIX "nameSuffix"
#define RENDER_KEY_API "api"		/* jaxjob (default) | trainjob, lib/jobapi.h */
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

void render_set_free(struct render_set *s);

/* Repository credentials from GIT_ASKPASS, as Argo CD provides them to a
 * plugin (render_creds.c); handed to gitsrc_open_revision(). */
extern const struct gitsrc_creds render_git_creds;

/* Prefix `e` with where it happened: "FILE: job NAME: ". */
int render_job_err(const struct render_job *j, struct err *e);

/* --- render_repo.c ---------------------------------------------------- */

/*
 * Load every job under `app` (a repository-relative directory, "" = root)
 * of `src`: job files sorted by path, documents in file order, defaults from
 * the repository root down to each file's directory. Zero jobs is an error.
 */
int render_repo_load(struct gitsrc *src, const char *app, struct render_set *out,
		     struct err *e);

/* --- render_params.c -------------------------------------------------- */

/*
 * Turn each concise job's document into jobparams (job.params), then
 * apply ARGOCD_ENV_* and ARGOCD_APP_PARAMETERS, in that order.
 */
int render_params_apply(struct render_set *s, const struct render_env *env,
			struct err *e);

/* The JSON array of parameter announcements for parameters.dynamic. */
int render_params_announce(const struct render_set *s, struct buf *out,
			   struct err *e);

/* --- render_job.c ----------------------------------------------------- */

/*
 * Render every job (templates read from `src`), validate, hash-name and
 * stamp them; refuse duplicate names; sort by namespace and name. Each job
 * is kept as its YAML text (`yaml`, `ns`): its trees (`doc`, `params`,
 * `manifest`) are freed as soon as it is emitted, so a repository of
 * 10,000 jobs holds 10,000 short texts, not 10,000 trees.
 */
int render_jobs(struct render_set *s, struct gitsrc *src, const struct render_env *env,
		struct err *e);

/* Emit the sorted manifests as one YAML stream. */
int render_emit(const struct render_set *s, struct buf *out, struct err *e);

/* --- render_diff.c ---------------------------------------------------- */

/* Compare two rendered sets: created / re-run / updated / pruned lines. */
void render_diff(const struct render_set *from, const struct render_set *to,
		 struct buf *out);

#endif
