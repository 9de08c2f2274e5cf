/*
 * test_launch_hub.c - the hub of a launch run (component/launch/hub/launch_hub.c),
 * alone: its spokes are fakes defined here (the spokes' headers are the
 * only way the hub reaches them), and so is the client's event loop - the
 * loop functions are wrapped at link time (-Wl,--wrap, Makefile
 * UNIT_LD_test_launch_hub) with a loop on a virtual clock that runs a
 * script: job objects, deletions, a failed watch, pods stuck, logs
 * drained, signals, each at a virtual time. Timers (--timeout, fail-fast,
 * --log-drain, the queue clock) fire on that clock, so nothing here waits.
 *
 * Each case asserts the ending the hub decided (why the wait ended, the
 * verdict) and that every job object was judged once: health_judge is
 * wrapped and counted. Every case's end is then decided by the outcome
 * table (launch_hub_cause, launch_outcome_decide: launch_outcome.h), and
 * the last case checks that every row of the table was reached by some
 * case - a new row needs a case here.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "component/launch/hub/launch_hub.h"
#include "component/launch/decide/launch_outcome.h"
#include "component/launch/spokes/launch_kueue.h"
#include "component/launch/spokes/launch_kueue_reasons.h"
#include "component/launch/spokes/launch_queue_position.h"
#include "component/launch/spokes/launch_trainer.h"
#include "component/launch/spokes/launch_jobwatch.h"
#include "component/launch/spokes/launch_workers.h"
#include "health/health.h"

/* ---- the script ----------------------------------------------------------- */

enum step_kind {
	JOB,		/* the job watch delivers `a` (a condition type) */
	JOB_AGAIN,	/* the same object again: a re-list after a 410 */
	DELETED,	/* the job watch sees it deleted, last state `a` */
	WATCH_FAILED,	/* the job watch ends for good */
	STUCK,		/* a worker is stuck with reason `a` ("" = recovered) */
	CREATION,	/* a creation failure event `a`; `n` permanent */
	DRAINED,	/* every log is in */
	LOG_MOVED,	/* a finished worker's log moved on (a line, a log's end) */
	SIGNAL,		/* signal `n` */
	QUEUED,		/* Kueue holds it (n = 1) or admitted it (n = 0) */
};

struct step {
	double at;
	enum step_kind kind;
	const char *a;
	int n;
};

static struct {
	const struct step *steps;
	int nsteps, next;
	double now;
	int stopped;
	kube_signal_fn *on_signal;
	void *signal_ud;
	int judged;		/* health_judge calls */
	int objects;		/* job objects handed to the hub */
	cJSON *last;		/* the last object delivered (for JOB_AGAIN) */
	char notes[8192];	/* the progress lines */
} loop;

/* The timers of the fake loop. */
struct kube_timer {
	double at;
	kube_timer_fn *fn;
	void *ud;
	int active;
};
static struct kube_timer timers[16];

/* ---- the fake spokes --------------------------------------------------------- */

struct jobwatch {
	const struct jobwatch_reports *rep;
	void *hub;
	int watching, failed;
	char reason[64], msg[128];
	int count;
};
static struct jobwatch jw;

struct workers {
	const struct workers_reports *rep;
	void *hub;
	int drained, settled;
	unsigned long progress;	/* workers_progress() */
	int settled_failed;	/* settle was told the job failed */
	char stuck[64];
};
static struct workers wk;

struct kueue {
	const struct kueue_reports *rep;
	void *hub;
	int held;	/* 1 waiting, 2 hopeless (ExceedsMaxQuota) */
};
static struct kueue kq;

struct jobwatch *jobwatch_new(const struct launch_ctx *ctx, const struct jobwatch_reports *rep,
			      void *hub)
{
	(void)ctx;
	jw.rep = rep;
	jw.hub = hub;
	return &jw;
}
void jobwatch_free(struct jobwatch *w) { (void)w; }
int jobwatch_start(struct jobwatch *w, const char *from, const cJSON *known, struct err *e)
{
	(void)from, (void)known, (void)e;
	w->watching = 1;
	return 0;
}
int jobwatch_start_events(struct jobwatch *w, const char *from, struct err *e)
{
	(void)w, (void)from, (void)e;
	return 0;
}
void jobwatch_stop_events(struct jobwatch *w) { (void)w; }
int jobwatch_watching(const struct jobwatch *w) { return w->watching; }
int jobwatch_failed(const struct jobwatch *w) { return w->failed; }
const char *jobwatch_creation_failure(const struct jobwatch *w, const char **msg, int *count)
{
	if (msg)
		*msg = w->msg;
	if (count)
		*count = w->count;
	return w->reason[0] ? w->reason : NULL;
}

