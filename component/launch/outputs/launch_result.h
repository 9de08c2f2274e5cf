/*
 * launch_result.h - how a run ended, as the outputs and the summary read it:
 * the outcome (decided once, launch_outcome.h), the last job object seen,
 * the worker counts (counted once, by the ending), the queue times, the
 * failure; and the facts derived from it that more than one output shows
 * (name, namespace, duration), so each is computed one way.
 *
 * Ownership: a result only borrows: `job`, `manifest`, `failure`, `metrics`
 * and the strings stay owned by whoever filled it in.
 */
#ifndef JAXJOB_LAUNCH_RESULT_H
#define JAXJOB_LAUNCH_RESULT_H

#include <cJSON.h>

#include "decide/launch_outcome.h"
#include "launch_progress.h"

struct metrics;

struct launch_result {
	struct launch_outcome_end outcome;	/* state, reason, message, exit code:
						 * launch_outcome_decide() alone writes it */
	const cJSON *job;	/* last object seen from the server, or NULL */
	const cJSON *manifest;	/* the object we created (or meant to), or NULL */
	const char *ns;		/* namespace, when no job object says it */
	const char *cleanup;	/* what cleanup did ("deleted", "suspended"), or NULL */
	const char *logs_lost;	/* worker log lines never written to stdout, per
				 * worker ("worker-0: 12 lines"), or NULL */
	unsigned long log_lines;	/* worker log lines written to stdout */
	const char *logs_incomplete;	/* workers whose log could not be read whole
					 * within --log-drain, and why; or NULL */
	struct launch_workers workers;	/* as the ending counted them (launch_ending_workers) */
	const char *queue;	/* Kueue LocalQueue of a queue-managed job, or NULL */
	double queued_s, run_s;	/* with `queue`: time held by Kueue, and the rest */
	struct launch_queue_seen {	/* with `queue`: what the run saw of it */
		int in_lq, in_cq;	/* the place last seen, 1-based; 0 none */
		int preemptions;	/* evictions by Kueue */
		char evicted[64];	/* the last one's Evicted reason (Preempted, ...) */
		char preempted[64];	/* and its Preempted reason (InClusterQueue, ...) */
		char message[512];
	} kq;
	double now;		/* wall clock at the end (epoch s): duration of unfinished jobs */
	const struct metrics *metrics;	/* training metrics (launch_metrics.h), or NULL */
	const cJSON *failure;		/* why it failed (launch_failure.h), or NULL */
	const char *failure_category;	/* its category, or NULL/"" */
	/* what the run sent and received (kube_client_traffic()), when it
	 * talked to a server (`requests` > 0) */
	unsigned long api_requests;
	unsigned long long api_bytes_in;
};

/* The job's name and namespace: the object seen, else the manifest (else
 * `r->ns` for the namespace); NULL when none says it. */
const char *launch_result_name(const struct launch_result *r);
const char *launch_result_ns(const struct launch_result *r);

/* Seconds from status.startTime to completionTime, else to `r->now`; -1
 * when unknown. */
double launch_result_duration(const struct launch_result *r);

#endif
