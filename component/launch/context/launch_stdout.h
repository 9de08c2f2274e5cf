/*
 * launch_stdout.h - the workers' log lines on stdout, without ever blocking
 * the event loop.
 *
 * A pipeline step's stdout is a pipe to the container runtime, or to
 * whatever reads it; when nobody reads, a blocking write(1) would stop the
 * loop, and with it the watches, the timers and the signals: a SIGTERM
 * would never be acted on (issue 27: the job ran on, no outputs, SIGKILL).
 * So lines go into one bounded queue (their order across workers is the
 * order they arrived in) and are written from the loop without blocking:
 *   - a pipe, FIFO or terminal is reopened with O_NONBLOCK through
 *     /proc/self/fd/1 (a new open file description: the flag does not leak
 *     into stderr or into whoever shares our fd 1); a socket is written with
 *     MSG_DONTWAIT; a regular file or /dev/null is written as it is (they
 *     never wait on a reader);
 *   - past LAUNCH_STDOUT_HIGH queued bytes, the log streams are held
 *     (kube_log_hold_all: HTTP/2 flow control stops the kubelet's data),
 *     and let go again below LAUNCH_STDOUT_LOW; the first stall is said on
 *     stderr once ("stdout is not being read ...");
 *   - a closed stdout (EPIPE: SIGPIPE is ignored in launch) stops the
 *     writing: later lines are counted, not written, and the run goes on.
 * At the end, launch_stdout_finish() writes what is queued within a bound
 * (none after a signal: the grace period belongs to the cleanup), and
 * launch_stdout_lost() counts, per worker, the lines that never made it.
 *
 * Ownership: the queue and the reopened fd; launch_stdout_free().
 */
#ifndef JAXJOB_LAUNCH_STDOUT_H
#define JAXJOB_LAUNCH_STDOUT_H

#include <stddef.h>

#include "buf.h"

struct kube_client;
struct kube_timer;
struct launch_loop;
struct launch_progress;

#define LAUNCH_STDOUT_HIGH (1024u * 1024)	/* hold the log streams above this */
#define LAUNCH_STDOUT_LOW (256u * 1024)	/* let them go below this */

struct launch_stdout {
	int fd;			/* where lines are written */
	int own_fd;		/* fd is our non-blocking reopen */
	int sock;		/* fd is a socket: send(MSG_DONTWAIT) */
	int nonblocking;	/* writes cannot wait (else: plain file, written as is) */
	struct buf q;		/* queued bytes: whole "[worker-N] line\n" lines */
	size_t off;		/* written part of q */
	struct kube_client *c;	/* the client whose loop writes and holds, or NULL */
	struct launch_loop *loop;	/* that loop's driver (launch_loop.h) */
	struct launch_progress *prog;	/* where notes go, or NULL (stderr) */
	int held;		/* the log streams are held */
	int closed;		/* EPIPE or another write error: no more writing */
	int stall_said;
	int err;		/* errno of the failure that closed it */
	struct kube_timer *finish_timer;	/* launch_stdout_finish() in progress */
	unsigned long lines;	/* worker lines taken: written, queued or dropped */
	unsigned long *dropped;	/* per worker index: lines not written (closed) */
	int ndropped;
};

/* Find out what `fd` (STDOUT_FILENO) is and how to write it without blocking. */
void launch_stdout_init(struct launch_stdout *o, int fd);
/* The client whose loop writes the queue and whose log streams it holds;
 * notes go to `prog` (may be NULL: stderr). */
void launch_stdout_attach(struct launch_stdout *o, struct launch_loop *loop,
			  struct launch_progress *prog);
/* Queue worker `index`'s whole line (its "[worker-N] " prefix and '\n'
 * included; index -1: a line of the launch's own, not counted as a
 * worker's) and write what can be written now. */
void launch_stdout_line(struct launch_stdout *o, int index, const char *data, size_t len);
/* The same for a worker's log line without its prefix and '\n' (the hot
 * path: formatted straight into the queue). */
void launch_stdout_worker_line(struct launch_stdout *o, int index, const char *line, size_t len);
/*
 * The run is over: write what is queued, waiting in the loop at most
 * `max_wait_s` seconds (0: one non-blocking attempt) or until `*stop`
 * becomes non-zero (a signal). Leaves the rest queued for launch_stdout_lost.
 */
void launch_stdout_finish(struct launch_stdout *o, double max_wait_s, const int *stop);
/*
 * Lines queued and never written, and lines dropped on a closed stdout,
 * per worker: "worker-0: 120 lines, worker-3: 7 lines" into `out` (empty
 * when none). Returns the number of lines.
 */
unsigned long launch_stdout_lost(const struct launch_stdout *o, struct buf *out);
void launch_stdout_free(struct launch_stdout *o);

#endif
