/*
 * render.c - `jaxjob render`: the Argo CD Config Management Plugin (CMP v2).
 *
 *   jaxjob render                      generate: cwd = the app directory,
 *                                      Argo CD's env; YAML stream on stdout
 *   jaxjob render --params             parameters.dynamic: JSON array
 *   jaxjob render --repo R --revision V [--path DIR]
 *                                      what Argo CD would render at V,
 *                                      read from Git objects (no checkout)
 *   jaxjob render --diff V1 V2 [--repo R] [--path DIR]
 *                                      jobs created / re-run / pruned
 *
 * All or nothing: everything is built in memory and written only when every
 * job rendered and validated; any error prints one line `error: FILE: job
 * NAME: FIELD ...` and nothing on stdout (an empty stream would make Argo CD
 * prune every job of the app).
 *
 * Where is the repository? In the sidecar the app directory is
 * <tmp>/<repo>/<ARGOCD_APP_SOURCE_PATH>; the repository root is found by
 * climbing that path, or from .git when Argo CD sent it, else the app
 * directory is the root. The root bounds every path a job file may name.
 * The revision stamped on jobs is ARGOCD_APP_REVISION, else HEAD of .git.
 *
 * Its parts, each a .c with its header, below it (render_set.h: what they
 * share):
 *   render_repo.c     the repository format: job files, defaults, documents
 *   render_params.c   Argo CD's environment and the --params announcements
 *   render_job.c      one job -> one validated manifest, and the sorted set
 *   render_diff.c     --diff REV1 REV2
 *   render_creds.c    repository credentials from GIT_ASKPASS
 *
 * Exit status: 0 rendered, 2 bad input (job files, parameters, flags),
 * 3 cannot read the repository (I/O, git, clone).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../commands.h"
#include "render_creds.h"
#include "render_diff.h"
#include "render_job.h"
#include "render_params.h"
#include "render_repo.h"
#include "parseopt.h"

extern char **environ;

struct render_opts {
	const char *repo;
	const char *revision;
	const char *path;
	const char *diff[2];
	int params;
};

static const char usage_text[] =
	"usage: jaxjob render [--params]\n"
	"       jaxjob render --repo PATH|URL --revision REV [--path DIR] [--params]\n"
	"       jaxjob render --diff REV1 REV2 [--repo PATH|URL] [--path DIR]\n"
	"\n"
	"Render the JAXJobs and TrainJobs (`api: trainjob`) of a Git repository\n"
	"(*.jaxjob.yaml files and jaxjob-defaults.yaml) as one YAML stream: the\n"
	"Argo CD plugin's generate command. Without --repo it reads the current\n"
	"directory as Argo CD's sidecar does, with ARGOCD_APP_* / ARGOCD_ENV_* from\n"
	"the environment.\n"
	"\n"
	"  --params            print the parameter announcements (JSON array)\n"
	"  --repo PATH|URL     a local repository, file:// or https:// URL (default .)\n"
	"  --revision REV      commit, branch or tag to read from Git objects\n"
	"  --path DIR          the app directory inside the repository (default: top)\n"
	"  --diff REV1 REV2    list the jobs syncing REV2 after REV1 would create,\n"
	"                      re-run, update in place or prune\n"
	"\n"
	"Exit status: 0 rendered, 2 bad input, 3 repository unreadable.\n";

/* The exit statuses (usage_text says them; plugin.yaml's CMP sees them). */
enum render_exit {
	RENDER_EXIT_RENDERED = 0,
	RENDER_EXIT_BAD_INPUT = 2,	/* the jobs, the parameters or the command line */
	RENDER_EXIT_UNREADABLE = 3,	/* the repository could not be read */
};

static enum render_exit exit_code(const struct err *e)
{
	switch (e->code) {
	case ERR_IO:
	case ERR_NETWORK:
	case ERR_INTERNAL:
		return RENDER_EXIT_UNREADABLE;
	default:
		return RENDER_EXIT_BAD_INPUT;
	}
}

enum { OPT_REPO, OPT_REVISION, OPT_PATH, OPT_PARAMS, OPT_DIFF, OPT_HELP };

/* The command line, one table (lib/parseopt.h): --repo URL and --repo=URL,
 * the words after `--` plain arguments (refused: render takes none). */
