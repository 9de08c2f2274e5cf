/*
 * launch_queue_position.h - a spoke of the wait: where the job's Workload
 * stands in its LocalQueue and ClusterQueue, read from Kueue's visibility
 * API (launch_queue_position.c says how, and what it costs).
 *
 * The hub asks for a look (qpos_look) while the job is queued, at most once
 * per queued line and on a Workload change; the spoke reports a position
 * that changed through struct qpos_reports and answers qpos_get(). A
 * cluster that does not serve the API, or a step that may not read it, is
 * said once and the spoke goes quiet: the run goes on without positions.
 */
#ifndef JAXJOB_LAUNCH_QUEUE_POSITION_H
#define JAXJOB_LAUNCH_QUEUE_POSITION_H

#include "context/launch_ctx.h"

struct qpos_reports {
	void (*changed)(void *hub);	/* a new position was seen */
	/* a line for the person waiting (the API absent or denied, a bad
	 * answer): the hub says it; the spoke prints nothing itself */
	void (*note)(void *hub, const char *line);
};

struct qpos;
struct qpos *qpos_new(const struct launch_ctx *ctx, const struct qpos_reports *rep, void *hub);
void qpos_free(struct qpos *q);		/* NULL is fine */
/* Start a look for Workload `workload` (NULL: not known yet, nothing is
 * asked) unless one is in flight or the API was found absent or denied. */
void qpos_look(struct qpos *q, const char *workload);
/* Stop a look in flight; what was seen stays. */
void qpos_stop(struct qpos *q);
/* The last position seen, 1-based, in the LocalQueue and the ClusterQueue:
 * 1, or 0 when none was ever seen. */
int qpos_get(const struct qpos *q, int *in_lq, int *in_cq);
/* The ClusterQueue of the job's LocalQueue (its spec.clusterQueue, read
 * once when the first place is seen), or NULL. */
const char *qpos_cluster_queue(const struct qpos *q);

#endif