struct workers *workers_new(const struct launch_ctx *ctx, const struct workers_reports *rep,
			    void *hub)
{
	(void)ctx;
	wk.rep = rep;
	wk.hub = hub;
	return &wk;
}
void workers_free(struct workers *w) { (void)w; }
void workers_stop(struct workers *w) { (void)w; }
int workers_start(struct workers *w, const char *from, struct err *e)
{
	(void)w, (void)from, (void)e;
	return 0;
}
void workers_settle(struct workers *w, const struct launch_verdict *v)
{
	w->settled++;
	w->settled_failed = launch_verdict_failed(v);
}
int workers_drained(const struct workers *w, const struct launch_verdict *v)
{
	(void)v;
	return w->drained;
}
unsigned long workers_progress(const struct workers *w)
{
	return w->progress;
}
int workers_incomplete(const struct workers *w, const struct launch_verdict *v, struct buf *out)
{
	(void)v;
	if (w->drained)
		return 0;
	buf_adds(out, "worker-0");
	return 1;
}
int workers_stuck(const struct workers *w, char *reason, size_t rn, char *msg, size_t mn)
{
	if (!w->stuck[0])
		return 0;
	snprintf(reason, rn, "%s", w->stuck);
	snprintf(msg, mn, "worker-0 (p-0): %s", w->stuck);
	return 1;
}
int workers_count(const struct workers *w, struct launch_workers *c)
{
	(void)w;
	c->active = c->succeeded = c->failed = 0;
	return 0;
}
void workers_report(const struct workers *w) { (void)w; }

struct kueue *kueue_new(const struct launch_ctx *ctx, const struct kueue_reports *rep, void *hub)
{
	(void)ctx;
	kq.rep = rep;
	kq.hub = hub;
	return &kq;
}
void kueue_free(struct kueue *k) { (void)k; }
int kueue_start(struct kueue *k, const char *from, struct err *e)
{
	(void)k, (void)from, (void)e;
	return 0;
}
void kueue_stop(struct kueue *k) { (void)k; }
int kueue_held(const struct kueue *k, const cJSON *job, const struct launch_verdict *v,
	       char *why, size_t n)
{
	(void)job, (void)v;
	snprintf(why, n, "%s", k->held ? "waiting for quota" : "");
	return k->held;
}
void kueue_evicted(const struct kueue *k, char *why, size_t n)
{
	(void)k;
	snprintf(why, n, "Preempted");
}
const char *kueue_admitted_by(const struct kueue *k) { (void)k; return "cq"; }
int kueue_pending(const struct kueue *k, char *reason, size_t rn, char *msg, size_t mn)
{
	if (k->held != 2)
		return KUEUE_WAIT;
	snprintf(reason, rn, "ExceedsMaxQuota");
	snprintf(msg, mn, "request > maximum capacity");
	return KUEUE_HOPELESS;
}
void kueue_evictions(const struct kueue *k, struct kueue_eviction *out)
{
	(void)k;
	memset(out, 0, sizeof(*out));
}
const char *kueue_workload_name(const struct kueue *k) { (void)k; return "jaxjob-j-abcde"; }

/* the queue position spoke: never answers here */
struct qpos *qpos_new(const struct launch_ctx *ctx, const struct qpos_reports *rep, void *hub)
{
	(void)ctx, (void)rep, (void)hub;
	return NULL;
}
void qpos_free(struct qpos *q) { (void)q; }
void qpos_look(struct qpos *q, const char *workload) { (void)q, (void)workload; }
void qpos_stop(struct qpos *q) { (void)q; }
const char *qpos_cluster_queue(const struct qpos *q) { (void)q; return NULL; }
int qpos_get(const struct qpos *q, int *in_lq, int *in_cq)
{
	(void)q;
	*in_lq = *in_cq = 0;
	return 0;
}

void launch_trainer_seen(struct launch_trainer *t, const struct launch_ctx *ctx, const cJSON *job)
{
	(void)t, (void)ctx, (void)job;
}

void launch_stdout_line(struct launch_stdout *o, int index, const char *data, size_t len)
{
	(void)o, (void)index, (void)data, (void)len;
}

