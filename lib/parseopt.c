/*
 * parseopt.c - the one command-line parser (parseopt.h).
 *
 * A walk, not a callback: parseopt_next() hands back one event at a time
 * and the command applies it, so a command keeps its own value checks.
 * What is shared is what was copied three times before, and worded three
 * ways: splitting the forms, finding the table entry, the unknown option
 * with its "did you mean", the missing value, and what `--` means.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "parseopt.h"
#include "suggest.h"

/* A long name this long is no name of ours: such a word is reported whole. */
#define PARSEOPT_NAME_MAX 64

int parseopt_bool(const char *s, int *out)
{
	if (!strcasecmp(s, "true") || !strcmp(s, "1"))
		*out = 1;
	else if (!strcasecmp(s, "false") || !strcmp(s, "0"))
		*out = 0;
	else
		return -1;
	return 0;
}

void parseopt_start(struct parseopt_state *s, const struct parseopt_cmd *cmd, int argc,
		    char **argv, int first)
{
	s->cmd = cmd;
	s->argc = argc;
	s->argv = argv;
	s->i = first;
	s->plain = 0;
}

int parseopt_rest(const struct parseopt_state *s)
{
	return s->i;
}

/* The "did you mean" candidate of the default wording: names and letters. */
static const char *name_near(const struct parseopt_cmd *cmd, const char *word, char *near,
			     size_t size)
{
	struct suggest sg;
	char letters[128][2];
	size_t k = 0;

	suggest_init(&sg, word);
	for (const struct parseopt *o = cmd->opts; o->name || o->short_name; o++) {
		if (o->short_name && k < sizeof(letters) / sizeof(letters[0])) {
			letters[k][0] = o->short_name;
			letters[k][1] = '\0';
			suggest_add(&sg, letters[k++]);
		}
		suggest_add(&sg, o->name);
	}
	if (!sg.best)
		return NULL;
	snprintf(near, size, "%s%s", strlen(sg.best) == 1 ? "-" : "--", sg.best);
	return near;
}

int parseopt_unknown(const struct parseopt_cmd *cmd, const char *word, struct err *e)
{
	char near[PARSEOPT_NAME_MAX + 3];
	size_t dashes = word[0] != '-' ? 0 : word[1] == '-' ? 2 : 1;

	return suggest_unknown(e, "option", word, name_near(cmd, word + dashes, near, sizeof(near)),
			       cmd->help);
}

int parseopt_missing(const struct parseopt_cmd *cmd, const struct parseopt *opt, struct err *e)
{
	const char *what = opt->arity == PARSEOPT_TWO ? "two values" : "a value";
	char name[PARSEOPT_NAME_MAX + 3];

	if (opt->name)
		snprintf(name, sizeof(name), "--%s", opt->name);
	else
		snprintf(name, sizeof(name), "-%c", opt->short_name);
	if (opt->value_name)
		return err_set(e, ERR_INPUT, "%s needs %s (%s); see `%s`", name, what,
			       opt->value_name, cmd->help);
	return err_set(e, ERR_INPUT, "%s needs %s; see `%s`", name, what, cmd->help);
}

static const struct parseopt *find_long(const struct parseopt_cmd *cmd, const char *name,
					size_t n)
{
	for (const struct parseopt *o = cmd->opts; o->name || o->short_name; o++)
		if (o->name && strlen(o->name) == n && !strncmp(o->name, name, n))
			return o;
	return NULL;
}

static const struct parseopt *find_short(const struct parseopt_cmd *cmd, char c)
{
	for (const struct parseopt *o = cmd->opts; o->name || o->short_name; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

/* The separate value(s) of h->opt, from the words after it; -1 when missing. */
static int take_values(struct parseopt_state *s, struct parseopt_hit *h, struct err *e)
{
	int lit;

	switch (h->opt->arity) {
	case PARSEOPT_VALUE:
		if (s->i >= s->argc)
			return parseopt_missing(s->cmd, h->opt, e);
		h->value = s->argv[s->i++];
		break;
	case PARSEOPT_BOOL:
		/* the next word only when it is a literal: nothing else can be
		 * meant, and `--suspend --workers 2` stays "true" */
		if (s->i < s->argc && parseopt_bool(s->argv[s->i], &lit) == 0)
			h->value = s->argv[s->i++];
		else
			h->value = "true";
		break;
	case PARSEOPT_TWO:
		if (s->i + 1 >= s->argc)
			return parseopt_missing(s->cmd, h->opt, e);
		h->value = s->argv[s->i++];
		h->value2 = s->argv[s->i++];
		break;
	case PARSEOPT_NONE:
	case PARSEOPT_OPTARG:
		break;
	}
	return PARSEOPT_OPTION;
}

/* -C, -CVALUE: only a value option has letters after its own. */
static int short_option(struct parseopt_state *s, struct parseopt_hit *h, struct err *e)
{
	const char *arg = h->spelled;

	h->opt = find_short(s->cmd, arg[1]);
	if (!h->opt || (arg[2] && h->opt->arity != PARSEOPT_VALUE))
		return parseopt_unknown(s->cmd, arg, e);
	if (!arg[2])
		return take_values(s, h, e);
	h->value = arg + 2;
	return PARSEOPT_OPTION;
}

/* --NAME, --NAME=VALUE. */
static int long_option(struct parseopt_state *s, struct parseopt_hit *h, struct err *e)
{
	const char *arg = h->spelled, *body = arg + 2;
	const char *eq = strchr(body, '=');
	size_t n = eq ? (size_t)(eq - body) : strlen(body);
	char word[PARSEOPT_NAME_MAX + 2];

	if (n >= PARSEOPT_NAME_MAX)
		return parseopt_unknown(s->cmd, arg, e);
	h->opt = find_long(s->cmd, body, n);
	if (!h->opt) {
		snprintf(word, sizeof(word), "--%.*s", (int)n, body);	/* without =VALUE */
		return parseopt_unknown(s->cmd, word, e);
	}
	if (eq && (h->opt->arity == PARSEOPT_NONE || h->opt->arity == PARSEOPT_TWO))
		return parseopt_unknown(s->cmd, arg, e);
	if (!eq)
		return take_values(s, h, e);
	h->value = eq + 1;
	return PARSEOPT_OPTION;
}

int parseopt_next(struct parseopt_state *s, struct parseopt_hit *h, struct err *e)
{
	const char *arg;

	h->opt = NULL;
	h->value = h->value2 = NULL;
	if (s->i >= s->argc)
		return PARSEOPT_DONE;
	arg = s->argv[s->i++];
	h->spelled = arg;
	if (s->plain || arg[0] != '-' || !arg[1])
		return PARSEOPT_ARG;
	if (!strcmp(arg, "--")) {
		if (s->cmd->flags & PARSEOPT_REST)
			return PARSEOPT_END;
		s->plain = 1;		/* the rest are words, whatever they look like */
		return parseopt_next(s, h, e);
	}
	return arg[1] == '-' ? long_option(s, h, e) : short_option(s, h, e);
}
