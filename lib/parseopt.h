/*
 * parseopt.h - the one command-line parser of jaxjob's commands (launch,
 * render, health), after git's parse-options: each command describes its
 * options in ONE table, the parser walks argv, and the words it does not
 * understand get one wording and one "did you mean" (suggest.h).
 *
 *   static const struct parseopt opts[] = {
 *   	{ "file", 'f', PARSEOPT_VALUE, OPT_FILE, NULL, "FILE" },
 *   	{ "help", 'h', PARSEOPT_NONE, OPT_HELP, NULL, NULL },
 *   	{ NULL, 0, 0, 0, NULL, NULL },
 *   };
 *   static const struct parseopt_cmd cmd = { opts, "jaxjob health --help", 0 };
 *   struct parseopt_state s;
 *   struct parseopt_hit h;
 *   parseopt_start(&s, &cmd, argc, argv, 1);
 *   while ((ev = parseopt_next(&s, &h, e)) > 0)
 *   	switch (ev) { case PARSEOPT_OPTION: ... h.opt->id, h.value ... }
 *
 * The forms (an option is NAME, its long spelling --NAME, its short -C):
 *   --NAME VALUE, --NAME=VALUE, -C VALUE, -CVALUE   a value option
 *   --NAME, -C                                      a switch (no value)
 *   --NAME, --NAME=true|false, --NAME false         a boolean: the separate
 *                 word is taken only when it is a boolean literal
 *                 (parseopt_bool), so `--suspend --workers 2` stays true
 *   --NAME, --NAME=VALUE                            an optional value, only
 *                 attached (`--help=json`)
 *   --NAME V1 V2                                    two values (`--diff A B`)
 *   --                                              the end of the options
 *   WORD, -                                         a plain argument
 * Every command takes every form: one dialect for launch, render and health.
 * There is no bundling (-ab is not -a -b): a short option followed by more
 * letters is a value (value options) or an unknown option (the others).
 *
 * What the parser decides, it says in one wording for every command: an
 * unknown option (with its "did you mean"), a value missing at the end of
 * argv ("--file needs a value (FILE); see `jaxjob health --help`"), and
 * `--`: the words after it are plain arguments, never options, handed back
 * as PARSEOPT_ARG (so a command that takes none says its own "unexpected
 * argument"), or, for a command whose table says PARSEOPT_REST (launch: the
 * container command), left to it whole at PARSEOPT_END. What it does not
 * decide, the command does, from the event: what a plain argument means,
 * whether an empty value is an error (parseopt_missing() words it the
 * same), and its value checks. The parser never prints and knows no
 * command; the help command in the wording comes from the table's owner.
 *
 * Ownership: values point into argv; the table is the caller's.
 */
#ifndef JAXJOB_PARSEOPT_H
#define JAXJOB_PARSEOPT_H

#include "err.h"

enum parseopt_arity {
	PARSEOPT_NONE,		/* a switch: --params, -h */
	PARSEOPT_VALUE,		/* one value: attached, else the next word */
	PARSEOPT_BOOL,		/* a boolean; h.value is the literal, "true" when bare */
	PARSEOPT_OPTARG,	/* an optional value, attached only: --help[=json] */
	PARSEOPT_TWO,		/* two separate values: --diff REV1 REV2 */
};

struct parseopt {
	const char *name;	/* the long name without dashes, or NULL */
	char short_name;	/* the short letter, or 0 */
	enum parseopt_arity arity;
	int id;			/* the command's own number for it */
	const void *data;	/* the command's own pointer (a flag's row), or NULL */
	const char *value_name;	/* what a value is, for "needs a value (FILE)", or NULL */
};

/*
 * An unknown option is said one way: its name is compared with every long
 * name and short letter, in table order (each entry's short letter before
 * its long name), and reported as --NAME (-C for a letter), without any
 * =VALUE: `unknown option --worker (did you mean --workers?)`.
 *
 * PARSEOPT_REST: the words after `--` are the command's own (launch's
 * container command): the walk ends at `--` with PARSEOPT_END and
 * parseopt_rest() says where they start. Without it they are plain
 * arguments (PARSEOPT_ARG), and a `--` with nothing after it is nothing.
 */
#define PARSEOPT_REST 1u

struct parseopt_cmd {
	const struct parseopt *opts;	/* ends with an entry with neither name */
	const char *help;		/* "jaxjob render --help", for the wording */
	unsigned flags;			/* PARSEOPT_REST */
};

enum parseopt_event {
	PARSEOPT_DONE = 0,	/* no more words */
	PARSEOPT_OPTION,	/* h.opt, h.spelled, h.value (and h.value2) */
	PARSEOPT_ARG,		/* h.spelled: a word that is not an option */
	PARSEOPT_END,		/* `--` (PARSEOPT_REST): the words after it start at parseopt_rest() */
};

struct parseopt_hit {
	const struct parseopt *opt;	/* PARSEOPT_OPTION: the entry */
	const char *spelled;		/* the word as typed */
	const char *value;		/* PARSEOPT_VALUE, _TWO: never NULL; _OPTARG: NULL when not given */
	const char *value2;		/* PARSEOPT_TWO: the second */
};

struct parseopt_state {
	const struct parseopt_cmd *cmd;
	int argc;
	char **argv;
	int i;				/* the next word */
	int plain;			/* after `--`: every word is a plain argument */
};

/* Walk argv[first..argc-1]. */
void parseopt_start(struct parseopt_state *s, const struct parseopt_cmd *cmd, int argc,
		    char **argv, int first);

/*
 * The next event (> 0), PARSEOPT_DONE at the end, or -1 with `e` set (the
 * one wording) for an option the table does not know (parseopt_unknown) or
 * a value option with its value missing at the end of argv
 * (parseopt_missing). After PARSEOPT_END the walk is over; parseopt_rest()
 * says where the rest starts.
 */
int parseopt_next(struct parseopt_state *s, struct parseopt_hit *h, struct err *e);
int parseopt_rest(const struct parseopt_state *s);

/*
 * The error for `word` (as typed, dashes included), which the command did
 * not understand: "unknown option WORD (did you mean --NEAR?); see `HELP`"
 * (suggest_unknown). For the command's own refusals that read the same
 * (`--help=xml`). Sets ERR_INPUT and returns -1.
 */
int parseopt_unknown(const struct parseopt_cmd *cmd, const char *word, struct err *e);

/*
 * The error for option `opt` given without its value (or, when the command
 * refuses it, with an empty one): "--NAME needs a value (VALUE_NAME); see
 * `HELP`" ("two values" for a pair; -C for an option with no long name).
 * Sets ERR_INPUT and returns -1.
 */
int parseopt_missing(const struct parseopt_cmd *cmd, const struct parseopt *opt, struct err *e);

/* A boolean literal: true, false (any case), 1, 0. Returns 0, or -1 if not one. */
int parseopt_bool(const char *s, int *out);

#endif
