/*
 * launch_outputs.c - see launch_outputs.h. Every value is computed from the
 * result into a buf, then handed to launch_write_file_atomic().
 */
#include "launch_outputs.h"
#include "launch_progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobapi.h"
#include "jtree.h"
#include "launch_failure.h"
#include "launch_metrics.h"
#include "launch_run.h"
#include "yj.h"

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

/* ---- small readers over the job object --------------------------------- */

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

/* Duration in seconds: completion - start, else end-of-wait - start; -1 unknown. */
static double duration_of(const struct launch_result *r)
{
	double start = launch_parse_time(jtree_get_string(r->job, "status.startTime", NULL));
	double done = launch_parse_time(jtree_get_string(r->job, "status.completionTime", NULL));

	if (start < 0)
		return -1;
	if (done < 0)
		done = r->now;
	return done >= start ? done - start : -1;
}

/* Worker counts: from the job's status, or from the pods when it has none. */
static void workers_of(const struct launch_result *r, struct launch_workers *w)
{
	launch_workers_of(r->job ? r->job : r->manifest, w);
	if (r->pod_counts) {
		w->active = r->counted.active;
		w->succeeded = r->counted.succeeded;
		w->failed = r->counted.failed;
	}
}

static const char *job_name(const struct launch_result *r)
{
	const char *n = jtree_get_string(r->job, "metadata.name", NULL);
	return n ? n : jtree_get_string(r->manifest, "metadata.name", NULL);
}

static const char *job_ns(const struct launch_result *r)
{
	const char *n = jtree_get_string(r->job, "metadata.namespace", NULL);
	if (!n)
		n = jtree_get_string(r->manifest, "metadata.namespace", NULL);
	return n ? n : r->ns;
}

/* ---- atomic file writing ----------------------------------------------- */

static int mkdir_parents(const char *path, struct err *e)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');

	if (!slash || slash == dir) {
		free(dir);
		return 0;
	}
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0777) && errno != EEXIST) {
			err_set(e, ERR_IO, "cannot create directory %s: %s", dir, strerror(errno));
			free(dir);
			return -1;
		}
		*p = '/';
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		err_set(e, ERR_IO, "cannot create directory %s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	return 0;
}

int launch_write_file_atomic(const char *path, const char *data, size_t len,
			     struct err *e)
{
	struct buf tmp = BUF_INIT;
	int fd, rc = -1;

	if (mkdir_parents(path, e))
		return -1;
	buf_addf(&tmp, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp.data);
	if (fd < 0) {
		err_set(e, ERR_IO, "cannot write output %s: %s", path, strerror(errno));
		goto out;
	}
	/* mkstemp makes 0600; outputs are read by other containers (Argo's wait). */
	fchmod(fd, 0644);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err_set(e, ERR_IO, "cannot write output %s: %s", path, strerror(errno));
			close(fd);
			unlink(tmp.data);
			goto out;
		}
		off += (size_t)n;
	}
	if (close(fd) || rename(tmp.data, path)) {
		err_set(e, ERR_IO, "cannot write output %s: %s", path, strerror(errno));
		unlink(tmp.data);
		goto out;
	}
	rc = 0;
out:
	buf_free(&tmp);
	return rc;
}

/* ---- the values -------------------------------------------------------- */

static void md_cell(struct buf *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			buf_adds(out, "\\|");
		else if (*s == '\n' || *s == '\r')
			buf_addch(out, ' ');
		else
			buf_addch(out, *s);
	}
}

