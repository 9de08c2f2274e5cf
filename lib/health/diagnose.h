/*
 * diagnose.h - why a training job failed: the first failing worker, a
 * category, the last lines it wrote and the workers that failed after it.
 *
 * In a distributed JAX job one worker's failure makes the others fail
 * seconds later (the peer is gone; the coordination service's barrier or
 * heartbeat times out), so the first failure is the cause and the rest is
 * noise. This module is fed what a launch already observes - worker pods as
 * the pod watch delivers them, events, each worker's log lines - and turns
 * it into one struct diag_failure. It knows no engine and never prints.
 *
 * Observations:
 *   diag_pod()      a worker pod object (containerStatuses state.terminated,
 *                   lastState.terminated, waiting reasons, status.reason
 *                   Evicted/DeadlineExceeded, the DisruptionTarget condition,
 *                   PodScheduled=False, spec.nodeName)
 *   diag_event()    a core/v1 Event (Evicted, Preempted, FailedScheduling,
 *                   FailedMount, Failed "secret ... not found", OOMKilling)
 *   diag_container()  worker i's log restarts from a new container
 *   diag_line()     one log line of worker i (the hot path: a copy into a
 *                   bounded byte ring, nothing else)
 *
 * The first failing worker is the one whose failure is earliest by its
 * container's finishedAt (RFC 3339 in UTC, compared as text: the API server
 * writes one format); ties and failures without a time go by index, not by
 * the order they were seen in (of two workers that cannot pull one image,
 * that is the kubelets' order), a worker whose lines name a coordination
 * timeout after one whose lines do not. diag_first_of() is that rule for
 * whoever else names a worker (the launcher's stuck message), so the
 * message and the failure record name the same one. Its category, most
 * specific first:
 * evicted, preempted, oom, image, config, scheduling, deadline, then for a
 * non-zero exit coordination (the log names a JAX distributed-runtime
 * timeout, diag_coordination_text()) or application, then backoff (the
 * job's message says so and nothing more specific is known), else unknown.
 *
 * Memory: one byte ring per worker that wrote a line, growing with what it
 * wrote up to DIAG_RING_BYTES(n) for n last lines (a worker that printed a
 * few short lines holds a few hundred bytes), plus a few hundred bytes of
 * fixed fields per worker seen: at most about 6 MB at 1,000 chatty workers
 * with the default 20 lines.
 *
 * Ownership: struct diag owns copies of everything it keeps; the caller
 * frees it with diag_free(). diag_result() fills a struct diag_failure that
 * owns its strings; free it with diag_failure_free().
 */
#ifndef JAXJOB_DIAGNOSE_H
#define JAXJOB_DIAGNOSE_H

#include <stddef.h>

#include <cJSON.h>

#include "buf.h"

enum diag_category {
	DIAG_NONE = 0,		/* nothing failed */
	DIAG_OOM,
	DIAG_EVICTED,
	DIAG_PREEMPTED,
	DIAG_IMAGE,
	DIAG_SCHEDULING,
	DIAG_CONFIG,
	DIAG_APPLICATION,
	DIAG_COORDINATION,
	DIAG_DEADLINE,
	DIAG_BACKOFF,
	DIAG_UNKNOWN,
};

/* The category's word in outputs: "oom", "evicted", ...; "" for DIAG_NONE. */
const char *diag_category_name(enum diag_category c);

#define DIAG_LAST_LINES_DEFAULT 20
#define DIAG_LAST_LINES_MAX 500
/* Ring bytes kept per worker for n last lines: room for lines of ~256
 * bytes, at least 4 KiB so a traceback above a few short lines still fits,
 * at most 32 KiB so that memory stays bounded at 1,000 workers (32 MB) even
 * with many lines asked for: then fewer, longer lines may be all it has. */
#define DIAG_RING_BYTES(n) ((n) * 256 < 4096 ? 4096 : (n) * 256 > 32768 ? 32768 : \
			    (size_t)(n) * 256)

struct diag;

/* `last_lines`: how many lines of the failing worker to report (1..500).
 * The observation functions accept d == NULL (no diagnosis) and do nothing. */
struct diag *diag_new(int last_lines);
void diag_free(struct diag *d);

/*
 * A worker pod of replica index `index` (>= 0) as last seen; `container`
 * names the worker container (else the first status is used).
 */
void diag_pod(struct diag *d, int index, const cJSON *pod, const char *container);

/* A core/v1 Event about a pod (or, for OOMKilling, a node). */
void diag_event(struct diag *d, const cJSON *ev);

/* Worker `index`'s log starts again from a new container's first line. */
void diag_container(struct diag *d, int index);

/* One log line of worker `index` (without '\n'): kept in its ring. */
void diag_line(struct diag *d, int index, const char *line, size_t len);

/* Does `line` carry one of JAX's distributed-runtime timeout texts? */
int diag_coordination_text(const char *line, size_t len);

/* The exception line of the last Python traceback in lines[0..n), or NULL. */
const char *diag_exception(const char *const *lines, const size_t *lens, size_t n,
			   size_t *len);

struct diag_collateral {
	int index;
	char *pod, *reason, *finished_at;	/* finished_at NULL when unknown */
	int exit_code;				/* -1: none */
};

struct diag_failure {
	enum diag_category category;
	int index;
	char *pod, *node;		/* node NULL when unscheduled */
	int exit_code;			/* -1: the container never exited */
	int signal;			/* 0: none known */
	char *reason;			/* OOMKilled, Error, Evicted, ErrImagePull, ... */
	char *message;			/* the pod's or container's message, or NULL */
	char *finished_at;		/* RFC 3339, or NULL */
	int restarts;			/* restartCount of the container */
	char *exception;		/* the Python exception line, or NULL */
	char **lines;			/* the last lines before it ended, oldest first */
	int nlines;
	struct diag_collateral *collateral;	/* failed after it, in order */
	int ncollateral;
};

/*
 * The diagnosis of a job that did not succeed: 1 with `f` filled when a
 * worker failed or cannot start, or the job's reason/message name a
 * deadline or backoff limit; 0 (f->category DIAG_NONE) when nothing is
 * known. `job_message` is the job's failure condition message (may be NULL).
 */
int diag_result(const struct diag *d, const char *job_message, struct diag_failure *f);
void diag_failure_free(struct diag_failure *f);

/*
 * Of workers index[0..n), the one diag_result() would name first (the
 * order above; a worker the diagnosis has not seen fail counts as failed
 * without a time). -1 when n is 0. `d` may be NULL: then the lowest index.
 */
int diag_first_of(const struct diag *d, const int *index, int n);

/*
 * One line that leads with the cause: "worker-2 OOMKilled (exit 137) on
 * node-a at 12:01:07; 3 workers failed after it".
 */
void diag_headline(const struct diag_failure *f, struct buf *out);

/* The failure as a JSON object (worker, pod, node, exit_code, signal,
 * reason, category, finished_at, exception, last_lines, collateral, ...);
 * the caller owns it. */
cJSON *diag_failure_json(const struct diag_failure *f);

#endif
