/*
 * test_kube_time.c - the one RFC 3339 reader (lib/kube/kube_time.h): the forms
 * the API and the kubelet write, the edges of each field, and what it
 * refuses rather than misreads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kube/kube_time.h"

static double at(const char *s)
{
	double t = -12345;
	if (kube_time_parse(s, strlen(s), &t) < 0)
		fail_msg("refused: %s", s);
	return t;
}

static int refused(const char *s)
{
	double t = -12345;
	return kube_time_parse(s, s ? strlen(s) : 0, &t) == -1 && t == -12345;
}

static void whole_seconds_in_utc(void **state)
{
	(void)state;
	assert_true(at("1970-01-01T00:00:00Z") == 0);
	assert_true(at("1970-01-01T00:01:00Z") == 60);
	assert_true(at("2026-11-21T21:05:04Z") == 1795295104);
	assert_true(at("2026-11-21t21:05:04z") == 1795295104);	/* RFC 3339 5.6: any case */
}

static void fractions_of_any_length(void **state)
{
	(void)state;
	assert_true(at("2026-01-02T03:04:05.5Z") - at("2026-01-02T03:04:05Z") == 0.5);
	/* MicroTime and the kubelet's RFC3339Nano */
	double base = at("2026-01-02T03:04:05Z");
	double us = at("2026-01-02T03:04:05.000250Z") - base;
	double ns = at("2026-01-02T03:04:05.123456789Z") - base;
	assert_true(us > 0.000249 && us < 0.000251);
	assert_true(ns > 0.123456 && ns < 0.123457);
}

static void offsets_east_and_west(void **state)
{
	(void)state;
	double utc = at("2026-01-02T03:04:05Z");
	assert_true(at("2026-01-02T04:04:05+01:00") == utc);
	assert_true(at("2026-01-02T01:34:05-01:30") == utc);
	assert_true(at("2026-01-02T03:04:05+00:00") == utc);
	assert_true(at("2026-01-02T03:04:05-00:00") == utc);
	assert_true(at("2026-01-02T04:04:05.25+01:00") - utc == 0.25);
	/* across a day and a year */
	assert_true(at("2025-12-31T23:30:00-04:00") == at("2026-01-01T03:30:00Z"));
}

static void days_the_month_has(void **state)
{
	(void)state;
	assert_true(at("2024-02-29T00:00:00Z") == at("2024-02-28T00:00:00Z") + 86400);
	assert_true(at("2000-02-29T00:00:00Z") > 0);
	assert_true(refused("2026-02-29T00:00:00Z"));	/* not a leap year */
	assert_true(refused("1900-02-29T00:00:00Z"));
	assert_true(refused("2026-04-31T00:00:00Z"));
	assert_true(refused("2026-13-01T00:00:00Z"));
	assert_true(refused("2026-00-01T00:00:00Z"));
	assert_true(refused("2026-01-00T00:00:00Z"));
	assert_true(refused("2026-01-01T24:00:00Z"));
	assert_true(refused("2026-01-01T00:60:00Z"));
	assert_true(refused("2026-01-01T00:00:61Z"));
	/* a leap second reads as the next minute's first */
	assert_true(at("2016-12-31T23:59:60Z") == at("2017-01-01T00:00:00Z"));
}

static void malformed_is_refused_not_misread(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", "yesterday", "2026-11-21", "2026-11-21T22:00:00",	/* no offset */
		"2026-11-21 22:00:00Z",		/* a space for the T */
		"2026-11-21T22:00:00Zx",	/* text after it */
		"2026-11-21T22:00:00Z ",
		" 2026-11-21T22:00:00Z",
		"2026-11-21T22:00:00.Z",	/* a fraction needs a digit */
		"2026-11-21T22:00:00,5Z",
		"2026-1-21T22:00:00Z",		/* every field two digits */
		"2026-11-21T2:00:00Z",
		"2026- 1-21T22:00:00Z",
		"2026-+1-21T22:00:00Z",
		"026-11-21T22:00:00Z",
		"2026-11-21T22:00:00+01",	/* an offset is ±HH:MM */
		"2026-11-21T22:00:00+0100",
		"2026-11-21T22:00:00+24:00",
		"2026-11-21T22:00:00+01:60",
		"2026-11-21T22:00:00+1:00",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!refused(bad[i]))
			fail_msg("accepted: \"%s\"", bad[i]);
	assert_true(refused(NULL));
}

/* The length bounds it: a log line's timestamp is followed by the line. */
static void reads_only_the_length_given(void **state)
{
	(void)state;
	const char *line = "2026-01-02T03:04:05.5Z step 1";
	double t;
	assert_int_equal(kube_time_parse(line, 22, &t), 0);
	assert_true(t == at("2026-01-02T03:04:05.5Z"));
	assert_int_equal(kube_time_parse(line, 23, &t), -1);
	assert_int_equal(kube_time_parse(line, 21, &t), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_seconds_in_utc),
		cmocka_unit_test(fractions_of_any_length),
		cmocka_unit_test(offsets_east_and_west),
		cmocka_unit_test(days_the_month_has),
		cmocka_unit_test(malformed_is_refused_not_misread),
		cmocka_unit_test(reads_only_the_length_given),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
