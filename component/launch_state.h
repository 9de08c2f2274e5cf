/*
 * launch_state.h - the state of one `jaxjob launch` run, shared by the files
 * that each own one part of it (internal to component/):
 *
 *   launch_run.c      the flow: config, identity, create or re-attach, wait,
 *                     map the ending to an exit code, cleanup, outputs
 *   launch_machine.c  the hub of the wait: every transition (stop, drain,
 *                     fail-fast, timeout, signals, deletion confirmed)
 *   launch_watch.c    spoke: the job watch and the event watch
 *   launch_workers.c  spoke: the worker pods, pod watch, one log follow per
 *                     container, re-follow after drops and restarts
 *   launch_cleanup.c  spoke: delete / suspend / leave
 *   launch_kueue.c    spoke: Kueue - the job's queue, its Workload, Kueue's
 *                     events; the hub keeps the queue clock from them
 *
 * Hub and spokes: a spoke never calls another spoke or the hub by name; it
 * reports through st->hub (struct launch_hub below), and the hub calls the
 * spokes. launch_run.c drives the hub and the spokes' start/stop/report.
 *
 * Everything runs on the kube client's one event loop (kube_loop.h); no
 * threads. Callbacks record what happened in `end` and stop the loop; the
 * flow in launch_run.c decides what it means.
 *
 * Ownership: struct launch_state owns `manifest` (our stamped copy), `job`
 * (the last object seen), the watches, follows and timers it started, and
 * every struct launch_pod. launch_state_free() releases them all.
 */
#ifndef JAXJOB_LAUNCH_STATE_H
#define JAXJOB_LAUNCH_STATE_H

#include <cJSON.h>

#include "diagnose.h"
#include "jobapi.h"
#include "kube.h"
#include "launch_identity.h"
#include "launch_logs.h"
#include "launch_metrics.h"
#include "launch_opts.h"
#include "launch_outputs.h"
#include "launch_progress.h"
#include "launch_stdout.h"

/* Why the wait stopped. */
enum launch_end {
	END_NONE = 0,
	END_FINISHED,	/* the judge says terminal (Succeeded or Failed) */
	END_TIMEOUT,	/* --timeout */
	END_SIGNAL,	/* SIGTERM/SIGINT */
	END_DELETED,	/* the job vanished under us */
	END_STUCK,	/* fail-fast: past the grace period */
	END_API,	/* a watch failed for good (e) */
	END_QUEUE_TIMEOUT,	/* --queue-timeout: queued by Kueue for too long */
};

enum launch_phase_of_run { RUN_CREATING, RUN_WAITING, RUN_CLEANING, RUN_DONE };

/* One worker pod (by uid: a re-created pod is a new entry). */
struct launch_pod {
	struct launch_state *st;
	char *uid, *name;
	int index;		/* replica index label, -1 unknown */
	int restarts;		/* restartCount of the worker container, last seen */
	int running;		/* worker container running (this restart) */
	int terminated;		/* worker container terminated (this restart) */
	int exit_code;		/* when terminated */
	char term_reason[64];	/* Error, OOMKilled, Completed */
	int gone;		/* pod DELETED */
	char stuck[64];		/* waiting reason that never resolves, or "" */
	char stuck_msg[512];

	struct kube_log *log;	/* the follow in flight, or NULL */
	struct launch_logstream ls;	/* line bookkeeping of the followed container */
	int done_restarts;	/* highest restart whose log was read to the end, -1 none */
	int drops;		/* follows that ended early for ls.restarts */
	int clean_end;		/* the last follow ended without error */
	int queued;		/* due for a follow, waiting for a free stream slot */
	int log_once;		/* the stream reads an exited container's log (no follow) */
	int tail_asked;		/* kube_log_complete() was started for this follow */
	int leaving;		/* a survivor of Failed: its last read, then left */
	struct kube_timer *refollow;
};

/*
 * What a spoke tells the hub (launch_machine.c fills it in). These are the
 * only way back from a spoke: each names an observation, the hub decides
 * what it changes.
 */
