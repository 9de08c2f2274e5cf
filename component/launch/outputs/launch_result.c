/*
 * launch_result.c - see launch_result.h.
 */
#include "launch_result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobapi.h"
#include "jtree.h"

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

double launch_parse_time(const char *s)
{
	struct tm tm;
	const char *p;
	double frac = 0, t;

	if (!s || !*s)
		return -1;
	memset(&tm, 0, sizeof(tm));
	p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return -1;
	if (*p == '.') {
		double scale = 0.1;
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	t = (double)timegm(&tm) + frac;
	if (*p == 'Z' || *p == 'z')
		return p[1] ? -1 : t;
	if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
		int hh = atoi(p + 1), mm = atoi(p + 4);
		int off = (hh * 60 + mm) * 60;
		return *p == '+' ? t - off : t + off;
	}
	return -1;
}

double launch_result_duration(const struct launch_result *r)
{
	double start = launch_parse_time(jtree_get_string(r->job, "status.startTime", NULL));
	double done = launch_parse_time(jtree_get_string(r->job, "status.completionTime", NULL));

	if (start < 0)
		return -1;
	if (done < 0)
		done = r->now;
	return done >= start ? done - start : -1;
}
