/*
 * launch_metrics.c - see launch_metrics.h.
 */
#include "launch_metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "launch_outputs.h"
#include "launch_progress.h"
#include "metrics.h"
#include "svgchart.h"

#define PROGRESS_VALUES 4	/* metrics on a progress line */
#define SUMMARY_ROWS 20
#define REPORT_POINTS_MAX 300	/* the chart embedded in the Markdown stays small */

/* ---- the --metric values ------------------------------------------------------ */

/*
 * One --metric value holds one NAME=REGEX per line, because a KFP input
 * arrives as one argv element however many patterns it carries (the
 * launcher substitutes {{$.inputs.parameters['x']}} inside one argument and
 * never splits it). A regex never needs a newline (it is matched against one
 * log line), so splitting there changes no single-line value.
 */

/* Line `*p` of a value as an entry: without the blanks that indent it (a
 * Python triple-quoted string, a YAML block) and without a CR (a file saved
 * on Windows); the rest, trailing blanks too, is the regex's. Moves `*p` to
 * the next line; 0 when there is none. */
static int next_entry(const char **p, struct buf *entry)
{
	const char *s = *p, *nl;
	size_t n;

	if (!s)
		return 0;
	nl = strchr(s, '\n');
	n = nl ? (size_t)(nl - s) : strlen(s);
	*p = nl ? nl + 1 : NULL;
	if (n && s[n - 1] == '\r')
		n--;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	buf_reset(entry);
	buf_add(entry, s, n);
	return 1;
}

size_t launch_metrics_entries(const char *value)
{
	struct buf entry;
	size_t n = 0;

	buf_init(&entry);
	while (next_entry(&value, &entry))
		n += entry.len != 0;
	buf_free(&entry);
	return n;
}

/*
 * Every entry of one value into `m`. A pipeline author learns of a bad entry
 * only after the run reached the step, so the one error line names the first
 * bad entry with its line and fix, and the lines of any other bad ones.
 */
static int add_patterns(struct metrics *m, const char *value, struct err *e)
{
	int multi = strchr(value, '\n') != NULL, line = 0, bad = 0;
	struct buf entry, others;
	struct err first = ERR_INIT, again = ERR_INIT;

	buf_init(&entry);
	buf_init(&others);
	while (next_entry(&value, &entry)) {
		line++;
		if (!entry.len)
			continue;
		if (!metrics_add_pattern_at(m, entry.data, multi ? line : 0, bad ? &again : &first))
			continue;
		if (bad++)
			buf_addf(&others, "%s%d", bad > 2 ? ", " : "", line);
	}
	if (bad == 1)
		*e = first;
	else if (bad)
		err_set(e, ERR_INPUT, "%s; line%s %s %s bad too", first.msg, bad > 2 ? "s" : "",
			others.data, bad > 2 ? "are" : "is");
	buf_free(&entry);
	buf_free(&others);
	return bad ? -1 : 0;
}

static struct metrics *new_store(const struct launch_metrics_opts *o, struct err *e)
{
	struct metrics_opts mo;
	struct metrics *m;

	memset(&mo, 0, sizeof(mo));
	mo.builtin = o->mode == LAUNCH_METRICS_AUTO;
	mo.from = o->from == 2 ? METRICS_FROM_ALL : o->from == 1 ? METRICS_FROM_ANY :
		METRICS_FROM_FIRST;
	mo.step_keys = o->nsteps ? o->steps : NULL;
	mo.total_steps = o->total_steps;
	mo.clock = launch_now;
	m = metrics_new(&mo);
	for (int i = 0; i < o->npatterns; i++) {
		if (add_patterns(m, o->patterns[i], e)) {
			metrics_free(m);
			return NULL;
		}
	}
	return m;
}

int launch_metrics_check(const struct launch_metrics_opts *o, struct err *e)
{
	struct metrics *m;

	if (o->kfp_executor_input) {
		cJSON *in = cJSON_Parse(o->kfp_executor_input);
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(in, "outputs"), "outputFile");
		int ok = cJSON_IsString(f) && *f->valuestring;
		cJSON_Delete(in);
		if (!ok)
			return err_set(e, ERR_INPUT, "--kfp-executor-input is not KFP's executor input "
				       "(a JSON object with outputs.outputFile): pass the {{$}} "
				       "placeholder");
	}
	if (o->mode == LAUNCH_METRICS_NONE)
		return 0;
	m = new_store(o, e);
	if (!m)
		return -1;
	metrics_free(m);
	return 0;
}

