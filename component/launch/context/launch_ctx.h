/*
 * launch_ctx.h - what one `jaxjob launch` run works with: the flags, the
 * client, the job's API and name, and the places its observations go (the
 * progress lines, the metrics, the diagnosis, stdout).
 *
 * Owner: the flow (launch_run.c) fills it in before the wait - the connect
 * step the client and namespace, the create step the name and uid, the
 * access check `deny` - and frees it. The wait's parts (the hub and its
 * spokes) get it const: they read it and write only through its sinks, so
 * no part of the wait owns a field of it and none can change what another
 * reads. What the run is doing (its phase, its end, the job as last seen)
 * is not here: the hub owns that (launch_hub.h).
 */
#ifndef JAXJOB_LAUNCH_CTX_H
#define JAXJOB_LAUNCH_CTX_H

#include <cJSON.h>

#include "health/diagnose.h"
#include "job/jobapi.h"
#include "kube/kube.h"
#include "cli/launch_identity.h"
#include "launch_loop.h"
#include "outputs/launch_metrics.h"
#include "cli/launch_opts.h"
#include "outputs/launch_progress.h"
#include "launch_stdout.h"

/* What SelfSubjectRulesReview said is forbidden (launch_access.c). */
struct launch_deny {
	unsigned list_job : 1, watch_job : 1, delete_job : 1, patch_job : 1;
	unsigned pods : 1, watch_pods : 1, logs : 1, events : 1, watch_events : 1;
	unsigned workloads : 1;	/* Kueue Workloads cannot be listed/watched */
};

struct launch_early;

struct launch_ctx {
	const struct launch_opts *o;
	struct kube_client *c;
	struct launch_loop *loop;	/* c's loop, the one driver of every wait (launch_loop.h) */
	struct launch_early *early;	/* the rules review sent before the build, or NULL */
	const struct jobapi *api;	/* JAXJob or TrainJob: paths, labels, container, suspend */
	const struct kube_resource *res;	/* api->res */
	const char *kind;		/* api->kind, for messages */
	char *ns, *name;
	char *uid;			/* of the job we created or adopted */
	cJSON *manifest;		/* the stamped copy we send */
	const char *queue;		/* its Kueue LocalQueue (points into manifest), or NULL */
	struct launch_identity id;
	struct launch_deny deny;
	double t0;			/* kube_now() at the start */

	/* the sinks: each has one owner (the flow), the wait writes into them */
	struct launch_progress *prog;
	struct launch_metrics *metrics;
	struct diag *diag;		/* why it failed (lib/health/diagnose.h) */
	struct launch_stdout *out;	/* the workers' lines, never blocking */
};

/*
 * A watch in the run's namespace on `res`, selected by a label or a field
 * selector (either may be NULL). `from` (may be NULL): the resourceVersion
 * of our own create - nothing older can exist, so the watch starts there
 * without a LIST; `known` is then the object as of `from` (the job watch's),
 * or NULL.
 */
struct kube_watch *launch_ctx_watch(const struct launch_ctx *ctx, const struct kube_resource *res,
				    const char *label_sel, const char *field_sel, const char *from,
				    const cJSON *known, kube_event_fn *on_event,
				    kube_watch_state_fn *on_state, void *ud, struct err *e);

#endif