/* ---- the wrapped client loop -------------------------------------------------- */

int __real_health_judge(const cJSON *obj, struct health_result *out);
int __wrap_health_judge(const cJSON *obj, struct health_result *out)
{
	loop.judged++;
	return __real_health_judge(obj, out);
}

double __wrap_kube_now(void) { return loop.now; }

struct kube_timer *__wrap_kube_timer_add(struct kube_client *c, double after_s,
					 kube_timer_fn *fn, void *ud)
{
	(void)c;
	for (size_t i = 0; i < sizeof(timers) / sizeof(timers[0]); i++)
		if (!timers[i].active) {
			timers[i] = (struct kube_timer){ loop.now + after_s, fn, ud, 1 };
			return &timers[i];
		}
	fail_msg("out of timers");
	return NULL;
}

void __wrap_kube_timer_cancel(struct kube_timer *t)
{
	if (t)
		t->active = 0;
}

void __wrap_kube_loop_stop(struct kube_client *c) { (void)c; loop.stopped = 1; }
void __wrap_kube_loop_cancel_call(struct kube_client *c) { (void)c; }

int __wrap_kube_loop_catch_signals(struct kube_client *c, kube_signal_fn *fn, void *ud,
				   struct err *e)
{
	(void)c, (void)e;
	loop.on_signal = fn;
	loop.signal_ud = ud;
	return 0;
}

/* A JAXJob whose condition `type` is True (NULL: no condition yet). */
static cJSON *job_object(const char *type)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"JAXJob\",\"metadata\":{\"name\":"
		 "\"j\",\"namespace\":\"ns\",\"uid\":\"u1\",\"resourceVersion\":\"%d\"},"
		 "\"spec\":{\"jaxReplicaSpecs\":{\"Worker\":{\"replicas\":2}}},"
		 "\"status\":{\"conditions\":[%s%s%s]}}", loop.objects + 1,
		 type ? "{\"type\":\"" : "", type ? type : "",
		 type ? "\",\"status\":\"True\",\"reason\":\"JAXJobDone\",\"message\":\"m\"}" : "");
	return cJSON_Parse(text);
}

static void deliver(const cJSON *obj, int deleted)
{
	loop.objects++;
	if (deleted)
		jw.rep->deleted(jw.hub, obj);
	else
		jw.rep->seen(jw.hub, obj);
}

static void run_step(const struct step *s)
{
	struct err e = ERR_INIT;

	switch (s->kind) {
	case JOB:
	case DELETED:
		cJSON_Delete(loop.last);
		loop.last = job_object(s->a);
		deliver(loop.last, s->kind == DELETED);
		break;
	case JOB_AGAIN:
		deliver(loop.last, 0);
		break;
	case WATCH_FAILED:
		snprintf(e.msg, sizeof(e.msg), "%s", "the watch ended for good");
		jw.failed = 1;
		jw.rep->failed(jw.hub, &e);
		break;
	case STUCK:
		snprintf(wk.stuck, sizeof(wk.stuck), "%s", s->a);
		wk.rep->pods_changed(wk.hub);
		break;
	case CREATION:
		snprintf(jw.reason, sizeof(jw.reason), "%s", s->a);
		snprintf(jw.msg, sizeof(jw.msg), "pods \"j-worker-0\" is forbidden");
		jw.count = 1;
		jw.rep->creation_failure(jw.hub, s->n);
		break;
	case DRAINED:
		wk.drained = 1;
		wk.rep->logs_changed(wk.hub);
		break;
	case LOG_MOVED:
		wk.progress++;
		wk.rep->logs_changed(wk.hub);
		break;
	case SIGNAL:
		loop.on_signal(loop.signal_ud, s->n);
		break;
	case QUEUED:
		kq.held = s->n;
		kq.rep->changed(kq.hub);
		break;
	}
}

/* The loop: the next scripted step or timer, whichever comes first, until
 * the hub stops it or nothing is left (the real loop returns then too). */
int __wrap_kube_loop_run(struct kube_client *c, struct err *e)
{
	(void)c, (void)e;
	loop.stopped = 0;
	while (!loop.stopped) {
		struct kube_timer *t = NULL;
		for (size_t i = 0; i < sizeof(timers) / sizeof(timers[0]); i++)
			if (timers[i].active && (!t || timers[i].at < t->at))
				t = &timers[i];
		const struct step *s = loop.next < loop.nsteps ? &loop.steps[loop.next] : NULL;
		if (s && (!t || s->at <= t->at)) {
			loop.now = s->at > loop.now ? s->at : loop.now;
			loop.next++;
			run_step(s);
		} else if (t) {
			loop.now = t->at > loop.now ? t->at : loop.now;
			t->active = 0;
			t->fn(t->ud);
		} else {
			return 0;
		}
	}
	return 0;
}

