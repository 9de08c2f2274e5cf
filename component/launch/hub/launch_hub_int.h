/*
 * launch_hub_int.h - the hub's own state, shared by its files only:
 * launch_hub.c (the events, the drain, signals, the wait),
 * launch_hub_clock.c (the run's clocks: --timeout, fail-fast, Kueue's
 * queue) and launch_hub_end.c (after the wait: the ending's and the
 * cleanup's questions).
 * Nothing else includes it: the rest of the run reads the hub through
 * launch_hub.h (scripts/module-graph.sh holds the build to this list).
 *
 * Included by: launch_hub.c launch_hub_clock.c launch_hub_end.c
 */
#ifndef JAXJOB_LAUNCH_HUB_INT_H
#define JAXJOB_LAUNCH_HUB_INT_H

#include "launch_hub.h"
#include "spokes/launch_kueue.h"
#include "spokes/launch_kueue_reasons.h"
#include "spokes/launch_queue_position.h"
#include "spokes/launch_trainer.h"
#include "spokes/launch_jobwatch.h"
#include "spokes/launch_workers.h"

enum launch_run_phase { RUN_CREATING, RUN_WAITING, RUN_CLEANING, RUN_DONE };

/*
 * A signal after the verdict: the logs are still read for this long from the
 * first signal (and within --log-drain), then the step exits with the
 * verdict's code. A pipeline's SIGTERM comes with a grace period before the
 * SIGKILL (terminationGracePeriodSeconds, 30 s by default); half of it leaves
 * the other half to the cleanup and the outputs. A second signal stops at once.
 */
#define HUB_SIGNAL_GRACE_S 15.0

struct launch_hub {
	const struct launch_ctx *ctx;
	enum launch_run_phase phase;
	struct launch_why why;		/* why.end: what ended the wait */
	cJSON *job;			/* the job as last seen, or NULL */
	struct launch_verdict v;	/* its verdict (launch_hub_take, job_seen) */

	/* the spokes */
	struct jobwatch *jw;
	struct workers *workers;
	struct kueue *kueue;
	struct qpos *qpos;		/* the Workload's place in its queue */
	struct launch_trainer trainer;

	/* the wait; the clocks report through clock_rep (launch_hub.c's table) */
	const struct hub_clock_reports *clock_rep;
	struct kube_timer *deadline, *stuck_timer, *drain_timer;
	int draining;			/* terminal seen: waiting for log streams to end */
	double drain_from;		/* when the drain's window began: the verdict, or
					 * the last time the logs were seen moving on */
	unsigned long drain_mark;	/* workers_progress() then */
	struct buf incomplete;		/* the drain report's words, for the outputs */
	double signal_at;		/* the first SIGTERM/SIGINT, 0 none */
	struct kube_timer *grace_timer;	/* a signal's grace for the logs (HUB_SIGNAL_GRACE_S) */
	int stopped;			/* hub_stop() was called: the late drain's end */
	int signal_again;		/* a signal after the first: stop writing now */

	/*
	 * Kueue's queue clock (launch_hub_clock.c). Queue time is not run
	 * time: --timeout and the fail-fast grace count only the time the job
	 * is not held by Kueue.
	 */
	struct {			/* held by Kueue now: why.queued */
		int admissions;		/* times it left the queue (attempts) */
		double since;		/* when the current queued stretch began */
		double queued_s;	/* total of the finished queued stretches */
		char why[512];		/* the pending reason last said */
		int said_lq, said_cq;	/* the position last said (1-based), 0 none */
		struct kube_timer *ticker, *deadline;
		struct kube_timer *hopeless;	/* Kueue says it cannot admit it: the grace */
	} q;

	/* the cleanup's deletion */
	int delete_confirmed;
	int in_delete_wait;		/* inside the loop waiting for DELETED */
	struct kube_timer *delete_timer;
};

/*
 * launch_hub_clock.c. The clocks report to the hub as a spoke does, through
 * a table that launch_hub.c fills in: they call nothing of that file, so
 * the hub's file stays the one place that ends the wait, and the clocks
 * sit below it.
 */
struct hub_clock_reports {
	void (*ran_out)(void *hub, enum launch_end why);	/* END_STUCK, _TIMEOUT, _QUEUE_TIMEOUT */
};
void hub_stuck_check(struct launch_hub *h);	/* a stuck cause came or went */
void hub_arm_deadline(struct launch_hub *h);	/* --timeout, less the time queued */
void hub_queue_check(struct launch_hub *h);	/* held by Kueue, admitted, or the same? */
void hub_queue_position(struct launch_hub *h);	/* a new place in the queue was seen */
void hub_clocks_stop(struct launch_hub *h);

#endif
