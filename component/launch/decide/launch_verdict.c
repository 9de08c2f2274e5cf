/*
 * launch_verdict.c - see launch_verdict.h.
 */
#include <string.h>

#include "health/health.h"
#include "job/jobapi.h"
#include "yj/jtree.h"
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

int launch_workers_of(const cJSON *job, struct launch_workers *w)
{
	struct jobapi_workers jw;
	int from_status = jobapi_worker_counts(job, &jw);

	w->replicas = jw.replicas;
	w->active = jw.active;
	w->succeeded = jw.succeeded;
	w->failed = jw.failed;
	return from_status;
}

const cJSON *launch_condition(const cJSON *obj, const char *type, const char *status)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(
				      cJSON_GetObjectItemCaseSensitive(obj, "status"), "conditions")) {
		const char *t = jtree_get_string(c, "type", NULL);
		const char *s = jtree_get_string(c, "status", NULL);
		if (t && !strcmp(t, type) && (!status || (s && !strcmp(s, status))))
			return c;
	}
	return NULL;
}
