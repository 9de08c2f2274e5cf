/*
 * kube_loop.c - see kube_loop.h: timers, signals, the writable fd and the
 * dispatch step that ties them to the transfers (kube_xfer.c). The part of
 * the client's state written here is `loop`.
 */
#include "kube_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void kube_loop_init(struct kube_client *c)
{
	c->loop.out_fd = -1;
	c->loop.rnd_state = (unsigned)(time_t)kube_wall_now() ^ ((unsigned)getpid() << 16);
}

/* ---- timers ------------------------------------------------------------- */

struct kube_timer *kube_timer_add(struct kube_client *c, double after_s,
				  kube_timer_fn *fn, void *ud)
{
	struct kube_timer *t = xcalloc(1, sizeof(*t));
	t->c = c;
	t->when = kube_now() + (after_s > 0 ? after_s : 0);
	t->fn = fn;
	t->ud = ud;
	t->next = c->loop.timers;
	c->loop.timers = t;
	return t;
}

void kube_timer_cancel(struct kube_timer *t)
{
	if (t)
		t->dead = 1;
}

static double next_timer(const struct kube_client *c)
{
	double when = -1;
	for (const struct kube_timer *t = c->loop.timers; t; t = t->next)
		if (!t->dead && (when < 0 || t->when < when))
			when = t->when;
	return when;
}

/*
 * Fire the timers due now. Timers added by their callbacks are put at the
 * head of the list, behind this walk, so they wait for the next step.
 */
static void run_timers(struct kube_client *c)
{
	double now = kube_now();
	for (struct kube_timer *t = c->loop.timers; t; t = t->next) {
		if (t->dead || t->when > now)
			continue;
		t->dead = 1;
		t->fn(t->ud);
	}
}

double kube_random(struct kube_client *c)
{
	return (double)rand_r(&c->loop.rnd_state) / ((double)RAND_MAX + 1.0);
}

static void reap_timers(struct kube_client *c)
{
	for (struct kube_timer **p = &c->loop.timers; *p;) {
		struct kube_timer *t = *p;
		if (t->dead) {
			*p = t->next;
			free(t);
		} else {
			p = &t->next;
		}
	}
}

void kube_loop_close(struct kube_client *c)
{
	for (struct kube_timer *t = c->loop.timers; t; t = t->next)
		t->dead = 1;
	kube_loop_release_signals(c);
	reap_timers(c);
}

/* ---- signals ------------------------------------------------------------ */

/*
 * The handler can only reach process-wide state; this is the one piece of
 * global mutable state in the client, and it holds nothing but two fds.
 */
static int sig_pipe[2] = { -1, -1 };
static struct sigaction sig_old_term, sig_old_int;
static struct kube_client *sig_client;

static void on_sig(int signo)
{
	int saved = errno;
	unsigned char b = (unsigned char)signo;
	if (write(sig_pipe[1], &b, 1) < 0) {
		/* pipe full: enough signals are pending already */
	}
	errno = saved;
}

int kube_loop_catch_signals(struct kube_client *c, kube_signal_fn *fn, void *ud,
			    struct err *e)
{
	if (sig_client && sig_client != c)
		return err_set(e, ERR_INTERNAL, "another client already catches signals");
	if (sig_pipe[0] < 0 && pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
		return err_set(e, ERR_IO, "signal pipe: %s", strerror(errno));
	c->loop.on_signal = fn;
	c->loop.signal_ud = ud;
	if (sig_client == c)
		return 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, &sig_old_term);
	sigaction(SIGINT, &sa, &sig_old_int);
	sig_client = c;
	return 0;
}

void kube_loop_release_signals(struct kube_client *c)
{
	if (sig_client != c)
		return;
	sigaction(SIGTERM, &sig_old_term, NULL);
	sigaction(SIGINT, &sig_old_int, NULL);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
	sig_pipe[0] = sig_pipe[1] = -1;
	sig_client = NULL;
}

