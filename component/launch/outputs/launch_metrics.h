/*
 * launch_metrics.h - training metrics during `jaxjob launch`: the --metrics*
 * flags made into a lib/metrics/metrics.h store, fed every worker log line once,
 * and a bounded-rate progress line on stderr.
 *
 * The hook into the log path is one call per complete line
 * (launch_metrics_line, from launch_workers.c after the line was printed),
 * so metrics never alter or delay a log line; lines a resumed follow skips
 * (launch_logs.h) are not fed twice.
 *
 * The progress line goes through launch_progress_note: one whole line per
 * write on stderr, while worker lines are whole lines on stdout, so the two
 * never mix inside a line (one thread, one write each):
 *
 *   jaxjob: 22:06:10 (+45.2s) training: step 1200/5000 (24%), loss 0.2345,
 *           accuracy 0.91, 26.7 steps/s, ETA 2m22s
 *
 * At most one per --progress-every (default 10 s), the first as soon as a
 * metric shows, and a last one at the end.
 *
 * What the run leaves behind is read from the store by the outputs
 * (launch_outputs.c: the metrics JSON, CSV, chart, report and the KFP
 * executor output) and the summary (launch_summary.c: the metrics table);
 * this module knows none of them.
 *
 * Ownership: struct launch_metrics owns its store; launch_metrics_free().
 */
#ifndef JAXJOB_LAUNCH_METRICS_H
#define JAXJOB_LAUNCH_METRICS_H

#include <stddef.h>

#include "buf.h"
#include "err.h"

enum launch_metrics_mode { LAUNCH_METRICS_AUTO, LAUNCH_METRICS_PATTERNS, LAUNCH_METRICS_NONE };

#define LAUNCH_METRIC_PATTERNS_MAX 32
#define LAUNCH_METRIC_STEPS_MAX 8

/* What --metrics* say (launch_metrics.h turns it into a lib/metrics/metrics.h store). */
struct launch_metrics_opts {
	enum launch_metrics_mode mode;	/* --metrics auto|patterns|none */
	int from;			/* --metrics-from first|any|all (enum metrics_from) */
	const char *patterns[LAUNCH_METRIC_PATTERNS_MAX];	/* --metric NAME=REGEX */
	int npatterns;
	const char *steps[LAUNCH_METRIC_STEPS_MAX + 1];	/* --metric-step NAME, NULL-terminated */
	int nsteps;
	double total_steps;		/* --total-steps (0 = from the log) */
	double progress_s;		/* --progress-every (0 = no training progress lines) */
	double points;			/* --metrics-points: per metric in CSV and chart */
	const char *kfp_executor_input;	/* --kfp-executor-input: KFP's {{$}} (scalars for system.Metrics) */
};

struct metrics;
struct metrics_progress;
struct metrics_series;
struct launch_progress;

struct launch_metrics {
	struct metrics *m;		/* NULL with --metrics none */
	const struct launch_metrics_opts *o;
	struct launch_progress *prog;
	double last_print;		/* when the last progress line went out, 0 none */
	unsigned long printed_at;	/* metric lines when it did */
	int trainer_status;		/* the job reports its own progress (TrainJob
					 * status.trainerStatus): no "training:" lines */
};

/* The NAME=REGEX entries of one --metric value: one per line, blank lines
 * not counted (so an empty value is no pattern at all). */
size_t launch_metrics_entries(const char *value);

/* Check the flags (compile the patterns) without keeping anything. */
int launch_metrics_check(const struct launch_metrics_opts *o, struct err *e);

/* A store as the flags say, fed nothing yet (metrics_free it); NULL with
 * `e` set when a --metric pattern is bad. */
struct metrics *launch_metrics_store(const struct launch_metrics_opts *o, struct err *e);

/* Make the run's store (`o` and `prog` must outlive it). */
int launch_metrics_init(struct launch_metrics *lm, const struct launch_metrics_opts *o,
			struct launch_progress *prog, struct err *e);
void launch_metrics_free(struct launch_metrics *lm);

/* One complete line of worker `worker`, after it was printed. */
void launch_metrics_line(struct launch_metrics *lm, int worker, const char *line, size_t len);

/* The run is over: a last progress line if any metric was seen. */
void launch_metrics_end(struct launch_metrics *lm);

/* The percent done from the logs (step/total), into `out`; nothing unknown. */
void launch_metrics_percent(const struct metrics *m, struct buf *out);

/* Up to `max` series of `m` in the order a reader looks for them (the
 * training loss, other losses, then the rest; by name within each), into
 * `out`; how many. The progress line and the chart show the same ones. */
int launch_metrics_pick(const struct metrics *m, const struct metrics_series **out, size_t max);

/* "step 1200/5000 (24%)" of `p` (the x label is the store's), into `b`. */
void launch_metrics_step(struct buf *b, const struct metrics_progress *p);

#endif
