/*
 * kube_log.c - see kube_log.h: a streaming call whose data goes through a
 * kube_lines splitter to the caller, one complete line at a time.
 */
#include "kube_log.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube_int.h"
#include "kube_lines.h"
#include "kube_log_place.h"

static void stop_all(struct kube_client *c);

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
	/*
	 * Where the stream is in the log, for kube_log_complete(): the last line
	 * as it arrived (timestamp included), and how many lines in a row up to
	 * it carried that same timestamp. run_known: that run began on this
	 * stream (a line with another timestamp came first, or the stream began
	 * at the log's first line), so `run` counts all of it.
	 */
	struct buf last_line;
	size_t last_stamp;	/* length of the timestamp in last_line; 0: none */
	double last_when;	/* that timestamp, seconds since the epoch */
	long run;
	int run_known, from_start;
	/* The same for the second of the last line, for kube_log_resume_point():
	 * lines in a row up to it within that second; known when the stream
	 * began at a second's first line (the log's start, or a sinceTime, which
	 * a kubelet keeps in whole seconds) or a line of an earlier second came
	 * first. */
	long sec_run;
	int sec_known;
	long delivered;
	struct kube_call *tail;	/* kube_log_complete() in flight */
	long tail_asked;	/* its tailLines; 0: since the stream's last line (_until) */
	double tail_until;	/* kube_log_complete_until(): deliver lines up to then; 0 none */
	/* The follow ended while the tail read was in flight: its end waits for
	 * the tail's answer, which is never cancelled for it (a cancelled read
	 * is an HTTP 500 in the API server's metrics). */
	int ended;
	int ended_err;		/* ... with an error (end_err), not cleanly */
	struct err end_err;
	struct buf tail_path;	/* the log without follow, from its start */
	struct buf what;
	struct kube_log *next, **prev;
};

static void log_free(struct kube_log *l)
{
	*l->prev = l->next;
	if (l->next)
		l->next->prev = l->prev;
	kube_cancel(l->tail);
	kube_lines_free(&l->lines);
	buf_free(&l->last_line);
	buf_free(&l->tail_path);
	buf_free(&l->what);
	free(l);
}

static int on_line(void *ud, const char *line, size_t len, int truncated)
{
	struct kube_log *l = ud;
	double when;
	size_t skip;

	if (l->stopped)
		return 1;
	if (l->o.timestamps) {
		skip = kube_log_stamp(line, len, &when);
		l->lag = skip ? kube_wall_now() - when : -1;
		if (l->lag > l->worst_lag)
			l->worst_lag = l->lag;
		if (skip && skip == l->last_stamp && memcmp(l->last_line.data, line, skip) == 0) {
			l->run++;
		} else {
			l->run = 1;
			l->run_known = l->delivered > 0 || l->from_start;
		}
		if (skip > KUBE_STAMP_SECOND && l->last_stamp > KUBE_STAMP_SECOND &&
		    memcmp(l->last_line.data, line, KUBE_STAMP_SECOND) == 0) {
			l->sec_run++;
		} else {
			l->sec_run = 1;
			/* a stream begins at a line's start, or a second's with sinceTime */
			l->sec_known = l->delivered > 0 || l->o.tail_lines <= 0;
		}
		buf_reset(&l->last_line);
		buf_add(&l->last_line, line, len);
		l->last_stamp = skip;
		l->last_when = skip ? when : 0;	/* kube_log_line_time() */
		l->delivered++;
		line += skip;
		len -= skip;
	}
	l->o.on_line(l->o.ud, line, len, truncated);
	return l->stopped;
}