/* The end of the run writes the last queued worker lines (launch_hub_finish):
 * the stdout sink is not the hub's test. */
void launch_stdout_finish(struct launch_stdout *s, double drain_s, const int *signo)
{
	(void)s, (void)drain_s, (void)signo;
}

/* ---- the cases ------------------------------------------------------------- */

/* The rows of the outcome table the cases reached. */
static int reached[LAUNCH_OUTCOME_ROWS];

/* The outcome the table decides for the hub's end; counted. */
static void decide(const struct launch_hub *h, struct launch_outcome_end *out)
{
	struct launch_cause c;

	launch_hub_cause(h, &c);
	launch_outcome_decide(&c, NULL, out);
	reached[out->row]++;
}

struct run {
	struct launch_opts o;
	struct launch_progress prog;
	struct launch_ctx ctx;
	struct launch_loop loop;
	struct launch_hub *h;
	FILE *notes;
};

static void run_script(struct run *r, const struct step *steps, int n)
{
	memset(&loop, 0, sizeof(loop));
	memset(timers, 0, sizeof(timers));
	memset(&jw, 0, sizeof(jw));
	memset(&wk, 0, sizeof(wk));
	memset(&kq, 0, sizeof(kq));
	loop.steps = steps;
	loop.nsteps = n;
	r->notes = fmemopen(loop.notes, sizeof(loop.notes) - 1, "w");
	setvbuf(r->notes, NULL, _IONBF, 0);
	launch_progress_init(&r->prog, r->notes, 0);
	r->ctx.o = &r->o;
	r->ctx.c = (struct kube_client *)&r->ctx;	/* never dereferenced: the loop is ours */
	launch_loop_init(&r->loop, r->ctx.c);
	r->ctx.loop = &r->loop;
	r->ctx.api = &JOBAPI_JAXJOB;
	r->ctx.res = JOBAPI_JAXJOB.res;
	r->ctx.kind = "JAXJob";
	r->ctx.ns = "ns";
	r->ctx.name = "j";
	r->ctx.uid = "u1";
	r->ctx.prog = &r->prog;
	r->h = launch_hub_new(&r->ctx);
	assert_int_equal(launch_hub_catch_signals(r->h, NULL), 0);
	/* the create's answer: the first object the hub takes */
	loop.objects++;
	launch_hub_take(r->h, job_object("Created"));
	loop.judged = 0;
	loop.objects = 0;
	launch_hub_wait(r->h, "1");
}

static void run_free(struct run *r)
{
	struct launch_outcome_end out;

	decide(r->h, &out);	/* every case's end goes through the table */
	launch_hub_free(r->h);
	fclose(r->notes);
	cJSON_Delete(loop.last);
	loop.last = NULL;
}

static void defaults(struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->o.log_drain_s = 30;
	r->o.fail_fast_s = 60;
	r->o.logs = LOGS_ALL;
}

#define RUN(r, ...)                                                         \
	do {                                                                \
		static const struct step steps_[] = { __VA_ARGS__ };         \
		run_script((r), steps_, (int)(sizeof(steps_) / sizeof(steps_[0]))); \
	} while (0)

static enum launch_end end_of(const struct run *r) { return launch_hub_why(r->h)->end; }

/* Each job object the wait saw was judged once: not per use. */
static void judged_once(void)
{
	assert_int_equal(loop.judged, loop.objects);
}

static void succeeded(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Running", 0 }, { 2, JOB, "Succeeded", 0 }, { 3, DRAINED, NULL, 0 });
	assert_int_equal(end_of(&r), END_FINISHED);
	assert_true(launch_hub_verdict(r.h)->terminal);
	assert_true(launch_hub_verdict(r.h)->succeeded);
	assert_int_equal(wk.settled, 2);	/* at the verdict, and when the logs moved */
	assert_false(wk.settled_failed);
	assert_true(launch_hub_why(r.h)->decided_at == 2);
	assert_true(loop.now == 3);	/* when the logs were in, not at --log-drain */
	assert_non_null(strstr(loop.notes, "Running"));
	judged_once();
	run_free(&r);
}

