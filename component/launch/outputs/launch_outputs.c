/*
 * launch_outputs.c - see launch_outputs.h. Every output is one row of
 * outputs[]: the field of its --out-* path in struct launch_outputs and the
 * function that makes its value into a buf, then handed to
 * launch_write_file_atomic().
 */
#include "launch_outputs.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "yj/jtree.h"
#include "launch_file.h"
#include "launch_kfp.h"
#include "launch_metrics.h"
#include "launch_metrics_chart.h"
#include "metrics/metrics.h"
#include "yj/yj.h"

#define REPORT_POINTS_MAX 300	/* the chart embedded in the Markdown stays small */

/*
 * What a value is made from: the result, and for the metrics rows the store
 * (never NULL there: an empty one with --metrics none), the points per
 * metric in the CSV and the chart, and the chart's title.
 */
struct output_in {
	const struct launch_result *r;
	const struct metrics *m;
	size_t points;
	const char *title;
};

typedef void output_value_fn(const struct output_in *in, struct buf *v);

static void add_opt(struct buf *v, const char *s)
{
	if (s)
		buf_adds(v, s);
}

/* ---- the run's outputs -------------------------------------------------- */

static void v_state(const struct output_in *in, struct buf *v)
{
	buf_adds(v, in->r->outcome.state ? in->r->outcome.state : "");
}

static void v_reason(const struct output_in *in, struct buf *v)
{
	buf_adds(v, in->r->outcome.reason);
}

static void v_message(const struct output_in *in, struct buf *v)
{
	buf_adds(v, in->r->outcome.message);
}

static void v_job_json(const struct output_in *in, struct buf *v)
{
	if (in->r->job)	/* a STRUCT output: an empty file would fail KFP's parsing */
		jtree_json_pretty(in->r->job, v);
	else
		buf_adds(v, "{}");
}

static void v_manifest(const struct output_in *in, struct buf *v)
{
	struct err e = ERR_INIT;
	if (in->r->manifest && yj_emit(in->r->manifest, 0, v, &e))
		buf_reset(v);
}

static void v_job_name(const struct output_in *in, struct buf *v)
{
	add_opt(v, launch_result_name(in->r));
}

static void v_job_ns(const struct output_in *in, struct buf *v)
{
	add_opt(v, launch_result_ns(in->r));
}

static void v_job_uid(const struct output_in *in, struct buf *v)
{
	add_opt(v, jtree_get_string(in->r->job, "metadata.uid", NULL));
}

static void v_start_time(const struct output_in *in, struct buf *v)
{
	add_opt(v, jtree_get_string(in->r->job, "status.startTime", NULL));
}

static void v_completion_time(const struct output_in *in, struct buf *v)
{
	add_opt(v, jtree_get_string(in->r->job, "status.completionTime", NULL));
}

static void v_duration(const struct output_in *in, struct buf *v)
{
	double d = launch_result_duration(in->r);	/* a NUMBER_DOUBLE output: KFP cannot parse an empty file */
	buf_addf(v, "%.3f", d >= 0 ? d : 0.0);
}

static void v_workers(const struct output_in *in, struct buf *v)
{
	const struct launch_workers w = in->r->workers;
	buf_addf(v, "{\"active\":%d,\"failed\":%d,\"replicas\":%d,\"succeeded\":%d}",
		 w.active, w.failed, w.replicas, w.succeeded);
}

static void v_summary(const struct output_in *in, struct buf *v) { launch_summary(in->r, v); }

static void v_exit_code(const struct output_in *in, struct buf *v)
{
	buf_addf(v, "%d", in->r->outcome.exit_code);
}

static void v_queue_time(const struct output_in *in, struct buf *v)
{
	buf_addf(v, "%.3f", in->r->queue ? in->r->queued_s : 0.0);
}

static void v_run_time(const struct output_in *in, struct buf *v)
{
	/* a Float: 0 when unknown */
	double d = in->r->queue ? in->r->run_s : launch_result_duration(in->r);
	buf_addf(v, "%.3f", d >= 0 ? d : 0.0);
}

