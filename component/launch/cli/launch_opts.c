/*
 * launch_opts.c - the command line of `jaxjob launch` (see launch_opts.h).
 *
 * Two tables drive everything: lib/job/jobparams.h's parameter table gives the
 * job flags (so a new parameter is a flag, a job-file key and a help line at
 * once), and run_flags[] (launch_flags.c) gives the run settings; the other
 * parts are named in launch_opts_int.h. Both tables become the one
 * table of lib/parseopt.h, which accepts `--flag VALUE`, `--flag=VALUE`,
 * `-n NS`, `-o json`, and everything after `--` as the container command
 * (PARSEOPT_REST).
 * Boolean flags: bare (`--suspend`) means true; `--suspend=false` and
 * `--suspend false` both work; the separate form takes the next word only
 * when it is a boolean literal (true, false, 1, 0; case-insensitive), so
 * `--suspend --workers 2` stays "true". The help is printed from the same
 * tables.
 */
#include "launch_opts.h"

#include <stdlib.h>
#include <string.h>

#include "health/diagnose.h"
#include "job/jobparams.h"
#include "launch_opts_int.h"
#include "parseopt.h"

static void set_defaults(struct launch_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->params = cJSON_CreateObject();
	o->api = API_JAXJOB;
	o->format = OUTPUT_YAML;
	o->logs = LOGS_ALL;
	o->delete_after = DELETE_NEVER;
	o->on_cancel = CANCEL_DELETE;
	o->fail_fast_s = 300;
	o->queue_every_s = 60;
	o->queue_hopeless_s = 60;
	o->delete_wait_s = 20;
	o->log_drain_s = 30;
	o->adopt = 1;
	o->metrics.mode = LAUNCH_METRICS_AUTO;
	o->metrics.from = 0;		/* first */
	o->metrics.progress_s = 10;
	o->metrics.points = 300;
	o->failure_lines = DIAG_LAST_LINES_DEFAULT;
}

/* Everything after "--" is the container command. */
static int set_command(struct launch_opts *o, int argc, char **argv, struct err *e)
{
	if (argc == 0)
		return err_set(e, ERR_INPUT, "nothing after --; write -- followed by the command, "
			       "e.g. -- python train.py");
	if (cJSON_GetObjectItemCaseSensitive(o->params, "command"))
		return err_set(e, ERR_INPUT, "the command is given twice: use --command or -- "
			       "command args..., not both");
	cJSON *cmd = cJSON_CreateArray();
	for (int i = 0; i < argc; i++)
		cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
	cJSON_AddItemToObject(o->params, "command", cmd);
	return 0;
}

/*
 * The one table of the command line (lib/parseopt.h), made from the two
 * tables above: every job parameter's flag, every run flag, then the short
 * forms and the help, in the order the did-you-mean tries them. Made per
 * parse (a few hundred bytes) rather than kept: no state outlives a call.
 */
enum { OPT_PARAM, OPT_RUN, OPT_HELP };

static struct parseopt *options_table(void)
{
	size_t n = 3, k = 0;
	struct parseopt *t;

	for (const struct jobparam *p = jobparams_all(); p->name; p++)
		n++;
	for (const struct run_flag *f = launch_run_flags; f->flag; f++)
		n++;
	t = calloc(n + 1, sizeof(*t));
	if (!t)
		abort();
	for (const struct jobparam *p = jobparams_all(); p->name; p++)
		t[k++] = (struct parseopt){ p->flag, 0, p->type == JP_BOOL ? PARSEOPT_BOOL :
					    PARSEOPT_VALUE, OPT_PARAM, p, p->metavar };
	for (const struct run_flag *f = launch_run_flags; f->flag; f++) {
		t[k++] = (struct parseopt){ f->flag, 0, f->kind == RF_BOOL ? PARSEOPT_BOOL :
					    PARSEOPT_VALUE, OPT_RUN, f, f->metavar };
		if (!strcmp(f->flag, "output"))
			t[n - 2] = (struct parseopt){ NULL, 'o', PARSEOPT_VALUE, OPT_RUN, f,
						      f->metavar };
	}
	const struct jobparam *ns = jobparams_find_flag("namespace");
	t[n - 3] = (struct parseopt){ NULL, 'n', PARSEOPT_VALUE, OPT_PARAM, ns, ns->metavar };
	t[n - 1] = (struct parseopt){ "help", 'h', PARSEOPT_OPTARG, OPT_HELP, NULL, NULL };
	return t;
}

/*
 * --launch-args '["--queue=q", "--", "python", "train.py"]': the words as if
 * they stood here. Not nested (one level is all an engine needs, and a
 * list cannot then grow by itself); "" and [] add nothing, so a workflow
 * parameter left at its default passes through.
 */
static int launch_args(struct launch_opts *o, const char *v, struct err *e)
{
	const cJSON *list, *it;
	char **words;
	int n = 0, rc;

	if (!*v)
		return 0;
	list = launch_word_list(o, "launch-args", v, e);
	if (!list)
		return -1;
	words = calloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(*words));
	if (!words)
		abort();
	cJSON_ArrayForEach(it, list) {
		if (!strncmp(it->valuestring, "--launch-args", 13)) {
			free(words);
			return err_set(e, ERR_INPUT, "--launch-args inside --launch-args; put all "
				       "the options in one list");
		}
		if (!strcmp(it->valuestring, "-h") || !strncmp(it->valuestring, "--help", 6)) {
			free(words);
			return err_set(e, ERR_INPUT, "--launch-args holds %s; run jaxjob launch "
				       "--help", it->valuestring);
		}
		words[n++] = it->valuestring;
	}
	rc = launch_opts_words(o, n, words, 0, e);
	free(words);
	return rc;
}

