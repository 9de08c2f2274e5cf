/*
 * launch_workers.h - a spoke of the wait (launch_hub.c is the hub): the
 * job's worker pods, the watch on them, and one log follow per worker.
 *
 * It keeps its own state (the pods, the follows, the stream slots) and
 * tells the hub what changed through `struct workers_reports`; the hub asks
 * it back (drained, stuck, counts) and tells it the verdict (settle).
 */
#ifndef JAXJOB_LAUNCH_WORKERS_H
#define JAXJOB_LAUNCH_WORKERS_H

#include "buf.h"
#include "context/launch_ctx.h"
#include "decide/launch_verdict.h"

/* At most this many worker log streams at once (one connection each);
 * the other workers queue, exited ones first (launch_follow.c). */
#define LAUNCH_LOG_STREAMS_MAX 64

struct workers_reports {
	void (*pods_changed)(void *hub);	/* a worker pod changed or went */
	void (*logs_changed)(void *hub);	/* a follow ended, resumed, may be cut */
	int (*waiting)(void *hub);		/* is the run in its wait (follows start)? */
};

struct workers;
struct workers *workers_new(const struct launch_ctx *ctx, const struct workers_reports *rep,
			    void *hub);
/* Stops the watch and every follow, and forgets the pods. */
void workers_stop(struct workers *w);
void workers_free(struct workers *w);	/* NULL is fine */

/* The pod watch, from `from` (our create's resourceVersion: no list) or
 * with a first list. */
int workers_start(struct workers *w, const char *from, struct err *e);

/* After the verdict `v` (the job is finished): let go of streams that have
 * delivered all they can, and of survivors after Failed. */
void workers_settle(struct workers *w, const struct launch_verdict *v);
/* After the verdict: every worker's log is complete (or can never be read). */
int workers_drained(const struct workers *w, const struct launch_verdict *v);
/* A count that grows whenever a finished worker's log moves on (a fresh
 * line of a terminated container, a log read to its end): the drain after
 * the verdict waits while it grows (--log-drain is a window without it). */
unsigned long workers_progress(const struct workers *w);
/* The workers whose log is incomplete, "worker-1, worker-3", into `out`;
 * returns how many. */
int workers_incomplete(const struct workers *w, const struct launch_verdict *v, struct buf *out);

/* The first worker that is stuck (image pull, unschedulable), first by the
 * diagnosis's rule (diag_first_of): 1 with "reason" and
 * "worker-N (pod): reason: message" filled in, else 0. */
int workers_stuck(const struct workers *w, char *reason, size_t rn, char *msg, size_t mn);
/* Worker counts from the pods seen (for jobs whose status has none);
 * returns how many pods were seen. */
int workers_count(const struct workers *w, struct launch_workers *c);
/* On stderr: how each worker that did not succeed ended. */
void workers_report(const struct workers *w);

#endif
