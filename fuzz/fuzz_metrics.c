/*
 * fuzz_metrics.c - libFuzzer target for the training-metrics path: every
 * worker log line goes through lib/metrics/metrics_scan.c and lib/metrics/metrics.c, so
 * they take arbitrary text (a training script prints what it likes).
 *
 * Input: byte 0 selects the source mode (bits 0-1: first/any/all) and
 * whether a user pattern is added (bit 2); the rest is split at '\n' into
 * lines, each fed as a NUL-terminated line of worker (line number % 3).
 * Contracts: the store stays within its bounds (series count, points per
 * series), each series' points are x-ascending and finite, min <= max, the
 * JSON output parses, the CSV has at most `points` rows per metric, and the
 * SVG chart renders the same bytes twice; and the shape memo gives every
 * line the full scan's record (metrics_scan_memo against metrics_scan, on
 * the same lines in the same order).
 */
#include <cJSON.h>
#include <math.h>

#include "fuzz_common.h"
#include "metrics/metrics.h"
#include "metrics/svgchart.h"

/* Bit for bit: NaN is NaN. */
static int same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

static void check_memo(struct metrics_memo *mm, const char *line)
{
	struct metrics_rec full;
	const struct metrics_rec *r = metrics_scan_memo(mm, line, strlen(line), NULL);
	int same;

	metrics_scan(line, strlen(line), NULL, &full);
	same = r->has_step == full.has_step && same_double(r->step, full.step) &&
	       same_double(r->step_total, full.step_total) && r->has_epoch == full.has_epoch &&
	       same_double(r->epoch, full.epoch) && same_double(r->epoch_total, full.epoch_total) &&
	       r->n == full.n;
	for (int i = 0; same && i < r->n; i++)
		same = !strcmp(r->kv[i].name, full.kv[i].name) &&
		       same_double(r->kv[i].value, full.kv[i].value);
	FUZZ_CHECK(same, "the shape memo and the full scan differ on \"%.200s\"", line);
}

static void check_series(const struct metrics_series *s)
{
	FUZZ_CHECK(s->n <= 2 * METRICS_KEEP, "series %s holds %zu points", s->name, s->n);
	for (size_t i = 0; i < s->n; i++) {
		FUZZ_CHECK(isfinite(s->pts[i].x) && isfinite(s->pts[i].y), "non-finite point in %s",
			   s->name);
		if (i)
			FUZZ_CHECK(s->pts[i].x > s->pts[i - 1].x, "x not ascending in %s", s->name);
	}
	if (s->has_finite)
		FUZZ_CHECK(s->min <= s->max, "min > max in %s", s->name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metrics_opts o;
	struct metrics *m;
	struct buf out = BUF_INIT, again = BUF_INIT;
	struct err e = ERR_INIT;
	struct lttb_point pts[50];
	struct metrics_memo *mm;
	size_t start = 1;
	int worker = 0;

	if (size < 1)
		return 0;
	mm = calloc(1, sizeof(*mm));
	memset(&o, 0, sizeof(o));
	o.builtin = 1;
	o.from = (enum metrics_from)(data[0] % 3);
	m = metrics_new(&o);
	if (data[0] & 4)
		FUZZ_CHECK(metrics_add_pattern(m, "val=value is ([-0-9.e]+)", &e) == 0, "%s", e.msg);
	for (size_t i = 1; i <= size; i++) {
		if (i < size && data[i] != '\n')
			continue;
		char *line = fuzz_strndup(data + start, i - start);
		metrics_line(m, worker++ % 3, line, strlen(line), (double)i);
		check_memo(mm, line);
		free(line);
		start = i + 1;
	}
	FUZZ_CHECK(metrics_nseries(m) <= METRICS_SERIES_MAX, "%zu series", metrics_nseries(m));
	for (size_t i = 0; i < metrics_nseries(m); i++) {
		const struct metrics_series *s = metrics_get(m, i);
		check_series(s);
		FUZZ_CHECK(metrics_sample(s, pts, 50) <= 50, "sample larger than asked");
	}
	metrics_json(m, &out);
	cJSON *j = cJSON_Parse(out.data);
	FUZZ_CHECK(j != NULL, "metrics JSON does not parse: %.200s", out.data);
	cJSON_Delete(j);
	buf_reset(&out);
	metrics_csv(m, 50, &out);
	for (size_t i = 0; i < metrics_nseries(m) && i < 2; i++) {	/* the chart is the slow part */
		struct svgchart_series cs = { metrics_get(m, i)->name, pts, 0, NULL };
		struct svgchart c = { "t", "Succeeded", 1, "step", &cs, 1 };
		cs.n = metrics_sample(metrics_get(m, i), pts, 50);
		buf_reset(&out);
		buf_reset(&again);
		svgchart_render(&c, &out);
		svgchart_render(&c, &again);
		FUZZ_CHECK(out.len == again.len && !memcmp(out.data, again.data, out.len),
			   "the chart is not deterministic");
	}
	buf_free(&out);
	buf_free(&again);
	metrics_free(m);
	free(mm);
	return 0;
}
