/*
 * launch_opts.h - everything `jaxjob launch` is told on its command line.
 *
 * Two halves:
 *  - the job parameters (what the JAXJob looks like): name, image, workers,
 *    resources, run policy, ... They are collected into `params`, a cJSON
 *    object keyed by the parameter names of lib/job/jobparams.h (the same
 *    vocabulary as render's job files and Argo CD parameters), and rendered
 *    through the template into the manifest;
 *  - the run settings (how launch talks to the cluster and when it stops):
 *    kubeconfig, timeout, log mode, cleanup policy, output files.
 *
 * launch_opts_parse() fills the struct and validates every value it can
 * without a cluster; launch.c renders + validates the manifest, then either
 * prints it (--dry-run) or hands both to launch_run() (launch_run.h).
 *
 * Ownership: launch_opts_free() frees everything the parser allocated.
 * String fields point into argv or into allocated copies owned by the struct.
 */
#ifndef JAXJOB_LAUNCH_OPTS_H
#define JAXJOB_LAUNCH_OPTS_H

#include <cJSON.h>

#include "err.h"
#include "launch_identity.h"
#include "outputs/launch_metrics.h"
#include "outputs/launch_outputs.h"

enum launch_logs { LOGS_ALL, LOGS_FIRST, LOGS_NONE };

/* --log-workers SET: the workers whose logs are followed, as ranges of
 * replica indices ("0-7,255": 0..7 and 255); n == 0: every worker. */
#define LAUNCH_LOG_SET_MAX 32
struct launch_log_set {
	int n;
	int lo[LAUNCH_LOG_SET_MAX], hi[LAUNCH_LOG_SET_MAX];
};
enum launch_delete_after { DELETE_NEVER, DELETE_ON_SUCCESS, DELETE_ALWAYS };
enum launch_on_cancel { CANCEL_DELETE, CANCEL_SUSPEND, CANCEL_LEAVE };
enum launch_output_format { OUTPUT_YAML, OUTPUT_JSON };
enum launch_api { API_JAXJOB, API_TRAINJOB, API_AUTO };
/* How the step says how the job ended: its exit code, or exit 0 and the outputs. */
enum launch_outcome { OUTCOME_EXIT_CODE, OUTCOME_OUTPUTS };

struct launch_opts {
	/* --- job parameters ------------------------------------------------ */
	cJSON *params;			/* object: parameter name -> typed value */
	const char *template_path;	/* --template FILE; NULL = templates/jaxjob.yaml built in */
	cJSON *patch;			/* --patch JSON merge patch applied last, or NULL */
	enum launch_api api;		/* --api jaxjob|trainjob|auto */

	/* --- what to do ---------------------------------------------------- */
	int dry_run;			/* --dry-run: print the manifest, touch nothing */
	int server_dry_run;		/* --server-dry-run: validate on the server, create nothing */
	enum launch_output_format format;	/* -o yaml|json (for --dry-run) */

	/* --- cluster ------------------------------------------------------- */
	const char *kubeconfig;		/* --kubeconfig; else $KUBECONFIG; else in-cluster; else ~/.kube/config */
	const char *context;		/* --context */
	const char *namespace_flag;	/* --namespace/-n (also the job's namespace) */
	int insecure_skip_tls_verify;	/* --insecure-skip-tls-verify (explicit only) */

	/* --- waiting and cleanup ------------------------------------------- */
	double timeout_s;		/* --timeout (0 = none) e.g. 90m, 2h, 3600: the run, not the queue */
	double queue_timeout_s;		/* --queue-timeout: time queued by Kueue (0 = unbounded) */
	double queue_every_s;		/* --queue-progress-every: a "queued" line this often (0 = on change only) */
	double queue_hopeless_s;	/* --queue-hopeless-after: Kueue says it cannot admit it (0 = never end) */
	enum launch_logs logs;		/* --logs all|first|none */
	struct launch_log_set log_workers;	/* --log-workers 0-7,255 (with --logs all) */
	double log_turn_s;		/* --log-turn: a followed worker's turn when others wait (0 = off) */
	enum launch_delete_after delete_after;	/* --delete-after never|success|always */
	enum launch_on_cancel on_cancel;	/* --on-cancel delete|suspend|leave */
	double fail_fast_s;		/* --fail-fast-after: grace before an unrecoverable state fails the step */
	double delete_wait_s;		/* --delete-timeout: how long to wait for deletion to be confirmed */
	double log_drain_s;		/* --log-drain: after the end, how long to wait for log streams */
	const char *identity;		/* --identity (else derived from the pipeline's environment) */
	struct launch_task task;	/* --run-id, --task-name, --task-id (identity inputs) */
	const char *name_prefix;	/* --name-prefix: job name = prefix-<hash of run and task> */
	enum launch_outcome outcome;	/* --outcome exit-code|outputs */
	int adopt;			/* --adopt=true|false: re-attach to our own existing job (default true) */
	int quiet;			/* --quiet: no progress lines, logs only */
	double failure_lines;		/* --failure-lines: the failing worker's last lines quoted */

	struct launch_outputs out;
	struct launch_metrics_opts metrics;

	/* JSON lists parsed from --launch-args and --metric-step: the words
	 * above may point into them, so they live as long as the options */
	cJSON *owned;
};

/*
 * Parse argv (argv[0] is "launch"). Returns 0 and fills `o`; on --help prints
 * the help on stdout and returns 1 (--help=json: every option as a JSON
 * list, for the scripts that check the pipeline component against it); on bad input returns -1 with `e` set
 * (the caller prints it and exits 2).
 */
int launch_opts_parse(struct launch_opts *o, int argc, char **argv, struct err *e);

/* Is worker `index`'s log followed (--logs, --log-workers)? */
int launch_opts_logs_worker(const struct launch_opts *o, int index);
/* How many of the workers 0..replicas-1 have their log followed. */
int launch_opts_logs_count(const struct launch_opts *o, int replicas);
void launch_opts_free(struct launch_opts *o);

#endif
