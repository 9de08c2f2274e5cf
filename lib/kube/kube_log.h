/*
 * kube_log.h - follow one container's log, line by line, from the loop.
 *
 * GET /api/v1/namespaces/{ns}/pods/{pod}/log?follow=true&container=...
 * (without follow=true when opts.once: the log as it is, for a container
 * that has already exited - same callbacks, the stream simply ends).
 * The body arrives in arbitrary chunks; kube_lines.h turns it into complete
 * lines (a line split across chunks is joined; a line longer than max_line
 * is cut there and marked, the rest of it skipped, so a 10 MB line costs
 * max_line bytes of memory). A final line without '\n' is delivered when
 * the stream ends.
 *
 * The stream is NOT re-opened automatically: when it ends the caller learns
 * why and decides (a container that exited ends its stream; a restarted pod
 * is a new stream, started by the caller when the pod watch says so; use
 * since_time to avoid repeating lines already shown).
 *
 * Ownership: `line` in on_line is borrowed for the call. The stream belongs
 * to the caller until on_end returns (then the loop frees it: do not stop
 * it afterwards) or until kube_log_stop() (then on_end is not called).
 */
#ifndef JAXJOB_KUBE_LOG_H
#define JAXJOB_KUBE_LOG_H

#include <stddef.h>

#include "err.h"
#include "kube_client.h"

#define KUBE_LOG_MAX_LINE (16 * 1024)

/* `line` is NUL-terminated, without its '\n' (and without a '\r' before it);
 * truncated: the line was longer than max_line and ends with a marker
 * " [... N bytes truncated]". */
typedef void kube_line_fn(void *ud, const char *line, size_t len, int truncated);

/*
 * The stream ended: e == NULL when the server ended it cleanly (container
 * finished), else why (HTTP 400 "container ... is waiting to start", 404
 * pod gone, connection dropped: ERR_NETWORK, ...). Retries of transient
 * errors (429/5xx/connect) happen before on_end, within the client's retry
 * window, as for any request.
 */
typedef void kube_log_end_fn(void *ud, const struct err *e);

struct kube_log_opts {
	const char *ns;
	const char *pod;
	const char *container;		/* NULL: the pod's only container */
	const char *since_time;		/* RFC 3339, or NULL */
	long tail_lines;		/* > 0: start with the last N lines; else all */
	int once;			/* read the log as it is and end (no follow=true):
					 * for a container that has already exited */
	int timestamps;			/* ask for the kubelet's timestamp of each line
					 * (timestamps=true); it is stripped before on_line,
					 * and kept for kube_log_lag() */
	size_t max_line;		/* 0 = KUBE_LOG_MAX_LINE */
	kube_line_fn *on_line;		/* required */
	kube_log_end_fn *on_end;	/* may be NULL */
	void *ud;
};

struct kube_log;

struct kube_log *kube_log_follow(struct kube_client *c, const struct kube_log_opts *o,
				 struct err *e);
/* Stop and free; on_end is not called. NULL is accepted. */
void kube_log_stop(struct kube_log *l);

/*
 * Hold every log stream of the client (hold = 1) or let them go on (0): a
 * held stream's data waits in its transfer, which curl pauses past a small
 * bound (HTTP/2 flow control, or the TCP window, stops the server), while
 * watches, requests, timers and signals go on. For a consumer that cannot
 * take lines now (launch: stdout not being read). The time held counts as
 * the loop's deaf time: a held stream is not quiet (kube_log_idle).
 */
void kube_log_hold_all(struct kube_client *c, int hold);

/* Seconds the stream has been quiet since it last delivered data, counting
 * only time the loop was listening (a slow stdout's blocked writes are not
 * the server's silence); -1 before it delivered any (still connecting,
 * retrying, or an empty log: only its end says more). */
double kube_log_idle(const struct kube_log *l);

