/*
 * launch_stdout.c - see launch_stdout.h.
 */
#include "launch_stdout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kube/kube.h"
#include "launch_loop.h"
#include "outputs/launch_progress.h"

void launch_stdout_init(struct launch_stdout *o, int fd)
{
	struct stat sb;
	char path[64];

	memset(o, 0, sizeof(*o));
	o->fd = fd;
	buf_init(&o->q);
	if (fstat(fd, &sb) != 0) {
		o->closed = 1;		/* no stdout at all: count, never write */
		o->err = errno;
		return;
	}
	if (S_ISSOCK(sb.st_mode)) {
		o->sock = o->nonblocking = 1;
	} else if (S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode)) {
		/* a new open file description of the same pipe or terminal, with
		 * its own O_NONBLOCK; /dev/null (a character device too) takes
		 * it harmlessly */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		int nb = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (nb >= 0) {
			o->fd = nb;
			o->own_fd = o->nonblocking = 1;
		} else if (errno == ENXIO) {
			o->closed = 1;	/* a FIFO without a reader */
			o->err = EPIPE;
		}
		/* else (no /proc): written as it is, as before */
	}
}

static void on_writable(void *ud);

static void __attribute__((format(printf, 2, 3))) note(struct launch_stdout *o, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (o->prog)
		launch_progress_note(o->prog, "%s", line);
	else
		fprintf(stderr, "%s\n", line);
}

void launch_stdout_attach(struct launch_stdout *o, struct launch_loop *loop,
			  struct launch_progress *prog)
{
	struct kube_client *c = loop->c;

	o->loop = loop;
	o->c = c;
	o->prog = prog;
	if (o->off < o->q.len)
		kube_loop_watch_writable(c, o->fd, on_writable, o);
}

static void hold(struct launch_stdout *o, int on)
{
	if (!o->c || o->held == on)
		return;
	o->held = on;
	kube_log_hold_all(o->c, on);
}

static void close_out(struct launch_stdout *o, int err)
{
	o->closed = 1;
	o->err = err;
	hold(o, 0);	/* nothing to wait for any more: let the streams end */
	if (o->c)
		kube_loop_watch_writable(o->c, -1, NULL, NULL);
	note(o, "warning: stdout is closed (%s): worker log lines are no longer written; they "
	     "are counted at the end", strerror(err));
}

