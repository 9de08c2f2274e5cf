/*
 * launch_metrics.h - training metrics during `jaxjob launch`: the --metrics*
 * flags made into a lib/metrics.h store, fed every worker log line once,
 * a bounded-rate progress line on stderr, and the metrics outputs.
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
 * KFP: with --kfp-executor-input (the {{$}} placeholder) the last, min and
 * max of every metric are written into the executor output file
 * (ExecutorInput.outputs.outputFile) as the metadata of each output
 * artifact of type system.Metrics; KFP's launcher merges that metadata into
 * the artifact it records (kubeflow/pipelines backend/src/v2/component/
 * launcher_v2.go: execute() -> getExecutorOutputFile(), then
 * uploadOutputArtifacts() -> mergeRuntimeArtifacts()), and the UI shows a
 * system.Metrics artifact's metadata as its scalar metrics. Output
 * parameters are still read from their files: the file holds no
 * parameterValues (collectOutputParameters reads files for those).
 *
 * Ownership: struct launch_metrics owns its store; launch_metrics_free().
 */
#ifndef JAXJOB_LAUNCH_METRICS_H
#define JAXJOB_LAUNCH_METRICS_H

#include <stddef.h>

#include "buf.h"
#include "err.h"
#include "launch_opts.h"

struct metrics;
struct launch_progress;
struct launch_result;

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

/* Make the store (`o` and `prog` must outlive it). */
int launch_metrics_init(struct launch_metrics *lm, const struct launch_metrics_opts *o,
			struct launch_progress *prog, struct err *e);
void launch_metrics_free(struct launch_metrics *lm);

/* One complete line of worker `worker`, after it was printed. */
void launch_metrics_line(struct launch_metrics *lm, int worker, const char *line, size_t len);

/* The run is over: a last progress line if any metric was seen. */
void launch_metrics_end(struct launch_metrics *lm);

/* The percent done from the logs (step/total), into `out`; nothing unknown. */
void launch_metrics_percent(const struct metrics *m, struct buf *out);

/* The metrics part of the Markdown summary (a table), nothing without metrics. */
void launch_metrics_summary(const struct metrics *m, struct buf *out);

/*
 * Write the metrics outputs that are asked for, and the KFP executor
 * output. Goes on after a failed file; -1 with the first error.
 */
int launch_metrics_write(const struct launch_metrics *lm, const struct launch_outputs *paths,
			 const struct launch_result *r, struct err *e);

/* The chart's SVG for `m` (deterministic), titled and with the outcome. */
void launch_metrics_chart(const struct metrics *m, const char *title, const char *state,
			  size_t points, struct buf *out);

#endif
