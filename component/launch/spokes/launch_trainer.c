/*
 * launch_trainer.c - a TrainJob's own progress: status.trainerStatus.
 *
 * Trainer v2.2+ publishes the trainer step's progress in the TrainJob
 * itself (KEP-2779; the field in
 * ../shared/reference/crds/trainer.kubeflow.org_trainjobs.yaml ~5987-6047):
 * progressPercentage (0-100), estimatedRemainingSeconds, metrics (name and
 * value as strings) and lastUpdatedTime (required when the field is there).
 * It is nil until the trainer reports, and absent where the TrainJobStatus
 * feature gate is off, so the worker logs stay the fallback.
 *
 * When the job carries it, it is preferred: the hub calls
 * launch_trainer_seen() for every job object seen; a new lastUpdatedTime
 * gives one "trainer:" progress line (at most one per --progress-every, the
 * first at once), and the log-derived "training:" lines stop
 * (launch_metrics' `trainer_status`). The outputs and the summary read the
 * field from the last job object (launch_outputs.c).
 */
#include <string.h>

#include "yj/jtree.h"
#include "outputs/launch_progress.h"
#include "launch_trainer.h"

void launch_trainer_seen(struct launch_trainer *t, const struct launch_ctx *ctx,
			 const cJSON *job)
{
	const cJSON *ts = jtree_get(job, "status.trainerStatus");
	const char *when = jtree_get_string(ts, "lastUpdatedTime", NULL);
	struct buf b = BUF_INIT;
	double now = kube_now();

	if (!cJSON_IsObject(ts) || !when)
		return;
	ctx->metrics->trainer_status = 1;	/* the logs' "training:" lines give way */
	if (!strcmp(when, t->updated))
		return;
	snprintf(t->updated, sizeof(t->updated), "%s", when);
	if (ctx->o->metrics.progress_s <= 0)	/* --progress-every 0: no progress lines */
		return;
	if (t->said && ctx->o->metrics.progress_s > 0 &&
	    now - t->said < ctx->o->metrics.progress_s)
		return;
	t->said = now;
	launch_trainer_progress(ts, &b);
	launch_progress_note(ctx->prog, "trainer: %s (status.trainerStatus)", b.data);
	buf_free(&b);
}