/*
 * With opts.timestamps: how late the last line arrived - our clock minus the
 * kubelet's timestamp of it, in seconds (clock skew included) - or -1 when
 * unknown. Small: the stream keeps up with the container; large: it is
 * delivering a backlog (a slow path), and quiet does not mean done.
 */
double kube_log_lag(const struct kube_log *l);

/*
 * The worst the stream has fallen behind since it started, in seconds: the
 * largest lag of any of its lines, or the time the loop spent not listening
 * (blocked on a slow stdout) while it was open, whichever is larger. A
 * stream that was ever held back may still have lines in flight anywhere on
 * the path (kernel buffers, HTTP/2 windows, the API server's proxy), and a
 * test kubelet that stamps lines when it reads them hides that in the lag.
 */
double kube_log_backlog(const struct kube_log *l);

/*
 * End the stream now as if the server had: a final line without '\n' is
 * delivered, then as kube_log_stop() (on_end is not called). For a
 * container known to have exited whose stream has gone quiet: the kubelet
 * may take a second more to notice and send the end.
 */
void kube_log_cut(struct kube_log *l);

/*
 * The container has exited, so its log is final: finish the stream now
 * instead of waiting for the kubelet to notice and end it (about a second
 * on a real one). Reads the log's last `tail` lines once (timestamps=true,
 * no follow) and places the stream's last line in them (kube_log_place.h).
 * When that is certain, the lines after it go to on_line and the stream
 * ends as if the server had ended it cleanly: on_end(ud, NULL), then it is
 * freed (an unfinished partial line of the follow is dropped: the tail has
 * it whole). Anything less certain (no timestamps, the run reaches past the
 * tail, a different line, the read failed) leaves the stream as it is: the
 * caller waits for its end as before. Lines the follow delivers while the
 * read is in flight are accounted for: the placing happens when the tail
 * arrives.
 *
 * For a container known to have terminated only (pod status): a running
 * container's tail is not its end. Returns -1 (e set) when it cannot start:
 * the stream has no timestamps, or a completion is already in flight.
 * Should the follow end by itself while the read is in flight, its end
 * (on_end) waits for the read's answer: the read is not cancelled for it, as
 * an API server counts a cancelled read as an HTTP 500 (a caller starts the
 * read only when it will wait for its answer). Stopping the stream cancels it.
 */
int kube_log_complete(struct kube_log *l, long tail, struct err *e);

/*
 * Where a follow that is about to be stopped can be taken up again without
 * reading its log from the start (launch's --log-turn): a follow with
 * since_time = `since` (the second of its last line: a kubelet serves the
 * lines stamped at or after it, and keeps whole seconds of it) begins with
 * the `skip` lines of that second this stream has delivered, then goes on
 * where this one stood. 0 when it cannot say: no timestamps, nothing
 * delivered, or the stream began inside that second (tail_lines).
 */
#define KUBE_LOG_SINCE_MAX 32
int kube_log_resume_point(const struct kube_log *l, char since[KUBE_LOG_SINCE_MAX], long *skip);

/*
 * Called from on_line, with opts.timestamps: the kubelet's timestamp of the
 * line being delivered, in seconds since the epoch; 0 when it has none.
 */
double kube_log_line_time(const struct kube_log *l);
/* A kube_log_complete() or _until() read is in flight (its answer not in). */
int kube_log_completing(const struct kube_log *l);

/*
 * The same for a container still running that the caller leaves (a
 * survivor of a failed job): one read of the log since the second of the
 * stream's last line (sinceTime; the whole log if it delivered none), the
 * stream placed in it as above, the lines after it stamped up to `until`
 * (seconds since the epoch, the caller's clock: e.g. when it decided)
 * delivered, then the stream ends: on_end(ud, NULL) when they all were,
 * on_end(ud, e) saying why not (the read failed, the stream could not be
 * placed). Returns -1 (e set) when it cannot start, as kube_log_complete.
 */
int kube_log_complete_until(struct kube_log *l, double until, struct err *e);

#endif
