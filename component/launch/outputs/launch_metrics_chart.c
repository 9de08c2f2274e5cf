/*
 * launch_metrics_chart.c - see launch_metrics_chart.h.
 */
#include "launch_metrics_chart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch_metrics.h"
#include "metrics/metrics.h"
#include "metrics/svgchart.h"

/* The outcome's colour: good, bad, or neither while it runs (or unknown). */
static int good_state(const char *state)
{
	if (!state)
		return -1;
	if (!strcmp(state, "Succeeded"))
		return 1;
	return strcmp(state, "Running") ? 0 : -1;
}

void launch_metrics_chart(const struct metrics *m, const char *title, const char *state,
			  size_t points, struct buf *out)
{
	const struct metrics_series *pick[SVGCHART_PANELS_MAX];
	struct svgchart_series cs[SVGCHART_PANELS_MAX];
	struct lttb_point *pts[SVGCHART_PANELS_MAX];
	char notes[SVGCHART_PANELS_MAX][96];
	struct metrics_progress p;
	struct svgchart c;
	int n = launch_metrics_pick(m, pick, SVGCHART_PANELS_MAX);

	metrics_progress(m, &p);
	for (int i = 0; i < n; i++) {
		pts[i] = xcalloc(points, sizeof(*pts[i]));
		cs[i].name = pick[i]->name;
		cs[i].pts = pts[i];
		cs[i].n = metrics_sample(pick[i], pts[i], points);
		snprintf(notes[i], sizeof(notes[i]), "last %.4g at %s %.10g%s", pick[i]->last,
			 metrics_xlabel(p.xkind), pick[i]->last_x,
			 pick[i]->nonfinite ? " (NaN/inf seen)" : "");
		cs[i].note = notes[i];
	}
	memset(&c, 0, sizeof(c));
	c.title = title;
	c.outcome = state;
	c.outcome_good = good_state(state);
	c.xlabel = metrics_xlabel(p.xkind);
	c.series = cs;
	c.nseries = metrics_nseries(m) < SVGCHART_PANELS_MAX ? (size_t)n : metrics_nseries(m);
	svgchart_render(&c, out);
	for (int i = 0; i < n; i++)
		free(pts[i]);
}
