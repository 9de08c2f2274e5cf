/*
 * launch_opts.c - the command line of `jaxjob launch` (see launch_opts.h).
 *
 * Two tables drive everything: lib/jobparams.h's parameter table gives the
 * job flags (so a new parameter is a flag, a job-file key and a help line at
 * once), and run_flags[] below gives the run settings. Both become the one
 * table of lib/parseopt.h, which accepts `--flag VALUE`, `--flag=VALUE`,
 * `-n NS`, `-o json`, and everything after `--` as the container command.
 * Boolean flags: bare (`--suspend`) means true; `--suspend=false` and
 * `--suspend false` both work; the separate form takes the next word only
 * when it is a boolean literal (true, false, 1, 0; case-insensitive), so
 * `--suspend --workers 2` stays "true". The help is printed from the same
 * tables.
 */
#include "launch_opts.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "diagnose.h"
#include "jobparams.h"
#include "jobparams_required.h"
#include "parseopt.h"
#include "tmpl.h"
#include "k8sname.h"
#include "launch_metrics.h"
#include "yj.h"

/* RF_OPTSTR: a string where empty means "not given" (pipeline inputs default to "") */
enum rf_kind { RF_STR, RF_OPTSTR, RF_BOOL, RF_DURATION, RF_ENUM, RF_SPECIAL };

struct run_flag {
	const char *flag;
	const char *metavar;
	const char *group;
	enum rf_kind kind;
	size_t off;			/* into struct launch_opts */
	const char *const *choices;	/* RF_ENUM: index = enum value */
	const char *help;
};

static const char *const api_names[] = { "jaxjob", "trainjob", "auto", NULL };
static const char *const format_names[] = { "yaml", "json", NULL };
static const char *const logs_names[] = { "all", "first", "none", NULL };
static const char *const delete_names[] = { "never", "success", "always", NULL };
static const char *const cancel_names[] = { "delete", "suspend", "leave", NULL };
static const char *const outcome_names[] = { "exit-code", "outputs", NULL };
static const char *const metrics_names[] = { "auto", "patterns", "none", NULL };
static const char *const metrics_from_names[] = { "first", "any", "all", NULL };

#define OFF(f) offsetof(struct launch_opts, f)
#define OUT(f) (offsetof(struct launch_opts, out) + offsetof(struct launch_outputs, f))
#define MET(f) (offsetof(struct launch_opts, metrics) + offsetof(struct launch_metrics_opts, f))