/* Write what can be written now; 0 when the queue is empty. */
static int flush_some(struct launch_stdout *o)
{
	while (o->off < o->q.len && !o->closed) {
		size_t n = o->q.len - o->off;
		ssize_t w = o->sock ? send(o->fd, o->q.data + o->off, n, MSG_DONTWAIT | MSG_NOSIGNAL)
				    : write(o->fd, o->q.data + o->off, n);
		if (w > 0) {
			o->off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		close_out(o, w < 0 ? errno : EIO);
	}
	if (o->closed)
		return 0;	/* what is queued stays, to be counted (launch_stdout_lost) */
	if (o->off == o->q.len) {
		buf_reset(&o->q);
		o->off = 0;
		return 0;
	}
	if (o->off >= o->q.len / 2) {	/* keep the queue compact */
		buf_consume(&o->q, o->off);
		o->off = 0;
	}
	return 1;
}

static void watch(struct launch_stdout *o, int pending)
{
	if (!o->c)
		return;
	kube_loop_watch_writable(o->c, pending ? o->fd : -1, pending ? on_writable : NULL, o);
	if (o->finish_timer)
		return;		/* the streams are over: nothing to hold */
	if (o->q.len - o->off > LAUNCH_STDOUT_HIGH) {
		if (!o->stall_said) {
			o->stall_said = 1;
			note(o, "warning: stdout is not being read: worker log streams held (%zu KiB "
			     "waiting); the job is still watched", (o->q.len - o->off) / 1024);
		}
		hold(o, 1);
	} else if (o->q.len - o->off < LAUNCH_STDOUT_LOW) {
		hold(o, 0);
	}
}

static void on_writable(void *ud)
{
	struct launch_stdout *o = ud;
	int pending = flush_some(o);

	watch(o, pending);
	if (o->finish_timer && !pending)
		launch_loop_wake(o->loop);	/* launch_stdout_finish is done */
}

/* One more line of worker `index` in a per-worker count that grows as needed;
 * index < 0 is a line of ours (the hub's attempt seam, launch_hub_clock.c): not counted. */
static void count_line(unsigned long **per, int *n, int index)
{
	if (index < 0)
		return;
	if (index >= *n) {
		*per = xrealloc(*per, (size_t)(index + 1) * sizeof(**per));
		memset(*per + *n, 0, (size_t)(index + 1 - *n) * sizeof(**per));
		*n = index + 1;
	}
	(*per)[index]++;
}

/* The line just queued: written now if it can be, else by the loop. */
static void queued(struct launch_stdout *o)
{
	if (!o->nonblocking) {		/* a file: it does not wait on anyone */
		flush_some(o);
		return;
	}
	/* behind already: keep the order, the loop writes when it can */
	if (o->c && o->held)
		return;
	watch(o, flush_some(o));
}

void launch_stdout_line(struct launch_stdout *o, int index, const char *data, size_t len)
{
	o->lines += index >= 0;
	if (o->closed) {
		count_line(&o->dropped, &o->ndropped, index);
		return;
	}
	buf_add(&o->q, data, len);
	queued(o);
}

void launch_stdout_worker_line(struct launch_stdout *o, int index, const char *line, size_t len)
{
	o->lines++;
	if (o->closed) {
		count_line(&o->dropped, &o->ndropped, index);
		return;
	}
	/* formatted in the queue itself: no copy of its own per line */
	buf_addf(&o->q, "[worker-%d] ", index);
	buf_add(&o->q, line, len);
	buf_addch(&o->q, '\n');
	queued(o);
}

static void on_finish_timer(void *ud)
{
	struct launch_stdout *o = ud;
	o->finish_timer = NULL;
	launch_loop_wake(o->loop);
}

/* The finish is over: all written, stdout closed, a signal, or out of time. */
struct finish_wait {
	const struct launch_stdout *o;
	const int *stop;
};

static int finished(const void *ud)
{
	const struct finish_wait *w = ud;
	return w->o->off >= w->o->q.len || w->o->closed || *w->stop || !w->o->finish_timer;
}

void launch_stdout_finish(struct launch_stdout *o, double max_wait_s, const int *stop)
{
	struct err e = ERR_INIT;

	hold(o, 0);
	if (!flush_some(o) || !o->c || max_wait_s <= 0 || *stop) {
		watch(o, 0);
		return;
	}
	o->finish_timer = kube_timer_add(o->c, max_wait_s, on_finish_timer, o);
	kube_loop_watch_writable(o->c, o->fd, on_writable, o);
	/* the signal callback stops the loop too (launch_hub.c, RUN_DONE) */
	struct finish_wait w = { o, stop };
	launch_loop_until(o->loop, finished, &w, &e);
	kube_timer_cancel(o->finish_timer);
	o->finish_timer = NULL;
	kube_loop_watch_writable(o->c, -1, NULL, NULL);
}

/* The worker index of a queued line, -1 for a line of ours. */
static int worker_of_line(const char *s, size_t n)
{
	const char pre[] = "[worker-";
	if (n <= sizeof(pre) || memcmp(s, pre, sizeof(pre) - 1))
		return -1;
	return atoi(s + sizeof(pre) - 1);
}

unsigned long launch_stdout_lost(const struct launch_stdout *o, struct buf *out)
{
	unsigned long total = 0;
	unsigned long *per = NULL;
	int nper = o->ndropped;
	size_t at = o->off;

	per = xcalloc((size_t)(nper > 0 ? nper : 1), sizeof(*per));
	for (int i = 0; i < o->ndropped; i++)
		per[i] = o->dropped[i];
	/* a line the reader got the first half of is lost too */
	while (at > 0 && o->q.data[at - 1] != '\n')
		at--;
	while (at < o->q.len) {
		const char *nl = memchr(o->q.data + at, '\n', o->q.len - at);
		size_t end = nl ? (size_t)(nl - o->q.data) + 1 : o->q.len;
		count_line(&per, &nper, worker_of_line(o->q.data + at, end - at));
		at = end;
	}
	for (int i = 0; i < nper; i++) {
		if (!per[i])
			continue;
		buf_addf(out, "%sworker-%d: %lu line%s", total ? ", " : "", i, per[i],
			 per[i] == 1 ? "" : "s");
		total += per[i];
	}
	free(per);
	return total;
}

void launch_stdout_free(struct launch_stdout *o)
{
	if (o->c)
		kube_loop_watch_writable(o->c, -1, NULL, NULL);
	if (o->own_fd)
		close(o->fd);
	buf_free(&o->q);
	free(o->dropped);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}