static void failed(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Running", 0 }, { 5, JOB, "Failed", 0 }, { 6, DRAINED, NULL, 0 });
	assert_int_equal(end_of(&r), END_FINISHED);
	assert_true(launch_hub_verdict(r.h)->terminal);
	assert_false(launch_hub_verdict(r.h)->succeeded);
	assert_true(wk.settled_failed);	/* survivors may be let go */
	assert_true(loop.now == 6);
	judged_once();
	run_free(&r);
}

static void deleted_by_someone(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Running", 0 }, { 2, DELETED, "Running", 0 });
	assert_int_equal(end_of(&r), END_DELETED);
	judged_once();
	run_free(&r);

	/* gone after it finished (ttlSecondsAfterFinished): that is finished */
	defaults(&r);
	RUN(&r, { 1, JOB, "Running", 0 }, { 2, DELETED, "Succeeded", 0 });
	assert_int_equal(end_of(&r), END_FINISHED);
	assert_true(launch_hub_verdict(r.h)->succeeded);
	run_free(&r);
}

static void stuck_and_recovered(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Running", 0 }, { 2, STUCK, "ErrImagePull", 0 });
	assert_int_equal(end_of(&r), END_STUCK);
	assert_string_equal(launch_hub_why(r.h)->stuck_reason, "ErrImagePull");
	assert_true(loop.now == 62);	/* the grace, from when it got stuck */
	assert_false(launch_hub_why(r.h)->stuck_permanent);
	run_free(&r);

	/* a cause that goes away within the grace costs nothing */
	defaults(&r);
	RUN(&r, { 1, JOB, "Running", 0 }, { 2, STUCK, "ErrImagePull", 0 }, { 30, STUCK, "", 0 },
	    { 100, JOB, "Succeeded", 0 }, { 101, DRAINED, NULL, 0 });
	assert_int_equal(end_of(&r), END_FINISHED);
	assert_non_null(strstr(loop.notes, "recovered"));
	run_free(&r);
}

static void rejected_for_good(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, CREATION, "FailedCreatePod", 1 }, { 500, JOB, "Succeeded", 0 });
	assert_int_equal(end_of(&r), END_STUCK);
	assert_true(launch_hub_why(r.h)->stuck_permanent);
	assert_true(loop.now == 1);	/* at once, not after the grace */
	assert_non_null(strstr(launch_hub_why(r.h)->stuck_msg, "retrying cannot help"));
	run_free(&r);
}

static void timeout(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	r.o.timeout_s = 100;
	RUN(&r, { 1, JOB, "Running", 0 }, { 500, JOB, "Succeeded", 0 });
	assert_int_equal(end_of(&r), END_TIMEOUT);
	assert_true(loop.now == 100);
	run_free(&r);
}

static void queued_time_is_not_run_time(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	r.o.timeout_s = 100;
	r.ctx.queue = "q";
	RUN(&r, { 0, QUEUED, NULL, 1 }, { 150, QUEUED, NULL, 0 }, { 500, JOB, "Succeeded", 0 });
	assert_int_equal(end_of(&r), END_TIMEOUT);
	assert_true(loop.now == 250);	/* 150 s queued, then the 100 s of --timeout */
	assert_true(launch_hub_queued_seconds(r.h) == 150);
	assert_non_null(strstr(loop.notes, "admitted by clusterQueue cq"));
	run_free(&r);
}

/* Cancelled while Kueue holds it: the ending says Queued, not Suspended. */
static void signal_while_queued(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	r.ctx.queue = "q";
	RUN(&r, { 0, QUEUED, NULL, 1 }, { 20, SIGNAL, NULL, SIGTERM }, { 30, QUEUED, NULL, 0 });
	assert_int_equal(end_of(&r), END_SIGNAL);
	assert_true(launch_hub_why(r.h)->queued);
	assert_string_equal(launch_hub_why(r.h)->queue_why, "waiting for quota");
	assert_non_null(strstr(loop.notes, "queued in ns/q: waiting for quota"));
	run_free(&r);
}

/* Kueue says it cannot admit it: the wait ends after the whole grace, and
 * a reason that clears within it restarts the grace when it comes back. */
