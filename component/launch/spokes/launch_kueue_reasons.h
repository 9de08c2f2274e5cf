/*
 * launch_kueue_reasons.h - what the reason of a Workload's QuotaReserved=False
 * condition means to a launcher: wait, or give up. One pure function over
 * Kueue's words (launch_kueue_reasons.c keeps the table, with the source
 * lines in kubernetes-sigs/kueue each row rests on).
 */
#ifndef JAXJOB_LAUNCH_KUEUE_REASONS_H
#define JAXJOB_LAUNCH_KUEUE_REASONS_H

enum kueue_pending {
	KUEUE_WAIT,		/* waiting helps (quota, preempted workloads, evaluation) */
	KUEUE_HOPELESS,		/* cannot be admitted under the current configuration */
	KUEUE_HELD,		/* the queue is stopped: an admin's hold, not hopeless */
	KUEUE_MISCONFIGURED,	/* a missing or mismatched queue: an admin can fix it */
};

/* What `reason` (with `message`, which older Kueue needs) means. NULLs are
 * fine: an absent reason is KUEUE_WAIT. */
enum kueue_pending kueue_pending_of(const char *reason, const char *message);

/* The words the queued line puts before Kueue's message for that kind, or
 * "" (plain waiting: the message alone says it). */
const char *kueue_pending_label(enum kueue_pending p);

#endif
