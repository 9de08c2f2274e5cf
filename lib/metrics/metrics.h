/*
 * metrics.h - training metrics from worker log lines: a bounded series
 * store fed one line at a time, and the numbers a run reports at the end.
 *
 * metrics_line() recognises the line (metrics_scan.h, plus the user's
 * `NAME=REGEX` patterns), decides its step, and appends one point per
 * metric. It never touches the line: the caller prints it as it came.
 *
 * The step of a value (its x): the step counter on its line; else the last
 * step this worker printed; else the epoch on its line or the last one;
 * else the count of values of that metric so far (1, 2, ...). The x axis is
 * called after the first kind used ("step", "epoch" or "record").
 *
 * Sources: METRICS_FROM_FIRST reads worker 0 only (in data-parallel JAX
 * every process prints the same numbers; one is the truth), _ANY merges all
 * workers into one series per metric, _ALL keeps a series per worker
 * ("loss@3" is worker 3's loss).
 *
 * One value per step, and a restarted worker: a value at the step of the
 * series' last point replaces it (later values override). A value at an
 * earlier step means the worker went back (restarted from a checkpoint or
 * from scratch): the points from that step on are dropped and the series
 * goes on from there, counted in `rewinds`. With _ANY, an earlier step from
 * another worker than the one that printed the last point is a lagging
 * worker, not a restart: that value is ignored. last/min/max (and their
 * steps) are over every finite value seen, including values a rewind
 * dropped from the series.
 *
 * NaN and infinities are counted (`nonfinite`) and reported as the last
 * value when they are the last, but never enter min/max or the series (a
 * chart cannot draw them).
 *
 * Bounded memory whatever the job length: at most METRICS_SERIES_MAX
 * series (more names are counted in `dropped_names` and ignored), each
 * keeps at most METRICS_KEEP * 2 points: when full, LTTB (lttb.h) halves it.
 * So a series holds the printed points exactly up to METRICS_KEEP * 2
 * values, and a shape-preserving selection of them after that.
 *
 * Ownership: metrics_new() returns a store the caller frees with
 * metrics_free(); patterns are compiled into it.
 */
#ifndef JAXJOB_METRICS_H
#define JAXJOB_METRICS_H

#include <stddef.h>

#include "buf.h"
#include "err.h"
#include "lttb.h"
#include "metrics_scan.h"

#define METRICS_SERIES_MAX 64
#define METRICS_KEEP 2048
#define METRICS_PATTERNS_MAX 32

enum metrics_from { METRICS_FROM_FIRST, METRICS_FROM_ANY, METRICS_FROM_ALL };
enum metrics_xkind { METRICS_X_NONE, METRICS_X_STEP, METRICS_X_EPOCH, METRICS_X_COUNT };

struct metrics_opts {
	int builtin;			/* recognise the common shapes (else patterns only) */
	enum metrics_from from;
	const char *const *step_keys;	/* extra step-counter names, NULL-terminated, or NULL;
					 * must outlive the store */
	double total_steps;		/* known total, 0 = from the log if it says */
	double (*clock)(void);		/* seconds, monotonic: read only for a line that holds
					 * a metric (most lines do not); NULL: metrics_line's `now` */
};

struct metrics_series {
	char name[METRICS_NAME_MAX + 8];	/* "loss", or "loss@3" with _ALL */
	int worker;			/* the worker of the last point */
	struct lttb_point *pts;		/* x ascending */
	size_t n, cap;
	unsigned long count;		/* values seen (finite or not) */
	unsigned long nonfinite;
	unsigned long rewinds;
	int has_finite;
	double last, last_x;		/* last value (may be NaN/inf) and its step */
	double min, min_x, max, max_x;
	double seen;			/* values seen, for METRICS_X_COUNT steps */
};

struct metrics;

struct metrics *metrics_new(const struct metrics_opts *o);
void metrics_free(struct metrics *m);

/*
 * A user pattern "NAME=REGEX": a POSIX extended regex with exactly one
 * capture group, the number. NAME "step" (or a --metric-step name) makes it
 * the step counter. Errors name the pattern and the fix.
 *
 * The same NAME may come more than once: POSIX EREs have no non-capturing
 * group, so two shapes of one metric ("mfu: 41.2" and "MFU=41.2%") cannot
 * share one regex with one capture group; each is a pattern of its own and
 * they feed one series (on a line both match, the later pattern wins).
 */
int metrics_add_pattern(struct metrics *m, const char *spec, struct err *e);

/* The same for line `line` (1-based) of a multi-line --metric value: the
 * errors say "--metric line N" so the author finds the entry; line 0 is
 * metrics_add_pattern's wording (the whole value). */
int metrics_add_pattern_at(struct metrics *m, const char *spec, int line, struct err *e);

/* One complete log line of worker `worker` (line[len] == '\0'), at time `now`
 * (seconds, any monotonic clock; with opts.clock, what it says instead).
 * Returns 1 when it carried a metric. */
int metrics_line(struct metrics *m, int worker, const char *line, size_t len, double now);

/* The time of the last line that moved the progress (0: none yet). */
double metrics_last_time(const struct metrics *m);

/* ---- reading the store ---- */
size_t metrics_nseries(const struct metrics *m);
/* Series in name order (stable for outputs). */
const struct metrics_series *metrics_get(const struct metrics *m, size_t i);

struct metrics_progress {
	enum metrics_xkind xkind;
	int has_step;
	double step;		/* the latest step (x) of the last metric line */
	double total;		/* total steps: opts, else printed, 0 unknown */
	double rate;		/* steps per second since the first value (or the last rewind), 0 unknown */
	double eta_s;		/* seconds left, -1 unknown */
	double t_first, t_last;	/* times of the first and the last metric line */
	unsigned long lines, metric_lines, dropped_names;
};
void metrics_progress(const struct metrics *m, struct metrics_progress *p);
const char *metrics_xlabel(enum metrics_xkind k);	/* "step", "epoch", "record" */

/*
 * The series downsampled to at most `points` points (LTTB) into `out`
 * (room for `points`); returns how many.
 */
size_t metrics_sample(const struct metrics_series *s, struct lttb_point *out, size_t points);

/* ---- outputs (deterministic for the same lines, apart from the times) ---- */
/* JSON object: {"metrics": {NAME: {last, last_step, min, min_step, max,
 * max_step, count, nonfinite, rewinds}}, "step": {...}, "duration_s",
 * "steps_per_s", ...}. Non-finite numbers are written as strings. */
void metrics_json(const struct metrics *m, struct buf *out);
/* CSV "metric,step,value" rows, by metric then step, at most `points` per metric. */
void metrics_csv(const struct metrics *m, size_t points, struct buf *out);
/* A number as JSON would want it: %.10g, or "NaN"/"Infinity"/"-Infinity" quoted. */
void metrics_json_number(struct buf *out, double v);

#endif