struct launch_hub {
	/* a watch in the job's namespace on `res` (label or field selector,
	 * either may be NULL), from the create's resourceVersion when fresh */
	struct kube_watch *(*watch)(struct launch_state *st, const struct kube_resource *res,
				    const char *label_sel, const char *field_sel,
				    kube_event_fn *on_event, kube_watch_state_fn *on_state,
				    struct err *e);
	void (*stop)(struct launch_state *st, enum launch_end why);
	void (*job_seen)(struct launch_state *st, const cJSON *job);	/* our job, not DELETED */
	void (*job_deleted)(struct launch_state *st, const cJSON *job);
	void (*job_absent)(struct launch_state *st);	/* not in the job watch's first list */
	void (*job_watch_failed)(struct launch_state *st, const struct err *e);
	void (*stuck_check)(struct launch_state *st);	/* a stuck cause came or went */
	void (*pods_changed)(struct launch_state *st);	/* a worker pod changed or went */
	void (*logs_changed)(struct launch_state *st);	/* a follow ended, resumed, may be cut */
	int (*job_watch)(struct launch_state *st, struct err *e);	/* have the job watch */
	void (*queue_changed)(struct launch_state *st);	/* the job's Workload changed */
	/* a Normal event about the job (Kueue's Started/Stopped): 1 when said */
	int (*normal_event)(struct launch_state *st, const cJSON *ev);
};

/* The connection opened before the job was built (launch_early_start). */
struct launch_early {
	struct kube_client *c;		/* NULL once the run has taken it */
	struct kube_client *loop;	/* the same client, taken or not */
	char *ns;			/* the namespace of the flags and kubeconfig */
	char *warnings;			/* the kubeconfig's warnings, printed by the run */
	struct kube_call *review;	/* the rules review in flight, or NULL */
	int answered, ok;		/* it came back; with a 2xx */
	cJSON *json;			/* its answer */
};

struct launch_state {
	const struct launch_hub *hub;	/* launch_machine_init() */
	const struct launch_opts *o;
	struct kube_client *c;
	struct launch_early *early;	/* the rules review sent before the build, or NULL */
	const struct jobapi *api;	/* JAXJob or TrainJob: paths, labels, container, suspend */
	const struct kube_resource *res;	/* api->res */
	const char *kind;		/* api->kind, for messages */
	char *ns, *name;
	char *uid;			/* of the job we created or adopted */
	cJSON *manifest;		/* stamped copy we send */
	cJSON *job;			/* last object seen */
	struct launch_identity id;
	struct launch_progress prog;
	struct launch_metrics metrics;	/* training metrics from the worker logs */
	struct diag *diag;		/* why it failed: fed pods, events, lines (lib/diagnose.h) */
	struct launch_stdout out;	/* the workers' lines on stdout, never blocking */
	double t0;

	enum launch_phase_of_run phase;
	enum launch_end end;
	struct err end_err;		/* END_API: why */
	int signo;			/* last signal caught */
	char stuck_reason[64];		/* END_STUCK */
	char stuck_msg[768];
	int stuck_permanent;		/* END_STUCK at once: the API rejects what the job needs */

	/* the wait */
	char *watch_from;		/* fresh create: its resourceVersion (no LISTs), else NULL */
	struct kube_watch *job_watch, *pod_watch, *event_watch;
	struct kube_timer *deadline, *stuck_timer, *drain_timer;
	int watch_retry_noted;
	int job_lists;			/* lists the job watch made (for "resynced") */
	int job_polling;		/* the job watch polls (watch forbidden) */
	int saw_job;			/* the job watch delivered our job */
	int job_watch_failed;		/* it ended for good (KUBE_WATCH_FAILED) */
	char event_stuck[64];		/* FailedCreatePod/FailedCreateService seen */
	char event_stuck_msg[512];
	int event_stuck_count;		/* how often the server reported it (event count) */