/* JSON objects (KFP Dict outputs): {} when there is nothing to say, never
 * an empty file. */
static void v_queue_position(const struct output_in *in, struct buf *v)
{
	const struct launch_queue_seen *kq = &in->r->kq;

	if (in->r->queue && kq->in_lq > 0)
		buf_addf(v, "{\"cluster_queue\":%d,\"local_queue\":%d}", kq->in_cq, kq->in_lq);
	else
		buf_adds(v, "{}");
}

static void v_preemptions(const struct output_in *in, struct buf *v)
{
	const struct launch_queue_seen *kq = &in->r->kq;
	cJSON *o = cJSON_CreateObject();
	char *text;

	cJSON_AddNumberToObject(o, "preemptions", in->r->queue ? kq->preemptions : 0);
	if (in->r->queue && kq->preemptions) {
		cJSON_AddStringToObject(o, "evicted_reason", kq->evicted);
		cJSON_AddStringToObject(o, "preempted_reason", kq->preempted);
		cJSON_AddStringToObject(o, "message", kq->message);
	}
	text = cJSON_PrintUnformatted(o);
	buf_adds(v, text ? text : "{}");
	cJSON_free(text);
	cJSON_Delete(o);
}

static void v_progress(const struct output_in *in, struct buf *v)
{
	/* the job's own percentage, else the logs' */
	const cJSON *pct = jtree_get(in->r->job, "status.trainerStatus.progressPercentage");
	if (cJSON_IsNumber(pct))
		buf_addf(v, "%d", pct->valueint);
	else
		launch_metrics_percent(in->r->metrics, v);
}

static void v_failure(const struct output_in *in, struct buf *v)
{
	if (in->r->failure)	/* a STRUCT output: "{}" when it did not fail */
		jtree_json_pretty(in->r->failure, v);
	else
		buf_adds(v, "{}");
}

static void v_failure_category(const struct output_in *in, struct buf *v)
{
	add_opt(v, in->r->failure_category);
}

/* ---- the metrics outputs ------------------------------------------------ */

static void v_metrics(const struct output_in *in, struct buf *v) { metrics_json(in->m, v); }

static void v_metrics_csv(const struct output_in *in, struct buf *v)
{
	metrics_csv(in->m, in->points, v);
}

static void v_metrics_chart(const struct output_in *in, struct buf *v)
{
	launch_metrics_chart(in->m, in->title, in->r->outcome.state, in->points, v);
}

static void base64(struct buf *out, const unsigned char *d, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		unsigned x = (unsigned)d[i] << 16;
		if (i + 1 < n)
			x |= (unsigned)d[i + 1] << 8;
		if (i + 2 < n)
			x |= d[i + 2];
		buf_addch(out, tab[x >> 18 & 63]);
		buf_addch(out, tab[x >> 12 & 63]);
		buf_addch(out, i + 1 < n ? tab[x >> 6 & 63] : '=');
		buf_addch(out, i + 2 < n ? tab[x & 63] : '=');
	}
}

/* The summary with the chart embedded as a data: image: the report is one
 * self-contained file. */
static void v_metrics_report(const struct output_in *in, struct buf *v)
{
	struct buf svg = BUF_INIT;

	launch_summary(in->r, v);
	if (metrics_nseries(in->m)) {
		launch_metrics_chart(in->m, in->title, in->r->outcome.state,
				     in->points < REPORT_POINTS_MAX ? in->points : REPORT_POINTS_MAX, &svg);
		buf_adds(v, "\n![training metrics](data:image/svg+xml;base64,");
		base64(v, (const unsigned char *)svg.data, svg.len);
		buf_adds(v, ")\n");
	}
	buf_free(&svg);
}

