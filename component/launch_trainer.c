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

#include "jtree.h"
#include "launch_outputs.h"
#include "launch_state.h"

void launch_trainer_seen(struct launch_state *st)
{
	const cJSON *ts = jtree_get(st->job, "status.trainerStatus");
	const char *when = jtree_get_string(ts, "lastUpdatedTime", NULL);
	struct buf b = BUF_INIT;
	double now = launch_now();

	if (!cJSON_IsObject(ts) || !when)
		return;
	st->metrics.trainer_status = 1;	/* the logs' "training:" lines give way */
	if (!strcmp(when, st->trainer.updated))
		return;
	snprintf(st->trainer.updated, sizeof(st->trainer.updated), "%s", when);
	if (st->o->metrics.progress_s <= 0)	/* --progress-every 0: no progress lines */
		return;
	if (st->trainer.said && st->o->metrics.progress_s > 0 &&
	    now - st->trainer.said < st->o->metrics.progress_s)
		return;
	st->trainer.said = now;
	launch_trainer_progress(ts, &b);
	launch_progress_note(&st->prog, "trainer: %s (status.trainerStatus)", b.data);
	buf_free(&b);
}
