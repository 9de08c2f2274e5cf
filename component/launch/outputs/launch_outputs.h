/*
 * launch_outputs.h - the files a pipeline reads after the step: final state,
 * reason, message, the job as JSON, the manifest, name/namespace/uid,
 * start/completion time, duration, worker counts, a Markdown summary and the
 * exit code; for a job queued by Kueue, the time queued and the time run;
 * the training metrics as JSON, CSV, an SVG chart and a Markdown report, and
 * KFP's executor output with the metrics as scalars (launch_kfp.h).
 *
 * Written at the end of every run that got past input validation, whatever
 * the ending (succeeded, failed, timeout, cancelled, deleted, API error):
 * "the outputs say what is known". An unknown value is written rather than
 * left out, because KFP and Argo fail a step whose declared output file is
 * missing, which would hide the real ending. Each value parses as the type
 * the component declares under KFP's rules (launcher_v2.go
 * collectOutputParameters, metadata.TextToPbValue): a String may be empty,
 * the Integer exit_code is always digits, the JsonObject outputs (job_json,
 * workers) are always a JSON object - "{}" for a job never created.
 *
 * Each file is written atomically (launch_file.h) so a reader never sees
 * half a value. Values carry no trailing newline: KFP reads a String output
 * parameter byte for byte.
 *
 * The result and the facts derived from it are launch_result.h's, the
 * summary launch_summary.h's (both included here, so their users need only
 * this header).
 *
 * Ownership: the writers only read `r`; `r->job` and `r->manifest` stay
 * owned by the caller.
 */
#ifndef JAXJOB_LAUNCH_OUTPUTS_H
#define JAXJOB_LAUNCH_OUTPUTS_H

#include "err.h"
#include "launch_opts.h"
#include "launch_result.h"
#include "launch_summary.h"

struct launch_metrics;

/*
 * Write every output of the run whose path is set (all but the metrics
 * ones). Goes on after a failed file and returns -1 with the first error,
 * so one bad path costs one output.
 */
int launch_outputs_write(const struct launch_outputs *paths,
			 const struct launch_result *r, struct err *e);

/*
 * Write the metrics outputs that are asked for, from `lm`'s store (the
 * files exist with --metrics none too: empty), and the KFP executor output.
 * Goes on after a failed file; -1 with the first error.
 */
int launch_metrics_write(const struct launch_metrics *lm, const struct launch_outputs *paths,
			 const struct launch_result *r, struct err *e);

#endif
