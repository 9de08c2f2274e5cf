/*
 * launch_verdict.h - what the health judge (lib/health/health.h) makes of one job
 * object, asked once per object: the hub judges every object it takes
 * (launch_hub.c) and every part of the run reads this answer instead of
 * judging again.
 */
#ifndef JAXJOB_LAUNCH_VERDICT_H
#define JAXJOB_LAUNCH_VERDICT_H

#include <cJSON.h>

#include "launch_result.h"	/* struct launch_workers */

struct launch_verdict {
	int terminal;		/* finished: Succeeded or Failed */
	int succeeded;		/* and not failed */
	int suspended;		/* the Suspended condition (when the API has no flag) */
	const char *phase;	/* the phase to show (static storage), "Pending" at first */
	const char *reason;	/* that phase's True condition's reason, or NULL, */
	const char *message;	/* and message ("" when none): point into the job */
	int counted;		/* the status counts worker pods (launch_workers_of) */
	struct launch_workers w;	/* those counts, when `counted` */
};

/* Judge `job` (may be NULL: nothing seen yet); `v` points into it. */
void launch_verdict_of(const cJSON *job, struct launch_verdict *v);

/* Terminal and not succeeded. */
static inline int launch_verdict_failed(const struct launch_verdict *v)
{
	return v->terminal && !v->succeeded;
}

#endif
