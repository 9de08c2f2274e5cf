/*
 * launch_logs.h - turning worker log streams into `[worker-N] line` on
 * stdout, exactly once per line.
 *
 * One struct launch_logstream per followed container (pod + restart count).
 * Bytes arrive in arbitrary chunks from the log follow; complete lines are
 * written with their prefix, the rest waits in `partial`. Lines of several
 * workers interleave at line boundaries only, never inside a line.
 *
 * Exactly once: a log follow can drop (API server restart, proxy timeout,
 * injected fault) and must be resumed. We ask the server for `timestamps=true`:
 * every line comes as "<RFC3339Nano> <text>". We remember the timestamp of the
 * last line we printed; the resumed follow asks for sinceTime=<that second>
 * and every line not newer than the remembered (second, nanosecond) is
 * skipped, so a line is neither lost nor repeated across a reconnect. (sinceTime
 * has one-second resolution, hence the finer filter here.) A partial line
 * at a drop is thrown away: the resumed stream sends it again in full.
 *
 * A container restart (restartCount grows) is a new container with a new log:
 * a fresh stream struct, starting from its beginning, nothing to skip. The old
 * stream's last partial line is flushed when it ends for good.
 *
 * Ownership: the struct owns `partial`; launch_logstream_free() releases it.
 */
#ifndef JAXJOB_LAUNCH_LOGS_H
#define JAXJOB_LAUNCH_LOGS_H

#include <stdio.h>

#include "buf.h"

struct launch_logstream {
	int index;		/* worker index (replica-index label) */
	int restarts;		/* restartCount of the container we follow */
	int timestamps;		/* lines carry an RFC 3339 timestamp prefix */
	struct buf partial;	/* bytes after the last newline */
	long long last_sec;	/* timestamp of the last line printed */
	long last_nsec;
	int have_last;
	unsigned long lines;	/* lines printed */
};

void launch_logstream_init(struct launch_logstream *s, int index, int restarts,
			   int timestamps);
void launch_logstream_free(struct launch_logstream *s);

/* Feed a chunk; complete lines are printed to `out` with "[worker-N] ". */
void launch_logstream_feed(struct launch_logstream *s, const char *data, size_t len,
			   FILE *out);

/*
 * The stream ended. `final` = no resume will follow (container terminated):
 * a trailing partial line is printed. Otherwise it is dropped (it will come
 * again). Either way `partial` is empty afterwards.
 */
void launch_logstream_end(struct launch_logstream *s, int final, FILE *out);

/*
 * The sinceTime to resume from, "2026-01-02T03:04:05Z", or "" when nothing
 * was printed yet (resume from the start). `out` has room for 32 bytes.
 */
void launch_logstream_since(const struct launch_logstream *s, char out[32]);

/* Parse "2026-01-02T03:04:05.123456789Z" into seconds + nanoseconds; -1 if not. */
int launch_parse_ts(const char *s, size_t len, long long *sec, long *nsec);

#endif
