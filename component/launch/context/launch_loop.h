/*
 * launch_loop.h - the one driver of a launch's event loop.
 *
 * A launch waits on one client (lib/kube/kube_loop.h) for many things: the
 * first contact's rules review and the access reviews, the look after a
 * cancelled create, the wait itself (the hub), the deletion the cleanup
 * asked for, the last lines stdout still holds. None of them spins the
 * loop: a step that must wait says what it waits for, a condition, and
 * launch_loop_until() runs the client's loop until it holds. A callback
 * that changes what a condition reads (an answer came, a timer fired, a
 * signal) calls launch_loop_wake(), and the wait looks again.
 *
 * This file alone calls kube_loop_run() and kube_loop_stop() in
 * component/ (tests/suites/12-one-loop.sh, run by make check, greps for
 * any other): the loop is spun from one place.
 *
 * Owner: the first contact (launch_connect.c) makes it with the run's one
 * client and frees it; the run's context points at it (launch_ctx.h).
 */
#ifndef JAXJOB_LAUNCH_LOOP_H
#define JAXJOB_LAUNCH_LOOP_H

#include "err.h"

struct kube_client;

struct launch_loop {
	struct kube_client *c;	/* the run's one client, whose loop this is */
	int woken;		/* a wake since the loop last started */
};

void launch_loop_init(struct launch_loop *l, struct kube_client *c);

/* What a step waits for: true once the wait is over. */
typedef int launch_loop_until_fn(const void *ud);

/*
 * Run the loop until `until(ud)` holds (asked first, then after every
 * wake). 0 once it holds; 1 when the loop had nothing left to wait for
 * (no transfer, no timer) before it did; -1 with `e` set when the loop
 * itself failed (curl's multi interface).
 */
int launch_loop_until(struct launch_loop *l, launch_loop_until_fn *until, const void *ud,
		      struct err *e);

/* Something a wait's condition reads has changed: the wait in progress
 * looks again after this dispatch. From any callback; with no wait in
 * progress it does nothing (a blocking call in progress goes on). */
void launch_loop_wake(struct launch_loop *l);

#endif
