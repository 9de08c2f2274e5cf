/* test_parseopt.c - the one command-line parser (lib/parseopt.c): the forms,
 * the end of the options, and the one wording of an unknown option and of a
 * missing value. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "parseopt.h"

enum { O_FILE, O_QUIET, O_SUSPEND, O_WORKERS, O_DIFF, O_NS, O_HELP };

static const struct parseopt opts[] = {
	{ "file", 'f', PARSEOPT_VALUE, O_FILE, NULL, "FILE" },
	{ "quiet", 0, PARSEOPT_NONE, O_QUIET, NULL, NULL },
	{ "suspend", 0, PARSEOPT_BOOL, O_SUSPEND, NULL, NULL },
	{ "workers", 0, PARSEOPT_VALUE, O_WORKERS, NULL, NULL },
	{ "diff", 0, PARSEOPT_TWO, O_DIFF, NULL, "REV1 REV2" },
	{ NULL, 'n', PARSEOPT_VALUE, O_NS, NULL, "NS" },
	{ "help", 'h', PARSEOPT_OPTARG, O_HELP, NULL, NULL },
	{ NULL, 0, PARSEOPT_NONE, 0, NULL, NULL },
};
static const struct parseopt_cmd cmd = { opts, "t --help", 0 };
static const struct parseopt_cmd rest = { opts, "t --help", PARSEOPT_REST };

/* Walk argv (NULL-terminated, argv[0] skipped) into a trace such as
 * "O0=a O2=true A:x E" (option id=value[,value2], A: a plain word, E: --),
 * or "error: ..." at the first error. */
static const char *walk(const struct parseopt_cmd *c, const char **words)
{
	static char trace[ERR_MSG_MAX + 64];
	char *argv[32];
	int argc = 0, ev;
	struct parseopt_state s;
	struct parseopt_hit h;
	struct err e = ERR_INIT;
	size_t n = 0;

	argv[argc++] = "t";
	while (*words)
		argv[argc++] = (char *)*words++;
	argv[argc] = NULL;
	trace[0] = '\0';
	parseopt_start(&s, c, argc, argv, 1);
	while ((ev = parseopt_next(&s, &h, &e)) > 0) {
		if (ev == PARSEOPT_ARG)
			n += (size_t)snprintf(trace + n, sizeof(trace) - n, "A:%s ", h.spelled);
		else if (ev == PARSEOPT_END)
			n += (size_t)snprintf(trace + n, sizeof(trace) - n, "E@%d ", parseopt_rest(&s));
		else
			n += (size_t)snprintf(trace + n, sizeof(trace) - n, "O%d=%s%s%s ", h.opt->id,
					      h.value ? h.value : "(null)", h.value2 ? "," : "",
					      h.value2 ? h.value2 : "");
		if (ev == PARSEOPT_END)
			break;
	}
	if (ev < 0) {
		assert_int_equal(e.code, ERR_INPUT);
		snprintf(trace, sizeof(trace), "error: %s", e.msg);
	} else if (n) {
		trace[n - 1] = '\0';
	}
	return trace;
}

#define WALK(c, ...) walk((c), (const char *[]){ __VA_ARGS__, NULL })

static void a_value_attached_or_separate(void **state)
{
	(void)state;
	assert_string_equal(WALK(&cmd, "--file", "a", "--file=b", "-fc", "-f", "d", "--file="),
			    "O0=a O0=b O0=c O0=d O0=");
	/* the next word is the value whatever it looks like */
	assert_string_equal(WALK(&cmd, "--file", "--quiet"), "O0=--quiet");
	/* a short option's letters are its value, "=" included (as -ojson) */
	assert_string_equal(WALK(&cmd, "-f=x"), "O0==x");
}

/* One wording for every command: the option's name, what its value is, the help. */
static void a_missing_value_in_one_wording(void **state)
{
	(void)state;
	assert_string_equal(WALK(&cmd, "--file"), "error: --file needs a value (FILE); see `t --help`");
	/* a short option is named by its long name when it has one */
	assert_string_equal(WALK(&cmd, "-f"), "error: --file needs a value (FILE); see `t --help`");
	assert_string_equal(WALK(&cmd, "-n"), "error: -n needs a value (NS); see `t --help`");
	assert_string_equal(WALK(&cmd, "--quiet", "--workers"),
			    "error: --workers needs a value; see `t --help`");
	assert_string_equal(WALK(&cmd, "--diff", "a"),
			    "error: --diff needs two values (REV1 REV2); see `t --help`");
	/* an empty value is the command's to refuse, in the same words */
	assert_string_equal(WALK(&cmd, "--file="), "O0=");
	struct err e = ERR_INIT;
	assert_int_equal(parseopt_missing(&cmd, &opts[0], &e), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "--file needs a value (FILE); see `t --help`");
}