static const struct run_flag run_flags[] = {
	{ "template", "FILE", "template", RF_STR, OFF(template_path), NULL,
	  "job template with ((placeholders)) (default: the built-in templates/jaxjob.yaml, "
	  "or templates/trainjob.yaml with --api trainjob)" },
	{ "param", "NAME=VALUE", "template", RF_SPECIAL, 0, NULL,
	  "value of a user template's own ((NAME)); NAME:=JSON for a typed value (repeatable)" },
	{ "patch", "JSON|@FILE", "template", RF_SPECIAL, 0, NULL,
	  "JSON merge patch (RFC 7386) applied to the rendered job last; @FILE reads JSON or YAML" },
	{ "api", "API", "template", RF_ENUM, OFF(api), api_names,
	  "job API: jaxjob (kubeflow.org/v1 JAXJob), trainjob (trainer.kubeflow.org/v1alpha1 "
	  "TrainJob on a training runtime), auto (what the cluster serves; jaxjob when both) "
	  "(default jaxjob)" },

	{ "launch-args", "JSON", "template", RF_SPECIAL, 0, NULL,
	  "more options as a JSON list of words, read where it stands, e.g. "
	  "'[\"--queue=research\", \"--toleration\", \"gpu:NoSchedule\"]': every option through one "
	  "value, for engines that pass one value per argument (an Argo parameter); "
	  "empty or [] = none" },

	{ "dry-run", NULL, "what to do", RF_BOOL, OFF(dry_run), NULL,
	  "print the job that would be created and exit; touch no cluster" },
	{ "server-dry-run", NULL, "what to do", RF_BOOL, OFF(server_dry_run), NULL,
	  "have the API server validate the job, create nothing" },
	{ "output", "FORMAT", "what to do", RF_ENUM, OFF(format), format_names,
	  "-o: format of --dry-run: yaml or json (default yaml)" },

	{ "kubeconfig", "FILE", "cluster", RF_STR, OFF(kubeconfig), NULL,
	  "kubeconfig file (default: $KUBECONFIG, in-cluster service account, ~/.kube/config)" },
	{ "context", "NAME", "cluster", RF_STR, OFF(context), NULL, "kubeconfig context" },
	{ "insecure-skip-tls-verify", NULL, "cluster", RF_BOOL, OFF(insecure_skip_tls_verify), NULL,
	  "do not verify the API server's certificate (never the default)" },

	{ "timeout", "DURATION", "waiting and cleanup", RF_DURATION, OFF(timeout_s), NULL,
	  "give up after DURATION of run (90s, 30m, 2h, 1h30m or seconds; 0 = never): exit 3; "
	  "time queued by Kueue does not count" },
	{ "queue-timeout", "DURATION", "waiting and cleanup", RF_DURATION, OFF(queue_timeout_s), NULL,
	  "give up when Kueue has held the job queued (suspended, not admitted) for DURATION in "
	  "all: exit 8, state QueueTimeout; --on-cancel delete deletes it, suspend and leave leave "
	  "it queued (default 0 = wait for ever)" },
	{ "queue-progress-every", "DURATION", "waiting and cleanup", RF_DURATION, OFF(queue_every_s),
	  NULL, "while Kueue holds the job, say \"queued 12m in NS/QUEUE: reason\" this often "
	  "(default 1m; 0 = only when the reason changes)" },
	{ "logs", "WHICH", "waiting and cleanup", RF_ENUM, OFF(logs), logs_names,
	  "worker logs to stream: all, first (worker 0), none (default all)" },
	{ "delete-after", "WHEN", "waiting and cleanup", RF_ENUM, OFF(delete_after), delete_names,
	  "delete the finished job: never, success, always (default never)" },
	{ "on-cancel", "ACTION", "waiting and cleanup", RF_ENUM, OFF(on_cancel), cancel_names,
	  "on timeout or SIGTERM/SIGINT: delete the job, suspend it, or leave it (default delete)" },
	{ "fail-fast-after", "DURATION", "waiting and cleanup", RF_DURATION, OFF(fail_fast_s), NULL,
	  "fail when the job cannot start (image pull error, unschedulable) for this long: exit 7 (default 5m; 0 = never)" },
	{ "delete-timeout", "DURATION", "waiting and cleanup", RF_DURATION, OFF(delete_wait_s), NULL,
	  "how long the cleanup may take: the look at the job, the delete or suspend (retried) and the wait for its confirmation (default 20s: it fits in the pod's 30 s termination grace period)" },
	{ "log-drain", "DURATION", "waiting and cleanup", RF_DURATION, OFF(log_drain_s), NULL,
	  "after the job finished, how long to wait for the workers' log streams to end (a stream "
	  "cut by an outage reconnects with backoff); a worker whose log is still incomplete then "
	  "is named in a warning; SIGTERM cuts it short (default 30s; 0 = do not wait)" },
	{ "identity", "ID", "waiting and cleanup", RF_STR, OFF(identity), NULL,
	  "launch identity (default: derived from the pipeline run), to re-attach on retry" },
	{ "run-id", "ID", "waiting and cleanup", RF_OPTSTR, OFF(task.run_id), NULL,
	  "the pipeline run, for the identity and --name-prefix (KFP: "
	  "dsl.PIPELINE_JOB_ID_PLACEHOLDER as a whole input; Argo: {{workflow.uid}}); "
	  "empty = from the environment (KFP_RUN_ID, ARGO_WORKFLOW_UID, ARGO_WORKFLOW_NAME)" },
	{ "task-name", "NAME", "waiting and cleanup", RF_OPTSTR, OFF(task.task_name), NULL,
	  "the step within the run, mixed into the identity (KFP: "
	  "dsl.PIPELINE_TASK_NAME_PLACEHOLDER; Argo: the DAG task's name)" },
	{ "task-id", "ID", "waiting and cleanup", RF_OPTSTR, OFF(task.task_id), NULL,
	  "more of the same, e.g. dsl.PIPELINE_TASK_ID_PLACEHOLDER (KFP's DAG execution: tells "
	  "ParallelFor iterations apart) or an Argo loop item" },
	{ "name-prefix", "PREFIX", "waiting and cleanup", RF_OPTSTR, OFF(name_prefix), NULL,
	  "name the job PREFIX-<10 hex chars> from the run and task: unique per run, the "
	  "same for every retry (instead of --name; needs a run: --run-id, --identity or "
	  "the environment)" },
	{ "outcome", "HOW", "waiting and cleanup", RF_ENUM, OFF(outcome), outcome_names,
	  "how the step reports a job that ended: exit-code (exit 1 failed, 3 timeout, 5 "
	  "cancelled, 6 deleted, 7 stuck, 8 queue timeout) or outputs (exit 0, the outcome only in the outputs "
	  "state/reason/exit_code, so the pipeline can branch on it; API errors and bad input "
	  "still exit 4 and 2) (default exit-code)" },
	{ "adopt", "BOOL", "waiting and cleanup", RF_BOOL, OFF(adopt), NULL,
	  "re-attach to the job this step created in an earlier attempt (default true)" },
	{ "quiet", NULL, "waiting and cleanup", RF_BOOL, OFF(quiet), NULL,
	  "no progress lines, worker logs only" },

	{ "out-state", "FILE", "outputs", RF_STR, OUT(state), NULL,
	  "write the final state: Succeeded, Failed, Timeout, Cancelled, ..." },
	{ "out-reason", "FILE", "outputs", RF_STR, OUT(reason), NULL, "write the condition reason" },
	{ "out-message", "FILE", "outputs", RF_STR, OUT(message), NULL, "write the condition message" },
	{ "out-job-json", "FILE", "outputs", RF_STR, OUT(job_json), NULL,
	  "write the final JAXJob object as JSON" },
	{ "out-manifest", "FILE", "outputs", RF_STR, OUT(manifest), NULL,
	  "write the manifest that was created (YAML)" },
	{ "out-job-name", "FILE", "outputs", RF_STR, OUT(job_name), NULL, "write the job name" },
	{ "out-job-namespace", "FILE", "outputs", RF_STR, OUT(job_namespace), NULL,
	  "write the job namespace" },
	{ "out-job-uid", "FILE", "outputs", RF_STR, OUT(job_uid), NULL, "write the job UID" },
	{ "out-start-time", "FILE", "outputs", RF_STR, OUT(start_time), NULL,
	  "write the start time (RFC 3339)" },
	{ "out-completion-time", "FILE", "outputs", RF_STR, OUT(completion_time), NULL,
	  "write the completion time (RFC 3339)" },
	{ "out-queue-time", "FILE", "outputs", RF_STR, OUT(queue_time), NULL,
	  "write the seconds Kueue held the job queued (0 without a queue)" },
	{ "out-run-time", "FILE", "outputs", RF_STR, OUT(run_time), NULL,
	  "write the seconds of the wait the job was not queued" },
	{ "out-progress", "FILE", "outputs", RF_STR, OUT(progress), NULL,
	  "write the percent done (0-100): a TrainJob's status.trainerStatus, else from the "
	  "logs' step/total, else empty" },
	{ "out-duration", "FILE", "outputs", RF_STR, OUT(duration), NULL,
	  "write the run time in seconds" },
	{ "out-workers", "FILE", "outputs", RF_STR, OUT(workers), NULL,
	  "write worker counts as JSON {\"active\":..,\"succeeded\":..,\"failed\":..}" },
	{ "out-summary", "FILE", "outputs", RF_STR, OUT(summary), NULL,
	  "write a Markdown summary for the pipeline UI" },
	{ "out-exit-code", "FILE", "outputs", RF_STR, OUT(exit_code), NULL,
	  "write the exit code of this step" },
	{ "out-failure", "FILE", "outputs", RF_STR, OUT(failure), NULL,
	  "write why the job failed as JSON: the first failing worker, pod, node, exit_code, "
	  "signal, reason, category, finished_at, exception, last_lines, collateral (the "
	  "workers that failed after it); {} when it did not fail" },
	{ "out-failure-category", "FILE", "outputs", RF_STR, OUT(failure_category), NULL,
	  "write the failure's category: oom, evicted, preempted, image, scheduling, config, "
	  "application, coordination, deadline, backoff, unknown; empty when it did not fail" },
	{ "failure-lines", "N", "outputs", RF_SPECIAL, 0, NULL,
	  "how many of the failing worker's last log lines the failure outputs quote "
	  "(default 20, at most 500)" },

	{ "metrics", "MODE", "training metrics", RF_ENUM, MET(mode), metrics_names,
	  "read training metrics from the workers' logs: auto (the common shapes, see "
	  "component/README.md, plus --metric patterns), patterns (only --metric), none (default auto)" },
	{ "metric", "NAME=REGEX", "training metrics", RF_SPECIAL, 0, NULL,
	  "a metric of your own: a POSIX extended regex with one capture group, the number "
	  "(repeatable; or several in one value, one per line, blank lines ignored); NAME step "
	  "(or a --metric-step name) is the step counter" },
	{ "metric-step", "NAME", "training metrics", RF_SPECIAL, 0, NULL,
	  "another key that counts steps, besides step, global_step, iteration, iter (repeatable, "
	  "or a JSON list of names)" },
	{ "metrics-from", "WHICH", "training metrics", RF_ENUM, MET(from), metrics_from_names,
	  "whose lines count: first (worker 0), any (all workers, one series), all (a series per "
	  "worker, NAME@N) (default first)" },
	{ "total-steps", "N", "training metrics", RF_SPECIAL, 0, NULL,
	  "the step count of the whole run, for progress and ETA (default: from the log, e.g. "
	  "\"step 100/5000\")" },
	{ "progress-every", "DURATION", "training metrics", RF_DURATION, MET(progress_s), NULL,
	  "at most one training progress line on stderr per DURATION (step, values, steps/s, ETA; "
	  "0 = none) (default 10s)" },
	{ "metrics-points", "N", "training metrics", RF_SPECIAL, 0, NULL,
	  "points per metric in the CSV and the chart, chosen by LTTB (10-5000, default 300)" },
	{ "kfp-executor-input", "JSON", "training metrics", RF_STR, MET(kfp_executor_input), NULL,
	  "KFP's {{$}}: the last/min/max values go into the metadata of the step's system.Metrics "
	  "outputs (the scalars KFP's UI shows); the placeholder itself, unreplaced, is ignored" },
	{ "out-metrics", "FILE", "training metrics", RF_STR, OUT(metrics), NULL,
	  "write the metrics as JSON: per metric last, min, max and their steps; step, steps/s" },
	{ "out-metrics-csv", "FILE", "training metrics", RF_STR, OUT(metrics_csv), NULL,
	  "write the series as CSV metric,step,value (at most --metrics-points per metric)" },
	{ "out-metrics-chart", "FILE", "training metrics", RF_STR, OUT(metrics_chart), NULL,
	  "write an SVG line chart of the metrics (self-contained; light and dark themes)" },
	{ "out-metrics-report", "FILE", "training metrics", RF_STR, OUT(metrics_report), NULL,
	  "write the Markdown summary with the metrics table and the chart embedded (for KFP's "
	  "Markdown viewer)" },
	{ NULL, NULL, NULL, RF_STR, 0, NULL, NULL },
};