static const struct parseopt options[] = {
	{ "repo", 0, PARSEOPT_VALUE, OPT_REPO, NULL, "PATH|URL" },
	{ "revision", 0, PARSEOPT_VALUE, OPT_REVISION, NULL, "REV" },
	{ "path", 0, PARSEOPT_VALUE, OPT_PATH, NULL, "DIR" },
	{ "params", 0, PARSEOPT_NONE, OPT_PARAMS, NULL, NULL },
	{ "diff", 0, PARSEOPT_TWO, OPT_DIFF, NULL, "REV1 REV2" },
	{ "help", 'h', PARSEOPT_NONE, OPT_HELP, NULL, NULL },
	{ NULL, 0, PARSEOPT_NONE, 0, NULL, NULL },
};
static const struct parseopt_cmd render_cmd = { options, "jaxjob render --help", 0 };

/* One option of the table. */
static int set_opt(struct render_opts *o, const struct parseopt_hit *h, struct err *e)
{
	const char **slot = h->opt->id == OPT_REPO ? &o->repo :
			    h->opt->id == OPT_REVISION ? &o->revision : &o->path;

	switch (h->opt->id) {
	case OPT_PARAMS:
		o->params = 1;
		return 0;
	case OPT_DIFF:
		o->diff[0] = h->value;
		o->diff[1] = h->value2;
		return 0;
	default:
		if (!*h->value)
			return parseopt_missing(&render_cmd, h->opt, e);
		*slot = h->value;
		return 0;
	}
}

static int parse_opts(struct render_opts *o, int argc, char **argv, struct err *e)
{
	struct parseopt_state s;
	struct parseopt_hit h;
	int ev;

	parseopt_start(&s, &render_cmd, argc, argv, 1);
	while ((ev = parseopt_next(&s, &h, e)) > 0) {
		if (ev == PARSEOPT_OPTION && h.opt->id == OPT_HELP) {
			fputs(usage_text, stdout);
			return 1;
		}
		if (ev == PARSEOPT_OPTION && set_opt(o, &h, e) < 0)
			return -1;
		/* "generate": the CMP verb, accepted for readability in plugin.yaml */
		if (ev == PARSEOPT_ARG && !strcmp(h.spelled, "generate"))
			continue;
		if (ev == PARSEOPT_ARG)
			return err_set(e, ERR_INPUT, "unexpected argument %.80s; render takes only "
				       "options; see `jaxjob render --help`", h.spelled);
	}
	if (ev < 0)
		return -1;
	if (o->repo && !o->revision && !o->diff[0])
		return err_set(e, ERR_INPUT, "--repo needs --revision REV (or --diff REV1 REV2)");
	if (o->diff[0] && (o->revision || o->params))
		return err_set(e, ERR_INPUT, "--diff compares two revisions; drop --revision/--params");
	return 0;
}

static void env_init(struct render_env *env)
{
	memset(env, 0, sizeof(*env));
	env->app_name = getenv("ARGOCD_APP_NAME");
	env->app_namespace = getenv("ARGOCD_APP_NAMESPACE");
	env->revision = getenv("ARGOCD_APP_REVISION");
	env->params_json = getenv("ARGOCD_APP_PARAMETERS");
	env->environ = environ;
}

/*
 * The sidecar case: find the repository root above the app directory
 * `cwd`. `app` gets the app directory relative to it, `rev` HEAD of .git.
 */
static int locate_root(const char *cwd, struct buf *root, struct buf *app,
		       char rev[41], struct err *e)
{
	const char *sp = getenv("ARGOCD_APP_SOURCE_PATH");
	buf_reset(root);
	buf_adds(root, cwd);
	buf_reset(app);
	rev[0] = '\0';
	if (sp && *sp) {
		struct buf norm = BUF_INIT;
		struct err ignore = ERR_INIT;
		if (gitsrc_path_join("", sp, &norm, &ignore) == 0 && norm.len &&
		    norm.len < root->len && root->data[root->len - norm.len - 1] == '/' &&
		    !strcmp(root->data + root->len - norm.len, norm.data)) {
			buf_truncate(root, root->len - norm.len - 1);
			buf_adds(app, norm.data);
		}
		buf_free(&norm);
	}
	/* the ceiling keeps the search inside the tree Argo CD extracted */
	struct buf ceiling = BUF_INIT, top = BUF_INIT;
	buf_adds(&ceiling, root->data);
	char *slash = strrchr(ceiling.data, '/');
	buf_truncate(&ceiling, slash && slash != ceiling.data ? (size_t)(slash - ceiling.data) : 1);
	int found = gitsrc_find_head(cwd, app->len ? ceiling.data : NULL, rev, &top, e);
	if (found == 1 && !app->len && strncmp(cwd, top.data, top.len) == 0 &&
	    (cwd[top.len] == '/' || cwd[top.len] == '\0')) {
		buf_reset(root);
		buf_adds(root, top.data);
		buf_adds(app, cwd[top.len] ? cwd + top.len + 1 : "");
	}
	buf_free(&ceiling);
	buf_free(&top);
	return 0;
}

