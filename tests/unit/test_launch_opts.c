/* test_launch_opts.c - the command line of `jaxjob launch`: what each flag sets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "component/launch/outputs/launch_metrics.h"
#include "component/launch/cli/launch_opts.h"
#include "component/launch/decide/launch_outcome.h"
#include "lib/buf.h"

/* Parse a NULL-terminated argument list (without "launch"). */
static int parse(struct launch_opts *o, struct err *e, ...)
{
	char *argv[64] = { "launch" };
	int argc = 1;
	va_list ap;
	va_start(ap, e);
	for (char *a = va_arg(ap, char *); a && argc < 63; a = va_arg(ap, char *))
		argv[argc++] = a;
	va_end(ap);
	return launch_opts_parse(o, argc, argv, e);
}

static void defaults_when_nothing_is_given(void **state)
{
	(void)state;
	struct launch_opts o;
	struct err e = ERR_INIT;
	assert_int_equal(parse(&o, &e, NULL), 0);
	assert_int_equal(o.api, API_JAXJOB);
	assert_int_equal(o.format, OUTPUT_YAML);
	assert_int_equal(o.logs, LOGS_ALL);
	assert_int_equal(o.delete_after, DELETE_NEVER);
	assert_int_equal(o.on_cancel, CANCEL_DELETE);
	assert_int_equal(o.adopt, 1);
	assert_int_equal(o.dry_run, 0);
	assert_true(o.timeout_s == 0 && o.fail_fast_s == 300 && o.delete_wait_s == 20);
	assert_null(o.template_path);
	assert_null(o.patch);
	assert_non_null(o.params);
	assert_null(o.params->child);
	launch_opts_free(&o);
}

static void durations_take_units_and_plain_seconds(void **state)
{
	(void)state;
	static const struct { const char *text; double s; } ok[] = {
		{ "90s", 90 }, { "30m", 1800 }, { "2h", 7200 }, { "1h30m", 5400 },
		{ "1.5h", 5400 }, { "3600", 3600 }, { "0", 0 }, { "1h0m30s", 3630 },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct launch_opts o;
		struct err e = ERR_INIT;
		char arg[64];
		snprintf(arg, sizeof(arg), "--timeout=%s", ok[i].text);
		assert_int_equal(parse(&o, &e, arg, NULL), 0);
		assert_true(o.timeout_s == ok[i].s);
		launch_opts_free(&o);
	}
	static const char *const bad[] = { "2 hours", "1d", "-5s", "h", "", "5x", "1e3", "inf" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct launch_opts o;
		struct err e = ERR_INIT;
		assert_int_equal(parse(&o, &e, "--fail-fast-after", bad[i], NULL), -1);
		assert_non_null(strstr(e.msg, "--fail-fast-after"));
		launch_opts_free(&o);
	}
}

static void run_flags_fill_their_fields(void **state)
{
	(void)state;
	struct launch_opts o;
	struct err e = ERR_INIT;
	assert_int_equal(parse(&o, &e, "-o", "json", "--logs=first", "--delete-after",
			       "success", "--on-cancel", "suspend", "--adopt=false", "--quiet",
			       "--kubeconfig", "/k", "--context", "c", "--insecure-skip-tls-verify",
			       "--identity", "run-1", "--api", "auto", "--server-dry-run",
			       "--delete-timeout", "1m", "--out-state", "/o/state", "--out-job-json",
			       "/o/job.json", "--out-exit-code=/o/rc", "--template", "t.yaml", NULL), 0);
	assert_true(!o.dry_run && o.server_dry_run && o.quiet && o.insecure_skip_tls_verify);
	assert_int_equal(o.format, OUTPUT_JSON);
	assert_int_equal(o.logs, LOGS_FIRST);
	assert_int_equal(o.delete_after, DELETE_ON_SUCCESS);
	assert_int_equal(o.on_cancel, CANCEL_SUSPEND);
	assert_int_equal(o.api, API_AUTO);
	assert_int_equal(o.adopt, 0);
	assert_true(o.delete_wait_s == 60);
	assert_string_equal(o.kubeconfig, "/k");
	assert_string_equal(o.context, "c");
	assert_string_equal(o.identity, "run-1");
	assert_string_equal(o.out.state, "/o/state");
	assert_string_equal(o.out.job_json, "/o/job.json");
	assert_string_equal(o.out.exit_code, "/o/rc");
	assert_null(o.out.summary);
	assert_string_equal(o.template_path, "t.yaml");
	launch_opts_free(&o);
}