static void a_boolean_takes_only_a_literal(void **state)
{
	(void)state;
	assert_string_equal(WALK(&cmd, "--suspend"), "O2=true");
	assert_string_equal(WALK(&cmd, "--suspend", "false"), "O2=false");
	assert_string_equal(WALK(&cmd, "--suspend", "FALSE", "--suspend", "1"), "O2=FALSE O2=1");
	assert_string_equal(WALK(&cmd, "--suspend=maybe"), "O2=maybe");
	/* not a literal: the boolean is true and the word stays a word */
	assert_string_equal(WALK(&cmd, "--suspend", "--workers", "2"), "O2=true O3=2");
	assert_string_equal(WALK(&cmd, "--suspend", "yes"), "O2=true A:yes");
	int b = -1;
	assert_int_equal(parseopt_bool("True", &b), 0);
	assert_int_equal(b, 1);
	assert_int_equal(parseopt_bool("0", &b), 0);
	assert_int_equal(b, 0);
	assert_int_equal(parseopt_bool("yes", &b), -1);
	assert_int_equal(parseopt_bool("", &b), -1);
}

static void switches_optional_values_and_pairs(void **state)
{
	(void)state;
	assert_string_equal(WALK(&cmd, "--quiet", "x"), "O1=(null) A:x");
	assert_string_equal(WALK(&cmd, "--help", "-h", "--help=json", "--help="),
			    "O6=(null) O6=(null) O6=json O6=");
	/* an optional value is attached only */
	assert_string_equal(WALK(&cmd, "--help", "json"), "O6=(null) A:json");
	assert_string_equal(WALK(&cmd, "--diff", "a", "b", "c"), "O4=a,b A:c");
}

/* `--` is handled here, the same for every command. */
static void plain_words_and_the_end(void **state)
{
	(void)state;
	/* the words after it are plain words, whatever they look like */
	assert_string_equal(WALK(&cmd, "x", "-", "--quiet", "--", "--file", "y", "--"),
			    "A:x A:- O1=(null) A:--file A:y A:--");
	assert_string_equal(WALK(&cmd, "--"), "");
	assert_string_equal(WALK(&cmd, "--file", "--"), "O0=--");
	/* PARSEOPT_REST: the command takes them whole (launch's container command) */
	assert_string_equal(WALK(&rest, "x", "--quiet", "--", "--file", "y"), "A:x O1=(null) E@4");
	assert_string_equal(WALK(&rest, "--"), "E@2");
}

static void an_unknown_option_by_name(void **state)
{
	(void)state;
	assert_string_equal(WALK(&cmd, "--worker"),
			    "error: unknown option --worker (did you mean --workers?); see `t --help`");
	/* the value is not part of the name */
	assert_string_equal(WALK(&cmd, "--worker=3"),
			    "error: unknown option --worker (did you mean --workers?); see `t --help`");
	assert_string_equal(WALK(&cmd, "--frobnicate"), "error: unknown option --frobnicate; see `t --help`");
	assert_string_equal(WALK(&cmd, "-x"), "error: unknown option -x; see `t --help`");
	/* a letter's best guess is said with one dash */
	assert_string_equal(WALK(&cmd, "--hxp"),
			    "error: unknown option --hxp (did you mean -h?); see `t --help`");
	/* letters after a letter that takes no value: the whole word is unknown */
	assert_string_equal(WALK(&cmd, "-hx"), "error: unknown option -hx; see `t --help`");
	/* the value is not part of the name, and a letter is no candidate for it */
	assert_string_equal(WALK(&cmd, "--fil=x"),
			    "error: unknown option --fil (did you mean --file?); see `t --help`");
	/* a switch or a pair given =VALUE */
	assert_string_equal(WALK(&cmd, "--quiet=1"),
			    "error: unknown option --quiet=1 (did you mean --quiet?); see `t --help`");
	assert_string_equal(WALK(&cmd, "--diff=a"),
			    "error: unknown option --diff=a (did you mean --diff?); see `t --help`");
	/* a name too long to be one of ours is said whole */
	char longw[80] = "--";
	memset(longw + 2, 'w', 66);
	strcpy(longw + 68, "=v");
	char want[200];
	snprintf(want, sizeof(want), "error: unknown option %s; see `t --help`", longw);
	assert_string_equal(WALK(&cmd, longw), want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_value_attached_or_separate),
		cmocka_unit_test(a_missing_value_in_one_wording),
		cmocka_unit_test(a_boolean_takes_only_a_literal),
		cmocka_unit_test(switches_optional_values_and_pairs),
		cmocka_unit_test(plain_words_and_the_end),
		cmocka_unit_test(an_unknown_option_by_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