static int open_worktree(struct gitsrc **src, struct buf *app, char rev[41],
			 struct err *e)
{
	char *cwd = getcwd(NULL, 0);
	char *real = cwd ? realpath(cwd, NULL) : NULL;
	free(cwd);
	if (!real)
		return err_set(e, ERR_IO, "cannot read the current directory");
	struct buf root = BUF_INIT;
	int rc = locate_root(real, &root, app, rev, e);
	if (rc == 0)
		rc = gitsrc_open_worktree(root.data, src, e);
	buf_free(&root);
	free(real);
	return rc;
}

/* Load, override, render: one revision (or the worktree) into `set`. */
static int render_source(struct gitsrc *src, const char *app, struct render_env *env,
			 int announce_only, struct render_set *set, struct err *e)
{
	if (render_repo_load(src, app, set, e) || render_params_apply(set, env, e))
		return -1;
	return announce_only ? 0 : render_jobs(set, src, env, e);
}

static int app_path(const struct render_opts *o, struct buf *app, struct err *e)
{
	buf_reset(app);
	if (!o->path)
		return 0;
	if (gitsrc_path_join("", o->path, app, e))
		return err_prefix(e, "--path");
	return 0;
}

static int run_diff(const struct render_opts *o, struct render_env *env, struct buf *out,
		    struct err *e)
{
	struct render_set sets[2] = { { 0 }, { 0 } };
	struct buf app = BUF_INIT;
	int rc = app_path(o, &app, e);
	for (int i = 0; rc == 0 && i < 2; i++) {
		struct gitsrc *src = NULL;
		rc = gitsrc_open_revision(o->repo ? o->repo : ".", o->diff[i], &render_git_creds, &src, e);
		if (rc == 0) {
			env->revision = gitsrc_commit(src);
			rc = render_source(src, app.data, env, 0, &sets[i], e);
			if (rc)
				err_prefix(e, "at %s", o->diff[i]);
		}
		gitsrc_free(src);
	}
	if (rc == 0)
		render_diff(&sets[0], &sets[1], out);
	render_set_free(&sets[0]);
	render_set_free(&sets[1]);
	buf_free(&app);
	return rc;
}

static int run(const struct render_opts *o, struct buf *out, struct err *e)
{
	struct render_env env;
	env_init(&env);
	if (o->diff[0])
		return run_diff(o, &env, out, e);
	struct gitsrc *src = NULL;
	struct buf app = BUF_INIT;
	struct render_set set = { 0 };
	char rev[41] = "";
	int rc;
	if (o->revision) {
		rc = app_path(o, &app, e);
		if (rc == 0)
			rc = gitsrc_open_revision(o->repo ? o->repo : ".", o->revision, &render_git_creds, &src, e);
		if (rc == 0)
			env.revision = gitsrc_commit(src);
	} else {
		rc = open_worktree(&src, &app, rev, e);
		if (rc == 0 && o->path)
			rc = err_set(e, ERR_INPUT, "--path needs --revision; in the sidecar the app directory is the current directory");
		if (rc == 0 && (!env.revision || !*env.revision) && rev[0])
			env.revision = rev;
	}
	if (rc == 0)
		rc = render_source(src, app.data, &env, o->params, &set, e);
	if (rc == 0)
		rc = o->params ? render_params_announce(&set, out, e) : render_emit(&set, out, e);
	render_set_free(&set);
	gitsrc_free(src);
	buf_free(&app);
	return rc;
}

int cmd_render(int argc, char **argv)
{
	struct render_opts o = { 0 };
	struct err e = ERR_INIT;
	int rc = parse_opts(&o, argc, argv, &e);
	if (rc > 0)
		return RENDER_EXIT_RENDERED;
	struct buf out = BUF_INIT;
	if (rc == 0)
		rc = run(&o, &out, &e);
	if (rc == 0 && (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout))) {
		rc = err_set(&e, ERR_IO, "cannot write the output");
	}
	buf_free(&out);
	if (rc) {
		fprintf(stderr, "error: %s\n", e.msg);
		return exit_code(&e);
	}
	return RENDER_EXIT_RENDERED;
}
