/*
 * launch_summary.c - see launch_summary.h.
 */
#include "launch_summary.h"

#include <stdio.h>

#include "yj/jtree.h"
#include "decide/launch_failure.h"
#include "launch_metrics.h"
#include "launch_progress.h"
#include "metrics/metrics.h"

#define METRICS_ROWS 20	/* the rest is in the metrics output */

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

static void md_value(struct buf *out, double v, double x, const char *xl)
{
	buf_addf(out, " %.6g (%s %.10g) |", v, xl, x);
}

/* The training metrics: where the run got to, and per metric its last,
 * min and max with their steps; nothing without metrics. */
static void metrics_table(const struct metrics *m, struct buf *out)
{
	struct metrics_progress p;
	size_t n;

	if (!m || !metrics_nseries(m))
		return;
	metrics_progress(m, &p);
	n = metrics_nseries(m);
	buf_adds(out, "\n#### Training metrics\n\n");
	if (p.has_step) {
		launch_metrics_step(out, &p);
		if (p.rate > 0)
			buf_addf(out, ", %.3g %ss/s", p.rate, metrics_xlabel(p.xkind));
		buf_adds(out, "\n\n");
	}
	buf_adds(out, "| metric | last | min | max |\n|---|---|---|---|\n");
	for (size_t i = 0; i < n && i < METRICS_ROWS; i++) {
		const struct metrics_series *s = metrics_get(m, i);
		const char *xl = metrics_xlabel(p.xkind);
		buf_addf(out, "| %s |", s->name);
		md_value(out, s->last, s->last_x, xl);
		if (s->has_finite) {
			md_value(out, s->min, s->min_x, xl);
			md_value(out, s->max, s->max_x, xl);
		} else {
			buf_adds(out, " - | - |");
		}
		buf_adds(out, "\n");
	}
	if (n > METRICS_ROWS)
		buf_addf(out, "\n%zu more in the metrics output\n", n - METRICS_ROWS);
}

/* The queue section's place and preemptions, when there were any. */
static void queue_rows(const struct launch_result *r, struct buf *out)
{
	const struct launch_queue_seen *kq = &r->kq;
	struct buf v = BUF_INIT;

	if (kq->in_lq > 0) {
		buf_addf(&v, "%d in %s, %d in its ClusterQueue (last seen)", kq->in_lq, r->queue,
			 kq->in_cq);
		md_row(out, "queue position", v.data);
	}
	if (kq->preemptions) {
		buf_reset(&v);
		buf_addf(&v, "%d, the last: %s%s%s%s%s%s", kq->preemptions,
			 kq->evicted[0] ? kq->evicted : "evicted", kq->preempted[0] ? " (" : "",
			 kq->preempted, kq->preempted[0] ? ")" : "", kq->message[0] ? ": " : "",
			 kq->message);
		md_row(out, "preemptions", v.data);
	}
	buf_free(&v);
}

void launch_summary(const struct launch_result *r, struct buf *out)
{
	const struct launch_workers w = r->workers;
	char tmp[160];
	double d = launch_result_duration(r);
	const char *name = launch_result_name(r), *ns = launch_result_ns(r);

	const char *kind = jtree_get_string(r->job ? r->job : r->manifest, "kind", NULL);

	buf_addf(out, "### %s %s/%s: %s\n\n", kind ? kind : "JAXJob", ns ? ns : "?",
		 name ? name : "?", r->outcome.state ? r->outcome.state : "Unknown");
	buf_adds(out, "| | |\n|---|---|\n");
	md_row(out, "state", r->outcome.state);
	md_row(out, "reason", r->outcome.reason);
	md_row(out, "message", r->outcome.message);
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
		queue_rows(r, out);
	}
	md_row(out, "uid", jtree_get_string(r->job, "metadata.uid", NULL));
	md_row(out, "cleanup", r->cleanup);
	if (r->api_requests) {	/* exact numbers: a benchmark reads them (bench/crowd.sh) */
		snprintf(tmp, sizeof(tmp), "%lu requests, %llu bytes received", r->api_requests,
			 r->api_bytes_in);
		md_row(out, "API traffic", tmp);
	}
	/* how much of the logs was read: after a signal, what its grace allowed */
	snprintf(tmp, sizeof(tmp), "%lu written", r->log_lines);
	md_row(out, "log lines", tmp);
	md_row(out, "log lines not written", r->logs_lost);
	md_row(out, "logs incomplete", r->logs_incomplete);
	snprintf(tmp, sizeof(tmp), "%d", r->outcome.exit_code);
	md_row(out, "exit code", tmp);
	metrics_table(r->metrics, out);
	launch_failure_summary(r->failure, r->outcome.message, out);
}
