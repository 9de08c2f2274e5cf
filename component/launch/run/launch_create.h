/*
 * launch_create.h - create the job, or re-attach to the one this step
 * already created (launch_create.c says when and why).
 */
#ifndef JAXJOB_LAUNCH_CREATE_H
#define JAXJOB_LAUNCH_CREATE_H

#include "launch_ctx.h"
#include "launch_hub.h"

/* The job the hub holds after the create: its uid, its name when the
 * server chose it (generateName; else NULL: ctx->name), and the create's
 * resourceVersion to watch from (NULL after a re-attach). The caller frees
 * the strings. */
struct launch_created {
	char *uid, *name, *from;
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

/* --server-dry-run: the server's answer to a dryRun=All create on stdout;
 * -1 with `e` set when it refused. */
int launch_server_dry_run(const struct launch_ctx *ctx, struct err *e);

#endif
