/*
 * launch_logs.h - turning worker log lines into `[worker-N] line` on stdout,
 * exactly once per line.
 *
 * One struct launch_logstream per followed container: a pod's worker index
 * and the restartCount of the container we follow. kube_log.h delivers
 * complete lines; they are queued with their prefix as whole lines
 * (launch_stdout.h), so lines of different workers interleave only at line
 * boundaries, and a stdout nobody reads never blocks the loop.
 *
 * Exactly once across a dropped follow: a log follow can end with an error
 * while the container still runs (API server restart, proxy timeout,
 * injected fault). We then follow the same container again from the start
 * of its log and skip as many lines as we already printed (`skip`). Counting
 * lines is exact where timestamps are not (sinceTime has one-second
 * resolution, and several lines share a second); the price is reading the
 * log again after a drop, which is rare. (A line cut in half by the drop is
 * printed as the part we had; the resumed stream's full copy is skipped.)
 *
 * A container restart (restartCount grows) is a new container with a new
 * log: a fresh stream struct, starting from its beginning, nothing skipped.
 * A kubelet serves the log of the pod's current container, so a follow
 * resumed from the log's start after a clean end can already read the next
 * container's log while the pod watch, which lags (seconds under load),
 * still shows the old one: skipping `printed` of its lines would lose them,
 * and reading it again when the pod update comes would print them twice.
 * The log's first line tells: the resumed follow's first line must be the
 * one this stream printed first, so it cannot be stamped (kubelet
 * timestamp) after every line printed; one that is, is a newer container's,
 * taken as such (launch_logstream_line returns LAUNCH_LINE_NEWER). A first
 * line stamped earlier than that (a rotated log whose older lines are gone)
 * is not a restart: the count is skipped as before.
 *
 * Ownership: plain storage.
 */
#ifndef JAXJOB_LAUNCH_LOGS_H
#define JAXJOB_LAUNCH_LOGS_H

#include <stddef.h>

#include "context/launch_stdout.h"

struct launch_logstream {
	int index;		/* worker index (replica-index label) */
	int restarts;		/* restartCount of the container we follow */
	int ahead;		/* restarts was counted from the log (a newer container's
				 * first line) before the pod watch said so */
	unsigned long printed;	/* lines printed from this container */
	unsigned long skip;	/* lines still to skip after a resume */
	int check_first;	/* a resume from the log's start: its first line is checked */
	double last_when;	/* kubelet timestamp of the last line printed, 0: none */
};

void launch_logstream_init(struct launch_logstream *s, int index, int restarts);

/*
 * One complete line (without '\n'), stamped `when` by the kubelet (seconds
 * since the epoch, 0: unknown): printed with "[worker-N] " unless skipped.
 * Returns LAUNCH_LINE_PRINTED when it was printed, with LAUNCH_LINE_NEWER when
 * it is the first line of a newer container than the stream printed from
 * (restarts counts one more, ahead is set, nothing of it is skipped).
 */
#define LAUNCH_LINE_PRINTED 1
#define LAUNCH_LINE_NEWER 2
int launch_logstream_line(struct launch_logstream *s, double when, const char *line, size_t len,
			  struct launch_stdout *out);

/* The follow dropped; the next follow starts at the log's beginning again. */
void launch_logstream_resume(struct launch_logstream *s);

/* The next follow starts at a second of the log (sinceTime) and repeats
 * `skip` lines printed (kube_log_resume_point). */
void launch_logstream_resume_since(struct launch_logstream *s, unsigned long skip);

#endif
