/* test_kube_log_place.c - finding where a log follow stands in the log's last
 * lines (kube_log_complete's decision): every case where a line could be
 * lost or printed twice must answer "cannot tell" (-1). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kube/kube_log_place.h"

#define T1 "2026-11-25T23:00:01.000000001Z "
#define T2 "2026-11-25T23:00:02.5Z "	/* a real kubelet trims the zeros */
#define T3 "2026-11-25T23:00:03.000000003Z "

/* A follow that has delivered lines[0..k) of `log`, as kube_log tracks it. */
static struct kube_log_mark seen(const char *const *log, size_t k, int from_start)
{
	struct kube_log_mark m = { NULL, 0, 0, 0, 0, (long)k, from_start };
	double when;

	for (size_t i = 0; i < k; i++) {
		size_t s = kube_log_stamp(log[i], strlen(log[i]), &when);
		if (s && s == m.stamp && memcmp(m.last, log[i], s) == 0) {
			m.run++;
		} else {
			m.run = 1;
			m.run_known = i > 0 || from_start;
		}
		m.last = log[i];
		m.len = strlen(log[i]);
		m.stamp = s;
	}
	return m;
}

/* The last `n` lines of log[0..total), placed for mark m; asked lines were asked. */
static long place(const struct kube_log_mark *m, const char *const *log, size_t total, size_t n,
		  long asked)
{
	size_t lens[64];
	const char *const *tail = log + (total - n);

	for (size_t i = 0; i < n; i++)
		lens[i] = strlen(tail[i]);
	return kube_log_place(m, tail, lens, n, asked);
}

static const char *const LOG[] = {
	T1 "step 1", T1 "step 2", T1 "step 3",
	T2 "step 4", T2 "step 5",
	T3 "step 6", T3 "done",
};
#define NLOG (sizeof(LOG) / sizeof(LOG[0]))

static void timestamps_are_read_as_the_kubelet_writes_them(void **unused)
{
	double when = 0;
	(void)unused;
	assert_int_equal(kube_log_stamp(T1 "x", strlen(T1 "x"), &when), strlen(T1));
	assert_true(when > 1.79e9 && when < 1.80e9);
	assert_int_equal(kube_log_stamp(T2 "x", strlen(T2 "x"), &when), strlen(T2));
	assert_int_equal(kube_log_stamp("step 1 loss 0.5", 15, &when), 0);
	assert_int_equal(kube_log_stamp("2026-11-25 23:00:01Z x", 22, &when), 0);
	assert_int_equal(kube_log_stamp("2026-11-25T23:00:01.12a4Z x", 27, &when), 0);
}

static void the_lines_after_the_follows_last_one_are_the_missing_ones(void **unused)
{
	(void)unused;
	for (size_t k = 1; k <= NLOG; k++) {
		struct kube_log_mark m = seen(LOG, k, 1);
		/* a tail of 5 lines of a 7-line log (asked 5): the run of the
		 * follow's last line must begin after the tail's first line */
		long at = place(&m, LOG, NLOG, 5, 5);
		size_t first = NLOG - 5;
		if (k <= first + 1)	/* T1's run starts before or at the tail's start */
			assert_int_equal(at, -1);
		else
			assert_int_equal(at, (long)(k - first));
		/* the whole log (fewer lines than asked): always placed */
		assert_int_equal(place(&m, LOG, NLOG, NLOG, 32), (long)k);
	}
}

static void identical_lines_with_one_timestamp_are_told_apart_by_the_count(void **unused)
{
	static const char *const dup[] = {
		T1 "begin", T2 "tick", T2 "tick", T2 "tick", T2 "tick", T3 "end",
	};
	(void)unused;
	for (size_t k = 2; k <= 5; k++) {	/* delivered up to the (k-1)-th tick */
		struct kube_log_mark m = seen(dup, k, 1);
		assert_int_equal(m.run, (long)k - 1);
		assert_int_equal(place(&m, dup, 6, 6, 32), (long)k);
	}
}

static void anything_uncertain_is_cannot_tell(void **unused)
{
	struct kube_log_mark m;
	(void)unused;

	/* the follow's last line differs from the tail's line at its place */
	m = seen(LOG, 5, 1);
	m.last = T2 "step five";
	m.len = strlen(m.last);
	assert_int_equal(place(&m, LOG, NLOG, NLOG, 32), -1);
	/* the follow counted more of the run than the log has */
	m = seen(LOG, 5, 1);
	m.run = 3;
	assert_int_equal(place(&m, LOG, NLOG, NLOG, 32), -1);
	/* a follow that began mid-log (sinceTime, tailLines) cannot know where
	 * its first run began */
	m = seen(LOG + 3, 2, 0);
	assert_int_equal(m.run_known, 0);
	assert_int_equal(place(&m, LOG, NLOG, NLOG, 32), -1);
	/* the last line had no timestamp */
	m = seen(LOG, 5, 1);
	m.stamp = 0;
	assert_int_equal(place(&m, LOG, NLOG, NLOG, 32), -1);
	/* its timestamp is nowhere in the tail (the follow is further behind) */
	m = seen(LOG, 2, 1);
	assert_int_equal(place(&m, LOG, NLOG, 2, 2), -1);
	/* the log was replaced (a new container): other lines altogether */
	static const char *const other[] = { "2026-11-25T23:00:09Z restarted",
					     "2026-11-25T23:00:09Z done" };
	m = seen(LOG, 7, 1);
	assert_int_equal(place(&m, other, 2, 2, 32), -1);
}

static void a_follow_that_delivered_nothing_takes_a_whole_log_only(void **unused)
{
	struct kube_log_mark m = seen(LOG, 0, 1);
	(void)unused;
	assert_int_equal(place(&m, LOG, NLOG, NLOG, 32), 0);	/* all of it is new */
	assert_int_equal(place(&m, LOG, NLOG, 5, 5), -1);	/* the tail may not be all */
	m = seen(LOG, 0, 0);
	assert_int_equal(place(&m, LOG, NLOG, NLOG, 32), -1);	/* began mid-log */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(timestamps_are_read_as_the_kubelet_writes_them),
		cmocka_unit_test(the_lines_after_the_follows_last_one_are_the_missing_ones),
		cmocka_unit_test(identical_lines_with_one_timestamp_are_told_apart_by_the_count),
		cmocka_unit_test(anything_uncertain_is_cannot_tell),
		cmocka_unit_test(a_follow_that_delivered_nothing_takes_a_whole_log_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
