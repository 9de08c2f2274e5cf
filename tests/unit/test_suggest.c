/* test_suggest.c - the one "did you mean" (lib/suggest.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "suggest.h"

static void distance_counts_each_edit_once(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("", ""), 0);
	assert_int_equal(suggest_distance("launch", "launch"), 0);
	assert_int_equal(suggest_distance("lanch", "launch"), 1);	/* delete */
	assert_int_equal(suggest_distance("launchh", "launch"), 1);	/* insert */
	assert_int_equal(suggest_distance("lounch", "launch"), 1);	/* substitute */
	assert_int_equal(suggest_distance("lanuch", "launch"), 1);	/* swap of neighbours */
	assert_int_equal(suggest_distance("abc", ""), 3);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("ca", "abc"), 3);	/* OSA, not full Damerau */
}

static void too_long_words_are_never_close(void **state)
{
	(void)state;
	char a[SUGGEST_LEN_MAX + 2];
	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	assert_int_equal(suggest_distance(a, "a"), (size_t)-1);
	struct suggest s;
	suggest_init(&s, a);
	suggest_add(&s, a + 1);
	assert_null(s.best);
}

static void the_closest_candidate_wins_and_ties_go_to_the_first(void **state)
{
	(void)state;
	struct suggest s;
	suggest_init(&s, "--worker");
	suggest_add(&s, "--name");
	suggest_add(&s, "--workers");
	suggest_add(&s, "--worker-s");	/* also 1 away: added later, loses */
	assert_string_equal(s.best, "--workers");
	assert_int_equal(s.best_d, 1);
}

static void far_words_and_short_words_get_no_guess(void **state)
{
	(void)state;
	struct suggest s;
	suggest_init(&s, "deploy");
	suggest_add(&s, "launch");
	suggest_add(&s, "render");
	suggest_add(&s, "health");
	assert_null(s.best);
	suggest_init(&s, "x");		/* one letter: anything would be a guess */
	suggest_add(&s, "n");
	assert_null(s.best);
	suggest_init(&s, "launch");	/* the word itself is not a suggestion */
	suggest_add(&s, "launch");
	assert_null(s.best);
	suggest_add(&s, NULL);
	assert_null(s.best);
}

static void the_one_wording(void **state)
{
	(void)state;
	struct err e = ERR_INIT;
	assert_int_equal(suggest_unknown(&e, "option", "--worker", "--workers", "jaxjob launch --help"), -1);
	assert_int_equal(e.code, ERR_INPUT);
	assert_string_equal(e.msg, "unknown option --worker (did you mean --workers?); see `jaxjob launch --help`");
	assert_int_equal(suggest_unknown(&e, "command", "deploy", NULL, "jaxjob help"), -1);
	assert_string_equal(e.msg, "unknown command deploy; see `jaxjob help`");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(distance_counts_each_edit_once),
		cmocka_unit_test(too_long_words_are_never_close),
		cmocka_unit_test(the_closest_candidate_wins_and_ties_go_to_the_first),
		cmocka_unit_test(far_words_and_short_words_get_no_guess),
		cmocka_unit_test(the_one_wording),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