_Static_assert(sizeof(enum launch_logs) == sizeof(int), "enums are stored as int");

/* ---- values ---------------------------------------------------------------- */

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
static int parse_count(const char *flag, const char *s, double lo, double hi, double *out,
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
static const cJSON *word_list(struct launch_opts *o, const char *flag, const char *v,
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

static int set_metrics_flag(struct launch_opts *o, const char *flag, const char *v,
			    struct err *e);

/* --metric-step '["update", "it"]': each name as if given alone. */
static int metric_step_list(struct launch_opts *o, const char *v, struct err *e)
{
	const cJSON *list = word_list(o, "metric-step", v, e), *it;

	if (!list)
		return -1;
	cJSON_ArrayForEach(it, list)
		if (set_metrics_flag(o, "metric-step", it->valuestring, e) < 0)
			return -1;
	return 0;
}

static int set_metrics_flag(struct launch_opts *o, const char *flag, const char *v,
			    struct err *e)
{
	struct launch_metrics_opts *m = &o->metrics;

	if (!strcmp(flag, "total-steps"))
		return parse_count(flag, v, 1, 1e15, &m->total_steps, e);
	if (!strcmp(flag, "metrics-points"))
		return parse_count(flag, v, 10, 5000, &m->points, e);
	if (!strcmp(flag, "metric-step") && v[0] == '[')
		return metric_step_list(o, v, e);
	if (!strcmp(flag, "metric-step")) {
		if (m->nsteps == LAUNCH_METRIC_STEPS_MAX)
			return err_set(e, ERR_INPUT, "too many --metric-step names (at most %d)",
				       LAUNCH_METRIC_STEPS_MAX);
		if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "0123456789_./-") != strlen(v))
			return err_set(e, ERR_INPUT, "--metric-step \"%s\" is not a key name; write "
				       "the word the log prints before the step, e.g. --metric-step "
				       "update", v);
		m->steps[m->nsteps++] = v;
		return 0;
	}
	/* --metric: checked (compiled) in check_metrics once every flag is in; a
	 * value with no entry (a pipeline parameter left "") adds no pattern */
	if (!launch_metrics_entries(v))
		return 0;
	if (m->npatterns == LAUNCH_METRIC_PATTERNS_MAX)
		return err_set(e, ERR_INPUT, "too many --metric patterns (at most %d)",
			       LAUNCH_METRIC_PATTERNS_MAX);
	m->patterns[m->npatterns++] = v;
	return 0;
}

