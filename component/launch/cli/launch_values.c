/*
 * launch_values.c - the value of one run flag of `jaxjob launch`, by its kind
 * in run_flags[] (launch_flags.c): strings, booleans, durations, enums, and
 * the special ones (--patch, --param, --failure-lines). Each error names the
 * flag and shows a value that works. It is below the walk (launch_opts.c,
 * which also reads --launch-args) and the metrics flags
 * (launch_metrics_flags.c): it calls neither.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "health/diagnose.h"
#include "job/jobparams.h"
#include "launch_opts_int.h"
#include "yj/yj.h"

/* 90s, 30m, 2h, 1h30m, 1.5h, or plain seconds ("3600"); "0" = none. */
static int parse_duration(const char *flag, const char *s, double *out, struct err *e)
{
	const char *p = s;
	double total = 0;
	int units = 0;
	while (*p) {
		/* digits [. digits] only: strtod alone would take 1e3, 0x10, inf */
		size_t n = strspn(p, "0123456789");
		if (p[n] == '.')
			n += 1 + strspn(p + n + 1, "0123456789");
		if (n == 0 || (n == 1 && *p == '.'))
			goto bad;
		double v = strtod(p, NULL);
		p += n;
		if (!*p && !units) {
			total = v;	/* plain seconds */
			break;
		}
		if (*p == 'h')
			total += v * 3600;
		else if (*p == 'm')
			total += v * 60;
		else if (*p == 's')
			total += v;
		else
			goto bad;
		p++;
		units++;
	}
	if (!*s || !isfinite(total))
		goto bad;
	*out = total;
	return 0;
bad:
	return err_set(e, ERR_INPUT, "--%s \"%s\" is not a duration; write e.g. 90s, 30m, 2h, "
		       "1h30m or a number of seconds", flag, s);
}

static int parse_bool_flag(const char *flag, const char *s, int *out, struct err *e)
{
	if (jobparams_parse_bool(s, out) < 0)
		return err_set(e, ERR_INPUT, "--%s must be true or false, got \"%s\"", flag, s);
	return 0;
}

static int parse_enum(const struct run_flag *f, const char *s, int *out, struct err *e)
{
	struct buf all = BUF_INIT;
	for (int i = 0; f->choices[i]; i++) {
		if (!strcmp(f->choices[i], s)) {
			*out = i;
			return 0;
		}
	}
	for (int i = 0; f->choices[i]; i++)
		buf_addf(&all, "%s%s", i ? ", " : "", f->choices[i]);
	err_set(e, ERR_INPUT, "--%s \"%s\" is not valid; use one of %s", f->flag, s, all.data);
	buf_free(&all);
	return -1;
}

/* One replica index of --log-workers at *s (digits only); -1 when none. */
static long log_set_index(const char **s)
{
	long v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9' && v <= 1000000)
		v = v * 10 + (*p++ - '0');
	*s = p;
	return v > 1000000 ? -1 : v;
}

/* --log-workers 0-7,12: ranges of replica indices, comma separated. */
static int parse_log_set(const char *v, struct launch_log_set *set, struct err *e)
{
	const char *s = v;

	set->n = 0;
	while (*s) {
		long lo = log_set_index(&s), hi = lo;
		if (lo >= 0 && *s == '-') {
			s++;
			hi = log_set_index(&s);
		}
		if (lo < 0 || hi < lo || (*s && *s != ',') || (*s == ',' && !s[1]))
			return err_set(e, ERR_INPUT, "--log-workers \"%s\" is not a set of workers: give "
				       "replica indices and ranges, comma separated, e.g. 0-7,255", v);
		if (set->n == LAUNCH_LOG_SET_MAX)
			return err_set(e, ERR_INPUT, "--log-workers \"%s\" has more than %d ranges: "
				       "join neighbouring ones (0-7 for 0,1,...,7)", v,
				       LAUNCH_LOG_SET_MAX);
		set->lo[set->n] = (int)lo;
		set->hi[set->n++] = (int)hi;
		if (*s == ',')
			s++;
	}
	if (!set->n)
		return err_set(e, ERR_INPUT, "--log-workers is empty: give replica indices and "
			       "ranges, e.g. 0-7,255 (or leave it out: every worker)");
	return 0;
}

