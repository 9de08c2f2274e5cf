/*
 * launch_metrics_chart.h - the training metrics as an SVG line chart
 * (lib/metrics/svgchart.h): one panel per metric, in the order of
 * launch_metrics_pick, each downsampled to `points` (LTTB, lib/metrics/lttb.h),
 * titled with the job and coloured by its outcome. Deterministic: the same
 * store gives the same bytes.
 */
#ifndef JAXJOB_LAUNCH_METRICS_CHART_H
#define JAXJOB_LAUNCH_METRICS_CHART_H

#include <stddef.h>

#include "buf.h"

struct metrics;

/* The chart's SVG for `m`, titled and with the outcome `state`, into `out`. */
void launch_metrics_chart(const struct metrics *m, const char *title, const char *state,
			  size_t points, struct buf *out);

#endif
