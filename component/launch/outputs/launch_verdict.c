/*
 * launch_verdict.c - see launch_verdict.h.
 */
#include <string.h>

#include "health/health.h"
#include "yj/jtree.h"
#include "launch_progress.h"
#include "launch_verdict.h"

void launch_verdict_of(const cJSON *job, struct launch_verdict *v)
{
	struct health_result hr = HEALTH_RESULT_INIT;
	int rc = health_judge(job, &hr);
	const cJSON *cond;

	memset(v, 0, sizeof(*v));
	v->phase = hr.phase;	/* static storage */
	if (job && rc == 0) {
		v->terminal = hr.terminal;
		v->succeeded = hr.succeeded && !hr.failed;
		v->suspended = hr.suspended;
	}
	health_result_free(&hr);
	v->counted = launch_workers_of(job, &v->w);
	cond = launch_condition(job, v->phase, "True");
	v->reason = jtree_get_string(cond, "reason", NULL);
	v->message = jtree_get_string(cond, "message", "");
}