static int launch_args(struct launch_opts *o, const char *v, struct err *e);

static int set_run_flag(struct launch_opts *o, const struct run_flag *f, const char *v,
			struct err *e)
{
	char *base = (char *)o + f->off;
	int n = 0;
	switch (f->kind) {
	case RF_STR:
		if (!*v)
			return err_set(e, ERR_INPUT, "--%s needs a value", f->flag);
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
		if (!strcmp(f->flag, "launch-args"))
			return launch_args(o, v, e);
		if (!strcmp(f->flag, "param"))
			return jobparams_set_user(o->params, v, e);
		if (!strcmp(f->flag, "patch"))
			return parse_patch(o, v, e);
		if (!strcmp(f->flag, "failure-lines"))
			return parse_count(f->flag, v, 1, DIAG_LAST_LINES_MAX, &o->failure_lines, e);
		return set_metrics_flag(o, f->flag, v, e);
	}
	return 0;
}

/* ---- help ------------------------------------------------------------------ */

#define HELP_COL 34
#define HELP_WIDTH 80

/* Append `text` word-wrapped to HELP_WIDTH, continuation lines at HELP_COL. */
static void wrap(struct buf *h, const char *text, size_t col)
{
	while (*text) {
		size_t word = strcspn(text, " ");
		if (col > HELP_COL && col + 1 + word > HELP_WIDTH) {
			buf_addf(h, "\n%*s", HELP_COL, "");
			col = HELP_COL;
		} else if (col > HELP_COL) {
			buf_addch(h, ' ');
			col++;
		}
		buf_add(h, text, word);
		col += word;
		text += word;
		text += strspn(text, " ");
	}
}