int launch_metrics_init(struct launch_metrics *lm, const struct launch_metrics_opts *o,
			struct launch_progress *prog, struct err *e)
{
	memset(lm, 0, sizeof(*lm));
	lm->o = o;
	lm->prog = prog;
	if (o->mode == LAUNCH_METRICS_NONE)
		return 0;
	lm->m = new_store(o, e);
	return lm->m ? 0 : -1;
}

void launch_metrics_free(struct launch_metrics *lm)
{
	metrics_free(lm->m);
	lm->m = NULL;
}

/* ---- the progress line ------------------------------------------------------ */

/* What a reader looks for first: the training loss, other losses, then the
 * rest; by name within each rank (stable, so the chart is deterministic). */
static int rank_of(const char *name)
{
	size_t n = strcspn(name, "@");	/* "loss@3": the metric's own name */

	if (n == 4 && !strncmp(name, "loss", 4))
		return 0;
	if (!strncmp(name, "train", 5) && strstr(name, "loss"))
		return 1;
	return strstr(name, "loss") ? 2 : 3;
}

static int pick_order(const struct metrics *m, const struct metrics_series **out, size_t max)
{
	size_t n = 0;

	for (int rank = 0; rank < 4 && n < max; rank++)
		for (size_t i = 0; i < metrics_nseries(m) && n < max; i++) {
			const struct metrics_series *s = metrics_get(m, i);
			if (rank_of(s->name) == rank)
				out[n++] = s;
		}
	return (int)n;
}

static void add_step(struct buf *b, const struct metrics_progress *p)
{
	buf_addf(b, "%s %.10g", metrics_xlabel(p->xkind), p->step);
	if (p->total > 0) {
		buf_addf(b, "/%.10g", p->total);
		if (p->step <= p->total)
			buf_addf(b, " (%.0f%%)", floor(100.0 * p->step / p->total));
	}
}

static void progress_line(struct launch_metrics *lm, int final)
{
	const struct metrics_series *pick[PROGRESS_VALUES];
	struct metrics_progress p;
	struct buf b = BUF_INIT;
	int n = pick_order(lm->m, pick, PROGRESS_VALUES);

	metrics_progress(lm->m, &p);
	buf_adds(&b, final ? "training: reached " : "training: ");
	if (p.has_step)
		add_step(&b, &p);
	else
		buf_addf(&b, "%lu metric lines", p.metric_lines);
	for (int i = 0; i < n; i++) {
		buf_addf(&b, ", %s %.4g", pick[i]->name, pick[i]->last);
		if (final && i == 0 && pick[i]->has_finite)
			buf_addf(&b, " (min %.4g at %s %.10g)", pick[i]->min, metrics_xlabel(p.xkind),
				 pick[i]->min_x);
	}
	if (p.rate > 0)
		buf_addf(&b, ", %.3g %ss/s", p.rate, metrics_xlabel(p.xkind));
	if (!final && p.eta_s >= 0) {
		buf_adds(&b, ", ETA ");
		launch_duration(&b, p.eta_s);
	}
	if (final && p.t_last > p.t_first) {
		buf_adds(&b, " over ");
		launch_duration(&b, p.t_last - p.t_first);
	}
	launch_progress_note(lm->prog, "%s", b.data);
	buf_free(&b);
}

void launch_metrics_line(struct launch_metrics *lm, int worker, const char *line, size_t len)
{
	double now;

	if (!lm->m)
		return;
	/* the store reads the clock, only for a line with a metric (issue 16 cost) */
	if (!metrics_line(lm->m, worker, line, len, 0))
		return;
	now = metrics_last_time(lm->m);
	if (lm->o->progress_s <= 0 || !lm->prog || !lm->prog->out || lm->trainer_status)
		return;
	if (lm->last_print && now - lm->last_print < lm->o->progress_s)
		return;
	progress_line(lm, 0);
	lm->last_print = now;
}

void launch_metrics_end(struct launch_metrics *lm)
{
	struct metrics_progress p;

	if (!lm->m || lm->o->progress_s <= 0 || !lm->prog || !lm->prog->out || lm->trainer_status)
		return;
	metrics_progress(lm->m, &p);
	if (p.metric_lines)
		progress_line(lm, 1);
}

