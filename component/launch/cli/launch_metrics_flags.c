/*
 * launch_metrics_flags.c - the training-metrics flags of `jaxjob launch`
 * that are more than a field (--metric, --metric-step, --total-steps,
 * --metrics-points), and the checks of their combination once every flag is
 * in. What the values then do is launch_metrics.h's.
 */
#include <string.h>

#include "launch_opts_int.h"
#include "outputs/launch_metrics.h"

/* --metric-step '["update", "it"]': each name as if given alone. */
static int metric_step_list(struct launch_opts *o, const char *v, struct err *e)
{
	const cJSON *list = launch_word_list(o, "metric-step", v, e), *it;

	if (!list)
		return -1;
	cJSON_ArrayForEach(it, list)
		if (launch_metrics_flag(o, "metric-step", it->valuestring, e) < 0)
			return -1;
	return 0;
}

int launch_metrics_flag(struct launch_opts *o, const char *flag, const char *v, struct err *e)
{
	struct launch_metrics_opts *m = &o->metrics;

	if (!strcmp(flag, "total-steps"))
		return launch_count(flag, v, 1, 1e15, &m->total_steps, e);
	if (!strcmp(flag, "metrics-points"))
		return launch_count(flag, v, 10, 5000, &m->points, e);
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
	/* --metric: checked (compiled) in launch_metrics_flags_check once every flag is in; a
	 * value with no entry (a pipeline parameter left "") adds no pattern */
	if (!launch_metrics_entries(v))
		return 0;
	if (m->npatterns == LAUNCH_METRIC_PATTERNS_MAX)
		return err_set(e, ERR_INPUT, "too many --metric patterns (at most %d)",
			       LAUNCH_METRIC_PATTERNS_MAX);
	m->patterns[m->npatterns++] = v;
	return 0;
}

/* Combinations the flags alone cannot judge; the patterns compile here, so
 * a bad regex is a bad-input error before anything touches the cluster. */
int launch_metrics_flags_check(struct launch_opts *o, struct err *e)
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
