/*
 * svgchart.h - a self-contained SVG line chart of training metrics: one
 * small panel per metric (its own y axis: a loss of 0.2 and an accuracy of
 * 92 cannot share one), x = steps, axes with "nice" ticks (1, 2, 5 x 10^k)
 * that cover the data, grid, labels, the last value, and a header with the
 * job and its outcome.
 *
 * Self-contained: no script, no external font, stylesheet or image, so it
 * shows the same in a browser, as an <img> data: URI in a Markdown
 * viewer and inline in an HTML page. Readable in light and dark themes: it
 * paints its own background, and a prefers-color-scheme media query in its
 * <style> switches background, text and grid colours; the line colours are
 * mid-tones that read on both. No XML declaration, so the same bytes are a
 * valid .svg file and valid inline SVG in HTML.
 *
 * Deterministic: the same input gives the same bytes (fixed layout, fixed
 * number formats, no time or randomness). Each panel's <g> carries
 * data-x-min/-max and data-y-min/-max: the axis ranges, for tests and tools.
 *
 * Ownership: reads the caller's arrays; appends to `out`.
 */
#ifndef JAXJOB_SVGCHART_H
#define JAXJOB_SVGCHART_H

#include <stddef.h>

#include "buf.h"
#include "lttb.h"

#define SVGCHART_PANELS_MAX 8

struct svgchart_series {
	const char *name;
	const struct lttb_point *pts;	/* x ascending, finite */
	size_t n;
	const char *note;		/* shown after the name (e.g. "last 0.12 @ step 900"), or NULL */
};

struct svgchart {
	const char *title;		/* e.g. "JAXJob team-a/mnist" */
	const char *outcome;		/* e.g. "Succeeded", or NULL */
	int outcome_good;		/* 1 green, 0 red, -1 neutral */
	const char *xlabel;		/* "step" */
	const struct svgchart_series *series;
	size_t nseries;			/* panels beyond SVGCHART_PANELS_MAX are left out (said in the header) */
};

void svgchart_render(const struct svgchart *c, struct buf *out);

/* Nice axis: ticks of step 1, 2 or 5 x 10^k covering [lo, hi] with about
 * `want` intervals. Writes the axis ends and the step. */
void svgchart_axis(double lo, double hi, int want, double *alo, double *ahi, double *step);

#endif
