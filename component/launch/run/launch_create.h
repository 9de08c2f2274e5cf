/*
 * launch_create.h - create the job, or re-attach to the one this step
 * already created (launch_create.c says when and why).
 */
#ifndef JAXJOB_LAUNCH_CREATE_H
#define JAXJOB_LAUNCH_CREATE_H

#include "launch_ctx.h"
#include "launch_hub.h"

/*
 * Create ctx->manifest, or adopt our own job of that name (or identity).
 * 0 when the hub holds the job (ctx->uid and ctx->name set; *from is the
 * create's resourceVersion to watch from, or NULL after a re-attach), or
 * when a signal ended the run first (launch_hub_ended: a job that went
 * through anyway is adopted, for the cleanup). -1 with `r` set.
 */
struct launch_result;
int launch_create(struct launch_ctx *ctx, struct launch_hub *h, char **from,
		  struct launch_result *r);

/* --server-dry-run: the server's answer to a dryRun=All create on stdout. */
int launch_server_dry_run(const struct launch_ctx *ctx, struct launch_result *r);

#endif
