/*
 * launch_failure.h - the diagnosis of a failed run (lib/health/diagnose.h) in the
 * step's outputs: the message leads with the cause, the failure JSON and
 * its category, the "Why it failed" section of the Markdown summary.
 *
 * Ownership: launch_failure_judge() hands the failure JSON to the caller in
 * *failure (cJSON_Delete it after the outputs are written); the result's
 * `failure` borrows it.
 */
#ifndef JAXJOB_LAUNCH_FAILURE_H
#define JAXJOB_LAUNCH_FAILURE_H

#include <cJSON.h>

#include "buf.h"
#include "launch_outcome.h"

struct diag;

/*
 * When the run ends in a row that is diagnosed (its `diag` column,
 * launch_outcome.h) and the diagnosis names a cause: the failure JSON in
 * *failure, its category in *category ("" otherwise) and its one-line
 * headline in `headline`, which launch_outcome_decide() puts where the
 * row says. `failed_msg`: the message of the job's Failed condition, as
 * the verdict read it (it names a deadline or a backoff limit), or NULL.
 * `d` may be NULL (no diagnosis).
 */
void launch_failure_judge(struct diag *d, const char *failed_msg,
			  enum launch_outcome_row row, cJSON **failure, const char **category,
			  struct buf *headline);

/* The "Why it failed" Markdown section for `failure` ({} or NULL: none). */
void launch_failure_summary(const cJSON *failure, const char *message, struct buf *out);

#endif