void launch_metrics_percent(const struct metrics *m, struct buf *out)
{
	struct metrics_progress p;

	if (!m)
		return;
	metrics_progress(m, &p);
	if (p.has_step && p.total > 0 && p.step <= p.total)
		buf_addf(out, "%.0f", floor(100.0 * p.step / p.total));
}

/* ---- Markdown, chart ----------------------------------------------------------- */

static void md_value(struct buf *out, double v, double x, const char *xl)
{
	buf_addf(out, " %.6g (%s %.10g) |", v, xl, x);
}

void launch_metrics_summary(const struct metrics *m, struct buf *out)
{
	struct metrics_progress p;
	size_t n;

	if (!m || !metrics_nseries(m))
		return;
	metrics_progress(m, &p);
	n = metrics_nseries(m);
	buf_adds(out, "\n#### Training metrics\n\n");
	if (p.has_step) {
		add_step(out, &p);
		if (p.rate > 0)
			buf_addf(out, ", %.3g %ss/s", p.rate, metrics_xlabel(p.xkind));
		buf_adds(out, "\n\n");
	}
	buf_adds(out, "| metric | last | min | max |\n|---|---|---|---|\n");
	for (size_t i = 0; i < n && i < SUMMARY_ROWS; i++) {
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
	if (n > SUMMARY_ROWS)
		buf_addf(out, "\n%zu more in the metrics output\n", n - SUMMARY_ROWS);
}

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
	int n = pick_order(m, pick, SVGCHART_PANELS_MAX);

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

static void base64(struct buf *out, const unsigned char *d, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)d[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)d[i + 1] << 8;
		if (i + 2 < n)
			v |= d[i + 2];
		buf_addch(out, tab[v >> 18 & 63]);
		buf_addch(out, tab[v >> 12 & 63]);
		buf_addch(out, i + 1 < n ? tab[v >> 6 & 63] : '=');
		buf_addch(out, i + 2 < n ? tab[v & 63] : '=');
	}
}

/* ---- outputs ----------------------------------------------------------------------- */

static void job_title(const struct launch_result *r, struct buf *out)
{
	const cJSON *obj = r->job ? r->job : r->manifest;
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
	const cJSON *kind = cJSON_GetObjectItemCaseSensitive(obj, "kind");
	const cJSON *ns = cJSON_GetObjectItemCaseSensitive(meta, "namespace");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(meta, "name");

	buf_addf(out, "%s %s/%s", cJSON_IsString(kind) ? kind->valuestring : "JAXJob",
		 cJSON_IsString(ns) ? ns->valuestring : (r->ns ? r->ns : "?"),
		 cJSON_IsString(name) ? name->valuestring : "?");
}

/* The scalars for a system.Metrics artifact: NAME (last), NAME.min, NAME.max. */
static cJSON *scalars(const struct metrics *m)
{
	cJSON *md = cJSON_CreateObject();
	struct metrics_progress p;

	for (size_t i = 0; i < metrics_nseries(m); i++) {
		const struct metrics_series *s = metrics_get(m, i);
		char key[METRICS_NAME_MAX + 16];
		if (isfinite(s->last))
			cJSON_AddNumberToObject(md, s->name, s->last);
		if (!s->has_finite)
			continue;
		snprintf(key, sizeof(key), "%s.min", s->name);
		cJSON_AddNumberToObject(md, key, s->min);
		snprintf(key, sizeof(key), "%s.max", s->name);
		cJSON_AddNumberToObject(md, key, s->max);
	}
	metrics_progress(m, &p);
	if (p.has_step)
		cJSON_AddNumberToObject(md, metrics_xlabel(p.xkind), p.step);
	if (p.rate > 0)
		cJSON_AddNumberToObject(md, "steps_per_s", p.rate);
	return md;
}

/*
 * KFP: the executor output file named by the executor input, with the
 * scalars as the metadata of every system.Metrics output artifact.
 */