static void help_line(struct buf *h, const char *flag, const char *metavar, const char *text,
		      const char *def, const char *param)
{
	struct buf t = BUF_INIT;
	size_t start = h->len;
	buf_addf(h, "  --%s%s%s", flag, metavar ? " " : "", metavar ? metavar : "");
	size_t width = h->len - start;
	if (width < HELP_COL)
		buf_addf(h, "%*s", (int)(HELP_COL - width), "");
	else
		buf_addf(h, "\n%*s", HELP_COL, "");
	buf_adds(&t, text);
	if (def)
		buf_addf(&t, " (default %s)", def);
	if (param)
		buf_addf(&t, " [%s]", param);
	/* the first word goes right at the column */
	size_t first = strcspn(t.data, " ");
	buf_add(h, t.data, first);
	wrap(h, t.data + first + strspn(t.data + first, " "), HELP_COL + first);
	buf_addch(h, '\n');
	buf_free(&t);
}

/* A built-in template, parsed for --help (NULL if it cannot be: then no
 * option is marked required, which only makes the help less helpful). */
static cJSON *builtin_template(const char *name)
{
	struct err e = ERR_INIT;
	size_t len;
	const char *text = tmpl_builtin(name, &len);
	cJSON *t = NULL;
	if (text)
		tmpl_parse(text, len, name, &t, &e);
	return t;
}

static void print_help(void)
{
	struct buf h = BUF_INIT, text = BUF_INIT;
	const char *group = NULL;
	cJSON *jaxjob = builtin_template("jaxjob.yaml"), *trainjob = builtin_template("trainjob.yaml");
	buf_adds(&h,
		 "usage: jaxjob launch [options] [-- command args...]\n"
		 "\n"
		 "Build a JAXJob from the options and a template, create it, stream its workers'\n"
		 "logs, wait until it finishes, write the outputs, and exit with a code that says\n"
		 "how it ended (0 succeeded, 1 failed, 2 bad input, 3 timeout, 4 API error,\n"
		 "5 cancelled, 6 deleted by someone else, 7 stuck, 8 queue timeout).\n"
		 "--dry-run prints the job.\n"
		 "\n"
		 "Every option takes --opt VALUE or --opt=VALUE. An empty VALUE unsets a job\n"
		 "parameter. A boolean option alone means true; --opt false, --opt=false,\n"
		 "--opt true and --opt=true work too (the next word is taken only if it is\n"
		 "true, false, 1 or 0). Job parameters are named as in job files and Argo CD\n"
		 "parameters; [brackets] show the name where it differs from the option.\n");
	for (const struct jobparam *p = jobparams_all(); p->name; p++) {
		if (!group || strcmp(group, p->group)) {
			group = p->group;
			buf_addf(&h, "\n%s:\n", group);
		}
		char def[64] = "";
		if (p->def)	/* JSON text: drop the quotes of a string */
			snprintf(def, sizeof(def), "%.*s", (int)strcspn(p->def + (p->def[0] == '"'), "\""),
				 p->def + (p->def[0] == '"'));
		/* what the built-in templates cannot do without */
		int for_jaxjob = jaxjob && jobparams_required_by(jaxjob, p);
		int for_trainjob = trainjob && jobparams_required_by(trainjob, p);
		buf_reset(&text);
		buf_adds(&text, p->help);
		if (for_jaxjob && for_trainjob)
			buf_adds(&text, " (required)");
		else if (for_jaxjob)
			buf_adds(&text, " (required for a JAXJob)");
		else if (for_trainjob)
			buf_adds(&text, " (required for a TrainJob)");
		help_line(&h, p->flag, p->metavar, text.data, p->def ? def : NULL,
			  strcmp(p->flag, p->name) ? p->name : NULL);
	}
	cJSON_Delete(jaxjob);
	cJSON_Delete(trainjob);
	buf_free(&text);
	group = NULL;
	for (const struct run_flag *f = run_flags; f->flag; f++) {
		if (!group || strcmp(group, f->group)) {
			group = f->group;
			buf_addf(&h, "\n%s:\n", group);
		}
		help_line(&h, f->flag, f->metavar, f->help, NULL, NULL);
	}
	buf_adds(&h, "\n  -n NS                           same as --namespace (job and cluster)\n"
		     "  -o FORMAT                       same as --output\n"
		     "  -- command args...              the container command (like --command)\n"
		     "  -h, --help                      this help\n");
	fwrite(h.data, 1, h.len, stdout);
	buf_free(&h);
}

/*
 * --help=json: every option as {flag, param, kind, metavar, group, help,
 * repeatable, choices, default}, from the same tables as the help, so that
 * scripts/component-flags.py can hold the pipeline component and the
 * WorkflowTemplate against them. kind: string, int, bool, enum, quantity,
 * list, map, objlist (job parameters); duration, object, param (run flags).
 */
