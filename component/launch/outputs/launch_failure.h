/*
 * launch_failure.h - the diagnosis of a failed run (lib/diagnose.h) in the
 * step's outputs: the message leads with the cause, the failure JSON and
 * its category, the "Why it failed" section of the Markdown summary.
 *
 * Ownership: launch_failure_judge() hands the failure JSON to the caller in
 * *failure (cJSON_Delete it after the outputs are written); `r->failure`
 * borrows it.
 */
#ifndef JAXJOB_LAUNCH_FAILURE_H
#define JAXJOB_LAUNCH_FAILURE_H

#include <cJSON.h>

#include "buf.h"
#include "launch_result.h"

struct diag;

/*
 * After the ending is judged (r's state, exit code and message set): when
 * the run did not succeed and the diagnosis names a cause, fill
 * r->failure and r->failure_category and rewrite r->message to say it - first
 * for a failed job, after what ended the wait for a timeout, a cancel or a
 * deletion; a stuck job's message names the stuck worker already. `d` may be NULL (no diagnosis).
 */
void launch_failure_judge(struct diag *d, const cJSON *job, struct launch_result *r,
			  cJSON **failure);

/* The "Why it failed" Markdown section for `failure` ({} or NULL: none). */
void launch_failure_summary(const cJSON *failure, const char *message, struct buf *out);

#endif
