/*
 * launch_loop.c - the one driver of a launch's event loop (launch_loop.h).
 */
#include "launch_loop.h"

#include "kube/kube_loop.h"

void launch_loop_init(struct launch_loop *l, struct kube_client *c)
{
	l->c = c;
	l->woken = 0;
}

int launch_loop_until(struct launch_loop *l, launch_loop_until_fn *until, const void *ud,
		      struct err *e)
{
	while (!until(ud)) {
		l->woken = 0;
		if (kube_loop_run(l->c, e) < 0)
			return -1;
		if (!l->woken)
			return until(ud) ? 0 : 1;	/* it ran dry */
	}
	return 0;
}

void launch_loop_wake(struct launch_loop *l)
{
	l->woken = 1;
	kube_loop_stop(l->c);
}
