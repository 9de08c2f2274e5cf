/*
 * metrics.c - see metrics.h. The store: a small hash from series name to
 * series, a name-ordered index for the outputs, per-worker step memory,
 * and the user's compiled patterns.
 */
#include "metrics.h"

#include <math.h>
#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 128		/* hash slots, > 2 * METRICS_SERIES_MAX */
#define WORKERS_MAX 65536	/* per-worker step memory beyond this is shared */

struct pattern {
	char name[METRICS_NAME_MAX];
	int is_step;
	regex_t re;
};

/* What a worker printed last that later lines may lack. */
struct source {
	int has_step, has_epoch;
	double step, epoch;
};

struct metrics {
	struct metrics_opts o;
	struct pattern pat[METRICS_PATTERNS_MAX];
	int npat;

	struct metrics_series *series[METRICS_SERIES_MAX];
	struct metrics_series *sorted[METRICS_SERIES_MAX];
	size_t nseries;
	int slot[SLOTS];		/* index into series + 1, 0 = empty */

	struct source *src;
	size_t nsrc;

	enum metrics_xkind xkind;
	int has_x;
	double x, x_total;		/* latest step of xkind; printed total */
	double rate_t0, rate_x0;	/* base of the rate: first value or last rewind */
	double t_first, t_last;
	unsigned long lines, metric_lines, dropped_names;
	/* the series of the previous metric line's i-th value: training logs
	 * print one template, so the next line's i-th name is nearly always the
	 * same, and one strcmp replaces naming and hashing (bench/README.md) */
	struct metrics_series *hint[METRICS_KV_MAX];
	/* the memo's `names` when hint[0..n) were last matched to its record's
	 * names: while it has not moved, a record from the memo needs no
	 * strcmp (0: not matched to the memo's record) */
	unsigned long hint_names;
	/* one memo for all the workers' lines: it goes by the line's shape,
	 * not by who printed it, and workers print the same template */
	struct metrics_memo memo;
};

struct metrics *metrics_new(const struct metrics_opts *o)
{
	struct metrics *m = xcalloc(1, sizeof(*m));

	m->o = *o;
	return m;
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->npat; i++)
		regfree(&m->pat[i].re);
	for (size_t i = 0; i < m->nseries; i++) {
		free(m->series[i]->pts);
		free(m->series[i]);
	}
	free(m->src);
	free(m);
}

/* ---- user patterns --------------------------------------------------------- */

static int valid_name(const char *s, size_t n)
{
	if (!n || n >= METRICS_NAME_MAX)
		return 0;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-", s[i]))
			return 0;
	return 1;
}

static int is_step_name(const struct metrics *m, const char *name)
{
	if (!strcmp(name, "step"))
		return 1;
	for (size_t i = 0; m->o.step_keys && m->o.step_keys[i]; i++)
		if (!strcmp(name, m->o.step_keys[i]))
			return 1;
	return 0;
}

/* The error when `spec` has no "NAME=": a multi-line value's entry is shown
 * as the line to write, not as a flag to repeat. */
static int no_name(const char *spec, int line, struct err *e)
{
	if (!line)
		return err_set(e, ERR_INPUT, "--metric \"%s\" needs NAME=REGEX, e.g. "
			       "--metric 'loss=loss is ([0-9.eE+-]+)'", spec);
	return err_set(e, ERR_INPUT, "--metric line %d: \"%s\" needs NAME=REGEX (one per line), "
		       "e.g. loss=loss is ([0-9.eE+-]+)", line, spec);
}

/* Compile p->re from `re`; errors name the metric as `who` ("--metric loss"
 * or "--metric line 2 (loss)"). */
static int compile_pattern(struct pattern *p, const char *re, const char *who, struct err *e)
{
	int rc = regcomp(&p->re, re, REG_EXTENDED);

	if (rc) {
		char why[128];
		regerror(rc, &p->re, why, sizeof(why));
		return err_set(e, ERR_INPUT, "%s: the regex \"%s\" does not compile (%s); "
			       "write a POSIX extended regex", who, re, why);
	}
	if (p->re.re_nsub != 1) {
		size_t groups = p->re.re_nsub;
		regfree(&p->re);
		return err_set(e, ERR_INPUT, "%s: the regex needs exactly one capture group "
			       "(the number), it has %zu; use (...) once, e.g. 'loss ([0-9.eE+-]+)'",
			       who, groups);
	}
	return 0;
}