/* One option of the table, its value in h->value. */
static int set_option(struct launch_opts *o, const struct parseopt_cmd *cmd,
		      const struct parseopt_hit *h, struct err *e)
{
	const struct run_flag *f = h->opt->id == OPT_RUN ? h->opt->data : NULL;
	const struct jobparam *p = h->opt->id == OPT_PARAM ? h->opt->data : NULL;

	if (f && f->kind == RF_STR && !*h->value)
		return parseopt_missing(cmd, h->opt, e);
	if (f && f->kind == RF_METRIC)
		return launch_metrics_flag(o, f->flag, h->value, e);
	if (f && !strcmp(f->flag, "launch-args"))
		return launch_args(o, h->value, e);
	if (f)
		return launch_flag_set(o, f, h->value, e);
	if (!strcmp(p->name, "name") && launch_identity_unfilled(p->flag, h->value, e))
		return -1;
	if (jobparams_set_text(o->params, p, h->value, e) < 0)
		return -1;
	if (!strcmp(p->name, "namespace"))
		o->namespace_flag = *h->value ? h->value : NULL;
	return 0;
}

/* The words argv[first..argc-1]: options, then "--" and the command.
 * Returns 0, 1 after the help, or -1. */
int launch_opts_words(struct launch_opts *o, int argc, char **argv, int first, struct err *e)
{
	struct parseopt *table = options_table();
	const struct parseopt_cmd cmd = { table, "jaxjob launch --help", PARSEOPT_REST };
	struct parseopt_state s;
	struct parseopt_hit h;
	int ev = 0, rc = 0;

	parseopt_start(&s, &cmd, argc, argv, first);
	while (rc == 0 && (ev = parseopt_next(&s, &h, e)) > 0) {
		if (ev == PARSEOPT_ARG) {
			rc = err_set(e, ERR_INPUT, "unexpected argument \"%s\"; put the command after "
				     "--, e.g. jaxjob launch ... -- python train.py", h.spelled);
		} else if (ev == PARSEOPT_END) {
			rc = set_command(o, argc - parseopt_rest(&s), argv + parseopt_rest(&s), e);
			break;
		} else if (h.opt->id != OPT_HELP) {
			rc = set_option(o, &cmd, &h, e);
		} else if (!h.value || !strcmp(h.value, "json")) {
			if (h.value)
				launch_help_json();
			else
				launch_help_print();
			rc = 1;
		} else {	/* --help=other */
			rc = parseopt_unknown(&cmd, "--help", e);
		}
	}
	if (rc == 0 && ev < 0)
		rc = -1;
	free(table);
	return rc;
}

static int parse_args(struct launch_opts *o, int argc, char **argv, struct err *e)
{
	int rc;

	set_defaults(o);
	rc = launch_opts_words(o, argc, argv, 1, e);
	if (rc != 0)
		return rc;
	return launch_identity_flags(o->params, o->identity, &o->task, o->name_prefix, e);
}

int launch_opts_parse(struct launch_opts *o, int argc, char **argv, struct err *e)
{
	int rc = parse_args(o, argc, argv, e);

	if (rc == 0 && launch_metrics_flags_check(o, e))
		return -1;
	if (rc == 0 && o->log_workers.n && o->logs != LOGS_ALL)
		return err_set(e, ERR_INPUT, "--log-workers picks among every worker's logs, but "
			       "--logs %s follows %s: use --logs all with it, or leave it out",
			       o->logs == LOGS_FIRST ? "first" : "none",
			       o->logs == LOGS_FIRST ? "worker 0 only" : "none");
	if (rc == 0 && o->dry_run && o->server_dry_run)	/* neither may silently win */
		return err_set(e, ERR_INPUT, "--dry-run and --server-dry-run are both given: --dry-run "
			       "prints the job and touches no cluster, --server-dry-run has the API "
			       "server validate it; keep one");
	return rc;
}

int launch_opts_logs_worker(const struct launch_opts *o, int index)
{
	if (o->logs == LOGS_NONE)
		return 0;
	if (o->logs == LOGS_FIRST)
		return index == 0;
	if (!o->log_workers.n)
		return 1;
	for (int i = 0; i < o->log_workers.n; i++)
		if (index >= o->log_workers.lo[i] && index <= o->log_workers.hi[i])
			return 1;
	return 0;
}

int launch_opts_logs_count(const struct launch_opts *o, int replicas)
{
	int n = 0;

	for (int i = 0; i < replicas; i++)
		n += launch_opts_logs_worker(o, i);
	return n;
}

void launch_opts_free(struct launch_opts *o)
{
	cJSON_Delete(o->params);
	cJSON_Delete(o->patch);
	cJSON_Delete(o->owned);
	o->params = NULL;
	o->patch = NULL;
	o->owned = NULL;
}