static void hopeless_ends_after_the_grace(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	r.o.queue_hopeless_s = 60;
	r.ctx.queue = "q";
	RUN(&r, { 0, QUEUED, NULL, 2 }, { 30, QUEUED, NULL, 1 }, { 40, QUEUED, NULL, 2 },
	    { 500, QUEUED, NULL, 0 });
	assert_int_equal(end_of(&r), END_QUEUE_INADMISSIBLE);
	assert_true(loop.now == 100);	/* 40 + the whole 60 s, not 0 + 60 */
	assert_string_equal(launch_hub_why(r.h)->kueue_reason, "ExceedsMaxQuota");
	assert_non_null(strstr(loop.notes, "Kueue says it cannot admit it (ExceedsMaxQuota); "
			       "ending in 60s unless that changes"));
	run_free(&r);
}

/* --queue-hopeless-after 0: it waits anyway. */
static void hopeless_never_with_zero(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	r.ctx.queue = "q";
	RUN(&r, { 0, QUEUED, NULL, 2 }, { 500, QUEUED, NULL, 0 }, { 501, JOB, "Succeeded", 0 });
	assert_int_equal(end_of(&r), END_FINISHED);
	run_free(&r);
}

static void signal_while_running(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Running", 0 }, { 2, SIGNAL, NULL, SIGTERM }, { 3, JOB, "Succeeded", 0 });
	assert_int_equal(end_of(&r), END_SIGNAL);
	assert_int_equal(launch_hub_why(r.h)->signo, SIGTERM);
	run_free(&r);
}

/* A signal after the verdict: the logs are still read, the outcome stands. */
static void signal_during_the_drain(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Succeeded", 0 }, { 2, SIGNAL, NULL, SIGTERM }, { 3, DRAINED, NULL, 0 });
	assert_int_equal(end_of(&r), END_FINISHED);
	assert_true(loop.now == 3);	/* when the logs were in */
	assert_int_equal(launch_hub_why(r.h)->signo, SIGTERM);
	assert_true(launch_hub_verdict(r.h)->succeeded);
	assert_non_null(strstr(loop.notes, "reading the rest of the logs for up to 15s"));
	run_free(&r);
}

/* ... within the signal's grace: 15 s from the signal, not --log-drain's 30 s. */
static void signal_grace_bounds_the_drain(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Succeeded", 0 }, { 2, SIGNAL, NULL, SIGTERM });
	assert_int_equal(end_of(&r), END_FINISHED);
	assert_true(loop.now == 17);
	run_free(&r);
}

/* ... and a second signal stops it at once. */
static void second_signal_stops_the_drain(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Succeeded", 0 }, { 2, SIGNAL, NULL, SIGTERM }, { 4, SIGNAL, NULL, SIGINT },
	    { 9, DRAINED, NULL, 0 });
	assert_int_equal(end_of(&r), END_FINISHED);
	assert_true(loop.now == 4);
	assert_non_null(strstr(loop.notes, "SIGINT received again: not waiting for the rest of the logs"));
	run_free(&r);
}

/* The logs never come in: --log-drain bounds the wait, and says who. */
static void drain_bounded(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Succeeded", 0 });
	assert_int_equal(end_of(&r), END_FINISHED);
	assert_true(loop.now == 31);
	launch_hub_drain_report(r.h);
	assert_non_null(strstr(loop.notes, "the log of worker-0 is incomplete"));
	run_free(&r);
}

/*
 * A slow server still delivering the finished workers' logs: --log-drain is
 * a window without progress, not a deadline from the verdict (1,000 logs on
 * a loaded machine took longer than 30 s: 93-fault-matrix-scale-fast).
 */
static void drain_waits_while_logs_move(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Succeeded", 0 }, { 20, LOG_MOVED, NULL, 0 }, { 45, LOG_MOVED, NULL, 0 },
	    { 70, LOG_MOVED, NULL, 0 }, { 95, DRAINED, NULL, 0 });
	assert_int_equal(end_of(&r), END_FINISHED);
	assert_true(loop.now == 95);	/* every log in: not cut at 31 */
	launch_hub_drain_report(r.h);
	assert_null(launch_hub_logs_incomplete(r.h));
	run_free(&r);
}

/* ... and once the logs stop moving, the window ends the wait. */
static void drain_ends_when_logs_stop(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Succeeded", 0 }, { 20, LOG_MOVED, NULL, 0 }, { 40, LOG_MOVED, NULL, 0 });
	assert_int_equal(end_of(&r), END_FINISHED);
	/* the window began at 1 and found progress at 31, began again then,
	 * and found 40's at 61: the last window, 61-91, saw none */
	assert_true(loop.now == 91);
	launch_hub_drain_report(r.h);
	assert_non_null(strstr(loop.notes, "the log of worker-0 is incomplete"));
	run_free(&r);
}

