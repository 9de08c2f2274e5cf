/*
 * diagnose.c - see diagnose.h.
 *
 * Each worker (by replica index) keeps the last failure its pod showed, a
 * hint from its pod's reason or from events (evicted, preempted, image,
 * config, scheduling, deadline) and a byte ring of its last log lines. The
 * ring is the only per-line work: one or two memcpy calls; everything else
 * (splitting lines, picking the exception, looking for JAX's timeout texts)
 * happens once, in diag_result(), for the workers that failed.
 */
#include "diagnose.h"

#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "yj/jtree.h"

#define INDEX_MAX 100000	/* a replica index beyond this is not a worker we track */
#define OOM_NODES_MAX 8
#define DIAG_RING_FIRST 256	/* a ring's first allocation; it doubles up to ring_cap */

struct diag_worker {
	char *pod, *node;		/* NULL unknown (heap: 1,000 workers of 2 x 254 B arrays were 0.5 MB) */
	int restarts;
	int ran;			/* the container ran or exited at least once */
	int failed;			/* it failed, or cannot start */
	int past;			/* it failed once, and was restarted since */
	enum diag_category hint;	/* what the pod's reason or an event says */
	int exit_code, signal;		/* exit_code -1: never exited */
	/* what its failure says, NULL when nothing (most workers never fail:
	 * 360 B of arrays each were 0.35 MB at 1,000 workers), bounded as below */
	char *reason, *message;
	char *finished;			/* finishedAt, NULL unknown */
	char *ring;			/* the last log bytes, lines ended by '\n' */
	size_t size;			/* bytes allocated: grows to ring_cap, then wraps */
	size_t total;			/* bytes ever written to the ring */
};

struct diag {
	int last_lines;
	size_t ring_cap;
	struct diag_worker **w;		/* by replica index */
	int nw;
	char oom_nodes[OOM_NODES_MAX][254];	/* nodes with an OOMKilling event */
	int noom;
};

static const char *const category_names[] = {
	"", "oom", "evicted", "preempted", "image", "scheduling", "config", "application",
	"coordination", "deadline", "backoff", "unknown",
};

const char *diag_category_name(enum diag_category c)
{
	if ((unsigned)c >= sizeof(category_names) / sizeof(category_names[0]))
		return "unknown";
	return category_names[c];
}

struct diag *diag_new(int last_lines)
{
	struct diag *d = xcalloc(1, sizeof(*d));

	if (last_lines < 1)
		last_lines = 1;
	if (last_lines > DIAG_LAST_LINES_MAX)
		last_lines = DIAG_LAST_LINES_MAX;
	d->last_lines = last_lines;
	d->ring_cap = DIAG_RING_BYTES(last_lines);
	return d;
}

void diag_free(struct diag *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->nw; i++) {
		if (d->w[i]) {
			free(d->w[i]->ring);
			free(d->w[i]->pod);
			free(d->w[i]->node);
			free(d->w[i]->reason);
			free(d->w[i]->message);
			free(d->w[i]->finished);
		}
		free(d->w[i]);
	}
	free(d->w);
	free(d);
}

static struct diag_worker *worker(struct diag *d, int index)
{
	if (index < 0 || index >= INDEX_MAX)
		return NULL;
	if (index >= d->nw) {
		int n = d->nw ? d->nw : 8;
		while (n <= index)
			n *= 2;
		d->w = xrealloc(d->w, (size_t)n * sizeof(*d->w));
		memset(d->w + d->nw, 0, (size_t)(n - d->nw) * sizeof(*d->w));
		d->nw = n;
	}
	if (!d->w[index]) {
		d->w[index] = xcalloc(1, sizeof(**d->w));
		d->w[index]->exit_code = -1;
	}
	return d->w[index];
}

#define REASON_MAX 64		/* the bounds of a worker's words, with the NUL */
#define MESSAGE_MAX 256
#define FINISHED_MAX 40