	/* what SelfSubjectAccessReview said is forbidden (launch_access.c) */
	struct {
		unsigned list_job : 1, watch_job : 1, delete_job : 1, patch_job : 1;
		unsigned pods : 1, watch_pods : 1, logs : 1, events : 1, watch_events : 1;
		unsigned workloads : 1;	/* Kueue Workloads cannot be listed/watched */
	} deny;

	/*
	 * Kueue (launch_kueue.c reads, the hub's queue clock in launch_machine.c
	 * decides). Queue time is not run time: --timeout and the fail-fast
	 * grace count only the time the job is not held by Kueue.
	 */
	struct {
		const char *queue;	/* the job's kueue.x-k8s.io/queue-name, or NULL */
		cJSON *workload;	/* the job's Workload as last seen, or NULL */
		struct kube_watch *watch;
		int unreadable;		/* the Workload watch failed for good */
		int queued;		/* held by Kueue now */
		int admissions;		/* times it left the queue (attempts) */
		double since;		/* when the current queued stretch began */
		double queued_s;	/* total of the finished queued stretches */
		char why[512];		/* the pending reason last said */
		char stopped[512];	/* Kueue's last Stopped event message */
		struct kube_timer *ticker, *deadline;
	} q;

	/* status.trainerStatus (launch_trainer.c) */
	struct {
		char updated[64];	/* its lastUpdatedTime last said */
		double said;		/* when the last "trainer:" line went out */
	} trainer;

	/* cleanup */
	int delete_confirmed;
	int in_delete_wait;		/* inside the loop waiting for DELETED */
	struct kube_timer *delete_timer;
	int delete_requested;

	/* workers */
	struct launch_pod **pods;
	int npods, cap_pods;
	int draining;			/* terminal seen: waiting for log streams to end */
	double decided_at;		/* kube_now() when the terminal state was seen */
	int nfollows;			/* log streams open (at most LAUNCH_LOG_STREAMS_MAX) */
	int pods_synced;		/* the pod watch delivered its first list */
};

/* launch_machine.c: the hub */
/* Point st->hub at the machine; first, before any spoke runs. */
void launch_machine_init(struct launch_state *st);
/*
 * Start a watch in the job's namespace on `res`, selected by a label or a
 * field selector (either may be NULL), calling back with `st`.
 */
struct kube_watch *launch_watch_start(struct launch_state *st,
				      const struct kube_resource *res,
				      const char *label_sel, const char *field_sel,
				      kube_event_fn *on_event, kube_watch_state_fn *on_state,
				      struct err *e);
/* The health judge's verdict: 1 when finished; *succeeded (may be NULL). */
int launch_judge(const cJSON *job, int *succeeded);
int launch_catch_signals(struct launch_state *st, struct err *e);
int launch_wait(struct launch_state *st, struct err *e);
void launch_wait_done(struct launch_state *st);
/* After the wait of a finished job: one warning naming the workers whose
 * log is incomplete, if any. */
void launch_drain_report(struct launch_state *st);

/* launch_watch.c: spoke */
int launch_start_job_watch(struct launch_state *st, struct err *e);
/* The watch on the job's events (creation failures); 0 when not allowed. */
int launch_events_start(struct launch_state *st, struct err *e);

/* launch_workers.c: spoke */
int launch_workers_start(struct launch_state *st, struct err *e);
void launch_workers_stop(struct launch_state *st);
/* At most this many worker log streams at once (one connection each);
 * the other workers queue, exited ones first (launch_workers.c). */
#define LAUNCH_LOG_STREAMS_MAX 64
int launch_workers_streaming(const struct launch_state *st);
/* After the end: every worker's log is complete (or can never be read). */
int launch_workers_drained(const struct launch_state *st);
/* The workers whose log is incomplete, "worker-1, worker-3", into `out`;
 * returns how many. */
int launch_workers_incomplete(const struct launch_state *st, struct buf *out);
/* After the verdict: let go of streams that have delivered all they can;
 * `job_failed` (the hub's judgement) lets go of survivors too. */
