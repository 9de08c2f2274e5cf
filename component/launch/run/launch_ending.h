/*
 * launch_ending.h - the end of a launch run: look at the job, say why the
 * run ends (the hub's cause, launch_hub_cause) and what the cleanup policy
 * makes of it, act, and decide again when the job turned out not to be the
 * one the decision was made on.
 *
 * No destructive action on a guess:
 *   - a wait that ended without seeing the job finish (timeout, signal,
 *     stuck, a watch that failed) looks at the job (GET, retried until the
 *     cleanup's bound) before its cancel policy deletes or suspends it; a
 *     job that had finished meanwhile gets its true outcome and
 *     --delete-after instead;
 *   - when that look fails, nothing destructive is sent: the job is left
 *     and the step says so (stderr and the outputs' cleanup note);
 *   - every DELETE and suspend PATCH carries the uid and resourceVersion of
 *     the object the decision was made on (launch_cleanup.c); a 409 means
 *     the job changed since: look again and decide again.
 *
 * Everything here runs after the wait, on the run's client, within
 * --delete-timeout (the whole cleanup: look, request, confirmation), which
 * a pod's terminationGracePeriodSeconds bounds after a SIGTERM.
 */
#ifndef JAXJOB_LAUNCH_ENDING_H
#define JAXJOB_LAUNCH_ENDING_H

#include "buf.h"
#include "context/launch_ctx.h"
#include "hub/launch_hub.h"
#include "decide/launch_outcome.h"
#include "outputs/launch_result.h"

/* What the ending found: the cause of the outcome (launch_outcome.h) and,
 * for a job whose status does not count worker pods, the pods counted. */
struct launch_ending_fact {
	struct launch_cause cause;
	int pod_counts;
	struct launch_workers counted;
};

/*
 * After the wait: make sure the view the ending will be decided on is the
 * server's, say why the run ends (`end`), apply the cleanup policy
 * (conditional, re-decided on conflict), and leave the cleanup note in
 * `note`. The outcome itself is the table's (launch_outcome_decide).
 */
void launch_ending(struct launch_hub *h, const struct launch_ctx *ctx,
		   struct launch_ending_fact *end, struct buf *note);

/* The worker counts every output shows, counted once: the job as last seen
 * (the manifest's replicas before there was one), with the pods the ending
 * counted when the job's status does not count them. `h`, `end` may be NULL. */
void launch_ending_workers(const struct launch_hub *h, const struct launch_ending_fact *end,
			   const cJSON *manifest, struct launch_workers *w);

/* The one line that states the outcome on stderr (or the error line). */
void launch_ending_report(const struct launch_ctx *ctx, const struct launch_outcome_end *out);

#endif
