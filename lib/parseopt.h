/*
 * parseopt.h - the one command-line parser of jaxjob's commands (launch,
 * render, health), after git's parse-options: each command describes its
 * options in ONE table, the parser walks argv, and the words it does not
 * understand get one wording and one "did you mean" (suggest.h).
 *
 *   static const struct parseopt opts[] = {
 *   	{ "file", 'f', PARSEOPT_VALUE, OPT_FILE, NULL },
 *   	{ "help", 'h', PARSEOPT_NONE, OPT_HELP, NULL },
 *   	{ NULL, 0, 0, 0, NULL },
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
 * There is no bundling (-ab is not -a -b): a short option followed by more
 * letters is a value (value options) or an unknown option (the others).
 *
 * What the parser does not decide, the command does, from the event: what
 * a plain argument or `--` means, whether a missing value (h.value NULL) or
 * an empty one is an error, and the words of those errors (each command
 * names its own fix there). The parser never prints and knows no command;
 * the help command in the wording comes from the table's owner.
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
};

/*
 * How unknown options are said. The default (0): the option's name is
 * compared with every long name and short letter, in table order (each
 * entry's short letter before its long name), and reported as --NAME
 * (-C for a letter): `unknown option --worker (did you mean --workers?)`.
 * PARSEOPT_TYPED: the word is reported and compared as typed, `=value`
 * included, with the long spellings (--NAME) only: what render and health
 * said before they shared this parser, kept so their errors stay the same.
 * PARSEOPT_NO_INLINE: --NAME=VALUE is not a form; such a word is unknown.
 */
#define PARSEOPT_TYPED 1u
#define PARSEOPT_NO_INLINE 2u

struct parseopt_cmd {
	const struct parseopt *opts;	/* ends with an entry with neither name */
	const char *help;		/* "jaxjob render --help", for the wording */
	unsigned flags;			/* PARSEOPT_TYPED, PARSEOPT_NO_INLINE */
};

enum parseopt_event {
	PARSEOPT_DONE = 0,	/* no more words */
	PARSEOPT_OPTION,	/* h.opt, h.spelled, h.value (and h.value2) */
	PARSEOPT_ARG,		/* h.spelled: a word that is not an option */
	PARSEOPT_END,		/* `--`: the words after it start at parseopt_rest() */
};

struct parseopt_hit {
	const struct parseopt *opt;	/* PARSEOPT_OPTION: the entry */
	const char *spelled;		/* the word as typed */
	const char *value;		/* NULL when not given (missing at the end of argv) */
	const char *value2;		/* PARSEOPT_TWO: the second; NULL when missing */
};

struct parseopt_state {
	const struct parseopt_cmd *cmd;
	int argc;
	char **argv;
	int i;				/* the next word */
};

/* Walk argv[first..argc-1]. */
void parseopt_start(struct parseopt_state *s, const struct parseopt_cmd *cmd, int argc,
		    char **argv, int first);

/*
 * The next event (> 0), PARSEOPT_DONE at the end, or -1 with `e` set for an
 * option the table does not know (the one wording, parseopt_unknown). After
 * PARSEOPT_END the walk is over; parseopt_rest() says where the rest starts.
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

/* A boolean literal: true, false (any case), 1, 0. Returns 0, or -1 if not one. */
int parseopt_bool(const char *s, int *out);

#endif
