/*
 * launch_ending.h - the end of a launch run: look at the job, decide what
 * the ending is (the verdict: state, exit code, reason, message) and what
 * the cleanup policy makes of it, act, and decide again when the job turned
 * out not to be the one the decision was made on.
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
#include "launch_ctx.h"
#include "launch_hub.h"

struct launch_result;

/*
 * After the wait: make sure the view the ending will be decided on is the
 * server's, fill `r` with the ending, apply the cleanup policy (conditional,
 * re-decided on conflict), and leave the cleanup note in `note`.
 */
void launch_ending(struct launch_hub *h, const struct launch_ctx *ctx, struct launch_result *r,
		   struct buf *note);

/* The one line that states the ending on stderr (or the error line). */
void launch_ending_report(const struct launch_ctx *ctx, const struct launch_result *r);

#endif