int metrics_add_pattern_at(struct metrics *m, const char *spec, int line, struct err *e)
{
	const char *eq = strchr(spec, '=');
	struct pattern *p;
	char at[32], who[METRICS_NAME_MAX + 40];
	size_t n;

	if (!eq || eq == spec)
		return no_name(spec, line, e);
	snprintf(at, sizeof(at), line ? "--metric line %d:" : "--metric", line);
	n = (size_t)(eq - spec);
	if (!valid_name(spec, n))
		return err_set(e, ERR_INPUT, "%s name \"%.*s\" is not valid: start with a letter "
			       "or '_', then letters, digits, '_', '.', '/', '-' (at most %d characters)",
			       at, (int)n, spec, METRICS_NAME_MAX - 1);
	if (m->npat == METRICS_PATTERNS_MAX)
		return err_set(e, ERR_INPUT, "%s%stoo many --metric patterns (at most %d)",
			       line ? at : "", line ? " " : "", METRICS_PATTERNS_MAX);
	p = &m->pat[m->npat];
	memcpy(p->name, spec, n);
	p->name[n] = '\0';
	p->is_step = is_step_name(m, p->name);
	if (line)
		snprintf(who, sizeof(who), "--metric line %d (%s)", line, p->name);
	else
		snprintf(who, sizeof(who), "--metric %s", p->name);
	if (compile_pattern(p, eq + 1, who, e))
		return -1;
	m->npat++;
	return 0;
}

int metrics_add_pattern(struct metrics *m, const char *spec, struct err *e)
{
	return metrics_add_pattern_at(m, spec, 0, e);
}

/* Apply the patterns to the line; their values join (and override) `r`. */
static void run_patterns(const struct metrics *m, const char *line, struct metrics_rec *r)
{
	for (int i = 0; i < m->npat; i++) {
		const struct pattern *p = &m->pat[i];
		regmatch_t g[2];
		double v;

		if (regexec(&p->re, line, 2, g, 0) || g[1].rm_so < 0)
			continue;
		if (metrics_parse_number(line + g[1].rm_so, (size_t)(g[1].rm_eo - g[1].rm_so), &v))
			continue;
		if (p->is_step) {
			if (!isfinite(v))
				continue;
			r->has_step = 1;
			r->step = v;
			continue;
		}
		int k;
		for (k = 0; k < r->n; k++)
			if (!strcmp(r->kv[k].name, p->name))
				break;
		if (k == r->n) {
			if (r->n == METRICS_KV_MAX)
				continue;
			snprintf(r->kv[k].name, sizeof(r->kv[k].name), "%s", p->name);
			r->n++;
		}
		r->kv[k].value = v;
	}
}

/* ---- series ------------------------------------------------------------------ */

