/*
 * kube_loop.h - the one event loop: every transfer of a kube_client (requests,
 * watches, log streams), timers and SIGTERM/SIGINT, in one thread.
 *
 * The loop is curl_multi_poll() on the client's multi handle, with the
 * read end of a self-pipe as an extra fd so a signal wakes it at once, and
 * a timeout equal to the nearest timer. After each curl_multi_perform() it
 * dispatches, in this order: finished transfers, buffered stream data
 * (watch events, log lines), due timers, caught signals.
 *
 * Callbacks (watch events, log lines, timers, signals, async completions)
 * are never called from inside a curl callback, so from any of them you
 * may start or stop watches, log streams, timers and asynchronous requests
 * (kube_start) and call kube_loop_stop(). You may not call a blocking
 * request (kube_call and friends): those fail with ERR_INTERNAL there.
 *
 * Streams apply backpressure: a stream whose undelivered data exceeds a
 * small bound is paused in curl until its callbacks have consumed it, so
 * memory stays bounded however fast a worker logs.
 *
 * The usual shape (launch):
 *     kube_loop_catch_signals(c, on_signal, st, &e);
 *     st->job = kube_watch_start(c, &job_watch_opts, &e);
 *     st->pods = kube_watch_start(c, &pod_watch_opts, &e);
 *     st->deadline = kube_timer_add(c, timeout_s, on_timeout, st);
 *     kube_loop_run(c, &e);          // returns after some callback called kube_loop_stop()
 *     (a signal callback calls kube_loop_stop() and kube_loop_cancel_call())
 *     ... cleanup: kube_delete(c, ...) (blocking), then maybe run the loop
 *     again until the watch reports DELETED or a timer fires.
 *
 * Ownership: timers belong to the client; a one-shot timer is freed after its
 * callback returns (do not cancel it afterwards). kube_client_free() frees
 * whatever is still registered.
 */
#ifndef JAXJOB_KUBE_LOOP_H
#define JAXJOB_KUBE_LOOP_H

#include "err.h"
#include "kube_clock.h"

/* Only pointers to the client here: kube_client.h is above the loop (its
 * files run on it), so this header does not include it. */
struct kube_client;

/*
 * Run until kube_loop_stop() is called from a callback, or until there is
 * nothing left to wait for (no transfers and no timers; a signal handler
 * alone does not keep the loop alive): then it returns 0. Returns -1 only when curl's multi
 * interface itself fails (ERR_INTERNAL).
 */
int kube_loop_run(struct kube_client *c, struct err *e);

/*
 * Make kube_loop_run() return after the current dispatch. Safe from any
 * callback. It concerns kube_loop_run() only: called while no
 * kube_loop_run() is in progress (e.g. from a callback dispatched by a
 * blocking call) it does nothing, and it never cancels a blocking call.
 */
void kube_loop_stop(struct kube_client *c);

/*
 * Let the loop make what progress it can without waiting: a few turns with
 * no wait, so that a request started before other work has its connection
 * and TLS handshake under way (the ClientHello sent) while the caller does
 * that work; the server answers meanwhile. Returns -1 only as kube_loop_run.
 */
int kube_loop_poke(struct kube_client *c, struct err *e);

/*
 * Make the blocking call in progress (kube_call and friends) fail with
 * ERR_CANCELLED - typically from a signal callback. Does nothing when no
 * blocking call is in progress, and a cancel that arrives in the step where
 * the call got its answer is dropped (the call succeeded): a cancellation
 * never carries over to the next call, so cleanup requests after a signal
 * go through. To do both (a signal may come during either), call both.
 */
void kube_loop_cancel_call(struct kube_client *c);

/* The loop's clock (kube_now(), monotonic seconds) is kube_clock.h's; all
 * timer arithmetic uses it. */

/* ---- timers -------------------------------------------------------------- */

struct kube_timer;
typedef void kube_timer_fn(void *ud);

/* Call `fn(ud)` once, `after_s` seconds from now (from the loop). */
struct kube_timer *kube_timer_add(struct kube_client *c, double after_s,
				  kube_timer_fn *fn, void *ud);
/* Cancel a pending timer. NULL is accepted. Not after it fired. */
void kube_timer_cancel(struct kube_timer *t);

/* ---- a file descriptor to write ------------------------------------------ */

typedef void kube_fd_fn(void *ud);

/*
 * Call `fn(ud)` from every step of the loop while `fd` is set: the poll also
 * wakes for `fd` becoming writable, and the call comes before the step's
 * stream data is dispatched (a writer that releases held log streams there,
 * kube_log_hold_all(), gets their data in the same step). The callback
 * tries a non-blocking write and stops the watch (fd < 0) once it has
 * nothing left to write. One such fd per client: launch's stdout.
 */
void kube_loop_watch_writable(struct kube_client *c, int fd, kube_fd_fn *fn, void *ud);

/* ---- signals ------------------------------------------------------------- */

typedef void kube_signal_fn(void *ud, int signo);

/*
 * Catch SIGTERM and SIGINT: the handler only writes the signal number to a
 * self-pipe; `fn(ud, signo)` is called from the loop (also while a blocking
 * call runs the loop). Every further signal is delivered too, so a second
 * Ctrl-C can mean "stop waiting". The handlers are process-wide (a signal
 * handler cannot know its client): one client at a time may catch signals;
 * kube_client_free() restores the previous dispositions.
 */
int kube_loop_catch_signals(struct kube_client *c, kube_signal_fn *fn, void *ud,
			    struct err *e);

#endif
