/*
 * launch_verdict.h - what the health judge (lib/health/health.h) makes of one job
 * object, asked once per object: the hub judges every object it takes
 * (launch_hub.c) and every part of the run reads this answer instead of
 * judging again.
 */
#ifndef JAXJOB_LAUNCH_VERDICT_H
#define JAXJOB_LAUNCH_VERDICT_H

#include <cJSON.h>

/* Worker counts of a job: requested replicas and status counts (0 if
 * unset). */
struct launch_workers {
	int replicas, active, succeeded, failed;
};

/*
 * The worker counts of a job as its API's handler reads them
 * (jobapi_worker_counts). Returns 1 when the status counts worker pods, 0
 * when the pods must be counted.
 */
int launch_workers_of(const cJSON *job, struct launch_workers *w);

/* The first entry of `obj`'s status.conditions with this `type` and, when
 * `status` is not NULL, that status ("True"); NULL when there is none. */
const cJSON *launch_condition(const cJSON *obj, const char *type, const char *status);

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
