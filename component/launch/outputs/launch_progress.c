/*
 * launch_progress.c - see launch_progress.h.
 */
#include "launch_progress.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "yj/jtree.h"
#include "kube/kube_clock.h"

void launch_progress_init(struct launch_progress *p, FILE *out, double t0)
{
	memset(p, 0, sizeof(*p));
	p->out = out;
	p->t0 = t0;
}

static void prefix(const struct launch_progress *p, struct buf *b)
{
	time_t t = (time_t)kube_wall_now();
	struct tm tm;
	char hms[16];

	gmtime_r(&t, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	buf_addf(b, "jaxjob: %s (+%.1fs) ", hms, kube_now() - p->t0);
}

void launch_progress_note(struct launch_progress *p, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	if (!p->out)
		return;
	prefix(p, &b);
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	buf_addch(&b, '\n');
	fwrite(b.data, 1, b.len, p->out);
	fflush(p->out);
	buf_free(&b);
}

void launch_progress_counts(struct launch_progress *p, const char *phase,
			    const struct launch_workers *wp)
{
	struct launch_workers w = *wp;

	if (p->printed && strcmp(phase, p->phase) == 0 && w.replicas == p->replicas &&
	    w.active == p->active && w.succeeded == p->succeeded && w.failed == p->failed)
		return;
	snprintf(p->phase, sizeof(p->phase), "%s", phase);
	p->replicas = w.replicas;
	p->active = w.active;
	p->succeeded = w.succeeded;
	p->failed = w.failed;
	p->printed = 1;
	if ((strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Complete") == 0) && w.succeeded)
		launch_progress_note(p, "%s: %d/%d workers succeeded", phase, w.succeeded, w.replicas);
	else if (w.failed)
		launch_progress_note(p, "%s: %d/%d workers active, %d failed", phase,
				     w.active, w.replicas, w.failed);
	else
		launch_progress_note(p, "%s: %d/%d workers active", phase, w.active, w.replicas);
}

void launch_duration(struct buf *b, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		buf_addf(b, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		buf_addf(b, "%ldm%02lds", t / 60, t % 60);
	else
		buf_addf(b, "%lds", t);
}

void launch_print_warnings(const char *lines)
{
	for (const char *p = lines, *nl; p && *p; p = nl + 1) {
		nl = strchrnul(p, '\n');
		fprintf(stderr, "warning: %.*s\n", (int)(nl - p), p);
		if (!*nl)
			break;
	}
}

void launch_trainer_progress(const cJSON *ts, struct buf *b)
{
	const cJSON *pct = cJSON_GetObjectItemCaseSensitive(ts, "progressPercentage");
	const cJSON *eta = cJSON_GetObjectItemCaseSensitive(ts, "estimatedRemainingSeconds");
	const cJSON *m;
	int n = 0;

	if (cJSON_IsNumber(pct))
		buf_addf(b, "%d%% done", pct->valueint);
	else
		buf_adds(b, "progress unknown");
	if (cJSON_IsNumber(eta) && eta->valuedouble >= 0) {
		buf_adds(b, ", ");
		launch_duration(b, eta->valuedouble);
		buf_adds(b, " left");
	}
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(ts, "metrics")) {
		const char *name = jtree_get_string(m, "name", NULL), *v = jtree_get_string(m, "value", NULL);
		if (!name || !v || n++ >= 6)
			continue;
		buf_addf(b, ", %s %s", name, v);
	}
}