/* *dst becomes src cut to size - 1 bytes, NULL when empty */
static void set(char **dst, size_t size, const char *src)
{
	size_t n = src ? strnlen(src, size - 1) : 0;

	if (*dst && strlen(*dst) == n && !memcmp(*dst, src, n))
		return;
	free(*dst);
	*dst = n ? xstrndup(src, n) : NULL;
}

static const char *txt(const char *s)
{
	return s ? s : "";
}

/* *dst becomes a copy of src (unchanged when equal: a pod's name and node
 * are said on every update) */
static void keep(char **dst, const char *src)
{
	if (*dst && !strcmp(*dst, src))
		return;
	free(*dst);
	*dst = xstrdup(src);
}

static int in_list(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

/* Waiting reasons of a container that cannot start (kubelet's words). */
static const char *const image_reasons[] = {
	"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull",
	"RegistryUnavailable", NULL,
};
static const char *const config_reasons[] = {
	"CreateContainerConfigError", "CreateContainerError", "RunContainerError", NULL,
};

/* ---- observations -------------------------------------------------------- */

/* A terminated container state (state.terminated, or lastState.terminated:
 * the JSON name of the API's LastTerminationState). */
static void terminated(struct diag_worker *w, const cJSON *t)
{
	int code = (int)jtree_get_int(t, "exitCode", 0);
	int sig = (int)jtree_get_int(t, "signal", 0);

	w->ran = 1;
	if (code == 0) {
		w->failed = 0;
		return;
	}
	/* a new failure (another restart or a later exit): it is the one to report */
	if (w->failed && w->exit_code == code &&
	    !strcmp(txt(w->finished), jtree_get_string(t, "finishedAt", "")))
		return;
	w->failed = 1;
	w->exit_code = code;
	/* the runtime's signal when it says one; else a shell's 128+N convention */
	w->signal = sig ? sig : code > 128 && code <= 128 + 64 ? code - 128 : 0;
	set(&w->reason, REASON_MAX, jtree_get_string(t, "reason", "Error"));
	set(&w->message, MESSAGE_MAX, jtree_get_string(t, "message", ""));
	set(&w->finished, FINISHED_MAX, jtree_get_string(t, "finishedAt", ""));
}

static const cJSON *container_status(const cJSON *pod, const char *container)
{
	const cJSON *list = jtree_get(pod, "status.containerStatuses"), *cs;

	cJSON_ArrayForEach(cs, list) {
		const char *n = jtree_get_string(cs, "name", NULL);
		if (container && n && strcmp(n, container) == 0)
			return cs;
	}
	return cJSON_GetArrayItem(list, 0);
}

/* A waiting container that cannot start: image or configuration. */
static void waiting(struct diag_worker *w, const cJSON *wt, const cJSON *last)
{
	const char *r = jtree_get_string(wt, "reason", NULL);

	if (in_list(r, image_reasons) || in_list(r, config_reasons)) {
		if (!w->failed || w->exit_code < 0) {
			w->failed = 1;
			w->hint = in_list(r, image_reasons) ? DIAG_IMAGE : DIAG_CONFIG;
			w->exit_code = -1;
			set(&w->reason, REASON_MAX, r);
			set(&w->message, MESSAGE_MAX, jtree_get_string(wt, "message", ""));
		}
	} else if (jtree_get(last, "terminated")) {
		/* CrashLoopBackOff and the like: the last run failed, the next waits */
		terminated(w, jtree_get(last, "terminated"));
	}
}

/*
 * Running again after a restart: not failed now, but it did. The run that
 * ended is in lastState; a pod first seen (or seen again) already running
 * its next container - a watch that trailed, a list at the verdict - shows
 * that restart only there, and a job that failed on its backoff limit names
 * it (63-launch-failure's bo, with the pods' watch behind).
 */
static void running(struct diag_worker *w, const cJSON *last)
{
	if (last && strcmp(txt(w->finished), jtree_get_string(last, "finishedAt", "")))
		terminated(w, last);
	w->past |= w->failed;
	w->ran = 1;
	w->failed = 0;
}

/* DisruptionTarget (Kubernetes 1.26+): why the pod is being taken away. */
static void disruption(struct diag_worker *w, const cJSON *pod)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, jtree_get(pod, "status.conditions")) {
		const char *t = jtree_get_string(c, "type", "");
		const char *s = jtree_get_string(c, "status", "");
		const char *r = jtree_get_string(c, "reason", "");
		if (!strcmp(t, "DisruptionTarget") && !strcmp(s, "True")) {
			if (!strcmp(r, "PreemptionByScheduler") ||
			    !strcmp(r, "PreemptionByKubeScheduler"))
				w->hint = DIAG_PREEMPTED;
			else if (!strcmp(r, "TerminationByKubelet") ||
				 !strcmp(r, "EvictionByEvictionAPI") ||
				 !strcmp(r, "DeletionByTaintManager"))
				w->hint = DIAG_EVICTED;
			if (!w->message)
				set(&w->message, MESSAGE_MAX, jtree_get_string(c, "message", ""));
		}
		if (!strcmp(t, "PodScheduled") && !strcmp(s, "False") &&
		    !strcmp(r, "Unschedulable") && !w->ran) {
			w->hint = DIAG_SCHEDULING;
			set(&w->reason, REASON_MAX, "Unschedulable");
			set(&w->message, MESSAGE_MAX, jtree_get_string(c, "message", ""));
		}
	}
}

