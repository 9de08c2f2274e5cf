/*
 * svgchart.c - see svgchart.h.
 */
#include "svgchart.h"

#include <math.h>
#include <string.h>

#define WIDTH 760
#define HEADER 44
#define PANEL_H 230
#define PAD_L 62
#define PAD_R 14
#define PAD_T 26
#define PAD_B 40

static const char *const palette[] = {
	"#3b82f6", "#ef4444", "#10b981", "#f59e0b", "#8b5cf6", "#ec4899", "#06b6d4", "#84cc16",
};

static void esc(struct buf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': buf_adds(out, "&amp;"); break;
		case '<': buf_adds(out, "&lt;"); break;
		case '>': buf_adds(out, "&gt;"); break;
		case '"': buf_adds(out, "&quot;"); break;
		case '\'': buf_adds(out, "&#39;"); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				buf_addch(out, *s);
		}
	}
}

static double nice(double x, int round)
{
	double e = floor(log10(x)), f = x / pow(10, e), nf;

	if (round)
		nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
	else
		nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
	return nf * pow(10, e);
}

void svgchart_axis(double lo, double hi, int want, double *alo, double *ahi, double *step)
{
	double span;

	if (!(hi > lo)) {	/* one value: a band around it */
		double d = fabs(lo) > 0 ? fabs(lo) * 0.1 : 1;
		lo -= d;
		hi += d;
	}
	span = nice(hi - lo, 0);
	*step = nice(span / want, 1);
	*alo = floor(lo / *step) * *step;
	*ahi = ceil(hi / *step) * *step;
	/* floating point: the data must stay inside */
	if (*alo > lo)
		*alo -= *step;
	if (*ahi < hi)
		*ahi += *step;
}

/* A tick label with as many decimals as the step needs, no more. */
static void tick_label(struct buf *out, double v, double step)
{
	double a = fabs(v);

	if (fabs(v) < step * 1e-9)
		v = 0;
	if (a >= 1e6 || (a > 0 && a < 1e-4) || step < 1e-4) {
		buf_addf(out, "%.3g", v);
	} else {
		int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
		buf_addf(out, "%.*f", dec, v);
	}
}

static void style(struct buf *out)
{
	buf_adds(out,
		 "<style>"
		 "text{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;font-size:11px}"
		 ".bg{fill:#ffffff}.fg{fill:#1f2937}.dim{fill:#6b7280}"
		 ".ax{stroke:#6b7280;fill:none}.grid{stroke:#e5e7eb}"
		 ".ok{fill:#15803d}.bad{fill:#b91c1c}.line{fill:none;stroke-width:1.6}"
		 ".title{font-size:13px;font-weight:bold}"
		 "@media (prefers-color-scheme: dark){"
		 ".bg{fill:#111827}.fg{fill:#e5e7eb}.dim{fill:#9ca3af}"
		 ".ax{stroke:#9ca3af}.grid{stroke:#374151}.ok{fill:#4ade80}.bad{fill:#f87171}}"
		 "</style>\n");
}