static size_t on_data(void *ud, const char *data, size_t len)
{
	struct kube_log *l = ud;
	if (l->c->logs.hold && !l->stopped)
		return 0;	/* left in the transfer's buffer, paused past its bound */
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
	if (l->tail && !l->stopped) {
		/* the end waits for the tail read's answer (on_tail) */
		l->ended = 1;
		l->ended_err = e != NULL;
		if (e)
			l->end_err = *e;
		l->busy--;
		return;
	}
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
	buf_init(&l->last_line);
	buf_init(&l->tail_path);
	buf_init(&l->what);
	kube_lines_init(&l->lines, o->max_line ? o->max_line : KUBE_LOG_MAX_LINE);

	struct kube_request rq;
	kube_request_init(&rq, KUBE_GET, o->once ? "read the log of" : "follow the log of");
	rq.bulk = 1;	/* one of a job's many: opens its connection in turn */
	kube_path(&rq.path, &KUBE_POD, o->ns, o->pod, "log");
	if (!o->once)
		kube_query(&rq.path, "follow", "true");
	if (o->timestamps)
		kube_query(&rq.path, "timestamps", "true");
	l->lag = l->worst_lag = -1;
	l->deaf_start = kube_loop_deaf(c);
	l->from_start = !o->since_time && o->tail_lines <= 0;
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
	if (o->timestamps) {	/* for kube_log_complete() */
		kube_path(&l->tail_path, &KUBE_POD, o->ns, o->pod, "log");
		kube_query(&l->tail_path, "timestamps", "true");
		if (o->container)
			kube_query(&l->tail_path, "container", o->container);
		buf_add(&l->what, rq.what.data, rq.what.len);
	}
	l->next = c->logs.list;
	if (c->logs.list)
		c->logs.list->prev = &l->next;
	l->prev = &c->logs.list;
	c->logs.list = l;
	c->logs.stop_all = stop_all;
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
void kube_log_hold_all(struct kube_client *c, int hold)
{
	if (!hold == !c->logs.hold)
		return;
	c->logs.hold = hold;
	if (hold) {
		c->logs.hold_at = kube_now();
	} else {
		c->logs.held_s += kube_now() - c->logs.hold_at;
		c->logs.hold_at = 0;
	}
}

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

/* ---- kube_log_complete ---------------------------------------------------- */

/* The tail's lines, as the follow's splitter would have cut them. */
struct tail_lines {
	struct buf text;	/* the lines, each NUL-terminated */
	size_t *at;		/* offset of line i in text */
	size_t *len;
	int *truncated;
	size_t n, cap;
};

static int tail_collect(void *ud, const char *line, size_t len, int truncated)
{
	struct tail_lines *t = ud;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 32;
		t->at = xrealloc(t->at, t->cap * sizeof(*t->at));
		t->len = xrealloc(t->len, t->cap * sizeof(*t->len));
		t->truncated = xrealloc(t->truncated, t->cap * sizeof(*t->truncated));
	}
	t->at[t->n] = t->text.len;
	t->len[t->n] = len;
	t->truncated[t->n] = truncated;
	t->n++;
	buf_add(&t->text, line, len);
	buf_addch(&t->text, '\0');
	return 0;
}

static void tail_free(struct tail_lines *t)
{
	buf_free(&t->text);
	free(t->at);
	free(t->len);
	free(t->truncated);
}

/* The index of the first tail line the stream has not delivered (t->n: it
 * has them all), or -1 when that cannot be told (kube_log_place.h). */
static long tail_place(const struct kube_log *l, const struct tail_lines *t, long asked)
{
	struct kube_log_mark m = {
		l->last_line.data, l->last_line.len, l->last_stamp, l->run, l->run_known,
		l->delivered, l->from_start,
	};
	const char **lines = xcalloc(t->n + 1, sizeof(*lines));
	long at;

	for (size_t i = 0; i < t->n; i++)
		lines[i] = t->text.data + t->at[i];
	at = kube_log_place(&m, lines, t->len, t->n, asked);
	free(lines);
	return at;
}

/* Deliver tail lines [from, n) up to l->tail_until (when set); timestamps
 * never go back, so the first later line ends it. */
static void tail_deliver(struct kube_log *l, const struct tail_lines *t, long from)
{
	for (size_t i = (size_t)from; i < t->n && !l->stopped; i++) {
		double when;
		if (l->tail_until > 0 && kube_log_stamp(t->text.data + t->at[i], t->len[i], &when) &&
		    when > l->tail_until)
			break;
		on_line(l, t->text.data + t->at[i], t->len[i], t->truncated[i]);
	}
}