void diag_pod(struct diag *d, int index, const cJSON *pod, const char *container)
{
	struct diag_worker *w = d ? worker(d, index) : NULL;
	const cJSON *cs = container_status(pod, container);
	const cJSON *state = jtree_get(cs, "state"), *last = jtree_get(cs, "lastState");
	const char *preason = jtree_get_string(pod, "status.reason", NULL);
	const char *phase = jtree_get_string(pod, "status.phase", "");

	if (!w)
		return;
	/* a pod not yet scheduled has no node: keep what was known */
	if (jtree_get_string(pod, "metadata.name", NULL))
		keep(&w->pod, jtree_get_string(pod, "metadata.name", NULL));
	if (jtree_get_string(pod, "spec.nodeName", NULL))
		keep(&w->node, jtree_get_string(pod, "spec.nodeName", NULL));
	w->restarts = (int)jtree_get_int(cs, "restartCount", w->restarts);
	if (jtree_get(state, "terminated"))
		terminated(w, jtree_get(state, "terminated"));
	else if (jtree_get(state, "running"))
		running(w, jtree_get(last, "terminated"));
	else if (jtree_get(state, "waiting"))
		waiting(w, jtree_get(state, "waiting"), last);
	disruption(w, pod);
	if (preason && (!strcmp(preason, "Evicted") || !strcmp(preason, "DeadlineExceeded") ||
			!strcmp(preason, "Preempting"))) {
		w->hint = !strcmp(preason, "Evicted") ? DIAG_EVICTED :
			  !strcmp(preason, "Preempting") ? DIAG_PREEMPTED : DIAG_DEADLINE;
		set(&w->reason, REASON_MAX, preason);
		set(&w->message, MESSAGE_MAX, jtree_get_string(pod, "status.message", ""));
		if (!strcmp(phase, "Failed") || w->hint == DIAG_PREEMPTED)
			w->failed = 1;
	} else if (!strcmp(phase, "Failed") && !w->failed) {
		w->failed = 1;
		set(&w->reason, REASON_MAX, preason ? preason : "Failed");
	}
	if (w->hint == DIAG_SCHEDULING && !w->ran)
		w->failed = 1;
}

static struct diag_worker *worker_of_pod(struct diag *d, const char *name)
{
	for (int i = 0; name && i < d->nw; i++)
		if (d->w[i] && d->w[i]->pod && !strcmp(d->w[i]->pod, name))
			return d->w[i];
	return NULL;
}

