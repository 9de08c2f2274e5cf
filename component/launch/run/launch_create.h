/*
 * launch_create.h - create the job, or re-attach to the one this step
 * already created (launch_create.c says when and why).
 */
#ifndef JAXJOB_LAUNCH_CREATE_H
#define JAXJOB_LAUNCH_CREATE_H

#include "context/launch_ctx.h"
#include "hub/launch_hub.h"

/* The job the hub holds after the create: its uid, its name when the
 * server chose it (generateName; else NULL: ctx->name), and the create's
 * resourceVersion to watch from (NULL after a re-attach). The caller frees
 * the strings. */
struct launch_created {
	char *uid, *name, *from;
	int look;	/* a signal cancelled the create: whether it went through
			 * is to be looked at (launch_create_look) */
};

/*
 * Create ctx->manifest, or adopt our own job of that name (or identity).
 * 0 when the hub holds the job (`cr` says which), or
 * when a signal ended the run first (launch_hub_ended: a job that went
 * through anyway is adopted, for the cleanup). -1 with `e` set: the API's
 * refusal, or ours (AlreadyExists: a job we may not adopt;
 * NamespaceNotFound).
 */
int launch_create(const struct launch_ctx *ctx, struct launch_hub *h, struct launch_created *cr,
		  struct err *e);

/*
 * After a create a signal cancelled (cr->look): did it go through anyway?
 * A GET by name (or a list by identity, for generateName), then a short
 * watch for it (at most CREATE_SETTLE_S, or --delete-timeout when
 * shorter); ours is adopted, so the cleanup finds it. Its requests are
 * retried LAUNCH_LOOK_RETRY_S: the flow, which owns the client, sets that
 * before (the signal moved the hub's phase to cleaning: a further one is
 * noted, it does not cancel this look).
 */
#define LAUNCH_LOOK_RETRY_S 8.0
void launch_create_look(const struct launch_ctx *ctx, struct launch_hub *h,
			struct launch_created *cr);

/* --server-dry-run: the server's answer to a dryRun=All create on stdout;
 * -1 with `e` set when it refused. */
int launch_server_dry_run(const struct launch_ctx *ctx, struct err *e);

#endif