static const char *run_flag_kind(const struct run_flag *f)
{
	static const char *const kinds[] = {
		[RF_STR] = "string", [RF_OPTSTR] = "string", [RF_BOOL] = "bool",
		[RF_DURATION] = "duration", [RF_ENUM] = "enum", [RF_SPECIAL] = "string",
	};
	if (f->kind != RF_SPECIAL)
		return kinds[f->kind];
	if (!strcmp(f->flag, "patch"))
		return "object";
	if (!strcmp(f->flag, "param"))
		return "param";
	if (!strcmp(f->flag, "launch-args") || !strcmp(f->flag, "metric-step"))
		return "list";
	if (!strcmp(f->flag, "total-steps") || !strcmp(f->flag, "metrics-points") ||
	    !strcmp(f->flag, "failure-lines"))
		return "int";
	return "string";	/* --metric: NAME=REGEX lines */
}

static cJSON *help_item(const char *flag, const char *param, const char *kind,
			const char *metavar, const char *group, const char *help, int repeatable,
			const char *const *choices, const char *def)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "flag", flag);
	cJSON_AddItemToObject(o, "param", param ? cJSON_CreateString(param) : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "kind", kind);
	cJSON_AddItemToObject(o, "metavar", metavar ? cJSON_CreateString(metavar) :
			      cJSON_CreateNull());
	cJSON_AddStringToObject(o, "group", group);
	cJSON_AddStringToObject(o, "help", help);
	cJSON_AddBoolToObject(o, "repeatable", repeatable);
	cJSON *c = choices ? cJSON_CreateArray() : cJSON_CreateNull();
	for (size_t i = 0; choices && choices[i]; i++)
		cJSON_AddItemToArray(c, cJSON_CreateString(choices[i]));
	cJSON_AddItemToObject(o, "choices", c);
	cJSON *d = def ? cJSON_Parse(def) : NULL;
	cJSON_AddItemToObject(o, "default", d ? d : cJSON_CreateNull());
	return o;
}

static void print_help_json(void)
{
	static const char *const jp_kinds[] = {
		[JP_STRING] = "string", [JP_INT] = "int", [JP_BOOL] = "bool", [JP_ENUM] = "enum",
		[JP_QUANTITY] = "quantity", [JP_LIST] = "list", [JP_MAP] = "map",
		[JP_OBJLIST] = "objlist",
	};
	cJSON *all = cJSON_CreateArray();
	for (const struct jobparam *p = jobparams_all(); p->name; p++)
		cJSON_AddItemToArray(all, help_item(p->flag, p->name, jp_kinds[p->type], p->metavar,
						    p->group, p->help, p->type >= JP_LIST,
						    p->choices, p->def));
	for (const struct run_flag *f = run_flags; f->flag; f++)
		cJSON_AddItemToArray(all, help_item(f->flag, NULL, run_flag_kind(f), f->metavar,
						    f->group, f->help,
						    !strcmp(f->flag, "param") || !strcmp(f->flag, "metric") ||
						    !strcmp(f->flag, "metric-step"),
						    f->kind == RF_ENUM ? f->choices : NULL, NULL));
	char *text = cJSON_Print(all);
	if (!text)
		abort();
	puts(text);
	free(text);
	cJSON_Delete(all);
}

/* ---- parsing --------------------------------------------------------------- */

static void set_defaults(struct launch_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->params = cJSON_CreateObject();
	o->api = API_JAXJOB;
	o->format = OUTPUT_YAML;
	o->logs = LOGS_ALL;
	o->delete_after = DELETE_NEVER;
	o->on_cancel = CANCEL_DELETE;
	o->fail_fast_s = 300;
	o->queue_every_s = 60;
	o->delete_wait_s = 20;
	o->log_drain_s = 30;
	o->adopt = 1;
	o->metrics.mode = LAUNCH_METRICS_AUTO;
	o->metrics.from = 0;		/* first */
	o->metrics.progress_s = 10;
	o->metrics.points = 300;
	o->failure_lines = DIAG_LAST_LINES_DEFAULT;
}

/* Everything after "--" is the container command. */
static int set_command(struct launch_opts *o, int argc, char **argv, struct err *e)
{
	if (argc == 0)
		return err_set(e, ERR_INPUT, "nothing after --; write -- followed by the command, "
			       "e.g. -- python train.py");
	if (cJSON_GetObjectItemCaseSensitive(o->params, "command"))
		return err_set(e, ERR_INPUT, "the command is given twice: use --command or -- "
			       "command args..., not both");
	cJSON *cmd = cJSON_CreateArray();
	for (int i = 0; i < argc; i++)
		cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
	cJSON_AddItemToObject(o->params, "command", cmd);
	return 0;
}

/*
 * A "{{...}}" that reached us was not filled in: KFP substitutes its
 * placeholders only when one is the whole value of an input (driver
 * resolve.go, a switch on the whole string), so f"mnist-{PLACEHOLDER}"
 * arrives literally. Say so instead of a confusing name error later.
 */