/* --patch '{...}' or --patch @file.yaml: a mapping (JSON merge patch). */
static int parse_patch(struct launch_opts *o, const char *s, struct err *e)
{
	struct buf text = BUF_INIT;
	const char *source = "--patch";
	cJSON *doc = NULL;
	int rc;
	if (s[0] == '@') {
		source = s + 1;
		rc = buf_read_file(&text, s + 1, YJ_MAX_INPUT, e);
	} else {
		buf_adds(&text, s);
		rc = 0;
	}
	if (rc == 0)
		rc = yj_parse_one(text.data, text.len, source, &doc, e);
	buf_free(&text);
	if (rc < 0)
		return err_prefix(e, "--patch");
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return err_set(e, ERR_INPUT, "--patch must be a mapping (a JSON merge patch such as "
			       "'{\"spec\":{\"runPolicy\":{\"backoffLimit\":2}}}')");
	}
	cJSON_Delete(o->patch);	/* the last --patch wins, like any other flag */
	o->patch = doc;
	return 0;
}

/* A whole number in [lo, hi] for --FLAG. */
int launch_count(const char *flag, const char *s, double lo, double hi, double *out,
		 struct err *e)
{
	char *end;
	double v;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return err_set(e, ERR_INPUT, "--%s must be a whole number, got \"%s\"", flag, s);
	v = strtod(s, &end);
	if (v < lo || v > hi)
		return err_set(e, ERR_INPUT, "--%s must be between %.0f and %.0f, got %s", flag, lo,
			       hi, s);
	*out = v;
	return 0;
}

/*
 * A JSON list of strings from --FLAG (what KFP's launcher makes of a
 * JsonArray input: json.Marshal of the list, backend/src/v2/component/
 * launcher_v2.go:1139-1163), kept in o->owned so that its strings outlive
 * the call; NULL with `e` set if it is not one.
 */
const cJSON *launch_word_list(struct launch_opts *o, const char *flag, const char *v,
			      struct err *e)
{
	cJSON *doc = NULL, *it;
	char what[64];

	snprintf(what, sizeof(what), "--%s", flag);
	if (yj_parse_one(v, strlen(v), what, &doc, e) < 0) {
		char why[ERR_MSG_MAX];
		snprintf(why, sizeof(why), "%s", e->msg);
		err_set(e, ERR_INPUT, "--%s must be a JSON list of strings such as "
			"[\"a\", \"b\"] (%s)", flag, why);
		return NULL;
	}
	if (!cJSON_IsArray(doc)) {
		cJSON_Delete(doc);
		err_set(e, ERR_INPUT, "--%s must be a JSON list of strings, got \"%.80s\"", flag, v);
		return NULL;
	}
	cJSON_ArrayForEach(it, doc) {
		if (!cJSON_IsString(it)) {
			cJSON_Delete(doc);
			err_set(e, ERR_INPUT, "--%s must be a JSON list of strings; quote every "
				"item, e.g. [\"--workers\", \"4\"]", flag);
			return NULL;
		}
	}
	if (!o->owned)
		o->owned = cJSON_CreateArray();
	cJSON_AddItemToArray(o->owned, doc);
	return doc;
}

int launch_flag_set(struct launch_opts *o, const struct run_flag *f, const char *v,
		    struct err *e)
{
	char *base = (char *)o + f->off;
	int n = 0;
	switch (f->kind) {
	case RF_STR:	/* not empty: set_option() said "needs a value" */
		memcpy(base, &v, sizeof(v));
		return 0;
	case RF_OPTSTR:
		if (!*v)
			v = NULL;
		memcpy(base, &v, sizeof(v));
		return 0;
	case RF_BOOL:
		if (parse_bool_flag(f->flag, v, &n, e) < 0)
			return -1;
		memcpy(base, &n, sizeof(n));
		return 0;
	case RF_DURATION:
		return parse_duration(f->flag, v, (double *)(void *)base, e);
	case RF_ENUM:
		if (parse_enum(f, v, &n, e) < 0)
			return -1;
		memcpy(base, &n, sizeof(n));
		return 0;
	case RF_SPECIAL:
		if (!strcmp(f->flag, "param"))
			return jobparams_set_user(o->params, v, e);
		if (!strcmp(f->flag, "patch"))
			return parse_patch(o, v, e);
		if (!strcmp(f->flag, "failure-lines"))
			return launch_count(f->flag, v, 1, DIAG_LAST_LINES_MAX, &o->failure_lines, e);
		if (!strcmp(f->flag, "log-workers"))
			return parse_log_set(v, &o->log_workers, e);
		break;
	case RF_METRIC:
		break;
	}
	/* --launch-args and RF_METRIC: launch_opts.c routes them elsewhere */
	return err_set(e, ERR_INPUT, "--%s is not read by launch_flag_set", f->flag);
}
