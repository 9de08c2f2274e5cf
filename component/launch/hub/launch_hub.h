/*
 * launch_hub.h - the hub of a `jaxjob launch` run: the one owner of what the
 * run is doing (its phase, why its wait ended, the job as last seen and its
 * verdict, the wait's timers and the queue clock).
 *
 * During the wait the spokes - the job watch (launch_jobwatch.h), the workers
 * (launch_workers.h), Kueue (launch_kueue.h) - report what they see through
 * their report tables and never write the hub's state; the hub asks them
 * back through their functions. Around the wait, the flow (launch_run.c),
 * the ending (launch_ending.c) and the cleanup (launch_cleanup.c) tell the
 * hub what they saw (a job object, a deletion) through the functions
 * below; only the hub decides what that changes, its phase included. Every job object the hub takes is judged once
 * (launch_verdict.h) and that verdict is what everyone reads.
 *
 * Everything runs on the client's one event loop (kube_loop.h); no threads.
 */
#ifndef JAXJOB_LAUNCH_HUB_H
#define JAXJOB_LAUNCH_HUB_H

#include "context/launch_ctx.h"
#include "decide/launch_verdict.h"

/* Why the wait stopped. */
enum launch_end {
	END_NONE = 0,
	END_FINISHED,		/* the judge says terminal (Succeeded or Failed) */
	END_TIMEOUT,		/* --timeout */
	END_SIGNAL,		/* SIGTERM/SIGINT */
	END_DELETED,		/* the job vanished under us */
	END_STUCK,		/* fail-fast: past the grace period, or rejected for good */
	END_API,		/* a watch failed for good (err) */
	END_QUEUE_TIMEOUT,	/* --queue-timeout: queued by Kueue for too long */
	END_QUEUE_INADMISSIBLE,	/* Kueue says it cannot admit it, for all of
				 * --queue-hopeless-after (launch_kueue_reasons.c) */
};

/* The wait ended without seeing the job finish (timeout, signal, stuck, a
 * failed watch, the queue): the job may have finished all the same. */
static inline int launch_end_unseen(enum launch_end end)
{
	return end != END_FINISHED && end != END_DELETED;
}

/* Why the wait ended, as the hub decided it (read-only for the others). */
struct launch_why {
	enum launch_end end;
	struct err err;		/* END_API: why */
	int signo;		/* last signal caught, 0 none */
	char stuck_reason[64];	/* END_STUCK */
	char stuck_msg[768];
	int stuck_permanent;	/* END_STUCK at once: the API rejects what the job needs */
	int queued;		/* held by Kueue when the wait ended */
	const char *queue_why;	/* the pending reason last said */
	char kueue_reason[64];	/* END_QUEUE_INADMISSIBLE: Kueue's reason and message */
	char kueue_msg[768];
	double decided_at;	/* kube_now() when the verdict came, 0 none */
};

struct launch_hub;
struct launch_hub *launch_hub_new(const struct launch_ctx *ctx);
void launch_hub_free(struct launch_hub *h);	/* NULL is fine */
int launch_hub_catch_signals(struct launch_hub *h, struct err *e);

/*
 * The run's phase is the hub's alone, moved by what the hub sees: creating
 * from launch_hub_new() (a signal cancels: the steps before the wait see
 * launch_hub_ended(), a blocking request in flight ends ERR_CANCELLED), then
 * cleaning once a signal has cancelled the creating or the wait is over
 * (a further signal is noted and the cleanup finishes: the ending's look,
 * the DELETE or suspend, the settling of a cancelled create), done in
 * launch_hub_finish() (a signal stops the last writes to stdout).
 */
/* A signal (or the end of a wait) has decided the run's end already. */
int launch_hub_ended(const struct launch_hub *h);

/* A job object seen outside the job watch (the create's answer, an adopted
 * job, the ending's look, the suspend's answer): taken and judged once. */
void launch_hub_take(struct launch_hub *h, cJSON *job);
const cJSON *launch_hub_job(const struct launch_hub *h);
const struct launch_verdict *launch_hub_verdict(const struct launch_hub *h);

/*
 * The wait: watch the job, its workers, its events and its Workload (from
 * `from`, our create's resourceVersion, or with lists when NULL) until the
 * job finished and its logs are in, or something else ended it; then stop
 * everything but the job watch (the cleanup's). Problems become END_API.
 */
void launch_hub_wait(struct launch_hub *h, const char *from);

/* ---- for the ending ---- */
const struct launch_why *launch_hub_why(const struct launch_hub *h);
/* Why the wait ended, as a cause for the outcome table (launch_outcome.h). */
struct launch_cause;
void launch_hub_cause(const struct launch_hub *h, struct launch_cause *c);
/* After a fresh look (launch_hub_take): a wait that ended without seeing
 * the job finish, whose job has finished meanwhile, ends FINISHED: 1. */
int launch_hub_finished_meanwhile(struct launch_hub *h);
/* after launch_hub_finished_meanwhile() on a wait a signal ended: read the rest of
 * the logs within the signal's grace (HUB_SIGNAL_GRACE_S) and --log-drain */
void launch_hub_drain_late(struct launch_hub *h);
/* Seconds held by Kueue (finished stretches and the current one). */
double launch_hub_queued_seconds(const struct launch_hub *h);
/* What the run saw of its queue: the last position (1-based, 0 none) in the
 * LocalQueue and the ClusterQueue, and the evictions (launch_kueue.h). */
struct kueue_eviction;
void launch_hub_queue_seen(const struct launch_hub *h, int *in_lq, int *in_cq,
			   struct kueue_eviction *ev);
/* After a finished job's wait: one warning naming the workers whose log is
 * incomplete, if any; the same words are kept for the outputs
 * (launch_hub_logs_incomplete). */
void launch_hub_drain_report(struct launch_hub *h);
/* What the drain report said ("worker-3, worker-9: the stream broke for
 * good or ..."), or NULL when every worker's log was read whole; owned by
 * the hub. */
const char *launch_hub_logs_incomplete(const struct launch_hub *h);
/* How each worker that did not succeed ended (stderr). */
void launch_hub_workers_report(const struct launch_hub *h);
/* Counts from the pods seen; returns how many pods were seen. */
int launch_hub_pod_counts(const struct launch_hub *h, struct launch_workers *w);
/* Stop the workers' watch and follows. */
void launch_hub_workers_stop(struct launch_hub *h);

/* ---- for the cleanup ---- */
/* Have the job watch running (to see the deletion). */
int launch_hub_watch_job(struct launch_hub *h, struct err *e);
/* The server said the job is gone (a 404 to our DELETE). */
void launch_hub_gone(struct launch_hub *h);
/* Wait until the job watch sees the job gone, at most until `deadline`
 * (kube_now() clock): 1 when it did. */
int launch_hub_await_deletion(struct launch_hub *h, double deadline);

/* ---- the end of the run ---- */
/* Everything is decided and cleaned up: the run is done. The worker lines
 * still queued for a slow stdout are written within what is left of
 * --log-drain since the verdict (none after a signal: the grace period was
 * the cleanup's); a signal now stops them. */
void launch_hub_finish(struct launch_hub *h);

#endif