void launch_workers_settle(struct launch_state *st, int job_failed);
void launch_workers_report(struct launch_state *st);
/* The first worker that is stuck (image pull, unschedulable), or NULL. */
const struct launch_pod *launch_workers_stuck(const struct launch_state *st);
/* Worker counts from the pods we saw (for jobs whose status has none). */
void launch_workers_count(const struct launch_state *st, struct launch_workers *w);

/* launch_kueue.c: spoke */
#define KUEUE_QUEUE_LABEL "kueue.x-k8s.io/queue-name"
#define KUEUE_JOB_UID_LABEL "kueue.x-k8s.io/job-uid"
extern const struct kube_resource KUEUE_WORKLOAD, KUEUE_LOCALQUEUE;
/* The job's LocalQueue (its queue-name label), or NULL: not queue-managed. */
const char *launch_kueue_queue_of(const cJSON *job);
/* Before the create: the job's queue from its label; a queue-managed job is
 * created suspended (as Kueue's webhook makes it), so no worker starts
 * before admission. */
void launch_kueue_prepare(struct launch_state *st);
/* The Workload watch, for a queue-managed job whose Workloads may be read. */
int launch_kueue_start(struct launch_state *st, struct err *e);
void launch_kueue_stop(struct launch_state *st);
/* Is the job held by Kueue (queue-managed, suspended, not admitted, not
 * finished)? 1 with the reason in `why` (the Workload's pending message). */
int launch_kueue_held(const struct launch_state *st, char *why, size_t n);
/* Why Kueue took an admitted job back (Evicted condition, Stopped event). */
void launch_kueue_evicted(const struct launch_state *st, char *why, size_t n);
/* The ClusterQueue that admitted the Workload, or NULL. */
const char *launch_kueue_admitted_by(const struct launch_state *st);
/* A Normal event about the job: Kueue's are said (1), others ignored (0). */
int launch_kueue_event(struct launch_state *st, const cJSON *ev);
/* Before the create: the job's LocalQueue exists (GET when `may_get`),
 * else -1 with `r` set; a queue that cannot be read is a warning. */
struct launch_result;
int launch_kueue_preflight(struct launch_state *st, int may_get, struct launch_result *r);
/* Seconds queued so far (finished stretches plus the current one). */
double launch_queued_seconds(const struct launch_state *st);

/* launch_trainer.c: a TrainJob's status.trainerStatus, preferred over the logs */
void launch_trainer_seen(struct launch_state *st);

/* launch_access.c */
/*
 * Before the create: may this identity do what the options need? -1 (with
 * `r` set: exit 4) when it may not create or get the job; otherwise 0, with
 * one warning per other missing permission and st->deny set so the run
 * adapts. A review that cannot be made is no answer: 0, nothing said.
 */
struct launch_result;
int launch_access_check(struct launch_state *st, struct launch_result *r);
/* The SelfSubjectRulesReview request for a namespace (launch_early_start sends it early). */
void launch_access_rules_request(struct kube_request *rq, const char *ns);

/* launch_cleanup.c: spoke */
enum launch_cleanup_action { CLEAN_NONE, CLEAN_DELETE, CLEAN_SUSPEND };
enum launch_cleanup_done {
	CLEANUP_DONE,		/* done, or failed with a warning */
	CLEANUP_CHANGED,	/* 409: the job is not the object st->job: look again */
};
/*
 * Apply `action` to the job as st->job shows it (its uid and resourceVersion
 * are the request's preconditions), retrying until `deadline` (kube_now()
 * clock); a one-line note of what was done (for outputs) goes into `note`.
 * Never fails the run: problems are warnings.
 */
int launch_cleanup(struct launch_state *st, enum launch_cleanup_action action, double deadline,
		   struct buf *note);
/* The look and the requests of the ending retry until `deadline`, at least 1 s. */
void launch_retry_until(struct launch_state *st, double deadline);

#endif
