/*
 * kube_log.c - see kube_log.h: a streaming call whose data goes through a
 * kube_lines splitter to the caller, one complete line at a time.
 */
#include "kube_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kube_int.h"
#include "kube_lines.h"

struct kube_log {
	struct kube_client *c;
	struct kube_log_opts o;
	struct kube_call *call;
	struct kube_lines lines;
	int busy, stopped;
	double last;		/* when data last arrived, 0 before any */
	double deaf_at;		/* kube_loop_deaf(c) then: see kube_log_idle() */
	double lag;		/* arrival - kubelet timestamp of the last line, -1 unknown */
	double worst_lag;	/* the largest lag seen on this stream, -1 none yet */
	double deaf_start;	/* kube_loop_deaf(c) when the stream started */
	struct kube_log *next, **prev;
};

static void log_free(struct kube_log *l)
{
	*l->prev = l->next;
	if (l->next)
		l->next->prev = l->prev;
	kube_lines_free(&l->lines);
	free(l);
}

/*
 * The kubelet's timestamp of a line ("2026-11-23T22:06:02.123456789Z ",
 * RFC 3339 with nanoseconds, UTC): its length with the space, 0 when the
 * line does not start with one; *when = seconds since the epoch.
 */
static size_t stamp(const char *line, size_t len, double *when)
{
	struct tm tm;
	const char *sp = memchr(line, ' ', len < 40 ? len : 40);
	const char *p;
	double frac = 0, scale = 0.1;
	int n = 0;

	if (!sp || sp - line < 20 || sp[-1] != 'Z')
		return 0;
	memset(&tm, 0, sizeof(tm));
	if (sscanf(line, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 || n != 19)
		return 0;
	p = line + 19;
	if (*p == '.')
		for (p++; p < sp - 1 && *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
	if (p != sp - 1)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*when = (double)timegm(&tm) + frac;
	return (size_t)(sp - line) + 1;
}

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int on_line(void *ud, const char *line, size_t len, int truncated)
{
	struct kube_log *l = ud;
	double when;
	size_t skip;

	if (l->stopped)
		return 1;
	if (l->o.timestamps) {
		skip = stamp(line, len, &when);
		l->lag = skip ? wall_now() - when : -1;
		if (l->lag > l->worst_lag)
			l->worst_lag = l->lag;
		line += skip;
		len -= skip;
	}
	l->o.on_line(l->o.ud, line, len, truncated);
	return l->stopped;
}

static size_t on_data(void *ud, const char *data, size_t len)
{
	struct kube_log *l = ud;
	l->last = kube_now();
	l->deaf_at = kube_loop_deaf(l->c);
	l->busy++;
	kube_lines_feed(&l->lines, data, len, on_line, l);
	l->busy--;
	if (l->stopped && !l->busy)
		log_free(l);
	return len;
}

static void on_done(void *ud, struct kube_response *rs, const struct err *e)
{
	struct kube_log *l = ud;
	(void)rs;
	l->call = NULL;
	l->busy++;
	if (!e)
		kube_lines_finish(&l->lines, on_line, l);
	if (!l->stopped && l->o.on_end)
		l->o.on_end(l->o.ud, e);
	l->stopped = 1;		/* the stream is over either way */
	l->busy--;
	if (!l->busy)
		log_free(l);
}

struct kube_log *kube_log_follow(struct kube_client *c, const struct kube_log_opts *o,
				 struct err *e)
{
	if (!o->ns || !o->pod || !o->on_line) {
		err_set(e, ERR_INTERNAL, "kube_log_follow: ns, pod and on_line are required");
		return NULL;
	}
	struct kube_log *l = xcalloc(1, sizeof(*l));
	l->c = c;
	l->o = *o;
	kube_lines_init(&l->lines, o->max_line ? o->max_line : KUBE_LOG_MAX_LINE);

	struct kube_request rq;
	kube_request_init(&rq, KUBE_GET, o->once ? "read the log of" : "follow the log of");
	kube_path(&rq.path, &KUBE_POD, o->ns, o->pod, "log");
	if (!o->once)
		kube_query(&rq.path, "follow", "true");
	if (o->timestamps)
		kube_query(&rq.path, "timestamps", "true");
	l->lag = l->worst_lag = -1;
	l->deaf_start = kube_loop_deaf(c);
	if (o->container)
		kube_query(&rq.path, "container", o->container);
	if (o->since_time)
		kube_query(&rq.path, "sinceTime", o->since_time);
	if (o->tail_lines > 0) {
		char n[32];
		snprintf(n, sizeof(n), "%ld", o->tail_lines);
		kube_query(&rq.path, "tailLines", n);
	}
	kube_describe(&rq.what, &KUBE_POD, o->pod);
	l->next = c->logs;
	if (c->logs)
		c->logs->prev = &l->next;
	l->prev = &c->logs;
	c->logs = l;
	l->call = kube_start_stream(c, &rq, 0, on_data, on_done, l);
	kube_request_free(&rq);
	/* copies of the caller's strings are not needed after the request is built */
	l->o.ns = l->o.pod = l->o.container = l->o.since_time = NULL;
	return l;
}

void kube_log_stop(struct kube_log *l)
{
	if (!l || l->stopped)
		return;
	l->stopped = 1;
	kube_cancel(l->call);
	l->call = NULL;
	if (!l->busy)
		log_free(l);
}

/*
 * Quiet time is time the loop was listening: a slow stdout blocks the
 * dispatch of lines for tens of ms, and meanwhile this stream's bytes wait
 * in the socket (or its transfer is paused) - that is not the server being
 * done with it, so the loop's deaf time since the last data is left out.
 */
double kube_log_idle(const struct kube_log *l)
{
	if (l->last <= 0)
		return -1;
	double idle = kube_now() - l->last - (kube_loop_deaf(l->c) - l->deaf_at);
	return idle > 0 ? idle : 0;
}

double kube_log_lag(const struct kube_log *l)
{
	return l->lag;
}

double kube_log_backlog(const struct kube_log *l)
{
	double deaf = kube_loop_deaf(l->c) - l->deaf_start;
	return deaf > l->worst_lag ? deaf : l->worst_lag;
}

void kube_log_cut(struct kube_log *l)
{
	if (!l || l->stopped)
		return;
	if (!l->busy) {
		l->busy++;
		kube_lines_finish(&l->lines, on_line, l);
		l->busy--;
	}
	kube_log_stop(l);
}

void kube_log_stop_all(struct kube_client *c)
{
	while (c->logs) {
		struct kube_log *l = c->logs;
		l->busy = 0;
		l->stopped = 0;
		kube_log_stop(l);
	}
}