static void on_tail(void *ud, struct kube_response *rs, const struct err *e)
{
	struct kube_log *l = ud;
	struct tail_lines t;
	struct kube_lines split;
	long from = -1;
	struct err miss = ERR_INIT;

	memset(&t, 0, sizeof(t));
	l->tail = NULL;
	if (!e && !l->stopped) {
		kube_lines_init(&split, l->lines.max);
		kube_lines_feed(&split, rs->body.data, rs->body.len, tail_collect, &t);
		kube_lines_finish(&split, tail_collect, &t);
		kube_lines_free(&split);
		/* a read since the last line holds that line's whole run */
		from = tail_place(l, &t, l->tail_asked > 0 ? l->tail_asked : LONG_MAX);
	}
	l->busy++;
	if (from >= 0)
		tail_deliver(l, &t, from);
	if (!l->stopped && (from >= 0 || l->tail_until > 0 || l->ended)) {
		/* placed: the whole log (or all up to tail_until) is delivered, a
		 * clean end; not placed: the follow's own end, if it came, or for
		 * _until the end it asked for, saying what is missing */
		const struct err *end = NULL;
		if (from < 0 && l->ended && l->ended_err) {
			end = &l->end_err;
		} else if (from < 0 && !l->ended) {
			err_set(&miss, ERR_NETWORK, "%s", e ? e->msg :
				"the lines since its last one could not be placed in the log");
			end = &miss;
		}
		kube_cancel(l->call);
		l->call = NULL;
		if (l->o.on_end)
			l->o.on_end(l->o.ud, end);
		l->stopped = 1;
	}
	l->busy--;
	tail_free(&t);
	if (l->stopped && !l->busy)
		log_free(l);
}

/* The second of the stream's last line, as a sinceTime ("...T22:06:02Z"). */
static void last_second(const struct kube_log *l, char since[KUBE_LOG_SINCE_MAX])
{
	snprintf(since, KUBE_LOG_SINCE_MAX, "%.*sZ", KUBE_STAMP_SECOND, l->last_line.data);
}

static int tail_start(struct kube_log *l, long tail, double until, struct err *e)
{
	struct kube_request rq;
	char n[32];

	if (!l || l->stopped || l->ended || !l->o.timestamps || l->tail) {
		err_set(e, ERR_INTERNAL, "kube_log_complete: not a live stream with timestamps");
		return -1;
	}
	kube_request_init(&rq, KUBE_GET, "read the end of the log of");
	rq.retry_s = 2;	/* the stream goes on meanwhile: this is only a shortcut */
	rq.bulk = 1;
	buf_add(&rq.path, l->tail_path.data, l->tail_path.len);
	if (tail > 0) {
		snprintf(n, sizeof(n), "%ld", tail);
		kube_query(&rq.path, "tailLines", n);
	} else if (l->last_stamp) {
		/* since the second of the stream's last line (a kubelet may keep
		 * only whole seconds of sinceTime): that line's run, then what came after */
		char since[KUBE_LOG_SINCE_MAX];
		last_second(l, since);
		kube_query(&rq.path, "sinceTime", since);
	}
	buf_add(&rq.what, l->what.data, l->what.len);
	l->tail_asked = tail;
	l->tail_until = until;
	l->tail = kube_start(l->c, &rq, on_tail, l);
	kube_request_free(&rq);
	return 0;
}

int kube_log_resume_point(const struct kube_log *l, char since[KUBE_LOG_SINCE_MAX], long *skip)
{
	if (!l || !l->o.timestamps || !l->delivered || l->last_stamp <= KUBE_STAMP_SECOND ||
	    !l->sec_known)
		return 0;
	last_second(l, since);
	*skip = l->sec_run;
	return 1;
}

int kube_log_complete(struct kube_log *l, long tail, struct err *e)
{
	if (tail <= 0) {
		err_set(e, ERR_INTERNAL, "kube_log_complete: tail must be positive");
		return -1;
	}
	return tail_start(l, tail, 0, e);
}

double kube_log_line_time(const struct kube_log *l)
{
	return l && l->o.timestamps && l->last_stamp ? l->last_when : 0;
}

int kube_log_completing(const struct kube_log *l)
{
	return l && l->tail != NULL;
}

int kube_log_complete_until(struct kube_log *l, double until, struct err *e)
{
	if (l && !l->stopped && !l->ended && l->o.timestamps && !l->tail && l->delivered > 0 &&
	    !l->last_stamp) {
		err_set(e, ERR_INTERNAL, "kube_log_complete_until: the stream's lines have no timestamps");
		return -1;
	}
	return tail_start(l, 0, until, e);
}

/* The client's stop_logs (kube_int.h): every follow still on it, at its free. */
static void stop_all(struct kube_client *c)
{
	while (c->logs.list) {
		struct kube_log *l = c->logs.list;
		l->busy = 0;
		l->stopped = 0;
		kube_log_stop(l);
	}
}