static void run_signals(struct kube_client *c)
{
	if (sig_client != c)
		return;
	unsigned char b;
	while (read(sig_pipe[0], &b, 1) == 1)
		if (c->loop.on_signal)
			c->loop.on_signal(c->loop.signal_ud, b);
}

/* ---- the dispatch step -------------------------------------------------- */

int kube_loop_step(struct kube_client *c, double max_wait_s, struct err *e)
{
	double wait = max_wait_s;
	double nt = next_timer(c);
	if (nt >= 0 && nt - kube_now() < wait)
		wait = nt - kube_now();
	if (wait < 0)
		wait = 0;
	struct curl_waitfd extra[2];
	unsigned nextra = 0;
	if (sig_client == c)
		extra[nextra++] = (struct curl_waitfd){ sig_pipe[0], CURL_WAIT_POLLIN, 0 };
	if (c->loop.out_fn && c->loop.out_fd >= 0)
		extra[nextra++] = (struct curl_waitfd){ c->loop.out_fd, CURL_WAIT_POLLOUT, 0 };
	if (kube_xfer_wait(c, extra, nextra, wait, e))
		return -1;
	c->loop.driving++;
	c->loop.dispatch_at = kube_now();
	kube_xfer_collect(c);
	/* every step, not only on POLLOUT: a pipe whose reader is gone polls
	 * as an error curl does not report, and the write tells EPIPE */
	if (c->loop.out_fn && c->loop.out_fd >= 0)
		c->loop.out_fn(c->loop.out_ud);
	kube_xfer_dispatch(c);
	run_timers(c);
	run_signals(c);
	c->loop.deaf_s += kube_now() - c->loop.dispatch_at;
	c->loop.dispatch_at = 0;
	c->loop.driving--;
	kube_xfer_reap(c);
	reap_timers(c);
	return 0;
}

int kube_loop_poke(struct kube_client *c, struct err *e)
{
	/* a connect, the TLS context and ClientHello, one more for luck: each
	 * turn returns at once when there is nothing to do */
	for (int i = 0; i < 3; i++)
		if (kube_loop_step(c, 0, e))
			return -1;
	return 0;
}

double kube_loop_deaf(const struct kube_client *c)
{
	/* held log streams (kube_log_hold_all) are not listened to either */
	return c->loop.deaf_s + (c->loop.dispatch_at > 0 ? kube_now() - c->loop.dispatch_at : 0) +
	       c->logs.held_s + (c->logs.hold_at > 0 ? kube_now() - c->logs.hold_at : 0);
}

void kube_loop_watch_writable(struct kube_client *c, int fd, kube_fd_fn *fn, void *ud)
{
	c->loop.out_fd = fn ? fd : -1;
	c->loop.out_fn = fd >= 0 ? fn : NULL;
	c->loop.out_ud = ud;
}

static int idle(const struct kube_client *c)
{
	if (kube_xfer_busy(c))
		return 0;
	for (const struct kube_timer *t = c->loop.timers; t; t = t->next)
		if (!t->dead)
			return 0;
	return 1;
}

int kube_loop_run(struct kube_client *c, struct err *e)
{
	if (c->loop.driving)
		return err_set(e, ERR_INTERNAL, "kube_loop_run called from a loop callback");
	int rc = 0;
	c->loop.running++;
	while (!c->loop.stop_requested && !idle(c)) {
		rc = kube_loop_step(c, 1.0, e);
		if (rc)
			break;
	}
	c->loop.running--;
	c->loop.stop_requested = 0;
	return rc;
}

/*
 * Stop and cancel are separate, and neither outlives what it was meant for:
 * a stop asked while no kube_loop_run() runs (say, from a callback that a
 * blocking call dispatched) would otherwise end the next wait at once, and a
 * cancel that arrives in the very step where the call completed would
 * cancel the next call - the DELETE of a cleanup after a SIGTERM.
 */
void kube_loop_stop(struct kube_client *c)
{
	if (c->loop.running)
		c->loop.stop_requested = 1;
}
