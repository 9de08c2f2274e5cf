/*
 * launch_workers_int.h - the workers spoke's own state, shared by its files
 * only, one idea each, each calling only the ones below it:
 * launch_workers.c (the spoke's face: what the hub asks, what the verdict
 * waits for, the settle at the verdict), launch_pods.c (the pods, their
 * watch and the verdict's list), launch_follow.c (the log follows, their
 * stream slots and --log-turn), launch_tails.c (how a follow ends early: a
 * finished log's tail, the survivors). Nothing else includes it
 * (scripts/module-graph.sh holds the build to this list). Each file's
 * names here carry its own prefix.
 *
 * Included by: launch_workers.c launch_pods.c launch_follow.c launch_tails.c
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
	/* the pods' list at the verdict (catch_up_due, launch_workers.c; pods_list) */
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

/* launch_pods.c: the pod watch (label selector `selector`; `from` as for
 * launch_ctx_watch), a page of the verdict's list (`cont`: its continue
 * token, NULL first), and every pod freed */
struct kube_watch *pods_watch(struct workers *w, const char *selector, const char *from,
			      struct err *e);
void pods_list(struct workers *w, const char *cont);
void pods_free(struct workers *w);

/* launch_follow.c (calls launch_tails.c only): start (or resume) the
 * follow of the pod's current container if it is due, or queue it for a
 * stream slot; settle a clean end's pending re-follow; is some follow
 * open, reconnecting or queued? */
void follow_start(struct launch_pod *p);
void follow_refollow_end(struct launch_pod *p);
int follow_any(const struct workers *w);

/* launch_tails.c (calls nothing of the others): finish a terminated
 * container's follow from its log's tail; leave a survivor of Failed after
 * one last read; name a survivor that is left (its last read's error `e`,
 * or NULL) and stop its follow */
void tails_complete(struct launch_pod *p);
void tails_leave(struct launch_pod *p);
void tails_survivor_left(struct launch_pod *p, const struct err *e);

#endif
