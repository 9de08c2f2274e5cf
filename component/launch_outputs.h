/*
 * launch_outputs.h - the files a pipeline reads after the step: final state,
 * reason, message, the job as JSON, the manifest, name/namespace/uid,
 * start/completion time, duration, worker counts, a Markdown summary and the
 * exit code; for a job queued by Kueue, the time queued and the time run.
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
 * Each file is written atomically (temp file in the same directory, then
 * rename) so a reader never sees half a value; parent directories are created
 * (KFP hands out paths like /tmp/outputs/state/data whose directory may not
 * exist). Values carry no trailing newline: KFP reads a String output
 * parameter byte for byte.
 *
 * Ownership: launch_outputs_write() only reads `r`; `r->job` and
 * `r->manifest` stay owned by the caller.
 */
#ifndef JAXJOB_LAUNCH_OUTPUTS_H
#define JAXJOB_LAUNCH_OUTPUTS_H

#include <cJSON.h>

#include "buf.h"
#include "err.h"
#include "launch_opts.h"

struct metrics;

struct launch_result {
	const char *state;	/* Succeeded Failed Timeout Cancelled Deleted Stuck Error */
	char reason[128];	/* condition reason, or ours (e.g. ImagePullBackOff) */
	char message[1024];	/* condition message, or ours */
	const cJSON *job;	/* last object seen from the server, or NULL */
	const cJSON *manifest;	/* the object we created (or meant to), or NULL */
	const char *ns;		/* namespace, when no job object says it */
	const char *cleanup;	/* what cleanup did ("deleted", "suspended"), or NULL */
	const char *logs_lost;	/* worker log lines never written to stdout, per
				 * worker ("worker-0: 12 lines"), or NULL */
	int pod_counts;		/* use `counted` for the worker counts: the job's
				 * status has none (TrainJob counts child Jobs) */
	struct launch_workers_counted {
		int active, succeeded, failed;
	} counted;
	const char *queue;	/* Kueue LocalQueue of a queue-managed job, or NULL */
	double queued_s, run_s;	/* with `queue`: time held by Kueue, and the rest */
	int exit_code;
	double now;		/* wall clock at the end (epoch s): duration of unfinished jobs */
	const struct metrics *metrics;	/* training metrics (launch_metrics.h), or NULL */
	const cJSON *failure;		/* why it failed (launch_failure.h), or NULL */
	const char *failure_category;	/* its category, or NULL/"" */
};

/* Set reason and message (printf-style message). */
void launch_result_set(struct launch_result *r, const char *state, int exit_code,
		       const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * Write every output whose path is set. Goes on after a failed file and
 * returns -1 with the first error, so one bad path costs one output.
 */
int launch_outputs_write(const struct launch_outputs *paths,
			 const struct launch_result *r, struct err *e);

/*
 * The process exit status for `code` (launch_run.h's exit codes) under
 * --outcome: with outputs, a job that ended (failed, timeout, cancelled,
 * deleted, stuck) exits 0, because KFP's launcher hands a step's outputs on
 * only when the command exits 0; bad input (2) and API errors (4) keep
 * their codes, so the engine's retry still sees them.
 */
int launch_outcome_exit(enum launch_outcome how, int code);

/* "42% done, 13m05s left, loss 0.31" of a TrainJob's status.trainerStatus. */
void launch_trainer_progress(const cJSON *trainer_status, struct buf *b);

/* The Markdown summary (also printed to stderr at the end of a run). */
void launch_outputs_summary(const struct launch_result *r, struct buf *out);

/* Write `len` bytes to `path` atomically, creating parent directories. */
int launch_write_file_atomic(const char *path, const char *data, size_t len,
			     struct err *e);

/* Parse an RFC 3339 time ("2026-01-02T03:04:05Z", fractions, offsets) into
 * epoch seconds; -1 when absent or malformed. */
double launch_parse_time(const char *s);

/*
 * Worker counts of a job: requested replicas and status counts (0 if
 * unset), as its API's handler reads them (jobapi_worker_counts). Returns 1
 * when the status counts worker pods, 0 when the pods must be counted.
 */
struct launch_workers {
	int replicas, active, succeeded, failed;
};
int launch_workers_of(const cJSON *job, struct launch_workers *w);

#endif