static void panel(struct buf *out, const struct svgchart_series *s, const char *xlabel,
		  int px, int py, int pw, const char *colour)
{
	double xlo = 0, xhi = 1, ylo = 0, yhi = 1, xs, ys, axlo, axhi, aylo, ayhi;
	int l = px + PAD_L, r = px + pw - PAD_R, t = py + PAD_T, b = py + PANEL_H - PAD_B;

	for (size_t i = 0; i < s->n; i++) {
		if (i == 0 || s->pts[i].x < xlo) xlo = s->pts[i].x;
		if (i == 0 || s->pts[i].x > xhi) xhi = s->pts[i].x;
		if (i == 0 || s->pts[i].y < ylo) ylo = s->pts[i].y;
		if (i == 0 || s->pts[i].y > yhi) yhi = s->pts[i].y;
	}
	svgchart_axis(xlo, xhi, 5, &axlo, &axhi, &xs);
	svgchart_axis(ylo, yhi, 4, &aylo, &ayhi, &ys);
	buf_addf(out, "<g data-name=\"");
	esc(out, s->name);
	buf_addf(out, "\" data-points=\"%zu\" data-x-min=\"%.10g\" data-x-max=\"%.10g\" "
		 "data-y-min=\"%.10g\" data-y-max=\"%.10g\">\n", s->n, axlo, axhi, aylo, ayhi);
	buf_addf(out, "<text class=\"fg title\" x=\"%d\" y=\"%d\">", l, py + 16);
	esc(out, s->name);
	buf_adds(out, "</text>");
	if (s->note) {
		buf_addf(out, "<text class=\"dim\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", r,
			 py + 16);
		esc(out, s->note);
		buf_adds(out, "</text>");
	}
	buf_adds(out, "\n");
	/* grid and tick labels */
	for (int i = 0;; i++) {
		double v = aylo + i * ys;
		double y;
		if (v > ayhi + ys * 1e-9)
			break;
		y = b - (v - aylo) / (ayhi - aylo) * (b - t);
		buf_addf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
			 "<text class=\"dim\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", l, y, r, y,
			 l - 5, y + 3.5);
		tick_label(out, v, ys);
		buf_adds(out, "</text>\n");
	}
	for (int i = 0;; i++) {
		double v = axlo + i * xs;
		double x;
		if (v > axhi + xs * 1e-9)
			break;
		x = l + (v - axlo) / (axhi - axlo) * (r - l);
		buf_addf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
			 "<text class=\"dim\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x, t, x, b,
			 x, b + 14);
		tick_label(out, v, xs);
		buf_adds(out, "</text>\n");
	}
	buf_addf(out, "<path class=\"ax\" d=\"M%d %dV%dH%d\"/>\n", l, t, b, r);
	buf_addf(out, "<text class=\"fg\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (l + r) / 2,
		 b + 30);
	esc(out, xlabel);
	buf_adds(out, "</text>\n");
	/* the line (a single point is drawn as a dot) */
	if (s->n == 1) {
		double x = l + (s->pts[0].x - axlo) / (axhi - axlo) * (r - l);
		double y = b - (s->pts[0].y - aylo) / (ayhi - aylo) * (b - t);
		buf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", x, y,
			 colour);
	} else if (s->n > 1) {
		buf_addf(out, "<polyline class=\"line\" stroke=\"%s\" points=\"", colour);
		for (size_t i = 0; i < s->n; i++) {
			double x = l + (s->pts[i].x - axlo) / (axhi - axlo) * (r - l);
			double y = b - (s->pts[i].y - aylo) / (ayhi - aylo) * (b - t);
			buf_addf(out, "%s%.1f,%.1f", i ? " " : "", x, y);
		}
		buf_adds(out, "\"/>\n");
	}
	buf_adds(out, "</g>\n");
}

void svgchart_render(const struct svgchart *c, struct buf *out)
{
	size_t n = c->nseries < SVGCHART_PANELS_MAX ? c->nseries : SVGCHART_PANELS_MAX;
	int cols = n > 1 ? 2 : 1, rows = n ? (int)((n + (size_t)cols - 1) / (size_t)cols) : 1;
	int height = HEADER + rows * PANEL_H + 6, pw = WIDTH / cols;

	buf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		 "viewBox=\"0 0 %d %d\" role=\"img\">\n<title>", WIDTH, height, WIDTH, height);
	esc(out, c->title);
	buf_adds(out, ": training metrics</title>\n");
	style(out);
	buf_addf(out, "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" rx=\"6\"/>\n",
		 WIDTH, height);
	buf_adds(out, "<text class=\"fg title\" x=\"14\" y=\"22\">");
	esc(out, c->title);
	buf_adds(out, "</text>");
	if (c->outcome) {
		buf_addf(out, "<text class=\"%s title\" x=\"%d\" y=\"22\" text-anchor=\"end\">",
			 c->outcome_good == 1 ? "ok" : c->outcome_good == 0 ? "bad" : "fg",
			 WIDTH - 14);
		esc(out, c->outcome);
		buf_adds(out, "</text>");
	}
	buf_adds(out, "\n<text class=\"dim\" x=\"14\" y=\"38\">");
	if (!c->nseries)
		buf_adds(out, "no metrics were recognised in the workers' logs");
	else if (c->nseries > n)
		buf_addf(out, "%zu of %zu metrics shown", n, c->nseries);
	else
		buf_addf(out, "%zu metric%s by %s", n, n > 1 ? "s" : "", c->xlabel);
	buf_adds(out, "</text>\n");
	for (size_t i = 0; i < n; i++)
		panel(out, &c->series[i], c->xlabel, (int)(i % (size_t)cols) * pw,
		      HEADER + (int)(i / (size_t)cols) * PANEL_H, pw,
		      palette[i % (sizeof(palette) / sizeof(palette[0]))]);
	buf_adds(out, "</svg>\n");
}
