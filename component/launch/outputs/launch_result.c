/*
 * launch_result.c - see launch_result.h.
 */
#include "launch_result.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobapi.h"
#include "jtree.h"

void launch_result_set(struct launch_result *r, const char *state, int exit_code,
		       const char *reason, const char *fmt, ...)
{
	va_list ap;

	r->state = state;
	r->exit_code = exit_code;
	snprintf(r->reason, sizeof(r->reason), "%s", reason ? reason : "");
	va_start(ap, fmt);
	vsnprintf(r->message, sizeof(r->message), fmt, ap);
	va_end(ap);
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

void launch_result_workers(const struct launch_result *r, struct launch_workers *w)
{
	launch_workers_of(r->job ? r->job : r->manifest, w);
	if (r->pod_counts) {
		w->active = r->counted.active;
		w->succeeded = r->counted.succeeded;
		w->failed = r->counted.failed;
	}
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
