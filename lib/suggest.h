/*
 * suggest.h - "did you mean": the known name closest to a word that was not
 * understood (a command, an option, a job parameter, a placeholder), and the
 * one wording every command uses for such a word.
 *
 *   struct suggest s;
 *   suggest_init(&s, "--worker");
 *   suggest_add(&s, "--workers");	  (every candidate, in a fixed order)
 *   s.best				  "--workers", or NULL if none is close
 *
 * Close means an edit distance (insert, delete, substitute, or swap two
 * neighbours: "lanuch") of at most a third of the word's length plus one,
 * and never more than 3; a word of one or two letters has no suggestion:
 * "lanch" finds "launch", "x" finds nothing. On a tie
 * the candidate added first wins, so the suggestion does not depend on luck.
 */
#ifndef JAXJOB_SUGGEST_H
#define JAXJOB_SUGGEST_H

#include <stddef.h>

#include "err.h"

struct suggest {
	const char *word;
	const char *best;	/* the closest candidate so far, or NULL */
	size_t best_d;		/* its distance */
	size_t max_d;		/* what still counts as close */
};

void suggest_init(struct suggest *s, const char *word);
void suggest_add(struct suggest *s, const char *candidate);

/* Edit distance (optimal string alignment) of two strings; words longer than
 * SUGGEST_LEN_MAX are never close. */
#define SUGGEST_LEN_MAX 64
size_t suggest_distance(const char *a, const char *b);

/*
 * The one wording for a word a command line did not understand, `what` being
 * "option" or "command":
 *   unknown option --worker (did you mean --workers?); see `jaxjob launch --help`
 *   unknown command lanch (did you mean launch?); see `jaxjob help`
 * `near` may be NULL. Sets ERR_INPUT and returns -1.
 */
int suggest_unknown(struct err *e, const char *what, const char *word, const char *near,
		    const char *help_cmd);

#endif
