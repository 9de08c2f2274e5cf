/*
 * launch_result.c - see launch_result.h.
 */
#include "launch_result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job/jobapi.h"
#include "yj/jtree.h"
#include "kube/kube_time.h"

const char *launch_result_name(const struct launch_result *r)
{
	const char *n = jtree_get_string(r->job, "metadata.name", NULL);
	return n ? n : jtree_get_string(r->manifest, "metadata.name", NULL);
}

const char *launch_result_ns(const struct launch_result *r)
{
	const char *n = jtree_get_string(r->job, "metadata.namespace", NULL);
	if (!n)
		n = jtree_get_string(r->manifest, "metadata.namespace", NULL);
	return n ? n : r->ns;
}

/* A time of the job's status (lib/kube/kube_time.h), -1 when absent or malformed. */
static double status_time(const struct launch_result *r, const char *path)
{
	const char *s = jtree_get_string(r->job, path, NULL);
	double t;

	return s && kube_time_parse(s, strlen(s), &t) == 0 ? t : -1;
}

double launch_result_duration(const struct launch_result *r)
{
	double start = status_time(r, "status.startTime");
	double done = status_time(r, "status.completionTime");

	if (start < 0)
		return -1;
	if (done < 0)
		done = r->now;
	return done >= start ? done - start : -1;
}