/*
 * Every output: the --out-* path in struct launch_outputs, when it is
 * written, and how its value is made. One table, so an output is one line
 * here and one flag in launch_flags.c's table (OUT(field)), never a position
 * kept in step across lists. The metrics rows are written by
 * launch_metrics_write(), after the run's store is final; the others by
 * launch_outputs_write(), also for a run that never had a store.
 */
enum output_group { OUTPUT_RUN, OUTPUT_METRICS };

#define OUTPUT(field, fn) { offsetof(struct launch_outputs, field), OUTPUT_RUN, fn }
#define METRICS_OUTPUT(field, fn) { offsetof(struct launch_outputs, field), OUTPUT_METRICS, fn }
static const struct output {
	size_t path;		/* offset of the const char * path in struct launch_outputs */
	enum output_group group;
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
	OUTPUT(summary, v_summary),
	OUTPUT(exit_code, v_exit_code),
	OUTPUT(queue_time, v_queue_time),
	OUTPUT(run_time, v_run_time),
	OUTPUT(queue_position, v_queue_position),
	OUTPUT(preemptions, v_preemptions),
	OUTPUT(progress, v_progress),
	OUTPUT(failure, v_failure),
	OUTPUT(failure_category, v_failure_category),
	METRICS_OUTPUT(metrics, v_metrics),
	METRICS_OUTPUT(metrics_csv, v_metrics_csv),
	METRICS_OUTPUT(metrics_chart, v_metrics_chart),
	METRICS_OUTPUT(metrics_report, v_metrics_report),
};

/* The rows of `group` whose path is set, in table order; the first error. */
static int write_group(const struct launch_outputs *p, enum output_group group,
		       const struct output_in *in, struct err *e)
{
	struct buf v = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		const char *path = *(const char *const *)((const char *)p + outputs[i].path);
		struct err one = ERR_INIT;
		if (!path || outputs[i].group != group)
			continue;
		buf_reset(&v);
		outputs[i].value(in, &v);
		if (launch_write_file_atomic(path, v.data, v.len, &one) && rc == 0) {
			*e = one;
			rc = -1;
		}
	}
	buf_free(&v);
	return rc;
}

int launch_outputs_write(const struct launch_outputs *p, const struct launch_result *r,
			 struct err *e)
{
	struct output_in in = { r, r->metrics, 0, NULL };

	return write_group(p, OUTPUT_RUN, &in, e);
}

/* "JAXJob team-a/clu": the chart's title. */
static void job_title(const struct launch_result *r, struct buf *out)
{
	const cJSON *obj = r->job ? r->job : r->manifest;
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(obj, "kind");
	const cJSON *ns = cJSON_GetObjectItemCaseSensitive(meta, "namespace");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(meta, "name");

	buf_addf(out, "%s %s/%s", cJSON_IsString(kind) ? kind->valuestring : "JAXJob",
		 cJSON_IsString(ns) ? ns->valuestring : (r->ns ? r->ns : "?"),
		 cJSON_IsString(name) ? name->valuestring : "?");
}

int launch_metrics_write(const struct launch_metrics *lm, const struct launch_outputs *paths,
			 const struct launch_result *r, struct err *e)
{
	static const struct launch_metrics_opts none;
	struct metrics *empty = NULL;
	struct buf title = BUF_INIT;
	struct output_in in = { r, lm->m, 300, NULL };
	int rc;

	if (lm->o && lm->o->points > 0)
		in.points = (size_t)lm->o->points;
	if (!in.m) {	/* --metrics none: the files still exist (KFP and Argo want them) */
		struct err ignore = ERR_INIT;
		empty = launch_metrics_store(&none, &ignore);
		in.m = empty;
	}
	job_title(r, &title);
	in.title = title.data;
	rc = write_group(paths, OUTPUT_METRICS, &in, e);
	if (lm->o && lm->o->kfp_executor_input) {
		struct err one = ERR_INIT;
		if (launch_kfp_write(in.m, lm->o->kfp_executor_input, &one) && rc == 0) {
			*e = one;
			rc = -1;
		}
	}
	metrics_free(empty);
	buf_free(&title);
	return rc;
}