static void md_row(struct buf *out, const char *k, const char *v)
{
	if (!v || !*v)
		return;
	buf_addf(out, "| %s | ", k);
	md_cell(out, v);
	buf_adds(out, " |\n");
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

/* A TrainJob's own progress (status.trainerStatus, KEP-2779): preferred over
 * what the logs said, which the metrics table below still shows. */
static void trainer_rows(const struct launch_result *r, struct buf *out)
{
	const cJSON *ts = jtree_get(r->job, "status.trainerStatus");
	struct buf line = BUF_INIT;

	if (!cJSON_IsObject(ts))
		return;
	launch_trainer_progress(ts, &line);
	md_row(out, "progress", line.data);
	md_row(out, "progress updated", jtree_get_string(ts, "lastUpdatedTime", NULL));
	buf_free(&line);
}

void launch_outputs_summary(const struct launch_result *r, struct buf *out)
{
	struct launch_workers w;
	char tmp[160];
	double d = duration_of(r);
	const char *name = job_name(r), *ns = job_ns(r);

	workers_of(r, &w);
	const char *kind = jtree_get_string(r->job ? r->job : r->manifest, "kind", NULL);

	buf_addf(out, "### %s %s/%s: %s\n\n", kind ? kind : "JAXJob", ns ? ns : "?",
		 name ? name : "?", r->state ? r->state : "Unknown");
	buf_adds(out, "| | |\n|---|---|\n");
	md_row(out, "state", r->state);
	md_row(out, "reason", r->reason);
	md_row(out, "message", r->message);
	snprintf(tmp, sizeof(tmp), "%d requested: %d succeeded, %d failed, %d active",
		 w.replicas, w.succeeded, w.failed, w.active);
	md_row(out, "workers", tmp);
	md_row(out, "started", jtree_get_string(r->job, "status.startTime", NULL));
	md_row(out, "completed", jtree_get_string(r->job, "status.completionTime", NULL));
	if (d >= 0) {
		snprintf(tmp, sizeof(tmp), "%.1f s", d);
		md_row(out, "duration", tmp);
	}
	trainer_rows(r, out);
	if (r->queue) {
		snprintf(tmp, sizeof(tmp), "%.1f s in %s", r->queued_s, r->queue);
		md_row(out, "queued", tmp);
		snprintf(tmp, sizeof(tmp), "%.1f s", r->run_s);
		md_row(out, "run time", tmp);
	}
	md_row(out, "uid", jtree_get_string(r->job, "metadata.uid", NULL));
	md_row(out, "cleanup", r->cleanup);
	md_row(out, "log lines not written", r->logs_lost);
	snprintf(tmp, sizeof(tmp), "%d", r->exit_code);
	md_row(out, "exit code", tmp);
	launch_metrics_summary(r->metrics, out);
	launch_failure_summary(r->failure, r->message, out);
}

static void add_opt(struct buf *v, const char *s)
{
	if (s)
		buf_adds(v, s);
}

/*
 * Every output: the --out-* path in struct launch_outputs and how its value
 * is made. One table, so an output is one line here and one flag in
 * launch_opts.c's table (OUT(field)), never a position kept in step across
 * lists.
 */
typedef void output_value_fn(const struct launch_result *r, struct buf *v);

static void v_state(const struct launch_result *r, struct buf *v)
{
	buf_adds(v, r->state ? r->state : "");
}

static void v_reason(const struct launch_result *r, struct buf *v) { buf_adds(v, r->reason); }
static void v_message(const struct launch_result *r, struct buf *v) { buf_adds(v, r->message); }

static void v_job_json(const struct launch_result *r, struct buf *v)
{
	if (r->job)	/* a STRUCT output: an empty file would fail KFP's parsing */
		yj_json_pretty(r->job, v);
	else
		buf_adds(v, "{}");
}

static void v_manifest(const struct launch_result *r, struct buf *v)
{
	struct err e = ERR_INIT;
	if (r->manifest && yj_emit(r->manifest, 0, v, &e))
		buf_reset(v);
}

static void v_job_name(const struct launch_result *r, struct buf *v) { add_opt(v, job_name(r)); }
static void v_job_ns(const struct launch_result *r, struct buf *v) { add_opt(v, job_ns(r)); }

static void v_job_uid(const struct launch_result *r, struct buf *v)
{
	add_opt(v, jtree_get_string(r->job, "metadata.uid", NULL));
}

static void v_start_time(const struct launch_result *r, struct buf *v)
{
	add_opt(v, jtree_get_string(r->job, "status.startTime", NULL));
}

static void v_completion_time(const struct launch_result *r, struct buf *v)
{
	add_opt(v, jtree_get_string(r->job, "status.completionTime", NULL));
}

static void v_duration(const struct launch_result *r, struct buf *v)
{
	double d = duration_of(r);	/* a NUMBER_DOUBLE output: KFP cannot parse an empty file */
	buf_addf(v, "%.3f", d >= 0 ? d : 0.0);
}

static void v_workers(const struct launch_result *r, struct buf *v)
{
	struct launch_workers w;
	workers_of(r, &w);
	buf_addf(v, "{\"active\":%d,\"failed\":%d,\"replicas\":%d,\"succeeded\":%d}",
		 w.active, w.failed, w.replicas, w.succeeded);
}

static void v_exit_code(const struct launch_result *r, struct buf *v)
{
	buf_addf(v, "%d", r->exit_code);
}

static void v_queue_time(const struct launch_result *r, struct buf *v)
{
	buf_addf(v, "%.3f", r->queue ? r->queued_s : 0.0);
}

static void v_run_time(const struct launch_result *r, struct buf *v)
{
	double d = r->queue ? r->run_s : duration_of(r);	/* a Float: 0 when unknown */
	buf_addf(v, "%.3f", d >= 0 ? d : 0.0);
}

static void v_progress(const struct launch_result *r, struct buf *v)
{
	/* the job's own percentage, else the logs' */
	const cJSON *pct = jtree_get(r->job, "status.trainerStatus.progressPercentage");
	if (cJSON_IsNumber(pct))
		buf_addf(v, "%d", pct->valueint);
	else
		launch_metrics_percent(r->metrics, v);
}

static void v_failure(const struct launch_result *r, struct buf *v)
{
	if (r->failure)		/* a STRUCT output: "{}" when it did not fail */
		yj_json_pretty(r->failure, v);
	else
		buf_adds(v, "{}");
}

static void v_failure_category(const struct launch_result *r, struct buf *v)
{
	add_opt(v, r->failure_category);
}

#define OUTPUT(field, fn) { offsetof(struct launch_outputs, field), fn }
static const struct output {
	size_t path;		/* offset of the const char * path in struct launch_outputs */
	output_value_fn *value;
} outputs[] = {
	OUTPUT(state, v_state),
	OUTPUT(reason, v_reason),
	OUTPUT(message, v_message),
	OUTPUT(job_json, v_job_json),
	OUTPUT(manifest, v_manifest),
	OUTPUT(job_name, v_job_name),
	OUTPUT(job_namespace, v_job_ns),
	OUTPUT(job_uid, v_job_uid),
	OUTPUT(start_time, v_start_time),
	OUTPUT(completion_time, v_completion_time),
	OUTPUT(duration, v_duration),
	OUTPUT(workers, v_workers),
	OUTPUT(summary, launch_outputs_summary),
	OUTPUT(exit_code, v_exit_code),
	OUTPUT(queue_time, v_queue_time),
	OUTPUT(run_time, v_run_time),
	OUTPUT(progress, v_progress),
	OUTPUT(failure, v_failure),
	OUTPUT(failure_category, v_failure_category),
};

int launch_outcome_exit(enum launch_outcome how, int code)
{
	switch (code) {
	case EXIT_JOB_FAILED: case EXIT_TIMEOUT: case EXIT_CANCELLED: case EXIT_JOB_LOST:
	case EXIT_STUCK: case EXIT_QUEUE_TIMEOUT:	/* the job ended: an outcome */
		if (how != OUTCOME_OUTPUTS)
			return code;
		fprintf(stderr, "jaxjob: --outcome outputs: the step exits 0; the outcome "
			"(exit code %d) is in the outputs state, reason and exit_code\n", code);
		return 0;
	default:
		return code;
	}
}

int launch_outputs_write(const struct launch_outputs *p, const struct launch_result *r,
			 struct err *e)
{
	struct buf v = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		const char *path = *(const char *const *)((const char *)p + outputs[i].path);
		struct err one = ERR_INIT;
		if (!path)
			continue;
		buf_reset(&v);
		outputs[i].value(r, &v);
		if (launch_write_file_atomic(path, v.data, v.len, &one) && rc == 0) {
			*e = one;
			rc = -1;
		}
	}
	buf_free(&v);
	return rc;
}