void diag_event(struct diag *d, const cJSON *ev)
{
	const char *kind = jtree_get_string(ev, "involvedObject.kind", "");
	const char *name = jtree_get_string(ev, "involvedObject.name", NULL);
	const char *reason = jtree_get_string(ev, "reason", "");
	const char *msg = jtree_get_string(ev, "message", "");
	struct diag_worker *w;
	enum diag_category hint = DIAG_NONE;

	if (!d)
		return;
	if (!strcmp(kind, "Node") && !strcmp(reason, "OOMKilling") && name) {
		if (d->noom < OOM_NODES_MAX)
			snprintf(d->oom_nodes[d->noom++], sizeof(d->oom_nodes[0]), "%s", name);
		return;
	}
	w = strcmp(kind, "Pod") ? NULL : worker_of_pod(d, name);
	if (!w)
		return;
	if (!strcmp(reason, "Evicted"))
		hint = DIAG_EVICTED;
	else if (!strcmp(reason, "Preempted") || !strcmp(reason, "Preempting"))
		hint = DIAG_PREEMPTED;
	else if (!strcmp(reason, "FailedMount") || !strcmp(reason, "FailedAttachVolume") ||
		 (!strcmp(reason, "Failed") && strstr(msg, "not found") &&
		  (strstr(msg, "secret") || strstr(msg, "configmap"))))
		hint = DIAG_CONFIG;
	else if (!strcmp(reason, "FailedScheduling"))
		hint = DIAG_SCHEDULING;
	if (hint == DIAG_NONE)
		return;
	/* a container that runs or ran is not stopped by a mount or schedule
	 * problem; an eviction or preemption ends it either way */
	if (w->ran && (hint == DIAG_CONFIG || hint == DIAG_SCHEDULING))
		return;
	/* the pod's own words (CreateContainerConfigError, OOMKilled) say more
	 * than the event's "Failed"; an eviction or preemption overrides them */
	if (!w->failed || hint == DIAG_EVICTED || hint == DIAG_PREEMPTED) {
		set(&w->reason, REASON_MAX, reason);
		set(&w->message, MESSAGE_MAX, msg);
	}
	if (w->hint == DIAG_NONE || hint == DIAG_EVICTED || hint == DIAG_PREEMPTED)
		w->hint = hint;
	w->failed = 1;
}

/* ---- the log ring: the per-line path -------------------------------------- */

void diag_container(struct diag *d, int index)
{
	struct diag_worker *w = d ? worker(d, index) : NULL;

	if (w)
		w->total = 0;
}

static void ring_put(struct diag_worker *w, size_t cap, const char *s, size_t n)
{
	size_t pos = w->total % cap, first = n < cap - pos ? n : cap - pos;

	memcpy(w->ring + pos, s, first);
	memcpy(w->ring, s + first, n - first);
	w->total += n;
}

void diag_line(struct diag *d, int index, const char *line, size_t len)
{
	struct diag_worker *w;

	if (!d)
		return;
	w = index >= 0 && index < d->nw ? d->w[index] : NULL;
	if (!w && !(w = worker(d, index)))
		return;
	/* one long line must not push every other line out: a quarter at most */
	if (len > d->ring_cap / 4)
		len = d->ring_cap / 4;
	/*
	 * The ring grows as the worker writes, and wraps only at ring_cap: a
	 * worker that printed a few short lines holds a few hundred bytes, not
	 * ring_cap (at 1,000 workers that was 5 MB of a 20 MB run, issue 32).
	 * Until it wraps its bytes are [0, total), which is what ring_lines
	 * reads while total < ring_cap.
	 */
	if (w->size < d->ring_cap && w->total + len + 1 > w->size) {
		size_t s = w->size ? w->size : DIAG_RING_FIRST;
		while (s < w->total + len + 1 && s < d->ring_cap)
			s *= 2;
		w->size = s < d->ring_cap ? s : d->ring_cap;
		w->ring = xrealloc(w->ring, w->size);
	}
	ring_put(w, d->ring_cap, line, len);
	ring_put(w, d->ring_cap, "\n", 1);
}

