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
#include "launch_result.h"
#include "launch_summary.h"

struct launch_metrics;

/* Files the pipeline gives us; each NULL when not asked for. Filled in by
 * the command line (--out-*, cli/launch_opts.h), which includes this. */
struct launch_outputs {
	const char *state;		/* Succeeded | Failed | Timeout | Cancelled | ... */
	const char *reason;		/* condition reason, or ours */
	const char *message;		/* condition message, or ours */
	const char *job_json;		/* the full final JAXJob object as JSON */
	const char *manifest;		/* the manifest we created (YAML) */
	const char *job_name;
	const char *job_namespace;
	const char *job_uid;
	const char *start_time;		/* RFC 3339 */
	const char *completion_time;	/* RFC 3339 */
	const char *duration;		/* seconds, decimal */
	const char *workers;		/* JSON: {"active":..,"succeeded":..,"failed":..} */
	const char *summary;		/* Markdown for the pipeline UI */
	const char *exit_code;		/* the exit code we return, as text */
	const char *queue_time;		/* seconds held by Kueue (0 for a job without a queue) */
	const char *run_time;		/* seconds of the wait not queued */
	const char *queue_position;	/* JSON: the place in the queue last seen, {} none */
	const char *preemptions;	/* JSON: how often Kueue evicted it, and the last why */
	const char *progress;		/* percent done: TrainJob status.trainerStatus, else the logs */
	const char *failure;		/* JSON: why it failed (lib/diagnose.h), {} if it did not */
	const char *failure_category;	/* oom, application, ...; empty if it did not fail */
	/* training metrics (launch_metrics.h) */
	const char *metrics;		/* JSON: per metric last/min/max, steps, rate */
	const char *metrics_csv;	/* CSV metric,step,value (LTTB-downsampled) */
	const char *metrics_chart;	/* SVG line chart */
	const char *metrics_report;	/* Markdown: the summary with the chart embedded */
};


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