static void job_flags_fill_params_and_namespace(void **state)
{
	(void)state;
	struct launch_opts o;
	struct err e = ERR_INIT;
	assert_int_equal(parse(&o, &e, "-n", "team-a", "--name=x", "--workers", "3", "--env", "A=1",
			       "--param", "k=v", "--patch", "{\"spec\":{}}", "--suspend", "--",
			       "python", "--not-a-flag", NULL), 0);
	assert_string_equal(o.namespace_flag, "team-a");
	char *json = cJSON_PrintUnformatted(o.params);
	assert_string_equal(json, "{\"namespace\":\"team-a\",\"name\":\"x\",\"workers\":3,"
			    "\"env\":[{\"name\":\"A\",\"value\":\"1\"}],\"k\":\"v\",\"suspend\":true,"
			    "\"command\":[\"python\",\"--not-a-flag\"]}");
	free(json);
	assert_true(cJSON_IsObject(o.patch));
	launch_opts_free(&o);
}

static void bad_flags_say_what_is_wrong(void **state)
{
	(void)state;
	static const struct { const char *a, *b, *msg; } bad[] = {
		{ "--nope", NULL, "unknown option --nope" },
		{ "-x", NULL, "unknown option -x" },
		{ "--workers", NULL, "--workers needs a value (N); see `jaxjob launch --help`" },
		{ "--logs", "some", "--logs \"some\" is not valid; use one of all, first, none" },
		{ "--adopt=perhaps", NULL, "--adopt must be true or false" },
		{ "train.py", NULL, "unexpected argument \"train.py\"" },
		{ "--", NULL, "nothing after --" },
		{ "--patch", "[]", "--patch must be a mapping" },
		{ "--kubeconfig=", NULL, "--kubeconfig needs a value" },
		{ "--workers", "0", "workers must be at least 1, got 0" },
		/* the parser's table (lib/parseopt.h): shorts, the help, the wording */
		{ "-n", NULL, "-n needs a value (NS); see `jaxjob launch --help`" },
		{ "-o", NULL, "-o needs a value (FORMAT); see `jaxjob launch --help`" },
		{ "-oxml", NULL, "--output \"xml\" is not valid; use one of yaml, json" },
		{ "-hx", NULL, "unknown option -hx; see `jaxjob launch --help`" },
		{ "--help=xml", NULL, "unknown option --help; see `jaxjob launch --help`" },
		{ "--wrokers=4", NULL, "unknown option --wrokers (did you mean --workers?)" },
		{ "--dry-rnu", NULL, "unknown option --dry-rnu (did you mean --dry-run?)" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct launch_opts o;
		struct err e = ERR_INIT;
		assert_int_equal(parse(&o, &e, bad[i].a, bad[i].b, NULL), -1);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("%s: got \"%s\"", bad[i].a, e.msg);
		launch_opts_free(&o);
	}
}

/* --launch-args: the words of a JSON list, read where it stands (later flags win). */
static void launch_args_are_read_where_they_stand(void **state)
{
	(void)state;
	struct launch_opts o;
	struct err e = ERR_INIT;
	assert_int_equal(parse(&o, &e, "--name", "x", "--timeout=1h", "--launch-args",
			       "[\"--timeout=2h\", \"--local-queue\", \"q\", \"--logs=first\", "
			       "\"--\", \"python\", \"t.py\"]", "--logs", "none", NULL), 0);
	assert_true(o.timeout_s == 7200);
	assert_int_equal(o.logs, LOGS_NONE);
	char *json = cJSON_PrintUnformatted(o.params);
	assert_string_equal(json, "{\"name\":\"x\",\"local-queue\":\"q\","
			    "\"command\":[\"python\",\"t.py\"]}");
	free(json);
	launch_opts_free(&o);
	/* "" and [] add nothing (a workflow parameter left at its default) */
	assert_int_equal(parse(&o, &e, "--launch-args", "", "--launch-args=[]", NULL), 0);
	assert_null(o.params->child);
	launch_opts_free(&o);
}

static void bad_launch_args_say_what_is_wrong(void **state)
{
	(void)state;
	static const struct { const char *v, *msg; } bad[] = {
		{ "{\"a\": 1}", "--launch-args must be a JSON list of strings, got" },
		{ "[4]", "--launch-args must be a JSON list of strings; quote every item" },
		{ "[\"--launch-args=[]\"]", "--launch-args inside --launch-args" },
		{ "[\"--help\"]", "--launch-args holds --help" },
		{ "[\"--nope\"]", "unknown option --nope" },
		{ "[\"--workers\"]", "--workers needs a value" },
		{ "[\"--x", "--launch-args must be a JSON list of strings such as" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct launch_opts o;
		struct err e = ERR_INIT;
		assert_int_equal(parse(&o, &e, "--launch-args", bad[i].v, NULL), -1);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("%s: got \"%s\"", bad[i].v, e.msg);
		launch_opts_free(&o);
	}
}

/* --metric-step as KFP passes a JsonArray input: a JSON list of names. */
static void metric_step_takes_a_json_list(void **state)
{
	(void)state;
	struct launch_opts o;
	struct err e = ERR_INIT;
	assert_int_equal(parse(&o, &e, "--metric-step", "[\"update\",\"it\"]", "--metric-step",
			       "epoch", NULL), 0);
	assert_int_equal(o.metrics.nsteps, 3);
	assert_string_equal(o.metrics.steps[0], "update");
	assert_string_equal(o.metrics.steps[1], "it");
	assert_string_equal(o.metrics.steps[2], "epoch");
	launch_opts_free(&o);
	assert_int_equal(parse(&o, &e, "--metric-step", "[\"a b\"]", NULL), -1);
	assert_non_null(strstr(e.msg, "--metric-step \"a b\" is not a key name"));
	launch_opts_free(&o);
}

/* Boolean flags: bare = true, --flag=V, and --flag V when V is a boolean literal. */
static void boolean_flags_take_both_forms(void **state)
{
	(void)state;
	struct launch_opts o;
	struct err e = ERR_INIT;
	assert_int_equal(parse(&o, &e, "--suspend", "true", "--adopt", "false", "--quiet", "FALSE",
			       "--dry-run", "--server-dry-run=false", NULL), 0);
	assert_int_equal(o.adopt, 0);
	assert_int_equal(o.quiet, 0);
	assert_int_equal(o.dry_run, 1);
	assert_int_equal(o.server_dry_run, 0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o.params, "suspend")));
	launch_opts_free(&o);
	assert_int_equal(parse(&o, &e, "--suspend", "false", "--adopt", "true", NULL), 0);
	assert_int_equal(o.adopt, 1);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o.params, "suspend")));
	launch_opts_free(&o);
	/* a bare flag before another option, or at the end, is true */
	assert_int_equal(parse(&o, &e, "--adopt", "--workers", "2", "--suspend", NULL), 0);
	assert_int_equal(o.adopt, 1);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o.params, "suspend")));
	launch_opts_free(&o);
	/* a word that is not a boolean is not taken as the value */
	assert_int_equal(parse(&o, &e, "--suspend", "maybe", NULL), -1);
	assert_non_null(strstr(e.msg, "unexpected argument \"maybe\""));
	launch_opts_free(&o);
}

