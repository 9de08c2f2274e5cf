/*
 * launch_workers_int.h - the workers spoke's own state, shared by its two
 * files only: launch_workers.c (the pods and their watch) and
 * launch_follow.c (the log follows). Nothing else includes it
 * (scripts/module-graph.sh holds the build to this list).
 *
 * Included by: launch_workers.c launch_follow.c
 */
#ifndef JAXJOB_LAUNCH_WORKERS_INT_H
#define JAXJOB_LAUNCH_WORKERS_INT_H

#include "launch_logs.h"
#include "launch_workers.h"

/* One worker pod (by uid: a re-created pod is a new entry). */
struct launch_pod {
	struct workers *w;
	char *uid, *name;
	int index;		/* replica index label, -1 unknown */
	int restarts;		/* restartCount of the worker container, last seen */
	int running;		/* worker container running (this restart) */
	int terminated;		/* worker container terminated (this restart) */
	int exit_code;		/* when terminated */
	char term_reason[64];	/* Error, OOMKilled, Completed */
	int gone;		/* pod DELETED */
	unsigned long long rv;	/* resourceVersion of the state last taken, 0 unknown */
	int listed;		/* the verdict's list held it */
	int deletion_due;	/* that list did not: its DELETED event is on its way */
	char stuck[64];		/* waiting reason that never resolves, or "" */
	char *stuck_msg;	/* its message while stuck, else NULL (heap: most
				 * pods never are, and 1,000 of 512 B add up) */

	struct kube_log *log;	/* the follow in flight, or NULL */
	struct launch_logstream ls;	/* line bookkeeping of the followed container */
	int done_restarts;	/* highest restart whose log was read to the end, -1 none */
	int drops;		/* follows that ended early for ls.restarts */
	int clean_end;		/* the last follow ended without error */
	int quiet_ends;		/* clean ends in a row without a new line: the re-follow's
				 * pause doubles with each (launch_follow.c) */
	int queued;		/* due for a follow, waiting for a free stream slot */
	int log_once;		/* the stream reads an exited container's log (no follow) */
	int read_rest;		/* the next follow reads what is written, no follow: after
				 * the verdict, a clean end's pause (launch_follow.c) */
	int tail_asked;		/* kube_log_complete() reads started for this follow */
	int leaving;		/* a survivor of Failed: its last read, then left */
	unsigned long queued_seq;	/* when it queued (w->seq): the longest waiting goes first */
	double queued_at;	/* kube_now() then: --log-turn hands a stream to a worker
				 * that has waited a whole turn */
	struct kube_timer *refollow;
	struct kube_timer *turn;	/* --log-turn: its stream goes to a waiting worker */
	char *turn_since;	/* after a turn: the next follow's sinceTime, its skip
				 * in ls.skip (kube_log_resume_point), or NULL: from the start */
};

struct workers {
	const struct launch_ctx *ctx;
	const struct workers_reports *rep;
	void *hub;
	struct kube_watch *watch;
	struct launch_pod **pods;
	int npods, cap_pods;
	int nfollows;		/* log streams open (at most LAUNCH_LOG_STREAMS_MAX) */
	unsigned long seq;	/* queued_seq's clock */
	int synced;		/* the pod watch delivered its first list */
	int watch_failed;	/* the pod watch ended for good */
	/* the pods' list at the verdict (launch_workers.c, catch_up_due) */
	int list_asked;
	struct kube_call *list_call;	/* its page in flight: the drain waits */
	unsigned long long list_rv;	/* its resourceVersion: events older are stale */
	int draining;		/* the verdict is in (workers_settle was called) */
	int logs_forbidden;	/* a follow was answered 403 (the review did not say) */
	unsigned long progress;	/* workers_progress(): finished workers' lines and log ends */
};

/* pods/log is forbidden: the access review said so, or a follow's 403 */
static inline int workers_logs_denied(const struct workers *w)
{
	return w->ctx->deny.logs || w->logs_forbidden;
}

/* launch_follow.c, below launch_workers.c: it calls nothing of that file */
/* Start (or resume) the follow of the pod's current container if it is due. */
void workers_follow(struct launch_pod *p);
/* Is some follow open, reconnecting or queued? */
int workers_streaming(const struct workers *w);
/* The verdict is in (draining): settle every stream; leave_survivors lets
 * go of workers still running after Failed (workers_settle decides). */
void workers_follows_settle(struct workers *w, int leave_survivors);

#endif