/* The ring's whole lines, oldest first, into `text` (split at '\n'). */
static int ring_lines(const struct diag *d, const struct diag_worker *w, struct buf *text,
		      const char ***lines, size_t **lens)
{
	size_t cap = d->ring_cap, n = w->total < cap ? w->total : cap;
	size_t start = w->total < cap ? 0 : w->total % cap, i = 0;
	int count = 0, max = 0;

	buf_reset(text);
	if (!w->ring || !w->total)
		return 0;
	buf_add(text, w->ring + start, n - (w->total < cap ? 0 : start));
	if (w->total >= cap)
		buf_add(text, w->ring, start);
	if (w->total > cap && w->ring[(start + cap - 1) % cap] != '\n') {
		/* the oldest line lost its beginning */
		const char *nl = memchr(text->data, '\n', text->len);
		i = nl ? (size_t)(nl - text->data) + 1 : text->len;
	}
	for (size_t j = i; j < text->len; j++)
		if (text->data[j] == '\n')
			max++;
	*lines = xcalloc((size_t)max + 1, sizeof(**lines));
	*lens = xcalloc((size_t)max + 1, sizeof(**lens));
	while (i < text->len && count < max) {
		const char *nl = memchr(text->data + i, '\n', text->len - i);
		(*lines)[count] = text->data + i;
		(*lens)[count++] = (size_t)(nl - (text->data + i));
		i = (size_t)(nl - text->data) + 1;
	}
	return count;
}

/* ---- reading the lines ------------------------------------------------------ */

static int has(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);

	for (size_t i = 0; i + k <= n; i++)
		if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0)
			return 1;
	return 0;
}

/*
 * JAX's distributed runtime (the XLA coordination service) fails a task
 * whose peers are gone with these texts, at openxla/xla a4771e3
 * xla/tsl/distributed_runtime/coordination/coordination_service.cc:
 *   CheckHeartbeatTimeout(): "Task ... heartbeat timeout. This indicates that
 *     the remote task has failed, got preempted, or crashed unexpectedly" and
 *     "The following tasks are unhealthy (stopped sending heartbeats)";
 *   CheckBarrierTimeout(): "Barrier timed out. Id: ..." (DeadlineExceededError);
 *   RegisterTaskAsync(): "Coordination service has stopped. RegisterTask()".
 * A surviving process then dies on its own with "Terminating process because
 * the JAX distributed service detected fatal errors" followed by either of
 * those or, when the coordinator (process 0) died, "Failed to send RPC to
 * coordination service" (jax-ml/jax cec06d1 docs/fault_tolerance.rst:75-79
 * and :110-114, with "Polled an error from coordination service" before).
 * jax.distributed.initialize() (jax/_src/distributed.py:165-173) connects
 * with init_timeout and raises the status as JaxRuntimeError, whose text
 * starts with the code: "DEADLINE_EXCEEDED: Barrier timed out" is what
 * jax/experimental/array_serialization/serialization.py:254 and
 * jax/_src/test_multiprocess.py:457 match on.
 */
int diag_coordination_text(const char *line, size_t len)
{
	static const char *const texts[] = {
		"heartbeat timeout", "stopped sending heartbeats", "Barrier timed out",
		"Coordination service has stopped", "DEADLINE_EXCEEDED",
		"JAX distributed service detected fatal errors",
		"Failed to send RPC to coordination service",
		"Polled an error from coordination service",
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (has(line, len, texts[i]))
			return 1;
	return 0;
}

/* "ValueError: ...", "jax.errors.JaxRuntimeError: ...", "KeyboardInterrupt". */
static int exception_shaped(const char *s, size_t n)
{
	static const char *const ends[] = { "Error", "Exception", "Exit", "Interrupt" };
	size_t k = 0;

	while (k < n && (s[k] == '_' || s[k] == '.' || (s[k] >= 'a' && s[k] <= 'z') ||
			 (s[k] >= 'A' && s[k] <= 'Z') || (k && s[k] >= '0' && s[k] <= '9')))
		k++;
	if (!k || (k < n && s[k] != ':'))
		return 0;
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		size_t e = strlen(ends[i]);
		if (k >= e && memcmp(s + k - e, ends[i], e) == 0)
			return 1;
	}
	return 0;
}