/* pipeline inputs: empty = not given; --name-prefix becomes the name; placeholders refused */
static void identity_inputs_and_name_prefix(void **state)
{
	(void)state;
	struct launch_opts o;
	struct err e = ERR_INIT;
	unsetenv("KFP_RUN_ID");
	unsetenv("ARGO_WORKFLOW_UID");
	unsetenv("ARGO_WORKFLOW_NAME");
	assert_int_equal(parse(&o, &e, "--name", "n", "--run-id", "", "--task-name", "", "--task-id",
			       "", "--name-prefix", "", "--outcome", "exit-code", NULL), 0);
	assert_null(o.task.run_id);
	assert_null(o.task.task_name);
	assert_null(o.name_prefix);
	assert_int_equal(o.outcome, OUTCOME_EXIT_CODE);
	launch_opts_free(&o);

	assert_int_equal(parse(&o, &e, "--name", "", "--name-prefix", "mnist", "--run-id", "r-1",
			       "--task-name", "train", "--outcome=outputs", NULL), 0);
	const char *name = cJSON_GetObjectItem(o.params, "name")->valuestring;
	assert_int_equal(strlen(name), 16);
	assert_int_equal(strncmp(name, "mnist-", 6), 0);
	assert_string_equal(o.task.run_id, "r-1");
	assert_int_equal(o.outcome, OUTCOME_OUTPUTS);
	launch_opts_free(&o);

	static const struct { const char *a, *b, *c, *msg; } bad[] = {
		{ "--name=mnist-{{$.pipeline_job_uuid}}", NULL, NULL, "placeholder nobody filled in" },
		{ "--run-id={{$.pipeline_job_uuid}}", NULL, NULL, "--run-id" },
		{ "--name-prefix=mnist", NULL, NULL, "--name-prefix needs the run" },
		{ "--name-prefix=mnist", "--name=x", "--run-id=r", "both --name and --name-prefix" },
		{ "--name-prefix=Mnist", "--run-id=r", NULL, "--name-prefix" },
		{ "--name-prefix=a-very-long-prefix-that-leaves-no-room-for-the-hash-suffix",
		  "--run-id=r", NULL, "at most 52" },
		{ "--outcome=maybe", NULL, NULL, "use one of exit-code, outputs" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err_clear(&e);
		assert_int_equal(parse(&o, &e, bad[i].a, bad[i].b, bad[i].c, NULL), -1);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("%s: got \"%s\", want \"%s\"", bad[i].a, e.msg, bad[i].msg);
		launch_opts_free(&o);
	}
}

/* A KFP input is one argv element: several NAME=REGEX in one --metric value,
 * one per line; blank and indented lines as a triple-quoted string has them. */
static void metric_takes_several_patterns_one_per_line(void **state)
{
	(void)state;
	struct launch_opts o;
	struct err e = ERR_INIT;
	assert_int_equal(parse(&o, &e, "--metric", "\n    tokens_per_s=tokens/s: ([0-9.]+)\r\n\n"
			       "\tmfu=mfu ([0-9.]+)%\n  \n", "--metric", "loss=loss ([0-9.]+)",
			       "--metrics", "patterns", NULL), 0);
	assert_int_equal(o.metrics.npatterns, 2);	/* two values, three patterns */
	assert_int_equal(launch_metrics_entries(o.metrics.patterns[0]), 2);
	assert_int_equal(launch_metrics_entries(o.metrics.patterns[1]), 1);
	launch_opts_free(&o);

	/* a value with no entry (a pipeline parameter left empty) is no pattern */
	assert_int_equal(parse(&o, &e, "--metric", "", "--metric", "\n \n", "--metrics", "none",
			       NULL), 0);
	assert_int_equal(o.metrics.npatterns, 0);
	launch_opts_free(&o);
	assert_int_equal(parse(&o, &e, "--metric", "\n", "--metrics", "patterns", NULL), -1);
	assert_string_equal(e.msg, "--metrics patterns needs at least one --metric NAME=REGEX");
	launch_opts_free(&o);

	/* the same NAME twice: two shapes of one metric (POSIX EREs have no (?:...)) */
	err_clear(&e);
	assert_int_equal(parse(&o, &e, "--metric", "mfu=mfu: ([0-9.]+)\nmfu=MFU=([0-9.]+)%", NULL), 0);
	launch_opts_free(&o);
}

/* Each bad entry: one line naming the flag, the line of the value, the entry
 * and the fix; a single-line value keeps the wording it always had. */
static void bad_metric_entries_name_their_line(void **state)
{
	(void)state;
	static const struct { const char *value, *msg; } bad[] = {
		{ "a=a ([0-9]+)\nmfu=mfu (([0-9.]+)",
		  "--metric line 2 (mfu): the regex \"mfu (([0-9.]+)\" does not compile "
		  "(Unmatched ( or \\(); write a POSIX extended regex" },
		{ "\nmfu=(mfu) ([0-9.]+)\n",
		  "--metric line 2 (mfu): the regex needs exactly one capture group (the number), it "
		  "has 2; use (...) once, e.g. 'loss ([0-9.eE+-]+)'" },
		{ "a=a ([0-9]+)\n\nmfu ([0-9.]+)",
		  "--metric line 3: \"mfu ([0-9.]+)\" needs NAME=REGEX (one per line), "
		  "e.g. loss=loss is ([0-9.eE+-]+)" },
		{ "a=a ([0-9]+)\n9mfu=mfu ([0-9.]+)",
		  "--metric line 2: name \"9mfu\" is not valid: start with a letter or '_', then "
		  "letters, digits, '_', '.', '/', '-' (at most 47 characters)" },
		{ "x=(\nb=b ([0-9]+)\nnope\n\n9=(1)",
		  "--metric line 1 (x): the regex \"(\" does not compile (Unmatched ( or \\(); "
		  "write a POSIX extended regex; lines 3, 5 are bad too" },
		{ "x=(\nnope",
		  "--metric line 1 (x): the regex \"(\" does not compile (Unmatched ( or \\(); "
		  "write a POSIX extended regex; line 2 is bad too" },
		{ "mfu=(mfu) ([0-9.]+)",
		  "--metric mfu: the regex needs exactly one capture group (the number), it has 2; "
		  "use (...) once, e.g. 'loss ([0-9.eE+-]+)'" },
		{ "  nope", "--metric \"nope\" needs NAME=REGEX, e.g. --metric "
		  "'loss=loss is ([0-9.eE+-]+)'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct launch_opts o;
		struct err e = ERR_INIT;
		assert_int_equal(parse(&o, &e, "--metric", bad[i].value, NULL), -1);
		if (strcmp(e.msg, bad[i].msg))
			fail_msg("case %zu: got\n  %s\nwant\n  %s", i, e.msg, bad[i].msg);
		launch_opts_free(&o);
	}
}

/* What `launch` prints for `args` (--help or --help=json), read back. */
static char *help_output(const char *arg)
{
	struct launch_opts o;
	struct err e = ERR_INIT;
	FILE *f = tmpfile();
	assert_non_null(f);
	fflush(stdout);
	int saved = dup(1);
	dup2(fileno(f), 1);
	int rc = parse(&o, &e, arg, NULL);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	assert_int_equal(rc, 1);
	launch_opts_free(&o);
	long n = ftell(f);
	char *text = calloc(1, (size_t)n + 1);
	rewind(f);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

/* Does `s` state an exit code: "exit N" or "exit status N" with N not 0
 * (the one fixed code a flag may name: --outcome outputs exits 0)? */
static const char *states_exit_code(const char *s)
{
	for (const char *p = s; (p = strstr(p, "exit ")); p++) {
		const char *q = p + 5;
		if (!strncmp(q, "status ", 7))
			q += 7;
		if (*q >= '1' && *q <= '9')
			return p;
	}
	return NULL;
}

static void help_exit_codes_are_the_outcome_table(void **state)
{
	(void)state;
	char *help = help_output("--help");
	const char *tail = strstr(help, "\nexit status:\n");
	assert_non_null(tail);
	/* the list is the table's, every row under its code, and ends the help */
	struct buf want = BUF_INIT;
	launch_outcome_exit_help(&want);
	assert_string_equal(tail + strlen("\nexit status:\n"), want.data);
	for (int r = 0; r < LAUNCH_OUTCOME_ROWS; r++) {
		const struct launch_outcome_def *d = launch_outcome_def(r);
		char line[256];
		snprintf(line, sizeof(line), "  %d  %s\n", d->exit_code, d->meaning);
		if (!strstr(want.data, line))
			fail_msg("row %s: no line \"%s\" in --help", d->name, line);
	}
	/* a flag a meaning names is a flag of the help (the table had said
	 * --fail-fast for --fail-fast-after) */
	for (const char *p = want.data; (p = strstr(p, "--")); p += 2) {
		size_t n = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
		char opt[64];
		snprintf(opt, sizeof(opt), "\n  %.*s", (int)n, p);
		const char *at = strstr(help, opt);
		if (!at || (at[strlen(opt)] != ' ' && at[strlen(opt)] != '\n'))
			fail_msg("the exit status names %.*s, which is no option of --help", (int)n, p);
	}
	/* nothing before the list states a code of its own (as the --outcome
	 * flag's words did: they drifted from the table) */
	char *prose = strndup(help, (size_t)(tail - help));
	const char *said = states_exit_code(prose);
	if (said)
		fail_msg("--help states an exit code outside the table's list: \"%.40s\"", said);
	/* a state the help names ("state Timeout") is a row's */
	for (const char *p = help; (p = strstr(p, "state ")); p++) {
		const char *w = p + 6;
		size_t n = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
		if (p == help || p[-1] != ' ' || !n || w[0] < 'A' || w[0] > 'Z')
			continue;
		int known = 0;
		for (int r = 0; r < LAUNCH_OUTCOME_ROWS; r++)
			known |= strlen(launch_outcome_def(r)->state) == n &&
				 !strncmp(launch_outcome_def(r)->state, w, n);
		if (!known)
			fail_msg("--help names a state no row has: \"%.*s\"", (int)n, w);
	}
	char *json = help_output("--help=json");
	said = states_exit_code(json);
	if (said)
		fail_msg("--help=json states an exit code: \"%.40s\"", said);
	free(json);
	free(prose);
	buf_free(&want);
	free(help);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_when_nothing_is_given),
		cmocka_unit_test(identity_inputs_and_name_prefix),
		cmocka_unit_test(durations_take_units_and_plain_seconds),
		cmocka_unit_test(run_flags_fill_their_fields),
		cmocka_unit_test(job_flags_fill_params_and_namespace),
		cmocka_unit_test(bad_flags_say_what_is_wrong),
		cmocka_unit_test(boolean_flags_take_both_forms),
		cmocka_unit_test(launch_args_are_read_where_they_stand),
		cmocka_unit_test(bad_launch_args_say_what_is_wrong),
		cmocka_unit_test(metric_step_takes_a_json_list),
		cmocka_unit_test(metric_takes_several_patterns_one_per_line),
		cmocka_unit_test(bad_metric_entries_name_their_line),
		cmocka_unit_test(help_exit_codes_are_the_outcome_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
