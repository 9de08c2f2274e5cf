/*
 * launch_opts_int.h - the parts of `jaxjob launch`'s command line, shared by
 * the files that make it up (not a public interface: launch_opts.h is):
 *
 *   launch_flags.c          run_flags[]: every run setting, its kind and help
 *   launch_values.c         the value of one run flag (durations, enums,
 *                           --patch, counts, JSON word lists, --launch-args)
 *   launch_metrics_flags.c  --metric*, --total-steps, --metrics-points and
 *                           the checks of their combination
 *   launch_help.c           --help and --help=json, from the two tables
 *   launch_opts.c           the walk (lib/parseopt.h), defaults, the end
 *
 * The job parameters' flags come from lib/job/jobparams.h's table; these are the
 * others.
 *
 * Included by: launch_opts.c launch_flags.c launch_values.c launch_metrics_flags.c launch_help.c
 */
#ifndef JAXJOB_LAUNCH_OPTS_INT_H
#define JAXJOB_LAUNCH_OPTS_INT_H

#include <stddef.h>

#include <cJSON.h>

#include "err.h"
#include "launch_opts.h"

/* RF_OPTSTR: a string where empty means "not given" (pipeline inputs default to "");
 * RF_SPECIAL: a value launch_values.c reads by the flag's name (--launch-args:
 * the walk's, launch_opts.c); RF_METRIC: one of launch_metrics_flags.c */
enum rf_kind { RF_STR, RF_OPTSTR, RF_BOOL, RF_DURATION, RF_ENUM, RF_SPECIAL, RF_METRIC };

struct run_flag {
	const char *flag;
	const char *metavar;
	const char *group;
	enum rf_kind kind;
	size_t off;			/* into struct launch_opts */
	const char *const *choices;	/* RF_ENUM: index = enum value */
	const char *help;
};

/* The run flags, in help order; ends with a NULL flag (launch_flags.c). */
extern const struct run_flag launch_run_flags[];

/* Set run flag `f` from its text `v` (launch_values.c): every kind but
 * RF_METRIC, and every RF_SPECIAL but --launch-args, which launch_opts.c
 * routes (the values call neither the walk nor the metrics flags). An
 * RF_STR flag's `v` is not empty: set_option() refuses that (parseopt_missing). */
int launch_flag_set(struct launch_opts *o, const struct run_flag *f, const char *v,
		    struct err *e);

/* A whole number in [lo, hi] for --FLAG (launch_values.c). */
int launch_count(const char *flag, const char *s, double lo, double hi, double *out,
		 struct err *e);

/* A JSON list of strings from --FLAG, owned by o->owned; NULL with `e` set
 * when it is not one (launch_values.c). */
const cJSON *launch_word_list(struct launch_opts *o, const char *flag, const char *v,
			      struct err *e);

/* One of the training-metrics flags that are not a plain field, and the
 * checks once every flag is in (launch_metrics_flags.c). */
int launch_metrics_flag(struct launch_opts *o, const char *flag, const char *v,
			struct err *e);
int launch_metrics_flags_check(struct launch_opts *o, struct err *e);

/* --help and --help=json on stdout (launch_help.c). */
void launch_help_print(void);
void launch_help_json(void);

/* Parse the words argv[first..argc-1] into `o` (launch_opts.c); 0, 1 after
 * the help, -1 with `e` set. --launch-args comes back here. */
int launch_opts_words(struct launch_opts *o, int argc, char **argv, int first, struct err *e);

#endif