/*
 * CPython prints a traceback as "Traceback (most recent call last):", the
 * frames indented, then the exception at column 0 ("ValueError: bad"). With
 * chained exceptions the last traceback is the one that ended the process.
 * When the header scrolled out of the ring, the last exception-shaped line.
 */
const char *diag_exception(const char *const *lines, const size_t *lens, size_t n, size_t *len)
{
	static const char header[] = "Traceback (most recent call last):";
	size_t hl = sizeof(header) - 1;

	for (size_t i = n; i-- > 0;) {
		if (lens[i] < hl || memcmp(lines[i], header, hl) != 0)
			continue;
		for (size_t j = i + 1; j < n; j++)
			if (lens[j] && lines[j][0] != ' ' && lines[j][0] != '\t') {
				*len = lens[j];
				return lines[j];
			}
		break;
	}
	for (size_t i = n; i-- > 0;)
		if (exception_shaped(lines[i], lens[i])) {
			*len = lens[i];
			return lines[i];
		}
	return NULL;
}

/* ---- the result ----------------------------------------------------------------- */

struct candidate {
	int index;
	const struct diag_worker *w;
	int coordination;	/* its lines name a coordination timeout */
};

static int candidate_cmp(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	int xt = x->w->finished != NULL, yt = y->w->finished != NULL, c;

	if (xt != yt)
		return yt - xt;	/* dated failures first */
	if (xt && (c = strcmp(x->w->finished, y->w->finished)) != 0)
		return c;
	if (x->coordination != y->coordination)	/* a tie: the victim is not the cause */
		return x->coordination - y->coordination;
	/* not the order they were seen in: of two workers failing alike (an
	 * image no registry has) that is the kubelets' order, not the job's */
	return x->index - y->index;
}

static int any_coordination(const char *const *lines, const size_t *lens, int n)
{
	for (int i = 0; i < n; i++)
		if (diag_coordination_text(lines[i], lens[i]))
			return 1;
	return 0;
}

/* Worker i as a candidate: its lines name a coordination timeout? */
static int coordination_of(const struct diag *d, const struct diag_worker *w, struct buf *text)
{
	const char **lines = NULL;
	size_t *lens = NULL;
	int k = ring_lines(d, w, text, &lines, &lens);
	int c = any_coordination(lines, lens, k);

	free(lines);
	free(lens);
	return c;
}

int diag_first_of(const struct diag *d, const int *index, int n)
{
	static const struct diag_worker unseen = { .exit_code = -1 };
	struct candidate best = { -1, NULL, 0 };
	struct buf text = BUF_INIT;

	for (int i = 0; i < n; i++) {
		struct candidate c = { index[i], &unseen, 0 };
		if (d && index[i] >= 0 && index[i] < d->nw && d->w[index[i]]) {
			c.w = d->w[index[i]];
			c.coordination = coordination_of(d, c.w, &text);
		}
		if (!best.w || candidate_cmp(&c, &best) < 0)
			best = c;
	}
	buf_free(&text);
	return best.index;
}

static enum diag_category category_of(const struct diag *d, const struct diag_worker *w,
				      int coordination)
{
	if (w->hint == DIAG_EVICTED || w->hint == DIAG_PREEMPTED)
		return w->hint;
	if (!strcmp(txt(w->reason), "OOMKilled"))
		return DIAG_OOM;
	for (int i = 0; w->exit_code == 137 && i < d->noom; i++)
		if (w->node && !strcmp(d->oom_nodes[i], w->node))
			return DIAG_OOM;
	if (w->hint != DIAG_NONE)
		return w->hint;
	if (w->exit_code > 0)
		return coordination ? DIAG_COORDINATION : DIAG_APPLICATION;
	return DIAG_UNKNOWN;
}

static char *dup_or_null(const char *s)
{
	return s && *s ? xstrdup(s) : NULL;
}