static int unfilled(const char *flag, const char *v, struct err *e)
{
	if (!v || !strstr(v, "{{"))
		return 0;
	return err_set(e, ERR_INPUT, "--%s \"%.120s\" holds a placeholder nobody filled in: KFP "
		       "fills one only when it is the whole value of an input; pass "
		       "name_prefix=\"...\" and run_id=dsl.PIPELINE_JOB_ID_PLACEHOLDER (each alone) "
		       "instead of building the string in the pipeline", flag, v);
}

/*
 * After all flags: the identity inputs carry no unfilled placeholder, and
 * --name-prefix becomes the job name (the name parameter), derived from the
 * run and the task (launch_identity_name).
 */
static int finish_identity(struct launch_opts *o, struct err *e)
{
	const cJSON *given = cJSON_GetObjectItemCaseSensitive(o->params, "name");
	char name[80];

	if (unfilled("identity", o->identity, e) || unfilled("run-id", o->task.run_id, e) ||
	    unfilled("task-name", o->task.task_name, e) || unfilled("task-id", o->task.task_id, e) ||
	    unfilled("name-prefix", o->name_prefix, e))
		return -1;
	if (!o->name_prefix)
		return 0;
	if (cJSON_IsString(given) && *given->valuestring)
		return err_set(e, ERR_INPUT, "both --name and --name-prefix are given; keep one "
			       "(--name-prefix derives the name from the run)");
	if (k8s_check_dns1035("--name-prefix", o->name_prefix, e) < 0)
		return -1;
	if (strlen(o->name_prefix) > LAUNCH_NAME_PREFIX_MAX)
		return err_set(e, ERR_INPUT, "--name-prefix \"%s\" is %zu characters; at most %d "
			       "fit before the -<%d hex> suffix (fewer with many workers: "
			       "{name}-worker-{N-1} must fit in 63)", o->name_prefix,
			       strlen(o->name_prefix), LAUNCH_NAME_PREFIX_MAX, LAUNCH_NAME_SUFFIX_HEX);
	if (launch_identity_name(o->name_prefix, o->identity, &o->task, name, sizeof(name), e) < 0)
		return -1;
	return jobparams_set_text(o->params, jobparams_find("name"), name, e);
}

/*
 * The one table of the command line (lib/parseopt.h), made from the two
 * tables above: every job parameter's flag, every run flag, then the short
 * forms and the help, in the order the did-you-mean tries them. Made per
 * parse (a few hundred bytes) rather than kept: no state outlives a call.
 */
enum { OPT_PARAM, OPT_RUN, OPT_HELP };

static struct parseopt *options_table(void)
{
	size_t n = 3, k = 0;
	struct parseopt *t;

	for (const struct jobparam *p = jobparams_all(); p->name; p++)
		n++;
	for (const struct run_flag *f = run_flags; f->flag; f++)
		n++;
	t = calloc(n + 1, sizeof(*t));
	if (!t)
		abort();
	for (const struct jobparam *p = jobparams_all(); p->name; p++)
		t[k++] = (struct parseopt){ p->flag, 0, p->type == JP_BOOL ? PARSEOPT_BOOL :
					    PARSEOPT_VALUE, OPT_PARAM, p };
	for (const struct run_flag *f = run_flags; f->flag; f++) {
		t[k++] = (struct parseopt){ f->flag, 0, f->kind == RF_BOOL ? PARSEOPT_BOOL :
					    PARSEOPT_VALUE, OPT_RUN, f };
		if (!strcmp(f->flag, "output"))
			t[n - 2] = (struct parseopt){ NULL, 'o', PARSEOPT_VALUE, OPT_RUN, f };
	}
	t[n - 3] = (struct parseopt){ NULL, 'n', PARSEOPT_VALUE, OPT_PARAM,
				      jobparams_find_flag("namespace") };
	t[n - 1] = (struct parseopt){ "help", 'h', PARSEOPT_OPTARG, OPT_HELP, NULL };
	return t;
}

/* One option of the table, its value in h->value (NULL: none was given). */
static int set_option(struct launch_opts *o, const struct parseopt_hit *h, struct err *e)
{
	const struct run_flag *f = h->opt->id == OPT_RUN ? h->opt->data : NULL;
	const struct jobparam *p = h->opt->id == OPT_PARAM ? h->opt->data : NULL;

	if (!h->value)
		return err_set(e, ERR_INPUT, "--%s needs a value (%s)", f ? f->flag : p->flag,
			       f ? f->metavar : p->metavar);
	if (f)
		return set_run_flag(o, f, h->value, e);
	if (!strcmp(p->name, "name") && unfilled(p->flag, h->value, e))
		return -1;
	if (jobparams_set_text(o->params, p, h->value, e) < 0)
		return -1;
	if (!strcmp(p->name, "namespace"))
		o->namespace_flag = *h->value ? h->value : NULL;
	return 0;
}

/* Combinations the flags alone cannot judge; the patterns compile here, so
 * a bad regex is a bad-input error before anything touches the cluster. */