static int write_kfp(const struct metrics *m, const char *executor_input, struct err *e)
{
	cJSON *in = cJSON_Parse(executor_input);
	const cJSON *outs = cJSON_GetObjectItemCaseSensitive(in, "outputs");
	const cJSON *file = cJSON_GetObjectItemCaseSensitive(outs, "outputFile");
	const cJSON *arts = cJSON_GetObjectItemCaseSensitive(outs, "artifacts");
	const cJSON *a;
	cJSON *eo, *eoarts;
	char *text;
	int rc = 0, found = 0;

	if (!cJSON_IsObject(in) || !cJSON_IsString(file) || !*file->valuestring) {
		cJSON_Delete(in);
		return err_set(e, ERR_INPUT, "--kfp-executor-input is not KFP's executor input "
			       "(a JSON object with outputs.outputFile); pass the {{$}} placeholder");
	}
	eo = cJSON_CreateObject();
	eoarts = cJSON_AddObjectToObject(eo, "artifacts");
	cJSON_ArrayForEach(a, arts) {
		const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "artifacts"), 0);
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(first, "type");
		const cJSON *title = cJSON_GetObjectItemCaseSensitive(type, "schemaTitle");
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(first, "name");
		const cJSON *uri = cJSON_GetObjectItemCaseSensitive(first, "uri");
		cJSON *one, *list;
		if (!cJSON_IsString(title) || strcmp(title->valuestring, "system.Metrics"))
			continue;
		one = cJSON_CreateObject();
		if (cJSON_IsString(name))
			cJSON_AddStringToObject(one, "name", name->valuestring);
		if (cJSON_IsString(uri))
			cJSON_AddStringToObject(one, "uri", uri->valuestring);
		cJSON_AddItemToObject(one, "metadata", scalars(m));
		list = cJSON_AddArrayToObject(cJSON_AddObjectToObject(eoarts, a->string), "artifacts");
		cJSON_AddItemToArray(list, one);
		found++;
	}
	if (found) {
		text = cJSON_PrintUnformatted(eo);
		rc = launch_write_file_atomic(file->valuestring, text, strlen(text), e);
		free(text);
	}
	cJSON_Delete(eo);
	cJSON_Delete(in);
	return rc;
}

static int write_one(const char *path, const struct buf *v, int rc, struct err *e)
{
	struct err one = ERR_INIT;

	if (!path)
		return rc;
	if (launch_write_file_atomic(path, v->data, v->len, &one) && rc == 0) {
		*e = one;
		return -1;
	}
	return rc;
}

int launch_metrics_write(const struct launch_metrics *lm, const struct launch_outputs *paths,
			 const struct launch_result *r, struct err *e)
{
	static const struct launch_metrics_opts none;
	struct metrics *empty = NULL;
	const struct metrics *m = lm->m;
	size_t points = lm->o && lm->o->points > 0 ? (size_t)lm->o->points : 300;
	struct buf v = BUF_INIT, title = BUF_INIT;
	int rc = 0;

	if (!m) {	/* --metrics none: the files still exist (KFP and Argo want them) */
		struct err ignore = ERR_INIT;
		empty = new_store(&none, &ignore);
		m = empty;
	}
	job_title(r, &title);
	if (paths->metrics) {
		metrics_json(m, &v);
		rc = write_one(paths->metrics, &v, rc, e);
	}
	if (paths->metrics_csv) {
		buf_reset(&v);
		metrics_csv(m, points, &v);
		rc = write_one(paths->metrics_csv, &v, rc, e);
	}
	if (paths->metrics_chart) {
		buf_reset(&v);
		launch_metrics_chart(m, title.data, r->state, points, &v);
		rc = write_one(paths->metrics_chart, &v, rc, e);
	}
	if (paths->metrics_report) {
		struct buf svg = BUF_INIT;
		buf_reset(&v);
		launch_outputs_summary(r, &v);
		if (metrics_nseries(m)) {
			launch_metrics_chart(m, title.data, r->state,
					     points < REPORT_POINTS_MAX ? points : REPORT_POINTS_MAX, &svg);
			buf_adds(&v, "\n![training metrics](data:image/svg+xml;base64,");
			base64(&v, (const unsigned char *)svg.data, svg.len);
			buf_adds(&v, ")\n");
		}
		buf_free(&svg);
		rc = write_one(paths->metrics_report, &v, rc, e);
	}
	if (lm->o && lm->o->kfp_executor_input) {
		struct err one = ERR_INIT;
		if (write_kfp(m, lm->o->kfp_executor_input, &one) && rc == 0) {
			*e = one;
			rc = -1;
		}
	}
	metrics_free(empty);
	buf_free(&v);
	buf_free(&title);
	return rc;
}
