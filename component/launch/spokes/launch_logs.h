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
 *
 * Ownership: plain storage.
 */
#ifndef JAXJOB_LAUNCH_LOGS_H
#define JAXJOB_LAUNCH_LOGS_H

#include <stddef.h>

#include "launch_stdout.h"

struct launch_logstream {
	int index;		/* worker index (replica-index label) */
	int restarts;		/* restartCount of the container we follow */
	unsigned long printed;	/* lines printed from this container */
	unsigned long skip;	/* lines still to skip after a resume */
};

void launch_logstream_init(struct launch_logstream *s, int index, int restarts);

/* One complete line (without '\n'): printed with "[worker-N] " unless skipped. */
void launch_logstream_line(struct launch_logstream *s, const char *line, size_t len,
			   struct launch_stdout *out);

/* The follow dropped; the next follow starts at the log's beginning again. */
void launch_logstream_resume(struct launch_logstream *s);

#endif