/* A 410 mid-run: the watch lists again and delivers the same object; it
 * changes nothing (no new verdict, no drain), and the run goes on. */
static void relisted_after_410(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Running", 0 }, { 2, JOB_AGAIN, NULL, 0 }, { 3, JOB_AGAIN, NULL, 0 },
	    { 4, JOB, "Succeeded", 0 }, { 5, DRAINED, NULL, 0 });
	assert_int_equal(end_of(&r), END_FINISHED);
	assert_int_equal(wk.settled, 2);
	judged_once();
	run_free(&r);
}

static void watch_failed_for_good(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Running", 0 }, { 2, WATCH_FAILED, NULL, 0 }, { 3, JOB, "Succeeded", 0 });
	assert_int_equal(end_of(&r), END_API);
	assert_string_equal(launch_hub_why(r.h)->err.msg, "the watch ended for good");
	run_free(&r);
}

/* Nothing left that could end the wait (every watch gone): an API end. */
static void nothing_left(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	RUN(&r, { 1, JOB, "Running", 0 });
	assert_int_equal(end_of(&r), END_API);
	run_free(&r);
}

/* The ending's look: a job that finished meanwhile turns a timeout into
 * its true outcome; the look's object is judged once too. */
static void finished_meanwhile(void **state)
{
	struct run r;
	(void)state;
	defaults(&r);
	r.o.timeout_s = 10;
	RUN(&r, { 1, JOB, "Running", 0 });
	assert_int_equal(end_of(&r), END_TIMEOUT);
	loop.judged = 0;
	launch_hub_take(r.h, job_object("Succeeded"));
	assert_int_equal(loop.judged, 1);
	assert_int_equal(launch_hub_finished_meanwhile(r.h), 1);
	assert_int_equal(end_of(&r), END_FINISHED);
	assert_int_equal(launch_hub_finished_meanwhile(r.h), 0);
	run_free(&r);
}

/* Kueue holds it past --queue-timeout: the queue's own row. */
static void queued_too_long(void **state)
{
	struct run r;
	struct launch_outcome_end out;
	(void)state;
	defaults(&r);
	r.o.queue_timeout_s = 50;
	r.ctx.queue = "q";
	RUN(&r, { 0, QUEUED, NULL, 1 }, { 500, QUEUED, NULL, 0 });
	assert_int_equal(end_of(&r), END_QUEUE_TIMEOUT);
	decide(r.h, &out);
	assert_int_equal(out.row, LAUNCH_OUTCOME_QUEUE_TIMEOUT);
	assert_int_equal(out.exit_code, LAUNCH_EXIT_QUEUE_TIMEOUT);
	assert_string_equal(out.reason, "QueueTimeout");
	assert_int_equal(launch_outcome_exit(1, &out), 0);	/* --outcome outputs */
	run_free(&r);
}

/* The table decides state, exit code, reason and message from the cause:
 * the row's reason when the cause has none, the diagnosis where the row
 * puts it, "as last seen" when the job could not be read. */
static void the_table_decides(void **state)
{
	struct run r;
	struct launch_outcome_end out;
	(void)state;

	defaults(&r);
	r.o.timeout_s = 100;
	RUN(&r, { 1, JOB, "Running", 0 });
	decide(r.h, &out);
	assert_int_equal(out.row, LAUNCH_OUTCOME_TIMEOUT);
	assert_string_equal(out.state, "Timeout");
	assert_int_equal(out.exit_code, LAUNCH_EXIT_TIMEOUT);
	assert_string_equal(out.reason, "Timeout");
	assert_string_equal(out.message, "--timeout of 100s reached while the job was Running");
	assert_int_equal(launch_outcome_exit(0, &out), LAUNCH_EXIT_TIMEOUT);
	assert_int_equal(launch_outcome_exit(1, &out), 0);
	run_free(&r);

	defaults(&r);
	RUN(&r, { 1, JOB, "Running", 0 }, { 5, JOB, "Failed", 0 }, { 6, DRAINED, NULL, 0 });
	struct launch_cause c;
	launch_hub_cause(r.h, &c);
	launch_outcome_decide(&c, "worker-1 was OOMKilled", &out);
	assert_int_equal(out.row, LAUNCH_OUTCOME_FAILED);
	assert_int_equal(out.exit_code, LAUNCH_EXIT_JOB_FAILED);
	assert_true(!strncmp(out.message, "worker-1 was OOMKilled", 22));	/* the cause first */
	run_free(&r);

	defaults(&r);
	RUN(&r, { 1, JOB, "Running", 0 }, { 2, SIGNAL, NULL, SIGTERM });
	launch_hub_cause(r.h, &c);
	c.unread = 1;
	launch_outcome_decide(&c, "worker-0 exited with code 1", &out);
	assert_int_equal(out.exit_code, LAUNCH_EXIT_CANCELLED);
	assert_string_equal(out.message, "cancelled by signal 15 while the job was Running (as "
			    "last seen; its state could not be read since, so it was left as is); "
			    "a worker had already failed: worker-0 exited with code 1");
	run_free(&r);
}

