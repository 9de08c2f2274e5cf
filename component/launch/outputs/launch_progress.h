/*
 * launch_progress.h - the progress lines on stderr: what happened to the job,
 * when, and how many workers are doing what.
 *
 *   jaxjob: 22:05:01 (+0.0s) created team-a/mnist (uid 1f0c...)
 *   jaxjob: 22:05:02 (+1.2s) Created: 0/4 workers active
 *   jaxjob: 22:05:04 (+3.1s) Running: 3/4 workers active
 *   jaxjob: 22:05:05 (+4.0s) Running: 4/4 workers active
 *   jaxjob: 22:06:40 (+99.2s) Succeeded: 4/4 workers succeeded
 *
 * A line is printed only when the phase or a count changes, so a watch that
 * delivers the same state twice (resync, re-list after 410) prints nothing.
 * Times are UTC wall clock plus the offset from the start of the launch.
 * stdout stays reserved for the workers' logs.
 *
 * Ownership: plain storage, nothing to free.
 */
#ifndef JAXJOB_LAUNCH_PROGRESS_H
#define JAXJOB_LAUNCH_PROGRESS_H

#include <stdio.h>
#include <cJSON.h>

#include "decide/launch_verdict.h"	/* struct launch_workers */

struct launch_progress {
	FILE *out;		/* stderr, or NULL when --quiet */
	double t0;		/* launch start (monotonic seconds) */
	char phase[32];		/* last printed */
	int replicas, active, succeeded, failed;
	int printed;
};

void launch_progress_init(struct launch_progress *p, FILE *out, double t0);

/* Print a free-form line with the time prefix. */
void launch_progress_note(struct launch_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print the job's phase and worker counts (decide/launch_verdict.h: from
 * the job's status, or its pods) if they changed. */
void launch_progress_counts(struct launch_progress *p, const char *phase,
			    const struct launch_workers *w);


/* Print each line of `lines` (a core module's warnings, e.g. struct
 * kube_config's) to stderr as "warning: LINE", whatever --quiet says. */
void launch_print_warnings(const char *lines);

/* A duration as people say it: "45s", "12m05s", "2h10m". */
struct buf;
void launch_duration(struct buf *b, double s);

/* "42% done, 13m05s left, loss 0.31" of a TrainJob's status.trainerStatus:
 * the trainer spoke's line and the summary's row (here, below both). */
void launch_trainer_progress(const cJSON *trainer_status, struct buf *b);

#endif