static uint32_t fnv(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct metrics_series *series_of(struct metrics *m, const char *name)
{
	uint32_t h = fnv(name) % SLOTS;
	struct metrics_series *s;
	size_t i;

	for (; m->slot[h]; h = (h + 1) % SLOTS)
		if (!strcmp(m->series[m->slot[h] - 1]->name, name))
			return m->series[m->slot[h] - 1];
	if (m->nseries == METRICS_SERIES_MAX) {
		m->dropped_names++;
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	m->series[m->nseries] = s;
	m->slot[h] = (int)++m->nseries;
	/* keep the name order for the outputs (insertion into <= 64) */
	for (i = m->nseries - 1; i > 0 && strcmp(m->sorted[i - 1]->name, name) > 0; i--)
		m->sorted[i] = m->sorted[i - 1];
	m->sorted[i] = s;
	return s;
}

/* First point index with x >= `x` (points are x ascending). */
static size_t lower_bound(const struct metrics_series *s, double x)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->pts[mid].x < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void append(struct metrics_series *s, double x, double y)
{
	if (s->n > 0 && s->pts[s->n - 1].x == x) {
		s->pts[s->n - 1].y = y;	/* later values override */
		return;
	}
	if (s->n == 2 * METRICS_KEEP)
		s->n = lttb(s->pts, s->n, s->pts, METRICS_KEEP);
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		if (s->cap > 2 * METRICS_KEEP)
			s->cap = 2 * METRICS_KEEP;
		s->pts = xrealloc(s->pts, s->cap * sizeof(*s->pts));
	}
	s->pts[s->n].x = x;
	s->pts[s->n].y = y;
	s->n++;
}

/* One value of one series. Returns 0 when it was ignored (a lagging worker). */
static int series_add(struct metrics *m, struct metrics_series *s, int worker, double x,
		      double v)
{
	if (s->count && x < s->last_x) {
		if (m->o.from == METRICS_FROM_ANY && worker != s->worker)
			return 0;	/* a worker behind the others, not a restart */
		s->n = lower_bound(s, x);
		s->rewinds++;
	}
	s->count++;
	s->worker = worker;
	s->last = v;
	s->last_x = x;
	if (!isfinite(v)) {
		s->nonfinite++;
		return 1;
	}
	if (!s->has_finite || v < s->min) {
		s->min = v;
		s->min_x = x;
	}
	if (!s->has_finite || v > s->max) {
		s->max = v;
		s->max_x = x;
	}
	s->has_finite = 1;
	append(s, x, v);
	return 1;
}

static struct source *source_of(struct metrics *m, int worker)
{
	size_t i = worker < 0 ? 0 : (size_t)worker + 1;

	if (i >= WORKERS_MAX)
		i = WORKERS_MAX - 1;
	if (i >= m->nsrc) {
		size_t n = m->nsrc ? m->nsrc : 8;
		while (n <= i)
			n *= 2;
		m->src = xrealloc(m->src, n * sizeof(*m->src));
		memset(m->src + m->nsrc, 0, (n - m->nsrc) * sizeof(*m->src));
		m->nsrc = n;
	}
	return &m->src[i];
}

/* The series name of `kv` for `worker`: "loss", or "loss@3" with _ALL. */
static void series_name(const struct metrics *m, const char *name, int worker,
			char out[METRICS_NAME_MAX + 8])
{
	if (m->o.from == METRICS_FROM_ALL)
		snprintf(out, METRICS_NAME_MAX + 8, "%s@%d", name, worker);
	else
		memcpy(out, name, strlen(name) + 1);	/* < METRICS_NAME_MAX: per value, no printf */
}

static void track_progress(struct metrics *m, enum metrics_xkind kind, double x, double now,
			   double total)
{
	if (m->xkind == METRICS_X_NONE)
		m->xkind = kind;
	if (!m->t_first)
		m->t_first = now;
	m->t_last = now;
	if (kind != m->xkind || kind == METRICS_X_COUNT)
		return;
	if (total > 0)
		m->x_total = total;
	if (!m->has_x || x < m->x) {	/* the first value, or a restart */
		m->rate_t0 = now;
		m->rate_x0 = x;
	}
	m->has_x = 1;
	m->x = x;
}

int metrics_line(struct metrics *m, int worker, const char *line, size_t len, double now)
{
	const struct metrics_rec *r;
	struct metrics_rec own;
	struct source *src;
	enum metrics_xkind kind;
	double x = 0, total = 0;
	int used = 0;

	if (m->o.from == METRICS_FROM_FIRST && worker != 0)
		return 0;
	m->lines++;
	if (m->o.builtin) {
		r = metrics_scan_memo(&m->memo, line, len, m->o.step_keys);
	} else {
		memset(&own, 0, offsetof(struct metrics_rec, kv));
		r = &own;
	}
	if (m->npat) {
		if (r != &own)	/* the memo's record is the memo's: patterns add to a copy */
			memcpy(&own, r, offsetof(struct metrics_rec, kv) + (size_t)r->n * sizeof(r->kv[0]));
		run_patterns(m, line, &own);
		r = &own;
	}
	if (!r->has_step && !r->has_epoch && !r->n)
		return 0;
	src = source_of(m, worker);
	if (r->has_step) {
		src->has_step = 1;
		src->step = r->step;
	}
	if (r->has_epoch) {
		src->has_epoch = 1;
		src->epoch = r->epoch;
	}
	if (src->has_step) {
		kind = METRICS_X_STEP;
		x = src->step;
		total = r->has_step ? r->step_total : 0;
	} else if (src->has_epoch) {
		kind = METRICS_X_EPOCH;
		x = src->epoch;
		total = r->has_epoch ? r->epoch_total : 0;
	} else {
		kind = METRICS_X_COUNT;
	}
	/* the memo's own record with the names the hints were matched to */
	int same = r == &m->memo.rec && m->hint_names == m->memo.names;
	for (int i = 0; i < r->n; i++) {
		char name[METRICS_NAME_MAX + 8];
		struct metrics_series *s;

		s = m->hint[i];
		if (!s || (!same && (m->o.from == METRICS_FROM_ALL || strcmp(s->name, r->kv[i].name)))) {
			series_name(m, r->kv[i].name, worker, name);
			s = m->hint[i] = series_of(m, name);
		}
		if (!s)
			continue;
		s->seen++;
		used |= series_add(m, s, worker, kind == METRICS_X_COUNT ? s->seen : x, r->kv[i].value);
	}
	/* with _ALL the hints are never trusted (the names carry the worker) */
	m->hint_names = r == &m->memo.rec && m->o.from != METRICS_FROM_ALL ? m->memo.names : 0;
	if (!r->n && (r->has_step || r->has_epoch))
		used = 1;	/* "Epoch 3/10" alone still moves the progress */
	if (!used)
		return 0;
	m->metric_lines++;
	track_progress(m, kind, x, m->o.clock ? m->o.clock() : now, total);
	return r->n > 0;
}

/* ---- reading ------------------------------------------------------------------- */

double metrics_last_time(const struct metrics *m)
{
	return m->t_last;
}

size_t metrics_nseries(const struct metrics *m)
{
	return m->nseries;
}

const struct metrics_series *metrics_get(const struct metrics *m, size_t i)
{
	return i < m->nseries ? m->sorted[i] : NULL;
}

const char *metrics_xlabel(enum metrics_xkind k)
{
	switch (k) {
	case METRICS_X_EPOCH: return "epoch";
	case METRICS_X_COUNT: return "record";
	default: return "step";
	}
}

void metrics_progress(const struct metrics *m, struct metrics_progress *p)
{
	memset(p, 0, sizeof(*p));
	p->xkind = m->xkind;
	p->has_step = m->has_x;
	p->step = m->x;
	p->total = m->o.total_steps > 0 && m->xkind != METRICS_X_EPOCH ? m->o.total_steps :
		m->x_total;
	p->eta_s = -1;
	if (m->has_x && m->t_last > m->rate_t0 && m->x > m->rate_x0)
		p->rate = (m->x - m->rate_x0) / (m->t_last - m->rate_t0);
	if (p->rate > 0 && p->total > p->step)
		p->eta_s = (p->total - p->step) / p->rate;
	p->t_first = m->t_first;
	p->t_last = m->t_last;
	p->lines = m->lines;
	p->metric_lines = m->metric_lines;
	p->dropped_names = m->dropped_names;
}

size_t metrics_sample(const struct metrics_series *s, struct lttb_point *out, size_t points)
{
	return lttb(s->pts, s->n, out, points);
}

/* ---- outputs --------------------------------------------------------------------- */

void metrics_json_number(struct buf *out, double v)
{
	if (isnan(v))
		buf_adds(out, "\"NaN\"");
	else if (isinf(v))
		buf_adds(out, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
	else
		buf_addf(out, "%.10g", v);
}

static void json_key_number(struct buf *out, const char *key, double v, int comma)
{
	buf_addf(out, "\"%s\": ", key);
	metrics_json_number(out, v);
	if (comma)
		buf_adds(out, ", ");
}

void metrics_json(const struct metrics *m, struct buf *out)
{
	struct metrics_progress p;
	double duration;

	metrics_progress(m, &p);
	duration = p.t_last > p.t_first ? p.t_last - p.t_first : 0;
	buf_adds(out, "{\n  \"metrics\": {");
	for (size_t i = 0; i < m->nseries; i++) {
		const struct metrics_series *s = m->sorted[i];
		buf_addf(out, "%s\n    \"%s\": {\"count\": %lu, ", i ? "," : "", s->name, s->count);
		json_key_number(out, "last", s->last, 1);
		json_key_number(out, "last_step", s->last_x, 1);
		if (s->has_finite) {
			json_key_number(out, "max", s->max, 1);
			json_key_number(out, "max_step", s->max_x, 1);
			json_key_number(out, "min", s->min, 1);
			json_key_number(out, "min_step", s->min_x, 1);
		} else {
			buf_adds(out, "\"max\": null, \"max_step\": null, \"min\": null, "
				 "\"min_step\": null, ");
		}
		buf_addf(out, "\"nonfinite\": %lu, \"rewinds\": %lu}", s->nonfinite, s->rewinds);
	}
	buf_addf(out, "%s},\n  \"step\": {\"kind\": \"%s\", ", m->nseries ? "\n  " : "",
		 m->xkind == METRICS_X_NONE ? "none" : metrics_xlabel(m->xkind));
	if (p.has_step)
		json_key_number(out, "last", p.step, 1);
	else
		buf_adds(out, "\"last\": null, ");
	if (p.total > 0)
		json_key_number(out, "total", p.total, 0);
	else
		buf_adds(out, "\"total\": null");
	buf_adds(out, "},\n  ");
	json_key_number(out, "duration_s", duration, 1);
	if (p.rate > 0)
		json_key_number(out, "steps_per_s", p.rate, 0);
	else
		buf_adds(out, "\"steps_per_s\": null");
	buf_addf(out, ",\n  \"lines\": %lu, \"metric_lines\": %lu, \"dropped_names\": %lu\n}\n",
		 p.lines, p.metric_lines, p.dropped_names);
}

void metrics_csv(const struct metrics *m, size_t points, struct buf *out)
{
	struct lttb_point *tmp = xcalloc(points ? points : 1, sizeof(*tmp));

	buf_adds(out, "metric,step,value\n");
	for (size_t i = 0; i < m->nseries; i++) {
		const struct metrics_series *s = m->sorted[i];
		size_t n = metrics_sample(s, tmp, points);
		for (size_t j = 0; j < n; j++)
			buf_addf(out, "%s,%.10g,%.10g\n", s->name, tmp[j].x, tmp[j].y);
	}
	free(tmp);
}