/* The steps before the wait report errors; the table makes them outcomes. */
static void steps_report_errors(void **state)
{
	struct err e = ERR_INIT;
	struct launch_cause c;
	struct launch_outcome_end out;
	(void)state;

	err_set(&e, ERR_INPUT, "--identity: no task");
	launch_cause_of_err(&c, LAUNCH_OUTCOME_BAD_INPUT, &e);
	launch_outcome_decide(&c, "never shown", &out);
	reached[out.row]++;
	assert_int_equal(out.exit_code, LAUNCH_EXIT_BAD_INPUT);
	assert_string_equal(out.state, "Error");
	assert_string_equal(out.reason, "BadInput");
	assert_string_equal(out.message, "--identity: no task");
	assert_true(launch_outcome_def(out.row)->error_line);
	assert_int_equal(launch_outcome_exit(1, &out), LAUNCH_EXIT_BAD_INPUT);	/* not an ending */

	err_set(&e, ERR_NOTFOUND, "namespaces \"x\" not found");
	launch_cause_of_err(&c, LAUNCH_OUTCOME_API_ERROR, &e);
	launch_outcome_decide(&c, NULL, &out);
	reached[out.row]++;
	assert_int_equal(out.exit_code, LAUNCH_EXIT_API_ERROR);
	assert_string_equal(out.reason, err_code_name(ERR_NOTFOUND));
	assert_int_equal(launch_outcome_exit(1, &out), LAUNCH_EXIT_API_ERROR);

	launch_cause_set(&c, LAUNCH_OUTCOME_DRY_RUN, NULL, "accepted by the server (dryRun=All)");
	launch_outcome_decide(&c, NULL, &out);
	reached[out.row]++;
	assert_int_equal(out.exit_code, 0);
	assert_string_equal(out.state, "DryRun");
}

/* Last: every row of the outcome table was reached by some case above. */
static void every_outcome_row_reached(void **state)
{
	(void)state;
	for (int row = 0; row < LAUNCH_OUTCOME_ROWS; row++) {
		if (!reached[row])
			fail_msg("no case reaches the outcome row %s (exit %d): add one",
				 launch_outcome_def(row)->name, launch_outcome_def(row)->exit_code);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(succeeded),
		cmocka_unit_test(failed),
		cmocka_unit_test(deleted_by_someone),
		cmocka_unit_test(stuck_and_recovered),
		cmocka_unit_test(rejected_for_good),
		cmocka_unit_test(timeout),
		cmocka_unit_test(queued_time_is_not_run_time),
		cmocka_unit_test(signal_while_queued),
		cmocka_unit_test(hopeless_ends_after_the_grace),
		cmocka_unit_test(hopeless_never_with_zero),
		cmocka_unit_test(signal_while_running),
		cmocka_unit_test(signal_during_the_drain),
		cmocka_unit_test(signal_grace_bounds_the_drain),
		cmocka_unit_test(second_signal_stops_the_drain),
		cmocka_unit_test(drain_bounded),
		cmocka_unit_test(drain_waits_while_logs_move),
		cmocka_unit_test(drain_ends_when_logs_stop),
		cmocka_unit_test(relisted_after_410),
		cmocka_unit_test(watch_failed_for_good),
		cmocka_unit_test(nothing_left),
		cmocka_unit_test(finished_meanwhile),
		cmocka_unit_test(queued_too_long),
		cmocka_unit_test(the_table_decides),
		cmocka_unit_test(steps_report_errors),
		cmocka_unit_test(every_outcome_row_reached),	/* last */
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