/* The job's own words for a deadline or a backoff limit (training operator
 * v1: "...active longer than specified deadline" / "...reached the
 * specified backoff limit"; batch/v1 Job and JobSet: DeadlineExceeded,
 * BackoffLimitExceeded). */
static enum diag_category job_category(const char *msg)
{
	if (!msg)
		return DIAG_NONE;
	if (strstr(msg, "deadline") || strstr(msg, "DeadlineExceeded"))
		return DIAG_DEADLINE;
	if (strstr(msg, "backoff limit") || strstr(msg, "BackoffLimitExceeded"))
		return DIAG_BACKOFF;
	return DIAG_NONE;
}

static void fill_lines(struct diag_failure *f, int last, const char *const *lines,
		       const size_t *lens, int n)
{
	int from = n > last ? n - last : 0;

	f->nlines = n - from;
	f->lines = xcalloc((size_t)f->nlines + 1, sizeof(*f->lines));
	for (int i = from; i < n; i++)
		f->lines[i - from] = xstrndup(lines[i], lens[i]);
}

static void fill_first(const struct diag *d, const struct candidate *c, struct diag_failure *f)
{
	const struct diag_worker *w = c->w;
	struct buf text = BUF_INIT;
	const char **lines = NULL;
	size_t *lens = NULL, elen = 0;
	int n = ring_lines(d, w, &text, &lines, &lens);
	const char *ex = n ? diag_exception(lines, lens, (size_t)n, &elen) : NULL;

	f->index = c->index;
	f->category = category_of(d, w, c->coordination);
	f->pod = xstrdup(w->pod ? w->pod : "");
	f->node = dup_or_null(w->node);
	f->exit_code = w->exit_code;
	f->signal = w->signal;
	f->reason = xstrdup(w->reason ? w->reason : "Failed");
	f->message = dup_or_null(w->message);
	f->finished_at = dup_or_null(w->finished);
	f->restarts = w->restarts;
	f->exception = ex ? xstrndup(ex, elen) : NULL;
	fill_lines(f, d->last_lines, lines, lens, n);
	free(lines);
	free(lens);
	buf_free(&text);
}

int diag_result(const struct diag *d, const char *job_message, struct diag_failure *f)
{
	struct candidate *c = xcalloc((size_t)d->nw + 1, sizeof(*c));
	struct buf text = BUF_INIT;
	enum diag_category jc = job_category(job_message);
	int n = 0;

	memset(f, 0, sizeof(*f));
	f->index = -1;
	f->exit_code = -1;
	/* a job that failed on its deadline or backoff limit while its workers
	 * were restarting: the workers that failed before are the cause */
	int past = jc != DIAG_NONE;
	for (int i = 0; past && i < d->nw; i++)
		if (d->w[i] && d->w[i]->failed)
			past = 0;
	for (int i = 0; i < d->nw; i++) {
		if (!d->w[i] || !(d->w[i]->failed || (past && d->w[i]->past)))
			continue;
		c[n].index = i;
		c[n].w = d->w[i];
		c[n++].coordination = coordination_of(d, d->w[i], &text);
	}
	buf_free(&text);
	qsort(c, (size_t)n, sizeof(*c), candidate_cmp);
	if (n)
		fill_first(d, &c[0], f);
	f->collateral = xcalloc((size_t)n + 1, sizeof(*f->collateral));
	for (int i = 1; i < n; i++) {
		struct diag_collateral *o = &f->collateral[f->ncollateral++];
		o->index = c[i].index;
		o->pod = xstrdup(c[i].w->pod ? c[i].w->pod : "");
		o->reason = xstrdup(c[i].w->reason ? c[i].w->reason : "Failed");
		o->finished_at = dup_or_null(c[i].w->finished);
		o->exit_code = c[i].w->exit_code;
	}
	free(c);
	/* the deadline ended the workers, unless one had already failed on its
	 * own (an exception); a backoff limit only when nothing says more */
	if (jc == DIAG_DEADLINE && (!n || !f->exception))
		f->category = DIAG_DEADLINE;
	else if (jc == DIAG_BACKOFF && (!n || past || f->category == DIAG_UNKNOWN))
		f->category = DIAG_BACKOFF;
	if (!n && jc == DIAG_NONE)
		return 0;
	if (!f->reason)
		f->reason = xstrdup(jc == DIAG_DEADLINE ? "DeadlineExceeded" : "BackoffLimitExceeded");
	return 1;
}