static int check_metrics(struct launch_opts *o, struct err *e)
{
	struct launch_metrics_opts *m = &o->metrics;

	/* the placeholder itself: not run by KFP v2's launcher (which replaces it),
	 * e.g. the component's command line tried by hand: no KFP scalars to write */
	if (m->kfp_executor_input && !strcmp(m->kfp_executor_input, "{{$}}"))
		m->kfp_executor_input = NULL;

	if (m->mode == LAUNCH_METRICS_NONE && (m->npatterns || m->nsteps))
		return err_set(e, ERR_INPUT, "--metric and --metric-step need --metrics auto or "
			       "patterns, not none");
	if (m->mode == LAUNCH_METRICS_PATTERNS && !m->npatterns)
		return err_set(e, ERR_INPUT, "--metrics patterns needs at least one --metric "
			       "NAME=REGEX");
	if (m->from != 0 && o->logs != LOGS_ALL)
		return err_set(e, ERR_INPUT, "--metrics-from %s reads every worker's log, but --logs "
			       "%s follows %s: use --logs all or --metrics-from first",
			       m->from == 1 ? "any" : "all", o->logs == LOGS_FIRST ? "first" : "none",
			       o->logs == LOGS_FIRST ? "worker 0 only" : "none");
	return launch_metrics_check(m, e);
}

static int parse_args(struct launch_opts *o, int argc, char **argv, struct err *e);

int launch_opts_parse(struct launch_opts *o, int argc, char **argv, struct err *e)
{
	int rc = parse_args(o, argc, argv, e);

	if (rc == 0 && check_metrics(o, e))
		return -1;
	if (rc == 0 && o->dry_run && o->server_dry_run)	/* neither may silently win */
		return err_set(e, ERR_INPUT, "--dry-run and --server-dry-run are both given: --dry-run "
			       "prints the job and touches no cluster, --server-dry-run has the API "
			       "server validate it; keep one");
	return rc;
}

/* The words argv[first..argc-1]: options, then "--" and the command.
 * Returns 0, 1 after the help, or -1. */
static int parse_words(struct launch_opts *o, int argc, char **argv, int first, struct err *e)
{
	struct parseopt *table = options_table();
	const struct parseopt_cmd cmd = { table, "jaxjob launch --help", 0 };
	struct parseopt_state s;
	struct parseopt_hit h;
	int ev = 0, rc = 0;

	parseopt_start(&s, &cmd, argc, argv, first);
	while (rc == 0 && (ev = parseopt_next(&s, &h, e)) > 0) {
		if (ev == PARSEOPT_ARG) {
			rc = err_set(e, ERR_INPUT, "unexpected argument \"%s\"; put the command after "
				     "--, e.g. jaxjob launch ... -- python train.py", h.spelled);
		} else if (ev == PARSEOPT_END) {
			rc = set_command(o, argc - parseopt_rest(&s), argv + parseopt_rest(&s), e);
			break;
		} else if (h.opt->id != OPT_HELP) {
			rc = set_option(o, &h, e);
		} else if (!h.value || !strcmp(h.value, "json")) {
			if (h.value)
				print_help_json();
			else
				print_help();
			rc = 1;
		} else {	/* --help=other */
			rc = parseopt_unknown(&cmd, "--help", e);
		}
	}
	if (rc == 0 && ev < 0)
		rc = -1;
	free(table);
	return rc;
}

/*
 * --launch-args '["--queue=q", "--", "python", "train.py"]': the words as if
 * they stood here. Not nested (one level is all an engine needs, and a
 * list cannot then grow by itself); "" and [] add nothing, so a workflow
 * parameter left at its default passes through.
 */
static int launch_args(struct launch_opts *o, const char *v, struct err *e)
{
	const cJSON *list, *it;
	char **words;
	int n = 0, rc;

	if (!*v)
		return 0;
	list = word_list(o, "launch-args", v, e);
	if (!list)
		return -1;
	words = calloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(*words));
	if (!words)
		abort();
	cJSON_ArrayForEach(it, list) {
		if (!strncmp(it->valuestring, "--launch-args", 13)) {
			free(words);
			return err_set(e, ERR_INPUT, "--launch-args inside --launch-args; put all "
				       "the options in one list");
		}
		if (!strcmp(it->valuestring, "-h") || !strncmp(it->valuestring, "--help", 6)) {
			free(words);
			return err_set(e, ERR_INPUT, "--launch-args holds %s; run jaxjob launch "
				       "--help", it->valuestring);
		}
		words[n++] = it->valuestring;
	}
	rc = parse_words(o, n, words, 0, e);
	free(words);
	return rc;
}

static int parse_args(struct launch_opts *o, int argc, char **argv, struct err *e)
{
	int rc;

	set_defaults(o);
	rc = parse_words(o, argc, argv, 1, e);
	if (rc != 0)
		return rc;
	return finish_identity(o, e);
}

void launch_opts_free(struct launch_opts *o)
{
	cJSON_Delete(o->params);
	cJSON_Delete(o->patch);
	cJSON_Delete(o->owned);
	o->params = NULL;
	o->patch = NULL;
	o->owned = NULL;
}
