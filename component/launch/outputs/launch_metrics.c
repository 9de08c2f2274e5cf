/*
 * launch_metrics.c - see launch_metrics.h.
 */
#include "launch_metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "launch_progress.h"
#include "kube/kube_clock.h"
#include "metrics/metrics.h"

#define PROGRESS_VALUES 4	/* metrics on a progress line */

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

struct metrics *launch_metrics_store(const struct launch_metrics_opts *o, struct err *e)
{
	struct metrics_opts mo;
	struct metrics *m;

	memset(&mo, 0, sizeof(mo));
	mo.builtin = o->mode == LAUNCH_METRICS_AUTO;
	mo.from = o->from == 2 ? METRICS_FROM_ALL : o->from == 1 ? METRICS_FROM_ANY :
		METRICS_FROM_FIRST;
	mo.step_keys = o->nsteps ? o->steps : NULL;
	mo.total_steps = o->total_steps;
	mo.clock = kube_now;
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
	m = launch_metrics_store(o, e);
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
	lm->m = launch_metrics_store(o, e);
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

int launch_metrics_pick(const struct metrics *m, const struct metrics_series **out, size_t max)
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

void launch_metrics_step(struct buf *b, const struct metrics_progress *p)
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
	int n = launch_metrics_pick(lm->m, pick, PROGRESS_VALUES);

	metrics_progress(lm->m, &p);
	buf_adds(&b, final ? "training: reached " : "training: ");
	if (p.has_step)
		launch_metrics_step(&b, &p);
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