void diag_failure_free(struct diag_failure *f)
{
	free(f->pod);
	free(f->node);
	free(f->reason);
	free(f->message);
	free(f->finished_at);
	free(f->exception);
	for (int i = 0; i < f->nlines; i++)
		free(f->lines[i]);
	free(f->lines);
	for (int i = 0; i < f->ncollateral; i++) {
		free(f->collateral[i].pod);
		free(f->collateral[i].reason);
		free(f->collateral[i].finished_at);
	}
	free(f->collateral);
	memset(f, 0, sizeof(*f));
}

/* ---- words ---------------------------------------------------------------------- */

void diag_headline(const struct diag_failure *f, struct buf *out)
{
	if (f->category == DIAG_NONE)
		return;
	if (f->index < 0) {	/* the job's own limit, no worker to name */
		buf_adds(out, f->category == DIAG_DEADLINE ? "the job ran past its deadline "
			 "(activeDeadlineSeconds)" : f->category == DIAG_BACKOFF ?
			 "the job reached its backoff limit (backoffLimit)" : f->reason);
		return;
	}
	buf_addf(out, "worker-%d %s", f->index, f->reason);
	if (f->exit_code >= 0)
		buf_addf(out, " (exit %d)", f->exit_code);
	if (f->node)
		buf_addf(out, " on %s", f->node);
	/* "2026-11-26T12:01:07Z": the time of day is what a reader matches in logs */
	if (f->finished_at && strlen(f->finished_at) >= 19)
		buf_addf(out, " at %.8s", f->finished_at + 11);
	if (f->exception)
		buf_addf(out, ": %.300s", f->exception);
	else if (f->exit_code < 0 && f->message)
		buf_addf(out, ": %.300s", f->message);
	/* after it in time; a failure without a time (cannot start) has company instead */
	if (f->ncollateral)
		buf_addf(out, f->finished_at ? "; %d worker%s failed after it" :
			 "; %d more worker%s failing", f->ncollateral, f->ncollateral > 1 ? "s" : "");
}

static void add_str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static void add_int_or_null(cJSON *o, const char *k, int v, int known)
{
	if (known)
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

cJSON *diag_failure_json(const struct diag_failure *f)
{
	cJSON *o = cJSON_CreateObject(), *a;

	if (f->category == DIAG_NONE)
		return o;
	add_int_or_null(o, "worker", f->index, f->index >= 0);
	add_str_or_null(o, "pod", f->pod);
	add_str_or_null(o, "node", f->node);
	add_int_or_null(o, "exit_code", f->exit_code, f->exit_code >= 0);
	add_int_or_null(o, "signal", f->signal, f->signal > 0);
	add_str_or_null(o, "reason", f->reason);
	cJSON_AddStringToObject(o, "category", diag_category_name(f->category));
	add_str_or_null(o, "finished_at", f->finished_at);
	add_str_or_null(o, "exception", f->exception);
	add_str_or_null(o, "message", f->message);
	cJSON_AddNumberToObject(o, "restarts", f->restarts);
	a = cJSON_AddArrayToObject(o, "last_lines");
	for (int i = 0; i < f->nlines; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(f->lines[i]));
	a = cJSON_AddArrayToObject(o, "collateral");
	for (int i = 0; i < f->ncollateral; i++) {
		const struct diag_collateral *c = &f->collateral[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "worker", c->index);
		add_str_or_null(x, "pod", c->pod);
		add_int_or_null(x, "exit_code", c->exit_code, c->exit_code >= 0);
		add_str_or_null(x, "reason", c->reason);
		add_str_or_null(x, "finished_at", c->finished_at);
		cJSON_AddItemToArray(a, x);
	}
	return o;
}
