/*
 * test_launch_kueue_reasons.c - what each QuotaReserved=False reason means
 * to the launch (launch_kueue_reasons.c has the table and Kueue's source
 * lines): hopeless, held, misconfigured, or wait.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "component/launch/spokes/launch_kueue_reasons.h"

static void granular_reasons(void **state)
{
	(void)state;
	assert_int_equal(kueue_pending_of("ExceedsMaxQuota", "x"), KUEUE_HOPELESS);
	assert_int_equal(kueue_pending_of("NoMatchingFlavor", "x"), KUEUE_HOPELESS);
	assert_int_equal(kueue_pending_of("Suspended", "LocalQueue q is stopped"), KUEUE_HELD);
	assert_int_equal(kueue_pending_of("Misconfigured", "ClusterQueue cq not found"),
			 KUEUE_MISCONFIGURED);
	assert_int_equal(kueue_pending_of("WaitingForQuota", "x"), KUEUE_WAIT);
	assert_int_equal(kueue_pending_of("WaitingForPreemptedWorkloads", "x"), KUEUE_WAIT);
	assert_int_equal(kueue_pending_of("PendingEvaluation", "x"), KUEUE_WAIT);
	assert_int_equal(kueue_pending_of("TopologyPlacementFailed", "x"), KUEUE_WAIT);
	assert_int_equal(kueue_pending_of(NULL, NULL), KUEUE_WAIT);
	assert_int_equal(kueue_pending_of("", ""), KUEUE_WAIT);
}

/* Older Kueue (or the gate off): "Pending", and only the message tells;
 * both wordings, before and after kueue#7232. */
static void older_kueue_by_the_message(void **state)
{
	(void)state;
	assert_int_equal(kueue_pending_of("Pending", "couldn't assign flavors to pod set worker: "
					  "insufficient quota for cpu in flavor f, request > maximum "
					  "capacity (24 > 8)"), KUEUE_HOPELESS);
	assert_int_equal(kueue_pending_of("Pending", "couldn't assign flavors to pod set worker: "
					  "insufficient quota for cpu in flavor f, previously considered "
					  "podsets requests (0) + current podset request (24) > maximum "
					  "capacity (8)"), KUEUE_HOPELESS);
	/* another flavor may free up: waiting can help */
	assert_int_equal(kueue_pending_of("Pending", "couldn't assign flavors to pod set worker: "
					  "insufficient quota for cpu in flavor a, request > maximum "
					  "capacity (24 > 8), insufficient unused quota for cpu in flavor "
					  "b, 4 more needed"), KUEUE_WAIT);
	assert_int_equal(kueue_pending_of("Pending", "insufficient unused quota for cpu in "
					  "flavor f, 4 more needed"), KUEUE_WAIT);
	/* "> maximum capacity" means nothing under another reason */
	assert_int_equal(kueue_pending_of("Inadmissible", "request > maximum capacity"), KUEUE_WAIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(granular_reasons),
		cmocka_unit_test(older_kueue_by_the_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
