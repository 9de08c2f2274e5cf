/*
 * suggest.c - "did you mean" (suggest.h). One edit distance for the whole
 * program, so a typo gets the same treatment in a command, an option, a job
 * file key and a template placeholder.
 */
#include <string.h>

#include "suggest.h"

size_t suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	/* three rows of the Damerau (optimal string alignment) table */
	size_t rows[3][SUGGEST_LEN_MAX + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if (la > SUGGEST_LEN_MAX || lb > SUGGEST_LEN_MAX)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

void suggest_init(struct suggest *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	size_t len = strlen(word);
	/* one or two letters are too short to guess from */
	s->max_d = len <= 2 ? 0 : len / 3 + 1;
	if (s->max_d > 3)
		s->max_d = 3;
	s->best_d = s->max_d + 1;
}

void suggest_add(struct suggest *s, const char *candidate)
{
	if (!candidate || !*candidate || !strcmp(candidate, s->word))
		return;
	size_t d = suggest_distance(s->word, candidate);
	if (d < s->best_d) {
		s->best = candidate;
		s->best_d = d;
	}
}

int suggest_unknown(struct err *e, const char *what, const char *word, const char *near,
		    const char *help_cmd)
{
	if (near)
		return err_set(e, ERR_INPUT, "unknown %s %.80s (did you mean %s?); see `%s`", what,
			       word, near, help_cmd);
	return err_set(e, ERR_INPUT, "unknown %s %.80s; see `%s`", what, word, help_cmd);
}
